"""Issue 32, round 8: WordNet synonyms of request words a catalog does not have
(:mod:`toolsearch_cli.search.wordnet`, ``bm25f._with_wordnet``; benchmarks/notes/ranking-round8.md).
"""

from __future__ import annotations

import gzip
from importlib import resources

import pytest

from toolsearch_cli.model import Catalog
from toolsearch_cli.search import bm25f, wordnet
from toolsearch_cli.search.base import SearchRequest
from toolsearch_cli.search.text import analyze

from .tools import string_tool

tool = string_tool

#: A cluster service's tools, written for this test: no tool says *raze* or *demolish*.
CLUSTERS = Catalog(
    tools=[
        tool("create_cluster", "Create a cluster.", {"cluster": "The cluster's name"}),
        tool("destroy_cluster", "Destroy a cluster and everything in it.", {"cluster": "The cluster's name"}),
        tool("list_clusters", "List the clusters.", {"region": "Where"}),
    ]
)

#: A calendar's tools: no tool says *turn* or *down*.
INVITES = Catalog(
    tools=[
        tool("decline_invite", "Decline a meeting invitation.", {"invite": "The invitation"}),
        tool("accept_invite", "Accept a meeting invitation.", {"invite": "The invitation"}),
        tool("list_meetings", "List the meetings of a day.", {"day": "The day"}),
    ]
)


def ranked(catalog: Catalog, query: str, top_k: int = 10) -> list[str]:
    hits = bm25f.BM25FRanker().search(catalog, SearchRequest(query=query, max_results=top_k, explain=False))
    return [h.tool.name for h in hits if h.score > 0]


def test_a_word_the_catalog_lacks_finds_the_tool_by_its_wordnet_synonym(monkeypatch: pytest.MonkeyPatch) -> None:
    # raze: WordNet's {level, raze, rase, dismantle, tear down, ...}, a kind of destroy
    assert ranked(CLUSTERS, "raze the staging cluster")[:1] == ["destroy_cluster"]
    monkeypatch.setattr(bm25f, "WORDNET_WEIGHT", 0.0)
    assert ranked(CLUSTERS, "raze the staging cluster")[:1] != ["destroy_cluster"]


def test_a_phrasal_verb_with_its_object_between_finds_the_tool(monkeypatch: pytest.MonkeyPatch) -> None:
    # turn down = decline (WordNet's collocation), its object between verb and particle
    assert ranked(INVITES, "turn the invitation down")[:1] == ["decline_invite"]
    monkeypatch.setattr(bm25f, "WORDNET_WEIGHT", 0.0)
    assert ranked(INVITES, "turn the invitation down")[:1] != ["decline_invite"]


def test_a_word_the_catalog_has_is_not_expanded() -> None:
    razing = Catalog(tools=[*CLUSTERS.tools, tool("raze_cluster", "Raze a cluster to the ground.", {})])
    plan = bm25f.query_plan("raze the staging cluster")
    bm25f.rank_index(bm25f.default_index(razing), plan, 5)
    assert plan.wordnet == {}
    assert ranked(razing, "raze the staging cluster")[:1] == ["raze_cluster"]


def test_only_terms_the_catalog_has_are_added_and_a_second_catalog_starts_afresh() -> None:
    plan = bm25f.query_plan("raze the staging cluster")
    bm25f.rank_index(bm25f.default_index(CLUSTERS), plan, 5)
    assert set(plan.wordnet) == set(analyze("destroy"))  # level, dismantle ...: not in the catalog
    assert all(plan.related[t] == "raze" for t in plan.wordnet)
    terms = list(plan.terms)
    bm25f.rank_index(bm25f.default_index(INVITES), plan, 5)  # nothing of raze's in a calendar
    assert plan.wordnet == {}
    assert plan.terms == [t for t in terms if t not in analyze("destroy")]


def test_the_explanation_says_which_words_came_from_wordnet() -> None:
    hits = bm25f.BM25FRanker().search(INVITES, SearchRequest(query="turn the invitation down", explain=True))
    rows = [c.term for c in hits[0].contributions]
    assert any("WordNet" in r and "turn down" in r for r in rows), rows


def test_requests_in_other_languages_are_not_looked_up() -> None:
    # German "die" is an article, not the English verb
    plan = bm25f.query_plan("Übertrage die App an die Organisation")
    bm25f.rank_index(bm25f.default_index(CLUSTERS), plan, 5)
    assert plan.wordnet == {}


def test_value_like_words_are_not_looked_up() -> None:
    plan = bm25f.query_plan("raze the cluster Phoenix")
    bm25f.rank_index(bm25f.default_index(CLUSTERS), plan, 5)
    assert "phoenix" not in plan.wordnet.values()


