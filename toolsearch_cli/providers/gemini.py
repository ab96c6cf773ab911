"""Google Gemini: function declarations (``{"functionDeclarations": [...]}`` in ``tools``), with the
JSON Schema as ``parametersJsonSchema``; ``functionCall`` / ``functionResponse`` parts in
``contents``; the system prompt as the separate ``systemInstruction``.

Names: a letter or ``_`` first, then letters, digits, ``_ . : -``; at most 64 characters
(``FunctionDeclaration.name`` in the Gemini API reference). Gemini has no ``strict`` and no
deferred loading.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .base import NameRule, Provider, ToolCall, ToolResult, copied, text_of

if TYPE_CHECKING:
    from ..model import Tool


def _parts(message: Mapping[str, Any], kind: str) -> list[Mapping[str, Any]]:
    parts = message.get("parts")
    if not isinstance(parts, list):
        return []
    return [p[kind] for p in parts if isinstance(p, Mapping) and isinstance(p.get(kind), Mapping)]


class Gemini(Provider):
    name = "gemini"
    title = "Google Gemini"
    metadata_key = "gemini"
    name_rule = NameRule(
        re.compile(r"[a-zA-Z_][a-zA-Z0-9_.:-]*"),
        64,
        re.compile(r"[a-zA-Z0-9_.:-]"),
        "a letter or '_' first, then letters, digits, '_', '.', ':' and '-'",
    )

    def entry(
        self, tool: Tool, schema: Mapping[str, Any], native: Mapping[str, Any], strict: bool | None, defer: bool
    ) -> dict[str, Any]:
        return {
            "name": tool.name,
            "description": tool.description,
            "parametersJsonSchema": schema,
            **native,
        }

    def tools(self, tools: Iterable[Tool]) -> list[dict[str, Any]]:
        """One ``Tool`` holding every declaration (``[]`` when there are none)."""
        declarations = [self.tool_entry(t) for t in tools]
        return [{"functionDeclarations": declarations}] if declarations else []

    def tool_calls(self, message: Mapping[str, Any]) -> list[ToolCall]:
        if message.get("role") != "model":
            return []
        calls = []
        for call in _parts(message, "functionCall"):
            name, call_id = call.get("name"), call.get("id")
            if isinstance(name, str):
                calls.append(ToolCall(call_id if isinstance(call_id, str) else "", name, call.get("args")))
        return calls

    def tool_results(self, message: Mapping[str, Any]) -> list[ToolResult]:
        if message.get("role") != "user":
            return []
        results = []
        for response in _parts(message, "functionResponse"):
            call_id = response.get("id")
            if not isinstance(call_id, str) or not call_id.strip():
                call_id = response.get("name")
            if not isinstance(call_id, str):
                continue
            body = response.get("response")
            # the API wants an object: the result is its "output" (or "result"), else the object itself
            value = body.get("output", body.get("result", body)) if isinstance(body, Mapping) else body
            content = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
            results.append(ToolResult(call_id, content, isinstance(body, Mapping) and "error" in body))
        return results

    def user_text(self, message: Mapping[str, Any]) -> str | None:
        if message.get("role") != "user" or _parts(message, "functionResponse"):
            return None
        parts = message.get("parts")
        return text_of(parts if isinstance(parts, list) else message.get("content"))

    def place_system(self, messages: Sequence[Mapping[str, Any]], prompt: str) -> tuple[list[dict[str, Any]], str]:
        texts = [text_of(m.get("content", m.get("parts"))) for m in messages if m.get("role") == "system"]
        return copied(m for m in messages if m.get("role") != "system"), "\n\n".join(t for t in [*texts, prompt] if t)

    def request_params(
        self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Tool], prompt: str = ""
    ) -> dict[str, Any]:
        placed, system = self.place_system(messages, prompt)
        params: dict[str, Any] = {"contents": placed, "tools": self.tools(tools)}
        if system:
            params["systemInstruction"] = {"parts": [{"text": system}]}
        return params


PROVIDER = Gemini()

__all__ = ["PROVIDER", "Gemini"]
