"""What every provider API module owns, and the shapes they share.

A provider module (one per API) writes a tool's ``tools`` entry, reads tool calls and their
results back from a history in its own message shape, places a system prompt where its API
takes it, and states its tool-name rule. Nothing outside :mod:`toolsearch_cli.providers` writes
a wire format.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from ..errors import UsageError

if TYPE_CHECKING:
    from ..model import Tool


@dataclass(frozen=True, slots=True)
class NameRule:
    """A provider's rule for tool names: a pattern over the whole name, a length limit, the
    characters it allows (one at a time) and how a message says so."""

    pattern: re.Pattern[str]
    limit: int
    char: re.Pattern[str]
    allowed: str

    def accepts(self, name: str) -> bool:
        return bool(self.pattern.fullmatch(name)) and len(name) <= self.limit

    def as_tuple(self) -> tuple[re.Pattern[str], int, re.Pattern[str], str]:
        return self.pattern, self.limit, self.char, self.allowed


#: OpenAI's rule (``FunctionDefinition.name``: "a-z, A-Z, 0-9, or contain underscores and dashes,
#: with a maximum length of 64") and Anthropic's (``^[a-zA-Z0-9_-]{1,64}$``).
WORD_NAME = NameRule(re.compile(r"[a-zA-Z0-9_-]+"), 64, re.compile(r"[a-zA-Z0-9_-]"), "letters, digits, '_' and '-'")


@dataclass(slots=True, frozen=True)
class ToolCall:
    """One tool call found in a history, whatever API wrote it."""

    id: str
    name: str
    arguments: Any  # as written: a JSON string (OpenAI), or a mapping (Anthropic's ``input``)

    @property
    def pairing_id(self) -> str:
        """The id its result must carry: the call id, or the tool name when the id is blank."""
        return self.id if self.id.strip() else self.name


@dataclass(slots=True, frozen=True)
class ToolResult:
    """One tool result found in a history: the call id it answers and its content as written."""

    call_id: str
    content: Any
    is_error: bool = False


@dataclass(slots=True)
class ChatReply:
    """A model reply in the OpenAI Chat form: text, ``tool_calls`` entries (``{"id", "type":
    "function", "function": {"name", "arguments"}}``), the finish reason (``stop``,
    ``tool_calls``, ``length``) and the usage (``prompt_tokens``, ``completion_tokens``,
    ``total_tokens``)."""

    content: str | None
    tool_calls: list[dict[str, Any]]
    finish_reason: str | None
    usage: dict[str, int] | None
    model: str | None = None


def chat_call(call_id: Any, name: Any, arguments: Any) -> dict[str, Any] | None:
    """One ``tool_calls`` entry of the OpenAI Chat form (``None`` without a usable name)."""
    if not isinstance(name, str):
        return None
    text = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    return {"id": call_id if isinstance(call_id, str) else "", "type": "function",
            "function": {"name": name, "arguments": text}}  # fmt: skip


def counts(raw: Any, names: Mapping[str, str]) -> dict[str, int] | None:
    """A usage object's integer counts renamed (``names``: theirs -> ours), with ``total_tokens``."""
    if not isinstance(raw, Mapping):
        return None
    out = {ours: raw[theirs] for theirs, ours in names.items()
           if isinstance(raw.get(theirs), int) and not isinstance(raw.get(theirs), bool)}  # fmt: skip
    if "total_tokens" not in out and "prompt_tokens" in out and "completion_tokens" in out:
        out["total_tokens"] = out["prompt_tokens"] + out["completion_tokens"]
    return out or None


def text_of(content: Any) -> str:
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


