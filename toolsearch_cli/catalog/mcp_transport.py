"""Bounded transports to MCP servers: what a server sends is data, and a hostile one is bounded.

The SDK's transports read a message whole before looking at it: its stdio client joins a line
of any length (and joins it again for every 64 KB read, so a long line also costs time that grows
with its square), and its HTTP client reads a JSON body of any length (an endless one filled
2 GB in a minute). toolsearch gives the SDK's client:

* :func:`bounded_stdio_client`: the SDK's own process start and stop (its own session, the
  spec's shutdown sequence), with a reader that refuses a line longer than the bound as it
  arrives;
* :func:`mcp_http_client`: an ``httpx2.AsyncClient`` whose bodies are counted against the
  bound as they arrive (:class:`~toolsearch_cli.bounded.BodyBound`, the bound of model replies
  too); event streams are bounded per event by the SDK (``max_sse_event_size``, set to the same
  bound); compressed bodies are not asked for, and refused when sent anyway (a gzip bomb);
* :class:`ListingGuard`: a ``tools/list`` of at most :func:`max_tools` tools, :data:`MAX_PAGES`
  pages and :func:`max_listing_bytes` bytes, with no cursor twice.

An *exchange* is what a server sends while a request waits for its answer: over HTTP, one
event stream (an answer's, or the server's own stream); over stdio, what comes between two
awaited answers. Endless small messages (notifications, the server's own requests, answers to
ids nobody asked, keep-alive comments) are bounded per exchange: at most
:func:`max_exchange_messages` messages (``$TOOLSEARCH_MCP_MAX_MESSAGES``, default 10,000) and
:func:`max_exchange_bytes` bytes (``$TOOLSEARCH_MCP_MAX_EXCHANGE_SIZE``, default what a catalog
file may be, 64 MB). A body or line trickled a byte at a time is bounded by time
(``$TOOLSEARCH_MCP_TIMEOUT``); the meter tells how much of it had arrived (:attr:`Meter.arriving`).

Each connection has a :class:`Meter`: bytes received, and the reason of the first message
refused for its size, which the callers put in their one-line error.
``$TOOLSEARCH_MCP_MAX_MESSAGE_SIZE`` (default 16 MB) and ``$TOOLSEARCH_MCP_MAX_TOOLS`` (default
100,000) change the bounds; time stays bounded by ``$TOOLSEARCH_MCP_TIMEOUT``.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .. import environment
from ..bounded import MAX_INPUT_BYTES, BodyBound, ReplyTooLarge, size_text
from .lenient import mcp_settings

if TYPE_CHECKING:
    from ..environment import McpSettings

MAX_MESSAGE_ENV = environment.MCP_MAX_MESSAGE_SIZE
MAX_TOOLS_ENV = environment.MCP_MAX_TOOLS
MAX_EXCHANGE_ENV = environment.MCP_MAX_EXCHANGE_SIZE
MAX_MESSAGES_ENV = environment.MCP_MAX_MESSAGES
#: The largest message (a stdio line, an HTTP body, an event) read from an MCP server. A real
#: ``tools/list`` page is a few hundred KB (GitHub's server: 100 tools); a tool result that big
#: is beyond any model's context already.
DEFAULT_MAX_MESSAGE_BYTES = environment.DEFAULT_MCP_MAX_MESSAGE_BYTES
#: The most tools one server may list (the largest real servers list a few hundred).
DEFAULT_MAX_TOOLS = environment.DEFAULT_MCP_MAX_TOOLS
#: A tools/list that has more pages than this is the server's fault (never cut silently).
MAX_PAGES = 10_000
#: The most messages a server may send in one exchange (see the module's doc). A tool call that
#: reports progress every second for an hour sends 3,600; a hostile stream of small events ends
#: here in seconds instead of at the timeout.
DEFAULT_MAX_MESSAGES = environment.DEFAULT_MCP_MAX_MESSAGES


def max_message_bytes() -> int:
    """``$TOOLSEARCH_MCP_MAX_MESSAGE_SIZE`` (``16MB``, ``512KB``, bytes), or the default: from the
    run's MCP settings (:func:`.lenient.mcp_settings`), as the bounds below."""
    return mcp_settings().max_message_bytes


