"""A tool-vector index given the keys it kept (search/vectors.py: its own file beside the catalog's
cache entry, or a pickle of it) finds its tools' vectors by them: no tool text is made again, the
same matrix comes out, and anything that changes the texts (another prompt, multilingual, a vector
no longer stored) makes them again."""

from __future__ import annotations

import pickle

import pytest

from toolsearch_cli import load_catalog
from toolsearch_cli.search import vectors
from toolsearch_cli.search.embed import load_local, title_text

from ..conftest import DEMO
from .conftest import STATIC

np = pytest.importorskip("numpy")
pytest.importorskip("model2vec", reason="the static test model needs the embed extra (model2vec)")


class Embedder:
    """The static test model with the prompt and language setting a test chooses."""

    def __init__(self, inner, prefix="", multilingual=False):
        self.inner, self.document_prefix, self.multilingual = inner, prefix, multilingual
        self.model_id, self.label, self.query_prefix = inner.model_id, "test", ""
        self.texts = 0

    def embed(self, texts):
        self.texts += len(texts)
        return self.inner.embed(texts)


def _index():
    from toolsearch_cli import Tool

    titled = Tool(name="issues_create", description="Creates an issue.", metadata={"mcp": {"title": "Create an issue"}})
    return vectors.VectorIndex([*load_catalog([str(DEMO)]).searchable(), titled], "static-test")


def test_an_index_read_back_finds_its_vectors_without_making_the_texts(cache, made):
    embedder = Embedder(load_local(str(STATIC)))
    first = _index()
    first.ensure(embedder)
    tools = len(first.tools)
    # the titled tool, the untitled ones whose parameters fill their text and those with a long
    # description (its gist) have a second text
    second = sum(1 for t in first.tools if title_text(t, cjk=False) is not None)
    assert second == 39 and made["texts"] == tools and embedder.texts == tools + second
    again = pickle.loads(pickle.dumps(first))  # as the catalog cache keeps it
    assert again.matrix is None
    again.ensure(embedder)
    assert made["texts"] == tools  # none made again
    assert np.array_equal(again.matrix, first.matrix)
    assert np.array_equal(again.title_slots, first.title_slots)
    assert np.array_equal(again.title_matrix, first.title_matrix)
    fresh = _index()  # as before the keys were kept: the texts made, the same vectors
    fresh.ensure(embedder)
    assert np.array_equal(fresh.matrix, again.matrix) and np.array_equal(fresh.title_matrix, again.title_matrix)


@pytest.mark.parametrize("change", ["prompt", "multilingual", "vectors-gone", "tool-added", "cache-off"])
def test_what_changes_the_texts_makes_them_again(cache, made, change, monkeypatch, tmp_path):
    inner = load_local(str(STATIC))
    first = _index()
    first.ensure(Embedder(inner))
    again = pickle.loads(pickle.dumps(first))
    embedder = Embedder(inner)
    if change == "prompt":
        embedder = Embedder(inner, prefix="passage: ")
    elif change == "multilingual":
        embedder = Embedder(inner, multilingual=True)
    elif change == "vectors-gone":
        for path in (tmp_path / "cache" / "vectors").iterdir():
            path.unlink()
    elif change == "tool-added":
        from toolsearch_cli import Tool

        again.add(Tool(name="forecastSurf", description="Wave height and surf forecast for a beach"))
    elif change == "cache-off":
        monkeypatch.setenv("TOOLSEARCH_NO_CACHE", "1")
    before = made["texts"]
    again.ensure(embedder)
    assert made["texts"] - before == len(again.tools)
    if change == "vectors-gone":
        assert embedder.texts > 0 and np.array_equal(again.matrix, first.matrix)
