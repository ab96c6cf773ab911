"""Live clients for the other provider APIs: Anthropic's Messages API and OpenAI's Responses API,
each through its official SDK (``anthropic``, ``openai``).

They are :class:`~toolsearch_cli.simulate.live_client.OpenAIChatClient`\\ s in everything but the
wire: the same total deadline, bounded retries of 429 and 5xx, strict reading of the body and
masking of the key. The simulation keeps its history in the OpenAI Chat form; the provider
module (:mod:`toolsearch_cli.providers`) writes it out in its API's shape and reads the reply
back, so recordings and replays are the same whichever API answered.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..bounded import bounded_http_client
from ..providers import ANTHROPIC, OPENAI_RESPONSES, Provider
from ..redaction import redact_data
from .live_client import DEFAULT_BASE_URL, Completion, LiveError, OpenAIChatClient, _as_dict, _kind_of, _short

#: ``--tool-choice`` values in Anthropic's shape.
_ANTHROPIC_TOOL_CHOICE = {"auto": {"type": "auto"}, "required": {"type": "any"}, "none": {"type": "none"}}
#: Anthropic requires ``max_tokens``; this is sent when ``--max-tokens`` is not given.
ANTHROPIC_DEFAULT_MAX_TOKENS = 1024


class _LegacyShape:
    """The ``anthropic`` SDK's raw response in the shape the reading of the body expects of the
    ``openai`` SDK's (``content`` bytes, ``http_response``, ``headers``)."""

    def __init__(self, raw: Any) -> None:
        self.http_response = raw.http_response
        self.headers = raw.http_response.headers

    @property
    def content(self) -> bytes:
        return bytes(self.http_response.content)


class _ProviderClient(OpenAIChatClient):
    provider: Provider
    #: The top-level key every reply of this API has (a body without it is not a reply of it).
    reply_key: str

    def _completion(self, response: Any, latency: float, attempts: int, waited: list[tuple[int, float]]) -> Completion:
        data = redact_data(_as_dict(response))  # a secret the model echoes never goes further
        if not isinstance(data, dict) or not isinstance(data.get(self.reply_key), list):
            raise LiveError(
                f"the model server at {self.shown_url} sent a reply that is not a {self.provider.title} response"
            )
        reply = self.provider.chat_reply(data)
        items = data[self.reply_key]
        problems = [
            f"'{self.reply_key}' item {n} is {_kind_of(item)}, not an object: {_short(item)}"
            for n, item in enumerate(items)
            if not isinstance(item, dict)
        ][:5]
        problems += self._item_problems([item for item in items if isinstance(item, dict)])[:5]
        return Completion(
            content=reply.content,
            tool_calls=list(reply.tool_calls),
            finish_reason=reply.finish_reason,
            usage=reply.usage,
            latency=latency,
            attempts=attempts,
            model=reply.model,
            retries=list(waited),
            problems=problems,
        )

    def _item_problems(self, items: list[dict[str, Any]]) -> list[str]:
        """How the reply's items break this API's shape (text that is not a string, ...)."""
        return []


