"""Lenient loading (issue 13.1): one bad piece is a warning with file:line, the rest loads;
--strict makes it an error; lint reports it as TS005."""

from __future__ import annotations

import json

import pytest

from toolsearch_cli.catalog import load_catalog, load_catalog_result
from toolsearch_cli.catalog.lenient import mapped_type
from toolsearch_cli.errors import CatalogError

# RapidAPI (ToolBench) writes parameter types like these: the largest public tool corpus
RAPIDAPI = """\
tools:
  - name: flights_search
    description: Search flights between two airports on a day.
    parameters:
      - {name: origin, type: STRING, description: IATA code of the origin airport, required: true}
      - {name: date, type: DATE (YYYY-MM-DD), description: Day of departure, required: true}
      - {name: time, type: TIME (24-hour HH:MM), description: Earliest departure}
      - {name: cabin, type: ENUM, description: Cabin class, enum: [economy, business]}
      - {name: adults, type: NUMBER, description: How many adults}
      - {name: near, type: "GEOPOINT (latitude, longitude)", description: Near a point}
  - name: hotels_search
    description: Search hotels in a city.
    parameters:
      city: {type: string, description: The city}
"""


def test_rapidapi_types_are_mapped_with_a_warning_each_and_kept_in_metadata(write):
    path = str(write("rapid.yaml", RAPIDAPI))
    catalog_loaded = load_catalog_result(path)
    catalog = catalog_loaded.catalog
    assert catalog.names == ["flights_search", "hotels_search"]
    props = catalog.get("flights_search").parameters["properties"]
    assert props["origin"] == {"type": "string", "description": "IATA code of the origin airport"}
    assert (props["date"]["type"], props["date"]["format"]) == ("string", "date")
    assert (props["time"]["type"], props["time"]["format"]) == ("string", "time")
    assert props["cabin"]["type"] == "string" and props["cabin"]["enum"] == ["economy", "business"]
    assert props["adults"]["type"] == "number" and props["near"]["type"] == "string"
    assert catalog.get("flights_search").metadata["original_types"] == {
        "origin": "STRING",
        "date": "DATE (YYYY-MM-DD)",
        "time": "TIME (24-hour HH:MM)",
        "cabin": "ENUM",
        "adults": "NUMBER",
        "near": "GEOPOINT (latitude, longitude)",
    }
    assert "original_types" not in catalog.get("hotels_search").metadata
    lines = [w.line for w in catalog_loaded.warnings]
    assert lines == [5, 6, 7, 8, 9, 10]  # the line of each parameter
    assert all(w.kind == "type" and w.tool == "flights_search" for w in catalog_loaded.warnings)
    with pytest.raises(CatalogError) as err:
        load_catalog(path, strict=True)
    assert (err.value.line, err.value.field) == (5, "parameters.origin") and "'STRING'" in err.value.message


@pytest.mark.parametrize(
    ("name", "schema", "expected"),
    [
        ("enum", {"enum": [1, 2]}, ("integer", None)),
        ("enum", {"enum": [1.5, 2]}, ("number", None)),
        ("enum", {"enum": [True]}, ("boolean", None)),
        ("enum", {}, ("string", None)),
        ("List[str]", {}, ("array", None)),
        ("dict", {}, ("object", None)),
        ("DateTime", {}, ("string", "date-time")),
        ("nonsense", {}, (None, None)),
    ],
)
def test_type_mapping(name, schema, expected):
    assert mapped_type(name, schema) == expected


def test_an_unknown_type_accepts_any_value_and_a_non_string_type_stays_an_error(write):
    path = str(write("a.yaml", "tools:\n  - name: a\n    parameters:\n      x: {type: strng}\n"))
    catalog_loaded = load_catalog_result(path)
    catalog = catalog_loaded.catalog
    assert catalog.get("a").parameters["properties"]["x"] == {}
    assert "did you mean 'string'" in catalog_loaded.warnings[0].message
    with pytest.raises(CatalogError, match="unknown JSON Schema type 5"):
        load_catalog(str(write("b.yaml", "tools:\n  - name: a\n    parameters:\n      x: {type: 5}\n")))


