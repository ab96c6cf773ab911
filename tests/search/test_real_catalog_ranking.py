"""What real API catalogs carry and benchmark sets do not: schema boilerplate, method-named
operations, made-up descriptions, markup (issue 18). Each test builds the smallest catalog that
shows the failure it guards against."""

from __future__ import annotations

import json

from toolsearch_cli import load_catalog
from toolsearch_cli.model import Catalog, Tool
from toolsearch_cli.search import search
from toolsearch_cli.search.bm25f import generated_description, tool_fields


def names(hits):
    return [hit.name for hit in hits]


def paged(name: str, description: str, **properties) -> Tool:
    """A list operation with the pagination parameters real APIs put on every one of them."""
    props = {
        "page": {"type": "integer", "description": "Page number of the results page to fetch."},
        "per_page": {"type": "integer", "description": "Results per page (max 100)."},
        "sort": {"type": "string", "description": "Sort the results by created or updated."},
        **{k: {"type": "string", "description": v} for k, v in properties.items()},
    }
    return Tool(name=name, description=description, parameters={"type": "object", "properties": props})


def test_pagination_parameters_do_not_answer_requests_about_pages():
    catalog = Catalog(
        tools=[
            paged("list_commits", "List commits of a repository."),
            paged("list_pull_requests", "List pull requests of a repository."),
            paged("list_deployments", "List deployments of a repository."),
            Tool(
                name="create_issue",
                description="Open a new issue to report a bug.",
                parameters={"type": "object", "properties": {"title": {"type": "string"}}},
            ),
        ]
    )
    assert names(search(catalog, "open a ticket about the login page crashing"))[:1] == ["create_issue"]
    # the parameters are not indexed at all: their words are in no field
    assert "page" not in tool_fields(catalog.get("list_commits"))["param_text"]
    assert "sort" not in tool_fields(catalog.get("list_commits"))["params"]


def _openapi(tmp_path, paths: dict) -> Catalog:
    doc = {"openapi": "3.0.0", "info": {"title": "t", "version": "1"}, "paths": paths}
    path = tmp_path / "api.json"
    path.write_text(json.dumps(doc))
    return load_catalog([str(path)])


def test_a_method_at_the_start_of_an_operation_name_reads_as_what_it_does(tmp_path):
    catalog = _openapi(
        tmp_path,
        {
            "/v1/customers": {
                "post": {"operationId": "PostCustomers", "description": "<p>A customer object.</p>"},
                "get": {"operationId": "GetCustomers", "description": "<p>Customer objects.</p>"},
            },
            "/v1/customers/{customer}": {
                "post": {"operationId": "PostCustomersCustomer", "description": "<p>A customer object.</p>"},
                "delete": {"operationId": "DeleteCustomersCustomer", "description": "<p>A customer object.</p>"},
            },
            "/v1/payment_intents/{intent}/cancel": {
                "post": {"operationId": "PostPaymentIntentsIntentCancel", "description": "A payment intent."},
            },
        },
    )
    assert names(search(catalog, "create a customer"))[:1] == ["PostCustomers"]
    assert names(search(catalog, "update a customer"))[:1] == ["PostCustomersCustomer"]
    assert names(search(catalog, "delete a customer"))[:1] == ["DeleteCustomersCustomer"]
    assert names(search(catalog, "list customers"))[:1] == ["GetCustomers"]
    # every method word is replaced, "Delete" included (its analysed term is "delet")
    assert tool_fields(catalog.get("DeleteCustomersCustomer"))["name"] == ["delet", "custom", "custom"]
    assert tool_fields(catalog.get("PostCustomers"))["name"][0] == "creat"
    terms = tool_fields(catalog.get("PostPaymentIntentsIntentCancel"))["name"]
    assert "post" not in terms and "creat" not in terms and "cancel" in terms  # an action keeps its own verb


def test_a_description_made_up_from_method_and_path_is_marked_and_weighs_little(tmp_path):
    catalog = _openapi(
        tmp_path,
        {
            "/2010-04-01/Accounts/{AccountSid}/IncomingPhoneNumbers.json": {"get": {"operationId": "ListNumbers"}},
            "/2010-04-01/Accounts/{AccountSid}/Calls.json": {
                "post": {"operationId": "CreateCall", "summary": "Place a phone call to a number"}
            },
        },
    )
    listing = catalog.get("ListNumbers")
    assert listing.description == "GET /2010-04-01/Accounts/{AccountSid}/IncomingPhoneNumbers.json"
    assert listing.metadata["openapi"]["generatedDescription"] is True and generated_description(listing)
    assert "generatedDescription" not in catalog.get("CreateCall").metadata["openapi"]
    fields = tool_fields(listing)
    assert fields["description"] == [] and {"incom", "phone", "number"} <= set(fields["generated"])
    assert "2010" not in fields["generated"] and "json" not in fields["generated"]
    # a written summary outranks made-up path words
    assert names(search(catalog, "phone number"))[0] == "CreateCall"


def test_a_description_in_the_method_path_shape_from_any_source_counts_as_made_up():
    tool = Tool(name="t", description="DELETE /v2/things/{id}")
    assert generated_description(tool) and not generated_description(Tool(name="u", description="Deletes a thing"))


def test_html_tags_in_descriptions_are_no_evidence(tmp_path):
    tagged = '<p>Returns the <a href="/docs/api#code">code</a> <strong>list</strong>.</p>'
    catalog = Catalog(
        tools=[
            Tool(name="list_things", description=tagged),
            Tool(name="strong_password", description="Generate a strong password."),
        ]
    )
    # the tag <strong> says nothing about list_things; "list" inside it is text
    assert names(search(catalog, "strong password generator")) == ["strong_password"]
    assert names(search(catalog, "list")) == ["list_things"]
    assert search(catalog, "href") == [] and search(catalog, "docs api") == []


def test_lint_reports_a_made_up_description_as_missing(tmp_path):
    from toolsearch_cli.lint import LintConfig, lint

    catalog = _openapi(
        tmp_path,
        {
            "/2010-04-01/Accounts/{AccountSid}/Calls.json": {
                "get": {"operationId": "ListCall"},
                "post": {"operationId": "CreateCall", "summary": "Place a phone call to a number"},
            }
        },
    )
    assert generated_description(catalog.get("ListCall"))
    found = lint([str(tmp_path / "api.json")], LintConfig(select=["TS201"])).diagnostics
    assert [(d.code, d.tool) for d in found] == [("TS201", "ListCall")]
    assert "made up from the operation's method and path" in found[0].message
