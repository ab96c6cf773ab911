"""The PostgreSQL registry: schema and migrations, push (one transaction), snapshot reads, changes.

Schema (version :data:`SCHEMA_VERSION`; created and upgraded by :func:`migrate` alone, under an
advisory lock: ``toolsearch registry migrate URL``, run by the schema's owner. Pushes and reads
never run DDL, so they work as roles that may only read or write rows)::

    toolsearch_meta        (key, value)                       -- 'schema_version', 'retention'
    toolsearch_namespaces  (name, version, digest, resident, groups, updated_at)
    toolsearch_tools       (namespace, name, position, hash, body, version)
    toolsearch_versions    (namespace, version, pushed_at, added, changed, removed, digest,
                            names, resident, groups)          -- names: the version's tools in order
    toolsearch_changes     (namespace, version, name, kind)   -- 'added' | 'changed' | 'removed'
    toolsearch_history     (namespace, name, valid_from, valid_to, hash, body)  -- replaced bodies
    toolsearch_http_tokens (id, namespace, scope, hash, note, created_at, revoked_at)  -- schema 3

History (schema 2, :mod:`.history`): a push moves the rows it replaces or removes into
``toolsearch_history`` (valid from the version that wrote them to the one that replaced them)
and records the new version's tool names, resident names and groups, so any version within the
retention (``retention`` in ``toolsearch_meta``: the last N versions of a namespace) can be read
back exactly, diffed and rolled back to.

``body`` is a tool's JSON (:mod:`.codec`), ``hash`` its SHA-256: a push compares hashes, so an
unchanged tool's row is never written. Each push that changes anything takes the namespace row
``FOR UPDATE`` (pushes to one namespace are serialised; the later one computes its diff against
what the earlier one committed, or fails when ``expect_version`` no longer holds), records a new
version and its changes, and sends ``NOTIFY toolsearch_registry, '<namespace>'`` at commit.
Readers read in one ``REPEATABLE READ READ ONLY`` transaction: they see one version, never a mix.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..catalog.result import LoadResult
from ..errors import SourceUnavailable
from ..model import Catalog, Tool
from ..redaction import redact
from . import codec
from .retention import DEFAULT_RETENTION, keep_replaced, prune
from .source import RegistrySource, parse_registry_source

if TYPE_CHECKING:
    import psycopg

    from .push_memo import Rows as PushRows

SCHEMA_VERSION = 3
#: The oldest schema a reader can read (reads use only what schema 1 has).
MIN_READABLE_SCHEMA = 1
#: The oldest schema a push (or any other write of tools) can write: it keeps history (schema 2);
#: the HTTP API's token table (schema 3) is no push's business.
MIN_WRITABLE_SCHEMA = 2
#: The schema that holds the HTTP API's tokens (``toolsearch_http_tokens``, :mod:`.tokens`).
TOKENS_SCHEMA = 3
CHANNEL = "toolsearch_registry"
#: Seconds a connection attempt may take unless the URL says (``connect_timeout=``).
CONNECT_TIMEOUT = 5
_LOCK_KEY = 0x7443_5245_4731  # the advisory lock held while the schema is created or migrated
#: The most a namespace read may bring into memory (its tools' JSON, summed): a larger one is refused.
MAX_NAMESPACE_BYTES = 1024 * 1024 * 1024
#: How long a push waits for another push of the same namespace before giving up.
LOCK_TIMEOUT = "60s"

MIGRATIONS: dict[int, list[str]] = {
    1: [
        """CREATE TABLE toolsearch_namespaces (
            name text PRIMARY KEY,
            version bigint NOT NULL,
            digest text NOT NULL,
            resident text NOT NULL DEFAULT '[]',
            groups text NOT NULL DEFAULT '[]',
            updated_at timestamptz NOT NULL DEFAULT now())""",
        """CREATE TABLE toolsearch_tools (
            namespace text NOT NULL REFERENCES toolsearch_namespaces(name) ON DELETE CASCADE,
            name text NOT NULL,
            position integer NOT NULL,
            hash text NOT NULL,
            body text NOT NULL,
            version bigint NOT NULL,
            PRIMARY KEY (namespace, name))""",
        """CREATE TABLE toolsearch_versions (
            namespace text NOT NULL REFERENCES toolsearch_namespaces(name) ON DELETE CASCADE,
            version bigint NOT NULL,
            pushed_at timestamptz NOT NULL DEFAULT now(),
            added integer NOT NULL,
            changed integer NOT NULL,
            removed integer NOT NULL,
            digest text NOT NULL,
            PRIMARY KEY (namespace, version))""",
        """CREATE TABLE toolsearch_changes (
            namespace text NOT NULL REFERENCES toolsearch_namespaces(name) ON DELETE CASCADE,
            version bigint NOT NULL,
            name text NOT NULL,
            kind text NOT NULL CHECK (kind IN ('added', 'changed', 'removed')),
            PRIMARY KEY (namespace, version, name))""",
    ],
    2: [
        """CREATE TABLE toolsearch_history (
            namespace text NOT NULL REFERENCES toolsearch_namespaces(name) ON DELETE CASCADE,
            name text NOT NULL,
            valid_from bigint NOT NULL,
            valid_to bigint NOT NULL,
            hash text NOT NULL,
            body text NOT NULL,
            PRIMARY KEY (namespace, name, valid_to))""",
        # what a read of an old version and the retention's pruning look up
        "CREATE INDEX toolsearch_history_validity ON toolsearch_history (namespace, valid_to, valid_from)",
        "ALTER TABLE toolsearch_versions ADD COLUMN names text, ADD COLUMN resident text, ADD COLUMN groups text",
        # the current version of each namespace is readable back at once (older ones kept no bodies)
        """UPDATE toolsearch_versions v SET
            names = (SELECT coalesce(json_agg(t.name ORDER BY t.position, t.name), '[]')::text
                     FROM toolsearch_tools t WHERE t.namespace = v.namespace),
            resident = n.resident, groups = n.groups
            FROM toolsearch_namespaces n WHERE n.name = v.namespace AND n.version = v.version""",
    ],
    3: [
        # the HTTP API's bearer tokens (:mod:`.tokens`; hashes only). IF NOT EXISTS: a toolsearch
        # before schema 3 made this very table on the first `registry token create`; it is kept.
        """CREATE TABLE IF NOT EXISTS toolsearch_http_tokens (
            id text PRIMARY KEY,
            namespace text NOT NULL,
            scope text NOT NULL CHECK (scope IN ('read', 'push')),
            hash text NOT NULL UNIQUE,
            note text NOT NULL DEFAULT '',
            created_at timestamptz NOT NULL DEFAULT now(),
            revoked_at timestamptz)""",
    ],
}


class RegistryError(SourceUnavailable):
    """The registry cannot be reached, has no such namespace, or refused a push."""


class PushConflict(RegistryError):
    """A push's ``expect_version`` no longer holds: someone else pushed first."""


