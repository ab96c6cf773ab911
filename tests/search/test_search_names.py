"""A query that names a tool finds it first; a search that finds nothing says which words no tool has."""

from __future__ import annotations

import json

import pytest

from toolsearch_cli.disclosure.history import EMPTY, ERROR, parse_search_result
from toolsearch_cli.disclosure.manager import CatalogManager
from toolsearch_cli.disclosure.search_tool import SearchOutcome
from toolsearch_cli.indexes import cached_index, index_keys
from toolsearch_cli.model import Catalog, Tool
from toolsearch_cli.search import search
from toolsearch_cli.search.name_lookup import name_key, named_tool
from toolsearch_cli.search.names import unmatched_words


def make(name: str, description: str, **extra) -> Tool:
    return Tool(name=name, description=description, **extra)


@pytest.fixture
def catalog() -> Catalog:
    # every tool mentions issues, pages and browsers: words alone cannot single one out
    return Catalog(
        tools=[
            make("list_issues", "List the issues of a repository, page by page, issue by issue, in a browser."),
            make("create_issue", "Open a new issue in a repository."),
            make("issue_search", "Search issues and pull requests, issue text, issue titles, page by page."),
            make("browser_navigate", "Go to a URL in the browser."),
            make("browser_navigate_back", "Go back to the previous page in the browser."),
            make("github__get_me", "Who the issue browser user is."),
            make("PostCustomers", "Creates a customer."),
        ]
    )


def test_name_keys_ignore_case_and_separators():
    assert name_key("create_issue") == name_key("CreateIssue") == name_key("create issue") == name_key("CREATE-ISSUE")


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("create_issue", "create_issue"),
        ("createIssue", "create_issue"),
        ("Create Issue", "create_issue"),
        ("browser_navigate", "browser_navigate"),  # not its longer sibling
        ("browser_navigate_b", "browser_navigate_back"),  # a unique prefix of an identifier
        ("get_me", "github__get_me"),  # the name after its namespace
        ("postcustomers", "PostCustomers"),
    ],
)
def test_a_query_that_names_a_tool_ranks_it_first(catalog, query, expected):
    assert named_tool(catalog, query) == expected
    hits = search(catalog, query, max_results=3)
    assert hits[0].name == expected
    assert len(hits) <= 3 and len({h.name for h in hits}) == len(hits)
    # the promotion is explained as such, and the points still add up to the score
    explained = [c for c in hits[0].contributions if c.detail.startswith("the query")]
    if explained:
        assert sum(c.points for c in hits[0].contributions) == pytest.approx(hits[0].score)


@pytest.mark.parametrize("query", ["browser_nav", "issue", "list", "the issues of a repository", "create_issue now"])
def test_no_name_is_claimed_for_ambiguous_prefixes_or_sentences(catalog, query):
    assert named_tool(catalog, query) is None


def test_every_name_of_a_catalog_ranks_its_tool_first(catalog):
    for tool in catalog.tools:
        assert search(catalog, tool.name, max_results=1)[0].name == tool.name


def test_names_equal_but_for_separators_go_to_the_one_the_query_spells():
    """Two servers loaded together: Airtable's ``search_records`` and Pinecone's ``search-records``
    have one key; each spelling names its own tool, by full name or after a namespace (blind set 4
    had ranked one of them second). A spelling of neither (``SearchRecords``) names neither."""
    tools = [
        make("search_records", "Search records in an Airtable base."),
        make("search-records", "Search records in a Pinecone index namespace."),
        make("air__Upsert_Rows", "Add rows."),
        make("pine__upsert-rows", "Upsert vectors."),
        make("hub__upsert_rows", "Insert or update rows."),
    ]
    catalog = Catalog(tools=tools)
    for name in ("search_records", "search-records", "air__Upsert_Rows", "pine__upsert-rows", "hub__upsert_rows"):
        assert named_tool(catalog, name) == name
        assert search(catalog, name, max_results=1)[0].name == name
    assert named_tool(catalog, "upsert-rows") == "pine__upsert-rows"  # the part after the namespace, as spelt
    assert named_tool(catalog, "Upsert_Rows") == "air__Upsert_Rows"
    assert named_tool(catalog, "upsert_rows") == "hub__upsert_rows"  # exactly; air's differs in case
    assert named_tool(catalog, "UPSERT_ROWS") is None  # but for case: two (air's and hub's)
    assert named_tool(catalog, "SearchRecords") is None and named_tool(catalog, "search records") is None


