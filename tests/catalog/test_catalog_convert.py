"""``toolsearch catalog convert``: every shipped catalog survives every format unchanged in meaning."""

from __future__ import annotations

import json

import pytest

from toolsearch_cli import search
from toolsearch_cli.catalog import load_catalog
from toolsearch_cli.catalog.export import EXPORTER_BY_NAME, export_catalog

from ..conftest import DATA, DEMO, ROOT

SHIPPED = {"demo": str(DEMO), "python": str(ROOT / "catalogs" / "python" / "ops_tools.py")}
HELPDESK = str(DATA / "helpdesk_openapi.yaml")
SUFFIX = {"yaml": ".yaml"}


def meaning(catalog):
    """Everything a catalog means: per tool name, description, parameters, category, tags, examples,
    metadata, requires, lint and whether it is resident; the resident order; the tool groups."""
    resident = set(catalog.resident)
    tools = [
        (
            t.name,
            t.description,
            t.parameters,
            t.category,
            t.tags,
            t.examples,
            t.metadata,
            t.requires,
            t.lint,
            t.name in resident,
        )
        for t in catalog.tools
    ]
    groups = [(g.name, g.description, g.system_prompt, g.tools, g.matcher) for g in catalog.groups]
    return tools, list(catalog.resident), groups


def test_the_shipped_catalogs_are_not_trivial():
    demo, python = load_catalog(SHIPPED["demo"]), load_catalog(SHIPPED["python"])
    assert len(demo) == 64 and demo.resident and any(t.metadata for t in demo.tools)
    assert demo.groups and any(t.requires for t in demo.tools)
    assert len(python) >= 5 and any("$defs" in t.parameters for t in python.tools)


@pytest.mark.parametrize("fmt", list(EXPORTER_BY_NAME))
@pytest.mark.parametrize("name", list(SHIPPED))
def test_every_shipped_catalog_round_trips_through_every_format(run_cli, tmp_path, name, fmt):
    out = tmp_path / f"converted{SUFFIX.get(fmt, '.json')}"
    result = run_cli("catalog", "convert", "--to", fmt, "--catalog", SHIPPED[name], "--out", str(out))
    assert result.code == 0, result.stderr
    assert result.stdout == "" and f"as {fmt} to {out}" in result.stderr
    original, converted = load_catalog(SHIPPED[name]), load_catalog(str(out))
    assert meaning(converted) == meaning(original)
    # and converting the converted file again gives the same text
    assert export_catalog(converted, fmt) == out.read_text(encoding="utf-8")


@pytest.mark.parametrize("fmt", list(EXPORTER_BY_NAME))
def test_openapi_catalog_round_trips_and_still_searches(run_cli, tmp_path, fmt):
    original = load_catalog(HELPDESK)
    out = tmp_path / f"helpdesk{SUFFIX.get(fmt, '.json')}"
    assert run_cli("catalog", "convert", "-t", fmt, "-c", HELPDESK, "-o", str(out)).code == 0
    assert meaning(load_catalog(str(out))) == meaning(original)
    found = run_cli("search", "reply to a ticket", "-c", str(out), "-f", "json", "-n", "1").json()
    assert found["hits"][0]["name"] == "addComment"


def test_provider_shapes(run_cli):
    openai = json.loads(run_cli("catalog", "convert", "--to", "openai", "-c", SHIPPED["demo"]).stdout)
    weather = next(t for t in openai["tools"] if t["function"]["name"] == "getWeather")
    assert weather["type"] == "function" and weather["function"]["parameters"]["type"] == "object"
    assert weather["x-toolsearch"]["category"] == "weather" and weather["x-toolsearch"]["examples"]

    flat = json.loads(run_cli("catalog", "convert", "--to", "openai-responses", "-c", SHIPPED["demo"]).stdout)
    assert flat["tools"][0]["type"] == "function" and "name" in flat["tools"][0] and "function" not in flat["tools"][0]

    anthropic = json.loads(run_cli("catalog", "convert", "--to", "anthropic", "-c", SHIPPED["demo"]).stdout)
    deferred = {t["name"] for t in anthropic["tools"] if t.get("defer_loading")}
    loaded = {t["name"] for t in anthropic["tools"] if "defer_loading" not in t}
    assert loaded == {"currentTime", "askUser"} and len(deferred) == 62

    mcp = json.loads(run_cli("catalog", "convert", "--to", "mcp", "-c", SHIPPED["demo"]).stdout)
    assert set(mcp["tools"][0]) >= {"name", "description", "inputSchema", "_meta"}


def test_plain_leaves_the_extension_out(run_cli, tmp_path):
    result = run_cli("catalog", "convert", "--to", "anthropic", "--plain", "-c", SHIPPED["demo"])
    assert result.code == 0 and "x-toolsearch" not in result.stdout
    tools = json.loads(result.stdout)["tools"]
    assert {t["name"] for t in tools if "defer_loading" not in t} == {"currentTime", "askUser"}
    # resident survives through defer_loading even without the extension; categories do not
    path = tmp_path / "plain.json"
    path.write_text(result.stdout, encoding="utf-8")
    reloaded = load_catalog(str(path))
    assert sorted(reloaded.resident) == ["askUser", "currentTime"]
    assert (
        reloaded.categories() == []
        and reloaded.get("getWeather").parameters == load_catalog(SHIPPED["demo"]).get("getWeather").parameters
    )


def test_convert_errors(run_cli, tmp_path):
    bad = run_cli("catalog", "convert", "--to", "antropic", "-c", SHIPPED["demo"])
    assert bad.code == 2 and "did you mean 'anthropic'" in bad.stderr and bad.stdout == ""
    plain_yaml = run_cli("catalog", "convert", "--to", "yaml", "--plain", "-c", SHIPPED["demo"])
    assert plain_yaml.code == 2 and "--plain" in plain_yaml.stderr
    nowhere = run_cli("catalog", "convert", "--to", "yaml", "-c", SHIPPED["demo"], "-o", str(tmp_path / "no" / "x"))
    assert nowhere.code == 2 and "cannot write" in nowhere.stderr


def test_names_a_provider_refuses_are_reported(tmp_path, run_cli):
    path = tmp_path / "dotted.json"
    path.write_text(json.dumps({"tools": [{"name": "files.read", "inputSchema": {"type": "object"}}]}))
    result = run_cli("catalog", "convert", "--to", "openai", "-c", str(path))
    assert result.code == 2 and "tool 'files.read', field 'name'" in result.stderr
    assert run_cli("catalog", "convert", "--to", "mcp", "-c", str(path)).code == 0


def test_catalog_listing_still_works_with_options_before_the_subcommand(run_cli):
    listing = run_cli("catalog", "-c", SHIPPED["python"], "-f", "json")
    assert listing.code == 0 and len(listing.json()["tools"]) == len(load_catalog(SHIPPED["python"]))
    converted = run_cli("catalog", "-c", SHIPPED["python"], "convert", "--to", "mcp")
    assert converted.code == 0 and len(json.loads(converted.stdout)["tools"]) == len(listing.json()["tools"])


def test_search_over_a_converted_catalog_ranks_like_the_original(run_cli, tmp_path):
    out = tmp_path / "demo.json"
    run_cli("catalog", "convert", "--to", "anthropic", "-c", SHIPPED["demo"], "-o", str(out))
    for query in ("查询城市天气", "refund a payment", "book a flight"):
        before = [h.name for h in search(load_catalog(SHIPPED["demo"]), query)]
        after = [h.name for h in search(load_catalog(str(out)), query)]
        assert before == after and before
