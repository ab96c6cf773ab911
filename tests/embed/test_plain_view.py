"""``hybrid``'s view of a request without its value-like words (issue 32, round 5 of the fusion).

A request names the user's own things ("the Legal folder", "Maria", "Friday", an id): the
model reads them as part of the meaning. ``hybrid`` also embeds the request without them
(:func:`~toolsearch_cli.search.hybrid.plain_view`) and gives each tool its best view.
"""

from __future__ import annotations

import pytest

from toolsearch_cli import Catalog
from toolsearch_cli.search import SearchRequest
from toolsearch_cli.search import embed as embed_mod
from toolsearch_cli.search.embed import tool_text

from ..conftest import make
from .conftest import Axes, search_with_a_second_view

pytest.importorskip("numpy")


def test_the_plain_view_leaves_out_names_days_ids_and_quoted_text():
    from toolsearch_cli.search.hybrid import hybrid_views, plain_view

    legal = "make a new directory called Contracts inside the Legal folder"
    assert plain_view(legal) == "make a new directory inside the folder"
    assert plain_view('resolve issue WEB-42 before Friday, say "done"') == "resolve issue before"
    assert plain_view("send jane@example.com the report") == "send the report"
    # nothing value-like, or nothing else left: no such view
    assert plain_view("list the files in a folder") is None
    assert plain_view('"quarterly report"') is None
    # a request with CJK characters keeps its Latin words: they are what an English model reads
    assert plain_view("把这些产品说明存进 Pinecone 的 products 索引里") is None
    views, plain = hybrid_views(legal)
    assert views == [legal, "make a new directory inside the folder"] and plain
    assert hybrid_views("list the files in a folder") == (["list the files in a folder"], False)
    two = "Book a meeting with Anna on Friday at 10. Then email her the agenda."
    views, plain = hybrid_views(two)  # the whole request, each sentence, then the plain view
    assert plain and views[1:3] == ["Book a meeting with Anna on Friday at 10.", "Then email her the agenda."]
    assert views[3] == "Book a meeting with on at Then email her the agenda."


def test_a_tool_the_request_s_values_pull_away_from_comes_up_by_the_plain_view(monkeypatch, tmp_path):
    from toolsearch_cli.search import hybrid

    request = "qqq the Legal folder"  # no word matches a tool: the semantic side alone
    plain = hybrid.plain_view(request)
    assert plain == "qqq the folder"
    # the whole request leans to beta (its value), then alpha; without the value it is alpha's
    scores, details, model = search_with_a_second_view(monkeypatch, tmp_path, request, plain)
    # alpha's part is the whole share, from the plain view (the whole request's view alone gives
    # it (0.6 - 0.1) / (1 - 0.1) of beta's); beta keeps its own from the whole request
    assert abs(scores["alpha"] - scores["beta"]) < 1e-6
    assert "gamma" not in scores  # the floor of every view: no semantic part
    assert details["alpha"].endswith("(request without its values)")
    assert details["beta"].endswith("(whole request)")
    assert plain in model.texts


def test_an_evaluation_embeds_the_plain_view_with_the_rest(monkeypatch, tmp_path):
    from toolsearch_cli.search import hybrid

    monkeypatch.setenv("TOOLSEARCH_CACHE_DIR", str(tmp_path))
    tools = [make("alpha", "zz"), make("beta", "zz")]
    texts = {tool_text(t): v for t, v in zip(tools, ([1, 0], [0, 1]), strict=True)}
    requests = ["qqq for Maria", "qqq two"]
    model = Axes({**texts, requests[0]: [1, 1], requests[1]: [0, 1], "qqq for": [1, 0]})
    monkeypatch.setattr(embed_mod, "default_embedder", lambda: model)
    ranker = hybrid.HybridRanker()
    catalog = Catalog(tools=tools)
    ranker.prepare(catalog, requests)
    assert sorted(model.texts) == ["qqq for", "qqq for Maria", "qqq two"]  # one batch, the plain view in it
    for request in requests:
        ranker.search(catalog, SearchRequest(query=request, max_results=2))
    # the searches embed the tools, and none of the requests' views again
    assert sorted(model.texts[3:]) == sorted(texts)


def test_embedding_also_scores_the_request_without_its_values(monkeypatch, tmp_path):
    """``embedding`` scores a tool by the mean of its cosine to the whole request and to the
    closest view; the request without its values is one of the views (round 7 of issue 32)."""
    from toolsearch_cli.search import hybrid

    monkeypatch.setenv("TOOLSEARCH_CACHE_DIR", str(tmp_path))
    tools = [make("assign", "zz"), make("transfer", "zz")]
    texts = {tool_text(t): v for t, v in zip(tools, ([1, 0], [0, 1]), strict=True)}
    request = "hand ENG-482 over to Tom"
    plain = hybrid.plain_view(request)
    assert plain == "hand over to" and hybrid.embedding_views(request) == [request, plain]
    assert hybrid.embedding_views("hand it over") == ["hand it over"]  # nothing value-like: no such view
    # the id and the name pull the whole request towards transfer; without them it is assign's
    model = Axes({**texts, request: [0.5, 0.6], plain: [1, 0.05]})
    monkeypatch.setattr(embed_mod, "default_embedder", lambda: model)
    ranker = hybrid.EmbeddingRanker()
    catalog = Catalog(tools=tools)
    ranker.prepare(catalog, [request])
    assert sorted(model.texts) == sorted([request, plain])  # one batch, the plain view in it
    hits = ranker.search(catalog, SearchRequest(query=request, max_results=2, explain=True))
    assert [h.tool.name for h in hits] == ["assign", "transfer"]
    assert hits[0].contributions[0].detail.endswith("(request without its values)")
    assert hits[1].contributions[0].detail.endswith("(whole request; no part is closer)")
