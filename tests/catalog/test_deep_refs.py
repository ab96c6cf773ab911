"""OpenAPI ``$ref`` chains whose inlined schemas nest deep: load and ``catalog convert`` agree.

A document within the reader's bound (100 levels) can hold a chain of ``$ref``\\ s that, once
inlined, nests far deeper. Such an operation is left out with a load warning (an error with
--strict) naming file:line, tool and field, so ``catalog convert`` never writes a file that
toolsearch then refuses to read; an operation that fits converts to every format and reads back.
"""

from __future__ import annotations

import json

import pytest

from toolsearch_cli import Catalog, CatalogError, Tool
from toolsearch_cli.bounded import MAX_DEPTH, TOOL_DATA_DEPTH
from toolsearch_cli.catalog import load_catalog
from toolsearch_cli.catalog.export import EXPORTER_BY_NAME, export_catalog


def chain_document(links: int, levels_per_link: int = 0) -> dict:
    """``POST /deep``'s body is S0, whose ``next`` is S1 ... S<links> (each behind ``levels_per_link``
    array levels); ``GET /shallow`` has one plain query parameter."""
    schemas = {}
    for i in range(links):
        inner: dict = {"$ref": f"#/components/schemas/S{i + 1}"}
        for _ in range(levels_per_link):
            inner = {"type": "array", "items": inner}
        schemas[f"S{i}"] = {"type": "object", "properties": {"next": inner}}
    schemas[f"S{links}"] = {"type": "object", "properties": {"leaf": {"type": "string"}}}
    body = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/S0"}}}}
    return {
        "openapi": "3.0.3",
        "info": {"title": "deep", "version": "1"},
        "paths": {
            "/deep": {"post": {"operationId": "deepOp", "summary": "Store a deep thing", "requestBody": body}},
            "/shallow": {
                "get": {
                    "operationId": "shallowOp",
                    "summary": "List shallow things",
                    "parameters": [{"name": "q", "in": "query", "schema": {"type": "string"}}],
                }
            },
        },
        "components": {"schemas": schemas},
    }


def depth(value) -> int:
    if isinstance(value, dict):
        return 1 + max((depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((depth(v) for v in value), default=0)
    return 0


@pytest.fixture
def spec(tmp_path):
    def write(links: int, levels_per_link: int = 0):
        path = tmp_path / f"chain{links}x{levels_per_link}.json"
        path.write_text(json.dumps(chain_document(links, levels_per_link), indent=1), encoding="utf-8")
        return path

    return write


@pytest.mark.parametrize("fmt", list(EXPORTER_BY_NAME))
def test_the_deepest_chain_that_loads_converts_to_a_file_that_reads_back(run_cli, spec, tmp_path, fmt):
    path = spec(45)  # 45 links inline to 93 levels: within the bound
    loaded = load_catalog([str(path)])
    deep = next(t for t in loaded.tools if t.name == "deepOp")
    assert depth(deep.parameters) > MAX_DEPTH // 2  # really deep, really inlined
    out = tmp_path / f"out.{'yaml' if fmt == 'yaml' else 'json'}"
    result = run_cli("catalog", "convert", "-c", str(path), "--to", fmt, "-o", str(out))
    assert result.code == 0, result.stderr
    back = run_cli("catalog", "-c", str(out), "--format", "json")
    assert back.code == 0, back.stderr
    again = load_catalog([str(out)])
    assert [t.name for t in again.tools] == ["deepOp", "shallowOp"]
    assert next(t for t in again.tools if t.name == "deepOp").parameters == deep.parameters


@pytest.mark.parametrize("fmt", ["yaml", "openai", "mcp"])
def test_a_chain_too_deep_for_a_file_is_left_out_at_load_and_convert_writes_what_reads_back(
    run_cli, spec, tmp_path, fmt
):
    path = spec(60)  # 60 links: 123 levels once inlined; the document itself nests 8
    out = tmp_path / f"out.{'yaml' if fmt == 'yaml' else 'json'}"
    result = run_cli("catalog", "convert", "-c", str(path), "--to", fmt, "-o", str(out))
    assert result.code == 0, result.stderr
    warning = next(line for line in result.stderr.splitlines() if "deepOp" in line)
    assert str(path) in warning and "/components/schemas/S" in warning and f"{TOOL_DATA_DEPTH} levels" in warning
    assert "Traceback" not in result.stderr
    back = run_cli("catalog", "-c", str(out), "--format", "json")
    assert back.code == 0, back.stderr  # never a file we cannot read
    assert [t["name"] for t in back.json()["tools"]] == ["shallowOp"]


def test_with_strict_a_chain_too_deep_is_a_one_line_error(run_cli, spec, tmp_path):
    path = spec(60)
    out = tmp_path / "out.json"
    result = run_cli("--strict", "catalog", "convert", "-c", str(path), "--to", "openai", "-o", str(out))
    assert result.code == 2
    [line] = result.stderr.strip().splitlines()
    assert line.startswith(f"error: {path}:") and "deepOp" in line and "/components/schemas/S" in line
    assert not out.exists()


def test_lint_reports_the_left_out_operation_as_a_load_warning(run_cli, spec):
    result = run_cli("lint", str(spec(60)), "--select", "TS005", "--isolated", "--format", "json", "--exit-zero")
    assert result.code == 0, result.stderr
    assert "deepOp" in result.stdout and "TS005" in result.stdout


def test_a_chain_that_would_overflow_the_stack_is_a_warning_not_an_internal_error(run_cli, spec):
    # 99 links of 20 array levels each would inline to ~4,000 levels (Python's recursion limit is 1,000)
    result = run_cli("catalog", "-c", str(spec(99, 20)), "--format", "json")
    assert result.code == 0, result.stderr
    assert "internal error" not in result.stderr and "deepOp" in result.stderr
    assert [t["name"] for t in result.json()["tools"]] == ["shallowOp"]


def _nested(levels: int) -> dict:
    schema: dict = {"type": "string"}
    while depth(schema) + 2 < levels:
        schema = {"type": "object", "properties": {"x": schema}}
    return schema


def test_convert_refuses_a_tool_built_in_code_that_no_file_could_hold():
    deep = Tool(name="deep_tool", description="d", parameters=_nested(MAX_DEPTH - 2))
    with pytest.raises(CatalogError) as caught:
        export_catalog(Catalog(tools=[deep]), "mcp")
    assert caught.value.tool == "deep_tool" and caught.value.field == "parameters"
    fits = Tool(name="fits", description="d", parameters=_nested(TOOL_DATA_DEPTH))
    for fmt in EXPORTER_BY_NAME:
        export_catalog(Catalog(tools=[fits]), fmt)  # no error: every format holds it


def test_a_python_catalog_tool_nested_too_deep_for_a_file_is_a_load_error(run_cli, write):
    module = write(
        "deep_tools.py",
        "from toolsearch_cli import Tool\n"
        "schema = {'type': 'string'}\n"
        "for _ in range(48):\n"
        "    schema = {'type': 'object', 'properties': {'x': schema}}\n"
        "TOOLS = [Tool(name='deep_tool', description='d', parameters=schema)]\n",
    )
    result = run_cli("catalog", "-c", str(module))
    assert result.code == 2
    [line] = result.stderr.strip().splitlines()
    assert "deep_tool" in line and "parameters" in line and f"{TOOL_DATA_DEPTH} levels" in line