def test_structural_errors_stay_errors(write):
    with pytest.raises(CatalogError, match="needs a non-empty 'name'"):
        load_catalog(str(write("a.yaml", "tools:\n  - description: no name\n")))
    with pytest.raises(CatalogError, match="duplicate tool name"):
        load_catalog(str(write("b.yaml", "tools:\n  - name: a\n  - name: a\n")))
    with pytest.raises(CatalogError, match="malformed YAML"):
        load_catalog(str(write("c.yaml", "tools: [\n")))


def test_a_responses_request_body_with_hosted_tools_loads_its_functions(write):
    body = {
        "model": "gpt-4.1",
        "tools": [
            {"type": "web_search"},
            {"type": "mcp", "server_label": "deepwiki", "server_url": "https://example.invalid/mcp"},
            {"type": "function", "name": "get_weather", "description": "Weather", "parameters": {"type": "object"}},
        ],
    }
    path = write("body.json", json.dumps(body, indent=2))
    catalog_loaded = load_catalog_result(str(path))
    catalog = catalog_loaded.catalog
    assert catalog.names == ["get_weather"]
    assert [(w.kind, w.field, w.line) for w in catalog_loaded.warnings] == [
        ("tool", "/tools/0/type", 5),
        ("tool", "/tools/1/type", 8),
    ]
    assert "one of OpenAI's own tools" in catalog_loaded.warnings[0].message


def test_a_chat_custom_tool_is_named_for_what_it_is(write):
    tools = [
        {"type": "custom", "custom": {"name": "sql", "description": "Free-form SQL"}},
        {"type": "function", "function": {"name": "f", "description": "F", "parameters": {"type": "object"}}},
    ]
    catalog_loaded = load_catalog_result(str(write("chat.json", json.dumps(tools))))
    catalog = catalog_loaded.catalog
    assert catalog.names == ["f"]
    [warning] = catalog_loaded.warnings
    assert warning.tool == "sql" and "custom tool (free-form text input" in warning.message
    assert "built-in" not in warning.message


def test_cli_prints_one_line_per_warning_and_a_count_and_strict_fails(write, run_cli, monkeypatch, tmp_path):
    write("rapid.yaml", RAPIDAPI)
    monkeypatch.chdir(tmp_path)
    result = run_cli("search", "flight", "-c", "rapid.yaml")
    assert result.code == 0 and "flights_search" in result.stdout
    lines = result.stderr.strip().splitlines()
    assert lines[0] == "warning: rapid.yaml:5: tool 'flights_search', field 'parameters.origin': " + (
        "non-standard type 'STRING' read as 'string'"
    )
    assert len(lines) == 7 and lines[-1].startswith("6 load warnings: 6 non-standard parameter types mapped")
    # a cached catalog keeps its warnings: shown again, and --strict still refuses it
    again = run_cli("search", "flight", "-c", "rapid.yaml")
    assert again.stderr == result.stderr
    strict = run_cli("--strict", "search", "flight", "-c", "rapid.yaml")
    assert strict.code == 2 and strict.stdout == ""
    assert strict.stderr.strip() == "error: rapid.yaml:5: tool 'flights_search', field 'parameters.origin': " + (
        "non-standard type 'STRING' read as 'string'"
    )


def test_lint_reports_load_warnings_as_ts005(write, run_cli, monkeypatch, tmp_path):
    write("rapid.yaml", RAPIDAPI)
    monkeypatch.chdir(tmp_path)
    result = run_cli("lint", "rapid.yaml", "--select", "TS005", "--format", "json")
    found = result.json()  # one diagnostic per rule per tool, counting the six load warnings
    assert [(d["code"], d["location"]["row"], d["tool"], d["count"]) for d in found] == [
        ("TS005", 5, "flights_search", 6)
    ]


OUTSIDE_REF = """tools:
  - name: fetchThing
    description: Fetch a thing by its identifier from the store.
    parameters:
      type: object
      properties:
        thing: {$ref: "https://schemas.example/thing.json", description: The thing.}
        id: {type: string, description: Its identifier.}
"""


