"""What every provider's live client shares (``simulate --live``; extra ``[live]``).

A provider module (:mod:`.openai_chat`, :mod:`.openai_responses`, :mod:`.anthropic`) owns its
live client: a :class:`LiveClient` that says which official SDK it runs on, which create call it
makes, what a request of its API carries and how its reply reads back into a :class:`Completion`
(the OpenAI Chat form the simulation keeps). What is the same for every API is here:

* the SDK is imported lazily, when a live run starts, and every keyword a request will carry is
  checked against the installed SDK's create call before any request (one-line refusal);
* the reply body is bounded at the HTTP transport (:func:`~toolsearch_cli.bounded.bounded_http_client`,
  ``--max-reply-size``) and read as strict JSON here, never by the SDK's lenient reader;
* a total deadline per request (``--timeout``); the SDK's own retries are off: HTTP 429 and 5xx
  are retried here (bounded, exponential backoff, ``Retry-After`` honoured up to a cap) so that
  every attempt can be reported;
* every failure is a :class:`LiveError` with one readable line; the API key never appears in it
  (it is registered with :mod:`toolsearch_cli.redaction`, and any echo of it is masked).
"""

from __future__ import annotations

import importlib
import json
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from ..bounded import (
    JSONRefused,
    ReplyRefused,
    ReplyTooLarge,
    bounded_http_client,
    reply_refused,
    size_text,
    strict_json,
)
from ..errors import ToolsearchError, UsageError, kind_of
from ..redaction import redact, redact_data, register, register_url, shown_url
from .base import Provider

#: The longest wait a server's ``Retry-After`` header can ask for.
MAX_RETRY_AFTER = 60.0
#: Server errors retried only until the same answer (status and body) comes twice: a 500 that
#: repeats itself is the server's reply to this request. 502/503/504 are gateway or load faults.
DETERMINISTIC_STATUSES = frozenset({500, 501, 505})
#: Sent when the key variable is unset: local servers (llama.cpp, vLLM, Ollama) ignore the key.
NO_KEY = "no-key"
#: The largest reply body read from the model server (``--max-reply-size``): 4 MB is about a
#: million tokens, far beyond any model's output; a bigger body is refused as it arrives.
MAX_REPLY_BYTES = 4 * 1024 * 1024


#: The option a request keyword comes from, for the one-line error when an API has no such thing.
OPTION_OF_KEYWORD = {
    "temperature": "--temperature",
    "max_tokens": "--max-tokens",
    "max_output_tokens": "--max-tokens",
    "max_completion_tokens": "--max-tokens",
    "tool_choice": "--tool-choice",
    "system": "--system",
    "instructions": "--system",
}


class LiveError(ToolsearchError):
    """A live run cannot go on: the server is unreachable, refused the request, or answered nonsense."""


@dataclass(slots=True)
class Completion:
    """One model answer, as plain data."""

    content: str | None
    #: Tool calls as sent by the server: ``{"id", "type", "function": {"name", "arguments"}}``.
    tool_calls: list[Any]
    finish_reason: str | None
    #: The provider's token usage (``prompt_tokens``, ``completion_tokens``, ``total_tokens``), if reported.
    usage: dict[str, int] | None
    #: Seconds for the successful attempt.
    latency: float
    attempts: int = 1
    model: str | None = None
    #: ``(status, seconds waited)`` for every retried attempt.
    retries: list[tuple[int, float]] = field(default_factory=list)
    #: How the reply broke its API's shape (a string for the message, ``tool_calls`` not a list,
    #: content of the wrong type): each is reported as a ``malformed-reply`` finding, not an error.
    problems: list[str] = field(default_factory=list)


class ChatClient(Protocol):
    """Anything that answers a request made of a history in the OpenAI Chat form and the tools in
    the shape of its ``api`` (a :class:`LiveClient`, or a test's stand-in)."""

    base_url: str
    model: str

    def complete(self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]]) -> Completion: ...


class Redactor:
    """Registers ``secret`` with the one redaction facility (:mod:`toolsearch_cli.redaction`);
    calling it masks every registered secret."""

    def __init__(self, secret: str | None) -> None:
        register(secret if secret != NO_KEY else None)

    def __call__(self, text: str) -> str:
        return redact(text)


