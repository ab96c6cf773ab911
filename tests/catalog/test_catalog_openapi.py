"""OpenAPI 3.x documents as catalogs: one tool per operation, $refs resolved, cycles handled."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from toolsearch_cli import search
from toolsearch_cli.catalog import load_catalog, load_catalog_result
from toolsearch_cli.catalog.openapi import sanitize_name
from toolsearch_cli.errors import CatalogError

from ..conftest import DATA

HELPDESK = DATA / "helpdesk_openapi.yaml"


@pytest.fixture(scope="module")
def helpdesk():
    return load_catalog(str(HELPDESK))


def test_one_tool_per_operation_named_by_operation_id_or_method_and_path(helpdesk):
    spec = yaml.safe_load(HELPDESK.read_text())
    operations = sum(
        1 for item in spec["paths"].values() for key in item if key in ("get", "post", "put", "patch", "delete")
    )
    assert operations >= 15 and len(helpdesk) == operations
    assert "listTickets" in helpdesk and "createTicket" in helpdesk
    assert "tickets_assign" in helpdesk  # operationId 'tickets.assign' made provider-valid
    assert "post_tickets_ticketId_attachments" in helpdesk  # no operationId
    assert helpdesk.get("tickets_assign").metadata["openapi"]["operationId"] == "tickets.assign"


def test_summary_description_tags_and_category(helpdesk):
    tool = helpdesk.get("addComment")
    assert tool.description == (
        "Reply to a ticket\n\nAdd a public reply (emailed to the customer) or an internal note to a ticket."
    )
    assert tool.category == "comments" and tool.tags == ["comments", "tickets"]
    assert helpdesk.get("getTicket").description.startswith("Get one ticket")
    assert set(helpdesk.categories()) == {"tickets", "comments", "customers", "agents", "knowledge-base", "reports"}


def test_parameters_from_path_query_header_and_body_merge_into_one_schema(helpdesk):
    create = helpdesk.get("createTicket")
    props = create.parameters["properties"]
    # header parameter kept, Authorization dropped (OpenAPI: set by the HTTP layer)
    assert "X-Request-Id" in props and "Authorization" not in props
    assert props["priority"] == {"type": "string", "enum": ["low", "normal", "high", "urgent"]}  # $ref inlined
    assert props["labels"]["items"]["properties"]["name"] == {"type": "string"}  # $ref inside items
    assert create.parameters["required"] == ["customerId", "subject", "message"]
    assert create.metadata["openapi"]["parameters"]["X-Request-Id"] == "header"
    assert create.metadata["openapi"]["parameters"]["subject"] == "body-property"
    assert create.metadata["openapi"]["body"] == "merged"
    assert create.metadata["openapi"]["server"] == "https://helpdesk.example.com/api/v2"
    assert (create.metadata["openapi"]["method"], create.metadata["openapi"]["path"]) == ("POST", "/tickets")

    listing = helpdesk.get("listTickets").parameters
    assert list(listing["properties"]) == ["pageSize", "cursor", "status", "priority", "assigneeId"]
    assert listing["properties"]["pageSize"]["maximum"] == 100
    assert listing["properties"]["status"]["description"] == "Only tickets in this status."
    assert "required" not in listing

    # a path-level parameter reaches every operation of the path, and is required
    update = helpdesk.get("updateTicket").parameters
    assert update["properties"]["ticketId"] == {"type": "integer", "description": "Ticket number, e.g. 48213."}
    assert update["required"] == ["ticketId"]
    assert set(update["properties"]) == {"ticketId", "status", "priority", "subject", "assigneeId"}


def test_a_body_that_is_not_an_object_becomes_one_body_parameter(helpdesk):
    merge = helpdesk.get("mergeTickets")
    body = merge.parameters["properties"]["body"]
    assert body["type"] == "array" and body["description"].startswith("IDs of the duplicate tickets")
    assert merge.parameters["required"] == ["ticketId", "body"]
    upload = helpdesk.get("post_tickets_ticketId_attachments")
    assert upload.metadata["openapi"]["contentType"] == "multipart/form-data"
    assert upload.parameters["properties"]["file"]["format"] == "binary"


def test_recursive_schema_is_kept_as_defs(helpdesk):
    tool = helpdesk.get("createCategory")
    schema = tool.parameters
    assert schema["properties"]["body"] == {"$ref": "#/$defs/Category"}
    assert schema["$defs"]["Category"]["properties"]["children"]["items"] == {"$ref": "#/$defs/Category"}
    assert tool.metadata["openapi"]["recursive"] == ["#/components/schemas/Category"]
    # the parameter tree follows the $ref (bounded) instead of looping
    assert [p.name for p in tool.parameter_tree()] == ["body"]


def test_json_document_loads_the_same(helpdesk, tmp_path):
    path = tmp_path / "helpdesk.json"
    path.write_text(json.dumps(yaml.safe_load(HELPDESK.read_text())), encoding="utf-8")
    again = load_catalog(str(path))
    assert [(t.name, t.parameters, t.category) for t in again.tools] == [
        (t.name, t.parameters, t.category) for t in helpdesk.tools
    ]


def test_search_over_the_openapi_catalog(helpdesk):
    assert search(helpdesk, "reply to a customer's ticket", max_results=1)[0].name == "addComment"
    assert search(helpdesk, "SLA response times", max_results=1)[0].name == "getSlaReport"
    assert search(helpdesk, "assign the ticket to an agent", max_results=1)[0].name == "tickets_assign"


def write_spec(tmp_path, spec, name="api.yaml"):
    path = tmp_path / name
    path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    return str(path)


def minimal(schema_ref="#/components/schemas/A", schemas=None):
    return {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "paths": {
            "/a": {
                "post": {
                    "operationId": "makeA",
                    "requestBody": {"content": {"application/json": {"schema": {"$ref": schema_ref}}}},
                    "responses": {"200": {"description": "ok"}},
                }
            }
        },
        "components": {"schemas": schemas or {"A": {"type": "object", "properties": {"x": {"type": "string"}}}}},
    }


def test_pure_ref_cycle_is_reported_with_its_chain_and_line(tmp_path):
    spec = minimal(schemas={"A": {"$ref": "#/components/schemas/B"}, "B": {"$ref": "#/components/schemas/A"}})
    path = write_spec(tmp_path, spec)
    with pytest.raises(CatalogError) as err:
        load_catalog(path)
    message = str(err.value)
    assert (
        "'$ref' cycle" in message
        and "#/components/schemas/A -> #/components/schemas/B -> #/components/schemas/A" in message
    )
    assert err.value.tool == "makeA" and err.value.line is not None


def test_dangling_and_external_refs_are_errors_naming_the_pointer(tmp_path):
    path = write_spec(tmp_path, minimal(schema_ref="#/components/schemas/Missing"))
    with pytest.raises(CatalogError) as err:
        load_catalog(path)
    assert "points at nothing" in str(err.value)
    assert err.value.field == "/paths/~1a/post/requestBody/content/application~1json/schema/$ref"
    lines = Path(path).read_text().splitlines()
    assert "Missing" in lines[err.value.line - 1]
    path = write_spec(tmp_path, minimal(schema_ref="common.yaml#/Thing"), "ext.yaml")
    with pytest.raises(CatalogError, match="only local references"):
        load_catalog(path)
    # a path item that is an outside $ref: named by its pointer, not by the previous path's operation
    spec = minimal()
    spec["paths"]["/b"] = {"$ref": "https://specs.example/paths.json#/b"}
    with pytest.raises(CatalogError, match="only local references") as err:
        load_catalog(write_spec(tmp_path, spec, "item.yaml"))
    assert err.value.tool is None and err.value.field == "/paths/~1b/$ref"


def test_other_swagger_versions_and_bad_parameters_are_refused(tmp_path, run_cli):
    path = write_spec(tmp_path, {"swagger": "1.2", "paths": {}}, "swagger.yaml")
    result = run_cli("catalog", "-c", path)
    assert result.code == 2 and "expected Swagger 2.0 or OpenAPI 3.x, found Swagger '1.2'" in result.stderr
    spec = minimal()
    spec["paths"]["/a"]["post"]["parameters"] = [{"name": "q", "in": "body"}]
    result = run_cli("catalog", "-c", write_spec(tmp_path, spec, "bad.yaml"))
    assert result.code == 2
    assert "tool 'makeA', field '/paths/~1a/post/parameters/0/in'" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_names_are_sanitised_and_unique(tmp_path):
    assert sanitize_name("get_/users/{id}/posts") == "get_users_id_posts"
    long = sanitize_name("x" * 80)
    assert len(long) == 64 and long.startswith("x" * 55)
    spec = minimal()
    spec["paths"]["/b"] = {"get": {"operationId": "makeA", "responses": {}}}
    assert load_catalog(write_spec(tmp_path, spec)).names == ["makeA", "makeA_2"]


def test_a_bad_parameter_schema_points_at_its_place_in_the_document(tmp_path):
    spec = minimal()
    spec["paths"]["/a"]["post"]["parameters"] = [{"name": "kind", "in": "query", "schema": {"type": "file"}}]
    path = write_spec(tmp_path, spec)
    [warning] = load_catalog_result(path).warnings
    assert warning.field == "/paths/~1a/post/parameters/0/schema" and "type 'file' read as 'string'" in str(warning)
    assert "schema:" in Path(path).read_text().splitlines()[warning.line - 1]
    spec["paths"]["/a"]["post"]["parameters"][0]["schema"]["type"] = "fiel"
    path = write_spec(tmp_path, spec)
    with pytest.raises(CatalogError) as err:
        load_catalog(path, strict=True)
    assert err.value.field == "/paths/~1a/post/parameters/0/schema" and "unknown JSON Schema type 'fiel'" in str(
        err.value
    )
    assert "schema:" in Path(path).read_text().splitlines()[err.value.line - 1]
    spec["paths"]["/a"]["post"]["parameters"] = []
    spec["components"]["schemas"]["A"]["properties"]["x"] = {"type": "text"}
    with pytest.raises(CatalogError) as err:
        load_catalog(write_spec(tmp_path, spec, "body.yaml"), strict=True)
    assert err.value.field == "/paths/~1a/post/requestBody/content/application~1json/schema/properties/x"


def test_keywords_only_where_the_schema_grammar_puts_them(tmp_path, run_cli):
    """A property *named* ``$ref`` or ``$schema`` (Kubernetes' JSONSchemaProps has both) is a
    property; a ``{"$ref": ...}`` in an ``enum``, ``default``, ``example`` or ``x-`` extension is
    a value; a real ``$ref`` beside them is still resolved."""
    props_schema = {
        "type": "object",
        "description": "a JSON Schema, as Kubernetes describes one",
        "properties": {
            "$ref": {"type": "string"},
            "$schema": {"type": "string"},
            "properties": {"type": "object", "additionalProperties": {"$ref": "#/components/schemas/Props"}},
            "owner": {"$ref": "#/components/schemas/Owner"},
            "mode": {"type": "object", "enum": [{"$ref": 1}], "default": {"$ref": "not/a/ref"}},
        },
        "patternProperties": {"^\\$ref$": {"type": "string"}},
        "dependentSchemas": {"$ref": {"required": ["$schema"]}},
        "example": {"$ref": {"nested": True}},
        "x-kubernetes-meta": {"$ref": ["kept", "as", "is"]},
    }
    spec = minimal(
        schema_ref="#/components/schemas/Props",
        schemas={"Props": props_schema, "Owner": {"type": "object", "properties": {"id": {"type": "string"}}}},
    )
    path = write_spec(tmp_path, spec)
    catalog_loaded = load_catalog_result(path, strict=True)
    catalog = catalog_loaded.catalog
    params = catalog.get("makeA").parameters
    assert catalog_loaded.warnings == ()
    [props] = params["$defs"].values()  # Props contains itself (additionalProperties): kept once in $defs
    assert props["properties"]["$ref"] == {"type": "string"} and props["properties"]["$schema"] == {"type": "string"}
    assert props["properties"]["owner"] == {"type": "object", "properties": {"id": {"type": "string"}}}  # resolved
    assert props["properties"]["mode"]["enum"] == [{"$ref": 1}]
    assert props["properties"]["mode"]["default"] == {"$ref": "not/a/ref"}
    assert props["patternProperties"] == {"^\\$ref$": {"type": "string"}}
    assert props["dependentSchemas"] == {"$ref": {"required": ["$schema"]}}
    assert props["x-kubernetes-meta"] == {"$ref": ["kept", "as", "is"]}
    assert props["properties"]["properties"]["additionalProperties"]["$ref"].startswith("#/$defs/")
    # and the CLI lists, searches and converts it
    result = run_cli("search", "json schema owner", "-c", path, "-f", "json")
    assert result.code == 0 and result.stderr == "" and "makeA" in result.stdout
    # a $ref that is not a string where a schema is expected is still an error, naming its place
    spec["components"]["schemas"]["Props"]["properties"]["owner"] = {"$ref": {"type": "string"}}
    result = run_cli("catalog", "-c", write_spec(tmp_path, spec, "bad.yaml"))
    assert result.code == 2 and len(result.stderr.strip().splitlines()) == 1
    assert "field '/components/schemas/Props/properties/owner/$ref': '$ref' must be a string" in result.stderr
