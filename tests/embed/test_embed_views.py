"""The ``embedding`` ranker scores a tool against a request's parts: the mean of its cosine to the
whole request and to the closest of the request and its parts (issue 19, multi-intent requests).
Hand-made vectors (``Axes``) fix what each text means, so the tests check the ranker's arithmetic,
not a model's taste; one test runs the real static model end to end through the CLI."""

from __future__ import annotations

import itertools

import pytest

from toolsearch_cli import Catalog
from toolsearch_cli.search import SearchRequest
from toolsearch_cli.search import embed as embed_mod
from toolsearch_cli.search.embed import tool_text
from toolsearch_cli.search.text import MAX_PARTS

from ..conftest import DEMO, make
from .test_embed import Axes

pytest.importorskip("numpy")

TOOLS = [make("alpha", "zz"), make("beta", "zz"), make("gamma", "zz"), make("delta", "zz")]
AXES = dict(zip((tool_text(t) for t in TOOLS), ([1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]), strict=True))


@pytest.fixture(autouse=True)
def _no_model(monkeypatch, tmp_path):
    monkeypatch.setenv("TOOLSEARCH_CACHE_DIR", str(tmp_path))
    yield


def _ranker(monkeypatch, vectors):
    from toolsearch_cli.search import hybrid

    axes = Axes({**AXES, **vectors})
    monkeypatch.setattr(embed_mod, "default_embedder", lambda: axes)
    return hybrid.EmbeddingRanker(), axes


def _cos(u, v):
    import numpy as np

    u, v = np.asarray(u, dtype=float), np.asarray(v, dtype=float)
    return float(u @ v / np.linalg.norm(u) / np.linalg.norm(v))


def test_each_part_brings_its_own_tool_up_and_explain_names_it(monkeypatch):
    first, second = "Qqq one.", "Qqq two."
    request = f"{first} {second}"
    # the whole request's vector leans to gamma, then delta; each sentence points at alpha or beta
    vectors = {request: [0.5, 0.4, 0.9, 0.8], first: [1, 0, 0.2, 0], second: [0, 1, 0, 0.2]}
    ranker, axes = _ranker(monkeypatch, vectors)
    hits = ranker.search(Catalog(tools=TOOLS), SearchRequest(query=request, max_results=4, explain=True))
    whole = {t.name: _cos(vectors[request], AXES[tool_text(t)]) for t in TOOLS}
    closest = {t.name: max(_cos(v, AXES[tool_text(t)]) for v in vectors.values()) for t in TOOLS}
    assert sorted(whole, key=whole.get, reverse=True) == ["gamma", "delta", "alpha", "beta"]  # the whole alone
    assert [h.tool.name for h in hits] == ["alpha", "gamma", "beta", "delta"]  # each sentence lifts its tool
    for hit in hits:  # the mean of the cosine to the whole request and to the closest view
        name = hit.tool.name
        assert hit.score == pytest.approx((whole[name] + closest[name]) / 2, abs=2e-3)
    details = {h.tool.name: h.contributions[0].detail for h in hits}
    assert details["alpha"].startswith("mean of cosine 0.36")
    assert details["alpha"].endswith(" and 0.980 (part 1 of 2)")  # 0.981 exactly: the vectors are float16
    assert details["beta"].startswith("mean of cosine 0.29") and details["beta"].endswith("(part 2 of 2)")
    assert details["gamma"] == "cosine 0.660 (whole request; no part is closer)"
    assert sorted(axes.texts[len(TOOLS) :]) == sorted([first, request, second])  # after the tools: each text once


def test_a_one_part_request_is_embedded_once_and_scored_by_its_cosine(monkeypatch):
    ranker, axes = _ranker(monkeypatch, {"find gamma": [0, 0.6, 0.8, 0]})
    hits = ranker.search(Catalog(tools=TOOLS), SearchRequest(query="find gamma", max_results=4, explain=True))
    assert [h.tool.name for h in hits] == ["gamma", "beta"]  # the others have cosine 0: not returned
    assert hits[0].score == pytest.approx(0.8, abs=2e-3)
    assert hits[0].contributions[0].detail == "cosine 0.800"  # no view to name
    assert axes.texts.count("find gamma") == 1 and len(axes.texts) == 5  # 4 tools and the request


