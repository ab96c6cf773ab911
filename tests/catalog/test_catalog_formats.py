"""OpenAI, Anthropic and MCP catalogs: detected from content, forced by name, errors with pointer and line."""

from __future__ import annotations

import json

import pytest

from toolsearch_cli.catalog import load_catalog, load_catalog_result
from toolsearch_cli.catalog.document import parse_document
from toolsearch_cli.catalog.formats import detect_format
from toolsearch_cli.errors import CatalogError

WEATHER_SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": "City name"},
        "days": {"type": "integer"},
        "where": {"type": "object", "properties": {"lat": {"type": "number"}, "lon": {"type": "number"}}},
    },
    "required": ["city"],
}

OPENAI_CHAT = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Get the weather forecast for a city",
            "parameters": WEATHER_SCHEMA,
            "strict": True,
        },
    },
    {
        "type": "function",
        "function": {"name": "send_email", "description": "Send an email to someone"},
        "x-toolsearch": {"category": "mail", "tags": ["email"], "resident": True},
    },
]


def dump(write, name, data):
    return str(write(name, json.dumps(data, indent=2)))


def test_openai_chat_tools_as_bare_array(write):
    catalog = load_catalog(dump(write, "tools.json", OPENAI_CHAT))
    weather = catalog.get("get_weather")
    assert weather.description == "Get the weather forecast for a city"
    assert weather.parameters == WEATHER_SCHEMA
    assert weather.metadata == {"openai": {"strict": True}}
    assert weather.source.file.endswith("tools.json") and weather.source.line == 2
    email = catalog.get("send_email")
    assert email.parameters == {"type": "object", "properties": {}}
    assert (email.category, email.tags) == ("mail", ["email"])
    assert catalog.resident == ["send_email"]


def test_openai_request_body_and_responses_flat_form(write):
    body = {"model": "gpt-4.1", "tools": OPENAI_CHAT}
    assert load_catalog(dump(write, "request.json", body)).names == ["get_weather", "send_email"]
    flat = {
        "tools": [{"type": "function", "name": "get_weather", "description": "Weather", "parameters": WEATHER_SCHEMA}]
    }
    catalog = load_catalog(dump(write, "responses.json", flat))
    assert catalog.get("get_weather").parameters == WEATHER_SCHEMA


def test_openai_tools_in_yaml_are_detected_too(write):
    text = (
        "tools:\n"
        "  - type: function\n"
        "    function:\n"
        "      name: get_weather\n"
        "      description: Weather for a city\n"
        "      parameters: {type: object, properties: {city: {type: string}}}\n"
    )
    catalog = load_catalog(str(write("openai.yaml", text)))
    assert catalog.get("get_weather").parameters["properties"] == {"city": {"type": "string"}}


def test_anthropic_defer_loading_is_the_inverse_of_resident_and_cache_control_is_kept(write):
    tools = [
        {"name": "get_weather", "description": "Weather", "input_schema": WEATHER_SCHEMA, "defer_loading": True},
        {
            "name": "ask_user",
            "description": "Ask the user a question",
            "input_schema": {"type": "object", "properties": {"question": {"type": "string"}}},
            "cache_control": {"type": "ephemeral"},
        },
    ]
    catalog = load_catalog(dump(write, "anthropic.json", {"tools": tools}))
    assert catalog.resident == ["ask_user"]
    assert catalog.get("ask_user").metadata == {"anthropic": {"cache_control": {"type": "ephemeral"}}}
    assert catalog.get("get_weather").parameters == WEATHER_SCHEMA
    # no tool deferred: nothing is resident (everything stays searchable)
    for tool in tools:
        tool.pop("defer_loading", None)
    assert load_catalog(dump(write, "plain.json", tools)).resident == []


def test_anthropic_server_tools_are_warned_about_with_their_pointer_and_its_search_tool_skipped(write):
    tools = [
        {"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"},
        {"name": "a", "input_schema": {"type": "object"}, "defer_loading": True},
    ]
    loaded = load_catalog_result(dump(write, "request.json", {"model": "claude", "tools": tools}))
    assert loaded.catalog.names == ["a"] and loaded.warnings == ()
    tools.append({"type": "web_search_20250305", "name": "web_search"})
    path = dump(write, "a.json", tools)
    line = next(i for i, text in enumerate(open(path).read().splitlines(), 1) if "web_search_2025" in text)
    loaded = load_catalog_result(path)  # the server tool is left out, the rest loads
    assert loaded.catalog.names == ["a"]
    [warning] = loaded.warnings
    assert (warning.kind, warning.field, warning.line, warning.tool) == ("tool", "/2/type", line, "web_search")
    assert "server tool" in warning.message
    with pytest.raises(CatalogError) as err:
        load_catalog(path, strict=True)
    assert err.value.field == "/2/type" and "server tool" in str(err.value) and err.value.line == line


