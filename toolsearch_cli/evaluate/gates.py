"""CI gates: ``--min [RANKER:]METRIC=VALUE`` parsed against a run's metrics, and checked."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import UsageError, did_you_mean


@dataclass(slots=True, frozen=True)
class Gate:
    """``--min [RANKER:]METRIC=VALUE``: the metric must be at least VALUE (for that ranker, or every one)."""

    metric: str
    minimum: float
    ranker: str | None = None
    text: str = ""


def parse_gate(text: str, keys: Sequence[str], rankers: Sequence[str]) -> Gate:
    """Parse one ``--min`` value against the metric keys and rankers of the run; a bad one is a UsageError."""
    spec, sep, raw = text.partition("=")
    if not sep or not spec.strip() or not raw.strip():
        raise UsageError(f"--min takes METRIC=VALUE (e.g. recall@5=0.8), not {text!r}")
    ranker: str | None = None
    metric = spec.strip()
    if ":" in metric:
        ranker, _, metric = (part.strip() for part in metric.partition(":"))
        if ranker not in rankers:
            raise UsageError(
                f"--min {text!r}: ranker {ranker!r} is not evaluated{did_you_mean(ranker, rankers)}; "
                f"rankers: {', '.join(rankers)}",
            )
    metric = metric.lower()
    if metric not in keys:
        hint = ""
        if metric.partition("@")[0] in ("recall", "ndcg") and metric.partition("@")[2].isdigit():
            hint = f"; add {metric.partition('@')[2]} to --k to measure it"
        raise UsageError(
            f"--min {text!r}: unknown metric {metric!r}{did_you_mean(metric, keys)}{hint}; metrics: {', '.join(keys)}"
        )
    try:
        minimum = float(raw)
    except ValueError:
        raise UsageError(f"--min {text!r}: {raw.strip()!r} is not a number") from None
    if minimum != minimum:
        raise UsageError(f"--min {text!r}: {raw.strip()!r} is not a number")
    return Gate(metric, minimum, ranker, text)


@dataclass(slots=True, frozen=True)
class GateResult:
    gate: Gate
    ranker: str
    value: float

    @property
    def passed(self) -> bool:
        return self.value >= self.gate.minimum

    def to_dict(self) -> dict[str, Any]:
        return {
            "ranker": self.ranker,
            "metric": self.gate.metric,
            "min": self.gate.minimum,
            "value": self.value,
            "passed": self.passed,
        }


def check_gates(gates: Sequence[Gate], metrics_by_ranker: dict[str, dict[str, Any]]) -> list[GateResult]:
    """Each gate against each ranker it applies to."""
    return [
        GateResult(gate, ranker, float(metrics[gate.metric]))
        for gate in gates
        for ranker, metrics in metrics_by_ranker.items()
        if gate.ranker in (None, ranker)
    ]