def test_a_category_is_kept_whichever_view_matched(monkeypatch):
    tools = [make("alpha", "zz", category="mail"), make("beta", "zz", category="chat")]
    request = "Qqq one. Qqq two."
    from toolsearch_cli.search import hybrid

    axes = Axes(
        {
            tool_text(tools[0]): [1, 0],
            tool_text(tools[1]): [0, 1],
            request: [1, 0.1],
            "Qqq one.": [1, 0.05],
            "Qqq two.": [0.05, 1],
        }
    )
    monkeypatch.setattr(embed_mod, "default_embedder", lambda: axes)
    hits = hybrid.EmbeddingRanker().search(
        Catalog(tools=tools), SearchRequest(query=request, max_results=2, category="chat")
    )
    assert [h.tool.name for h in hits] == ["beta"]
    whole = _cos([1, 0.1], [0, 1])
    assert hits[0].score == pytest.approx((whole + 1.0) / 2, abs=2e-3)  # its sentence's cosine counts


def test_an_evaluation_embeds_every_sentence_once_ahead_of_its_searches(monkeypatch):
    request = "Qqq one. Qqq two."
    ranker, axes = _ranker(monkeypatch, {request: [1, 1, 0, 0], "Qqq one.": [1, 0, 0, 0], "Qqq two.": [0, 1, 0, 0]})
    catalog = Catalog(tools=TOOLS)
    ranker.prepare(catalog, [request, "   "])  # a blank query is left to the search to refuse
    assert sorted(axes.texts) == sorted([request, "Qqq one.", "Qqq two."])
    ranker.search(catalog, SearchRequest(query=request, max_results=2))
    assert axes.texts.count("Qqq one.") == 1  # the search reused the prepared vectors


_ECHO_IDS = itertools.count()


class _Echo:
    """An embedder for hostile requests: any text, a fixed direction; it records what it was given."""

    label = "echo"
    multilingual = False

    def __init__(self) -> None:
        self.model_id = f"echo-{next(_ECHO_IDS)}"  # not id(self): reused once a freed one's vectors are kept
        self.batches: list[int] = []

    def embed(self, texts):
        import numpy as np

        self.batches.append(len(texts))
        rows = np.ones((len(texts), 4), dtype=np.float32)
        rows[:, 0] += np.arange(len(texts)) % 3
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)


@pytest.mark.parametrize(
    ("request_text", "views"),
    [
        ("word " * 200_000, 1),  # a megabyte without punctuation: one view
        # joined into MAX_PARTS runs, then the request without its numbers
        (" ".join(f"Book flight number {i}." for i in range(1000)), 2 + MAX_PARTS),
        (" ".join(f"Book flight number {i}." for i in range(MAX_PARTS)), 2 + MAX_PARTS),  # at the bound: each one
        ("查找天气。预订酒店！查询航班？", 4),  # Chinese sentence ends
        ("Weather in Paris. ... !?! ;;", 1),  # punctuation is no sentence
    ],
)
def test_hostile_requests_are_embedded_in_a_bounded_batch(monkeypatch, request_text, views):
    from toolsearch_cli.search import hybrid

    echo = _Echo()
    monkeypatch.setattr(embed_mod, "default_embedder", lambda: echo)
    catalog = Catalog(tools=TOOLS)
    hits = hybrid.EmbeddingRanker().search(catalog, SearchRequest(query=request_text, max_results=2, explain=True))
    assert len(hits) == 2 and all(0 < h.score <= 1.001 for h in hits)  # cosines (float16-rounded vectors)
    assert echo.batches == [len(TOOLS), views]  # the tools, then the request's views in one call


def test_only_punctuation_is_refused_before_anything_is_embedded(monkeypatch):
    from toolsearch_cli.errors import SearchError
    from toolsearch_cli.search import hybrid

    echo = _Echo()
    monkeypatch.setattr(embed_mod, "default_embedder", lambda: echo)
    with pytest.raises(SearchError, match="blank or only punctuation"):
        hybrid.EmbeddingRanker().search(Catalog(tools=TOOLS), SearchRequest(query="?!。；…", max_results=2))
    assert echo.batches == []


def test_the_cli_explains_which_view_matched_with_the_real_model(run_cli):
    pytest.importorskip("model2vec", reason="the static test model needs the embed extra (model2vec)")
    from .conftest import STATIC

    result = run_cli(
        "search",
        "Book a meeting with Anna on Friday. Then email her the agenda.",
        "--catalog",
        str(DEMO),
        "--ranker",
        "embedding",
        "--embed-model",
        str(STATIC),
        "--explain",
        "--max-results",
        "5",
    )
    assert result.code == 0, result.stderr
    assert result.stdout.count("(whole request") + result.stdout.count("(part ") == 5  # each hit says which view
    assert result.stderr == "" and "Traceback" not in result.stdout
