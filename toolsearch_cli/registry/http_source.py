"""``[alias=]https://HOST/…/namespaces/NAME``: a namespace of a registry's HTTP API as a catalog source.

Loading it reads the catalog once (``GET``); ``toolsearch serve`` and :class:`HttpWatcher` follow it
by long poll (``GET …/-/changes?since=V&wait=S``), changes applied in place as a PostgreSQL
source's are. ``http://`` is accepted for this machine only (loopback): elsewhere the token would
cross the network readable. The bearer token comes from ``$TOOLSEARCH_REGISTRY_TOKEN`` (one
token, or ``NAMESPACE=TOKEN`` pairs separated by commas), never from the URL: a URL with a
user or password is refused (masked). Tokens are registered with :mod:`toolsearch_cli.redaction`
when read, so no output shows them.

Every reply is input: no redirect is followed, a body over :data:`MAX_BYTES` or a request over
its time is cut off, the catalog is checked as a catalog file is, and a reply that does not say
what it should is a one-line :class:`~.store.RegistryError`. The client is the standard
library's (``http.client``): following a namespace needs no extra package.
"""

from __future__ import annotations

import contextlib
import json
import re
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import quote, urlencode, urlsplit

from .. import environment
from ..errors import ToolsearchError
from ..redaction import redact, register
from .watch_thread import FollowerThread

if TYPE_CHECKING:
    import http.client

    from ..catalog.result import LoadResult
    from .store import Changes, Snapshot

#: What separates the API's root from the namespace (as :data:`.http_kind.MARK`).
_MARK = "/namespaces/"
#: The most bytes one reply may hold (a catalog of 100,000 tools is about 150 MB).
MAX_BYTES = 512 * 1024 * 1024
#: Seconds to connect, and the most one request may take (a long poll: its wait on top).
CONNECT_TIMEOUT = 10.0
REQUEST_TIMEOUT = 120.0
#: Seconds a long poll asks the server to wait.
LONG_POLL = 25.0
MAX_BACKOFF = 10.0
VERSION_HEADER = "x-toolsearch-version"


def tokens_from(value: str) -> tuple[str | None, dict[str, str]]:
    """``$TOOLSEARCH_REGISTRY_TOKEN``: one token for every namespace, or ``NAMESPACE=TOKEN`` pairs
    (commas or blanks between); every token registered for masking."""
    default: str | None = None
    pairs: dict[str, str] = {}
    for part in re.split(r"[,\s]+", value.strip()):
        if not part:
            continue
        name, sep, token = part.rpartition("=")
        register(token)
        if sep:
            pairs[name] = token
        else:
            default = token
    return default, pairs


@dataclass(frozen=True)
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes


@dataclass(frozen=True)
class HttpRegistrySource:
    """A namespace of a registry's HTTP API (a :class:`~toolsearch_cli.catalog.sources.Source`)."""

    kind: ClassVar[str] = "registry-http"
    text: str
    #: ``scheme://host[:port]/prefix`` (what comes before ``/namespaces/``).
    base: str
    namespace: str
    alias: str | None = None

    # -- what a Source says

    @property
    def display(self) -> str:
        shown = f"{self.base}{_MARK}{self.namespace}"
        return f"{self.alias}={shown}" if self.alias else shown

    @property
    def shown(self) -> str:
        return self.display

    @property
    def parsed(self) -> HttpRegistrySource:
        """Itself (a PostgreSQL source's parsed URL is a separate object; the gateway asks either)."""
        return self

    @property
    def runs_code(self) -> str | None:
        return None

    def require_namespace(self) -> str:
        return self.namespace

    def cache_files(self) -> list[Path]:
        return []

    def load(self, catalog_format: str | None = None, *, prefix: bool = False) -> LoadResult:
        from ..catalog.result import LoadResult

        snap = self.snapshot()
        return LoadResult(tools=snap.tools, resident=snap.resident, groups=snap.groups)

    # -- the protocol

    def token(self) -> str | None:
        default, pairs = tokens_from(environment.registry_token())
        return pairs.get(self.namespace, default)

    def request(
        self,
        action: str = "",
        params: dict[str, Any] | None = None,
        *,
        timeout: float | None = None,
        holder: Callable[[Any], None] | None = None,
    ) -> Reply:
        """One ``GET`` of the namespace (``action``: ``""``, ``search``, ``changes``); the reply's
        status, headers and body, bounded in size and time (``timeout``: :data:`REQUEST_TIMEOUT`).
        ``holder`` is given the connection (so another thread can close it); a network failure is a
        :class:`RegistryError`."""
        import http.client
        import ssl

        parts = urlsplit(self.base)
        path = f"{parts.path}{_MARK}{quote(self.namespace, safe='/:')}" + (f"/-/{action}" if action else "")
        if params:
            path += "?" + urlencode(params)
        headers = {"Accept": "application/json", "User-Agent": "toolsearch"}
        token = self.token()
        if token:
            headers["Authorization"] = f"Bearer {token}"
        conn: http.client.HTTPConnection
        if parts.scheme == "https":
            conn = http.client.HTTPSConnection(
                parts.hostname or "", parts.port, timeout=CONNECT_TIMEOUT, context=ssl.create_default_context()
            )
        else:
            conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=CONNECT_TIMEOUT)
        deadline = time.monotonic() + (REQUEST_TIMEOUT if timeout is None else timeout)
        try:
            if holder is not None:
                holder(conn)
            conn.request("GET", path, headers=headers)
            if holder is not None:
                # again, now that the socket exists: a stop() that came while connecting saw no
                # socket to shut down, and would otherwise wait out a whole long poll
                holder(conn)
            sock = conn.sock
            if sock is not None:
                sock.settimeout(max(0.1, deadline - time.monotonic()))
            response = conn.getresponse()
            body = _read(response, sock, deadline, self.display)
            return Reply(response.status, {k.lower(): v for k, v in response.getheaders()}, body)
        except (OSError, http.client.HTTPException, ValueError) as exc:
            raise _fail(f"registry {self.display}: {_network_reason(exc)}") from None
        finally:
            conn.close()
            if holder is not None:
                holder(None)

    def checked(self, reply: Reply) -> Reply:
        """The reply when it is a success, else the one-line error its status means."""
        if reply.status in (200, 304):
            return reply
        said = _server_said(reply.body)
        if reply.status == 401:
            raise _fail(f"registry {self.display} needs a token: set ${environment.REGISTRY_TOKEN}{said}")
        if reply.status == 403:
            raise _fail(f"registry {self.display} refused the token{said}")
        if reply.status == 404:
            raise _fail(f"registry {self.display}: no such namespace{said}")
        if 300 <= reply.status < 400:
            raise _fail(f"registry {self.display} answered with a redirect (HTTP {reply.status}), not followed")
        raise _fail(f"registry {self.display} answered HTTP {reply.status}{said}")

    def snapshot(self) -> Snapshot:
        """The namespace's current version (one ``GET``), checked as a catalog file is."""
        reply = self.checked(self.request())
        version = _version(reply, self.display)
        catalog = _document(reply.body, self.display)
        return self._snapshot(catalog, version, reply.headers.get("etag", ""))

    def _snapshot(self, doc: dict[str, Any], version: int, etag: str) -> Snapshot:
        from .store import Snapshot

        tools, resident, groups = _decode(doc, self.display)
        if self.alias:
            for tool in tools:
                if tool.category is None:
                    tool.category = self.alias
        resident_json, groups_json = _canonical(doc, "resident"), _canonical(doc, "groups")
        return Snapshot(self.namespace, version, etag, tools, resident, groups, resident_json, groups_json)

    def follow(
        self,
        on_change: Callable[[Changes], None],
        *,
        version: int,
        resident_json: str = "[]",
        groups_json: str = "[]",
        poll_interval: float | None = None,
        on_status: Callable[[str], None] | None = None,
        etag: str = "",
    ) -> HttpWatcher:
        """A started :class:`HttpWatcher` from ``version`` on (``etag``: the ETag of the snapshot
        that version was read as, so the server can tell the namespace was pushed again)."""
        watcher = HttpWatcher(
            self, on_change, version=version, resident_json=resident_json, groups_json=groups_json, etag=etag
        )
        watcher.on_status = on_status
        return watcher.start()