def driver() -> Any:
    try:
        import psycopg
    except ImportError:
        raise RegistryError(
            "a postgresql:// registry needs psycopg 3: pip install 'toolsearch-cli[registry]'", field="catalog"
        ) from None
    return psycopg


def _reason(exc: BaseException) -> str:
    """The first line of a driver error (libpq adds hints on further lines), secrets masked."""
    lines = [line.strip() for line in str(exc).strip().splitlines() if line.strip()]
    text = lines[0] if lines else type(exc).__name__
    return redact(text.removeprefix("connection failed: "))


def _stored_list(text: str, where: str) -> list[Any]:
    """A namespace's stored resident names or groups (JSON written by a push; checked, as it is input)."""
    value = codec.parse_row(text, where)
    if not isinstance(value, list):
        raise RegistryError("a registry row holds something other than a list", file=where)
    return value


@contextlib.contextmanager
def connect(source: RegistrySource) -> Iterator[psycopg.Connection[Any]]:
    """A connection to the registry (autocommit: every transaction is an explicit
    ``conn.transaction()`` block); a failure is one :class:`RegistryError` line (secrets masked)."""
    psycopg = driver()
    extra = {} if "connect_timeout" in source.conninfo else {"connect_timeout": CONNECT_TIMEOUT}
    try:
        conn = psycopg.connect(source.conninfo, autocommit=True, application_name="toolsearch", **extra)
    except psycopg.Error as exc:
        raise RegistryError(f"cannot connect to the registry {source.display}: {_reason(exc)}") from None
    try:
        yield conn
    except psycopg.Error as exc:
        raise RegistryError(f"the registry {source.display} failed: {_reason(exc)}") from None
    finally:
        conn.close()


