"""OpenAI Chat Completions: ``{"type": "function", "function": {...}}`` tools, ``tool_calls`` on
assistant messages, ``{"role": "tool", "tool_call_id", "content"}`` results, and the system
prompt as the first ``system`` message.

Schema: ``ChatCompletionFunctionToolParam`` / ``FunctionDefinition`` in the ``openai`` SDK (and
OpenAI's OpenAPI document): ``strict`` is optional there (default false) and written only when set.

:class:`OpenAIChatClient` is the live client (``simulate --live``, the default ``--api``), on the
``openai`` SDK.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .base import ChatReply, Provider, ToolCall, ToolResult
from .client import LiveClient, LiveError, kind_name, short

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

#: OpenAI's own endpoint (``--base-url`` / ``$OPENAI_BASE_URL`` name another).
DEFAULT_BASE_URL = "https://api.openai.com/v1"


class OpenAIChatClient(LiveClient):
    """Chat Completions over HTTP with the ``openai`` SDK (``--api openai-chat``, the default)."""

    api = "openai"
    provider = PROVIDER
    endpoint = "/chat/completions"
    sdk = "openai"
    sdk_title = "OpenAI"
    base_url_env = "OPENAI_BASE_URL"
    default_base_url = DEFAULT_BASE_URL
    default_key_env = "OPENAI_API_KEY"

    def _sdk_client(self, **options: Any) -> Any:
        return self._sdk.OpenAI(**options)

    def max_tokens_keyword(self) -> str:
        """Where ``--max-tokens`` goes: ``max_completion_tokens`` at OpenAI's own endpoints (and
        Azure's), where ``max_tokens`` is deprecated and refused by the reasoning models;
        ``max_tokens`` elsewhere, the one keyword every compatible server reads (llama.cpp's
        server and Ollama read no other)."""
        from urllib.parse import urlsplit

        try:
            host = (urlsplit(self.base_url).hostname or "").lower()
        except ValueError:
            host = ""
        openai = host == "api.openai.com" or host.endswith(".openai.azure.com")
        return "max_completion_tokens" if openai else "max_tokens"

    def _send(self, client: Any, kwargs: dict[str, Any]) -> Any:
        return client.chat.completions.with_raw_response.create(**kwargs)

    def _create_function(self) -> Any:
        return self._client.chat.completions.create

    def _request_kwargs(
        self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]]
    ) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"model": self.model, "messages": list(messages)}
        if tools:
            kwargs["tools"] = list(tools)
            if self.tool_choice:  # OpenAI's default with tools; some servers (llama.cpp) need it said
                kwargs["tool_choice"] = self.tool_choice
        if self.temperature is not None:
            kwargs["temperature"] = self.temperature
        if self.max_tokens is not None:
            kwargs[self.max_tokens_keyword()] = self.max_tokens
        return kwargs

    def _problems(self, data: Any) -> list[str]:
        if not isinstance(data, dict):
            raise LiveError(f"the model server at {self.shown_url} sent a reply that is not a JSON object")
        choices = data.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise LiveError(f"the model server at {self.shown_url} sent a completion without choices")
        problems: list[str] = []
        raw_message = choices[0].get("message")
        if not isinstance(raw_message, dict):
            problems.append(
                "the choice has no 'message'"
                if raw_message is None
                else f"'message' is {kind_name(raw_message)}, not an object: {short(raw_message)}"
            )
        message: dict[str, Any] = raw_message if isinstance(raw_message, dict) else {}
        content = message.get("content")
        if content is not None and not isinstance(content, str):  # kept, as JSON text, in the history
            problems.append(f"'content' is {kind_name(content)}, not a string: {short(content)}")
        calls = message.get("tool_calls")
        if calls is not None and not isinstance(calls, list):
            problems.append(f"'tool_calls' is {kind_name(calls)}, not a list: {short(calls)}")
        return problems


__all__ = ["DEFAULT_BASE_URL", "PROVIDER", "OpenAIChat", "OpenAIChatClient", "read_calls"]
