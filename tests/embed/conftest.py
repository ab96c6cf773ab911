"""What the embedding tests share: the small static model they run (tests/data/minilm-static, a
model2vec model: the tests needing it skip without model2vec)."""

from __future__ import annotations

from ..conftest import DATA

#: the static test model (model2vec), as a folder
STATIC = DATA / "minilm-static"