def schema_version(conn: psycopg.Connection[Any]) -> int:
    """The registry's schema version, 0 when it has none."""
    row = conn.execute("SELECT to_regclass('toolsearch_meta') IS NOT NULL").fetchone()
    if not row or not row[0]:
        return 0
    found = conn.execute("SELECT value FROM toolsearch_meta WHERE key = 'schema_version'").fetchone()
    return int(found[0]) if found else 0


def _check_readable(conn: psycopg.Connection[Any], source: RegistrySource, *, writing: bool = False) -> int:
    """The schema version, when this toolsearch can read (``writing``: write) the registry; else
    the one-line :class:`RegistryError` saying what to run. Never changes the schema."""
    version = schema_version(conn)
    if version == 0:
        raise RegistryError(
            f"no toolsearch registry at {source.display}: its owner creates it (toolsearch registry migrate URL)"
        )
    if version > SCHEMA_VERSION:
        raise RegistryError(
            f"the registry {source.display} has schema version {version}, newer than this toolsearch "
            f"knows ({SCHEMA_VERSION}): upgrade toolsearch"
        )
    if version < (MIN_WRITABLE_SCHEMA if writing else MIN_READABLE_SCHEMA):
        raise RegistryError(
            f"the registry {source.display} has schema version {version}, older than this toolsearch writes "
            f"({MIN_WRITABLE_SCHEMA}): its owner upgrades it (toolsearch registry migrate URL)"
        )
    return version


def migrate(conn: psycopg.Connection[Any], *, retention: int | None = None) -> int:
    """Create or upgrade the schema to :data:`SCHEMA_VERSION`, each numbered migration in
    :data:`MIGRATIONS` recorded in ``toolsearch_meta`` (one transaction, under an advisory lock,
    so two runs do not both apply one). ``retention``: how many versions of each namespace keep
    their tool bodies (default :data:`DEFAULT_RETENTION`, set on creation; ``None`` leaves it).
    The only function that runs DDL (``toolsearch registry migrate``). Returns the version found before."""
    if retention is not None and retention < 1:
        raise RegistryError(f"a retention of {retention} versions keeps nothing: give 1 or more")
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
        conn.execute("CREATE TABLE IF NOT EXISTS toolsearch_meta (key text PRIMARY KEY, value text NOT NULL)")
        before = schema_version(conn)
        if before > SCHEMA_VERSION:
            raise RegistryError(
                f"the registry has schema version {before}, newer than this toolsearch knows ({SCHEMA_VERSION})"
            )
        for version in range(before + 1, SCHEMA_VERSION + 1):
            for statement in MIGRATIONS[version]:
                conn.execute(statement)  # type: ignore[arg-type]
            conn.execute(
                "INSERT INTO toolsearch_meta (key, value) VALUES ('schema_version', %s) "
                "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                (str(version),),
            )
        conn.execute(
            "INSERT INTO toolsearch_meta (key, value) VALUES ('retention', %s) ON CONFLICT (key) DO "
            + ("UPDATE SET value = EXCLUDED.value" if retention is not None else "NOTHING"),
            (str(retention if retention is not None else DEFAULT_RETENTION),),
        )
    return before


# ---------------------------------------------------------------------------------------------
# push


@dataclass(slots=True)
class PushPlan:
    """What a push changes: names added, changed and removed, and the version it records."""

    namespace: str
    base_version: int
    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    unchanged: int = 0
    resident_changed: bool = False
    groups_changed: bool = False
    new_namespace: bool = False
    version: int | None = None  # the version recorded (None: nothing to record, or a dry run)

    @property
    def empty(self) -> bool:
        return (
            not (self.added or self.changed or self.removed or self.resident_changed or self.groups_changed)
            and not self.new_namespace
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "namespace": self.namespace,
            "base_version": self.base_version,
            "version": self.version,
            "added": self.added,
            "changed": self.changed,
            "removed": self.removed,
            "unchanged": self.unchanged,
            "resident_changed": self.resident_changed,
            "groups_changed": self.groups_changed,
        }