def test_mcp_tools_list_result_keeps_title_annotations_output_schema_and_meta(write):
    result = {
        "tools": [
            {
                "name": "get_forecast",
                "title": "Forecast",
                "description": "Daily forecast",
                "inputSchema": WEATHER_SCHEMA,
                "outputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
                "annotations": {"readOnlyHint": True},
                "_meta": {"x-toolsearch": {"category": "weather", "examples": ["rain tomorrow?"]}, "vendor/x": 1},
            }
        ],
        "nextCursor": None,
    }
    tool = load_catalog(dump(write, "mcp.json", result)).get("get_forecast")
    assert tool.category == "weather" and tool.examples == ["rain tomorrow?"]
    assert tool.metadata == {
        "mcp": {
            "title": "Forecast",
            "outputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
            "annotations": {"readOnlyHint": True},
            "_meta": {"vendor/x": 1},
        }
    }


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({"openapi": "3.1.0", "paths": {}}, "openapi"),
        ({"tools": [{"name": "a", "inputSchema": {}}]}, "mcp"),
        ([{"name": "a", "input_schema": {}}], "anthropic"),
        ([{"type": "function", "name": "a"}], "openai"),
        ({"tools": [{"name": "a", "description": "toolsearch's own"}]}, "yaml"),
        ([{"name": "a"}], "yaml"),
    ],
)
def test_detect_format(data, expected):
    assert detect_format(data) == expected


def test_forced_format_overrides_detection(write, run_cli):
    # a file whose first tool has no input_schema yet is meant as Anthropic: forcing names the problem
    path = dump(write, "forced.json", [{"name": "a", "description": "x"}])
    auto = run_cli("catalog", "-c", path, "-f", "json")
    assert auto.code == 0 and auto.json()["tools"][0]["name"] == "a"
    forced = run_cli("catalog", "-c", path, "--catalog-format", "anthropic")
    assert forced.code == 2
    assert "forced.json:2: tool 'a', field '/0': an Anthropic tool needs 'input_schema'" in forced.stderr
    bad = run_cli("search", "x", "-c", path, "--catalog-format", "antropic")
    assert bad.code == 2 and "did you mean 'anthropic'" in bad.stderr


def test_json_schema_errors_name_file_line_and_json_pointer(write, run_cli):
    data = json.loads(json.dumps(OPENAI_CHAT))
    data[0]["function"]["parameters"]["properties"]["where"]["properties"]["lat"]["type"] = "float"
    data[0]["function"]["parameters"]["properties"]["where"]["properties"]["lon"]["type"] = "flot"
    path = dump(write, "bad.json", data)
    line = next(i for i, text in enumerate(open(path).read().splitlines(), 1) if '"lat"' in text)
    expected = f"bad.json:{line}: tool 'get_weather', field '/0/function/parameters/properties/where/properties/lat'"
    # --strict: the first non-standard type stops the load, on one line
    result = run_cli("--strict", "search", "weather", "-c", path)
    assert result.code == 2 and result.stdout == ""
    assert expected in result.stderr
    assert "non-standard type 'float' read as 'number'" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    # by default: one warning line each, a count, and the tool is searched with the types mapped
    result = run_cli("search", "weather", "-c", path)
    assert result.code == 0 and "get_weather" in result.stdout
    lines = result.stderr.strip().splitlines()
    assert lines[0].startswith("warning: ") and lines[0].endswith(
        f"{expected}: non-standard type 'float' read as 'number'"
    )
    assert "unknown JSON Schema type 'flot' (did you mean 'float'?); read as accepting any value" in lines[1]
    assert lines[2].startswith("2 load warnings: 2 non-standard parameter types mapped;") and len(lines) == 3
    tool = load_catalog(path).get("get_weather")
    where = tool.parameters["properties"]["where"]["properties"]
    assert where["lat"]["type"] == "number" and "type" not in where["lon"]
    assert tool.metadata["original_types"] == {"where.lat": "float", "where.lon": "flot"}


def test_yaml_errors_name_the_line_too(write):
    text = "tools:\n  - name: a\n    input_schema:\n      type: object\n      properties:\n        x: {type: strng}\n"
    with pytest.raises(CatalogError) as err:
        load_catalog(str(write("a.yaml", text)), strict=True)
    assert err.value.line == 6 and err.value.field == "/tools/0/input_schema/properties/x"


