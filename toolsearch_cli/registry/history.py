"""A namespace's history (schema 2): old versions read back exactly, diffed, rolled back to;
the namespaces listed and dropped. ``toolsearch registry log|diff|rollback|namespaces|drop``.

How a version is kept (see :mod:`.store`): each version's row in ``toolsearch_versions`` holds
its tool names in order (``names``, JSON), its resident names and its groups; a tool row a push
replaces or removes moves to ``toolsearch_history`` with the versions it was valid for
(``valid_from`` <= v < ``valid_to``). The body of tool ``n`` at version ``v`` is then its current
row when that was written at ``v`` or before, else the history row valid at ``v``. A push prunes
what falls out of the retention (the last ``retention`` versions of the namespace keep their
bodies; older ones keep their counts, their names are cleared).

A rollback is a push of an old version's catalog: a new version whose content equals the old
one, recorded and announced as any push is, so every follower applies it in place.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import psycopg

    from .source import RegistrySource
    from .store import PushPlan, Snapshot


# ---------------------------------------------------------------------------------------------
# reads


@dataclass(slots=True)
class VersionEntry:
    """One line of ``registry log``."""

    version: int
    pushed_at: str
    added: int
    changed: int
    removed: int
    digest: str
    kept: bool  # whether its bodies are kept (within the retention): diff and rollback can use it

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "pushed_at": self.pushed_at,
            "added": self.added,
            "changed": self.changed,
            "removed": self.removed,
            "digest": self.digest,
            "kept": self.kept,
        }


@dataclass(slots=True)
class NamespaceEntry:
    """One line of ``registry namespaces``."""

    name: str
    version: int
    tools: int
    updated_at: str

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "version": self.version, "tools": self.tools, "updated_at": self.updated_at}


@dataclass(slots=True)
class VersionDiff:
    """What differs from version ``old`` to version ``new`` of a namespace (tool names)."""

    namespace: str
    old: int
    new: int
    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    moved: bool = False  # the same tools in another order
    resident_changed: bool = False
    groups_changed: bool = False

    @property
    def empty(self) -> bool:
        return not (
            self.added or self.changed or self.removed or self.moved or self.resident_changed or self.groups_changed
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "namespace": self.namespace,
            "old": self.old,
            "new": self.new,
            "added": self.added,
            "changed": self.changed,
            "removed": self.removed,
            "moved": self.moved,
            "resident_changed": self.resident_changed,
            "groups_changed": self.groups_changed,
        }


def _when(value: Any) -> str:
    return value.isoformat(timespec="seconds") if hasattr(value, "isoformat") else str(value)


def log_on(conn: psycopg.Connection[Any], source: RegistrySource, limit: int = 20) -> list[VersionEntry]:
    """The namespace's versions, newest first (at most ``limit``)."""
    from .store import _check_readable, _namespace_row, _read_only

    name = source.require_namespace()
    with _read_only(conn):
        schema = _check_readable(conn, source)
        _namespace_row(conn, source, name)
        kept = "names IS NOT NULL" if schema >= 2 else "false"
        rows = conn.execute(
            f"SELECT version, pushed_at, added, changed, removed, digest, {kept} FROM toolsearch_versions "
            "WHERE namespace = %s ORDER BY version DESC LIMIT %s",
            (name, max(0, limit)),
        ).fetchall()
    return [VersionEntry(int(v), _when(at), int(a), int(c), int(r), d, bool(k)) for v, at, a, c, r, d, k in rows]


def namespaces_on(conn: psycopg.Connection[Any], source: RegistrySource) -> list[NamespaceEntry]:
    """Every namespace of the registry, by name."""
    from .store import _check_readable, _read_only

    with _read_only(conn):
        _check_readable(conn, source)
        rows = conn.execute(
            "SELECT n.name, n.version, (SELECT count(*) FROM toolsearch_tools t WHERE t.namespace = n.name), "
            "n.updated_at FROM toolsearch_namespaces n ORDER BY n.name"
        ).fetchall()
    return [NamespaceEntry(n, int(v), int(c), _when(at)) for n, v, c, at in rows]


