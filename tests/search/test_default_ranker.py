"""The default ranker: CJK, identifiers, stop words, saturation, honest no-match, explanations."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolsearch_cli import Catalog, SearchError, load_catalog, search
from toolsearch_cli.indexes import cached_index
from toolsearch_cli.search.bm25f import default_index, query_plan, rank_index
from toolsearch_cli.search.text import STOP_WORDS, analyze, split_identifiers, stem

from ..conftest import DEMO, make

GET_WEATHER = make(
    "getWeather", "查询指定城市的实时天气和未来预报", params={"city": {"type": "string", "description": "城市名称"}}
)
SEND_EMAIL = make(
    "sendEmail",
    "向指定邮箱发送邮件",
    params={
        "address": {"type": "string", "description": "收件人邮箱"},
        "content": {"type": "string", "description": "邮件正文"},
    },
)


@pytest.fixture(scope="module")
def demo():
    return load_catalog(str(DEMO))


def names(hits):
    return [h.name for h in hits]


def test_seed_query_finds_get_weather():
    catalog = Catalog(tools=[GET_WEATHER, SEND_EMAIL])
    assert names(search(catalog, "查询城市天气")) == ["getWeather"]
    assert names(search(catalog, "发送邮件"))[0] == "sendEmail"


def test_mixed_chinese_and_english(demo):
    assert names(search(demo, "查询 weather in 上海"))[0] == "getWeather"
    assert names(search(demo, "send an email 发送邮件"))[0] == "sendEmail"
    assert names(search(demo, "上传 a file"))[0] == "uploadFile"
    assert names(search(demo, "退款 refund"))[0] == "refundPayment"


@pytest.mark.parametrize(
    ("identifier", "words"),
    [
        ("getHTTPResponse", ["get", "http", "respons"]),
        ("get_http_response", ["get", "http", "respons"]),
        ("net.http.get-response", ["net", "http", "get", "respons"]),
        ("HTTP2Server", ["http2", "server"]),
        ("parseJSONToXML", ["pars", "json", "xml"]),
    ],
)
def test_identifiers_split_on_case_acronyms_snake_dots_and_dashes(identifier, words):
    assert analyze(identifier) == words


def test_split_identifiers_keeps_acronyms_together():
    assert split_identifiers("getHTTPResponse") == "get HTTP Response"


def test_identifier_query_finds_split_name():
    catalog = Catalog(tools=[make("getHTTPResponse", "Fetch a URL"), make("sendMail", "Send mail")])
    assert names(search(catalog, "http response")) == ["getHTTPResponse"]
    assert names(search(catalog, "get_http_response")) == ["getHTTPResponse"]


def test_stemming_meets_inflections():
    assert stem("scheduling") == stem("schedule") == stem("scheduled")
    assert stem("files") == "file" and stem("queries") == stem("query")
    assert stem("translation") == stem("translate") and stem("weather") == "weather"
    assert stem("v2beta") == "v2beta" and stem("bus") == "bus" and stem("天气") == "天气"
    catalog = Catalog(tools=[make("scheduleMeeting", "Schedule a meeting"), make("readFile", "Read a file")])
    assert names(search(catalog, "scheduling meetings")) == ["scheduleMeeting"]


def test_one_letter_and_stop_words_do_not_match():
    catalog = Catalog(tools=[make("weatherLookup", "Look up the weather"), make("a", "b")])
    for query in ("the", "of the a", "what is it"):
        with pytest.raises(SearchError):
            search(catalog, query)
    assert names(search(catalog, "a weather")) == ["weatherLookup"]
    # a query that is a tool's whole name finds it, one-letter or not (the exact-name look-up)
    assert names(search(catalog, "a")) == ["a"]


def test_query_sharing_no_meaningful_term_returns_nothing(demo):
    assert search(demo, "quantum chromodynamics lattice") == []
    assert search(demo, "今天吃什么") == []  # only lone characters in common: no padding


def test_lone_cjk_characters_can_still_match_when_that_is_all_the_query_has():
    catalog = Catalog(tools=[make("t", "天气预报")])
    assert names(search(catalog, "天")) == ["t"]


def test_tag_and_parameter_stuffing_is_bounded():
    honest = make("getWeather", "Get the weather for a city", tags=["weather"])
    stuffed = make(
        "spam",
        "Does many things",
        tags=["weather"] * 50,
        params={f"weather{i}": {"type": "string", "description": "weather weather"} for i in range(40)},
    )
    catalog = Catalog(tools=[honest, stuffed])
    hits = search(catalog, "weather")
    assert names(hits)[0] == "getWeather"
    one_tag = make("spam", "Does many things", tags=["weather"])
    single = search(Catalog(tools=[honest, one_tag]), "weather")[1].score
    stuffed_score = hits[1].score
    assert stuffed_score < 3 * single  # BM25 saturation: 90 repetitions are not 90x
    from toolsearch_cli.search.bm25f import K1
    from toolsearch_cli.search.scoring import idf_of

    assert stuffed_score < (K1 + 1) * idf_of(2, 2)  # nor above what one term can ever earn


def test_rare_terms_outweigh_common_ones():
    tools = [make(f"tool{i}", f"get data item {i}") for i in range(20)]
    tools.append(make("createInvoice", "get an invoice"))
    hits = search(Catalog(tools=tools), "get invoice data")
    assert names(hits)[0] == "createInvoice"


def test_blank_and_punctuation_queries_are_errors():
    catalog = Catalog(tools=[GET_WEATHER])
    for query in ("", "   ", "?!", "。，"):
        with pytest.raises(SearchError, match="blank or only punctuation"):
            search(catalog, query)


def test_punctuation_only_category_is_an_error_not_a_silent_filter():
    with pytest.raises(SearchError, match="category is blank"):
        search(Catalog(tools=[GET_WEATHER]), "weather", category="--")


def test_category_filter_is_normalised_equality(demo):
    hits = search(demo, "status", category="PAYMENTS")
    assert hits and {h.tool.category for h in hits} == {"payments"}
    assert search(demo, "weather", category="weath") == []


def test_results_sorted_positive_and_cut(demo):
    hits = search(demo, "create", max_results="3")
    assert len(hits) == 3
    assert all(h.score > 0 for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_resident_tools_are_never_searched(demo):
    assert "currentTime" not in names(search(demo, "current time now", max_results=50))


def test_explanation_adds_up_and_names_fields(demo):
    for query in ("refund a payment", "查询城市天气", "upload files to the shared drive"):
        for hit in search(demo, query):
            assert sum(c.points for c in hit.contributions) == pytest.approx(hit.score)
            assert set(hit.matched_fields) == {c.field for c in hit.contributions}


def test_ties_break_by_name():
    catalog = Catalog(tools=[make("b", "same words"), make("a", "same words")])
    assert names(search(catalog, "same words")) == ["a", "b"]


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40))
def test_analyzer_never_yields_one_letter_latin_or_stop_words(text):
    for term in analyze(text):
        assert term not in STOP_WORDS
        assert len(term) >= 2 or not term.isascii()


WORDS = st.sampled_from(["weather", "email", "refund", "order", "file", "天气", "邮件", "report", "user", "city"])


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.tuples(WORDS, WORDS, WORDS), min_size=1, max_size=12),
    st.lists(WORDS, min_size=1, max_size=4),
    st.integers(min_value=1, max_value=50),
)
def test_every_hit_shares_a_query_term_and_results_are_bounded(descriptions, query_words, limit):
    tools = [make(f"t{i}", " ".join(words)) for i, words in enumerate(descriptions)]
    query = " ".join(query_words)
    catalog = Catalog(tools=tools)
    hits = search(catalog, query, max_results=limit)
    assert len(hits) <= limit
    # the request's own terms and those added for it that weigh something in this catalog (related
    # words; English terms of other languages, unless the catalog speaks the request's language)
    plan = query_plan(query)
    rank_index(default_index(catalog), plan, limit)
    query_terms = {t for t in plan.terms if plan.weights.get(t, 1.0) > 0}
    for hit in hits:
        assert hit.score > 0
        assert query_terms & set(analyze(hit.tool.description))
    expected = sum(1 for words in descriptions if query_terms & set(analyze(" ".join(words))))
    assert len(hits) == min(limit, expected)


def test_explain_false_gives_the_same_ranking_without_explanations(demo):
    from toolsearch_cli.search import RANKER_BY_NAME, SearchRequest

    ranker = RANKER_BY_NAME["default"]
    full = ranker.search(demo, SearchRequest(query="upload a file", max_results=5))
    bare = ranker.search(demo, SearchRequest(query="upload a file", max_results=5, explain=False))
    assert [(h.name, h.score) for h in bare] == [(h.name, h.score) for h in full]
    assert all(not h.contributions for h in bare) and all(h.contributions for h in full)


# -- verbose, multi-tool requests (issue 12) ---------------------------------------------------

VIMEO = [
    make(f"{name}_for_vimeo", f"{text} of Vimeo videos")
    for name, text in [
        ("searchvideos", "Search documentaries among"),
        ("getvideoscomment", "Comments"),
        ("getvideotags", "Tags"),
        ("getvideoowner", "Owners"),
        ("getvideoinfo", "Information"),
    ]
]
INVOICES = [make(f"invoice{i}", f"Create invoice number {i} for a customer account") for i in range(30)]


def test_each_sentence_of_a_multi_tool_request_gets_its_tool_near_the_top(monkeypatch):
    from toolsearch_cli.search import bm25f

    youtube = make("ytstream", "Streams of YouTube in many formats and sizes")
    query = "Search Vimeo videos about documentaries with the comments, tags and owners of each Vimeo video. "
    query += "Then stream it from YouTube."
    assert "ytstream" in names(search(Catalog(tools=[*VIMEO, youtube, *INVOICES]), query))
    # Scored as one bag of words, the tool of the short second sentence is outranked by Vimeo tools
    # (with every word at full weight: "Vimeo" and "YouTube", names, weigh less by default).
    monkeypatch.setattr(bm25f, "CLAUSE_SHARE", 0.0)
    monkeypatch.setattr(bm25f, "VALUE_WEIGHT", 1.0)
    assert "ytstream" not in names(search(Catalog(tools=[*VIMEO, youtube, *INVOICES]), query))


def test_words_a_query_repeats_weigh_more():
    catalog = Catalog(tools=[make("a_tool", "stream music"), make("b_tool", "video clips")])
    assert names(search(catalog, "video stream"))[0] == "a_tool"  # a tie, broken by name
    assert names(search(catalog, "a video stream of my video"))[0] == "b_tool"


def test_sentences_split_at_sentence_punctuation_only():
    from toolsearch_cli.search.text import split_sentences

    text = "Pay 3.5 dollars. Then mail e.g.x and v1.2?  天气怎么样。查询邮件\nnext line;last"
    assert split_sentences(text) == [
        "Pay 3.5 dollars.",
        "Then mail e.g.x and v1.2?",
        "天气怎么样",
        "查询邮件",
        "next line;last",
    ]


def test_a_query_of_very_many_sentences_is_scored_as_a_whole():
    from toolsearch_cli.search.bm25f import MAX_CLAUSES, query_plan

    assert len(query_plan("weather. email. refund.").clauses) == 3
    assert query_plan("weather. " * (MAX_CLAUSES + 1)).clauses == []
    catalog = Catalog(tools=[GET_WEATHER, make("weatherNow", "current weather")])
    assert set(names(search(catalog, "weather. " * 50_000))) == {"getWeather", "weatherNow"}


def test_explanation_of_a_multi_sentence_request_adds_up(demo):
    query = "Refund the payment of my last order. Then upload the receipt to the shared drive!"
    hits = search(demo, query)
    assert len({h.name for h in hits}) == len(hits) > 1
    for hit in hits:
        assert sum(c.points for c in hit.contributions) == pytest.approx(hit.score)
    assert any("weight" in c.detail for h in hits for c in h.contributions)


def test_explanation_in_a_category_adds_up_when_a_sentence_matches_no_tool_there():
    # The first sentence matches only a tool outside the category: the bonus of the second
    # sentence must be explained with the second sentence's words (it once took the first's).
    catalog = Catalog(tools=[make("cityInfo", "city facts", category="Places"), make("forecast", "weather", "Weather")])
    for backend_size in (1, 3000):  # the Python backend, then the NumPy one
        if backend_size > 1:
            catalog = Catalog(tools=[*catalog.tools, *(make(f"filler{i}", "filler") for i in range(backend_size))])
        hits = search(catalog, "city facts. weather", category="Weather")
        assert names(hits) == ["forecast"]
        assert sum(c.points for c in hits[0].contributions) == pytest.approx(hits[0].score)
        assert {c.term for c in hits[0].contributions} == {"weather"}
        assert cached_index(catalog, "default", lambda: None).backend == ("python" if backend_size == 1 else "numpy")


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(["Pay", "3.5", "e.g.x", "天气怎么样", "ＡＢＣ", "getHTTPResponse", "the", "files"]),
            st.sampled_from([". ", "? ", "! ", "; ", ".", "。", "？", "！", "；", "\n", " ", "　", "\u0301"]),
            st.text(max_size=6),
        ),
        max_size=12,
    ).map("".join)
)
def test_query_terms_are_the_terms_of_its_sentences(query):
    # query_plan analyses each sentence once and joins them; that must be the whole query's analysis
    # (before value-like words are weighed down and related words added)
    from toolsearch_cli.search.bm25f import _plain_plan, _weighted

    plan = _plain_plan(query)
    terms, weights = _weighted(analyze(query))
    assert (plan.terms, plan.weights) == (terms, weights)