def max_tools() -> int:
    """``$TOOLSEARCH_MCP_MAX_TOOLS``, or the default."""
    return mcp_settings().max_tools


def max_exchange_messages() -> int:
    """``$TOOLSEARCH_MCP_MAX_MESSAGES``, or the default."""
    return mcp_settings().max_messages


def max_exchange_bytes(message_limit: int, settings: McpSettings | None = None) -> int:
    """``$TOOLSEARCH_MCP_MAX_EXCHANGE_SIZE`` (of ``settings``, else of the run's MCP settings), or
    what a whole listing may be (:func:`max_listing_bytes`)."""
    given = (settings if settings is not None else mcp_settings()).max_exchange_bytes
    return given if given is not None else max_listing_bytes(message_limit)


def max_listing_bytes(message_limit: int) -> int:
    """The most bytes a whole ``tools/list`` (every page) may take: what a catalog file may
    (:data:`~toolsearch_cli.bounded.MAX_INPUT_BYTES`), or one message when that bound is set higher."""
    return max(MAX_INPUT_BYTES, message_limit)


@dataclass
class Meter:
    """One connection's bounds and tally: bytes received, and the messages refused for their size
    (``refusals``; ``refused``: the reason of the last, in words; ``ended``: the connection was
    closed because of one, as a stdio line over the bound closes it).

    ``limit`` bounds a message; ``exchange_bytes`` and ``exchange_messages`` an exchange (default:
    from the environment). ``arriving``: bytes of a message begun and not finished (a trickle);
    ``unanswered``: messages of the current exchange that were not the answer awaited."""

    limit: int
    exchange_bytes: int = 0
    exchange_messages: int = 0
    received: int = 0
    refusals: int = 0
    refused: str | None = None
    ended: bool = False
    arriving: int = 0
    unanswered: int = 0
    _awaited: set[Any] = field(default_factory=set)
    _exchange_start: int = 0

    def __post_init__(self) -> None:
        self.exchange_bytes = self.exchange_bytes or max_exchange_bytes(self.limit)
        self.exchange_messages = self.exchange_messages or max_exchange_messages()

    def exchange_over(self, size: int, messages: int, what: str = "messages") -> str | None:
        """The reason, counted as a refusal, when an exchange of ``size`` bytes and ``messages``
        messages (``what``: "events" of an event stream) is over its bounds; ``None`` while it is
        within them."""
        if size > self.exchange_bytes:
            told = f"sent more than {size_text(self.exchange_bytes)} (${MAX_EXCHANGE_ENV})"
        elif messages > self.exchange_messages:
            told = f"sent more than {self.exchange_messages:,} {what} (${MAX_MESSAGES_ENV})"
        else:
            return None
        self.refusals += 1
        self.refused = f"{told} without the answer a request waited for; it was not read further"
        return self.refused

    # stdio: one stream for every request, so an exchange ends at each awaited answer

    def sent(self, message: Any) -> None:
        """Note a message sent to the server: a request's answer is now awaited."""
        from mcp_types import JSONRPCRequest

        if isinstance(message, JSONRPCRequest):
            self._awaited.add(message.id)

    def heard(self, message: Any) -> str | None:
        """Count a message read (a parsed line): an awaited answer starts a new exchange; the
        reason of a refusal when the exchange is over its bounds."""
        from mcp_types import JSONRPCError, JSONRPCResponse

        if isinstance(message, JSONRPCResponse | JSONRPCError) and message.id in self._awaited:
            self._awaited.discard(message.id)
            self._exchange_start = self.received
            self.unanswered = 0
            return None
        self.unanswered += 1
        return self.exchange_over(self.received - self._exchange_start, self.unanswered)

    def exchange_size(self) -> int:
        """Bytes read (over stdio) since the last awaited answer."""
        return self.received - self._exchange_start

    def still_sending(self) -> str:
        """What the server was doing when a deadline passed, for the error: trickling a message, or
        sending others ("" when neither: it said nothing)."""
        if self.arriving:
            return f"; it was still sending a message, {self.arriving:,} bytes of it so far"
        if self.unanswered:
            return f"; it sent {self.unanswered:,} other messages (or events) meanwhile"
        return ""

    def refuse(self, size: int | None = None) -> str:
        """Count a message over the bound; the reason, in words."""
        told = f"a message of {size:,} bytes, more than" if size is not None else "a message larger than"
        self.refusals += 1
        self.refused = (
            f"sent {told} the {size_text(self.limit)} a message may be (${MAX_MESSAGE_ENV}); it was not read further"
        )
        return self.refused

    def refused_since(self, mark: int) -> str | None:
        """The reason of a refusal after ``mark`` (a value of ``refusals``), if there was one."""
        return self.refused if self.refusals > mark else None


