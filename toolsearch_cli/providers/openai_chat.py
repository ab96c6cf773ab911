"""OpenAI Chat Completions: ``{"type": "function", "function": {...}}`` tools, ``tool_calls`` on
assistant messages, ``{"role": "tool", "tool_call_id", "content"}`` results, and the system
prompt as the first ``system`` message.

Schema: ``ChatCompletionFunctionToolParam`` / ``FunctionDefinition`` in the ``openai`` SDK (and
OpenAI's OpenAPI document): ``strict`` is optional there (default false) and written only when set.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .base import ChatReply, Provider, ToolCall, ToolResult

if TYPE_CHECKING:
    from ..model import Tool


def read_calls(message: Mapping[str, Any]) -> list[ToolCall]:
    """The entries of a message's ``tool_calls`` (malformed ones skipped), whatever its role;
    the flat ``{"id", "name", "arguments"}`` form is read too."""
    calls = []
    raw_calls = message.get("tool_calls")
    for raw in raw_calls if isinstance(raw_calls, list | tuple) else ():
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


class OpenAIChat(Provider):
    name = "openai"
    title = "OpenAI Chat Completions"
    metadata_key = "openai"

    def entry(
        self, tool: Tool, schema: Mapping[str, Any], native: Mapping[str, Any], strict: bool | None, defer: bool
    ) -> dict[str, Any]:
        function: dict[str, Any] = {
            "name": tool.name,
            "description": tool.description,
            "parameters": schema,
            **native,
        }
        if strict is not None:
            function["strict"] = strict
        return {"type": "function", "function": function}

    def chat_reply(self, body: Mapping[str, Any]) -> ChatReply:
        choices = body.get("choices")
        first = choices[0] if isinstance(choices, list) and choices else None
        choice: Mapping[str, Any] = first if isinstance(first, Mapping) else {}
        raw = choice.get("message")
        message: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
        content = message.get("content")
        if content is not None and not isinstance(content, str):
            content = json.dumps(content, ensure_ascii=False)
        calls = message.get("tool_calls")
        usage = body.get("usage")
        finish, model = choice.get("finish_reason"), body.get("model")
        return ChatReply(
            content=content,
            tool_calls=list(calls) if isinstance(calls, list) else [],
            finish_reason=finish if isinstance(finish, str) else None,
            usage={k: v for k, v in usage.items() if isinstance(v, int) and not isinstance(v, bool)} or None
            if isinstance(usage, Mapping)
            else None,
            model=model if isinstance(model, str) else None,
        )

    def tool_calls(self, message: Mapping[str, Any]) -> list[ToolCall]:
        return read_calls(message) if message.get("role") == "assistant" else []

    def tool_results(self, message: Mapping[str, Any]) -> list[ToolResult]:
        if message.get("role") != "tool":
            return []
        call_id = message.get("tool_call_id")
        return [ToolResult(call_id, message.get("content"))] if isinstance(call_id, str) else []


PROVIDER = OpenAIChat()

__all__ = ["PROVIDER", "OpenAIChat", "read_calls"]