def test_a_ref_outside_its_schema_is_one_warning_naming_tool_and_reference(write, run_cli, monkeypatch, tmp_path):
    write("outside.yaml", OUTSIDE_REF)
    monkeypatch.chdir(tmp_path)
    message = (
        "outside.yaml:7: tool 'fetchThing', field 'parameters.thing': $ref 'https://schemas.example/thing.json' "
        "points outside the schema: it is never fetched or read (any value passes there)"
    )
    result = run_cli("search", "fetch a thing", "-c", "outside.yaml")
    assert result.code == 0 and "fetchThing" in result.stdout
    assert result.stderr.splitlines()[0] == "warning: " + message
    strict = run_cli("--strict", "search", "fetch a thing", "-c", "outside.yaml")
    assert strict.code == 2 and strict.stderr.strip() == "error: " + message
    # lint reports it once, as TS305 unresolved-ref, not again as a load warning (TS005)
    lint = run_cli("lint", "outside.yaml", "--select", "TS005,TS305", "--format", "json")
    assert [(d["code"], d["tool"]) for d in lint.json()] == [("TS305", "fetchThing")]


def test_bfcl_json_lines_load(write):
    # BFCL ships its questions as JSON Lines, each with the functions it offers (parameters of type "dict")
    entries = [
        {
            "id": "simple_0",
            "question": [[{"role": "user", "content": "Area of a triangle with base 10 and height 5?"}]],
            "function": [
                {
                    "name": "calculate_triangle_area",
                    "description": "Calculate the area of a triangle given its base and height.",
                    "parameters": {
                        "type": "dict",
                        "properties": {
                            "base": {"type": "integer", "description": "The base of the triangle."},
                            "height": {"type": "float", "description": "The height of the triangle."},
                        },
                        "required": ["base", "height"],
                    },
                }
            ],
        },
        {
            "id": "simple_1",
            "question": [],
            "function": [
                {
                    "name": "math.factorial",
                    "description": "n!",
                    "parameters": {"type": "dict", "properties": {"n": {"type": "integer"}}},
                }
            ],
        },
        {
            "id": "simple_2",
            "question": [],
            "function": [
                {
                    "name": "math.factorial",
                    "description": "n!",
                    "parameters": {"type": "dict", "properties": {"n": {"type": "integer"}}},
                }
            ],
        },
        {
            "id": "simple_3",
            "question": [],
            "function": [{"name": "math.factorial", "description": "other", "parameters": {"type": "dict"}}],
        },
    ]
    text = "\n".join(json.dumps(e) for e in entries) + "\n"
    for name in ("BFCL_v3_simple.json", "simple.jsonl"):
        catalog_loaded = load_catalog_result(str(write(name, text)))
        catalog = catalog_loaded.catalog
        assert catalog.names == ["calculate_triangle_area", "math.factorial"]
        tool = catalog.get("calculate_triangle_area")
        assert tool.parameters["type"] == "object" and tool.parameters["properties"]["height"]["type"] == "number"
        assert tool.source.line == 1 and catalog.get("math.factorial").source.line == 2
        skipped = [w for w in catalog_loaded.warnings if w.kind == "tool"]
        assert [(w.line, w.tool) for w in skipped] == [(4, "math.factorial")]
    with pytest.raises(CatalogError) as err:
        load_catalog(str(write("bad.jsonl", text + "{not json\n")))
    assert err.value.line == 5 and "malformed JSON Lines" in err.value.message


def test_catalog_json_lists_the_warnings(write, run_cli, monkeypatch, tmp_path):
    write("rapid.yaml", RAPIDAPI)
    monkeypatch.chdir(tmp_path)
    warnings = run_cli("catalog", "-c", "rapid.yaml", "-f", "json").json()["warnings"]
    assert len(warnings) == 6 and warnings[1] == {
        "kind": "type",
        "file": "rapid.yaml",
        "line": 6,
        "tool": "flights_search",
        "field": "parameters.date",
        "message": "non-standard type 'DATE (YYYY-MM-DD)' read as 'string' (format 'date')",
    }