class LiveClient:
    """One provider API's live client over its official SDK; bounded retries for 429 and 5xx.

    A subclass sets the class attributes and writes :meth:`_sdk_client`, :meth:`_send`,
    :meth:`_create_function`, :meth:`_request_kwargs` and :meth:`_problems`."""

    #: The API this client speaks (a key of ``providers.PROVIDER_BY_NAME``), its provider, and the
    #: path of its create call (for messages).
    api: ClassVar[str]
    provider: ClassVar[Provider]
    endpoint: ClassVar[str]
    #: The SDK's module (also its pip name) and how it is named in messages.
    sdk: ClassVar[str]
    sdk_title: ClassVar[str]
    #: The variable naming the base URL, the base URL without one, and the variable holding the
    #: key when ``--api-key-env`` is left at its default (the SDK's own conventions).
    base_url_env: ClassVar[str]
    default_base_url: ClassVar[str]
    default_key_env: ClassVar[str]

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str | None,
        api_key_env: str | None = None,
        timeout: float = 60.0,
        temperature: float | None = None,
        tool_choice: str | None = "auto",
        retries: int = 3,
        backoff: float = 1.0,
        sleep: Callable[[float], None] = time.sleep,
        on_retry: Callable[[int, int, float], None] | None = None,
        max_tokens: int | None = None,
        max_reply_bytes: int = MAX_REPLY_BYTES,
    ) -> None:
        if max_reply_bytes < 1:
            raise LiveError(f"--max-reply-size must be at least 1 byte, not {max_reply_bytes}")
        self.max_reply_bytes = max_reply_bytes
        if timeout <= 0:
            raise LiveError(f"--timeout must be positive, not {timeout:g}")
        if retries < 0:
            raise LiveError(f"--retries must be 0 or more, not {retries}")
        if backoff < 0:
            raise LiveError(f"--retry-backoff must be 0 or more, not {backoff:g}")
        self._sdk = self._load_sdk()
        self.base_url = base_url.rstrip("/")
        register_url(self.base_url)
        self.shown_url = shown_url(self.base_url)  # for messages: no credentials from the URL
        self.model = model
        self.api_key_env = api_key_env or self.default_key_env
        self.timeout = timeout
        self.temperature = temperature
        self.tool_choice = tool_choice
        self.retries = retries
        self.max_tokens = max_tokens
        self.backoff = backoff
        self._sleep = sleep
        self._on_retry = on_retry
        self.redact = Redactor(api_key)
        self._api_key = api_key or NO_KEY
        self._client = self._new_client()
        self._check_options()

    def _load_sdk(self) -> Any:
        try:
            return importlib.import_module(self.sdk)
        except ImportError:
            asked = "--live" if self.api == "openai" else f"--api {self.api}"
            raise LiveError(
                f"{asked} needs the {self.sdk_title} SDK, which is not installed: pip install 'toolsearch-cli[live]'"
            ) from None

    def _sdk_client(self, **options: Any) -> Any:
        """The SDK's client made with ``options`` (base URL, key, timeout, no retries, the bounded
        HTTP client)."""
        raise NotImplementedError

    def _send(self, client: Any, kwargs: dict[str, Any]) -> Any:
        """One raw-response create call of the SDK: its ``http_response`` body is read by
        :meth:`_strict_body`, never parsed by the SDK."""
        raise NotImplementedError

    def _create_function(self) -> Any:
        """The SDK's create function :meth:`_send` calls (its keywords are what this API takes)."""
        raise NotImplementedError

    def _check_options(self) -> None:
        """Every keyword a request of this run will carry is one the installed SDK's create takes,
        else the one-line error of the option that asked for it, before any request (an SDK
        release that drops a parameter, as ``anthropic`` 2.x dropped ``temperature``, was a
        ``TypeError`` mid-run)."""
        import inspect

        sdk = self._sdk.__name__
        version = getattr(self._sdk, "__version__", "?")
        try:
            create = self._create_function()
        except AttributeError:  # e.g. openai before 1.66 has no Responses API
            raise LiveError(
                f"--api {self.api} needs an {sdk} SDK with this API; the installed one ({version}) "
                f"does not: pip install -U {sdk}"
            ) from None
        try:
            parameters = inspect.signature(create).parameters
        except (TypeError, ValueError):  # no signature to read: the SDK says at the call
            return
        if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
            return
        from ..model import Tool

        probe = [{"role": "system", "content": "-"}, {"role": "user", "content": "-"}]
        wanted = self._request_kwargs(probe, self.provider.tools([Tool(name="t", description="-")]))
        for keyword in wanted:
            if keyword in parameters:
                continue
            option = OPTION_OF_KEYWORD.get(keyword)
            if option is None:
                raise LiveError(
                    f"the installed {sdk} SDK ({version}) sends no {keyword!r} with --api {self.api}: "
                    f"install a release that does (pip install -U {sdk})"
                )
            raise UsageError(
                f"{option} cannot be sent with --api {self.api}: the installed {sdk} SDK ({version}) "
                f"takes no {keyword!r} for this API; leave {option} out",
                field=option.lstrip("-").replace("-", "_"),
            )

    def _new_client(self) -> Any:
        try:
            return self._sdk_client(
                base_url=self.base_url,
                api_key=self._api_key,
                timeout=self.timeout,
                max_retries=0,  # retried here, every attempt reported
                http_client=bounded_http_client(self._sdk, self.max_reply_bytes),  # --max-reply-size
            )
        except Exception as exc:  # noqa: BLE001 - e.g. an invalid URL: one line, never the key
            raise LiveError(f"cannot set up the client for {self.shown_url}: {self.redact(str(exc))}") from None

    def _create(self, kwargs: dict[str, Any]) -> Any:
        """The SDK call under a total deadline of ``timeout`` seconds. The SDK's own timeout is per
        read, so a server that trickles bytes (or streams forever) would hold the request forever:
        the call runs in a worker thread, abandoned (its connection closed) at the deadline."""
        outcome: dict[str, Any] = {}
        done = threading.Event()
        client = self._client

        def work() -> None:
            try:
                # the raw body: read below by the project's strict JSON rules, not the SDK's lenient ones
                outcome["response"] = self._send(client, kwargs)
            except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
                outcome["error"] = exc
            finally:
                done.set()

        threading.Thread(target=work, name="toolsearch-live-request", daemon=True).start()
        if not done.wait(self.timeout):
            self._client = self._new_client()  # the abandoned call keeps nothing this client needs
            try:
                client.close()  # drops the abandoned connection, which ends the worker's reads
            except Exception:  # noqa: BLE001,S110 - best effort: the worker is a daemon either way
                pass
            raise LiveError(self._timeout_message())
        if "error" in outcome:
            raise outcome["error"]
        return outcome["response"]

    def _refused_message(self, exc: ReplyRefused) -> str:
        """The one line of a reply body the transport stopped reading (over the bound, or compressed
        in a way it was not asked for)."""
        if not isinstance(exc, ReplyTooLarge):
            said = _one_line(self.redact(exc.reason))[:300]
            return f"the model server at {self.shown_url} {said}; it was not read further"
        size = f"{exc.declared:,} bytes" if exc.declared is not None else f"over {exc.limit:,} bytes"
        return (
            f"the model server at {self.shown_url} sent a reply of {size}, more than the "
            f"{size_text(exc.limit)} a reply may be (--max-reply-size); it was not read further"
        )

    def _timeout_message(self) -> str:
        return f"the model server at {self.shown_url} did not answer within {self.timeout:g}s (--timeout)"

    def _request_kwargs(
        self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]]
    ) -> dict[str, Any]:
        """The create call's keywords for a history in the OpenAI Chat form and this API's tools."""
        raise NotImplementedError

    def complete(self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]]) -> Completion:
        sdk = self._sdk
        kwargs = self._request_kwargs(messages, tools)
        waited: list[tuple[int, float]] = []
        previous: tuple[int, str] | None = None
        attempt = 0
        while True:
            attempt += 1
            start = time.perf_counter()
            try:
                response = self._create(kwargs)
            except sdk.APITimeoutError:
                raise LiveError(self._timeout_message()) from None
            except sdk.APIConnectionError as exc:
                refused = reply_refused(exc)
                if refused is not None:
                    raise LiveError(self._refused_message(refused)) from None
                raise LiveError(f"cannot reach the model server at {self.shown_url}: {_cause(exc)}") from None
            except sdk.APIStatusError as exc:
                status = exc.status_code
                answer = (status, _body_text(exc))
                if status in DETERMINISTIC_STATUSES and answer == previous:
                    # the same failure twice is the server's answer to this request, not a passing fault
                    raise LiveError(self._status_message(status, exc, attempt, repeated=True)) from None
                previous = answer
                if (status == 429 or status >= 500) and attempt <= self.retries:
                    delay = retry_after(exc.response.headers)
                    if delay is None:
                        delay = self.backoff * 2 ** (attempt - 1)
                    waited.append((status, delay))
                    if self._on_retry is not None:
                        self._on_retry(status, attempt, delay)
                    self._sleep(delay)
                    continue
                raise LiveError(self._status_message(status, exc, attempt)) from None
            except sdk.APIError as exc:  # e.g. a 200 whose body is not a completion
                raise LiveError(
                    f"the model server at {self.shown_url} sent a reply that is not a chat completion: "
                    f"{_one_line(self.redact(str(exc)))}"
                ) from None
            # the body is read by _strict_body alone (the raw response is not parsed by the SDK)
            latency = time.perf_counter() - start
            return self._completion(self._strict_body(response), latency, attempt, waited)

    def _strict_body(self, response: Any) -> Any:
        """The reply's body parsed as strict JSON (:func:`~toolsearch_cli.bounded.strict_json`): model
        output is hostile, so ``NaN``/``Infinity``, numbers that overflow, a key twice or nesting too
        deep end the run in one line instead of travelling on into transcripts and recordings."""
        try:
            return strict_json(response.http_response.content)
        except UnicodeDecodeError as exc:
            raise LiveError(
                f"the model server at {self.shown_url} sent a reply that is not UTF-8 text "
                f"({exc.reason} at byte {exc.start})"
            ) from None
        except JSONRefused as exc:
            raise LiveError(
                f"the model server at {self.shown_url} sent a reply that breaks strict JSON: "
                f"{_one_line(self.redact(exc.message))[:200]}"
            ) from None
        except ValueError as exc:  # a syntax error: e.g. a proxy's HTML page
            raise LiveError(
                f"the model server at {self.shown_url} sent a reply that cannot be read as JSON: "
                f"{_one_line(self.redact(str(exc)))[:200]}"
            ) from None

    def _completion(self, response: Any, latency: float, attempts: int, waited: list[tuple[int, float]]) -> Completion:
        """The reply's body (strict JSON, not yet redacted) read back in the OpenAI Chat form by the
        provider (:meth:`~toolsearch_cli.providers.base.Provider.chat_reply`), with how it breaks
        this API's shape as :attr:`Completion.problems` (:meth:`_problems`)."""
        data = redact_data(as_dict(response))  # a secret the model echoes never goes further
        problems = self._problems(data)
        reply = self.provider.chat_reply(data)
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

    def _problems(self, data: Any) -> list[str]:
        """How a reply breaks this API's shape, each a ``malformed-reply`` finding; a
        :class:`LiveError` when it is no reply of this API at all."""
        raise NotImplementedError

    def _status_message(self, status: int, exc: Any, attempts: int, repeated: bool = False) -> str:
        detail = _server_message(exc, self.redact)
        said = f": {detail}" if detail else ""
        tries = f" after {attempts} attempts" if attempts > 1 else ""
        if repeated:
            tries = f" twice with the same {'answer' if detail else 'empty body'} (not retried further)"
        where = f"{self.shown_url}{self.endpoint}"
        if status == 401:
            return (
                f"the model server rejected the API key (HTTP 401) at {where}; "
                f"check ${self.api_key_env} (--api-key-env){said}"
            )
        if status == 403:
            return f"the API key has no access to model {self.model!r} (HTTP 403) at {where}{said}"
        if status == 404:
            return f"not found (HTTP 404) at {where}: check --base-url and --model {self.model!r}{said}"
        if status == 429:
            return f"rate limited (HTTP 429){tries} at {where}; try again later or raise --retries{said}"
        if status >= 500:
            return f"the model server failed (HTTP {status}){tries} at {where}{said}"
        return f"the model server refused the request (HTTP {status}) at {where}{said}"


