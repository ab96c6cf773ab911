"""Search events in a history: each ``toolSearch`` call paired with its result.

The history may be written for any provider API (:mod:`toolsearch_cli.providers` reads each):
OpenAI Chat ``tool_calls`` and ``{"role": "tool"}`` results, Responses ``function_call`` and
``function_call_output`` items, Anthropic ``tool_use`` and ``tool_result`` blocks, Gemini
``functionCall`` and ``functionResponse`` parts. A call with a blank id is paired by its tool
name, as the reference does.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..bounded import strict_json
from ..providers import ToolCall, calls_in, results_in
from ..providers.base import text_of
from ..providers.openai_chat import read_calls


def tool_calls(message: Mapping[str, Any]) -> list[ToolCall]:
    """The tool calls of one message: its OpenAI ``tool_calls`` (malformed entries skipped, any
    role), else those another provider's message shape carries."""
    return read_calls(message) or calls_in(message)


#: Status of a search call's result, as seen in the history.
OK, EMPTY, UNFINISHED, INVALID, ERROR, NULL = "ok", "empty", "unfinished", "invalid", "error", "null"


@dataclass(slots=True, frozen=True)
class SearchEvent:
    """A search call found in the history and what its paired result says."""

    message_index: int
    call: ToolCall
    status: str
    names: tuple[str, ...] = ()

    @property
    def succeeded(self) -> bool:
        return self.status == OK


def parse_search_result(content: Any) -> tuple[str, tuple[str, ...]]:
    """Status and names of a search tool message: a JSON array of strings (or Anthropic
    ``tool_reference`` blocks), else a failure status."""
    references = _referenced(content)
    if references is not None:
        return (OK, tuple(dict.fromkeys(references))) if references else (EMPTY, ())
    text = text_of(content)
    try:
        value = strict_json(text)
    except (ValueError, TypeError):
        return INVALID, ()
    if value is None:
        return NULL, ()
    if isinstance(value, Mapping):
        # {"names": [], "note": ...}: a search that found nothing and says why (SearchOutcome.content)
        names = value.get("names")
        if "error" in value or not isinstance(names, list) or names:
            return ERROR, ()
        return EMPTY, ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return INVALID, ()
    if not value:
        return EMPTY, ()
    return OK, tuple(dict.fromkeys(value))


def _referenced(content: Any) -> list[str] | None:
    """The tool names of a result made of ``tool_reference`` blocks only; ``None`` for other content."""
    if not isinstance(content, list) or not content:
        return None
    names = []
    for block in content:
        if not isinstance(block, Mapping) or block.get("type") != "tool_reference":
            return None
        name = block.get("tool_name")
        if not isinstance(name, str):
            return None
        names.append(name)
    return names


def search_events(messages: Sequence[Mapping[str, Any]], search_name: str) -> Iterator[SearchEvent]:
    """Every call of the search tool, oldest first, each paired with the first later tool message carrying its id."""
    for index, message in enumerate(messages):
        for call in calls_in(message):
            if call.name != search_name:
                continue
            yield _paired(messages, index, call)


def latest_search_event(messages: Sequence[Mapping[str, Any]], search_name: str) -> SearchEvent | None:
    """The latest search: the newest assistant message calling the search tool, and its last such call."""
    for index in range(len(messages) - 1, -1, -1):
        calls = [c for c in calls_in(messages[index]) if c.name == search_name]
        if calls:
            return _paired(messages, index, calls[-1])
    return None


def _paired(messages: Sequence[Mapping[str, Any]], index: int, call: ToolCall) -> SearchEvent:
    wanted = call.pairing_id
    for later in messages[index + 1 :]:
        for result in results_in(later):
            if result.call_id == wanted:
                status, names = (ERROR, ()) if result.is_error else parse_search_result(result.content)
                return SearchEvent(index, call, status, names)
    return SearchEvent(index, call, UNFINISHED)


__all__ = [
    "EMPTY",
    "ERROR",
    "INVALID",
    "NULL",
    "OK",
    "UNFINISHED",
    "SearchEvent",
    "latest_search_event",
    "parse_search_result",
    "search_events",
    "tool_calls",
]
