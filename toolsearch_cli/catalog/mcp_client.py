"""Live MCP servers as catalog sources: ``mcp+stdio:COMMAND ARGS`` and ``mcp+http(s)://HOST/PATH``.

The official ``mcp`` SDK (extra ``toolsearch-cli[mcp]``) is imported only when such a source is
used. ``tools/list`` is followed through every page. ``ALIAS=mcp+...`` names a server: the alias
is the default category of its tools and, when several servers are loaded together, the prefix
of their names (``weather__get_forecast``). ``metadata.mcp_server`` (``{name, tool}``) keeps the
server and the name it knows the tool by (outside ``metadata.mcp``, so an MCP export stays
clean). Without an alias the server's own name (from its ``initialize`` answer) is used.
``$TOOLSEARCH_MCP_TIMEOUT`` (seconds, default 30) bounds the whole exchange;
``$TOOLSEARCH_MCP_HEADERS`` gives HTTP servers their headers (a token, usually). What a server
sends is bounded (:mod:`.mcp_transport`): ``$TOOLSEARCH_MCP_MAX_MESSAGE_SIZE`` per message (16 MB),
``$TOOLSEARCH_MCP_MAX_TOOLS`` tools (100,000), a listing no larger than a catalog file may be.
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
from collections.abc import Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, Any

from .. import environment
from ..errors import CatalogError
from ..model import Tool
from ..redaction import redact, redact_data, register, shown_url
from .document import Document
from .formats import live_mcp_tools
from .lenient import mcp_settings
from .process_group import group_stopped, own_group_command
from .result import LoadResult
from .sources.live_syntax import LiveSource, parse_live_source

if TYPE_CHECKING:
    from ..environment import McpSettings

TIMEOUT_ENV = environment.MCP_TIMEOUT
HEADERS_ENV = environment.MCP_HEADERS
DEFAULT_TIMEOUT = environment.DEFAULT_MCP_TIMEOUT


def http_headers(raw: str | None = None) -> dict[str, str]:
    """Headers for HTTP servers from ``$TOOLSEARCH_MCP_HEADERS`` (``raw``, else the run's MCP
    settings): ``Name: value`` lines, or a JSON object.

    The values (tokens, usually) never appear in messages.
    """
    if raw is None:
        raw = mcp_settings().headers
    if not raw:
        return {}
    if raw.startswith("{"):
        import json

        try:
            parsed = json.loads(raw)
        except ValueError:
            parsed = None
        if not isinstance(parsed, dict) or not all(isinstance(v, str) for v in parsed.values()):
            raise CatalogError(f"${HEADERS_ENV} must be a JSON object of strings or 'Name: value' lines")
        for value in parsed.values():
            register(value)
        return {str(k): v for k, v in parsed.items()}
    headers: dict[str, str] = {}
    for number, line in enumerate(raw.splitlines(), 1):
        name, colon, value = line.partition(":")
        if not line.strip():
            continue
        if not colon or not name.strip() or " " in name.strip():
            raise CatalogError(f"${HEADERS_ENV} line {number} is not 'Name: value' (value not shown)")
        headers[name.strip()] = value.strip()
        register(value.strip())
    return headers


def timeout_seconds() -> float:
    """``$TOOLSEARCH_MCP_TIMEOUT``: from the run's MCP settings (:func:`.lenient.mcp_settings`)."""
    return mcp_settings().timeout


_warned_hosts: set[str] = set()


def _warn_clear_text(live: LiveSource, headers: dict[str, str]) -> None:
    """One line on stderr (once per host) when the headers or the URL's credentials would go to
    another machine over plain http. Not an error: a server on a trusted network may be meant."""
    from ..redaction import clear_text_warning

    credentials = shown_url(live.url) != live.url  # userinfo or a query string
    if not (headers or credentials):
        return
    what = f"${HEADERS_ENV}" if headers else "the credentials in the URL"
    message = clear_text_warning(live.url, f"{what} for {live.display}")
    if message is not None and message not in _warned_hosts:
        _warned_hosts.add(message)
        import sys

        from ..printable import shown

        print(f"warning: {shown(message)}", file=sys.stderr)