def test_a_named_tool_whose_word_weighs_nothing_scores_above_the_rest_and_is_not_missing(tmp_path):
    """Keycloak's OpenAPI document has an operation named ``post`` (``POST /``), and the ranker reads
    ``post`` in its siblings' names as their HTTP method: the ranker put ``post`` first with a score
    of 0, tied with the rest (a caller keeping positive scores, the benchmark harness, found
    nothing), and the no-match note said no tool contains 'post'."""
    from toolsearch_cli.catalog import load_catalog
    from toolsearch_cli.search.base import SearchRequest
    from toolsearch_cli.search.bm25f import BM25FRanker
    from toolsearch_cli.search.names import unmatched_words

    body = {"content": {"application/json": {"schema": {"type": "object", "properties": {"realm": {}}}}}}
    path_param = [{"name": "realm", "in": "path", "required": True, "schema": {"type": "string"}}]
    document = {
        "openapi": "3.0.0",
        "info": {"title": "realms", "version": "1"},
        "paths": {
            "/": {"post": {"summary": "Import a realm", "requestBody": body}},
            "/{realm}/users": {"post": {"summary": "Create a new user", "parameters": path_param}},
            "/{realm}/partialImport": {"post": {"summary": "Partial import", "parameters": path_param}},
        },
    }
    (tmp_path / "realms.json").write_text(json.dumps(document))
    catalog = load_catalog([tmp_path / "realms.json"])
    assert "post" in [t.name for t in catalog.tools]
    for depth in (1, 3):
        hits = BM25FRanker().search(catalog, SearchRequest(query="post", max_results=depth))
        assert hits[0].tool.name == "post" and hits[0].score > 0
        assert all(hits[0].score > other.score for other in hits[1:])
    assert unmatched_words(catalog, "post") == []
    assert [w.word for w in unmatched_words(catalog, "post zebra")] == ["zebra"]  # a word of it names one


def test_the_named_tool_must_be_in_the_asked_category():
    catalog = Catalog(
        tools=[make("send_mail", "Send mail.", category="mail"), make("fax", "Send a fax.", category="fax")]
    )
    assert search(catalog, "send_mail", category="fax")[0].name == "fax"
    assert search(catalog, "send_mail", category="mail")[0].name == "send_mail"


def test_a_resident_tool_is_not_claimed():
    catalog = Catalog(tools=[make("clock", "Tell the time."), make("timer", "Set a timer.")], resident=["clock"])
    assert named_tool(catalog, "clock") is None
    assert all(hit.name != "clock" for hit in search(catalog, "clock"))


def test_unmatched_words_come_with_close_catalog_words(catalog):
    misses = unmatched_words(catalog, "opne an isue about the brwoser zzkq")
    assert [m.word for m in misses] == ["opne", "isue", "brwoser", "zzkq"]
    by_word = {m.word: m.suggestions for m in misses}
    assert "issue" in by_word["isue"] and "browser" in by_word["brwoser"] and by_word["zzkq"] == []
    assert unmatched_words(catalog, "open an issue") == []  # every word is in some tool


def test_a_cjk_request_is_unmatched_only_when_none_of_its_words_is_found():
    catalog = Catalog(tools=[make("getWeather", "查询城市的天气预报"), make("sendMail", "发送电子邮件")])
    assert unmatched_words(catalog, "查询城市天气") == []  # its bigrams 城市, 天气 are in a tool
    assert [m.word for m in unmatched_words(catalog, "量子色动力学 blorp")] == ["量子色动力学", "blorp"]
    assert [m.word for m in unmatched_words(catalog, "今天吃什么")] == ["今天吃什么"]  # lone characters are no match


def test_hidden_tools_lend_no_words_to_suggestions():
    secret = make("wire_transfer", "Move treasury funds between accounts.", requires={"role": ["admin"]})
    manager = CatalogManager([make("weather", "Forecast for a city."), secret])
    words = {s for m in manager.unmatched("treasurey transfer", {"role": "guest"}) for s in m.suggestions}
    assert "treasury" not in words and "transfer" not in words
    admin = {m.word: m.suggestions for m in manager.unmatched("treasurey", {"role": "admin"})}
    assert admin == {"treasurey": ["treasury"]}


