"""Round 9 (lex9), the default ranker on MCP servers: a name label's verb weighs as its other terms do,
and *take a/an* asks to create.

Built from the committed snapshots of real servers (eBay's seller API and Hostinger's, blind set 8;
Plane, blind set 4: tuning sets). Figures: benchmarks/notes/ranking-round9.md, "lex9: MCP".
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from toolsearch_cli import load_catalog
from toolsearch_cli.model import Catalog, Tool
from toolsearch_cli.search import bm25f
from toolsearch_cli.search.actions import CREATE, READ, request_action
from toolsearch_cli.search.base import SearchRequest

SNAPSHOTS = Path(__file__).resolve().parents[2] / "benchmarks" / "real_catalogs"
EBAY = SNAPSHOTS / "snapshots-blind8" / "mcp-ebay.json"
HOSTINGER = SNAPSHOTS / "snapshots-blind8" / "mcp-hostinger.json"
PLANE = SNAPSHOTS / "snapshots-blind4" / "mcp-plane.json"


def _first(catalog: Catalog, query: str, n: int = 1) -> list[str]:
    hits = bm25f.BM25FRanker().search(catalog, SearchRequest(query=query, max_results=max(n, 5)))
    return [h.tool.name for h in hits[:n]]


@pytest.fixture(scope="module")
def ebay() -> Catalog:
    return load_catalog([str(EBAY)])


# --- a name label's verb weighs the mean IDF of its other terms (LABEL_VERB_MEAN) ------------------


def test_a_request_without_a_verb_no_longer_takes_the_reader_of_the_same_object(
    ebay: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "refund" is the object of both ebay_issue_refund and ebay_get_refunded_orders; the request says
    # neither verb. At their own IDFs, "get" (in a third of the names) cost the reader least.
    query = "refund 15 dollars on order 12-11223-44556, the buyer got a scratched lens"
    assert _first(ebay, query) == ["ebay_issue_refund"]
    monkeypatch.setattr(bm25f, "LABEL_VERB_MEAN", False)
    assert _first(ebay, query) == ["ebay_get_refunded_orders"]


def test_file_a_bug_on_plane(monkeypatch: pytest.MonkeyPatch) -> None:
    plane = load_catalog([str(PLANE)])
    query = "file a bug: the checkout button does nothing on Safari"
    assert _first(plane, query) == ["create_issue"]
    monkeypatch.setattr(bm25f, "LABEL_VERB_MEAN", False)
    assert _first(plane, query) != ["create_issue"]


def test_an_unsaid_lead_verb_weighs_the_mean_idf_of_the_other_terms(ebay: Catalog) -> None:
    index = bm25f.default_index(ebay)
    tool = next(t for t in ebay.searchable() if t.name == "ebay_get_refunded_orders")
    label = bm25f.label_terms(tool)
    lead = bm25f._lead_verbs(tool.name) & label
    assert lead == {"get"}
    weight = bm25f._mean_idf(index, label - lead, {})
    others = sorted(label - {"get"})
    assert weight == pytest.approx(sum(index.idf(t) for t in others) / len(others))
    assert weight > index.idf("get")  # the commonest verb no longer costs least when unsaid


def test_only_a_verb_among_the_first_words_of_a_name_is_a_lead_verb() -> None:
    assert bm25f._lead_verbs("create_board") == {"creat"}
    assert bm25f._lead_verbs("discord_send_message") == {"send"}  # a server prefix, then the verb
    assert bm25f._lead_verbs("account_balance_query") == frozenset()  # a trailing verb: UltraTool's names
    assert bm25f._lead_verbs("board_insights") == frozenset()


def test_a_verb_the_request_says_keeps_its_own_idf() -> None:
    # a said verb at the mean lifted every tool that only shares it (ToolBench's "search ..." requests):
    # "search" is in most names here, so saying it is little of ``search_streams``' label
    tools = [Tool(name=f"search_{thing}", description=f"Search {thing}.") for thing in ("users", "files", "songs")]
    tools += [Tool(name="search_streams", description="Search streams."), Tool(name="play_videos", description="Play.")]
    hits = bm25f.BM25FRanker().search(Catalog(tools=tools), SearchRequest(query="search videos", explain=True))
    streams = next(h for h in hits if h.tool.name == "search_streams")
    assert not any("label" in c.detail for c in streams.contributions)


def test_titled_and_openapi_labels_are_left_as_they_were(monkeypatch: pytest.MonkeyPatch) -> None:
    # only a name label (no title, not an OpenAPI operation) is weighed so: Hostinger's tools have titles
    hostinger = load_catalog([str(HOSTINGER)])
    query = "forward everything that lands in info@ to my gmail, juan.perez@gmail.com"
    on = _first(hostinger, query, 5)
    monkeypatch.setattr(bm25f, "LABEL_VERB_MEAN", False)
    assert _first(hostinger, query, 5) == on


def test_a_hostile_name_of_many_verbs_and_words_is_weighed_quickly() -> None:
    words = " ".join(["create get delete update list board item group"] * 2000)
    catalog = Catalog(
        tools=[
            Tool(name="_".join(words.split()), description="Everything."),
            Tool(name="create_group", description="Create a group."),
            Tool(name="get_group", description="Get a group."),
        ]
    )
    start = time.perf_counter()
    names = _first(catalog, "wrap these stickies in one group", 3)
    assert time.perf_counter() - start < 2.0
    assert set(names) >= {"create_group", "get_group"}


# --- "take a/an" asks to create; "take a look" reads ---------------------------------------------


def test_take_a_snapshot_creates_and_take_a_look_reads() -> None:
    assert request_action("take a snapshot of my VPS srv-48213 before I upgrade Ubuntu") == CREATE
    assert request_action("please take an export of the Finance board") == CREATE
    assert request_action("take a look at the failed runs of last night") == READ
    assert request_action("set up a webhook") == CREATE  # the other phrases as before
    assert request_action("look up the price of PLEX") == READ


def test_take_a_snapshot_on_hostinger() -> None:
    hostinger = load_catalog([str(HOSTINGER)])
    assert _first(hostinger, "take a snapshot of my VPS srv-48213 before I upgrade Ubuntu") == ["VPS_createSnapshotV1"]
