"""The library side of ``toolsearch catalog`` and ``catalog convert`` (issue 21, thin commands):
the typed results, and the command printing exactly their data."""

from __future__ import annotations

import json

import pytest

from toolsearch_cli.catalog.listing import CatalogListing, Conversion, check_conversion, convert_catalog, list_catalog
from toolsearch_cli.errors import UsageError

from ..conftest import DEMO


def test_list_catalog_returns_the_catalog_and_the_commands_json(run_cli):
    listing = list_catalog([str(DEMO)])
    assert isinstance(listing, CatalogListing)
    doc = listing.to_dict()
    assert [t["name"] for t in doc["tools"]] == listing.catalog.names
    assert doc["resident"] == listing.catalog.resident and doc["resident"]
    assert all(t["resident"] == (t["name"] in doc["resident"]) for t in doc["tools"])
    assert doc["warnings"] == []
    result = run_cli("catalog", "--catalog", str(DEMO), "--format", "json")
    assert result.code == 0, result.stderr
    assert json.loads(result.stdout) == doc


def test_list_catalog_keeps_the_loads_warnings(write):
    path = write(
        "odd.yaml",
        "tools:\n  - name: getWeather\n    description: Current weather for a city.\n"
        "    parameters:\n      type: object\n      properties:\n        city: {type: text}\n",
    )
    listing = list_catalog([str(path)])
    warnings = listing.to_dict()["warnings"]
    assert len(warnings) == 1 and "getWeather" in json.dumps(warnings[0])


def test_convert_catalog_returns_the_text_the_command_writes(run_cli):
    conversion = convert_catalog([str(DEMO)], "openai", plain=True)
    assert isinstance(conversion, Conversion)
    entries = json.loads(conversion.text)["tools"]
    assert len(entries) == conversion.tools > 0
    assert all(entry["type"] == "function" for entry in entries)
    result = run_cli("catalog", "--catalog", str(DEMO), "convert", "--to", "openai", "--plain")
    assert result.code == 0, result.stderr
    assert result.stdout == conversion.text


@pytest.mark.parametrize(
    ("to", "plain", "message"),
    [("yaml", True, "--plain applies to the provider formats"), ("protobuf", False, "protobuf")],
)
def test_bad_conversions_are_refused_by_the_library_and_the_command_alike(run_cli, to, plain, message):
    with pytest.raises(UsageError, match=message):
        check_conversion(to, plain)
    with pytest.raises(UsageError, match=message):
        convert_catalog([str(DEMO)], to, plain=plain)
    args = ["catalog", "--catalog", str(DEMO), "convert", "--to", to] + (["--plain"] if plain else [])
    result = run_cli(*args)
    assert result.code == 2 and result.stdout == ""
    assert result.stderr.startswith("error: ") and message in result.stderr and result.stderr.count("\n") == 1
