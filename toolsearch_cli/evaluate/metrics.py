"""Retrieval metrics over query sets: Recall@k, NDCG@k (binary gain) and MRR.

Definitions follow shared/eval/README.md: only tools with a positive score count as returned;
metrics are macro-averaged over queries.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import UsageError


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


def metric_keys(ks: Sequence[int]) -> list[str]:
    """The metric keys a run with these k values reports, in output order."""
    return ["queries", *query_metrics([], {"x"}, ks), "ms_per_query"]


def eval_depth(ks: Sequence[int]) -> int:
    """How deep each query is ranked: the largest k, and at least 10 (for MRR)."""
    return max(max(ks), 10)


def parse_ks(text: str) -> list[int]:
    """``"1,5,10"`` -> [1, 5, 10] (sorted, distinct, each 1..50)."""
    ks: set[int] = set()
    for part in text.split(","):
        part = part.strip()
        if not part.isdigit() or not 1 <= int(part) <= 50:
            raise UsageError(f"--k takes whole numbers 1..50 separated by commas, not {text!r}", field="k")
        ks.add(int(part))
    return sorted(ks)
