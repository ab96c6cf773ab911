"""Retrieval metrics as defined in shared/eval/README.md."""

from __future__ import annotations

import math

import pytest

from toolsearch_cli import Catalog, CatalogError, Tool
from toolsearch_cli.evaluate import evaluate, load_queries, ndcg_at, recall_at, reciprocal_rank


def test_recall_ndcg_and_mrr_by_hand():
    ranked = ["x", "a", "y", "b"]
    relevant = {"a", "b"}
    assert recall_at(ranked, relevant, 1) == 0.0
    assert recall_at(ranked, relevant, 2) == 0.5
    assert recall_at(ranked, relevant, 5) == 1.0
    assert reciprocal_rank(ranked, relevant) == 0.5
    assert reciprocal_rank(["x"], relevant) == 0.0
    dcg = 1 / math.log2(3) + 1 / math.log2(5)
    ideal = 1 / math.log2(2) + 1 / math.log2(3)
    assert ndcg_at(ranked, relevant, 5) == pytest.approx(dcg / ideal)
    assert ndcg_at(["a"], {"a"}, 5) == 1.0


def test_evaluate_averages_over_queries(write):
    catalog = Catalog(
        tools=[
            Tool(name="getWeather", description="weather forecast"),
            Tool(name="sendEmail", description="send an email"),
        ]
    )
    path = write(
        "q.yaml",
        "- {id: q1, query: weather forecast, relevant: [getWeather]}\n"
        "- {id: q2, query: send email, relevant: [sendEmail]}\n"
        "- {id: q3, query: quantum physics, relevant: [getWeather]}\n",
    )
    queries = load_queries(path)
    metrics = evaluate(catalog, queries, "default", ks=(1, 5)).as_dict()
    assert metrics["queries"] == 3
    assert metrics["recall@1"] == pytest.approx(2 / 3)
    assert metrics["mrr"] == pytest.approx(2 / 3)


def test_bad_queries_file_names_the_line(write):
    path = write("q.yaml", "- {id: q1, query: ok, relevant: [a]}\n- {id: q2, query: no labels}\n")
    with pytest.raises(CatalogError) as info:
        load_queries(path)
    assert info.value.line == 2 and "relevant" in str(info.value)
