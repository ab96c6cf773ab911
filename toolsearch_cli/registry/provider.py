"""The tool provider interface of the design document, and two providers that implement it.

A :class:`ToolProvider` keeps tool metadata and searches it::

    save(tool)                       add a tool, or replace the one of the same name
    get(name) -> Tool | None         the tool of that name (the design document's findByName)
    all() -> list[Tool]              every tool (findAll)
    search(query, category=None, limit=10) -> list[str]   tool names, best first
    remove(name) -> bool             False when there was no such tool
    clear()                          remove every tool

Every method is safe to call from several threads at once. ``search`` has the signature of
:class:`~toolsearch_cli.disclosure.manager.SearchProvider`, so a provider can be handed to a
:class:`~toolsearch_cli.disclosure.manager.CatalogManager` (``CatalogManager(tools,
provider=...)``); as the design document says, names it returns that the manager cannot resolve
to an executable tool are dropped.

* :class:`InMemoryToolProvider`: in this process, ranked by a built-in ranker (``default``: BM25F).
* :class:`PostgresToolProvider`: one namespace of a shared PostgreSQL registry; every node sees
  every other node's ``save``/``remove``. It ranks locally, over its copy of the namespace
  brought up to the registry's version (changes applied in place) before each search, so its
  rankings are those of the same tools loaded from a file.

:mod:`toolsearch_cli.registry.testing` has a test suite any provider can run.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from ..errors import CatalogError
from ..model import RESERVED_NAMES, Catalog, Tool
from ..search.base import SearchRequest

if TYPE_CHECKING:
    from ..search.embed_settings import EmbedSettings
    from .source import RegistrySource


@runtime_checkable
class ToolProvider(Protocol):
    """Keeps tool metadata and searches it: the contract every provider keeps, and
    :class:`~toolsearch_cli.registry.testing.ProviderContract` checks.

    Thread-safety: every method may be called from several threads at once; a call sees the tools
    before another call's change or after it, never half of it.

    Errors: every method may raise the store's own :class:`~toolsearch_cli.errors.ToolsearchError`
    (a PostgreSQL provider: :class:`~toolsearch_cli.registry.store.RegistryError` when the registry
    cannot be reached, refuses the role, or has no usable schema); reads (``all``, ``search``,
    ``get``) may raise :class:`~toolsearch_cli.errors.CatalogError` for a stored tool no reader
    accepts. Nothing else is raised for bad data.

    The name ``toolSearch`` is reserved (the search tool's own, :data:`toolsearch_cli.model.RESERVED_NAMES`):
    ``save`` refuses it, as it refuses what is not a :class:`~toolsearch_cli.model.Tool` and an empty
    name, with :class:`~toolsearch_cli.errors.CatalogError`.
    """

    def save(self, tool: Tool) -> None:
        """Add ``tool``, or replace the tool of the same name. Raises ``CatalogError`` for a reserved
        name, an empty name or a value that is not a ``Tool`` (and, for a registry, a tool its
        readers would refuse: over the row limit, too deeply nested)."""
        ...

    def get(self, name: str) -> Tool | None:
        """The tool of that name (the design document's ``findByName``), or ``None``."""
        ...

    def all(self) -> list[Tool]:
        """Every tool (``findAll``); no order is promised."""
        ...

    def search(self, query: str, category: str | None = None, limit: int = 10) -> list[str]:
        """Names of the tools that best match ``query`` (in ``category`` when given), best first, at
        most ``limit``; ``[]`` when ``limit <= 0``. The signature of a
        :class:`~toolsearch_cli.disclosure.manager.SearchProvider`."""
        ...

    def remove(self, name: str) -> bool:
        """Remove the tool of that name; ``False`` when there was none."""
        ...

    def clear(self) -> None:
        """Remove every tool."""
        ...


def _check_tool(tool: Any) -> Tool:
    if not isinstance(tool, Tool):
        raise CatalogError(f"a provider saves Tool objects, not {type(tool).__name__}", field="tool")
    if tool.name in RESERVED_NAMES:
        raise CatalogError(f"the name {tool.name!r} is reserved for the search tool", tool=tool.name, field="name")
    if not tool.name.strip():
        raise CatalogError("a tool needs a non-empty name", field="name")
    return tool


class _LocalIndex:
    """A catalog and a ranker over it, changed tool by tool (indexes updated in place, not rebuilt)."""

    def __init__(self, ranker: str, embed: EmbedSettings | None) -> None:
        from ..search import get_ranker

        self.ranker = get_ranker(ranker, embed)
        self.catalog = Catalog()

    def put(self, tool: Tool) -> None:
        if tool.name in self.catalog:
            self.catalog.remove_tool(tool.name)
        self.catalog.add_tool(tool)

    def drop(self, name: str) -> bool:
        if name not in self.catalog:
            return False
        self.catalog.remove_tool(name)
        return True

    def search(self, query: str, category: str | None, limit: int) -> list[str]:
        if limit <= 0 or not len(self.catalog):
            return []
        request = SearchRequest(query=query, max_results=limit, category=category, explain=False)
        return [hit.name for hit in self.ranker.search(self.catalog, request)]


class InMemoryToolProvider:
    """Tools kept in this process (a lock guards every call); ``ranker`` is a built-in ranker's name."""

    def __init__(self, tools: Iterable[Tool] = (), *, ranker: str = "default", embed: EmbedSettings | None = None):
        self._lock = threading.RLock()
        self._ranker_name, self._embed = ranker, embed
        self._index = _LocalIndex(ranker, embed)
        for tool in tools:
            self.save(tool)

    def save(self, tool: Tool) -> None:
        _check_tool(tool)
        with self._lock:
            self._index.put(tool)

    def get(self, name: str) -> Tool | None:
        with self._lock:
            return self._index.catalog.get(name)

    def all(self) -> list[Tool]:
        with self._lock:
            return list(self._index.catalog.tools)

    def search(self, query: str, category: str | None = None, limit: int = 10) -> list[str]:
        with self._lock:
            return self._index.search(query, category, limit)

    def remove(self, name: str) -> bool:
        with self._lock:
            return self._index.drop(name)

    def clear(self) -> None:
        with self._lock:
            self._index = _LocalIndex(self._ranker_name, self._embed)

    def __len__(self) -> int:
        with self._lock:
            return len(self._index.catalog)


class PostgresToolProvider:
    """One namespace of a PostgreSQL registry as a :class:`ToolProvider` (see the module docstring).

    ``url``: ``postgresql://…/db`` (``?namespace=NAME`` or ``namespace=``). One connection,
    guarded by a lock; the namespace is created on the first ``save``."""

    def __init__(
        self,
        url: str,
        namespace: str | None = None,
        *,
        ranker: str = "default",
        embed: EmbedSettings | None = None,
    ) -> None:
        from .source import parse_registry_source
        from .store import connect

        self.source: RegistrySource = parse_registry_source(url, namespace)
        self.source.require_namespace()
        self._lock = threading.RLock()
        self._connect = connect
        self._conn: Any = None
        self._ranker_name, self._embed = ranker, embed
        self._index = _LocalIndex(ranker, embed)
        self._version = 0
        self._resident = self._groups = "[]"

    # -- connection ---------------------------------------------------------------------------

    def _connection(self) -> Any:
        if self._conn is None or self._conn.closed:
            self._manager = self._connect(self.source)
            self._conn = self._manager.__enter__()
        return self._conn

    def _call(self, work: Any) -> Any:
        """Run ``work(conn)``; a broken connection is dropped (the next call reconnects)."""
        from .store import driver

        psycopg = driver()
        with self._lock:
            conn = self._connection()
            try:
                return work(conn)
            except psycopg.Error as exc:
                from .store import RegistryError, _reason

                self.close()
                raise RegistryError(f"the registry {self.source.display} failed: {_reason(exc)}") from None

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                try:
                    self._conn.close()
                finally:
                    self._conn = None

    def __enter__(self) -> PostgresToolProvider:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the interface ------------------------------------------------------------------------

    def save(self, tool: Tool) -> None:
        from .store import edit

        _check_tool(tool)
        self._call(lambda conn: edit(conn, self.source, upsert=[tool]))

    def remove(self, name: str) -> bool:
        from .store import edit

        plan = self._call(lambda conn: edit(conn, self.source, remove=[name]))
        return bool(plan.removed)

    def clear(self) -> None:
        from .store import edit

        self._call(lambda conn: edit(conn, self.source, clear=True))

    def get(self, name: str) -> Tool | None:
        def read(conn: Any) -> Tool | None:
            from . import codec
            from .store import _read_only

            with _read_only(conn):
                row = conn.execute(
                    "SELECT body FROM toolsearch_tools WHERE namespace = %s AND name = %s",
                    (self.source.namespace, name),
                ).fetchone()
            if row is None:
                return None
            return codec.decode([(name, row[0])], "[]", "[]", self.source.display).tools[0]

        if self._schema_missing():
            return None
        return self._call(read)  # type: ignore[no-any-return]

    def all(self) -> list[Tool]:
        with self._lock:
            self._refresh()
            return list(self._index.catalog.tools)

    def search(self, query: str, category: str | None = None, limit: int = 10) -> list[str]:
        with self._lock:
            self._refresh()
            return self._index.search(query, category, limit)

    @property
    def version(self) -> int:
        """The registry version the local index holds."""
        return self._version

    # -- the local index ----------------------------------------------------------------------

    def _schema_missing(self) -> bool:
        from .store import schema_version

        return bool(self._call(lambda conn: schema_version(conn) == 0))

    def _refresh(self) -> None:
        """Bring the local index to the registry's version (changes applied in place)."""
        from .store import RegistryError, changes_since

        if self._schema_missing():
            self._index = _LocalIndex(self._ranker_name, self._embed)
            self._version = 0
            return
        try:
            changes = self._call(
                lambda conn: changes_since(conn, self.source, self._version, self._resident, self._groups)
            )
        except RegistryError as exc:
            if "no namespace" not in exc.message:
                raise
            self._index = _LocalIndex(self._ranker_name, self._embed)
            self._version = 0
            return
        if changes.full is not None:
            self._index = _LocalIndex(self._ranker_name, self._embed)
            for tool in changes.full.tools:
                self._index.put(tool)
            self._resident, self._groups = changes.full.resident_json, changes.full.groups_json
        else:
            for name in changes.removed:
                self._index.drop(name)
            for tool in changes.upsert:
                self._index.put(tool)
        self._version = changes.version


__all__ = ["InMemoryToolProvider", "PostgresToolProvider", "ToolProvider"]