def push(
    url: str | RegistrySource,
    catalog: Catalog,
    namespace: str | None = None,
    *,
    dry_run: bool = False,
    expect_version: int | None = None,
    before_commit: Any = None,
) -> PushPlan:
    """Publish ``catalog`` as ``namespace`` in one transaction (see the module docstring).

    ``expect_version``: fail with :class:`PushConflict` unless the namespace is at that version
    (0: it must not exist yet). ``dry_run``: compute the plan, write nothing. ``before_commit``
    (tests): called with the connection just before the commit."""
    from .push_memo import Rows

    rows = Rows.of(catalog)
    return push_rows(url, rows, namespace, dry_run=dry_run, expect_version=expect_version, before_commit=before_commit)


def push_rows(
    url: str | RegistrySource,
    rows: PushRows,
    namespace: str | None = None,
    *,
    dry_run: bool = False,
    expect_version: int | None = None,
    before_commit: Any = None,
) -> PushPlan:
    """:func:`push` of rows already encoded (:class:`~.push_memo.Rows`): a row without its body
    (a tool a push's memo stood in for) must be one the namespace holds with that hash, else
    :class:`~.push_memo.NeedsBodies` is raised before anything is written."""
    from .push_memo import NeedsBodies

    source = url if isinstance(url, RegistrySource) else parse_registry_source(url, namespace)
    name = source.require_namespace()
    encoded = rows.encoded
    resident_json = json.dumps(list(rows.resident), ensure_ascii=False)
    groups_json = codec.encode_groups(rows.groups)
    new_digest = codec.digest(((n, h) for n, _, h in encoded), rows.resident, groups_json)
    with connect(source) as conn:
        _check_readable(conn, source, writing=not dry_run)
        with conn.transaction():
            if not dry_run:
                conn.execute(f"SET LOCAL lock_timeout = '{LOCK_TIMEOUT}'")
                conn.execute(
                    "INSERT INTO toolsearch_namespaces (name, version, digest) VALUES (%s, 0, '') "
                    "ON CONFLICT (name) DO NOTHING",
                    (name,),
                )
            lock = "" if dry_run else " FOR UPDATE"
            row = conn.execute(
                f"SELECT version, resident, groups FROM toolsearch_namespaces WHERE name = %s{lock}", (name,)
            ).fetchone()
            base = int(row[0]) if row else 0
            if expect_version is not None and base != expect_version:
                raise PushConflict(
                    f"namespace {name!r} is at version {base}, not {expect_version}: someone pushed first; "
                    "read it again and retry"
                )
            found = conn.execute(  # fetchall: 0.07-0.08 s CPU for 100,000 rows, iterating the cursor 0.12-0.13 s
                "SELECT name, hash, position FROM toolsearch_tools WHERE namespace = %s", (name,)
            ).fetchall()
            current = {n: (h, p) for n, h, p in found}
            plan = _plan(name, base, row, current, encoded, resident_json, groups_json)
            written = {*plan.added, *plan.changed}
            bodies = [(n, body) for n, body, _ in encoded if n in written]
            unread = [n for n, body in bodies if body is None]
            if unread:
                raise NeedsBodies(unread)
            codec.check_push(rows.tools, bodies, resident_json, groups_json, source.display)  # type: ignore[arg-type]
            if dry_run or (plan.empty and base > 0):
                return plan
            version = base + 1
            keep_replaced(conn, name, version, [*plan.changed, *plan.removed])
            _write(conn, name, version, plan, current, encoded)  # type: ignore[arg-type]
            order = [n for n, _, _ in encoded]
            _record_version(conn, name, version, plan, new_digest, resident_json, groups_json, order)
            if before_commit is not None:
                before_commit(conn)
            plan.version = version
    return plan


def _plan(
    name: str,
    base: int,
    row: Any,
    current: dict[str, tuple[str, int]],
    encoded: list[tuple[str, str | None, str]],
    resident_json: str,
    groups_json: str,
) -> PushPlan:
    plan = PushPlan(namespace=name, base_version=base, new_namespace=base == 0)
    wanted = set()
    for tool_name, _, tool_hash in encoded:
        wanted.add(tool_name)
        old = current.get(tool_name)
        if old is None:
            plan.added.append(tool_name)
        elif old[0] != tool_hash:
            plan.changed.append(tool_name)
        else:
            plan.unchanged += 1
    plan.removed = sorted(n for n in current if n not in wanted)
    if row is not None:
        plan.resident_changed = row[1] != resident_json
        plan.groups_changed = row[2] != groups_json
    else:
        plan.resident_changed = resident_json != "[]"
        plan.groups_changed = groups_json != "[]"
    return plan


