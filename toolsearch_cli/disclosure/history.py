"""Reading OpenAI Chat Completions style messages: tool calls, tool results, and search events.

Assistant messages carry ``tool_calls`` (``{"id", "type": "function", "function": {"name",
"arguments"}}``); results come back as ``{"role": "tool", "tool_call_id", "content"}``. A call
with a blank id is paired by its tool name, as the reference does.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..bounded import strict_json


def message_text(content: Any) -> str:
    """Message content as text: a string, or the text parts of a list of content parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, Mapping) and isinstance(part.get("text"), str):
                parts.append(part["text"])
        return "".join(parts)
    return str(content)


@dataclass(slots=True, frozen=True)
class ToolCall:
    """One tool call of an assistant message."""

    id: str
    name: str
    arguments: Any  # the raw arguments: normally a JSON string

    @property
    def pairing_id(self) -> str:
        """The id its result must carry: the call id, or the tool name when the id is blank."""
        return self.id if self.id.strip() else self.name


def tool_calls(message: Mapping[str, Any]) -> list[ToolCall]:
    """The tool calls of an assistant message (malformed entries are skipped)."""
    calls = []
    for raw in message.get("tool_calls") or ():
        if not isinstance(raw, Mapping):
            continue
        nested = raw.get("function")
        function: Mapping[str, Any] = nested if isinstance(nested, Mapping) else raw
        name = function.get("name")
        if not isinstance(name, str):
            continue
        call_id = raw.get("id")
        calls.append(
            ToolCall(id=call_id if isinstance(call_id, str) else "", name=name, arguments=function.get("arguments"))
        )
    return calls


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
    """Status and names of a search tool message: a JSON array of strings, else a failure status."""
    text = message_text(content)
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


def search_events(messages: Sequence[Mapping[str, Any]], search_name: str) -> Iterator[SearchEvent]:
    """Every call of the search tool, oldest first, each paired with the first later tool message carrying its id."""
    for index, message in enumerate(messages):
        if message.get("role") != "assistant":
            continue
        for call in tool_calls(message):
            if call.name != search_name:
                continue
            yield _paired(messages, index, call)


def latest_search_event(messages: Sequence[Mapping[str, Any]], search_name: str) -> SearchEvent | None:
    """The latest search: the newest assistant message calling the search tool, and its last such call."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.get("role") != "assistant":
            continue
        calls = [c for c in tool_calls(message) if c.name == search_name]
        if calls:
            return _paired(messages, index, calls[-1])
    return None


def _paired(messages: Sequence[Mapping[str, Any]], index: int, call: ToolCall) -> SearchEvent:
    wanted = call.pairing_id
    for later in messages[index + 1 :]:
        if later.get("role") == "tool" and later.get("tool_call_id") == wanted:
            status, names = parse_search_result(later.get("content"))
            return SearchEvent(index, call, status, names)
    return SearchEvent(index, call, UNFINISHED)
