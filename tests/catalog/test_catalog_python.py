"""Python-module catalogs: decorated functions and TOOLS lists, schema from type hints."""

from __future__ import annotations

import pytest

from toolsearch_cli import CatalogError, Tool, load_catalog, tool, tool_from_function
from toolsearch_cli.catalog.python_loader import parse_docstring

from ..conftest import ROOT

OPS = ROOT / "catalogs" / "python" / "ops_tools.py"


def test_docstring_summary_and_google_args():
    summary, args = parse_docstring(
        """Restart a service.

        Longer text here.

        Args:
            service: The service name,
                continued on the next line.
            drain (bool): Drain first.

        Returns:
            A message.
        """
    )
    assert summary == "Restart a service. Longer text here."
    assert args == {"service": "The service name, continued on the next line.", "drain": "Drain first."}


def test_schema_from_type_hints_and_docstring():
    @tool(category="ops", tags=["x"], examples=["restart billing"])
    def restart(service: str, replicas: int = 2, mode: str | None = None) -> str:
        """Restart it.

        Args:
            service: Which service.
            replicas: How many.
        """
        return service.upper()

    built = tool_from_function(restart)
    assert built.name == "restart" and built.description == "Restart it."
    assert built.category == "ops" and built.tags == ["x"] and built.examples == ["restart billing"]
    props = built.parameters["properties"]
    assert props["service"] == {"type": "string", "description": "Which service."}
    assert props["replicas"] == {"type": "integer", "default": 2, "description": "How many."}
    assert built.parameters["required"] == ["service"]
    assert "title" not in built.parameters
    assert restart("a") == "A"  # the decorator returns the function itself
    assert built.function is restart


def test_example_module_by_path_and_by_name(monkeypatch):
    by_path = load_catalog(str(OPS))
    assert by_path.names == ["restartService", "searchLogs", "createAlert", "rollbackDeployment", "getOnCall"]
    restart = by_path.get("restartService")
    assert restart.parameters["properties"]["environment"]["enum"] == ["staging", "production"]
    assert restart.function("billing") == "restarted billing in staging"
    source_lines = OPS.read_text().splitlines()
    assert source_lines[restart.source.line - 1].startswith("def restartService(")
    alert = by_path.get("createAlert")
    assert [p.name for p in alert.parameter_tree()[1].children] == ["metric", "above", "minutes"]
    assert isinstance(by_path.get("getOnCall"), Tool)
    monkeypatch.chdir(ROOT)
    assert load_catalog("catalogs.python.ops_tools").names == by_path.names


def test_module_without_tools_is_an_error(write):
    path = write("empty_tools.py", "x = 1\n")
    with pytest.raises(CatalogError, match="defines no tools"):
        load_catalog(str(path))


def test_unsupported_type_hint_names_the_def_line(write):
    path = write(
        "bad_hint.py",
        "from toolsearch_cli import tool\nclass Opaque: pass\n\n@tool\ndef f(x: Opaque):\n    'Do.'\n",
    )
    with pytest.raises(CatalogError) as info:
        load_catalog(str(path))
    assert info.value.line == 5 and info.value.tool == "f" and "JSON Schema" in str(info.value)


def test_resident_flag_and_tools_list_with_bad_entry(write):
    ok = write("res.py", "from toolsearch_cli import tool\n@tool(resident=True)\ndef now():\n    'Time.'\n")
    assert load_catalog(str(ok)).resident == ["now"]
    bad = write("bad_list.py", "TOOLS = [42]\n")
    with pytest.raises(CatalogError, match=r"TOOLS\[0\] is int"):
        load_catalog(str(bad))


def test_titles_are_stripped_from_schemas_but_not_from_data_or_property_names():
    def publish(title: str, meta: dict = {"title": "kept"}) -> None:  # noqa: B006 - a default to inspect
        """Publish.

        Args:
            title: The title.
        """

    schema = tool_from_function(publish).parameters
    assert "title" in schema["properties"]
    assert "title" not in schema["properties"]["title"]
    assert schema["properties"]["meta"]["default"] == {"title": "kept"}