def _write(
    conn: psycopg.Connection[Any],
    name: str,
    version: int,
    plan: PushPlan,
    current: dict[str, tuple[str, int]],
    encoded: list[tuple[str, str, str]],
) -> None:
    position = {n: i for i, (n, _, _) in enumerate(encoded)}
    by_name = {n: (body, h) for n, body, h in encoded}
    if plan.removed:
        conn.execute("DELETE FROM toolsearch_tools WHERE namespace = %s AND name = ANY(%s)", (name, plan.removed))
    with conn.cursor() as cur:
        if plan.added:
            with cur.copy("COPY toolsearch_tools (namespace, name, position, hash, body, version) FROM STDIN") as copy:
                for n in plan.added:
                    body, h = by_name[n]
                    copy.write_row((name, n, position[n], h, body, version))
        if plan.changed:
            cur.executemany(
                "UPDATE toolsearch_tools SET body = %s, hash = %s, position = %s, version = %s "
                "WHERE namespace = %s AND name = %s",
                [(by_name[n][0], by_name[n][1], position[n], version, name, n) for n in plan.changed],
            )
        changed = set(plan.changed)
        moved = [
            (position[n], name, n)
            for n, (_, p) in current.items()
            if n in position and n not in changed and position[n] != p
        ]
        if moved:  # order only: the row's content (and hash) stays, no change is recorded for it
            cur.executemany("UPDATE toolsearch_tools SET position = %s WHERE namespace = %s AND name = %s", moved)
        log = [(name, version, n, "added") for n in plan.added]
        log += [(name, version, n, "changed") for n in plan.changed]
        log += [(name, version, n, "removed") for n in plan.removed]
        if log:
            with cur.copy("COPY toolsearch_changes (namespace, version, name, kind) FROM STDIN") as copy:
                for entry in log:
                    copy.write_row(entry)


