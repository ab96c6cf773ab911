"""The ``toolSearch`` tool: its definition as a model sees it, and argument validation.

Execution never raises for bad arguments: a model gets a structured error *result* it can read
and correct (``{"error": ..., "field": ...}``), so the tool-call protocol is never broken.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from dataclasses import field as dataclass_field
from typing import Any

from ..bounded import JSONRefused, strict_json
from ..model import Tool
from ..search.base import DEFAULT_MAX_RESULTS, MAX_RESULTS_LIMIT, whole_number
from ..search.names import UnmatchedWord, unmatched_phrase
from ..search.text import classic_normalize

SEARCH_TOOL_NAME = "toolSearch"

SEARCH_TOOL_DESCRIPTION = (
    "Search the tool catalog when the tools available now cannot do the task, or when you are not sure "
    "which tool fits. The query is matched against tool names, descriptions, parameters, categories and "
    "tags. The result is a JSON array with the names of matching tools; their complete definitions become "
    "available on your next call. Searching does not run any tool."
)

ARGUMENT_KEYS = ("query", "maxResults", "category")
#: How a search says its arguments are not JSON at all (a protocol error, not a bad query).
INVALID_JSON = "the arguments are not valid JSON"


def search_tool_definition(name: str = SEARCH_TOOL_NAME, *, default_max_results: int = DEFAULT_MAX_RESULTS) -> Tool:
    """The search tool as sent to a model (an ordinary :class:`Tool`)."""
    return Tool(
        name=name,
        description=SEARCH_TOOL_DESCRIPTION,
        parameters={
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "description": (
                        "The capability you need, in plain words (any language), e.g. 'weather forecast for a city'."
                    ),
                },
                "maxResults": {
                    "type": "integer",
                    "description": (
                        f"How many tool names to return (1-{MAX_RESULTS_LIMIT}); defaults to {default_max_results}."
                    ),
                    "minimum": 1,
                    "maximum": MAX_RESULTS_LIMIT,
                },
                "category": {"type": "string", "description": "Optional exact category filter."},
            },
            "required": ["query"],
            "additionalProperties": False,
        },
        category="system",
    )


@dataclass(slots=True)
class SearchArguments:
    """Validated ``toolSearch`` arguments."""

    query: str
    max_results: int = DEFAULT_MAX_RESULTS
    category: str | None = None


@dataclass(slots=True)
class SearchOutcome:
    """What one ``toolSearch`` execution produced: names (success) or a readable error."""

    names: list[str] = field(default_factory=list)
    error: str | None = None
    field: str | None = None
    arguments: SearchArguments | None = None
    #: When nothing was found: the query's words that no tool contains, with close catalog words.
    unmatched: list[UnmatchedWord] = dataclass_field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def malformed(self) -> bool:
        """The arguments were not JSON at all: a protocol error (``malformed-arguments``), not a bad query."""
        return self.error is not None and self.error.startswith(INVALID_JSON)

    def content(self) -> str:
        """The tool message text: a compact JSON array of names, or a JSON error object.

        A search that found nothing because some of its words are in no tool says so, as an object
        whose ``names`` is empty (``{"names":[],"note":...,"unmatched":[...]}``), so the model can
        rephrase; :func:`~toolsearch_cli.disclosure.history.parse_search_result` reads it as empty.
        """
        if self.ok and not self.names and self.unmatched:
            return json.dumps(
                {
                    "names": [],
                    "note": unmatched_note(self.unmatched),
                    "unmatched": [word.to_dict() for word in self.unmatched],
                },
                ensure_ascii=False,
                separators=(",", ":"),
            )
        if self.ok:
            return json.dumps(self.names, ensure_ascii=False, separators=(",", ":"))
        body: dict[str, Any] = {"error": self.error}
        if self.field:
            body["field"] = self.field
        return json.dumps(body, ensure_ascii=False, separators=(",", ":"))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"ok": self.ok, "names": list(self.names)}
        if self.arguments is not None:
            out["query"] = self.arguments.query
            out["max_results"] = self.arguments.max_results
            out["category"] = self.arguments.category
        if not self.ok:
            out["error"] = self.error
            out["field"] = self.field
        if self.unmatched:
            out["unmatched"] = [word.to_dict() for word in self.unmatched]
        return out


def unmatched_note(unmatched: list[UnmatchedWord]) -> str:
    """One sentence saying which words no tool contains and which close words some do."""
    return f"no tool matched; no tool contains {unmatched_phrase(unmatched)}: rephrase with other words"


class ArgumentError(Exception):
    """A bad ``toolSearch`` argument; turned into an error result, never raised to the caller."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


def parse_arguments(raw: Any, *, default_max_results: int = DEFAULT_MAX_RESULTS) -> SearchArguments:
    """Validate raw arguments (a JSON string or a mapping); raises :class:`ArgumentError`."""
    if isinstance(raw, str):
        if not raw.strip():
            raw = {}
        else:
            try:
                raw = strict_json(raw)
            except JSONRefused as exc:
                raise ArgumentError(f"the arguments are refused: {exc.message}") from None
            except json.JSONDecodeError as exc:
                raise ArgumentError(f"{INVALID_JSON} ({exc.msg} at position {exc.pos})") from None
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise ArgumentError(f"the arguments must be a JSON object, not {type(raw).__name__}")
    unknown = [k for k in raw if k not in ARGUMENT_KEYS]
    if unknown:
        raise ArgumentError(
            f"unknown argument {unknown[0]!r}; accepted: {', '.join(ARGUMENT_KEYS)}", field=str(unknown[0])
        )
    query = raw.get("query")
    if query is None:
        raise ArgumentError("'query' is required: describe the capability you need", field="query")
    if not isinstance(query, str):
        raise ArgumentError(f"'query' must be a string, not {type(query).__name__}", field="query")
    if not query.strip():
        raise ArgumentError("'query' is blank: describe the capability you need", field="query")
    if not classic_normalize(query):
        raise ArgumentError("'query' has no letters or digits: describe the capability in words", field="query")
    max_results = _max_results(raw.get("maxResults"), default_max_results)
    category = raw.get("category")
    if category is not None:
        if not isinstance(category, str):
            raise ArgumentError(f"'category' must be a string, not {type(category).__name__}", field="category")
        if not category.strip():
            category = None  # an empty string is how many models say "no filter"
        elif not classic_normalize(category):
            raise ArgumentError("'category' has no letters or digits; omit it for no filter", field="category")
    return SearchArguments(query=query, max_results=max_results, category=category)


def _max_results(value: Any, default: int) -> int:
    """A positive whole number, given as a number or numeric text (``" 3 "``, ``"3.0"``); capped at the limit."""
    if value is None:
        return default
    number = whole_number(value)
    if number is None or number < 1:
        raise ArgumentError(
            f"'maxResults' must be a positive whole number (1-{MAX_RESULTS_LIMIT}), not {_show(value)}",
            field="maxResults",
        )
    return min(number, MAX_RESULTS_LIMIT)


def _show(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)