def _fail(message: str) -> Exception:
    """A :class:`~.store.RegistryError` (imported when one is raised: the kind loads at start-up)."""
    from .store import RegistryError

    return RegistryError(message)


def _read(response: http.client.HTTPResponse, sock: socket.socket | None, deadline: float, where: str) -> bytes:
    """The body, chunk by chunk: each read waits at most what is left of the request's time."""
    declared = response.getheader("content-length")
    if declared is not None and declared.strip().isdigit() and int(declared) > MAX_BYTES:
        raise _fail(f"registry {where}: a reply of {int(declared)} bytes is over the limit ({MAX_BYTES})")
    chunks: list[bytes] = []
    size = 0
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise _fail(f"registry {where}: the reply took too long")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.settimeout(max(0.1, left))
        try:
            chunk = response.read1(65536)
        except TimeoutError:
            # the status line came, then the body stalled: the same deadline, the same words
            raise _fail(f"registry {where}: the reply took too long") from None
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > MAX_BYTES:
            raise _fail(f"registry {where}: the reply is over the limit ({MAX_BYTES} bytes)")
        chunks.append(chunk)


def _network_reason(exc: BaseException) -> str:
    if isinstance(exc, socket.timeout | TimeoutError):
        return "no answer in time"
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return redact(_printable(text))[:200]


def _printable(text: str) -> str:
    from ..printable import shown

    return shown(text)


def _server_said(body: bytes) -> str:
    """The server's one-line ``error`` (shown literally, secrets masked, cut short), if it gave one."""
    try:
        value = json.loads(body[:4096].decode("utf-8", "replace"))
    except ValueError:
        return ""
    message = value.get("error") if isinstance(value, dict) else None
    if not isinstance(message, str) or not message.strip():
        return ""
    line = " ".join(message.split())
    return ": " + redact(_printable(line if len(line) <= 200 else line[:199] + "…"))


def _version(reply: Reply, where: str) -> int:
    value = reply.headers.get(VERSION_HEADER, "").strip()
    if not value.isdigit() or len(value) > 18:
        raise _fail(f"registry {where}: the reply names no version (X-Toolsearch-Version)")
    return int(value)


def _document(body: bytes, where: str) -> dict[str, Any]:
    from ..bounded import loads_json

    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise _fail(f"registry {where}: the reply is not UTF-8 text") from None
    from .store import RegistryError

    value = loads_json(text, where, error=RegistryError, what="malformed reply")
    if not isinstance(value, dict):
        raise _fail(f"registry {where}: the reply is not a JSON object")
    return value


def _decode(doc: Any, where: str) -> tuple[list[Any], list[str], list[Any]]:
    """A catalog document's tools, resident names and groups, checked as a catalog file's are."""
    from ..catalog.yaml_loader import groups_from_document, tools_from_document

    if not isinstance(doc, dict):
        raise _fail(f"registry {where}: the catalog in the reply is not a JSON object")
    loaded = tools_from_document(doc, where)
    return list(loaded.tools), list(loaded.resident), list(groups_from_document(doc, where))


def _canonical(doc: dict[str, Any], key: str) -> str:
    return json.dumps(doc.get(key, []), ensure_ascii=False, sort_keys=True)