class ItemsClient(LiveClient):
    """A client of an API whose reply is a list of typed items under one key (Anthropic's
    ``content`` blocks, the Responses API's ``output`` items)."""

    #: The top-level key every reply of this API has (a body without it is not a reply of it).
    reply_key: ClassVar[str]

    def _problems(self, data: Any) -> list[str]:
        if not isinstance(data, dict) or not isinstance(data.get(self.reply_key), list):
            raise LiveError(
                f"the model server at {self.shown_url} sent a reply that is not a {self.provider.title} response"
            )
        items = data[self.reply_key]
        problems = [
            f"'{self.reply_key}' item {n} is {kind_name(item)}, not an object: {short(item)}"
            for n, item in enumerate(items)
            if not isinstance(item, dict)
        ][:5]
        return problems + self._item_problems([item for item in items if isinstance(item, dict)])[:5]

    def _item_problems(self, items: list[dict[str, Any]]) -> list[str]:
        """How the reply's items break this API's shape (text that is not a string, ...)."""
        return []


def as_dict(response: Any) -> Any:
    if isinstance(response, dict):
        return response
    for method in ("model_dump", "to_dict"):
        dump = getattr(response, method, None)
        if callable(dump):
            try:
                return dump()
            except Exception:  # noqa: BLE001,S112 - try the next way of reading it
                continue
    if isinstance(response, str | bytes):
        try:
            return strict_json(response)
        except (ValueError, UnicodeDecodeError):
            return None
    return None


