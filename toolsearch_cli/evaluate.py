"""Retrieval metrics over query sets: Recall@k, NDCG@k (binary gain) and MRR.

Definitions follow shared/eval/README.md: only tools with a positive score count as returned;
metrics are macro-averaged over queries.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .catalog.yaml_loader import parse_yaml
from .errors import CatalogError, SearchError
from .model import Catalog
from .search import get_ranker
from .search.base import SearchRequest


@dataclass(slots=True)
class Query:
    """One labelled query: the text and the names of the tools that answer it."""

    id: str
    query: str
    relevant: list[str]
    subset: str | None = None


def load_queries(path: str | Path) -> list[Query]:
    """Read a queries file: a list of ``{id, query, relevant: [names], subset?}``."""
    file = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise CatalogError(f"cannot read: {exc.strerror}", file=file) from exc
    doc = parse_yaml(text, file)
    if not isinstance(doc, list):
        raise CatalogError("a queries file must be a list of {id, query, relevant}", file=file, line=1)
    out: list[Query] = []
    lines = getattr(doc, "item_lines", [])
    for i, item in enumerate(doc):
        line = lines[i] if i < len(lines) else None
        if not isinstance(item, dict) or not isinstance(item.get("query"), str):
            raise CatalogError("each query needs a 'query' string", file=file, line=line, field="query")
        relevant = item.get("relevant")
        if not isinstance(relevant, list) or not relevant or not all(isinstance(r, str) for r in relevant):
            raise CatalogError(
                "each query needs 'relevant': a non-empty list of tool names", file=file, line=line, field="relevant"
            )
        out.append(
            Query(id=str(item.get("id", i)), query=item["query"], relevant=list(relevant), subset=item.get("subset"))
        )
    return out


def recall_at(ranked: Sequence[str], relevant: set[str], k: int) -> float:
    return len(relevant.intersection(ranked[:k])) / len(relevant)


def ndcg_at(ranked: Sequence[str], relevant: set[str], k: int) -> float:
    dcg = sum(1.0 / math.log2(i + 2) for i, name in enumerate(ranked[:k]) if name in relevant)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(k, len(relevant))))
    return dcg / ideal


def reciprocal_rank(ranked: Sequence[str], relevant: set[str]) -> float:
    for i, name in enumerate(ranked):
        if name in relevant:
            return 1.0 / (i + 1)
    return 0.0


@dataclass(slots=True)
class Metrics:
    """Macro-averaged metrics of one ranker on one query set."""

    queries: int = 0
    sums: dict[str, float] = field(default_factory=dict)
    seconds: float = 0.0

    def add(self, values: dict[str, float]) -> None:
        self.queries += 1
        for key, value in values.items():
            self.sums[key] = self.sums.get(key, 0.0) + value

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"queries": self.queries}
        for key, value in self.sums.items():
            out[key] = value / self.queries if self.queries else 0.0
        out["ms_per_query"] = 1000.0 * self.seconds / self.queries if self.queries else 0.0
        return out


def query_metrics(ranked: Sequence[str], relevant: set[str], ks: Sequence[int]) -> dict[str, float]:
    values = {f"recall@{k}": recall_at(ranked, relevant, k) for k in ks}
    values.update({f"ndcg@{k}": ndcg_at(ranked, relevant, k) for k in ks if k > 1})
    values["mrr"] = reciprocal_rank(ranked, relevant)
    return values


def evaluate(
    catalog: Catalog, queries: Sequence[Query], ranker: str = "default", ks: Sequence[int] = (1, 5, 10)
) -> Metrics:
    """Run every query through a ranker (depth max(ks), at least 10 for MRR) and average the metrics."""
    impl = get_ranker(ranker)
    depth = max(max(ks), 10)
    metrics = Metrics()
    for q in queries:
        start = time.perf_counter()
        try:
            hits = impl.search(catalog, SearchRequest(query=q.query, max_results=depth, explain=False))
        except SearchError:  # a query a ranker refuses (only stop words) returns nothing
            hits = []
        metrics.seconds += time.perf_counter() - start
        ranked = [h.tool.name for h in hits if h.score > 0]
        metrics.add(query_metrics(ranked, set(q.relevant), ks))
    return metrics
