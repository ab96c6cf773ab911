"""Issue 32, round 3: the label bonus of the default ranker.

A tool whose label (its title, else its name with the meaning of an OpenAPI method verb) is said
nearly whole by the request, in the request's own words or in related ones ("make" -> create,
"directory" -> folder), earns a bonus relative to the best score (``LABEL_SHARE``,
``LABEL_POWER``, ``LABEL_RELATED``, ``LABEL_MIN_SHARE`` in ``toolsearch_cli.search.bm25f``;
benchmarks/notes/ranking-round3.md has the measurements). Words of the request that a long request
body or a description happens to share no longer outrank the operation the request names.
"""

from __future__ import annotations

import pytest

from toolsearch_cli.model import Catalog, Tool
from toolsearch_cli.search import bm25f
from toolsearch_cli.search.base import SearchRequest

from .tools import string_tool


def op(name: str, title: str, description: str, params: dict[str, str] | None = None, **native: str) -> Tool:
    if title:
        native["summary"] = title
    return string_tool(
        name,
        description,
        params,
        metadata={"openapi": dict(native)} if native else {},
    )


def filler(n: int) -> list[Tool]:
    nouns = ["invoice", "webhook", "coupon", "payout", "dispute", "token", "balance", "product", "price", "tax"]
    return [op(f"get_{nouns[i % 10]}_{i}", f"Get {nouns[i % 10]}", f"Retrieve a {nouns[i % 10]}.") for i in range(n)]


FOLDERS = op(
    "post_folders",
    "Create folder",
    "Creates a new empty folder within the specified parent folder.",
    {"name": "The name for the new folder.", "parent": "The parent folder."},
)
#: Its title, description and request body share more of the request's words ("new", "legal",
#: "called", "inside", "directory").
LEGAL_HOLD = op(
    "post_legal_hold_policies",
    "Create legal hold policy",
    "Create a new legal hold policy for the legal team.",
    {
        "policy_name": "The name of the policy, as called inside the company.",
        "description": "A description of the legal hold policy, kept inside the new policy.",
        "scope": "The directory of users the policy is for.",
    },
)
#: Other operations on folders: "folder" is a common word of the API.
FOLDER_OPS = [op(f"get_folder_thing_{i}", f"Get folder thing {i}", "Retrieve something of a folder.") for i in range(8)]
CATALOG = Catalog(tools=[LEGAL_HOLD, FOLDERS, *FOLDER_OPS, *filler(30)])
QUERY = "make a new directory called Contracts inside the Legal folder"


def search(catalog: Catalog, query: str, top_k: int = 5, explain: bool = False):
    return bm25f.BM25FRanker().search(catalog, SearchRequest(query=query, max_results=top_k, explain=explain))


def names(hits) -> list[str]:
    return [h.tool.name for h in hits]


def test_the_operation_the_request_names_comes_first():
    assert names(search(CATALOG, QUERY))[0] == "post_folders"


def test_without_the_bonus_the_tool_with_more_shared_words_wins(monkeypatch):
    # the catalog does show the failure: the test above passes because of the bonus
    monkeypatch.setattr(bm25f, "LABEL_SHARE", 0.0)
    assert names(search(CATALOG, QUERY))[0] == "post_legal_hold_policies"


def _label_points(hits, name: str) -> float:
    hit = next(h for h in hits if h.tool.name == name)
    return sum(c.points for c in hit.contributions if "label" in c.detail)


def test_related_words_count_in_full_for_the_label(monkeypatch):
    # "make" -> create and "directory" -> folder say the label with the request's "folder"
    full = _label_points(search(CATALOG, QUERY, explain=True), "post_folders")
    monkeypatch.setattr(bm25f, "LABEL_RELATED", 0.4)
    part = _label_points(search(CATALOG, QUERY, explain=True), "post_folders")
    assert 0 < part < full


def test_the_bonus_is_explained_and_the_explanation_adds_up():
    hits = search(CATALOG, QUERY, explain=True)
    first = hits[0]
    notes = [c for c in first.contributions if c.term == "(the query)"]
    assert notes and "label" in notes[0].detail and "100%" in notes[0].detail
    assert sum(c.points for c in first.contributions) == pytest.approx(first.score)
    legal = next(h for h in hits if h.tool.name == "post_legal_hold_policies")
    assert not any("label" in c.detail for c in legal.contributions)
    assert sum(c.points for c in legal.contributions) == pytest.approx(legal.score)


def test_a_label_said_only_in_part_earns_nothing():
    hits = search(CATALOG, "legal documents", explain=True)
    assert not any("label" in c.detail for h in hits for c in h.contributions)


def test_the_label_is_the_title_else_the_name_with_its_method_verb():
    assert bm25f.label_terms(FOLDERS) == {"creat", "folder"}
    customers = op("PostCustomers", "", "<p>Creates a new customer object.</p>", method="post", path="/v1/customers")
    assert bm25f.label_terms(customers) == {"creat", "custom"}
    item = op("GetCustomersCustomer", "", "Retrieves a customer.", method="get", path="/v1/customers/{customer}")
    assert bm25f.label_terms(item) == {"get", "custom"}
    assert bm25f.label_terms(op("list_databases", "", "List all databases.")) == {"list", "databas"}


def test_an_exact_tool_name_still_ranks_first():
    assert names(search(CATALOG, "post_legal_hold_policies", top_k=1)) == ["post_legal_hold_policies"]
    assert names(search(CATALOG, "post_folders", top_k=1)) == ["post_folders"]


def test_reading_a_packed_tools_label_leaves_it_packed():
    import copy

    from toolsearch_cli.model import pack_tools

    tools = [copy.deepcopy(t) for t in (FOLDERS, LEGAL_HOLD)]
    pack_tools(tools)
    assert all("_packed" in vars(t) for t in tools)
    assert bm25f.label_terms(tools[0]) == {"creat", "folder"}
    assert bm25f.label_terms(tools[0]) == {"creat", "folder"}  # read again: from the cache
    assert bm25f.label_terms(tools[1]) == {"creat", "legal", "hold", "polici"}
    assert all("_packed" in vars(t) for t in tools)
