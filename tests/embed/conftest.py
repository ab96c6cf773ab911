"""What the embedding tests share: the small static model they run (tests/data/minilm-static, a
model2vec model: the tests needing it skip without model2vec)."""

from __future__ import annotations

import itertools

import pytest

from ..conftest import DATA

#: the static test model (model2vec), as a folder
STATIC = DATA / "minilm-static"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A cache folder of the test's own (``$TOOLSEARCH_CACHE_DIR``), turned on."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("TOOLSEARCH_CACHE_DIR", str(folder))
    monkeypatch.delenv("TOOLSEARCH_NO_CACHE", raising=False)
    return folder


@pytest.fixture
def made(monkeypatch):
    """How many tool texts dense searches made (none when an index file gave their keys)."""
    from toolsearch_cli.search import vectors

    count = {"texts": 0}
    real = vectors.tool_text

    def counting(tool, **kw):
        count["texts"] += 1
        return real(tool, **kw)

    monkeypatch.setattr(vectors, "tool_text", counting)
    return count


def use_default(monkeypatch, settings) -> None:
    """Make ``settings`` the library default for this test as a user does, through the
    ``TOOLSEARCH_EMBED_*`` variables (there is no process-wide setter; ``monkeypatch`` undoes it)."""
    from toolsearch_cli import environment

    values = {
        "model": settings.model,
        "base_url": settings.base_url,
        "multilingual": "1" if settings.multilingual else None,
        "weight": None if settings.weight is None else str(settings.weight),
    }
    for field, value in values.items():
        name = environment.EMBED_VARIABLES[field]
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)


_AXES_IDS = itertools.count()


class Axes:
    """An embedder whose vectors are chosen by hand: each text is a mix of named axes."""

    label = "axes"
    multilingual = False

    def __init__(self, vectors):
        # query vectors are kept in memory per model: a fresh id each time (``id(self)`` is reused
        # once an earlier embedder is freed, and that one's vectors were then found)
        self.model_id = f"axes-{next(_AXES_IDS)}"
        self.vectors = vectors
        self.texts: list[str] = []

    def embed(self, texts):
        import numpy as np

        self.texts.extend(texts)
        rows = np.array([self.vectors[t] for t in texts], dtype=np.float32)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def search_with_a_second_view(monkeypatch, tmp_path, request: str, view: str) -> tuple[dict, dict, Axes]:
    """``hybrid`` on three tools (alpha, beta, gamma) that no word of ``request`` matches, each on an
    axis of a toy model: ``request`` leans to beta, then alpha; ``view`` (another view ``hybrid``
    embeds of it) to alpha. Returns the scores and the first part of each hit's semantic
    explanation by tool, and the model (its ``texts``: what was embedded)."""
    from toolsearch_cli import Catalog
    from toolsearch_cli.search import SearchRequest, hybrid
    from toolsearch_cli.search import embed as embed_mod
    from toolsearch_cli.search.embed import tool_text

    from ..conftest import make

    monkeypatch.setenv("TOOLSEARCH_CACHE_DIR", str(tmp_path))
    tools = [make("alpha", "zz"), make("beta", "zz"), make("gamma", "zz")]
    axes = ([1, 0, 0], [0, 1, 0], [0, 0, 1])
    texts = {tool_text(t): v for t, v in zip(tools, axes, strict=True)}
    model = Axes({**texts, request: [0.6, 1, 0.1], view: [1, 0.1, 0]})
    monkeypatch.setattr(embed_mod, "default_embedder", lambda: model)
    hits = hybrid.HybridRanker().search(Catalog(tools=tools), SearchRequest(query=request, max_results=3, explain=True))
    scores = {h.tool.name: h.score for h in hits}
    details = {h.tool.name: h.contributions[-1].detail.split("; ")[0] for h in hits}
    return scores, details, model
