"""The default ranker meets the reference BM25 R@5 on every dev set in ../shared/eval.

Skipped when ../shared is not beside the checkout. Figures: benchmarks/README.md.
"""

from __future__ import annotations

import pytest

from toolsearch_cli import load_catalog, search
from toolsearch_cli.evaluate import evaluate, load_queries

from .conftest import SHARED

pytestmark = [
    pytest.mark.shared,
    pytest.mark.skipif(not (SHARED / "eval").is_dir(), reason="../shared/eval is not available"),
]

# Reference `bm25` R@5 from shared/eval/README.md.
BM25_R5 = {"bfcl_static": 0.916, "metatool": 0.556, "seal_tools": 0.878, "ultratool_en": 0.650, "ultratool_zh": 0.648}


@pytest.mark.parametrize("name", sorted(BM25_R5))
def test_default_ranker_reaches_reference_bm25_recall_at_5(name):
    root = SHARED / "eval" / name
    catalog = load_catalog(str(root / "catalog.yaml"))
    queries = load_queries(root / "queries.yaml")
    metrics = evaluate(catalog, queries, "default", ks=(5,)).as_dict()
    assert metrics["recall@5"] >= BM25_R5[name], metrics


def test_eval_catalogs_load_with_their_parameters():
    catalog = load_catalog(str(SHARED / "eval" / "seal_tools" / "catalog.yaml"))
    tool = catalog.get("acquireCustomers")
    assert tool.category == "Marketing" and tool.tags == ["Customer acquisition"]
    assert "target_audience" in tool.parameters["required"]
    assert search(catalog, "acquire new customers for marketing")[0].name == "acquireCustomers"
