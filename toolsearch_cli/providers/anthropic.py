"""Anthropic Messages API: ``{"name", "description", "input_schema"}`` tools, ``tool_use`` blocks in
assistant messages, ``tool_result`` blocks in user messages, and the system prompt as the
separate ``system`` parameter (never a message of the list).

Schema: ``ToolParam``, ``ToolUseBlockParam``, ``ToolResultBlockParam`` and
``ToolReferenceBlockParam`` in the ``anthropic`` SDK. ``defer_loading`` keeps a tool out of the
prompt until a tool search returns a ``tool_reference`` to it; a ``toolSearch`` result written
as ``tool_reference`` blocks is read like the JSON list of names.

:class:`AnthropicClient` is the live client (``simulate --live --api anthropic``), on the
``anthropic`` SDK.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..bounded import JSONRefused, strict_json
from ..errors import UsageError
from .base import ChatReply, Provider, ToolCall, ToolResult, chat_call, copied, counts, text_of
from .client import ItemsClient, kind_name, short
from .openai_chat import read_calls

if TYPE_CHECKING:
    from ..model import Tool


def _blocks(message: Mapping[str, Any], kind: str) -> list[Mapping[str, Any]]:
    content = message.get("content")
    if not isinstance(content, list):
        return []
    return [b for b in content if isinstance(b, Mapping) and b.get("type") == kind]


def tool_references(names: Sequence[str]) -> list[dict[str, Any]]:
    """A tool result's content naming tools to load: one ``tool_reference`` block per name."""
    return [{"type": "tool_reference", "tool_name": name} for name in names]


