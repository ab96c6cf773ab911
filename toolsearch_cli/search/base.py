"""What every ranker shares: the request, the hit with its explanation, and the ranker protocol."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from ..errors import SearchError
from ..model import Catalog, Tool

DEFAULT_MAX_RESULTS = 5
MAX_RESULTS_LIMIT = 50

#: Field names as reported in ``matched_fields`` and explanations, in display order.
FIELDS = ("name", "description", "category", "tags", "parameters")


@dataclass(slots=True)
class Contribution:
    """Points one query term (or the whole query) earned in one field."""

    term: str
    field: str
    points: float
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"term": self.term, "field": self.field, "points": self.points, "detail": self.detail}


@dataclass(slots=True)
class Hit:
    """One search result: the tool, its score, the fields that matched and why."""

    tool: Tool
    score: float
    matched_fields: list[str] = field(default_factory=list)
    contributions: list[Contribution] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.tool.name

    def to_dict(self, *, explain: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.tool.name,
            "score": self.score,
            "category": self.tool.category,
            "matched_fields": list(self.matched_fields),
            "description": self.tool.description,
        }
        if explain:
            out["explanation"] = [c.to_dict() for c in self.contributions]
        return out


@dataclass(slots=True, frozen=True)
class SearchRequest:
    """A validated search request: query text, result count (1..50) and optional category.

    ``explain=False`` skips building explanations (matched fields stay empty), for bulk runs
    such as evaluations where only the ranking matters.
    """

    query: str
    max_results: int = DEFAULT_MAX_RESULTS
    category: str | None = None
    explain: bool = True


def whole_number(value: Any) -> int | None:
    """``value`` as a whole number: an int, an integral float or numeric text (``" 3 "``, ``"3.0"``); else None.

    Booleans are not numbers here. Shared by every reader of a max-results value, each of which
    keeps its own range rule and error message.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    number: float
    if isinstance(value, float):
        number = value
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return None
    else:
        return None
    if not math.isfinite(number) or number != int(number):
        return None
    return int(number)


def parse_max_results(value: Any) -> int:
    """Accept an int or a numeric string (``" 3 "``, ``"3.0"``) and clamp it to 1..50."""
    if value is None:
        return DEFAULT_MAX_RESULTS
    number = whole_number(value)
    if number is None:
        shown = repr(value) if isinstance(value, int | float | str) else type(value).__name__
        raise SearchError(f"max results must be a whole number, not {shown}", field="maxResults")
    return max(1, min(MAX_RESULTS_LIMIT, number))


class Ranker(Protocol):
    """Ranks a catalog's searchable tools for a request. Indexes are built once per catalog."""

    name: ClassVar[str]
    description: ClassVar[str]

    def search(self, catalog: Catalog, request: SearchRequest) -> list[Hit]: ...
