"""The evaluation core behind ``toolsearch eval``: query sets, runs, misses, saved runs and gates."""

from __future__ import annotations

import pytest

from toolsearch_cli import Catalog, Tool, UsageError
from toolsearch_cli.evaluate import (
    Query,
    check_gates,
    compare_runs,
    load_queries,
    metric_keys,
    parse_gate,
    queries_from_examples,
    run_document,
    run_ranker,
    worst_misses,
)


def crowded_catalog() -> Catalog:
    """Eleven tools that match 'alpha beta' fully, one that matches only 'alpha', one that matches nothing."""
    tools = [Tool(name=f"full{i:02d}", description="alpha beta") for i in range(1, 12)]
    tools += [Tool(name="onlyAlpha", description="alpha"), Tool(name="zeta", description="zeta")]
    return Catalog(tools=tools)


def test_worst_misses_put_unreturned_tools_first_then_the_lowest_ranked():
    catalog = crowded_catalog()
    queries = [
        Query("a-deep", "alpha beta", ["onlyAlpha"]),  # rank 12: beyond the evaluation depth of 10
        Query("b-none", "alpha beta", ["zeta"]),  # scores 0
        Query("c-near", "alpha beta", ["full03"]),  # rank 3
        Query("d-hit", "alpha beta", ["full01"]),  # rank 1: not a miss
    ]
    run = run_ranker(catalog, queries, "default", (1, 5))
    assert [r.rank_of(q.relevant[0]) for r, q in zip(run.results, queries, strict=True)] == [None, None, 3, 1]
    misses = worst_misses(catalog, run, 10)
    assert [(m.query.id, m.rank, m.above_count) for m in misses] == [
        ("b-none", None, 12),
        ("a-deep", 12, 11),
        ("c-near", 3, 2),
    ]
    assert [h.name for h in misses[2].above] == ["full01", "full02"]
    assert len(misses[1].above) == 3  # shown: the best three of the eleven above it
    # "alpha" and, its whole label ("onlyAlpha": "only" is a stop word) being said, the label bonus
    assert misses[1].hit is not None and {c.term for c in misses[1].hit.contributions} == {"alpha", "(the query)"}
    assert [m.query.id for m in worst_misses(catalog, run, 1)] == ["b-none"]


def test_a_tool_below_other_relevant_tools_only_is_not_a_miss():
    catalog = crowded_catalog()
    run = run_ranker(catalog, [Query("multi", "alpha beta", ["full01", "full02"])], "default", (1, 5))
    assert worst_misses(catalog, run, 5) == []


def test_examples_skip_resident_tools_and_carry_the_category():
    catalog = Catalog(
        tools=[
            Tool(name="now", description="time", examples=["what time is it"]),
            Tool(name="getWeather", category="weather", examples=["rain in Paris", "  "]),
        ],
        resident=["now"],
    )
    queries = queries_from_examples(catalog)
    assert [(q.id, q.query, q.relevant, q.subset, q.value("category")) for q in queries] == [
        ("getWeather#1", "rain in Paris", ["getWeather"], "weather", "weather")
    ]


def test_json_queries_know_the_line_of_each_item(write):
    path = write(
        "q.json",
        '[{"id": "a", "query": "x", "relevant": ["t"]},\n\n  {"id": "b", "query": "y", "relevant": ["t"], "tier": 2}]',
    )
    queries = load_queries(path)
    assert [(q.id, q.line) for q in queries] == [("a", 1), ("b", 3)]
    assert queries[1].extra == {"tier": 2}


def test_compare_runs_reports_deltas_and_moves_per_query_and_tool():
    def doc(ranks: dict[str, dict[str, int | None]], r5: float) -> dict:
        return {
            "rankers": {"default": {"queries": 2, "recall@5": r5}},
            "ranks": {"default": ranks},
            "query_set": [{"id": "m", "query": "multi"}],
        }

    before = doc({"m": {"a": 1, "b": 6, "c": None}}, 0.5)
    after = doc({"m": {"a": 7, "b": 2, "c": 3}}, 0.75)
    diff = compare_runs(after, before, 5)["rankers"]["default"]
    assert diff["metrics"] == {"recall@5": {"baseline": 0.5, "current": 0.75, "delta": 0.25}}
    assert [(e["tool"], e["before"], e["after"]) for e in diff["moved_out"]] == [("a", 1, 7)]
    assert [(e["tool"], e["before"], e["after"]) for e in diff["moved_in"]] == [("b", 6, 2), ("c", None, 3)]
    assert diff["rank_changes"] == 3


def test_run_document_round_trips_into_compare(write):
    catalog = crowded_catalog()
    run = run_ranker(catalog, [Query("q", "alpha beta", ["full02"], subset="s")], "default", (1, 5))
    doc = run_document([run], source="q.yaml", catalog_sources=["c.yaml"])
    assert doc["ranks"] == {"default": {"q": {"full02": 2}}}
    assert doc["by_subset"]["default"]["s"]["recall@1"] == 0.0
    same = compare_runs(doc, doc, 5)["rankers"]["default"]
    assert same["moved_out"] == same["moved_in"] == [] and same["rank_changes"] == 0


def test_gates_parse_and_check():
    keys = metric_keys([1, 5])
    assert keys == ["queries", "recall@1", "recall@5", "ndcg@5", "mrr", "ms_per_query"]
    gate = parse_gate(" Recall@5 = 0.8 ", keys, ["default", "classic"])
    assert (gate.metric, gate.minimum, gate.ranker) == ("recall@5", 0.8, None)
    results = check_gates([gate], {"default": {"recall@5": 0.8}, "classic": {"recall@5": 0.79}})
    assert [(r.ranker, r.passed) for r in results] == [("default", True), ("classic", False)]
    only = parse_gate("classic:queries=100", keys, ["default", "classic"])
    assert [r.ranker for r in check_gates([only], {"default": {"queries": 5}, "classic": {"queries": 5}})] == [
        "classic"
    ]
    for bad in ("ndcg@1=0.5", "mrr=nan", "=1", "mrr="):
        with pytest.raises(UsageError):
            parse_gate(bad, keys, ["default"])
