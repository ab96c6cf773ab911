"""Runs: every query of a set through one ranker, each query's ranking and metrics kept."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import SearchError
from ..model import Catalog
from ..search import EmbedSettings, get_ranker
from ..search.base import SearchRequest
from .metrics import Metrics, eval_depth, query_metrics
from .queries import Query


@dataclass(slots=True)
class QueryResult:
    """One query under one ranker: the returned names (top ``depth``), each relevant tool's rank."""

    query: Query
    ranked: list[str]
    values: dict[str, float]
    seconds: float

    def rank_of(self, name: str) -> int | None:
        """1-based rank of a tool among the returned ones, ``None`` when not returned within depth."""
        try:
            return self.ranked.index(name) + 1
        except ValueError:
            return None

    @property
    def ranks(self) -> dict[str, int | None]:
        return {name: self.rank_of(name) for name in self.query.relevant}


@dataclass(slots=True)
class RankerRun:
    """Every query of a set run through one ranker."""

    ranker: str
    ks: list[int]
    results: list[QueryResult]
    category_field: str | None = None

    def metrics(self, results: Iterable[QueryResult] | None = None) -> dict[str, Any]:
        """Macro-averaged metrics (``queries``, ``recall@k``, ``ndcg@k``, ``mrr``, ``ms_per_query``)."""
        total = Metrics()
        for r in self.results if results is None else results:
            total.add(r.values)
            total.seconds += r.seconds
        return total.as_dict()

    def by(self, field_name: str) -> dict[str, dict[str, Any]]:
        """Metrics per value of a query field (``subset`` or an extra field); missing values under ``(none)``."""
        groups: dict[str, list[QueryResult]] = {}
        for r in self.results:
            value = r.query.value(field_name)
            groups.setdefault("(none)" if value is None else str(value), []).append(r)
        return {key: self.metrics(groups[key]) for key in sorted(groups)}


def run_ranker(
    catalog: Catalog,
    queries: Sequence[Query],
    ranker: str = "default",
    ks: Sequence[int] = (1, 5, 10),
    *,
    category_field: str | None = None,
    on_query: Callable[[], None] | None = None,
    embed: EmbedSettings | str | None = None,
) -> RankerRun:
    """Rank every query (to depth max(ks), at least 10) and keep each query's ranking and metrics;
    ``embed``: the model of a dense ranker (``None``: the library default)."""
    impl = get_ranker(ranker, embed)
    depth = eval_depth(ks)
    results: list[QueryResult] = []
    prepare = getattr(impl, "prepare", None)
    prepared = 0.0
    if queries and prepare is not None:  # load a dense ranker's model untimed: its load is not query time
        prepare(catalog, [queries[0].query])
    if queries:  # build the ranker's index before timing, so ms_per_query is query time alone
        try:
            impl.search(catalog, SearchRequest(query=queries[0].query, max_results=1, explain=False))
        except SearchError:
            pass
    if queries and prepare is not None:  # dense rankers embed all queries in one batch
        start = time.perf_counter()
        prepare(catalog, [q.query for q in queries])
        prepared = (time.perf_counter() - start) / len(queries)  # query embedding counts as query time
    for q in queries:
        category = q.value(category_field) if category_field else None
        request = SearchRequest(query=q.query, max_results=depth, category=category, explain=False)
        start = time.perf_counter()
        try:
            hits = impl.search(catalog, request)
        except SearchError:  # a query a ranker refuses (only stop words) returns nothing
            hits = []
        seconds = time.perf_counter() - start + prepared
        ranked = [h.tool.name for h in hits if h.score > 0]
        results.append(QueryResult(q, ranked, query_metrics(ranked, set(q.relevant), ks), seconds))
        if on_query is not None:
            on_query()
    return RankerRun(ranker, list(ks), results, category_field)


def evaluate(
    catalog: Catalog, queries: Sequence[Query], ranker: str = "default", ks: Sequence[int] = (1, 5, 10)
) -> Metrics:
    """Run every query through a ranker (depth max(ks), at least 10 for MRR) and average the metrics."""
    metrics = Metrics()
    for r in run_ranker(catalog, queries, ranker, ks).results:
        metrics.add(r.values)
        metrics.seconds += r.seconds
    return metrics