def _version_row(conn: psycopg.Connection[Any], source: RegistrySource, version: int) -> tuple[list[str], str, str]:
    """``(names in order, resident JSON, groups JSON)`` of a kept version; else a one-line error."""
    from . import codec
    from .store import RegistryError, _namespace_row

    name = source.require_namespace()
    current = int(_namespace_row(conn, source, name)[0])
    row = conn.execute(
        "SELECT names, resident, groups FROM toolsearch_versions WHERE namespace = %s AND version = %s",
        (name, version),
    ).fetchone()
    if row is None:
        raise RegistryError(f"namespace {name!r} has no version {version} (its versions are 1 to {current})")
    if row[0] is None:
        raise RegistryError(
            f"version {version} of namespace {name!r} is past the registry's retention: its tools are not kept "
            f"(`toolsearch registry log` marks the kept versions)"
        )
    names = codec.parse_row(row[0], f"{source.display}@{version}#names")
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise RegistryError(f"the stored names of version {version} are not a list of names", file=source.display)
    return names, row[1] or "[]", row[2] or "[]"


def _bodies_at(
    conn: psycopg.Connection[Any], namespace: str, version: int, *, bodies: bool
) -> dict[str, tuple[str, str]]:
    """``{name: (hash, body or "")}`` of every tool row valid at ``version``."""
    column = "body" if bodies else "''"
    rows = conn.execute(
        f"SELECT name, hash, {column} FROM toolsearch_tools WHERE namespace = %s AND version <= %s "
        f"UNION ALL SELECT name, hash, {column} FROM toolsearch_history "
        "WHERE namespace = %s AND valid_from <= %s AND %s < valid_to",
        (namespace, version, namespace, version, version),
    ).fetchall()
    return {n: (h, b) for n, h, b in rows}


def _require_history(conn: psycopg.Connection[Any], source: RegistrySource) -> None:
    from .store import MIN_WRITABLE_SCHEMA, RegistryError, _check_readable

    if _check_readable(conn, source) < MIN_WRITABLE_SCHEMA:  # history came with schema 2
        raise RegistryError(
            f"the registry {source.display} keeps no history before schema {MIN_WRITABLE_SCHEMA}: "
            "its owner upgrades it with `toolsearch registry migrate`"
        )


def read_version_on(conn: psycopg.Connection[Any], source: RegistrySource, version: int) -> Snapshot:
    """Version ``version`` of the namespace as it was pushed (validated as every read is)."""
    from . import codec
    from .store import RegistryError, Snapshot, _read_only

    name = source.require_namespace()
    with _read_only(conn):
        _require_history(conn, source)
        names, resident_json, groups_json = _version_row(conn, source, version)
        found = _bodies_at(conn, name, version, bodies=True)
        digest_row = conn.execute(
            "SELECT digest FROM toolsearch_versions WHERE namespace = %s AND version = %s", (name, version)
        ).fetchone()
    missing = [n for n in names if n not in found]
    if missing:
        raise RegistryError(f"version {version} of namespace {name!r} lacks the body of tool {missing[0]!r}")
    decoded = codec.decode([(n, found[n][1]) for n in names], resident_json, groups_json, f"{source.display}@{version}")
    return Snapshot(
        name,
        version,
        digest_row[0] if digest_row else "",
        list(decoded.tools),
        list(decoded.resident),
        list(decoded.groups),
        resident_json,
        groups_json,
    )


