"""One module per provider API; each owns everything about its wire format.

* :mod:`.openai_chat` — OpenAI Chat Completions (``api="openai"``, also ``"openai-chat"``)
* :mod:`.openai_responses` — the OpenAI Responses API (``"openai-responses"``)
* :mod:`.anthropic` — Anthropic's Messages API (``"anthropic"``)
* :mod:`.gemini` — Google Gemini function declarations (``"gemini"``)

Each module also owns its API's live client (:class:`~.client.LiveClient`, what
``simulate --live`` talks to; Gemini has none yet): :func:`client_class` finds it by ``--api``.
:mod:`.openai_embeddings` is the client of an OpenAI-compatible ``/embeddings`` endpoint (the
``embedding`` and ``hybrid`` rankers).

Chat-mode disclosure reads a history written in any of them (a message of one API is nothing
to another), so the same ``toolSearch`` round trip discloses alike whichever API wrote it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from ..errors import UsageError, did_you_mean
from .anthropic import PROVIDER as ANTHROPIC
from .anthropic import AnthropicClient
from .base import NameRule, Provider, ToolCall, ToolResult, text_of
from .client import LiveClient
from .gemini import PROVIDER as GEMINI
from .openai_chat import PROVIDER as OPENAI_CHAT
from .openai_chat import OpenAIChatClient
from .openai_responses import PROVIDER as OPENAI_RESPONSES
from .openai_responses import OpenAIResponsesClient

#: The API names ``api=`` takes (``openai-chat`` is another name of ``openai``).
Api = Literal["openai", "openai-chat", "openai-responses", "anthropic", "gemini"]

#: Providers by API name (the keys drive the choices users get).
PROVIDER_BY_NAME: dict[str, Provider] = {
    "openai": OPENAI_CHAT,
    "openai-chat": OPENAI_CHAT,
    "openai-responses": OPENAI_RESPONSES,
    "anthropic": ANTHROPIC,
    "gemini": GEMINI,
}

#: Each API's tool-name rule as ``(pattern, max length, allowed character, what it allows)``
#: (lint's invalid-tool-name, TS101, checks them; ``catalog convert`` refuses names they reject).
NAME_RULES: dict[str, tuple[re.Pattern[str], int, re.Pattern[str], str]] = {
    p.name: p.name_rule.as_tuple() for p in (OPENAI_CHAT, ANTHROPIC, GEMINI)
}

#: Every provider once, in the order histories are read.
_READERS: tuple[Provider, ...] = (OPENAI_CHAT, OPENAI_RESPONSES, ANTHROPIC, GEMINI)


def get_provider(api: str) -> Provider:
    """The provider of ``api`` (a key of :data:`PROVIDER_BY_NAME`), else a usage error."""
    provider = PROVIDER_BY_NAME.get(api) if isinstance(api, str) else None
    if provider is None:
        raise UsageError(
            f"unknown API {api!r}{did_you_mean(str(api), PROVIDER_BY_NAME)}; choose from {', '.join(PROVIDER_BY_NAME)}",
            field="api",
        )
    return provider


#: Live clients by ``--api`` (the keys drive the option's choices; ``openai`` is ``openai-chat``).
CLIENT_BY_API: dict[str, type[LiveClient]] = {
    "openai-chat": OpenAIChatClient,
    "openai-responses": OpenAIResponsesClient,
    "anthropic": AnthropicClient,
}


def client_class(api: str) -> type[LiveClient]:
    """The live client of ``api`` (``openai`` is ``openai-chat``), else a usage error."""
    found = CLIENT_BY_API.get("openai-chat" if api == "openai" else api)
    if found is None:
        raise UsageError(
            f"unknown API {api!r}{did_you_mean(api, CLIENT_BY_API)}; choose from {', '.join(CLIENT_BY_API)}",
            field="api",
        )
    return found


def calls_in(message: Mapping[str, Any]) -> list[ToolCall]:
    """The tool calls of one message of a history written for any provider's API."""
    for provider in _READERS:
        calls = provider.tool_calls(message)
        if calls:
            return calls
    return []


def results_in(message: Mapping[str, Any]) -> list[ToolResult]:
    """The tool results of one message of a history written for any provider's API."""
    for provider in _READERS:
        results = provider.tool_results(message)
        if results:
            return results
    return []


def user_text(message: Mapping[str, Any]) -> str | None:
    """The text of a user turn in any provider's history; ``None`` when ``message`` is not one."""
    if message.get("role") != "user":
        return None
    if isinstance(message.get("parts"), list):
        return GEMINI.user_text(message)
    content = message.get("content")
    if isinstance(content, list) and content:
        return ANTHROPIC.user_text(message)  # a message of tool_result blocks is no user turn
    return text_of(content)


__all__ = [
    "ANTHROPIC",
    "CLIENT_BY_API",
    "GEMINI",
    "NAME_RULES",
    "OPENAI_CHAT",
    "OPENAI_RESPONSES",
    "PROVIDER_BY_NAME",
    "AnthropicClient",
    "Api",
    "LiveClient",
    "NameRule",
    "OpenAIChatClient",
    "OpenAIResponsesClient",
    "Provider",
    "ToolCall",
    "ToolResult",
    "calls_in",
    "client_class",
    "get_provider",
    "results_in",
    "user_text",
]