def test_malformed_json_names_line(write):
    with pytest.raises(CatalogError) as err:
        load_catalog(str(write("broken.json", '{"tools": [\n  {"name": "a",}\n]}')))
    assert err.value.line == 2 and "malformed JSON" in str(err.value)


def test_duplicate_names_and_wrong_types_are_pointed_at(write):
    twice = [{"name": "a", "inputSchema": {"type": "object"}}, {"name": "a", "inputSchema": {"type": "object"}}]
    with pytest.raises(CatalogError) as err:
        load_catalog(dump(write, "dup.json", {"tools": twice}))
    assert err.value.field == "/tools/1/name" and "first at /tools/0" in str(err.value)
    with pytest.raises(CatalogError) as err:
        load_catalog(dump(write, "ext.json", [{"name": "a", "input_schema": {}, "x-toolsearch": {"tag": ["x"]}}]))
    assert err.value.field == "/0/x-toolsearch/tag" and "did you mean 'tags'" in str(err.value)
    with pytest.raises(CatalogError) as err:
        load_catalog(dump(write, "array.json", [{"type": "function", "function": {"name": "a", "parameters": []}}]))
    assert err.value.field == "/0/function/parameters"


def test_a_folder_loads_json_catalogs_of_any_format(write, tmp_path):
    dump(write, "cat/openai.json", OPENAI_CHAT)
    write("cat/own.yaml", "tools:\n  - name: localTool\n    description: from yaml\n")
    assert sorted(load_catalog(str(tmp_path / "cat")).names) == ["get_weather", "localTool", "send_email"]


def test_parse_document_reads_json_without_suffix_hint():
    doc = parse_document('[{"name": "a", "input_schema": {"type": "object"}}]', "inline")
    assert detect_format(doc.data) == "anthropic"


TWO_TOOLS_JSONL = (
    '{"name": "getWeather", "description": "Get the weather.", "parameters": {"type": "object"}}\n'
    '{"name": "sendEmail", "description": "Send an email.", "parameters": {"type": "object"}}\n'
)


@pytest.mark.parametrize(
    "text, kind",
    [
        # JSON Lines: several lines, each a JSON object
        (TWO_TOOLS_JSONL, "json lines"),
        ("\n" + TWO_TOOLS_JSONL.replace("\n", "\n\n"), "json lines"),  # blank lines between
        # YAML that starts with '{' on several lines: flow mappings, not JSON
        (
            "{tools: [{name: getWeather, description: Get the weather.},\n{name: sendEmail, description: Send.}]}\n",
            "yaml",
        ),
        (
            "{tools: [\n  {name: getWeather, description: Get the weather.},\n"
            "  {name: sendEmail, description: Send.}\n]}\n",
            "yaml",
        ),
        # a JSON document followed by a YAML comment is YAML (JSON is YAML), not broken JSON Lines
        (json.dumps({"tools": [{"name": "getWeather"}, {"name": "sendEmail"}]}) + "\n# exported by hand\n", "yaml"),
        # one line: whole JSON
        (json.dumps([{"name": "getWeather"}, {"name": "sendEmail"}]), "json"),
    ],
)
def test_json_lines_json_and_yaml_are_told_apart_by_structure(text, kind):
    doc = parse_document(text, "inline")
    data = doc.data
    tools = data["tools"] if isinstance(data, dict) else data
    assert [t["name"] for t in tools] == ["getWeather", "sendEmail"]
    assert (doc.text is None) == (kind == "json lines")  # JSON Lines keeps no whole-document text


@pytest.mark.parametrize(
    "text, json_hint, fragment, line",
    [
        (TWO_TOOLS_JSONL + '{"name": "broken",\n', False, "malformed JSON Lines", 3),
        (TWO_TOOLS_JSONL + '{"name": "x", "n": NaN}\n', False, "NaN", 3),
        ('{"name": "x", "n": NaN}\n' + TWO_TOOLS_JSONL, False, "NaN", 1),
        (TWO_TOOLS_JSONL + "[1, 2]\n", True, "malformed JSON: Extra data", 2),  # not all lines objects
        ('{"tools": [1}', True, "malformed JSON", 1),
    ],
)
def test_json_and_json_lines_errors_name_the_line(text, json_hint, fragment, line):
    with pytest.raises(CatalogError) as err:
        parse_document(text, "inline.json", json_hint=json_hint)
    assert fragment in err.value.message and err.value.line == line, (err.value.message, err.value.line)
