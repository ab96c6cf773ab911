"""Formats and dialects (issue 13.4, 13.5): Swagger 2.0 (a real document), the OpenAPI 3.0 dialect
cleaned for tool schemas, --catalog-format for any file name, convert's extension warning, OpenAI
strict mode (convert --strict, lint TS309) and the Responses specifics."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from toolsearch_cli.catalog import load_catalog, load_catalog_result
from toolsearch_cli.catalog.export import export_catalog
from toolsearch_cli.catalog.openai_strict import make_strict
from toolsearch_cli.errors import CatalogError


@pytest.fixture
def petstore(tmp_path) -> Path:
    """The Swagger 2.0 Petstore, as the jsonschema package ships it (in a benchmark of its own)."""
    jsonschema = pytest.importorskip("jsonschema")
    shipped = Path(jsonschema.__file__).parent / "benchmarks" / "issue232" / "issue.json"
    if not shipped.exists():
        pytest.skip("this jsonschema release does not ship the Swagger 2.0 Petstore")
    document = json.loads(shipped.read_text())[0]["tests"][0]["data"]
    assert document["swagger"] == "2.0"
    path = tmp_path / "petstore.json"
    path.write_text(json.dumps(document, indent=2))
    return path


def test_a_real_swagger_2_document_is_converted(petstore):
    catalog_loaded = load_catalog_result(str(petstore))
    catalog = catalog_loaded.catalog
    assert len(catalog) == 20 and catalog_loaded.warnings == ()
    add = catalog.get("addPet")
    assert add.metadata["openapi"]["server"] == "http://petstore.swagger.io/v2"
    assert add.metadata["openapi"]["body"] == "merged" and add.metadata["openapi"]["contentType"] == "application/json"
    assert add.parameters["required"] == ["name", "photoUrls"]
    assert add.parameters["properties"]["status"]["enum"] == ["available", "pending", "sold"]
    assert "xml" not in json.dumps(add.parameters)  # the definitions' xml hints are gone
    upload = catalog.get("uploadFile")
    assert upload.parameters["properties"]["file"] == {
        "type": "string",
        "format": "binary",
        "description": "file to upload",
    }
    assert upload.metadata["openapi"]["contentType"] == "multipart/form-data"
    assert upload.metadata["openapi"]["parameters"] == {
        "petId": "path",
        "additionalMetadata": "body-property",
        "file": "body-property",
    }
    status = catalog.get("findPetsByStatus").parameters["properties"]["status"]
    assert status["type"] == "array" and status["items"]["enum"] == ["available", "pending", "sold"]
    assert catalog.get("deletePet").metadata["openapi"]["parameters"] == {"api_key": "header", "petId": "path"}
    text = petstore.read_text().splitlines()
    assert '"post"' in text[add.source.line - 1]  # lines point into the Swagger document itself
    assert catalog.categories() == ["pet", "store", "user"]


OPENAPI_30 = {
    "openapi": "3.0.3",
    "info": {"title": "Pages", "version": "1"},
    "servers": [{"url": "https://api.example.com/v1"}],
    "paths": {
        "/pages": {
            "post": {
                "operationId": "createPage",
                "parameters": [
                    {
                        "name": "Notion-Version",
                        "in": "header",
                        "required": True,
                        "schema": {"type": "string", "default": "2022-06-28"},
                    },
                    {"name": "X-Mode", "in": "header", "schema": {"type": "string", "enum": ["strict"]}},
                    {"name": "X-Region", "in": "header", "schema": {"type": "string", "enum": ["eu", "us"]}},
                ],
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Page"}}},
                },
                "responses": {"200": {"description": "ok"}},
            }
        }
    },
    "components": {
        "schemas": {
            "Page": {
                "type": "object",
                "xml": {"name": "page"},
                "required": ["id", "title"],
                "properties": {
                    "id": {"type": "string", "readOnly": True, "example": "p-1"},
                    "title": {"type": "string", "example": "Notes"},
                    "icon": {"type": "string", "nullable": True},
                    "parent": {"allOf": [{"$ref": "#/components/schemas/Ref"}], "nullable": True},
                    "kind": {"type": "string", "enum": ["page", "db"], "nullable": True},
                },
            },
            "Ref": {"type": "object", "properties": {"id": {"type": "string"}}},
        }
    },
}


def test_the_openapi_3_0_dialect_is_cleaned_for_tool_schemas(write):
    tool = load_catalog(str(write("pages.yaml", yaml.safe_dump(OPENAPI_30)))).get("createPage")
    props = tool.parameters["properties"]
    assert "id" not in props and tool.parameters["required"] == ["title"]  # readOnly: the server sets it
    assert props["title"] == {"type": "string"}  # example dropped
    assert props["icon"] == {"type": ["string", "null"]}
    assert props["parent"] == {
        "anyOf": [{"allOf": [{"type": "object", "properties": {"id": {"type": "string"}}}]}, {"type": "null"}]
    }
    assert props["kind"] == {"type": ["string", "null"], "enum": ["page", "db", None]}
    # headers with one possible value are the caller's to send, as Notion's own MCP server does
    assert "Notion-Version" not in props and "X-Mode" not in props and "X-Region" in props
    assert tool.metadata["openapi"]["headers"] == {"Notion-Version": "2022-06-28", "X-Mode": "strict"}
    assert "nullable" not in json.dumps(tool.parameters) and "xml" not in json.dumps(tool.parameters)


def test_any_file_name_loads_when_the_format_is_named(write, run_cli, monkeypatch, tmp_path):
    write("tools.out", json.dumps([{"type": "function", "function": {"name": "f", "description": "Do f."}}]))
    monkeypatch.chdir(tmp_path)
    refused = run_cli("catalog", "-c", "tools.out")
    assert refused.code == 2 and "--catalog-format" in refused.stderr
    for fmt in ("openai", "auto"):
        result = run_cli("catalog", "-c", "tools.out", "--catalog-format", fmt, "-f", "json")
        if fmt == "auto":
            assert result.code == 2
        else:
            assert result.code == 0 and [t["name"] for t in result.json()["tools"]] == ["f"]


def test_convert_warns_when_the_extension_says_another_format(write, run_cli, monkeypatch, tmp_path):
    write("a.yaml", "tools:\n  - name: f\n    description: Do f.\n")
    monkeypatch.chdir(tmp_path)
    result = run_cli("catalog", "convert", "--to", "yaml", "-c", "a.yaml", "--out", "x.json")
    assert result.code == 0 and "warning: x.json: writing yaml (YAML) to a file named .json" in result.stderr
    assert yaml.safe_load((tmp_path / "x.json").read_text())["tools"][0]["name"] == "f"
    ok = run_cli("catalog", "convert", "--to", "openai", "-c", "a.yaml", "--out", "x.json")
    assert ok.code == 0 and "warning" not in ok.stderr


STRICT = """\
tools:
  - name: get_weather
    description: Weather for a city.
    parameters:
      city: {type: string, required: true}
      units: {type: string, enum: [metric, imperial], default: metric}
      when: {oneOf: [{type: string}, {type: integer}]}
  - name: set_labels
    description: Labels as a free map.
    parameters:
      labels: {type: object, additionalProperties: {type: string}}