class AnthropicClient(_ProviderClient):
    """The Messages API with the ``anthropic`` SDK (``--api anthropic``)."""

    api = "anthropic"
    endpoint = "/v1/messages"
    provider = ANTHROPIC
    reply_key = "content"

    def _load_sdk(self) -> Any:
        try:
            import anthropic
        except ImportError:
            raise LiveError(
                "--api anthropic needs the Anthropic SDK, which is not installed: pip install anthropic"
            ) from None
        return anthropic

    def _new_client(self) -> Any:
        try:
            return self._openai.Anthropic(
                base_url=self.base_url,
                api_key=self._api_key,
                timeout=self.timeout,
                max_retries=0,
                http_client=bounded_http_client(self._openai, self.max_reply_bytes),  # --max-reply-size
            )
        except Exception as exc:  # noqa: BLE001 - e.g. an invalid URL: one line, never the key
            raise LiveError(f"cannot set up the client for {self.shown_url}: {self.redact(str(exc))}") from None

    def _send(self, client: Any, kwargs: dict[str, Any]) -> Any:
        return _LegacyShape(client.messages.with_raw_response.create(**kwargs))

    def _create_function(self) -> Any:
        return self._client.messages.create

    def _item_problems(self, items: list[dict[str, Any]]) -> list[str]:
        return [
            f"a text block's 'text' is {_kind_of(b.get('text'))}, not a string: {_short(b.get('text'))}"
            for b in items
            if b.get("type") == "text" and not isinstance(b.get("text"), str)
        ]

    def _check_options(self) -> None:
        super()._check_options()  # anthropic 2.x takes no temperature: refused there
        if self.temperature is not None and self.temperature > 1:
            from ..errors import UsageError

            raise UsageError(
                f"--temperature must be between 0 and 1 with --api anthropic, not {self.temperature:g}",
                field="temperature",
            )

    def _request_kwargs(
        self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]]
    ) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"model": self.model, **self.provider.chat_request(messages)}
        kwargs["max_tokens"] = self.max_tokens if self.max_tokens is not None else ANTHROPIC_DEFAULT_MAX_TOKENS
        if tools:
            kwargs["tools"] = list(tools)
            choice = _ANTHROPIC_TOOL_CHOICE.get(self.tool_choice or "")
            if choice is not None:
                kwargs["tool_choice"] = choice
        if self.temperature is not None:
            kwargs["temperature"] = self.temperature
        return kwargs


class OpenAIResponsesClient(_ProviderClient):
    """The Responses API with the ``openai`` SDK (``--api openai-responses``)."""

    api = "openai-responses"
    endpoint = "/responses"
    provider = OPENAI_RESPONSES
    reply_key = "output"

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
                out.append(f"a message's 'content' is {_kind_of(content)}, not a list: {_short(content)}")
                continue
            for part in content:
                if not isinstance(part, dict):
                    out.append(f"a message's content part is {_kind_of(part)}, not an object: {_short(part)}")
                elif part.get("type") == "output_text" and not isinstance(part.get("text"), str):
                    out.append(f"an output_text's 'text' is {_kind_of(part.get('text'))}, not a string")
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


#: Per ``--api``: the variable naming the base URL, the base URL without one, and the variable
#: holding the key when ``--api-key-env`` is left at its default (the SDKs' own conventions).
DEFAULTS_BY_API: dict[str, tuple[str, str, str]] = {
    "openai-chat": ("OPENAI_BASE_URL", DEFAULT_BASE_URL, "OPENAI_API_KEY"),
    "openai-responses": ("OPENAI_BASE_URL", DEFAULT_BASE_URL, "OPENAI_API_KEY"),
    "anthropic": ("ANTHROPIC_BASE_URL", "https://api.anthropic.com", "ANTHROPIC_API_KEY"),
}

#: Live clients by ``--api`` (the keys drive the option's choices).
CLIENT_BY_API: dict[str, type[OpenAIChatClient]] = {
    "openai-chat": OpenAIChatClient,
    "openai-responses": OpenAIResponsesClient,
    "anthropic": AnthropicClient,
}


def client_class(api: str) -> type[OpenAIChatClient]:
    """The live client of ``api`` (``openai`` is ``openai-chat``), else a usage error."""
    from ..errors import UsageError, did_you_mean

    found = CLIENT_BY_API.get("openai-chat" if api == "openai" else api)
    if found is None:
        raise UsageError(
            f"unknown API {api!r}{did_you_mean(api, CLIENT_BY_API)}; choose from {', '.join(CLIENT_BY_API)}",
            field="api",
        )
    return found


__all__ = ["CLIENT_BY_API", "DEFAULTS_BY_API", "AnthropicClient", "OpenAIResponsesClient", "client_class"]