def edit(
    conn: psycopg.Connection[Any],
    source: RegistrySource,
    *,
    upsert: Sequence[Tool] = (),
    remove: Sequence[str] = (),
    clear: bool = False,
) -> PushPlan:
    """Save, remove or clear tools of a namespace in one transaction on an open connection (what the
    :class:`~.provider.PostgresToolProvider` does); a change records a new version as a push does."""
    name = source.require_namespace()
    _check_readable(conn, source, writing=True)
    encoded = [(t.name, *codec.encode_tool(t)) for t in upsert]
    with conn.transaction():
        conn.execute(
            "INSERT INTO toolsearch_namespaces (name, version, digest) VALUES (%s, 0, '') ON CONFLICT (name) DO "
            "NOTHING",
            (name,),
        )
        row = conn.execute(
            "SELECT version, resident, groups FROM toolsearch_namespaces WHERE name = %s FOR UPDATE", (name,)
        ).fetchone()
        assert row is not None  # inserted just above when missing
        base = int(row[0])
        current = {
            n: (h, p)
            for n, h, p in conn.execute(
                "SELECT name, hash, position FROM toolsearch_tools WHERE namespace = %s", (name,)
            )
        }
        plan = PushPlan(namespace=name, base_version=base, new_namespace=base == 0)
        for tool_name, _, tool_hash in encoded:
            old = current.get(tool_name)
            if old is None:
                plan.added.append(tool_name)
            elif old[0] != tool_hash:
                plan.changed.append(tool_name)
        gone = set(current) if clear else {n for n in remove if n in current}
        gone -= {n for n, _, _ in encoded}
        plan.removed = sorted(gone)
        written = {*plan.added, *plan.changed}
        codec.check_push(upsert, [(n, b) for n, b, _ in encoded if n in written], "[]", "[]", source.display)
        if plan.empty and base > 0:
            return plan
        resident = [n for n in _stored_list(row[1], f"{source.display}#resident") if n not in gone]
        last = max((p for _, p in current.values()), default=-1)
        order = [(n, body, h) for n, body, h in encoded]
        kept = sorted((p, n) for n, (_, p) in current.items() if n not in gone)
        # positions: the kept tools where they were, new ones after them
        positions = {n: p for p, n in kept}
        for i, (n, _, _) in enumerate(order):
            positions.setdefault(n, last + 1 + i)
        version = base + 1
        by_name = {n: (body, h) for n, body, h in order}
        keep_replaced(conn, name, version, [*plan.changed, *plan.removed])
        with conn.cursor() as cur:
            if plan.removed:
                cur.execute(
                    "DELETE FROM toolsearch_tools WHERE namespace = %s AND name = ANY(%s)", (name, plan.removed)
                )
            for n in plan.added:
                cur.execute(
                    "INSERT INTO toolsearch_tools (namespace, name, position, hash, body, version) VALUES (%s, %s, %s, "
                    "%s, %s, %s)",
                    (name, n, positions[n], by_name[n][1], by_name[n][0], version),
                )
            for n in plan.changed:
                cur.execute(
                    "UPDATE toolsearch_tools SET body = %s, hash = %s, version = %s WHERE namespace = %s AND name = %s",
                    (by_name[n][0], by_name[n][1], version, name, n),
                )
            log = [
                (name, version, n, k)
                for k, names in (("added", plan.added), ("changed", plan.changed), ("removed", plan.removed))
                for n in names
            ]
            cur.executemany(
                "INSERT INTO toolsearch_changes (namespace, version, name, kind) VALUES (%s, %s, %s, %s)", log
            )
        hashes = conn.execute("SELECT name, hash FROM toolsearch_tools WHERE namespace = %s", (name,)).fetchall()
        resident_json = json.dumps(resident, ensure_ascii=False)
        groups = _stored_list(row[2], f"{source.display}#groups")
        for group in groups:  # a removed tool leaves the groups that listed it
            if isinstance(group, dict) and isinstance(group.get("tools"), list):
                group["tools"] = [t for t in group["tools"] if t not in gone]
        groups_json = json.dumps(groups, ensure_ascii=False, separators=(",", ":"))
        new_digest = codec.digest(hashes, resident, groups_json)
        in_order = [
            r[0]
            for r in conn.execute(
                "SELECT name FROM toolsearch_tools WHERE namespace = %s ORDER BY position, name", (name,)
            )
        ]
        _record_version(conn, name, version, plan, new_digest, resident_json, groups_json, in_order)
        plan.version = version
    return plan


# ---------------------------------------------------------------------------------------------
# reads


@dataclass(slots=True)
class Snapshot:
    """One version of a namespace, read in one transaction."""

    namespace: str
    version: int
    digest: str
    tools: list[Tool]
    resident: list[str]
    groups: list[Any]
    resident_json: str = "[]"
    groups_json: str = "[]"
    #: Read through the catalog cache: the cached catalog (its indexes adopted), the entry's key
    #: and the index keys it holds (``None``: not read through the cache).
    catalog: Catalog | None = None
    cache_key: str | None = None
    cache_stored: frozenset[str] = frozenset()


@dataclass(slots=True)
class Changes:
    """What changed in a namespace between two versions: tools to (re)place and names to drop.

    ``full`` is set instead when the change log cannot say (resident tools or groups changed,
    or the node's version is unknown to the registry): then the whole catalog is given."""

    namespace: str
    since: int
    version: int
    upsert: list[Tool] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    full: Snapshot | None = None

    @property
    def empty(self) -> bool:
        return self.full is None and not self.upsert and not self.removed


@contextlib.contextmanager
def _read_only(conn: psycopg.Connection[Any]) -> Iterator[None]:
    """One ``REPEATABLE READ READ ONLY`` transaction: every query in it sees the same snapshot."""
    conn.isolation_level = driver().IsolationLevel.REPEATABLE_READ
    conn.read_only = True
    try:
        with conn.transaction():
            yield
    finally:
        conn.isolation_level = None
        conn.read_only = None


def _namespace_row(conn: psycopg.Connection[Any], source: RegistrySource, name: str) -> Any:
    row = conn.execute(
        "SELECT version, digest, resident, groups FROM toolsearch_namespaces WHERE name = %s", (name,)
    ).fetchone()
    if row is None:
        known = [r[0] for r in conn.execute("SELECT name FROM toolsearch_namespaces ORDER BY name LIMIT 20")]
        from ..errors import did_you_mean

        hint = did_you_mean(name, known) or (f"; namespaces: {', '.join(known)}" if known else "; it holds none yet")
        raise RegistryError(f"no namespace {name!r} in the registry {source.display}{hint}")
    return row


