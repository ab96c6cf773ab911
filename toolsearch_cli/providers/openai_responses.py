"""OpenAI Responses API: flat ``{"type": "function", "name", ...}`` tools, ``function_call`` and
``function_call_output`` items in the input, and the system prompt as a ``system`` message of
the input (which the API accepts beside ``instructions``).

Schema: ``FunctionToolParam`` in the ``openai`` SDK (and OpenAI's OpenAPI ``FunctionTool``):
``strict`` is *required* (nullable), so every entry carries it — ``false`` unless the schema was
made strict (``catalog convert --strict``) or the file it came from said ``true``. The tool may
carry ``output_schema`` (an MCP tool's ``outputSchema``) and ``defer_loading`` (the API's own
tool search).

:class:`OpenAIResponsesClient` is the live client (``simulate --live --api openai-responses``),
on the ``openai`` SDK.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .base import ChatReply, Provider, ToolCall, ToolResult, chat_call, counts, text_of
from .client import ItemsClient, kind_name, short
from .openai_chat import DEFAULT_BASE_URL, read_calls

if TYPE_CHECKING:
    from ..model import Tool


def mcp_output_schema(tool: Tool) -> dict[str, Any] | None:
    """An MCP tool's ``outputSchema`` (kept in ``metadata.mcp``), for ``output_schema``."""
    mcp = tool.metadata.get("mcp")
    schema = mcp.get("outputSchema") if isinstance(mcp, dict) else None
    return schema if isinstance(schema, dict) else None


#: The name a native ``tool_search_call`` is read as: toolsearch's search tool (default name).
NATIVE_SEARCH_NAME = "toolSearch"


def _function_names(tool: Mapping[str, Any]) -> list[str]:
    """The function names a loaded tool definition brings: its own, or its namespace's functions'
    (a namespace holds functions, never namespaces: one level is read)."""
    if tool.get("type") == "namespace":
        inner = tool.get("tools")
        members = [t for t in inner if isinstance(t, Mapping)] if isinstance(inner, list) else []
    else:
        members = [tool]
    return [t["name"] for t in members if t.get("type") == "function" and isinstance(t.get("name"), str)]


