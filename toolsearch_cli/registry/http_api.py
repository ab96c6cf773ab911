"""The registry's HTTP API (``toolsearch registry serve --http HOST:PORT --db URL``), on Starlette.

Routes (the OpenAPI document, :file:`openapi.json` beside this module, is served at ``/openapi.json``)::

    GET  /healthz                                   the database answers (no token)
    GET  /openapi.json                              the API's description (no token)
    GET  /v1/namespaces/{namespace}                 the catalog (read)   ETag, If-None-Match -> 304
    PUT  /v1/namespaces/{namespace}                 push a catalog (push) If-Match -> 412, expect_version -> 409
    GET  /v1/namespaces/{namespace}/-/search?q=     ranked as `toolsearch search` ranks (read)
    GET  /v1/namespaces/{namespace}/-/changes?since=V&wait=S   long poll: what changed after V (read)
    GET  /v1/namespaces/{namespace}/-/events        server-sent events, one per new version (read)

A namespace may hold ``/``; the ``/-/`` segment starts an action, so a namespace with a path
segment ``-`` cannot be named over HTTP. Each request names a bearer token
(``Authorization: Bearer tsr_…``, :mod:`.tokens`): none is 401, one that does not open the
namespace for the action (unknown, revoked, another namespace's, a read token pushing) is 403.

Reads take one ``REPEATABLE READ READ ONLY`` snapshot (a reader sees one version, never a mix);
the catalog's body is its stored rows joined, not parsed again, and kept in memory per
(namespace, version, digest). A search ranks a catalog decoded once per version with
:func:`toolsearch_cli.search_report.search_catalog`. Waiting requests (long polls, event streams)
wake on the registry's ``NOTIFY`` (one listening connection) and poll the version every
``poll_interval`` seconds (a standby gets no notifications). Every database call runs on a
worker thread over a small pool of connections, each with a statement timeout.

TLS is left to a reverse proxy in front (see the how-to guide); the server itself speaks HTTP.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import threading
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, replace
from importlib import resources
from typing import TYPE_CHECKING, Any

from ..errors import CatalogError, ToolsearchError, UsageError
from ..model import Catalog
from . import codec, tokens
from .source import RegistrySource, check_namespace, parse_registry_source
from .store import CHANNEL, PushConflict, RegistryError, _read_only, _reason, driver

if TYPE_CHECKING:
    import psycopg
    from starlette.requests import Request
    from starlette.responses import Response

API_PREFIX = "/v1/namespaces/"
VERSION_HEADER = "X-Toolsearch-Version"
#: The most seconds a long poll may wait (``wait=``), and its default.
MAX_WAIT = 60.0
DEFAULT_WAIT = 25.0
#: Seconds between heartbeats of an event stream, and the longest a stream stays open.
HEARTBEAT = 15.0
STREAM_LIFETIME = 3600.0
#: Characters a search query may have.
MAX_QUERY = 2000


@dataclass(frozen=True)
class ApiSettings:
    """How ``registry serve`` runs: the database (a ``postgresql://`` URL, no namespace), the pool
    of connections, the largest push body, how often waiting requests poll, how many may wait."""

    db: str
    pool_size: int = 8
    max_body_bytes: int = 64 * 1024 * 1024
    poll_interval: float = 1.0
    max_waiters: int = 1000
    statement_timeout_ms: int = 30_000
    #: Catalogs (per namespace version) kept in memory, for reads and for searches: at most this
    #: many, and past the byte budget (their bodies, summed) only the one used last.
    cached_namespaces: int = 16
    cache_bytes: int = 512 * 1024 * 1024


class ApiError(Exception):
    """A request refused: its HTTP status and one line for the client."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


def etag_of(version: int, digest: str) -> str:
    """The entity tag of a namespace version: its number and the start of its content digest (a
    namespace dropped and pushed again reaches the same number with other content)."""
    return f'"{version}-{digest[:16]}"'


def etag_version(tag: str) -> int | None:
    """The version an entity tag (as :func:`etag_of` writes it) names; ``None``: not one of ours."""
    text = tag.strip().removeprefix("W/").strip('"')
    number = text.split("-", 1)[0]
    return int(number) if number.isdigit() and len(number) < 19 else None


def _etag_digest(tag: str | None) -> str | None:
    """The digest prefix an entity tag (as :func:`etag_of` writes it) holds; ``None``: none given
    or not one of ours (then only the version is compared)."""
    if not tag:
        return None
    text = tag.strip().removeprefix("W/").strip('"')
    _, sep, digest = text.partition("-")
    return digest if sep and len(digest) == 16 and all(c in "0123456789abcdef" for c in digest) else None


def _matches(header: str | None, etag: str) -> bool:
    """Whether an ``If-None-Match`` / ``If-Match`` list names ``etag`` (or is ``*``)."""
    if header is None:
        return False
    wanted = [part.strip().removeprefix("W/") for part in header.split(",")]
    return "*" in wanted or etag in wanted


# -- database -----------------------------------------------------------------------------------


class Pool:
    """A few reusable connections (autocommit, with a statement timeout); at most ``size`` at once."""

    def __init__(self, source: RegistrySource, size: int, statement_timeout_ms: int) -> None:
        self.source = source
        self._idle: list[Any] = []
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(size)
        self._timeout = statement_timeout_ms

    def _open(self) -> psycopg.Connection[Any]:
        psycopg = driver()
        extra = {} if "connect_timeout" in self.source.conninfo else {"connect_timeout": 5}
        try:
            conn = psycopg.connect(self.source.conninfo, autocommit=True, application_name="toolsearch-http", **extra)
            conn.execute(f"SET statement_timeout = {int(self._timeout)}")
        except psycopg.Error as exc:
            raise RegistryError(f"cannot connect to the registry {self.source.display}: {_reason(exc)}") from None
        return conn  # type: ignore[no-any-return]

    @contextlib.contextmanager
    def connection(self) -> Iterator[psycopg.Connection[Any]]:
        psycopg = driver()
        if not self._slots.acquire(timeout=30):
            raise ApiError(503, "the registry is busy: try again")
        conn = None
        try:
            with self._lock:
                conn = self._idle.pop() if self._idle else None
            if conn is None or conn.closed:
                conn = self._open()
            yield conn
        except psycopg.Error as exc:
            if conn is not None:
                conn.close()
            raise RegistryError(f"the registry {self.source.display} failed: {_reason(exc)}") from None
        finally:
            if conn is not None and not conn.closed:
                if conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE:
                    with self._lock:
                        self._idle.append(conn)
                else:
                    conn.close()
            self._slots.release()

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()


@dataclass(frozen=True, slots=True)
class Head:
    """A namespace's current version, as one snapshot saw it."""

    version: int
    digest: str
    resident: str
    groups: str

    @property
    def etag(self) -> str:
        return etag_of(self.version, self.digest)


def _head(conn: Any, namespace: str) -> Head:
    row = conn.execute(
        "SELECT version, digest, resident, groups FROM toolsearch_namespaces WHERE name = %s", (namespace,)
    ).fetchone()
    if row is None or int(row[0]) == 0:
        raise ApiError(404, f"no namespace {namespace!r} in this registry")
    return Head(int(row[0]), row[1], row[2], row[3])


def _rows(conn: Any, namespace: str, names: list[str] | None = None) -> list[tuple[str, str]]:
    if names is None:
        cursor = conn.execute(
            "SELECT name, body FROM toolsearch_tools WHERE namespace = %s ORDER BY position, name", (namespace,)
        )
    else:
        cursor = conn.execute(
            "SELECT name, body FROM toolsearch_tools WHERE namespace = %s AND name = ANY(%s) ORDER BY position, name",
            (namespace, names),
        )
    return [(str(name), str(body)) for name, body in cursor]


def _document(rows: list[tuple[str, str]], resident: str, groups: str) -> bytes:
    """A catalog document (toolsearch's JSON catalog format) from stored rows, joined as text. Each
    row is first checked to be one JSON object naming its tool (and within a reader's row size), so
    a row edited by hand cannot change the document's shape around it; the tools themselves are
    checked by whoever reads the catalog, as any catalog file is (10,000 rows: 96 ms, against 306
    ms with the strict bounded parser; once per version, as the body is kept)."""
    for name, body in rows:
        problem = None
        if len(body) > codec.MAX_ROW_BYTES:
            problem = f"it is over {codec.MAX_ROW_BYTES} characters"
        else:
            try:
                value = json.loads(body)  # shape only (the C parser: 30x the strict one's speed)
            except (ValueError, RecursionError):
                problem = "it is not JSON"
            else:
                if not isinstance(value, dict) or value.get("name") != name:
                    problem = "it does not hold that tool"
        if problem is not None:
            raise ApiError(500, f"the namespace's stored row of tool {name!r} cannot be served: {problem}")
    return ('{"tools":[' + ",".join(body for _, body in rows) + f'],"resident":{resident},"groups":{groups}}}').encode(
        "utf-8"
    )


@dataclass
class _Cached:
    version: int
    digest: str
    body: bytes
    catalog: Catalog | None = None
    lock: threading.Lock | None = None


# -- notifications ------------------------------------------------------------------------------


class Notifier:
    """Wakes the requests waiting on a namespace when the registry says it changed (one
    ``LISTEN`` connection on a thread of its own; a standby, which cannot listen, is polled)."""

    def __init__(self, source: RegistrySource) -> None:
        self.source = source
        self._events: dict[str, asyncio.Event] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._conn: Any = None
        self.listening = False

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._thread = threading.Thread(target=self._run, name="toolsearch-http-listen", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        conn = self._conn
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.cancel_safe(timeout=1.0)
        if self._thread is not None:
            self._thread.join(5)

    def event(self, namespace: str) -> asyncio.Event:
        """The event set at the namespace's next notification (take it before reading the version)."""
        found = self._events.get(namespace)
        if found is None:
            found = self._events[namespace] = asyncio.Event()
        return found

    def wake(self, namespace: str) -> None:
        """On the event loop: wake whoever waits on ``namespace``."""
        found = self._events.pop(namespace, None)
        if found is not None:
            found.set()

    def _run(self) -> None:
        psycopg = driver()
        pause = 0.5
        while not self._stop.is_set():
            try:
                with contextlib.closing(psycopg.connect(self.source.conninfo, autocommit=True, connect_timeout=5)) as c:
                    self._conn = c
                    try:
                        c.execute(f"LISTEN {CHANNEL}")
                    except psycopg.Error:
                        self.listening = False
                        return  # a hot standby: the waiting requests' poll alone follows it
                    self.listening, pause = True, 0.5
                    while not self._stop.is_set():
                        for note in c.notifies(timeout=1.0, stop_after=16):
                            if self._loop is not None and isinstance(note.payload, str):
                                self._loop.call_soon_threadsafe(self.wake, note.payload)
            except Exception:  # noqa: BLE001 - a lost connection: the poll covers the gap, then reconnect
                self.listening = False
            finally:
                self._conn = None
            self._stop.wait(pause)
            pause = min(pause * 2, 10.0)


# -- the application ----------------------------------------------------------------------------


class RegistryApi:
    """The API's state and handlers; :meth:`app` is the Starlette application."""

    def __init__(self, settings: ApiSettings) -> None:
        self.settings = settings
        self.source = parse_registry_source(settings.db)
        if self.source.namespace is not None:
            raise UsageError("--db names the database only: drop ?namespace= (each request names one)", field="db")
        self.pool = Pool(self.source, settings.pool_size, settings.statement_timeout_ms)
        self.notifier = Notifier(self.source)
        self._cache: OrderedDict[str, _Cached] = OrderedDict()
        self._cache_lock = threading.Lock()
        self._waiters = 0
        self._slots: asyncio.Semaphore | None = None
        #: Whether the web server is shutting down (set by :func:`run`): waiting requests answer
        #: at their next check instead of holding the shutdown until their wait ends.
        self.stopping: Callable[[], bool] = lambda: False

    # -- checks done once at start

    def check(self) -> None:
        """Refuse to start (one line) when the database is unreachable or holds no registry or tokens."""
        with self.pool.connection() as conn:
            tokens.require_tokens_schema(conn, self.source)  # a registry, of schema 3 or later
            # a SELECT on the token table, as every request makes: a role without it fails here, at start
            if not conn.execute(f"SELECT EXISTS (SELECT 1 FROM {tokens.TABLE})").fetchone()[0]:  # type: ignore[index]
                raise RegistryError(
                    f"no tokens in the registry {self.source.display}: make one with `toolsearch registry token create`"
                )

    # -- helpers

    @staticmethod
    def _namespace(rest: str) -> tuple[str, str]:
        name, _, action = rest.partition("/-/")
        if "/-/" in f"/{name}/" or not name:
            raise ApiError(404, "no such resource")
        try:
            check_namespace(name)
        except UsageError as exc:
            raise ApiError(400, exc.message) from None
        return name, action

    def _grant(self, conn: Any, request: Request, namespace: str, scope: str) -> tokens.Grant:
        header = request.headers.get("authorization")
        if not header:
            raise ApiError(401, "a bearer token is required", {"WWW-Authenticate": 'Bearer realm="toolsearch"'})
        kind, _, token = header.partition(" ")
        if kind.lower() != "bearer" or not token.strip():
            raise ApiError(401, "use Authorization: Bearer TOKEN", {"WWW-Authenticate": 'Bearer realm="toolsearch"'})
        grant = tokens.lookup(conn, token.strip())
        if grant is None or not grant.allows(namespace, scope):
            # the same answer whatever the reason, so a token learns nothing of other namespaces
            raise ApiError(403, f"this token does not allow {scope} on namespace {namespace!r}")
        return grant

    def _cached(self, namespace: str, head: Head) -> _Cached | None:
        with self._cache_lock:
            entry = self._cache.get(namespace)
            if entry is not None and entry.version == head.version and entry.digest == head.digest:
                self._cache.move_to_end(namespace)
                return entry
        return None

    def _keep(self, namespace: str, entry: _Cached) -> _Cached:
        with self._cache_lock:
            old = self._cache.get(namespace)
            if old is not None and old.version == entry.version and old.digest == entry.digest:
                return old  # another request read the same version first: share its entry
            self._cache[namespace] = entry
            self._cache.move_to_end(namespace)
            while len(self._cache) > 1 and (
                len(self._cache) > self.settings.cached_namespaces
                or sum(len(e.body) for e in self._cache.values()) > self.settings.cache_bytes
            ):
                self._cache.popitem(last=False)
        return entry

    # -- read

    def read(self, request: Request, namespace: str) -> tuple[Head, bytes | None]:
        """The namespace's head and catalog body (``None``: the client's ``If-None-Match`` holds)."""
        with self.pool.connection() as conn:
            self._grant(conn, request, namespace, "read")
            with _read_only(conn):
                head = _head(conn, namespace)
                if _matches(request.headers.get("if-none-match"), head.etag):
                    return head, None
                entry = self._cached(namespace, head)
                if entry is None:
                    rows = _rows(conn, namespace)
                    entry = self._keep(namespace, _Cached(head.version, head.digest, _document(rows, *_lists(head))))
        return head, entry.body

    def catalog(self, request: Request, namespace: str) -> tuple[Head, _Cached]:
        """The namespace's current version decoded (validated as a catalog file is) and kept."""
        with self.pool.connection() as conn:
            self._grant(conn, request, namespace, "read")
            with _read_only(conn):
                head = _head(conn, namespace)
                entry = self._cached(namespace, head)
                rows = _rows(conn, namespace) if entry is None or entry.catalog is None else []
        if entry is None or entry.catalog is None:
            where = f"registry namespace {namespace}"
            try:
                decoded = codec.decode(rows, head.resident, head.groups, where)
            except ToolsearchError as exc:
                raise ApiError(500, f"the namespace's stored catalog cannot be read: {exc}") from None
            catalog = Catalog(tools=decoded.tools, resident=decoded.resident, groups=decoded.groups, sources=[where])
            body = entry.body if entry is not None else _document(rows, *_lists(head))
            entry = self._keep(namespace, _Cached(head.version, head.digest, body, catalog, threading.Lock()))
            if entry.catalog is None:  # the kept entry was a body-only one of the same version
                entry.catalog, entry.lock = catalog, threading.Lock()
        return head, entry

    def search(self, request: Request, namespace: str) -> tuple[Head, dict[str, Any]]:
        from ..search_report import search_catalog

        settings = _search_settings(request)
        head, entry = self.catalog(request, namespace)
        assert entry.catalog is not None and entry.lock is not None
        try:
            with entry.lock:  # searches of one version share its index: the first builds it
                report = search_catalog(entry.catalog, settings)
        except ToolsearchError as exc:
            raise ApiError(400, str(exc)) from None
        return head, {"namespace": namespace, "version": head.version, **report.to_dict()}

    # -- changes

    def changes(self, namespace: str, since: int, etag: str | None = None) -> tuple[Head, dict[str, Any] | None]:
        """What changed after version ``since`` (``None``: nothing yet), read in one snapshot. The
        whole catalog (``full``) when ``since`` is 0, ahead of the registry, older than its log, or
        not the version the client holds (``etag``, its ETag: a namespace dropped and pushed again
        reaches the same numbers with other content)."""
        with self.pool.connection() as conn, _read_only(conn):
            head = _head(conn, namespace)
            held = _etag_digest(etag)
            if head.version == since and (held is None or head.digest.startswith(held)):
                return head, None
            oldest = conn.execute(
                "SELECT min(version) FROM toolsearch_versions WHERE namespace = %s", (namespace,)
            ).fetchone()
            full = since <= 0 or since >= head.version or oldest is None or oldest[0] is None or since < oldest[0] - 1
            if not full and held is not None:
                row = conn.execute(
                    "SELECT digest FROM toolsearch_versions WHERE namespace = %s AND version = %s", (namespace, since)
                ).fetchone()
                full = row is None or not str(row[0]).startswith(held)
            removed: list[str] = []
            entry = self._cached(namespace, head) if full else None
            if entry is not None:
                rows = []
            elif full:
                rows = _rows(conn, namespace)
            else:
                touched = [
                    str(r[0])
                    for r in conn.execute(
                        "SELECT DISTINCT name FROM toolsearch_changes WHERE namespace = %s AND version > %s "
                        "AND version <= %s",
                        (namespace, since, head.version),
                    )
                ]
                rows = _rows(conn, namespace, touched)
                present = {name for name, _ in rows}
                removed = sorted(set(touched) - present)
        if entry is not None:
            body = entry.body
        elif full:  # a new follower's whole catalog is the read's: kept for the next one
            body = self._keep(namespace, _Cached(head.version, head.digest, _document(rows, *_lists(head)))).body
        else:
            body = _document(rows, *_lists(head))
        return head, {"full": full, "removed": removed, "catalog": body}

    # -- push

    def push(self, request: Request, namespace: str, body: bytes) -> tuple[int, dict[str, Any], str | None]:
        from ..bounded import loads_json
        from ..catalog.yaml_loader import groups_from_document, tools_from_document
        from .store import push

        with self.pool.connection() as conn:
            self._grant(conn, request, namespace, "push")
            with _read_only(conn):
                row = conn.execute(
                    "SELECT version, digest FROM toolsearch_namespaces WHERE name = %s", (namespace,)
                ).fetchone()
        exists = row is not None and int(row[0]) > 0
        current = etag_of(int(row[0]), row[1]) if exists and row is not None else None
        expect = _expected(request, current)
        where = f"push to {namespace}"
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            raise ApiError(400, "the body is not UTF-8 text") from None
        try:
            doc = loads_json(text, where)
            loaded = tools_from_document(doc, where)
            groups = groups_from_document(doc, where) if isinstance(doc, dict) else []
        except ToolsearchError as exc:
            raise ApiError(400, str(exc)) from None
        catalog = Catalog(tools=loaded.tools, resident=loaded.resident, groups=groups)
        if not catalog.tools and _flag(request, "allow_empty") is not True:
            raise ApiError(422, "the catalog holds no tool: add ?allow_empty=true to empty the namespace")
        dry_run = _flag(request, "dry_run") is True
        target = replace(self.source, namespace=namespace)
        try:
            plan = push(target, catalog, dry_run=dry_run, expect_version=expect[0])
        except PushConflict as exc:
            raise ApiError(expect[1], exc.message) from None
        version = plan.version if plan.version is not None else plan.base_version
        etag = None
        if not dry_run and version:
            with self.pool.connection() as conn, _read_only(conn):
                head = _head(conn, namespace)
            etag = head.etag if head.version == version else None
        return version, {"dry_run": dry_run, **plan.to_dict()}, etag

    # -- HTTP

    def app(self) -> Any:
        from starlette.applications import Starlette
        from starlette.routing import Route

        routes = [
            Route("/healthz", self._health, methods=["GET"]),
            Route("/openapi.json", self._openapi, methods=["GET"]),
            Route("/v1/namespaces/{rest:path}", self._namespace_route, methods=["GET", "HEAD", "PUT"]),
        ]
        return Starlette(routes=routes, lifespan=self._lifespan)

    @contextlib.asynccontextmanager
    async def _lifespan(self, app: Any) -> AsyncIterator[None]:
        self.notifier.start(asyncio.get_running_loop())
        try:
            yield
        finally:
            self.notifier.stop()
            self.pool.close()

    async def _health(self, request: Request) -> Response:
        def ping() -> None:
            with self.pool.connection() as conn:
                conn.execute("SELECT 1")

        return await _answer(lambda: self._work(ping), lambda _: _json(200, {"status": "ok"}))

    async def _openapi(self, request: Request) -> Response:
        from starlette.responses import Response

        return Response(openapi_text(), media_type="application/json")

    async def _namespace_route(self, request: Request) -> Response:
        async def run() -> Response:
            namespace, action = self._namespace(request.path_params["rest"])
            method = request.method
            if action == "" and method in ("GET", "HEAD"):
                head, body = await self._work(self.read, request, namespace)
                return _catalog_response(head, body, head_only=method == "HEAD")
            if action == "" and method == "PUT":
                body = await _body(request, self.settings.max_body_bytes)
                version, document, etag = await self._work(self.push, request, namespace, body)
                headers = {VERSION_HEADER: str(version)} | ({"ETag": etag} if etag else {})
                self.notifier.wake(namespace)
                return _json(200, document, headers)
            if method not in ("GET", "HEAD"):
                raise ApiError(405, f"{method} is not allowed here", {"Allow": "GET, HEAD"})
            if action == "search":
                head, document = await self._work(self.search, request, namespace)
                return _json(200, document, {VERSION_HEADER: str(head.version), "ETag": head.etag})
            if action == "changes":
                return await self._long_poll(request, namespace)
            if action == "events":
                return await self._events(request, namespace)
            raise ApiError(404, "no such resource")

        return await _answer(run, lambda response: response)

    async def _work(self, function: Callable[..., Any], *args: Any) -> Any:
        """Run database work (and what follows it) on a worker thread, at most as many at once as
        the pool has connections: the others wait on the event loop, not as threads blocked on the
        pool."""
        from starlette.concurrency import run_in_threadpool

        if self._slots is None:
            self._slots = asyncio.Semaphore(self.settings.pool_size)
        async with self._slots:
            return await run_in_threadpool(function, *args)

    def _authorise(self, request: Request, namespace: str) -> None:
        with self.pool.connection() as conn:
            self._grant(conn, request, namespace, "read")

    @contextlib.contextmanager
    def _waiting(self) -> Iterator[None]:
        if self._waiters >= self.settings.max_waiters:
            raise ApiError(503, "too many waiting requests: try again", {"Retry-After": "5"})
        self._waiters += 1
        try:
            yield
        finally:
            self._waiters -= 1

    async def _long_poll(self, request: Request, namespace: str) -> Response:
        since = _whole(request, "since", 0)
        etag = request.query_params.get("etag")
        wait = _seconds(request, "wait", DEFAULT_WAIT)
        await self._work(self._authorise, request, namespace)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait
        with self._waiting():
            while True:
                event = self.notifier.event(namespace)  # before the read: a change after it still wakes us
                head, found = await self._work(self.changes, namespace, since, etag)
                remaining = deadline - loop.time()
                if found is not None or remaining <= 0 or self.stopping() or await request.is_disconnected():
                    break
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(event.wait(), min(remaining, self.settings.poll_interval))
        headers = {VERSION_HEADER: str(head.version), "ETag": head.etag}
        meta = {"namespace": namespace, "since": since, "version": head.version, "etag": head.etag}
        if found is None:
            return _json(200, {**meta, "changed": False}, headers)
        catalog = found.pop("catalog")
        prefix = json.dumps({**meta, "changed": True, **found}, ensure_ascii=False)[:-1]
        from starlette.responses import Response

        return Response(prefix.encode("utf-8") + b',"catalog":' + catalog + b"}", 200, headers, "application/json")

    async def _events(self, request: Request, namespace: str) -> Response:
        from starlette.responses import StreamingResponse

        await self._work(self._authorise, request, namespace)

        def current() -> Head:
            with self.pool.connection() as conn, _read_only(conn):
                return _head(conn, namespace)

        async def stream() -> AsyncIterator[bytes]:
            loop = asyncio.get_running_loop()
            ends = loop.time() + STREAM_LIFETIME
            last = None
            beat = loop.time() + HEARTBEAT
            with self._waiting():
                yield b"retry: 2000\n\n"
                while loop.time() < ends and not self.stopping():
                    event = self.notifier.event(namespace)
                    try:
                        head = await self._work(current)
                    except (ApiError, ToolsearchError) as exc:
                        message = exc.message if isinstance(exc, ApiError | ToolsearchError) else ""
                        yield f"event: error\ndata: {json.dumps({'error': message})}\n\n".encode()
                        return
                    if head.version != last:
                        last = head.version
                        data = json.dumps({"namespace": namespace, "version": head.version, "etag": head.etag})
                        yield f"event: version\nid: {head.version}\ndata: {data}\n\n".encode()
                        beat = loop.time() + HEARTBEAT
                    elif loop.time() >= beat:
                        yield b": keep-alive\n\n"
                        beat = loop.time() + HEARTBEAT
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(event.wait(), self.settings.poll_interval)

        headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
        return StreamingResponse(stream(), media_type="text/event-stream", headers=headers)


def _lists(head: Head) -> tuple[str, str]:
    """The head's stored resident names and groups, checked to be JSON lists (they are spliced into
    documents as they are)."""
    for text in (head.resident, head.groups):
        value = codec.parse_row(text, "registry")
        if not isinstance(value, list):
            raise ApiError(500, "the namespace's stored resident tools or groups are not a list")
    return head.resident, head.groups


def _expected(request: Request, current: str | None) -> tuple[int | None, int]:
    """The version a push requires, and the status when it no longer holds: ``If-Match`` (an ETag;
    412), ``If-None-Match: *`` (must not exist; 412) or ``?expect_version=N`` (0: must not exist; 409)."""
    if_match = request.headers.get("if-match")
    if if_match is not None:
        if if_match.strip() == "*":
            if current is None:
                raise ApiError(412, "If-Match: * but the namespace does not exist")
            return None, 412
        if current is None or not _matches(if_match, current):
            raise ApiError(412, f"the namespace is at {current or 'no version'}, not {if_match.strip()}")
        return etag_version(current), 412
    if (request.headers.get("if-none-match") or "").strip() == "*":
        return 0, 412
    if "expect_version" in request.query_params:
        return _whole(request, "expect_version", 0), 409
    return None, 409


def _flag(request: Request, name: str) -> bool | None:
    value = request.query_params.get(name)
    if value is None:
        return None
    if value.lower() in ("1", "true", "yes"):
        return True
    if value.lower() in ("0", "false", "no", ""):
        return False
    raise ApiError(400, f"{name} takes true or false, not {value[:40]!r}")


def _whole(request: Request, name: str, default: int) -> int:
    value = request.query_params.get(name)
    if value is None:
        return default
    if not value.isdigit() or len(value) > 18:
        raise ApiError(400, f"{name} must be a whole number, not {value[:40]!r}")
    return int(value)


def _seconds(request: Request, name: str, default: float) -> float:
    value = request.query_params.get(name)
    if value is None:
        return default
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds <= MAX_WAIT:
        raise ApiError(400, f"{name} must be seconds from 0 to {MAX_WAIT:g}, not {value[:40]!r}")
    return seconds


def _search_settings(request: Request) -> Any:
    from ..search import MAX_RESULTS_LIMIT, RANKER_BY_NAME
    from ..search_report import SearchSettings

    params = request.query_params
    query = params.get("q")
    if not query or not query.strip():
        raise ApiError(400, "q (the query) is required")
    if len(query) > MAX_QUERY:
        raise ApiError(400, f"q is over {MAX_QUERY} characters")
    ranker = params.get("ranker", "default")
    if ranker not in RANKER_BY_NAME:
        raise ApiError(400, f"unknown ranker {ranker[:40]!r}")
    if getattr(RANKER_BY_NAME[ranker], "needs_embeddings", False):
        raise ApiError(400, f"the {ranker} ranker needs an embedding model, which this server does not run")
    try:
        limit = SearchSettings.parse_max_results(params.get("max_results", "5"))
    except ToolsearchError as exc:
        raise ApiError(400, f"max_results must be 1 to {MAX_RESULTS_LIMIT}: {exc.message}") from None
    context = None
    pairs = params.getlist("context")
    if pairs:
        from ..simulate.script import parse_context

        try:
            context = parse_context(list(pairs))
        except ToolsearchError as exc:
            raise ApiError(400, str(exc)) from None
    return SearchSettings(query, None, None, params.get("category"), limit, ranker, context)


async def _body(request: Request, limit: int) -> bytes:
    """The request's body, refused (413) past ``limit`` bytes, however it is sent."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise ApiError(413, f"the body is over the limit ({limit} bytes)")
    kind = (request.headers.get("content-type") or "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise ApiError(415, "send the catalog as application/json")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise ApiError(413, f"the body is over the limit ({limit} bytes)")
        chunks.append(chunk)
    return b"".join(chunks)


def _json(status: int, document: Any, headers: dict[str, str] | None = None) -> Response:
    from starlette.responses import Response

    body = json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return Response(body, status, headers, "application/json")


def _catalog_response(head: Head, body: bytes | None, *, head_only: bool) -> Response:
    from starlette.responses import Response

    headers = {"ETag": head.etag, VERSION_HEADER: str(head.version), "Cache-Control": "no-cache"}
    if body is None:
        return Response(b"", 304, headers)
    response = Response(b"" if head_only else body, 200, headers, "application/json")
    if head_only:
        response.headers["content-length"] = str(len(body))
    return response


async def _answer(run: Callable[[], Awaitable[Any]], respond: Callable[[Any], Response]) -> Response:
    """Run a handler; its refusals and the registry's failures become one-line JSON errors."""
    try:
        return respond(await run())
    except ApiError as exc:
        return _json(exc.status, {"error": exc.message}, exc.headers)
    except RegistryError as exc:
        return _json(503, {"error": exc.message})
    except ToolsearchError as exc:
        return _json(400, {"error": str(exc)})
    except CatalogError as exc:  # pragma: no cover - a ToolsearchError, kept for clarity
        return _json(400, {"error": str(exc)})
    except Exception as exc:  # noqa: BLE001 - one line for the client and the operator, no traceback
        print(f"toolsearch registry serve: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return _json(500, {"error": "internal error"})


def openapi_text() -> str:
    """The OpenAPI 3.1 document of this API (:file:`openapi.json` beside this module)."""
    return resources.files("toolsearch_cli.registry").joinpath("openapi.json").read_text(encoding="utf-8")


def openapi_document() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(openapi_text())
    return loaded


def run(
    settings: ApiSettings,
    host: str,
    port: int,
    on_ready: Callable[[str], None] | None = None,
    *,
    access_log: bool = False,
    forwarded_allow_ips: list[str] | None = None,
) -> None:
    """Check the database, then serve on ``host:port`` until stopped (uvicorn); ``access_log``:
    one line per request on stdout, uvicorn's (tokens travel in a header, never in the logged path);
    ``forwarded_allow_ips``: the reverse proxies whose ``X-Forwarded-For``/``-Proto`` are believed
    (``None``: none, whatever uvicorn's default)."""
    import uvicorn

    from ..forwarded import proxy_options

    api = RegistryApi(settings)
    api.check()
    config = uvicorn.Config(
        api.app(),
        host=host,
        port=port,
        log_level="info" if access_log else "warning",
        lifespan="on",
        access_log=access_log,
        timeout_graceful_shutdown=5,
        **proxy_options(forwarded_allow_ips),
    )
    server = uvicorn.Server(config)
    api.stopping = lambda: server.should_exit
    if on_ready is not None:
        shown = f"[{host}]" if ":" in host else host
        on_ready(f"toolsearch registry serve: http://{shown}:{port}/v1/namespaces/ (database {api.source.display})")
    server.run()


__all__ = ["ApiSettings", "RegistryApi", "etag_of", "openapi_document", "run"]