def _leaf(exc: BaseException) -> BaseException:
    """The first real error inside (possibly nested) exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def fetch_tools(
    live: LiveSource,
    timeout: float | None = None,
    settings: McpSettings | None = None,
    launch: dict[str, Any] | None = None,
) -> tuple[str | None, list[dict[str, Any]]]:
    """The server's name and every tool of its ``tools/list`` (all pages), as wire-format dicts.

    ``settings``: the bounds, headers and timeout (default: the run's, :func:`.lenient.mcp_settings`;
    pass them when calling from another thread, which does not see the run's context). ``launch``:
    a ``serve --config`` server's ``env`` and ``cwd`` (stdio) or ``headers`` (HTTP)."""
    launch = launch or {}
    try:
        import anyio
        from mcp import Client, StdioServerParameters
    except ImportError:
        raise CatalogError(
            "reading a live MCP server needs the MCP SDK: pip install 'toolsearch-cli[mcp]'", file=live.display
        ) from None
    chosen = settings if settings is not None else mcp_settings()
    limit = timeout if timeout is not None else chosen.timeout
    headers = {**http_headers(chosen.headers), **launch.get("headers", {})} if live.transport == "http" else {}
    if live.transport == "http":
        _warn_clear_text(live, headers)
    what = "the MCP server"
    pages: list[list[Any]] = []
    from .mcp_transport import (
        ListingGuard,
        ListingTooLarge,
        Meter,
        bounded_stdio_client,
        max_exchange_bytes,
        mcp_http_client,
        streamable_http,
    )

    meter = Meter(
        chosen.max_message_bytes,
        max_exchange_bytes(chosen.max_message_bytes, chosen),
        chosen.max_messages,
    )
    tools_limit = chosen.max_tools

    async def run(errlog: Any, pidfile: str | None) -> tuple[str | None, list[dict[str, Any]]]:
        async with contextlib.AsyncExitStack() as stack:
            if live.transport == "stdio":
                command = own_group_command(live.command, pidfile)
                params = StdioServerParameters(
                    command=command[0],
                    args=command[1:],
                    env={**os.environ, **launch.get("env", {})},
                    cwd=launch.get("cwd"),
                )
                server: Any = bounded_stdio_client(params, errlog, meter)
            else:
                http = await stack.enter_async_context(mcp_http_client(meter, headers, limit))
                server = streamable_http(live.url, meter, http)
            server = _sifted(server, pages)  # the raw listing: each tool is checked on its own
            if threading.current_thread() is threading.main_thread():
                return await list_all(server)  # Ctrl-C and SIGTERM reach this loop directly
            return await _unless_stopped(lambda: list_all(server))

    async def list_all(server: Any) -> tuple[str | None, list[dict[str, Any]]]:
        tools: list[dict[str, Any]] = []
        with anyio.fail_after(limit):
            async with Client(server, read_timeout_seconds=limit, cache=None) as client:
                info = client.server_info
                cursor: str | None = None
                guard = ListingGuard(meter, tools_limit)  # tools, pages, bytes; no cursor twice
                while True:
                    mark = len(pages)
                    page = await client.list_tools(cursor=cursor)
                    if len(pages) > mark:  # the tools as sent (the SDK saw none of them)
                        tools.extend(tool for sent in pages[mark:] for tool in sent)
                        del pages[mark:]
                    else:
                        tools.extend(t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in page.tools)
                    cursor = guard.next_page(len(tools), page.next_cursor)
                    if cursor is None:
                        return (info.name if info else None), tools

    import tempfile

    with (
        tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace") as errlog,
        _sdk_logs() as logged,
        group_stopped(live) as pidfile,
    ):
        try:
            return anyio.run(run, errlog, pidfile)
        except BaseException as exc:  # noqa: BLE001 - every failure becomes one line naming the server
            if isinstance(exc, KeyboardInterrupt | SystemExit):
                raise
            leaf = _leaf(exc)
            errlog.seek(0)
            said = _last_line(errlog.read())
            if meter.refused is not None:  # whatever the SDK made of it, the cause is the size
                problem = meter.refused
            elif isinstance(leaf, ListingTooLarge):
                problem = f"returned invalid data: {leaf}" if leaf.invalid else str(leaf)
            elif "Server-sent event exceeded" in str(leaf):  # the SDK's own bound, set to ours
                problem = meter.refuse()
            elif isinstance(leaf, TimeoutError):
                problem = f"did not list its tools within {limit:g} s (set ${TIMEOUT_ENV} to wait longer)"
                problem += meter.still_sending()
            elif isinstance(leaf, FileNotFoundError | PermissionError):
                problem = f"cannot be started: {leaf.strerror or leaf}: {live.command[0]}"
            elif logged:
                problem = f"returned invalid data: {logged[0]}"
            elif live.transport == "stdio" and "connection closed" in str(leaf).lower():
                problem = "exited (or closed its output) before listing its tools"
            elif live.transport == "stdio":
                problem = f"failed: {_describe(leaf)}"
            else:
                problem = f"cannot be reached or failed: {_describe(leaf)}"
                if not headers:
                    problem += f" (if it needs a token, set ${HEADERS_ENV})"
            if said and not isinstance(leaf, FileNotFoundError):
                problem += f"; its stderr ends with: {said}"
            if live.url:  # never echo credentials from the URL or the headers
                problem = problem.replace(live.url, live.display[len("mcp+") :])
            for value in headers.values():
                problem = problem.replace(value, "***") if value else problem
            problem = _clip(redact(problem), _PROBLEM_WIDTH)  # masked first: a cut secret would not match
            raise CatalogError(f"{what} {problem}", file=live.display) from exc


@contextlib.asynccontextmanager
async def _sifted(transport: Any, pages: list[list[Any]]) -> Any:
    """``transport`` with the tools of every ``tools/list`` answer taken out (into ``pages``) before
    the SDK reads it: the SDK validates a listing as a whole, and one tool without ``type`` in its
    schema (GitLab's server) sank all of them. toolsearch checks each tool on its own instead
    (:func:`formats.live_mcp_tools`)."""
    async with transport as (read, write):
        listing: set[Any] = set()
        yield _SiftingReader(read, listing, pages), _NotingWriter(write, listing)


class _NotingWriter:
    """A transport's write stream that notes the ids of ``tools/list`` requests."""

    def __init__(self, inner: Any, listing: set[Any]) -> None:
        self._inner, self._listing = inner, listing

    async def send(self, item: Any, /) -> None:
        message: Any = getattr(item, "message", None)
        if getattr(message, "method", None) == "tools/list" and hasattr(message, "id"):
            self._listing.add(message.id)
        await self._inner.send(item)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def __aenter__(self) -> _NotingWriter:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> Any:
        return await self._inner.__aexit__(*exc)


class _SiftingReader:
    """A transport's read stream that takes the tools out of ``tools/list`` answers (into ``pages``)."""

    def __init__(self, inner: Any, listing: set[Any], pages: list[list[Any]]) -> None:
        self._inner, self._listing, self._pages = inner, listing, pages

    def _sift(self, item: Any) -> Any:
        message: Any = getattr(item, "message", None)
        result = getattr(message, "result", None)
        if getattr(message, "id", None) in self._listing and isinstance(result, dict):
            self._listing.discard(message.id)
            tools = result.get("tools")
            if isinstance(tools, list):  # anything else: the SDK says what is wrong with it
                import dataclasses

                self._pages.append(tools)
                message = message.model_copy(update={"result": {**result, "tools": []}})
                item = dataclasses.replace(item, message=message)
        return item

    async def receive(self) -> Any:
        return self._sift(await self._inner.receive())

    def __aiter__(self) -> _SiftingReader:
        return self

    async def __anext__(self) -> Any:
        return self._sift(await self._inner.__anext__())

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def __aenter__(self) -> _SiftingReader:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> Any:
        return await self._inner.__aexit__(*exc)


_LOG_LOCK = threading.Lock()
_LOG_USERS = 0
_LOG_SAVED: list[tuple[Any, bool]] = []
_THREAD_LOGS = threading.local()


_HANDLER: Any = None


def _collecting_handler() -> Any:
    """The log handler that sends the SDK's records to the list of the thread that is reading a
    server (made on first use: ``logging`` is not imported by commands that start no server)."""
    global _HANDLER
    if _HANDLER is None:
        import logging

        class Collect(logging.Handler):
            def emit(self, record: logging.LogRecord) -> None:
                collected = getattr(_THREAD_LOGS, "collected", None)
                if collected is not None and record.levelno >= logging.WARNING:
                    detail = record.exc_info[1] if record.exc_info else None
                    first = str(detail).splitlines()[0] if detail is not None and str(detail) else ""
                    collected.append(" ".join(f"{record.getMessage()} {first}".split()))

        _HANDLER = Collect()
    return _HANDLER


@contextlib.contextmanager
def _sdk_logs_shared() -> Iterator[None]:
    """Keep the SDK's log records off stderr while any thread reads a server (counted, so threads
    reading servers at once install the handler once)."""
    import logging

    global _LOG_USERS
    with _LOG_LOCK:
        if _LOG_USERS == 0:
            for name in ("mcp", "httpx", "httpx2", "httpcore"):
                logger = logging.getLogger(name)
                _LOG_SAVED.append((logger, logger.propagate))
                logger.addHandler(_collecting_handler())
                logger.propagate = False
        _LOG_USERS += 1
    try:
        yield
    finally:
        with _LOG_LOCK:
            _LOG_USERS -= 1
            if _LOG_USERS == 0:
                for logger, propagate in _LOG_SAVED:
                    logger.removeHandler(_HANDLER)
                    logger.propagate = propagate
                _LOG_SAVED.clear()


@contextlib.contextmanager
def _sdk_logs() -> Iterator[list[str]]:
    """The SDK's log records (tracebacks of bad messages) of this thread, kept off stderr; collected for the error."""
    collected: list[str] = []
    _THREAD_LOGS.collected = collected
    try:
        with _sdk_logs_shared():
            yield collected
    finally:
        _THREAD_LOGS.collected = None


#: Set when the main thread is interrupted (Ctrl-C, SIGTERM) while worker threads read servers.
_STOP = threading.Event()


class _Stopped(Exception):
    pass


async def _unless_stopped(work: Callable[[], Awaitable[Any]]) -> Any:
    """``await work()`` in a worker thread, cancelled (so its server is shut down) once
    :data:`_STOP` is set: signals reach only the main thread, which sets it."""
    import anyio

    result: list[Any] = []
    async with anyio.create_task_group() as group:

        async def watch() -> None:
            while not _STOP.is_set():
                await anyio.sleep(0.05)
            raise _Stopped("interrupted")

        async def do() -> None:
            result.append(await work())
            group.cancel_scope.cancel()

        group.start_soon(watch)
        group.start_soon(do)
    return result[0]


#: What a failing server's error line may hold: a pydantic error of a whole listing is 2 KB.
_PROBLEM_WIDTH = 280


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _describe(exc: BaseException) -> str:
    errors = getattr(exc, "errors", None)
    if type(exc).__name__ == "ValidationError" and callable(errors):  # pydantic's: count and the first
        try:
            found = errors(include_url=False, include_input=False)
        except Exception:  # noqa: BLE001 - any trouble: say it the plain way below
            found = []
        if found:
            where = ".".join(str(p) for p in found[0].get("loc", ())) or "the answer"
            more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
            return f"invalid answer at {where}: {found[0].get('msg', '')}{more}"
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def load_live_source(source: str, *, prefix: bool = False) -> LoadResult:
    """Tools of a live MCP server (see module doc for aliases and prefixes); the live-catalog cache
    and sanitised names follow :func:`lenient.settings`."""
    fetched = fetch_live_sources([source])[source]
    if isinstance(fetched, CatalogError):
        raise fetched
    return tools_from_live(source, *fetched, prefix=prefix)


def tools_from_live(
    source: str, server_name: str | None, raw_tools: list[dict[str, Any]], *, prefix: bool = False
) -> LoadResult:
    """Build the tools of a server's ``tools/list`` answer: alias as category (and name prefix),
    ``metadata.mcp_server``, and provider-valid names when :func:`lenient.settings` asks for them."""
    from .lenient import settings
    from .names import provider_name, unique_name

    live = parse_live_source(source)
    alias = live.alias or _alias_from(server_name, live)
    doc = Document({"tools": redact_data(raw_tools)}, live.display)  # a credential the server echoes stays hidden
    listed = live_mcp_tools(doc, default_category=alias)  # a bad tool is a warning, not the end
    sanitize = settings().sanitize_names
    out: list[Tool] = []
    renamed: dict[str, str] = {}
    taken: set[str] = set()
    for tool in listed.tools:
        name = f"{alias}__{tool.name}" if prefix else tool.name
        if sanitize:
            name = unique_name(provider_name(name, "tool", squeeze=False), taken)
        taken.add(name)
        renamed[tool.name] = name
        metadata = {**tool.metadata, "mcp_server": {"name": alias, "tool": tool.name}}
        out.append(tool.copy_with(name=name, metadata=metadata))
    return LoadResult(tools=out, resident=[renamed.get(n, n) for n in listed.resident])


#: Live servers started at once (``$TOOLSEARCH_MCP_CONCURRENCY``); each is a process or a connection.
CONCURRENCY_ENV = environment.MCP_CONCURRENCY
DEFAULT_CONCURRENCY = environment.DEFAULT_MCP_CONCURRENCY

Fetched = tuple[str | None, list[dict[str, Any]]]


def concurrency() -> int:
    """``$TOOLSEARCH_MCP_CONCURRENCY``: from the run's MCP settings."""
    return mcp_settings().concurrency


def fetch_live_sources(
    sources: list[str],
    *,
    ttl: float | None = None,
    refresh: bool | None = None,
    workers: int | None = None,
    launch: dict[str, dict[str, Any]] | None = None,
) -> dict[str, Fetched | CatalogError]:
    """Each live source's (server name, raw tools), or the error it failed with.

    Servers are asked concurrently (at most ``workers``, default :func:`concurrency`, at once).
    With a ``ttl`` (seconds; default from :func:`lenient.settings`), an answer younger than that
    is read from the live-catalog cache instead (unless ``refresh``) and new answers are stored.
    Only the servers named in ``sources`` are ever started.
    """
    from . import live_cache
    from .lenient import settings

    ttl = settings().live_ttl if ttl is None else ttl
    refresh = settings().refresh if refresh is None else refresh
    out: dict[str, Fetched | CatalogError] = {}
    todo: list[str] = []
    for source in dict.fromkeys(sources):
        hit = live_cache.load(source, ttl) if ttl > 0 and not refresh else None
        if hit is not None:
            out[source] = hit
        else:
            todo.append(source)

    mcp = mcp_settings()  # read here: the worker threads below do not see this run's context

    def one(source: str) -> Fetched | CatalogError:
        try:
            return fetch_tools(parse_live_source(source), settings=mcp, launch=(launch or {}).get(source))
        except CatalogError as exc:
            return exc

    limit = workers or mcp.concurrency
    if len(todo) <= 1 or limit == 1:
        results = [one(s) for s in todo]
    else:
        from concurrent.futures import ThreadPoolExecutor

        _STOP.clear()
        with _sdk_logs_shared(), ThreadPoolExecutor(max_workers=min(limit, len(todo))) as pool:
            try:
                results = list(pool.map(one, todo))
            except BaseException:
                _STOP.set()  # Ctrl-C or SIGTERM: every worker stops its server before the pool closes
                raise
    for source, result in zip(todo, results, strict=True):
        out[source] = result
        if ttl > 0 and not isinstance(result, CatalogError):
            live_cache.store(source, result[0], redact_data(result[1]))  # no echoed credential on disk
    return {s: out[s] for s in dict.fromkeys(sources)}


def _alias_from(server_name: str | None, live: LiveSource) -> str:
    if server_name and server_name.strip():
        base = server_name
    elif live.transport == "stdio":
        script = next((a for a in reversed(live.command) if not a.startswith("-")), live.command[0])
        base = os.path.splitext(os.path.basename(script))[0]
    else:
        base = re.sub(r"^https?://", "", live.url).split("/")[0]
    return re.sub(r"[^A-Za-z0-9_-]+", "_", base).strip("_") or "mcp"


__all__ = [
    "fetch_live_sources",
    "fetch_tools",
    "load_live_source",
    "tools_from_live",
]