def test_an_empty_tool_search_result_says_why_and_still_reads_as_empty(catalog):
    manager = CatalogManager(catalog.tools)
    misses = manager.unmatched("wether forcast")
    outcome = SearchOutcome(names=[], unmatched=misses)
    body = json.loads(outcome.content())
    assert body["names"] == [] and "no tool contains" in body["note"]
    assert [u["word"] for u in body["unmatched"]] == ["wether", "forcast"]
    assert parse_search_result(outcome.content()) == (EMPTY, ())
    # hits, or nothing to say: the reference's plain JSON array
    assert SearchOutcome(names=["a", "b"]).content() == '["a","b"]'
    assert SearchOutcome(names=[]).content() == "[]"
    # an error object, or an object with names in it, is not an empty result
    assert parse_search_result('{"error": "bad", "names": []}')[0] == ERROR
    assert parse_search_result('{"names": ["x"]}')[0] == ERROR


def test_hostile_queries_for_the_look_ups_are_bounded(catalog):
    long_query = "create_issue" * 10_000
    assert named_tool(catalog, long_query) is None
    misses = unmatched_words(catalog, " ".join(f"w{i}x" for i in range(10_000)))
    assert len(misses) <= 64


def test_the_name_look_up_follows_catalog_changes_in_place(catalog):
    assert "names" not in index_keys(catalog)
    assert named_tool(catalog, "create_issue") == "create_issue"
    built = cached_index(catalog, "names", lambda: None)
    catalog.add_tool(make("create_issue_comment", "Comment on an issue."))
    catalog.remove_tool("browser_navigate_back")
    assert cached_index(catalog, "names", lambda: None) is built  # updated, not dropped and rebuilt
    assert named_tool(catalog, "create_issue_comment") == "create_issue_comment"
    assert named_tool(catalog, "browser_navigate_b") is None  # the tool it stood for is gone
    assert named_tool(catalog, "browser_nav") == "browser_navigate"  # now a unique prefix
    fresh = Catalog(tools=list(catalog.tools))
    for query in ("create_issue", "create_issue_c", "browserNav", "get_me", "browser_navigate_back"):
        assert named_tool(catalog, query) == named_tool(fresh, query), query


def test_an_empty_search_reuses_the_index_the_search_built(catalog):
    manager = CatalogManager(catalog.tools)
    assert manager.search("zzkq wether", max_results=5) == []
    assert [m.word for m in manager.unmatched("zzkq wether")] == ["zzkq", "wether"]
    assert manager._hints is None  # no second catalog was indexed for the hint


def test_a_pickled_catalog_its_index_and_its_name_look_up_answer_as_the_originals(catalog):
    """What the on-disk cache stores: the names' maps (the catalog's, the index's slots, the look-up's
    exact keys) are made again on first use, and follow changes as the originals do."""
    import pickle

    from toolsearch_cli.indexes import adopt, built

    catalog.add_tool(make("Create-Issue", "Same key as create_issue."))  # two names, one key
    queries = ["create_issue", "createissue", "browser_nav", "browserNav", "get_me", "postcustomers", "issue"]
    expected = [named_tool(catalog, q) for q in queries]
    hits = [[(h.name, h.score) for h in search(catalog, q, max_results=5)] for q in queries]
    catalog.remove_tool("issue_search")  # a dead slot in the index
    hits_after = [[(h.name, h.score) for h in search(catalog, q, max_results=5)] for q in queries]
    stored = pickle.loads(pickle.dumps((catalog, built(catalog))))
    copy, indexes = stored
    assert "_by_name" not in copy.__dict__ and "slot_of" not in indexes["default"].__dict__
    assert "exact" not in indexes["names"].__dict__
    adopt(copy, indexes)
    assert [named_tool(copy, q) for q in queries] == [named_tool(catalog, q) for q in queries]
    assert [[(h.name, h.score) for h in search(copy, q, max_results=5)] for q in queries] == hits_after
    assert indexes["default"].slot_of == built(catalog)["default"].slot_of
    assert list(indexes["default"].slot_of) == list(built(catalog)["default"].slot_of)
    assert copy.get("create_issue") is copy.tools[1] and "issue_search" not in copy
    # changes follow on the copy as on the original
    for each in (catalog, copy):
        each.remove_tool("Create-Issue")
        each.add_tool(make("issue_search", "Search issues again."))
    assert [named_tool(copy, q) for q in queries] == [named_tool(catalog, q) for q in queries]
    assert [[(h.name, h.score) for h in search(copy, q, max_results=5)] for q in queries] == [
        [(h.name, h.score) for h in search(catalog, q, max_results=5)] for q in queries
    ]
    assert named_tool(copy, "createissue") == "create_issue" and expected[1] is None  # once ambiguous, now not
    assert hits != hits_after


