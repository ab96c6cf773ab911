"""What the embedding tests share: the small static model they run (tests/data/minilm-static, a
model2vec model: the tests needing it skip without model2vec)."""

from __future__ import annotations

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