class ListingTooLarge(Exception):
    """A ``tools/list`` past one of the bounds of :class:`ListingGuard`; ``invalid``: a protocol
    fault (a cursor twice, endless pages) rather than a listing too large. The message follows
    "the server"."""

    def __init__(self, message: str, *, invalid: bool = False) -> None:
        super().__init__(message)
        self.invalid = invalid


class ListingGuard:
    """The bounds of one ``tools/list``, checked after every page (:meth:`next_page`)."""

    def __init__(self, meter: Meter | None, tools_limit: int | None = None) -> None:
        self.meter = meter
        self.tools_limit = tools_limit if tools_limit is not None else max_tools()
        self.bytes_limit = max_listing_bytes(meter.limit) if meter is not None else None
        self.start = meter.received if meter is not None else 0
        self.pages = 0
        self._seen: set[bytes] = set()  # digests: a hostile cursor may be megabytes long

    def next_page(self, tools: int, cursor: str | None) -> str | None:
        """After a page, with ``tools`` listed so far: the cursor to ask for next (``None``: done)."""
        self.pages += 1
        if tools > self.tools_limit:
            raise ListingTooLarge(
                f"listed more than {self.tools_limit:,} tools in tools/list (set ${MAX_TOOLS_ENV} to allow more)"
            )
        if self.meter is not None and self.bytes_limit is not None:
            taken = self.meter.received - self.start
            if taken > self.bytes_limit:
                raise ListingTooLarge(
                    f"sent more than {size_text(self.bytes_limit)} of tools/list pages ({tools:,} tools in "
                    f"{self.pages:,} pages; at most what a catalog file may be)"
                )
        if not cursor:
            return None
        digest = hashlib.sha256(cursor.encode("utf-8", "surrogatepass")).digest()
        if digest in self._seen:
            shown = cursor if len(cursor) <= 40 else cursor[:39] + "…"
            raise ListingTooLarge(f"tools/list returned the cursor {shown!r} twice", invalid=True)
        self._seen.add(digest)
        if self.pages >= MAX_PAGES:  # never cut a listing silently: an endless one is the server's fault
            raise ListingTooLarge(
                f"tools/list still had more pages after {MAX_PAGES:,} pages ({tools:,} tools so far)", invalid=True
            )
        return cursor


# ---------------------------------------------------------------------------------- stdio


