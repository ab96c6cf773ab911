"""Live sync: a running tool search follows a registry namespace, changes applied in place.

:class:`RegistryWatcher` is the engine-agnostic part: a daemon thread holding one connection
that ``LISTEN``\\ s on :data:`~.store.CHANNEL` and also polls the namespace's version every
``poll_interval`` seconds (the fallback when notifications are lost, e.g. through a pooler). On
each new version it reads what changed since the version it holds (one snapshot) and hands the
:class:`~.store.Changes` to ``on_change``. When the connection is lost it says so (``status``,
``on_status`` and a ``toolsearch.registry`` log warning), keeps the last good version, and
reconnects with a growing pause (up to :data:`MAX_BACKOFF` seconds). A version it cannot read
(a row over the readers' bounds, not a tool, invalid JSON, too deep, bad resident names or
groups; the namespace dropped; an error while applying it) makes it ``stale``: it keeps the last
good version, says so once (status ``stale: version V cannot be read (<why>); serving version
N``), does not read that version again, and follows again at the next version it can read.
Nothing escapes its thread: whatever goes wrong is a one-line status and log line. The log
warning is said once per outage (an outage whose reason changes is still one outage).

:func:`apply_changes` applies a change set to a :class:`~toolsearch_cli.disclosure.engine.DisclosureEngine`
in place: its catalog, its catalog manager (whose ranker's index is updated tool by tool by
``Catalog.add_tool`` / ``remove_tool``, never rebuilt) and its all-tools baseline.

:class:`LiveToolSearch` is a :class:`~toolsearch_cli.agent.ToolSearch` over one registry source
that follows it: ``request``/``handle`` and the applying of changes hold one lock, so a request
sees the catalog before a change or after it, never half of one. A change to the resident tools
or the groups (rare) rebuilds the engine from the snapshot instead.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..agent import Handled, Request, ToolSearch
from ..model import Catalog
from .source import RegistrySource, parse_registry_source
from .store import Changes, RegistryError, Snapshot
from .watch_thread import FollowerThread

log = logging.getLogger("toolsearch.registry")

POLL_INTERVAL = 0.5
MAX_BACKOFF = 5.0
#: The longest reason a status line carries (a hostile row's error could be long).
MAX_REASON = 300


def in_outage(status: str) -> bool:
    """Whether a watcher's status says it serves an older version than the registry's: its
    connection is lost (``disconnected``) or a newer version could not be read (``stale``)."""
    return status.startswith(("disconnected", "stale"))


def one_line(exc: BaseException) -> str:
    """An exception as one bounded line, secrets masked (a status or log line)."""
    from ..errors import ToolsearchError
    from ..redaction import redact

    text = str(exc) if isinstance(exc, ToolsearchError) else f"{type(exc).__name__}: {exc}"
    first = next((line.strip() for line in text.splitlines() if line.strip()), type(exc).__name__)
    if len(first) > MAX_REASON:
        first = first[: MAX_REASON - 3] + "..."
    return redact(first)


class RegistryWatcher(FollowerThread):
    """Follows one namespace from ``version`` on; see the module docstring."""

    def __init__(
        self,
        source: str | RegistrySource,
        on_change: Callable[[Changes], None],
        *,
        version: int,
        resident_json: str = "[]",
        groups_json: str = "[]",
        poll_interval: float = POLL_INTERVAL,
        on_status: Callable[[str], None] | None = None,
    ) -> None:
        self.source = source if isinstance(source, RegistrySource) else parse_registry_source(source)
        self.source.require_namespace()
        self.on_change = on_change
        self.on_status = on_status
        self.poll_interval = poll_interval
        #: The registry version applied last.
        self.version = version
        self._resident, self._groups = resident_json, groups_json
        #: ``starting``, ``live`` (connected, following), ``disconnected: <why>; serving version N``,
        #: or ``stale: version V cannot be read (<why>); serving version N``.
        self._init_thread()
        #: A registry version that could not be read: not read again (the next one is).
        self.bad_version: int | None = None
        self._seen: int | None = None  # the registry's version as the last catch-up found it
        #: The namespace was found missing (dropped): its next version is read whole, whatever its number.
        self._gone = False
        self._stale_status = "stale"
        #: Whether NOTIFY reaches this node (a streaming replica gets none: the poll follows it).
        self.listening = False

    thread_name = "toolsearch-registry-watch"

    def start(self) -> RegistryWatcher:
        super().start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        conn = self._conn
        if conn is not None:
            try:
                conn.cancel_safe(timeout=1.0) if hasattr(conn, "cancel_safe") else conn.cancel()
            except Exception:  # noqa: BLE001 - stopping: a failed cancel only delays the join
                pass
        if self._thread is not None:
            self._thread.join(timeout)

    def _set_status(self, status: str) -> None:
        if status == self.status:
            return
        was_out = in_outage(self.status)
        self.status = status
        if in_outage(status):
            if not was_out:  # once per outage, whatever its reasons while it lasts
                log.warning("registry %s: %s", self.source.display, status)
            else:
                log.debug("registry %s: %s", self.source.display, status)
        elif status == "live":
            log.info("registry %s: following at version %d", self.source.display, self.version)
        if self.on_status is not None:
            try:
                self.on_status(status)
            except Exception as exc:  # noqa: BLE001 - a caller's callback must not end the watcher
                log.warning("registry %s: the status callback failed: %s", self.source.display, one_line(exc))

    def _run(self) -> None:
        try:
            self._follow()
        except BaseException as exc:  # noqa: BLE001 - nothing escapes the thread: one line, then it ends
            log.error("registry %s: the watcher stopped: %s", self.source.display, one_line(exc))
            self.status = f"disconnected: the watcher stopped ({one_line(exc)}); serving version {self.version}"

    def _follow(self) -> None:
        from .store import CHANNEL, _reason, connect, driver

        psycopg = driver()
        backoff = self.poll_interval
        while not self._stop.is_set():
            try:
                with connect(self.source) as conn:
                    self._conn = conn
                    try:
                        conn.execute(f"LISTEN {CHANNEL}")
                        self.listening = True
                    except psycopg.Error:  # a hot standby cannot LISTEN: the version poll alone follows it
                        self.listening = False
                    self._step(conn, psycopg)
                    backoff = self.poll_interval
                    while not self._stop.is_set():
                        mine = False
                        for note in conn.notifies(timeout=self.poll_interval, stop_after=1):
                            mine = mine or note.payload == self.source.namespace
                        # a notification for this namespace, or the poll: either way compare versions
                        self._step(conn, psycopg)
            except Exception as exc:  # noqa: BLE001 - the connection, or anything else: kept serving, retried
                if self._stop.is_set():
                    break
                if isinstance(exc, RegistryError):
                    self.last_error = exc.message
                elif isinstance(exc, psycopg.Error):
                    self.last_error = _reason(exc)
                else:
                    self.last_error = one_line(exc)
                self._set_status(f"disconnected: {self.last_error}; serving version {self.version}")
            finally:
                self._conn = None
            self._stop.wait(backoff)
            backoff = min(backoff * 2, MAX_BACKOFF)

    def _step(self, conn: Any, psycopg: Any) -> None:
        """One catch-up: ``live`` after it, or ``stale`` when the registry's version cannot be read
        or applied (the connection's own errors go up: the caller reconnects)."""
        try:
            self.catch_up(conn)
        except psycopg.Error:
            raise
        except Exception as exc:  # noqa: BLE001 - a row it cannot read, the namespace gone, an apply that failed
            seen = self._seen
            if seen is None and isinstance(exc, RegistryError):
                self._gone = True  # dropped: a namespace pushed again under that name starts over at version 1
            self.bad_version = seen
            self.last_error = one_line(exc)
            what = f"version {seen} cannot be read" if seen is not None else "the namespace cannot be read"
            self._stale_status = f"stale: {what} ({self.last_error}); serving version {self.version}"
            self._set_status(self._stale_status)
            return
        # after a reconnection the registry may still be at the version found unreadable: stale again
        self._set_status("live" if self.bad_version is None else self._stale_status)

    def catch_up(self, conn: Any) -> bool:
        """Read and hand on what changed since :attr:`version`; ``True`` when anything did. A version
        found unreadable before (:attr:`bad_version`) is not read again; the next one is."""
        from .store import changes_since, current_version

        self._seen = None
        seen = current_version(conn, self.source)
        self._seen = seen
        if seen == self.bad_version or (seen == self.version and not self._gone):
            return False
        if self._gone:
            from .store import read_snapshot_on

            snap = read_snapshot_on(conn, self.source)
            changes = Changes(snap.namespace, self.version, snap.version, full=snap)
        else:
            changes = changes_since(conn, self.source, self.version, self._resident, self._groups)
        self._seen = changes.version
        if changes.empty:
            self.bad_version = None
            return False
        self.on_change(changes)
        self.version = changes.version
        self.bad_version = None
        self._gone = False
        if changes.full is not None:
            self._resident, self._groups = changes.full.resident_json, changes.full.groups_json
        return True


def apply_to_catalog(catalog: Catalog, manager: Any, changes: Changes) -> list[Any]:
    """Apply added/changed/removed tools to a catalog and its catalog manager in place (indexes
    updated tool by tool, the removals in one pass); returns the tools taken out, for
    :func:`adjust_baseline`. Several engines sharing one catalog and manager (a server's
    per-context engines) call this once, then :func:`adjust_baseline` for each engine."""
    names = [*changes.removed, *(t.name for t in changes.upsert)]
    old = [t for t in (catalog.get(n) for n in dict.fromkeys(names)) if t is not None]
    if old:
        catalog.remove_tools([t.name for t in old])
        for tool in old:
            manager.unregister(tool.name)
    catalog.add_tools(changes.upsert)  # one copy of the catalog's tools, however many come
    for tool in changes.upsert:
        manager.register(tool, replace=True)
    return old


def adjust_baseline(engine: Any, old: Sequence[Any], new: Sequence[Any]) -> None:
    """An engine's all-tools baseline after ``old`` tools left and ``new`` ones came: its list, and
    its token count adjusted by each tool's own count (not re-counted as one array)."""
    from ..tokens import tool_tokens

    baseline = engine.baseline_tools
    in_baseline = {id(t) for t in baseline}
    # not counted yet (an engine counts on first read): the list changes, the count comes later
    counted = getattr(engine, "baseline_counted", True)
    delta = 0
    for tool in old:
        cached = engine._tokens.pop(id(tool), None)
        if id(tool) in in_baseline and counted:
            delta -= cached if cached is not None else tool_tokens(tool, engine.counter)
    if old:
        gone = {id(t) for t in old}
        baseline[:] = [t for t in baseline if id(t) not in gone]
    for tool in new:
        if tool.visible_to(engine.context):
            baseline.append(tool)
            if counted:
                delta += tool_tokens(tool, engine.counter)
    if counted:
        engine.baseline_tool_tokens += delta


def apply_changes(engine: Any, changes: Changes) -> bool:
    """Apply added/changed/removed tools to a disclosure engine in place; ``False`` (nothing done)
    when the change needs a rebuild instead: a full snapshot, or a change to a resident tool."""
    if changes.full is not None:
        return False
    resident = {t.name for t in engine.prompt_tools}
    if any(t.name in resident for t in changes.upsert) or any(n in resident for n in changes.removed):
        return False
    old = apply_to_catalog(engine.catalog, engine.manager, changes)
    adjust_baseline(engine, old, changes.upsert)
    return True


class LiveToolSearch(ToolSearch):
    """A :class:`ToolSearch` over one registry namespace that follows its changes (see the module docstring).

    ``source``: ``postgresql://…/db?namespace=NAME``; other keyword options are
    :class:`ToolSearch`'s. The watcher starts at once unless ``start=False``; :meth:`close` (or a
    ``with`` block) stops it. :attr:`status` says whether the node is following the registry
    (``live``), has lost it (``disconnected: …``) or met a version it cannot read (``stale: …``):
    in both outages it answers from the last version it read, and a ``toolsearch.registry``
    warning is logged once per outage."""

    def __init__(
        self,
        source: str,
        *,
        poll_interval: float = POLL_INTERVAL,
        start: bool = True,
        on_status: Callable[[str], None] | None = None,
        **options: Any,
    ) -> None:
        from .store import read_snapshot

        parsed = parse_registry_source(source)
        parsed.require_namespace()
        snap = read_snapshot(parsed, cache=True)
        self._lock = threading.RLock()
        self._options = options
        self._display = parsed.display
        catalog = snap.catalog if snap.catalog is not None else self._catalog_of(snap)
        super().__init__(catalog, **options)
        self.engine.baseline_tool_tokens  # noqa: B018 - counted now, so the cache entry written next keeps it
        _keep_warm(snap, catalog, options.get("ranker", "default"))
        #: How many changes were applied in place, and how many needed a rebuild.
        self.applied = 0
        self.rebuilt = 0
        self.watcher = RegistryWatcher(
            parsed,
            self._apply,
            version=snap.version,
            resident_json=snap.resident_json,
            groups_json=snap.groups_json,
            poll_interval=poll_interval,
            on_status=on_status,
        )
        if start:
            self.watcher.start()

    def _catalog_of(self, snap: Snapshot) -> Catalog:
        return Catalog(tools=snap.tools, resident=snap.resident, sources=[self._display], groups=snap.groups)

    @property
    def version(self) -> int:
        """The registry version this node serves."""
        return self.watcher.version

    @property
    def status(self) -> str:
        return self.watcher.status

    def _apply(self, changes: Changes) -> None:
        with self._lock:
            if apply_changes(self.engine, changes):
                self.applied += 1
                return
            if changes.full is not None:
                snap = changes.full
            else:
                from .store import read_snapshot

                snap = read_snapshot(self.watcher.source)
            from ..disclosure.engine import DisclosureEngine

            old = self.engine
            self.engine = DisclosureEngine(
                self._catalog_of(snap),
                context=old.context,
                policy=self._options.get("policy", "latest"),
                max_active=old.max_active,
                ranker=self._options.get("ranker", "default"),
                resident=self._options.get("resident", ()),
                embed=self.embed,
            )
            self.rebuilt += 1

    def request(self, messages: Sequence[Mapping[str, Any]]) -> Request:
        with self._lock:
            return super().request(messages)

    def handle(self, name: str, arguments: object, request: Request | None = None) -> Handled:
        with self._lock:
            return super().handle(name, arguments, request)

    def wait_for(self, version: int, timeout: float = 5.0) -> bool:
        """Wait until this node serves ``version`` (or a later one); ``False`` on timeout."""
        deadline = time.monotonic() + timeout
        while self.watcher.version < version:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.01)
        return True

    def close(self) -> None:
        self.watcher.stop()

    def __enter__(self) -> LiveToolSearch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _keep_warm(snap: Snapshot, catalog: Catalog, ranker: str) -> None:
    """Build what the node's searches read (the default index, the name look-up, the suggestions'
    vocabulary) and write them to the cache entry of this namespace version with the engine's
    baseline, unless the entry holds them already: a node started on the same version again
    builds nothing (at 100,000 tools it built 5 s of index and counted 12 s of baseline each time).
    The manager's catalog takes the index over at its first search (see
    :func:`toolsearch_cli.indexes.cached_index`)."""
    if snap.cache_key is None or catalog is not snap.catalog:
        return
    from .. import indexes

    if ranker == "default":
        from ..search.bm25f import default_index
        from ..search.name_lookup import lookup_of
        from ..search.names import vocabulary_of

        default_index(catalog)
        lookup_of(catalog)
        vocabulary_of(catalog)
    built = indexes.built(catalog)
    if snap.cache_stored < frozenset(built):
        from ..catalog import cache as catalog_cache

        catalog_cache.store(snap.cache_key, catalog, built)


__all__ = ["LiveToolSearch", "RegistryWatcher", "adjust_baseline", "apply_changes", "apply_to_catalog"]