def test_phrases_are_read_with_a_bounded_gap() -> None:
    assert wordnet.phrases("turn the meeting down") == ["turn down"]
    assert wordnet.phrases("turn the weekly team meeting down") == []  # four words between
    assert wordnet.phrases("tear down the app") == ["tear down"]


def test_the_shipped_data_carries_wordnets_licence_notice() -> None:
    raw = resources.files("toolsearch_cli.search").joinpath("data", wordnet.DATA_FILE).read_bytes()
    head = gzip.decompress(raw).decode("utf-8")[:4000]
    assert "WordNet 3.1 Copyright 2011 by Princeton University" in head
    assert "Permission to use, copy, modify and distribute" in head


def test_the_shipped_data_is_sorted_for_bisection() -> None:
    lines, start = wordnet._lines()
    body = lines[start:]
    assert len(body) > 20000 and body == sorted(body) and all("\t" in line for line in body)
    assert wordnet.lookup("tear down") is not None and wordnet.lookup("zzzz") is None


def test_a_key_takes_the_senses_of_its_own_word_only() -> None:
    """The analyser stems *tidings* and *tide* alike; the key ``tide`` took both words' senses, so a
    request about tide tables found a tool that converts a document's *word* format (*tidings*:
    news, word) instead of the no-match note. A key now takes its most used word's senses only."""
    from toolsearch_cli.search.wordnet import lookup, senses

    assert "word" not in {term for sense in senses("tide", 3) for term, _ in sense}
    assert "refus1" in (lookup("turn down") or "").split()  # a word's own senses are still there


def test_a_request_about_something_no_tool_does_finds_nothing() -> None:
    """On a catalog with a document converter, "tide tables for a harbour" matched it through
    *tide* -> *word* (see above); nothing of the request is there, so nothing is found."""
    docs = Catalog(
        tools=[
            tool("convertDocument", "Convert a document to another format (e.g. Word to PDF).", {"file": "The file"}),
            tool("getWeather", "Current weather for a city.", {"city": "The city"}),
        ]
    )
    assert ranked(docs, "tide tables for a harbour") == []


def test_tokens_and_ranks_are_read_defensively(monkeypatch: pytest.MonkeyPatch) -> None:
    assert wordnet._token("declin1") == ("declin", 1)
    assert wordnet._token("icon") == ("icon", 0)
    assert wordnet._token("odd123") == ("odd", 9)  # not a rank the builder writes: the last
    monkeypatch.setattr(wordnet, "_lines", lambda: (["# note", "\tx", "bad line", "foo\tbar ^baz2||=qux"], 1))
    wordnet.senses.cache_clear()
    try:
        assert wordnet.senses("foo", 3) == ((("bar", 0), ("^baz", 2)), (), (("=qux", 0),))
        assert wordnet.senses("foo", 1) == ((("bar", 0), ("^baz", 2)),)
        assert wordnet.senses("missing", 3) == ()
        assert wordnet.senses("", 3) == () and wordnet.lookup("bad line") is None
    finally:
        wordnet.senses.cache_clear()


def test_a_missing_or_broken_data_file_is_no_synonyms(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    broken = tmp_path / "data"
    broken.mkdir()
    (broken / wordnet.DATA_FILE).write_bytes(b"not gzip at all")
    monkeypatch.setattr(wordnet.resources, "files", lambda _: tmp_path)
    wordnet._lines.cache_clear()
    try:
        assert wordnet._lines() == ([], 0) and wordnet.lookup("raze") is None
        (broken / wordnet.DATA_FILE).unlink()
        wordnet._lines.cache_clear()
        assert wordnet._lines() == ([], 0)
    finally:
        wordnet._lines.cache_clear()
        wordnet.senses.cache_clear()


@pytest.mark.parametrize(
    ("query", "action"),
    [
        ("tear down the staging app", "delete"),  # tear down: ^destroy
        ("take her out of the Developers group", "delete"),  # take out: remove
        ("put Dentist on my calendar Friday", "create"),  # put on: add
    ],
)
def test_a_phrasal_verb_the_lists_lack_asks_for_its_wordnet_action(
    monkeypatch: pytest.MonkeyPatch, query: str, action: str
) -> None:
    assert bm25f.asked_action(query) == action
    monkeypatch.setattr(bm25f, "ACTION_WORDNET", False)
    assert bm25f.asked_action(query) is None


def test_the_lists_still_decide_first() -> None:
    assert bm25f.asked_action("set up a webhook") == "create"  # REQUEST_PHRASES, not WordNet's set up
    assert bm25f.asked_action("look up the order") == "read"