@contextlib.asynccontextmanager
async def bounded_stdio_client(server: Any, errlog: Any, meter: Meter) -> AsyncIterator[Any]:
    """The SDK's ``stdio_client`` with every stdout line bounded by ``meter.limit`` bytes.

    The process is started and stopped by the SDK's own functions; only the reading differs: a
    line over the bound is refused as it arrives (``meter.refused`` says so) and the connection
    ends, so the pending request fails at once instead of at the timeout."""
    import anyio
    import anyio.lowlevel
    from mcp.client import stdio as sdk
    from mcp.shared.message import SessionMessage

    command = await sdk._get_executable_command(server.command)
    process = await sdk._create_platform_compatible_process(
        command=command,
        args=server.args,
        env=sdk.get_default_environment() | (server.env or {}),
        errlog=errlog,
        cwd=server.cwd,
    )
    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)
    writer_done = anyio.Event()
    limit = meter.limit

    async def pump() -> None:
        assert process.stdout is not None
        line = bytearray()
        async for chunk in process.stdout:
            meter.received += len(chunk)
            start = 0
            while True:
                end = chunk.find(b"\n", start)
                line += chunk[start:] if end < 0 else chunk[start:end]
                if len(line) > limit:
                    meter.refuse()
                    meter.ended = True
                    return  # the read stream closes: the session sees the connection end
                if end < 0:
                    break
                message = _parse_line(bytes(line), server.encoding, server.encoding_error_handler)
                line.clear()
                start = end + 1
                if meter.heard(getattr(message, "message", None)) is not None:  # endless chatter
                    meter.ended = True
                    return
                await read_writer.send(message)
            meter.arriving = len(line)
            if meter.exchange_over(meter.exchange_size(), 0) is not None:  # endless chatter, in bytes
                meter.ended = True
                return

    async def stdout_reader() -> None:
        try:
            async with read_writer:
                await pump()
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, ConnectionError):
            pass  # shutdown closed the pipe or the session, or the server did: the session sees the end
        finally:  # once the session was told: keep a server that still writes from blocking until stopped
            await sdk._drain_stdout(process)

    async def stdin_writer() -> None:
        assert process.stdin is not None
        try:
            async with write_reader:
                async for session_message in write_reader:
                    meter.sent(session_message.message)
                    json = session_message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    data = (json + "\n").encode(server.encoding, errors=server.encoding_error_handler)
                    await process.stdin.send(data)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            await read_writer.aclose()
        finally:
            writer_done.set()

    async with anyio.create_task_group() as group:
        group.start_soon(stdout_reader)
        group.start_soon(stdin_writer)
        try:
            yield read_stream, write_stream
        finally:
            with anyio.CancelScope(shield=True):  # the server is stopped even when the caller is cancelled
                read_stream.close()
                write_stream.close()
                with anyio.move_on_after(0.5):
                    await writer_done.wait()
                await sdk._stop_server_process(process)
                for stream in (read_stream, write_stream, read_writer, write_reader):
                    await stream.aclose()
                await anyio.lowlevel.checkpoint()
            group.cancel_scope.cancel()


def _parse_line(line: bytes, encoding: str, errors: str) -> Any:
    """One JSON-RPC message, or the error the session is handed instead (the SDK's own parse,
    which logs a bad line: the caller's one-line error quotes that)."""
    from mcp.client import stdio as sdk

    try:
        text = line.decode(encoding, errors)
    except UnicodeDecodeError as exc:
        import logging

        logging.getLogger(sdk.__name__).exception("Failed to decode a line from the server")
        return exc
    return sdk._parse_line(text)


# ---------------------------------------------------------------------------------- HTTP


