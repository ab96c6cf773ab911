"""A cache of live MCP servers' tool lists, so a command on many servers need not start them all.

Off unless a TTL is given (``toolsearch --live-ttl 10m ...`` or ``$TOOLSEARCH_LIVE_TTL``). An
entry is the server's name and its ``tools/list`` answer, stored as JSON (never pickle: nothing
in it is ever run) in ``<cache dir>/live/``, a folder only the user can read. It is keyed by a
hash of the source exactly as given (alias, command and arguments, URL) and the working folder
(a relative script path means another server elsewhere); the file holds the source only as it
may be shown (no URL credentials), and no header or environment value. An entry older than the
TTL, unreadable or damaged is a miss; ``--refresh`` asks the servers again and rewrites it.
Reading the cache never starts a server, and only servers named on the command line are started.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from .. import cachedir as catalog_cache
from .. import environment
from ..bounded import strict_json

FORMAT = "toolsearch-live-catalog/1"
TTL_ENV = environment.LIVE_TTL
#: Entries kept (the newest); each is one server's tool list.
MAX_ENTRIES = 256


def folder() -> Path:
    return catalog_cache.cache_dir() / "live"


def _trusted(create: bool) -> Path | None:
    """:func:`folder` when only this user can change it (as the catalog cache demands of its own
    folder: a forged entry would put tool descriptions of someone else's choosing before a model)."""
    return catalog_cache.trusted_folder(create, folder())


def _key(source: str) -> str:
    digest = hashlib.sha256(f"{FORMAT}\n{source.strip()}\n{os.getcwd()}\n".encode())
    return digest.hexdigest()


def load(source: str, ttl: float) -> tuple[str | None, list[dict[str, Any]]] | None:
    """The cached (server name, tools) of ``source`` if younger than ``ttl`` seconds, else ``None``."""
    if ttl <= 0 or not catalog_cache.enabled():
        return None
    where = _trusted(create=False)
    if where is None:
        return None
    path = where / f"{_key(source)}.json"
    try:
        if time.time() - path.stat().st_mtime > ttl:
            return None
        data = strict_json(path.read_bytes())  # a damaged or edited entry is a miss, never a crash
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("key") != _key(source):
        return None
    fetched_at = data.get("fetched_at")
    if not isinstance(fetched_at, int | float) or not 0 <= time.time() - fetched_at <= ttl:
        return None
    tools, server = data.get("tools"), data.get("server")
    if not isinstance(tools, list) or not all(isinstance(t, dict) for t in tools):
        return None
    return (server if isinstance(server, str) else None), tools


def store(source: str, server: str | None, tools: list[dict[str, Any]]) -> bool:
    """Write a server's answer; ``False`` when it could not be written (the command goes on without)."""
    if not catalog_cache.enabled():
        return False
    from .sources.live_syntax import shown_source

    key = _key(source)
    entry = {
        "format": FORMAT,
        "key": key,
        "source": shown_source(source),
        "fetched_at": time.time(),
        "server": server,
        "tools": tools,
    }
    where = _trusted(create=True)
    if where is None:
        return False
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=where, prefix=".tmp-", suffix=".json")  # created 0600
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(entry, handle, ensure_ascii=False)
        os.replace(tmp, where / f"{key}.json")
        tmp = None
        catalog_cache.prune(where, "*.json", MAX_ENTRIES, newest=where / f"{key}.json")
    except (OSError, TypeError, ValueError):
        return False
    finally:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
    return True


_UNITS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_ttl(text: str) -> float:
    """``'90'``, ``'90s'``, ``'10m'``, ``'2h'``, ``'1d'`` -> seconds; ``'0'`` turns the cache off."""
    from ..errors import UsageError

    raw = text.strip().lower()
    number, unit = raw.rstrip("smhd"), raw[len(raw.rstrip("smhd")) :]
    try:
        value = float(number)
    except ValueError:
        value = -1.0
    if unit not in _UNITS or not 0 <= value * _UNITS.get(unit, 1) < float("inf"):
        raise UsageError(
            f"a live-catalog TTL is a number of seconds, or of minutes, hours or days with m, h or d "
            f"(e.g. 90, 10m, 2h), not {text!r}",
            field="live-ttl",
        )
    return value * _UNITS[unit]


__all__ = ["TTL_ENV", "load", "parse_ttl", "store"]