def copied(messages: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Deep copies of the messages (the caller's history is never changed)."""
    return [copy.deepcopy(dict(m)) for m in messages]


def merged_system(messages: Sequence[Mapping[str, Any]], prompt: str) -> list[dict[str, Any]]:
    """A deep copy of the messages with ``prompt`` appended to the first system message (or a new
    first system message): where OpenAI's APIs take a system prompt inside the messages."""
    out = copied(messages)
    if not prompt:
        return out
    for message in out:
        if message.get("role") == "system":
            existing = text_of(message.get("content"))
            message["content"] = f"{existing}\n\n{prompt}" if existing else prompt
            return out
    return [{"role": "system", "content": prompt}, *out]


class Provider:
    """One provider API. Subclasses set the class attributes and override what differs."""

    #: The name ``api=`` and ``--to`` / ``--api`` take.
    name: ClassVar[str]
    title: ClassVar[str]
    name_rule: ClassVar[NameRule] = WORD_NAME
    #: Whether the API has a ``defer_loading`` flag on a tool (its native tool search).
    defers: ClassVar[bool] = False

    # -- tools out ------------------------------------------------------------------------------

    def tool_entry(
        self,
        tool: Tool,
        *,
        parameters: Mapping[str, Any] | None = None,
        native: Mapping[str, Any] | None = None,
        strict: bool | None = None,
        defer: bool = False,
    ) -> dict[str, Any]:
        """``tool`` as one entry of this API's ``tools`` array. ``parameters`` replaces the tool's
        schema (a strict-mode rewrite); ``native`` holds further fields of this API's entry (kept
        from a file in that format); ``strict`` is written when not ``None``; ``defer`` marks the
        tool for the API's own deferred loading, where it has one. (Each API writes it in
        :meth:`entry`.)"""
        return self.entry(tool, tool.parameters if parameters is None else parameters, native or {}, strict, defer)

    def entry(
        self, tool: Tool, schema: Mapping[str, Any], native: Mapping[str, Any], strict: bool | None, defer: bool
    ) -> dict[str, Any]:
        """This API's ``tools`` entry of ``tool`` with its parameters' ``schema`` (what
        :meth:`tool_entry` decided), the ``native`` fields, ``strict`` and ``defer``."""
        raise NotImplementedError

    def tools(self, tools: Iterable[Tool]) -> list[dict[str, Any]]:
        """The ``tools`` array of a request carrying ``tools`` (in order)."""
        return [self.tool_entry(t, strict=self.strict_of(t)) for t in tools]

    def strict_of(self, tool: Tool) -> bool | None:
        """The ``strict`` a request sends for ``tool``: what a file in this format said, else none."""
        section = tool.metadata.get(self.metadata_key)
        value = section.get("strict") if isinstance(section, dict) else None
        return value if isinstance(value, bool) else None

    #: Where loaders keep this format's own fields (``metadata.<key>``).
    metadata_key: ClassVar[str] = ""

    def native_tools(
        self, loaded: Sequence[Tool], deferred: Sequence[Tool], search_tool: Tool, *, namespaces: bool = False
    ) -> list[dict[str, Any]]:
        """The API's own deferred-loading form: ``loaded`` tools and the search tool in the prompt,
        every ``deferred`` tool sent but kept out of the prompt until a search result names it.
        The array stays the same request after request (a cacheable prefix). APIs without
        deferred loading raise :class:`~toolsearch_cli.errors.UsageError`."""
        raise UsageError(
            f"{self.title} has no deferred loading; use api='anthropic' or 'openai-responses'", field="api"
        )

    def search_result(self, call_id: str, names: Sequence[str], tools: Sequence[Tool]) -> dict[str, Any]:
        """The history item answering a search call in the native form: it names (or carries)
        ``tools``, the hits ``names`` in order."""
        raise NotImplementedError

    # -- live runs: an OpenAI Chat history out, a reply back in ---------------------------------

    def chat_request(self, messages: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """The create call's message arguments for a history kept in the OpenAI Chat form (what
        ``simulate`` records): the messages (or input items) and, where separate, the system text."""
        return {"messages": copied(messages)}

    def chat_reply(self, body: Mapping[str, Any]) -> ChatReply:
        """A reply of this API, read back into the OpenAI Chat form the simulation keeps."""
        raise NotImplementedError

    # -- histories in ---------------------------------------------------------------------------

    def tool_calls(self, message: Mapping[str, Any]) -> list[ToolCall]:
        """The tool calls of one message (item) of this API's history; ``[]`` for any other."""
        return []

    def tool_results(self, message: Mapping[str, Any]) -> list[ToolResult]:
        """The tool results of one message (item) of this API's history; ``[]`` for any other."""
        return []

    def user_text(self, message: Mapping[str, Any]) -> str | None:
        """The text of a user turn (what tool groups match against); ``None`` when ``message`` is
        not one (another role, or a message carrying only tool results)."""
        if message.get("role") != "user":
            return None
        return text_of(message.get("content"))

    # -- system prompt --------------------------------------------------------------------------

    def place_system(self, messages: Sequence[Mapping[str, Any]], prompt: str) -> tuple[list[dict[str, Any]], str]:
        """The messages to send and the separate system text (``""``: none, or the API takes it in
        the messages), with ``prompt`` added to the system prompt."""
        return merged_system(messages, prompt), ""

    def request_params(
        self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Tool], prompt: str = ""
    ) -> dict[str, Any]:
        """The keyword arguments of this API's create call that toolsearch decides: the messages
        (with ``prompt`` placed), the tools and, where separate, the system prompt."""
        placed, system = self.place_system(messages, prompt)
        params: dict[str, Any] = {"messages": placed, "tools": self.tools(tools)}
        if system:
            params["system"] = system
        return params


__all__ = [
    "WORD_NAME",
    "ChatReply",
    "NameRule",
    "Provider",
    "ToolCall",
    "ToolResult",
    "chat_call",
    "copied",
    "counts",
    "merged_system",
    "text_of",
]