def _nested(depth: int, leaf: dict) -> dict:
    schema = leaf
    for _ in range(depth):
        schema = {"type": "object", "nullable": True, "properties": {"x": schema}, "allOf": [{"type": "object"}]}
    return schema


def test_deep_and_odd_schemas_never_crash_the_rewriters():
    # hostile shapes: 500 levels (beyond every walker's bound), a type that is not a string, a list of junk
    from toolsearch_cli.catalog.lenient import map_types
    from toolsearch_cli.catalog.openai_strict import make_strict
    from toolsearch_cli.catalog.openapi import clean_schema

    deep = _nested(500, {"type": "DATE (YYYY-MM-DD)"})
    odd = {"type": "object", "properties": {"a": {"type": [1, None]}, "b": {"type": ["str", "int"]}, "c": []}}

    def fail(path, message):
        return CatalogError(message, field=path)

    with pytest.raises(CatalogError):  # outside a collecting block a warning is raised
        map_types({"type": "object", "properties": {"d": {"type": "date"}}}, fail)
    from toolsearch_cli.catalog.lenient import collecting

    with collecting() as found:
        assert map_types(deep, fail) == {}  # beyond the depth bound nothing is touched
        originals = map_types(odd, fail)
    assert odd["properties"]["b"]["type"] == ["string", "integer"] and originals == {"parameters.b": "str, int"}
    assert odd["properties"]["a"]["type"] == [1, None] and len(found) == 1
    _, reasons = make_strict(deep)
    assert any("nested deeper than 10" in r for r in reasons)
    cleaned = clean_schema(deep)
    assert isinstance(cleaned, dict) and cleaned["type"] == ["object", "null"]
    converted, _ = make_strict(odd)  # junk is passed through (loading refuses it before), not crashed on
    assert converted["required"] == ["a", "b", "c"] and converted["properties"]["c"] == []


@pytest.mark.parametrize(
    "where",
    [
        {"properties": {"a": {"type": "DATE"}}},
        {"properties": {"a": {"type": "array", "items": {"type": "float"}}}},
        {"properties": {"a": {"anyOf": [{"type": "string"}, {"type": "int"}]}}},
        {"properties": {"a": {"type": "object", "additionalProperties": {"type": "str"}}}},
        {"properties": {"a": {"not": {"type": "bool"}}}},
        {"properties": {"a": {"type": "array", "prefixItems": [{"type": "long"}]}}},
        {"properties": {"a": {"type": "object", "patternProperties": {"^x": {"type": "dict"}}}}},
        {"properties": {"a": {"$ref": "#/$defs/A"}}, "$defs": {"A": {"type": "double"}}},
        {"properties": {"a": {"$ref": "#/definitions/A"}}, "definitions": {"A": {"type": "text"}}},
        {"properties": {"a": {"type": ["string", "null"]}, "b": {"type": "any"}}},
        {"properties": {"a": {"type": "string", "description": "plain"}}},
        {},
    ],
)
def test_json_and_yaml_parameters_load_alike_with_or_without_types_to_map(write, where):
    """Parsed JSON with no type to map skips the copy and the second check (a 100,000-tool catalog
    loads faster); what it loads, and the warnings, must equal the YAML path's, which always copies."""
    tool = {"name": "t", "description": "d", "parameters": {"type": "object", **where}}
    from_json_loaded = load_catalog_result(str(write("c.json", json.dumps({"tools": [tool]}))))
    from_json = from_json_loaded.catalog
    from_yaml_loaded = load_catalog_result(str(write("c.yaml", "tools:\n  - " + json.dumps(tool) + "\n")))
    from_yaml = from_yaml_loaded.catalog
    assert from_json.get("t").parameters == from_yaml.get("t").parameters
    assert from_json.get("t").metadata == from_yaml.get("t").metadata
    assert [(w.kind, w.message) for w in from_json_loaded.warnings] == [
        (w.kind, w.message) for w in from_yaml_loaded.warnings
    ]
    assert "properties" in from_json.get("t").parameters