def _check_size(conn: psycopg.Connection[Any], source: RegistrySource, name: str) -> None:
    found = conn.execute(
        "SELECT coalesce(sum(octet_length(body)), 0) FROM toolsearch_tools WHERE namespace = %s", (name,)
    ).fetchone()
    size = int(found[0]) if found else 0
    if size > MAX_NAMESPACE_BYTES:
        raise RegistryError(
            f"namespace {name!r} in the registry {source.display} holds {size // (1024 * 1024)} MB of tools, "
            f"more than toolsearch reads at once ({MAX_NAMESPACE_BYTES // (1024 * 1024)} MB)"
        )


def _cache_key(source: RegistrySource, digest: str) -> str | None:
    """The on-disk cache key of a namespace's content: its digest (a push that changes anything
    changes it), where it was read from (credentials masked) and this build of toolsearch."""
    import hashlib
    import sys

    from .. import cachedir
    from .._version import __version__
    from ..catalog import cache

    if not cachedir.enabled() or not digest:
        return None
    h = hashlib.sha256(cache.MAGIC)
    h.update(f"registry\n{__version__}\n{sys.version}\n{cache._stemmer_version()}\n".encode())
    h.update(f"{source.display}\n{digest}\n".encode())
    h.update(cache._package_fingerprint())
    return h.hexdigest()


def read_snapshot_on(conn: psycopg.Connection[Any], source: RegistrySource, *, cache: bool = False) -> Snapshot:
    """The namespace's current version, read in one snapshot on an open connection.

    ``cache``: a namespace whose digest this user's catalog cache holds (see
    :mod:`toolsearch_cli.catalog.cache`) is read from there, not fetched and validated again;
    one fetched is stored there."""
    name = source.require_namespace()
    key = None
    with _read_only(conn):
        _check_readable(conn, source)
        row = _namespace_row(conn, source, name)
        key = _cache_key(source, row[1]) if cache else None
        if key is not None:
            from ..catalog import cache as catalog_cache

            cached = catalog_cache.load(key)
            if cached is not None:
                from .. import indexes

                catalog = cached.catalog
                indexes.adopt(catalog, cached.indexes)
                tools, resident, groups = list(catalog.tools), catalog.resident, catalog.groups
                return Snapshot(
                    name,
                    int(row[0]),
                    row[1],
                    tools,
                    resident,
                    groups,
                    row[2],
                    row[3],
                    catalog,
                    key,
                    frozenset(cached.indexes),
                )
        _check_size(conn, source, name)
        rows = conn.execute(
            "SELECT name, body FROM toolsearch_tools WHERE namespace = %s ORDER BY position, name", (name,)
        ).fetchall()
    where = source.display
    decoded = codec.decode(rows, row[2], row[3], where)
    tools, resident, groups = list(decoded.tools), list(decoded.resident), list(decoded.groups)
    if key is not None:
        from ..catalog import cache as catalog_cache

        catalog = Catalog(tools=tools, resident=resident, groups=groups, sources=[source.display])
        catalog_cache.store(key, catalog)
        return Snapshot(name, int(row[0]), row[1], tools, resident, groups, row[2], row[3], catalog, key)
    return Snapshot(name, int(row[0]), row[1], tools, resident, groups, row[2], row[3])


def read_snapshot(url: str | RegistrySource, *, cache: bool = False) -> Snapshot:
    source = url if isinstance(url, RegistrySource) else parse_registry_source(url)
    with connect(source) as conn:
        return read_snapshot_on(conn, source, cache=cache)


def current_version(conn: psycopg.Connection[Any], source: RegistrySource) -> int:
    name = source.require_namespace()
    with _read_only(conn):
        row = conn.execute("SELECT version FROM toolsearch_namespaces WHERE name = %s", (name,)).fetchone()
    if row is None:
        raise RegistryError(f"no namespace {name!r} in the registry {source.display}")
    return int(row[0])