class HttpWatcher(FollowerThread):
    """Follows a namespace over the HTTP API by long poll, as :class:`~.sync.RegistryWatcher` follows
    one in PostgreSQL: ``on_change`` gets each :class:`~.store.Changes`; ``status`` is ``live`` or
    ``disconnected: <why>; serving version N`` (the last good catalog kept). No exception leaves
    its thread: a reply it cannot read is a status like a lost connection, and it polls again."""

    def __init__(
        self,
        source: HttpRegistrySource,
        on_change: Callable[[Changes], None],
        *,
        version: int,
        resident_json: str = "[]",
        groups_json: str = "[]",
        wait: float = LONG_POLL,
        etag: str = "",
    ) -> None:
        self.source = source
        #: The ETag of the version applied last (sent with each poll; ``""``: unknown).
        self.etag = etag
        self.on_change = on_change
        self.on_status: Callable[[str], None] | None = None
        self.version = version
        self.wait = wait
        self._resident = json.dumps(json.loads(resident_json), ensure_ascii=False, sort_keys=True)
        self._groups = json.dumps(json.loads(groups_json), ensure_ascii=False, sort_keys=True)
        self._init_thread()
        self.listening = True

    thread_name = "toolsearch-registry-http-watch"

    def start(self) -> HttpWatcher:
        super().start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        conn = self._conn
        if conn is not None and getattr(conn, "sock", None) is not None:
            with contextlib.suppress(OSError):
                conn.sock.shutdown(socket.SHUT_RDWR)
        if self._thread is not None:
            self._thread.join(timeout)

    def _hold(self, conn: Any) -> None:
        self._conn = conn
        if conn is not None and self._stop.is_set():
            raise OSError("stopping")

    def _set_status(self, status: str) -> None:
        if status == self.status:
            return
        self.status = status
        if self.on_status is not None:
            self.on_status(status)

    def _run(self) -> None:
        backoff = 0.5
        wait = 0.0  # the first request answers at once: the node is live as soon as it is
        while not self._stop.is_set():
            try:
                self.catch_up(wait)
                self._set_status("live")
                wait, backoff = self.wait, 0.5
            except Exception as exc:  # noqa: BLE001 - nothing may end the thread: say it, keep the last good catalog
                if self._stop.is_set():
                    break
                reason = str(exc) if isinstance(exc, ToolsearchError) else f"{type(exc).__name__}: {exc}"
                self.last_error = redact(_printable(" ".join(reason.split())))[:300]
                self._set_status(f"disconnected: {self.last_error}; serving version {self.version}")
                self._stop.wait(backoff)
                backoff, wait = min(backoff * 2, MAX_BACKOFF), 0.0

    def catch_up(self, wait: float = 0.0) -> bool:
        """One long poll (``wait`` seconds at most); hands on what changed. ``True`` when anything did."""
        reply = self.source.checked(
            self.source.request(
                "changes",
                {"since": self.version, "wait": f"{wait:g}", **({"etag": self.etag} if self.etag else {})},
                timeout=wait + 60,
                holder=self._hold,
            )
        )
        where = self.source.display
        doc = _document(reply.body, where)
        if doc.get("changed") is not True:
            if doc.get("changed") is not False:
                raise _fail(f"registry {where}: the reply does not say whether anything changed")
            return False
        version = doc.get("version")
        removed = doc.get("removed", [])
        catalog = doc.get("catalog")
        if not isinstance(version, int) or isinstance(version, bool) or version < 0:
            raise _fail(f"registry {where}: the reply names no version")
        if not isinstance(removed, list) or not all(isinstance(n, str) for n in removed):
            raise _fail(f"registry {where}: 'removed' is not a list of names")
        if not isinstance(catalog, dict):
            raise _fail(f"registry {where}: the reply holds no catalog")
        from .store import Changes

        resident, groups = _canonical(catalog, "resident"), _canonical(catalog, "groups")
        name = self.source.namespace
        if doc.get("full") is True or resident != self._resident or groups != self._groups:
            if doc.get("full") is not True:  # resident tools or groups changed: take the whole catalog
                snap = self.source.snapshot()
            else:
                snap = self.source._snapshot(catalog, version, str(doc.get("etag", "")))
            changes = Changes(name, self.version, snap.version, full=snap)
            self._resident, self._groups = snap.resident_json, snap.groups_json
        else:
            snap = self.source._snapshot(catalog, version, str(doc.get("etag", "")))
            changes = Changes(name, self.version, version, upsert=snap.tools, removed=removed)
        self.on_change(changes)
        self.version = changes.version
        etag = changes.full.digest if changes.full is not None else doc.get("etag")
        self.etag = etag if isinstance(etag, str) and len(etag) < 100 else ""
        return True


__all__ = ["HttpRegistrySource", "HttpWatcher", "tokens_from"]
