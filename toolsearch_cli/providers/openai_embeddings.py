"""An OpenAI-compatible embeddings endpoint: ``POST {base_url}/embeddings`` (OpenAI, Ollama, vLLM,
llama.cpp server, TEI) through the ``openai`` SDK, for the ``embedding`` and ``hybrid`` rankers
(:class:`~toolsearch_cli.search.embed.EndpointEmbedder` turns what it returns into vectors).

Protections as the chat clients' (:mod:`.client`): the SDK is imported when the first vector is
needed; the reply body is bounded at the HTTP transport (a bigger body is refused as it arrives,
and that refusal is never retried: it would fetch the same body again); the key is registered as
a secret and never shown; every failure is one :class:`~toolsearch_cli.errors.EmbedError` line
whose server text has its control characters shown as escapes. HTTP 429 and 5xx, timeouts and
connection errors are retried (``retries`` times, exponential backoff, ``Retry-After``
honoured up to a cap), by this client rather than the SDK, which retries every transport error.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from typing import Any

from ..errors import EmbedError
from ..redaction import redact, register, register_url, shown_url
from .client import NO_KEY, retry_after

#: Retries of a request after a passing failure (429, 5xx, timeout, connection), as the SDK's default.
RETRIES = 2
#: Seconds before the first retry (doubled for each next one) when the server says no ``Retry-After``.
BACKOFF = 0.5


class EmbeddingsClient:
    """One endpoint and model: :meth:`embeddings` of a batch of texts, in order.

    ``api_key`` is sent (none: a placeholder local servers ignore); ``key_env`` names where it
    came from, for the hint of an HTTP 401; a reply body over ``max_reply_bytes`` is refused;
    ``missing_sdk`` makes the error raised when ``openai`` is not installed."""

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str | None,
        key_env: str,
        timeout: float,
        max_reply_bytes: int,
        retries: int = RETRIES,
        backoff: float = BACKOFF,
        sleep: Callable[[float], None] = time.sleep,
        missing_sdk: Callable[[ImportError], Exception] | None = None,
    ) -> None:
        try:
            import openai
        except ImportError as exc:
            raise (missing_sdk(exc) if missing_sdk is not None else exc) from None
        from ..bounded import bounded_http_client

        self.model = model
        self.key_env = key_env
        self.max_reply_bytes = max_reply_bytes
        self.retries = retries
        self.backoff = backoff
        self._sleep = sleep
        register(api_key)  # masked in every output and file from now on
        register_url(base_url)
        self.shown_url = shown_url(base_url.rstrip("/"))
        self._openai = openai
        self._client = openai.OpenAI(
            base_url=base_url,
            api_key=api_key or NO_KEY,
            timeout=timeout,
            max_retries=0,  # retried here: never a reply the transport refused
            http_client=bounded_http_client(openai, max_reply_bytes),
        )

    def embeddings(self, texts: Sequence[str]) -> list[Any]:
        """The endpoint's ``embedding`` of each text, in the order of ``texts`` (as sent: lists
        of numbers, or whatever a broken server put there, for the caller to check)."""
        openai = self._openai
        attempt = 0
        while True:
            attempt += 1
            try:
                response = self._client.embeddings.create(model=self.model, input=list(texts), encoding_format="float")
                break
            except openai.APIStatusError as exc:
                status = exc.status_code
                if (status == 429 or status >= 500) and attempt <= self.retries:
                    self._wait(attempt, retry_after(exc.response.headers))
                    continue
                raise self._error(f"HTTP {status}", exc) from None
            except openai.APIError as exc:
                from ..bounded import ReplyTooLarge, reply_refused, size_text

                refused = reply_refused(exc)
                if refused is not None:  # the same body would come again: never retried
                    said = (
                        f"sent a reply of more than {size_text(self.max_reply_bytes)}"
                        if isinstance(refused, ReplyTooLarge)
                        else refused.reason
                    )
                    raise EmbedError(
                        f"the embeddings endpoint {self.shown_url} {said}; it was not read further",
                        field="embed-base-url",
                    ) from None
                if isinstance(exc, openai.APIConnectionError) and attempt <= self.retries:  # incl. timeouts
                    self._wait(attempt, None)
                    continue
                raise self._error(type(exc).__name__, exc) from None
        data = sorted(getattr(response, "data", None) or [], key=lambda d: getattr(d, "index", 0))
        if len(data) != len(texts):
            raise EmbedError(
                f"the embeddings endpoint {self.shown_url} returned {len(data)} vectors for {len(texts)} texts",
                field="embed-base-url",
            )
        return [getattr(d, "embedding", None) for d in data]

    def _wait(self, attempt: int, asked: float | None) -> None:
        self._sleep(asked if asked is not None else self.backoff * 2 ** (attempt - 1))

    def _error(self, what: str, exc: Exception) -> EmbedError:
        from ..printable import shown  # the server's words: its control characters as visible escapes

        message = getattr(exc, "message", None) or str(exc)
        detail = shown(re.sub(r"\s+", " ", redact(str(message))).strip()[:200])
        hint = f"; check ${self.key_env} (--embed-api-key-env)" if "401" in what else ""
        return EmbedError(
            f"the embeddings endpoint {self.shown_url}/embeddings failed ({what}) for model {self.model!r}{hint}: "
            f"{detail}",
            field="embed-base-url",
        )


__all__ = ["BACKOFF", "RETRIES", "EmbeddingsClient"]