"""


def test_convert_strict_makes_schemas_strict_or_says_why(write, run_cli, monkeypatch, tmp_path):
    path = write("s.yaml", STRICT)
    monkeypatch.chdir(tmp_path)
    result = run_cli("catalog", "convert", "--to", "openai", "--strict", "-c", "s.yaml")
    assert result.code == 0
    tools = {t["function"]["name"]: t["function"] for t in json.loads(result.stdout)["tools"]}
    weather = tools["get_weather"]
    assert weather["strict"] is True
    assert weather["parameters"] == {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "units": {"type": ["string", "null"], "enum": ["metric", "imperial", None]},
            "when": {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]},
        },
        "required": ["city", "units", "when"],
        "additionalProperties": False,
    }
    assert tools["set_labels"]["strict"] is False
    assert tools["set_labels"]["parameters"]["properties"]["labels"]["additionalProperties"] == {"type": "string"}
    lines = result.stderr.strip().splitlines()
    assert lines[0] == (
        "warning: s.yaml:10: tool 'set_labels', field 'parameters': cannot be made strict (exported with strict: "
        "false): labels: an object whose keys are not listed (a free-form mapping)"
    )
    assert lines[1].startswith("1 conversion warning: 1 tool not made strict")
    strict = run_cli("--strict", "catalog", "convert", "--to", "openai", "--strict", "-c", "s.yaml")
    assert strict.code == 2 and strict.stdout == "" and "set_labels" in strict.stderr
    wrong = run_cli("catalog", "convert", "--to", "anthropic", "--strict", "-c", "s.yaml")
    assert wrong.code == 2 and "--strict applies to openai and openai-responses" in wrong.stderr
    assert str(path).endswith("s.yaml")


@pytest.mark.parametrize(
    ("schema", "why"),
    [
        ({"type": "object", "properties": {"a": {"not": {"type": "string"}}}}, "a: 'not' is not supported"),
        (
            {"type": "object", "properties": {"a": {"allOf": [{"type": "string"}, {"minLength": 1}]}}},
            "'allOf' of several",
        ),
        ({"type": "object", "properties": {}, "additionalProperties": True}, "free-form mapping"),
        ({"type": "object", "properties": {"meta": {"type": "object"}}}, "meta: an object whose keys are not listed"),
        ({"type": "object", "properties": {"a": {"type": "string", "enum": list(range(1001))}}}, "1001 enum values"),
    ],
)
def test_what_cannot_be_strict(schema, why):
    _, reasons = make_strict(schema)
    assert any(why in r for r in reasons), reasons


def test_no_parameters_is_strict_compatible():
    assert make_strict({"type": "object", "properties": {}}) == (
        {"type": "object", "properties": {}, "additionalProperties": False, "required": []},
        [],
    )


def test_lint_ts309_reports_tools_that_cannot_be_strict(write, run_cli, monkeypatch, tmp_path):
    write("s.yaml", STRICT)
    monkeypatch.chdir(tmp_path)
    found = run_cli("lint", "s.yaml", "--select", "TS309", "--format", "json").json()
    assert [(d["tool"], d["location"]["row"]) for d in found] == [("set_labels", 10)]
    assert "a free-form mapping" in found[0]["message"]
    assert run_cli("lint", "s.yaml", "--format", "json").json() == [] or all(
        d["code"] != "TS309" for d in run_cli("lint", "s.yaml", "--format", "json").json()
    )  # off unless selected


def test_responses_export_writes_strict_defer_loading_and_output_schema(write):
    mcp = {
        "tools": [
            {
                "name": "get_forecast",
                "description": "Daily forecast.",
                "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}},
                "outputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
                "_meta": {"x-toolsearch": {"resident": True}},
            },
            {"name": "get_alerts", "description": "Weather alerts.", "inputSchema": {"type": "object"}},
        ]
    }
    catalog = load_catalog(str(write("mcp.json", json.dumps(mcp))))
    exported = json.loads(export_catalog(catalog, "openai-responses", plain=True))["tools"]
    forecast, alerts = exported
    assert forecast["strict"] is False and alerts["strict"] is False
    assert forecast["output_schema"] == {"type": "object", "properties": {"text": {"type": "string"}}}
    assert "defer_loading" not in forecast and alerts["defer_loading"] is True
    # read back: defer_loading is the inverse of resident, as for Anthropic
    back = load_catalog(str(write("responses.json", json.dumps({"tools": exported}))))
    assert back.resident == ["get_forecast"] and back.names == ["get_forecast", "get_alerts"]
    assert "strict" not in back.get("get_alerts").metadata.get("openai", {})
    # round trip (with the extension) gives the same catalog
    full = load_catalog(str(write("full.json", export_catalog(catalog, "openai-responses"))))
    assert full.resident == catalog.resident and [t.parameters for t in full.tools] == [
        t.parameters for t in catalog.tools
    ]


def test_a_strict_true_tool_stays_strict(write):
    tools = [
        {
            "type": "function",
            "name": "f",
            "description": "F.",
            "strict": True,
            "parameters": {"type": "object", "properties": {}, "additionalProperties": False, "required": []},
        }
    ]
    catalog = load_catalog(str(write("r.json", json.dumps(tools))))
    assert catalog.get("f").metadata == {"openai": {"strict": True}}
    assert json.loads(export_catalog(catalog, "openai-responses", plain=True))["tools"][0]["strict"] is True
    with pytest.raises(CatalogError):
        load_catalog(str(write("bad.json", json.dumps([{**tools[0], "defer_loading": "yes"}]))))


@pytest.mark.parametrize(
    "schema",
    [{"enum": ["a", "b"], "nullable": True}, {"const": "x", "nullable": True}, {"enum": [1, 2], "x-nullable": True}],
)
def test_a_nullable_enum_or_const_still_lets_null_in(schema):
    import jsonschema

    from toolsearch_cli.catalog.openapi import clean_schema

    cleaned = clean_schema(schema)
    jsonschema.validate(None, cleaned)  # an OpenAPI 3.0 nullable enum/const takes null (it was dropped)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate("not one of them", cleaned)
