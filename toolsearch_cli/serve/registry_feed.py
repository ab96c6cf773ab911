"""Registry sources of ``toolsearch serve`` kept live (issue 23): ``postgresql://…?namespace=N``.

A :class:`RegistryFeed` reads its namespace once (``read_snapshot``, through the catalog cache),
then a :class:`~toolsearch_cli.registry.sync.RegistryWatcher` follows it (``LISTEN/NOTIFY`` plus a
version poll). Each change is applied to the gateway under its lock: in place (catalog, catalog
manager, every cached engine's baseline) when it only adds, changes or removes this source's own
tools under their own names; by a rebuild otherwise (resident tools or groups changed, a name
that collides with another source's). When the connection drops the gateway keeps serving the
last good catalog; the feed says so (a stderr notice, and ``registry`` in ``toolSearch`` results).
The registry holds definitions, not servers: its tools are served only where the ``--catalog-via``
upstream runs them.
A namespace of the registry's HTTP API (``https://…/namespaces/N``) is a feed the same way: read
once, then followed by long poll (:class:`~toolsearch_cli.registry.http_source.HttpWatcher`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..model import Tool
from ..registry.http_source import HttpRegistrySource
from ..registry.kind import RegistryCatalogSource


class RegistryFeed:
    """One registry source of the gateway: its current tools, and the watcher that follows it."""

    def __init__(
        self, source: RegistryCatalogSource | HttpRegistrySource, *, poll_interval: float | None = None
    ) -> None:
        from ..registry.store import read_snapshot

        self.source = source
        self.parsed = source.parsed
        self.parsed.require_namespace()
        self.display = self.parsed.display
        snap = source.snapshot() if isinstance(source, HttpRegistrySource) else read_snapshot(source.parsed, cache=True)
        self.version = snap.version
        self.tools: list[Tool] = [self._own(t) for t in snap.tools]
        self.resident: list[str] = list(snap.resident)
        self.groups: list[Any] = list(snap.groups)
        self._snap_json = (snap.resident_json, snap.groups_json)
        self._etag = snap.digest if isinstance(source, HttpRegistrySource) else ""  # its ETag
        self._poll = poll_interval
        self.watcher: Any = None
        #: ``live``, ``starting``, ``disconnected: <why>; serving version N`` or
        #: ``stale: version V cannot be read (<why>); serving version N`` (see :mod:`..registry.sync`).
        self.status = "starting"
        #: Whether a lost connection was announced (so its return is announced too).
        self.said_down = False

    def _own(self, tool: Tool) -> Tool:
        if self.parsed.alias and tool.category is None:
            tool.category = self.parsed.alias
        return tool

    def start(
        self, on_change: Callable[[RegistryFeed, Any], None], on_status: Callable[[RegistryFeed, str], None]
    ) -> None:
        from ..registry.sync import POLL_INTERVAL, RegistryWatcher

        def status(text: str) -> None:
            self.status = text
            on_status(self, text)

        if isinstance(self.source, HttpRegistrySource):
            self.watcher = self.source.follow(
                lambda changes: on_change(self, changes),
                version=self.version,
                resident_json=self._snap_json[0],
                groups_json=self._snap_json[1],
                on_status=status,
                etag=self._etag,
            )
            return
        self.watcher = RegistryWatcher(
            self.source.parsed,
            lambda changes: on_change(self, changes),
            version=self.version,
            resident_json=self._snap_json[0],
            groups_json=self._snap_json[1],
            poll_interval=self._poll or POLL_INTERVAL,
            on_status=status,
        ).start()

    def stop(self) -> None:
        if self.watcher is not None:
            self.watcher.stop()
            self.watcher = None

    def absorb(self, changes: Any) -> None:
        """Take a change set into this feed's own tool list (what the next rebuild merges)."""
        if changes.full is not None:
            snap = changes.full
            self.tools = [self._own(t) for t in snap.tools]
            self.resident, self.groups = list(snap.resident), list(snap.groups)
        else:
            gone = set(changes.removed) | {t.name for t in changes.upsert}
            kept = [t for t in self.tools if t.name not in gone]
            self.tools = kept + [self._own(t) for t in changes.upsert]
        self.version = changes.version