def changes_since(
    conn: psycopg.Connection[Any], source: RegistrySource, since: int, resident_json: str, groups_json: str
) -> Changes:
    """What changed after version ``since``, read in one snapshot (a full snapshot when the resident
    tools or groups changed, as those are not applied in place)."""
    name = source.require_namespace()
    with _read_only(conn):
        row = _namespace_row(conn, source, name)
        version = int(row[0])
        if version == since:
            return Changes(name, since, version)
        full = version < since or row[2] != resident_json or row[3] != groups_json
        if not full:
            touched = [
                r[0]
                for r in conn.execute(
                    "SELECT DISTINCT name FROM toolsearch_changes WHERE namespace = %s AND version > %s AND version <= "
                    "%s",
                    (name, since, version),
                )
            ]
            rows = conn.execute(
                "SELECT name, body FROM toolsearch_tools WHERE namespace = %s AND name = ANY(%s) ORDER BY position, "
                "name",
                (name, touched),
            ).fetchall()
        else:
            _check_size(conn, source, name)
            rows = conn.execute(
                "SELECT name, body FROM toolsearch_tools WHERE namespace = %s ORDER BY position, name", (name,)
            ).fetchall()
    where = source.display
    decoded = codec.decode(rows, row[2], row[3], where)
    tools, resident, groups = list(decoded.tools), list(decoded.resident), list(decoded.groups)
    if full:
        snap = Snapshot(name, version, row[1], tools, resident, groups, row[2], row[3])
        return Changes(name, since, version, full=snap)
    present = {t.name for t in tools}
    return Changes(name, since, version, upsert=tools, removed=sorted(set(touched) - present))


def namespace_digest(url: str | RegistrySource) -> str:
    """The namespace's content digest now (one small query): what caches key its content by."""
    source = url if isinstance(url, RegistrySource) else parse_registry_source(url)
    name = source.require_namespace()
    with connect(source) as conn, _read_only(conn):
        _check_readable(conn, source)
        return str(_namespace_row(conn, source, name)[1])


def load_registry_source(source: str | RegistrySource, *, cache: bool = True, on_snapshot: Any = None) -> LoadResult:
    """What :func:`~toolsearch_cli.catalog.load_source` returns for a ``postgresql://`` source.

    ``cache``: through the registry's own snapshot cache (see :func:`read_snapshot_on`);
    ``on_snapshot``: called with the :class:`Snapshot` read (its version and digest)."""
    parsed = parse_registry_source(source) if isinstance(source, str) else source
    parsed.require_namespace()
    snap = read_snapshot(parsed, cache=cache)
    if on_snapshot is not None:
        on_snapshot(snap)
    if parsed.alias:
        for tool in snap.tools:
            if tool.category is None:
                tool.category = parsed.alias
    return LoadResult(tools=snap.tools, resident=snap.resident, groups=snap.groups)


__all__ = [
    "CHANNEL",
    "SCHEMA_VERSION",
    "Changes",
    "PushConflict",
    "PushPlan",
    "RegistryError",
    "Snapshot",
    "changes_since",
    "connect",
    "current_version",
    "load_registry_source",
    "migrate",
    "namespace_digest",
    "push",
    "push_rows",
    "read_snapshot",
    "read_snapshot_on",
]


def _record_version(
    conn: Any,
    name: str,
    version: int,
    plan: Any,
    digest: str,
    resident_json: str,
    groups_json: str,
    order: Sequence[str],
) -> None:
    """Inside a push's transaction: the new version's row (with its tool names in order, resident
    names and groups: what :mod:`.history` reads it back from), the namespace moved to it, the
    versions past the retention pruned, and the notification every listening node receives at commit."""
    conn.execute(
        "INSERT INTO toolsearch_versions (namespace, version, added, changed, removed, digest, names, resident, "
        "groups) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
        (
            name,
            version,
            len(plan.added),
            len(plan.changed),
            len(plan.removed),
            digest,
            json.dumps(list(order), ensure_ascii=False, separators=(",", ":")),
            resident_json,
            groups_json,
        ),
    )
    prune(conn, name, version)
    conn.execute(
        "UPDATE toolsearch_namespaces SET version = %s, digest = %s, resident = %s, groups = %s, "
        "updated_at = now() WHERE name = %s",
        (version, digest, resident_json, groups_json, name),
    )
    conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, name))