def test_an_index_read_back_from_the_cache_can_be_stored_again_before_its_slots_are_made(catalog):
    """A cached search that stores its catalog again (a hybrid search after a default one adds its
    own index to the entry) pickles an index whose slots by name were never made: that is no error
    (it was `KeyError: 'slot_of'` at first), and the twice-stored index answers as the original."""
    import pickle

    from toolsearch_cli.indexes import built

    search(catalog, "create issue", max_results=3)  # builds the default index
    index = built(catalog)["default"]
    once = pickle.loads(pickle.dumps(index))
    assert "slot_of" not in once.__dict__
    twice = pickle.loads(pickle.dumps(once))
    assert twice.slot_of == index.slot_of


def test_a_search_with_the_coverage_bonus_on_an_index_read_back_does_not_make_its_names_map(catalog):
    """The coverage bonus reads postings by slot, so a cached search (an index read back from the
    cache) never builds the map of every tool's name to its slot (0.025 s at 100,000 tools)."""
    import pickle

    from toolsearch_cli.indexes import built
    from toolsearch_cli.search import bm25f

    search(catalog, "create issue", max_results=3)
    index = pickle.loads(pickle.dumps(built(catalog)["default"]))
    plan = bm25f.query_plan("create an issue in a repository")
    ranked = index.ranked_slots(plan, 100)
    best, _ = bm25f._with_coverage(index, plan, ranked, 3)
    assert best and "slot_of" not in index.__dict__


def test_the_vocabulary_has_the_words_of_the_whole_texts():
    """The vocabulary searches each distinct white-space token for words: the same words as a search
    of the whole texts (no word runs across white space of any kind)."""
    from toolsearch_cli.search.names import _WORD, Vocabulary

    text = "x1y  naïve café_au-lait 3d 2fa\u00a0élan\u2003tab\tnew\nline\u2028sep\x1cfs 東京タワー abc123def"
    text += " __init__ l'été"
    tool = make("plainName", text, tags=["über-cool"], category="Weather Data")
    words = Vocabulary([tool]).words
    texts = ["plain Name", text, "über-cool", "Weather Data"]
    expected = {w.casefold() for w in _WORD.findall("\n".join(texts))}
    assert words == sorted(w for w in expected if len(w) > 2 and not w.isdigit())
    assert {"naïve", "café", "élan", "sep", "東京タワー", "abc123def", "init", "été"} <= set(words)


def test_the_vocabulary_splits_names_batched_as_one_name_at_a_time():
    """Names are split at identifier boundaries a batch at a time (joined by line breaks): the words
    are those of each name split alone, whatever the neighbouring names end or start with."""
    from toolsearch_cli.model import Tool
    from toolsearch_cli.search.names import _WORD, Vocabulary
    from toolsearch_cli.search.text import split_identifiers

    names = ["getHTTPResponse", "Abc", "xyzQ", "Rst", "snake_case-name", "ÉtéDuSud", "two\nLines", "v2Beta", "9Lives"]
    names += [f"tool{i}Name" for i in range(5000)]  # several batches
    tools = [Tool(name=name) for name in names]
    expected = set()
    for name in names:
        expected.update(w.casefold() for w in _WORD.findall(split_identifiers(name).replace("_", " ")))
    assert Vocabulary(tools).words == sorted(w for w in expected if len(w) > 2 and not w.isdigit())
    assert {"xyz", "rst", "http", "response", "beta", "lives", "sud"} <= set(Vocabulary(tools).words)