class OpenAIResponses(Provider):
    name = "openai-responses"
    title = "OpenAI Responses"
    metadata_key = "openai"
    defers = True

    def entry(
        self, tool: Tool, schema: Mapping[str, Any], native: Mapping[str, Any], strict: bool | None, defer: bool
    ) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "type": "function",
            "name": tool.name,
            "description": tool.description,
            "parameters": schema,
            **native,
        }
        if strict is not None:
            entry["strict"] = strict
        entry.setdefault("strict", False)  # required by the schema; the API's own default would be true
        output_schema = mcp_output_schema(tool)
        if output_schema is not None:
            entry.setdefault("output_schema", output_schema)
        if defer:
            entry["defer_loading"] = True
        return entry

    def native_tools(
        self, loaded: Sequence[Tool], deferred: Sequence[Tool], search_tool: Tool, *, namespaces: bool = False
    ) -> list[dict[str, Any]]:
        """The search tool as a client-executed ``tool_search`` tool (``ToolSearchToolParam``); the
        deferred functions with ``defer_loading``, grouped in a ``namespace`` per catalog category
        when ``namespaces`` (a category that is no valid name, and tools without one, stay flat)."""
        out = [self.tool_entry(t, strict=self.strict_of(t)) for t in loaded]
        out.append(
            {
                "type": "tool_search",
                "execution": "client",
                "description": search_tool.description,
                "parameters": search_tool.parameters,
            }
        )
        groups: dict[str, list[dict[str, Any]]] = {}
        for tool in deferred:
            entry = self.tool_entry(tool, strict=self.strict_of(tool), defer=True)
            category = tool.category if namespaces and tool.category else None
            if category is not None and self.name_rule.accepts(category):
                if category not in groups:
                    groups[category] = []
                    out.append({"type": "namespace", "name": category, "description": "", "tools": groups[category]})
                groups[category].append(entry)
            else:
                out.append(entry)
        for item in out:
            if item.get("type") == "namespace":
                item["description"] = f"{item['name']} tools ({len(item['tools'])})"
        return out

    def search_result(self, call_id: str, names: Sequence[str], tools: Sequence[Tool]) -> dict[str, Any]:
        """A ``tool_search_output`` item carrying the hits' definitions (loaded from then on)."""
        by_name = {t.name: t for t in tools}
        loaded = [self.tool_entry(by_name[n], strict=self.strict_of(by_name[n])) for n in names if n in by_name]
        return {"type": "tool_search_output", "call_id": call_id, "execution": "client", "status": "completed",
                "tools": loaded}  # fmt: skip

    def chat_request(self, messages: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """Input items: messages by role, assistant ``tool_calls`` as ``function_call`` items, ``tool``
        messages as ``function_call_output`` items."""
        items: list[dict[str, Any]] = []
        for message in messages:
            role = message.get("role")
            if role == "tool":
                items.append({"type": "function_call_output", "call_id": str(message.get("tool_call_id") or ""),
                              "output": text_of(message.get("content"))})  # fmt: skip
                continue
            text = text_of(message.get("content"))
            if role == "assistant":
                if text:
                    items.append({"role": "assistant", "content": text})
                for call in read_calls(message):
                    arguments = call.arguments if isinstance(call.arguments, str) else json.dumps(call.arguments)
                    items.append({"type": "function_call", "call_id": call.id, "name": call.name,
                                  "arguments": arguments})  # fmt: skip
            else:
                items.append({"role": role if role in ("system", "developer") else "user", "content": text})
        return {"input": items}

    def chat_reply(self, body: Mapping[str, Any]) -> ChatReply:
        output = body.get("output")
        items = [i for i in output if isinstance(i, Mapping)] if isinstance(output, list) else []
        texts = []
        calls = []
        for item in items:
            if item.get("type") == "message" and isinstance(item.get("content"), list):
                for part in item["content"]:
                    if isinstance(part, Mapping) and part.get("type") == "output_text":
                        texts.append(part["text"] if isinstance(part.get("text"), str) else "")
            elif item.get("type") == "function_call":
                calls.append(chat_call(item.get("call_id"), item.get("name"), item.get("arguments")))
        found = [c for c in calls if c is not None]
        details = body.get("incomplete_details")
        if body.get("status") == "incomplete":
            reason = details.get("reason") if isinstance(details, Mapping) else None
            finish: str | None = "length" if reason == "max_output_tokens" else str(reason or "incomplete")
        else:
            finish = "tool_calls" if found else "stop"
        usage = counts(body.get("usage"), {"input_tokens": "prompt_tokens", "output_tokens": "completion_tokens",
                                           "total_tokens": "total_tokens"})  # fmt: skip
        model = body.get("model")
        return ChatReply("".join(texts) or None, found, finish, usage, model if isinstance(model, str) else None)

    def tool_calls(self, message: Mapping[str, Any]) -> list[ToolCall]:
        if message.get("type") == "tool_search_call" and message.get("execution", "client") == "client":
            call_id = message.get("call_id")
            # the API's own search call stands for toolsearch's search tool (by its default name)
            return [ToolCall(call_id if isinstance(call_id, str) else "", NATIVE_SEARCH_NAME, message.get("arguments"))]
        if message.get("type") != "function_call":
            return []
        name, call_id = message.get("name"), message.get("call_id")
        if not isinstance(name, str):
            return []
        return [ToolCall(call_id if isinstance(call_id, str) else "", name, message.get("arguments"))]

    def tool_results(self, message: Mapping[str, Any]) -> list[ToolResult]:
        if message.get("type") == "tool_search_output":
            call_id, tools = message.get("call_id"), message.get("tools")
            if not isinstance(call_id, str) or not isinstance(tools, list):
                return []
            names = [n for t in tools if isinstance(t, Mapping) for n in _function_names(t)]
            return [ToolResult(call_id, json.dumps(names, ensure_ascii=False))]
        if message.get("type") != "function_call_output":
            return []
        call_id = message.get("call_id")
        if not isinstance(call_id, str) or not call_id.strip():
            call_id = message.get("name")  # paired by name, as a blank call id is
        return [ToolResult(call_id, message.get("output"))] if isinstance(call_id, str) else []

    def user_text(self, message: Mapping[str, Any]) -> str | None:
        if message.get("type", "message") != "message":
            return None
        return super().user_text(message)

    def request_params(
        self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Tool], prompt: str = ""
    ) -> dict[str, Any]:
        placed, _ = self.place_system(messages, prompt)
        return {"input": placed, "tools": self.tools(tools)}


PROVIDER = OpenAIResponses()


class OpenAIResponsesClient(ItemsClient):
    """The Responses API with the ``openai`` SDK (``--api openai-responses``)."""

    api = "openai-responses"
    provider = PROVIDER
    endpoint = "/responses"
    reply_key = "output"
    sdk = "openai"
    sdk_title = "OpenAI"
    base_url_env = "OPENAI_BASE_URL"
    default_base_url = DEFAULT_BASE_URL
    default_key_env = "OPENAI_API_KEY"

    def _sdk_client(self, **options: Any) -> Any:
        return self._sdk.OpenAI(**options)

    def _send(self, client: Any, kwargs: dict[str, Any]) -> Any:
        return client.responses.with_raw_response.create(**kwargs)

    def _create_function(self) -> Any:
        return self._client.responses.create

    def _item_problems(self, items: list[dict[str, Any]]) -> list[str]:
        out = []
        for item in items:
            if item.get("type") != "message":
                continue
            content = item.get("content")
            if not isinstance(content, list):
                out.append(f"a message's 'content' is {kind_name(content)}, not a list: {short(content)}")
                continue
            for part in content:
                if not isinstance(part, dict):
                    out.append(f"a message's content part is {kind_name(part)}, not an object: {short(part)}")
                elif part.get("type") == "output_text" and not isinstance(part.get("text"), str):
                    out.append(f"an output_text's 'text' is {kind_name(part.get('text'))}, not a string")
        return out

    def _request_kwargs(
        self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]]
    ) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"model": self.model, **self.provider.chat_request(messages)}
        if tools:
            kwargs["tools"] = list(tools)
            if self.tool_choice:
                kwargs["tool_choice"] = self.tool_choice
        if self.temperature is not None:
            kwargs["temperature"] = self.temperature
        if self.max_tokens is not None:
            kwargs["max_output_tokens"] = self.max_tokens
        return kwargs


__all__ = ["PROVIDER", "OpenAIResponses", "OpenAIResponsesClient", "mcp_output_schema"]
