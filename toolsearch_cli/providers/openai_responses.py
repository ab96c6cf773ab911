"""OpenAI Responses API: flat ``{"type": "function", "name", ...}`` tools, ``function_call`` and
``function_call_output`` items in the input, and the system prompt as a ``system`` message of
the input (which the API accepts beside ``instructions``).

Schema: ``FunctionToolParam`` in the ``openai`` SDK (and OpenAI's OpenAPI ``FunctionTool``):
``strict`` is *required* (nullable), so every entry carries it — ``false`` unless the schema was
made strict (``catalog convert --strict``) or the file it came from said ``true``. The tool may
carry ``output_schema`` (an MCP tool's ``outputSchema``) and ``defer_loading`` (the API's own
tool search).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .base import Provider, ToolCall, ToolResult

if TYPE_CHECKING:
    from ..model import Tool


def mcp_output_schema(tool: Tool) -> dict[str, Any] | None:
    """An MCP tool's ``outputSchema`` (kept in ``metadata.mcp``), for ``output_schema``."""
    mcp = tool.metadata.get("mcp")
    schema = mcp.get("outputSchema") if isinstance(mcp, dict) else None
    return schema if isinstance(schema, dict) else None


class OpenAIResponses(Provider):
    name = "openai-responses"
    title = "OpenAI Responses"
    metadata_key = "openai"
    defers = True

    def tool_entry(
        self,
        tool: Tool,
        *,
        parameters: Mapping[str, Any] | None = None,
        native: Mapping[str, Any] | None = None,
        strict: bool | None = None,
        defer: bool = False,
    ) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "type": "function",
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters if parameters is None else parameters,
            **(native or {}),
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

    def tool_calls(self, message: Mapping[str, Any]) -> list[ToolCall]:
        if message.get("type") != "function_call":
            return []
        name, call_id = message.get("name"), message.get("call_id")
        if not isinstance(name, str):
            return []
        return [ToolCall(call_id if isinstance(call_id, str) else "", name, message.get("arguments"))]

    def tool_results(self, message: Mapping[str, Any]) -> list[ToolResult]:
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

__all__ = ["PROVIDER", "OpenAIResponses", "mcp_output_schema"]
