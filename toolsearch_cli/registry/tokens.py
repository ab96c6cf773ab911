"""Bearer tokens of the registry's HTTP API (``toolsearch registry serve``), per namespace.

A token is ``tsr_<id>_<secret>``: ``id`` (12 hex digits) names it in listings and in
``registry token revoke``; ``secret`` is 32 random bytes (URL-safe base64). It is shown once,
when it is made; the registry keeps only its SHA-256 (a high-entropy random token needs no slow
hash: nothing guessable is stored) in::

    toolsearch_http_tokens (id, namespace, scope, hash, note, created_at, revoked_at)

``scope`` is ``read`` (read, search, follow) or ``push`` (those and push). A token opens one
namespace, never another. The table is made by ``toolsearch registry migrate`` (schema 3, a
numbered migration like the rest of the schema: no command but ``migrate`` runs DDL);
``registry token create`` on an older schema says to run it. The server only reads the table.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import UsageError
from .source import RegistrySource, check_namespace
from .store import TOKENS_SCHEMA, RegistryError, _check_readable

if TYPE_CHECKING:
    import psycopg

TABLE = "toolsearch_http_tokens"
SCOPES = ("read", "push")
PREFIX = "tsr_"
_TOKEN = re.compile(r"^tsr_([0-9a-f]{12})_[A-Za-z0-9_-]{43}$")
_ID = re.compile(r"^[0-9a-f]{12}$")


@dataclass(frozen=True, slots=True)
class TokenInfo:
    """A token as listings show it (never its secret nor its hash)."""

    id: str
    namespace: str
    scope: str
    note: str
    created_at: str
    revoked_at: str | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "namespace": self.namespace,
            "scope": self.scope,
            "note": self.note,
            "created_at": self.created_at,
            "revoked_at": self.revoked_at,
        }


@dataclass(frozen=True, slots=True)
class Grant:
    """What a presented token may do: its namespace and scope."""

    id: str
    namespace: str
    scope: str

    def allows(self, namespace: str, scope: str) -> bool:
        """Whether it opens ``namespace`` for ``scope`` (a push token also reads)."""
        return self.namespace == namespace and (self.scope == scope or self.scope == "push")


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def looks_like_token(token: str) -> bool:
    """Whether ``token`` has a token's shape (a request with another is refused without a query)."""
    return _TOKEN.match(token) is not None


def check_scope(scope: str) -> str:
    if scope not in SCOPES:
        raise UsageError(f"--scope must be read or push, not {scope!r}", field="scope")
    return scope


def table_exists(conn: psycopg.Connection[Any]) -> bool:
    row = conn.execute("SELECT to_regclass(%s) IS NOT NULL", (TABLE,)).fetchone()
    return bool(row and row[0])


def require_tokens_schema(conn: psycopg.Connection[Any], source: RegistrySource | None = None) -> None:
    """Refuse, in one line saying to run ``registry migrate``, a registry whose schema has no token
    table yet (before schema 3; ``source`` names it). Never changes the schema."""
    found = _check_readable(conn, source or RegistrySource("", None))
    if found < TOKENS_SCHEMA:
        where = f"the registry {source.display}" if source is not None else "the registry"
        raise RegistryError(
            f"{where} has schema version {found}, without HTTP tokens: "
            f"its owner upgrades it (toolsearch registry migrate URL)"
        )


def create(
    conn: psycopg.Connection[Any], namespace: str, scope: str, note: str = "", *, source: RegistrySource | None = None
) -> tuple[str, TokenInfo]:
    """Mint a token in a registry of schema 3 or later (see :func:`require_tokens_schema`; ``source``
    names the registry in that error); returns the token, shown once, and its listing."""
    check_namespace(namespace)
    check_scope(scope)
    if len(note) > 200 or any(ord(c) < 32 for c in note):
        raise UsageError("--note takes at most 200 characters on one line", field="note")
    require_tokens_schema(conn, source)
    token_id = secrets.token_hex(6)
    token = f"{PREFIX}{token_id}_{secrets.token_urlsafe(32)}"
    with conn.transaction():
        row = conn.execute(
            f"INSERT INTO {TABLE} (id, namespace, scope, hash, note) VALUES (%s, %s, %s, %s, %s) "
            "RETURNING created_at::text",
            (token_id, namespace, scope, token_hash(token), note),
        ).fetchone()
    assert row is not None
    return token, TokenInfo(token_id, namespace, scope, note, row[0], None)


def revoke(conn: psycopg.Connection[Any], source: RegistrySource, token_id: str) -> TokenInfo:
    """Revoke a token by its id (a token already revoked stays so); an unknown id is a UsageError."""
    if not _ID.match(token_id):
        raise UsageError(f"not a token id: {token_id!r} (12 hex digits, as `registry token list` shows)", field="id")
    if not table_exists(conn):
        raise UsageError(f"no tokens in the registry {source.display}", field="id")
    with conn.transaction():
        row = conn.execute(
            f"UPDATE {TABLE} SET revoked_at = coalesce(revoked_at, now()) WHERE id = %s "
            "RETURNING id, namespace, scope, note, created_at::text, revoked_at::text",
            (token_id,),
        ).fetchone()
    if row is None:
        raise UsageError(f"no token {token_id} in the registry {source.display}", field="id")
    return TokenInfo(*row)


def listing(conn: psycopg.Connection[Any], namespace: str | None = None) -> list[TokenInfo]:
    """Every token (or a namespace's), oldest first: ids, scopes, notes, dates; never a secret."""
    if not table_exists(conn):
        return []
    query = f"SELECT id, namespace, scope, note, created_at::text, revoked_at::text FROM {TABLE}"
    rows = (
        conn.execute(query + " WHERE namespace = %s ORDER BY created_at, id", (namespace,))
        if namespace is not None
        else conn.execute(query + " ORDER BY created_at, id")  # type: ignore[arg-type]
    )
    return [TokenInfo(*row) for row in rows]


def lookup(conn: psycopg.Connection[Any], token: str) -> Grant | None:
    """The grant of a presented token, or ``None`` (unknown, revoked, or not a token's shape)."""
    if not looks_like_token(token):
        return None
    row = conn.execute(
        f"SELECT id, namespace, scope FROM {TABLE} WHERE hash = %s AND revoked_at IS NULL", (token_hash(token),)
    ).fetchone()
    return Grant(*row) if row else None


__all__ = [
    "SCOPES",
    "TABLE",
    "Grant",
    "TokenInfo",
    "create",
    "listing",
    "lookup",
    "require_tokens_schema",
    "revoke",
    "token_hash",
]