def diff_on(conn: psycopg.Connection[Any], source: RegistrySource, old: int, new: int | None = None) -> VersionDiff:
    """What changed from version ``old`` to ``new`` (default: the current one), by content hash."""
    from . import codec
    from .store import _namespace_row, _read_only

    name = source.require_namespace()
    with _read_only(conn):
        _require_history(conn, source)
        if new is None:
            new = int(_namespace_row(conn, source, name)[0])
        names_a, resident_a, groups_a = _version_row(conn, source, old)
        names_b, resident_b, groups_b = _version_row(conn, source, new)
        hashes_a = _bodies_at(conn, name, old, bodies=False)
        hashes_b = _bodies_at(conn, name, new, bodies=False)
    in_a, in_b = set(names_a), set(names_b)
    diff = VersionDiff(name, old, new)
    diff.added = [n for n in names_b if n not in in_a]
    diff.removed = [n for n in names_a if n not in in_b]
    diff.changed = [n for n in names_b if n in in_a and hashes_a.get(n, ("",))[0] != hashes_b.get(n, ("",))[0]]
    diff.moved = [n for n in names_a if n in in_b] != [n for n in names_b if n in in_a]
    where = source.display
    diff.resident_changed = codec.parse_row(resident_a, f"{where}@{old}#resident") != codec.parse_row(
        resident_b, f"{where}@{new}#resident"
    )
    diff.groups_changed = codec.parse_row(groups_a, f"{where}@{old}#groups") != codec.parse_row(
        groups_b, f"{where}@{new}#groups"
    )
    return diff


# ---------------------------------------------------------------------------------------------
# writes


def rollback(url: str | RegistrySource, version: int, *, expect_version: int | None = None) -> PushPlan:
    """Make a new version of the namespace equal to version ``version`` (a push of its catalog;
    followers apply it in place). ``expect_version``: as :func:`.store.push`'s."""
    from ..model import Catalog
    from .store import RegistryError, connect, current_version, push

    source = _source(url)
    with connect(source) as conn:
        snap = read_version_on(conn, source, version)
        base = current_version(conn, source)
    if expect_version is None:
        expect_version = base  # nobody pushed between reading the old version and writing it back
    old = Catalog(tools=snap.tools, resident=snap.resident, groups=snap.groups)
    plan = push(source, old, expect_version=expect_version)
    if plan.version is None and not plan.empty:
        raise RegistryError(f"the rollback of namespace {source.namespace!r} to version {version} wrote nothing")
    return plan


def drop(url: str | RegistrySource) -> int:
    """Delete the namespace: its tools, versions, changes and history (one transaction; followers
    are notified, keep their last good catalog and say the namespace is gone). Returns the
    version it was at."""
    from .store import CHANNEL, RegistryError, _check_readable, connect

    source = _source(url)
    name = source.require_namespace()
    with connect(source) as conn:
        _check_readable(conn, source, writing=True)
        with conn.transaction():
            row = conn.execute(
                "DELETE FROM toolsearch_namespaces WHERE name = %s RETURNING version", (name,)
            ).fetchone()
            if row is None:
                raise RegistryError(f"no namespace {name!r} in the registry {source.display}")
            conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, name))
    return int(row[0])


def _source(url: str | RegistrySource) -> RegistrySource:
    from .source import parse_registry_source

    return url if not isinstance(url, str) else parse_registry_source(url)


def log(url: str | RegistrySource, limit: int = 20) -> list[VersionEntry]:
    from .store import connect

    source = _source(url)
    with connect(source) as conn:
        return log_on(conn, source, limit)


def namespaces(url: str | RegistrySource) -> list[NamespaceEntry]:
    from .store import connect

    source = _source(url)
    with connect(source) as conn:
        return namespaces_on(conn, source)


def diff(url: str | RegistrySource, old: int, new: int | None = None) -> VersionDiff:
    from .store import connect

    source = _source(url)
    with connect(source) as conn:
        return diff_on(conn, source, old, new)


def read_version(url: str | RegistrySource, version: int) -> Snapshot:
    from .store import connect

    source = _source(url)
    with connect(source) as conn:
        return read_version_on(conn, source, version)


def migrate(url: str | RegistrySource, *, retention: int | None = None) -> tuple[int, int]:
    """Create or upgrade the registry's schema (``toolsearch registry migrate``): ``(before, after)``."""
    from .store import SCHEMA_VERSION, connect
    from .store import migrate as run

    source = _source(url)
    with connect(source) as conn:
        return run(conn, retention=retention), SCHEMA_VERSION


__all__ = [
    "NamespaceEntry",
    "VersionDiff",
    "VersionEntry",
    "diff",
    "drop",
    "log",
    "migrate",
    "namespaces",
    "read_version",
    "rollback",
]