def _cause(exc: BaseException) -> str:
    """The innermost reason of a connection error, e.g. ``[Errno 111] Connection refused``."""
    inner: BaseException | None = exc
    text = str(exc)
    while inner is not None:
        if str(inner):
            text = str(inner)
        inner = inner.__cause__ or inner.__context__
    lowered = text.lower()
    if "refused" in lowered:
        return "connection refused (is the server running?)"
    if "name or service not known" in lowered or "nodename nor servname" in lowered or "getaddrinfo" in lowered:
        return "unknown host"
    return _one_line(text) or "connection error"


def retry_after(headers: Any) -> float | None:
    """Seconds a ``Retry-After`` (or ``retry-after-ms``) header asks for, capped; ``None`` when it
    says nothing usable (missing, a date, ``nan``: the caller's backoff applies)."""
    import math

    try:
        for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
            raw = headers.get(name)
            if raw is not None:
                seconds = float(raw) / scale
                if math.isnan(seconds):
                    return None
                return min(max(seconds, 0.0), MAX_RETRY_AFTER)
    except (TypeError, ValueError, AttributeError):
        return None
    return None


def _server_message(exc: Any, redact: Callable[[str], str]) -> str:
    body = getattr(exc, "body", None)
    text = ""
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict):
            message = error.get("message") or error.get("detail")
            text = message if isinstance(message, str) else json.dumps(error, ensure_ascii=False)
        elif isinstance(error, str):
            text = error
        else:
            text = json.dumps(body, ensure_ascii=False)
    elif isinstance(body, str):
        text = body
    elif body is not None:
        text = json.dumps(body, ensure_ascii=False, default=str)
    else:
        try:
            text = exc.response.text
        except Exception:  # noqa: BLE001 - the body may be unreadable
            text = ""
    text = _one_line(redact(text))
    return text if len(text) <= 200 else text[:199] + "…"


def _body_text(exc: Any) -> str:
    try:
        return str(exc.response.text)
    except Exception:  # noqa: BLE001 - the body may be unreadable
        return ""


def _one_line(text: str) -> str:
    return " ".join(text.split())


def kind_name(value: Any) -> str:
    """``a string``, ``a list``, ``an object``, ``null``...: a JSON value's type in JSON's own words,
    for a malformed reply's finding (:func:`~toolsearch_cli.errors.kind_of` says mapping/nothing)."""
    if value is None:
        return "null"
    return "an object" if isinstance(value, dict) else kind_of(value)


def short(value: Any) -> str:
    """A JSON value in at most 80 characters, for a finding (model output: shown, never interpreted)."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 80 else text[:79] + "…"


__all__ = [
    "MAX_REPLY_BYTES",
    "NO_KEY",
    "OPTION_OF_KEYWORD",
    "ChatClient",
    "Completion",
    "ItemsClient",
    "LiveClient",
    "LiveError",
    "Redactor",
    "as_dict",
    "kind_name",
    "retry_after",
    "short",
]
