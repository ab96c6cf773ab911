"""The default ranker meets the reference BM25 R@5 on every dev set in ../shared/eval.

Skipped when ../shared is not beside the checkout. Figures: benchmarks/README.md.
"""

from __future__ import annotations

import pytest

from toolsearch_cli import load_catalog, search
from toolsearch_cli.evaluate import evaluate, load_queries

from ..conftest import SHARED

pytestmark = pytest.mark.shared

# Reference `bm25` R@5 from shared/eval/README.md.
BM25_R5 = {
    "bfcl_static": 0.916,
    "metatool": 0.556,
    "seal_tools": 0.878,
    "toolbench_g3": 0.564,
    "ultratool_en": 0.650,
    "ultratool_zh": 0.648,
}


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


def test_eval_command_on_a_dev_set_matches_the_library(run_cli):
    root = SHARED / "eval" / "bfcl_static"
    args = ["eval", "-c", str(root / "catalog.yaml"), "-q", str(root / "queries.yaml"), "--by", "subset"]
    result = run_cli(*args, "-f", "json", "--min", "recall@5=0.5")
    assert result.code == 0, result.stderr
    data = result.json()
    library = evaluate(load_catalog(str(root / "catalog.yaml")), load_queries(root / "queries.yaml")).as_dict()
    cli = data["rankers"]["default"]
    assert {k: v for k, v in cli.items() if k != "ms_per_query"} == pytest.approx(
        {k: v for k, v in library.items() if k != "ms_per_query"}
    )
    assert {name: v["default"]["queries"] for name, v in data["by_subset"].items()} == {
        "multiple": 200,
        "parallel": 200,
        "parallel_multiple": 200,
        "simple_python": 400,
    }
    assert run_cli(*args, "--min", "recall@5=0.999").code == 1