def mcp_http_client(meter: Meter, headers: dict[str, str] | None = None, timeout: float | None = None) -> Any:
    """The HTTP client of MCP connections: an ``httpx2.AsyncClient`` for the SDK's streamable
    HTTP transport (the SDK's own timeouts unless ``timeout``) whose JSON bodies are bounded by
    ``meter.limit`` bytes and event streams by the bounds of an exchange. (Model providers'
    clients are bounded by :func:`toolsearch_cli.bounded.bounded_http_client`.)

    A JSON body over the bound fails as it is read with an ``httpx2.StreamError``, which the SDK
    turns into an error answer to the request it answered: the connection stays usable.
    """
    import httpx2

    class BodyTooLarge(httpx2.StreamError):
        pass

    class StreamTooLong(httpx2.SSEError):  # an SSEError: the SDK ends the request with it, no reconnecting
        pass

    class Bounded(httpx2.AsyncByteStream):
        def __init__(self, inner: Any, declared: str | None, encoded: bool, events: bool) -> None:
            self._inner, self._declared, self._encoded, self._events = inner, declared, encoded, events

        async def __aiter__(self) -> AsyncIterator[bytes]:
            try:
                bound = None if self._events else BodyBound(meter.limit, self._declared)
            except ReplyTooLarge as over:
                raise BodyTooLarge(meter.refuse(over.declared)) from over
            if self._encoded:  # not asked for: its decoded size is unknown until decoded (a gzip bomb)
                meter.refusals += 1
                meter.refused = "sent a compressed body though none was asked for (Accept-Encoding: identity)"
                raise BodyTooLarge(meter.refused)
            events = EventCounter() if self._events else None  # each event bounded by the SDK; these, the stream
            size = 0
            async for chunk in self._inner:
                meter.received += len(chunk)
                size += len(chunk)
                if bound is not None:
                    meter.arriving = size
                    try:
                        bound.add(len(chunk))
                    except ReplyTooLarge as over:
                        raise BodyTooLarge(meter.refuse()) from over
                elif events is not None:
                    meter.unanswered = events.add(chunk)
                    refused = meter.exchange_over(size, events.count, "events")
                    if refused is not None:
                        raise StreamTooLong(refused)
                yield chunk
            if bound is not None:  # (not when cut short: a timeout's message tells how much had come)
                meter.arriving = 0

        async def aclose(self) -> None:
            await self._inner.aclose()

    class Client(httpx2.AsyncClient):  # type: ignore[misc]
        async def send(self, request: Any, **kwargs: Any) -> Any:
            response = await super().send(request, **kwargs)
            kind = response.headers.get("content-type", "").partition(";")[0].strip().lower()
            encoding = response.headers.get("content-encoding", "identity").strip().lower()
            response.stream = Bounded(
                response.stream,
                response.headers.get("content-length"),
                encoded=encoding not in ("", "identity"),
                events=kind == "text/event-stream",
            )
            return response

    from mcp.shared._httpx_utils import MCP_DEFAULT_SSE_READ_TIMEOUT, MCP_DEFAULT_TIMEOUT

    return Client(
        headers={**(headers or {}), "Accept-Encoding": "identity"},
        timeout=httpx2.Timeout(timeout)
        if timeout
        else httpx2.Timeout(MCP_DEFAULT_TIMEOUT, read=MCP_DEFAULT_SSE_READ_TIMEOUT),
    )


class EventCounter:
    """The events of an event stream so far, counted in its bytes as they arrive: each blank line
    ends one (comments and empty events too: each is work for the reader), whatever the line
    endings (LF, CRLF, CR) and wherever the chunks are cut."""

    __slots__ = ("count", "_tail")

    def __init__(self) -> None:
        self.count = 0
        self._tail = b""  # the line endings that ended the last chunk, as LFs (b"", b"\n", b"\r")

    def add(self, chunk: bytes) -> int:
        """Count the events ``chunk`` ends; the count so far."""
        if not chunk:
            return self.count
        if self._tail == b"\r" and chunk[:1] == b"\n":
            chunk = chunk[1:]  # the LF of a CRLF cut in two
        text = chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        if not text:
            return self.count
        if self._tail and text[:1] == b"\n":
            self.count += 1  # the last chunk ended a line, this one starts with an empty line
        self.count += text.count(b"\n\n")
        self._tail = (b"\r" if chunk.endswith(b"\r") else b"\n") if text.endswith(b"\n") else b""
        return self.count


def streamable_http(url: str, meter: Meter, http: Any) -> Any:
    """The SDK's streamable HTTP transport over ``http`` (:func:`mcp_http_client`), each event
    of its event streams bounded like a body."""
    from mcp.client.streamable_http import streamable_http_client

    return streamable_http_client(url, http_client=http, max_sse_event_size=meter.limit)
