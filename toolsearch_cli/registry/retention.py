"""What a push keeps of the versions it replaces (schema 2; read back by :mod:`.history`): the rows
it changes or removes, moved to ``toolsearch_history``, and the pruning of what falls out of the
retention. Called inside a push's transaction by :mod:`.store`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import psycopg

#: Versions of a namespace whose tool bodies are kept when ``toolsearch registry migrate`` is not
#: told otherwise (``--retention N``, kept in ``toolsearch_meta``).
DEFAULT_RETENTION = 50


def keep_replaced(conn: psycopg.Connection[Any], namespace: str, version: int, names: Sequence[str]) -> None:
    """Inside a push that writes ``version``: the current rows of ``names`` (about to be changed
    or removed) are kept as history, valid up to ``version``."""
    if not names:
        return
    conn.execute(
        "INSERT INTO toolsearch_history (namespace, name, valid_from, valid_to, hash, body) "
        "SELECT namespace, name, version, %s, hash, body FROM toolsearch_tools WHERE namespace = %s AND name = ANY(%s) "
        "ON CONFLICT (namespace, name, valid_to) DO NOTHING",
        (version, namespace, list(names)),
    )


def retention(conn: psycopg.Connection[Any]) -> int:
    """How many versions of a namespace keep their bodies (``toolsearch_meta``'s ``retention``)."""
    row = conn.execute("SELECT value FROM toolsearch_meta WHERE key = 'retention'").fetchone()
    try:
        return max(1, int(row[0])) if row else DEFAULT_RETENTION
    except ValueError:
        return DEFAULT_RETENTION


def prune(conn: psycopg.Connection[Any], namespace: str, version: int) -> None:
    """Inside a push that wrote ``version``: forget the bodies of versions past the retention."""
    oldest_kept = version - retention(conn) + 1
    if oldest_kept <= 1:
        return
    conn.execute(
        "UPDATE toolsearch_versions SET names = NULL, resident = NULL, groups = NULL "
        "WHERE namespace = %s AND version < %s AND names IS NOT NULL",
        (namespace, oldest_kept),
    )
    conn.execute("DELETE FROM toolsearch_history WHERE namespace = %s AND valid_to <= %s", (namespace, oldest_kept))