def _input_of(arguments: Any) -> Any:
    """A recorded call's JSON arguments as the ``input`` object Anthropic wants (``{}`` when they
    are not a JSON object: the refusal the model got says why)."""
    if isinstance(arguments, Mapping):
        return dict(arguments)
    try:
        value = strict_json(arguments) if isinstance(arguments, str) and arguments.strip() else {}
    except (JSONRefused, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


class Anthropic(Provider):
    name = "anthropic"
    title = "Anthropic Messages"
    metadata_key = "anthropic"
    defers = True

    def entry(
        self, tool: Tool, schema: Mapping[str, Any], native: Mapping[str, Any], strict: bool | None, defer: bool
    ) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "name": tool.name,
            "description": tool.description,
            "input_schema": schema,
            **native,
        }
        if strict is not None:
            entry["strict"] = strict
        if defer:
            entry["defer_loading"] = True
        return entry

    def native_tools(
        self, loaded: Sequence[Tool], deferred: Sequence[Tool], search_tool: Tool, *, namespaces: bool = False
    ) -> list[dict[str, Any]]:
        """``toolSearch`` stays a custom tool (its result: ``tool_reference`` blocks); Anthropic has
        no namespaces (``namespaces`` is ignored)."""
        out = [self.tool_entry(t, strict=self.strict_of(t)) for t in [*loaded, search_tool]]
        out += [self.tool_entry(t, strict=self.strict_of(t), defer=True) for t in deferred]
        return out

    def search_result(self, call_id: str, names: Sequence[str], tools: Sequence[Tool]) -> dict[str, Any]:
        """A user message with the ``tool_result`` whose content references the hits."""
        block = {"type": "tool_result", "tool_use_id": call_id, "content": tool_references(names)}
        return {"role": "user", "content": [block]}

    def chat_request(self, messages: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """``system`` apart; assistant ``tool_calls`` as ``tool_use`` blocks; each run of ``tool``
        messages as one user message of ``tool_result`` blocks."""
        out: list[dict[str, Any]] = []
        system: list[str] = []
        for message in messages:
            role = message.get("role")
            if role == "system":
                system.append(text_of(message.get("content")))
            elif role == "tool":
                block = {"type": "tool_result", "tool_use_id": str(message.get("tool_call_id") or ""),
                         "content": text_of(message.get("content"))}  # fmt: skip
                if out and out[-1]["role"] == "user" and isinstance(out[-1]["content"], list):
                    out[-1]["content"].append(block)
                else:
                    out.append({"role": "user", "content": [block]})
            elif role == "assistant":
                blocks: list[dict[str, Any]] = []
                text = text_of(message.get("content"))
                if text:
                    blocks.append({"type": "text", "text": text})
                for call in read_calls(message):
                    blocks.append({"type": "tool_use", "id": call.id, "name": call.name,
                                   "input": _input_of(call.arguments)})  # fmt: skip
                out.append({"role": "assistant", "content": blocks or [{"type": "text", "text": ""}]})
            else:
                out.append({"role": "user", "content": text_of(message.get("content"))})
        params: dict[str, Any] = {"messages": out}
        if any(system):
            params["system"] = "\n\n".join(t for t in system if t)
        return params

    def chat_reply(self, body: Mapping[str, Any]) -> ChatReply:
        content = body.get("content")
        blocks = [b for b in content if isinstance(b, Mapping)] if isinstance(content, list) else []
        text = "".join(b["text"] for b in blocks if b.get("type") == "text" and isinstance(b.get("text"), str))
        calls = [chat_call(b.get("id"), b.get("name"), b.get("input")) for b in blocks if b.get("type") == "tool_use"]
        stop = body.get("stop_reason")
        finish = {"tool_use": "tool_calls", "end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length"}
        usage = counts(body.get("usage"), {"input_tokens": "prompt_tokens", "output_tokens": "completion_tokens"})
        model = body.get("model")
        return ChatReply(
            content=text or None,
            tool_calls=[c for c in calls if c is not None],
            finish_reason=finish.get(stop, stop) if isinstance(stop, str) else None,
            usage=usage,
            model=model if isinstance(model, str) else None,
        )

    def tool_calls(self, message: Mapping[str, Any]) -> list[ToolCall]:
        if message.get("role") != "assistant":
            return []
        calls = []
        for block in _blocks(message, "tool_use"):
            name, call_id = block.get("name"), block.get("id")
            if isinstance(name, str):
                calls.append(ToolCall(call_id if isinstance(call_id, str) else "", name, block.get("input")))
        return calls

    def tool_results(self, message: Mapping[str, Any]) -> list[ToolResult]:
        if message.get("role") != "user":
            return []
        results = []
        for block in _blocks(message, "tool_result"):
            call_id = block.get("tool_use_id")
            if isinstance(call_id, str):
                results.append(ToolResult(call_id, block.get("content"), block.get("is_error") is True))
        return results

    def user_text(self, message: Mapping[str, Any]) -> str | None:
        if message.get("role") != "user":
            return None
        content = message.get("content")
        if isinstance(content, list) and content:
            kinds = {b.get("type") if isinstance(b, Mapping) else None for b in content}
            if kinds == {"tool_result"}:
                return None  # the results of the model's calls: not a turn of the user
        return text_of(content)

    def place_system(self, messages: Sequence[Mapping[str, Any]], prompt: str) -> tuple[list[dict[str, Any]], str]:
        """``system`` messages in the list (an OpenAI habit) are lifted out, joined, then ``prompt``."""
        texts = [text_of(m.get("content")) for m in messages if m.get("role") == "system"]
        rest = copied(m for m in messages if m.get("role") != "system")
        system = "\n\n".join(t for t in [*texts, prompt] if t)
        return rest, system


PROVIDER = Anthropic()

#: ``--tool-choice`` values in Anthropic's shape.
_TOOL_CHOICE = {"auto": {"type": "auto"}, "required": {"type": "any"}, "none": {"type": "none"}}
#: Anthropic requires ``max_tokens``; this is sent when ``--max-tokens`` is not given.
DEFAULT_MAX_TOKENS = 1024


class AnthropicClient(ItemsClient):
    """The Messages API with the ``anthropic`` SDK (``--api anthropic``)."""

    api = "anthropic"
    provider = PROVIDER
    endpoint = "/v1/messages"
    reply_key = "content"
    sdk = "anthropic"
    sdk_title = "Anthropic"
    base_url_env = "ANTHROPIC_BASE_URL"
    default_base_url = "https://api.anthropic.com"
    default_key_env = "ANTHROPIC_API_KEY"

    def _sdk_client(self, **options: Any) -> Any:
        return self._sdk.Anthropic(**options)

    def _send(self, client: Any, kwargs: dict[str, Any]) -> Any:
        return client.messages.with_raw_response.create(**kwargs)

    def _create_function(self) -> Any:
        return self._client.messages.create

    def _item_problems(self, items: list[dict[str, Any]]) -> list[str]:
        return [
            f"a text block's 'text' is {kind_name(b.get('text'))}, not a string: {short(b.get('text'))}"
            for b in items
            if b.get("type") == "text" and not isinstance(b.get("text"), str)
        ]

    def _check_options(self) -> None:
        super()._check_options()  # anthropic 2.x takes no temperature: refused there
        if self.temperature is not None and self.temperature > 1:
            raise UsageError(
                f"--temperature must be between 0 and 1 with --api anthropic, not {self.temperature:g}",
                field="temperature",
            )

    def _request_kwargs(
        self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]]
    ) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"model": self.model, **self.provider.chat_request(messages)}
        kwargs["max_tokens"] = self.max_tokens if self.max_tokens is not None else DEFAULT_MAX_TOKENS
        if tools:
            kwargs["tools"] = list(tools)
            choice = _TOOL_CHOICE.get(self.tool_choice or "")
            if choice is not None:
                kwargs["tool_choice"] = choice
        if self.temperature is not None:
            kwargs["temperature"] = self.temperature
        return kwargs


__all__ = ["DEFAULT_MAX_TOKENS", "PROVIDER", "Anthropic", "AnthropicClient", "tool_references"]
