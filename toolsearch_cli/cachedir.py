"""The folder toolsearch caches things in (parsed catalogs, live servers' tool lists, tool vectors),
and the checks that keep another user from planting files in it.

Location: ``$TOOLSEARCH_CACHE_DIR``, else ``$XDG_CACHE_HOME/toolsearch``, else
``~/.cache/toolsearch``. ``TOOLSEARCH_NO_CACHE=1`` turns every cache off. A folder is used only when
it belongs to the user and nobody else can write to it (see :func:`trusted_folder`).
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from . import environment

CACHE_DIR_VAR = environment.CACHE_DIR
NO_CACHE_VAR = environment.NO_CACHE


def enabled() -> bool:
    return environment.cache_enabled()


def cache_dir() -> Path:
    explicit = environment.cache_dir()
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    return (Path(base) if base else Path.home() / ".cache") / "toolsearch"


_warned: set[str] = set()


def warn_once(message: str) -> None:
    """One line on stderr, once per problem (a refused cache is not an error: commands go on)."""
    if message not in _warned:
        _warned.add(message)
        from .printable import shown

        print(f"warning: {shown(message)}", file=sys.stderr)


def owned_by_someone_else(st: os.stat_result) -> bool:
    return hasattr(os, "geteuid") and st.st_uid != os.geteuid()


def trusted_folder(create: bool, folder: Path | None = None) -> Path | None:
    """The cache folder (or ``folder``, one inside it) when only this user can change what is in it
    (created, mode 0700, if ``create``); ``None`` (with a warning saying how to fix it) when another
    user could. A folder inside the cache is trusted only inside a trusted cache folder."""
    if folder is not None and trusted_folder(create) is None:
        return None
    folder = cache_dir() if folder is None else folder
    try:
        if create:
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        st = os.stat(folder)
    except OSError:
        return None
    shown = str(folder)
    if not stat.S_ISDIR(st.st_mode):
        return None
    if owned_by_someone_else(st):
        warn_once(
            f"not using the catalog cache: {shown} belongs to another user; remove it or set "
            f"${CACHE_DIR_VAR} to a folder of your own"
        )
        return None
    if st.st_mode & 0o022:
        warn_once(
            f"not using the catalog cache: other users can write to {shown}; make it yours alone: chmod 700 '{shown}'"
        )
        return None
    return folder


def prune(folder: Path, pattern: str, keep: int, *, newest: Path | None = None) -> None:
    """Delete all but the newest ``keep`` entries (files matching ``pattern``) of a cache folder.

    ``newest`` (the entry just written) is always one of those kept: entries written within one
    tick of the file system's clock tie on their modification time, and sorting alone could
    delete the entry just written. An entry another process removes meanwhile is skipped."""
    dated: list[tuple[int, Path]] = []
    for path in folder.glob(pattern):
        if newest is not None and path == newest:
            continue
        try:
            dated.append((path.stat().st_mtime_ns, path))
        except FileNotFoundError:
            continue
    dated.sort(key=lambda entry: entry[0], reverse=True)
    room = max(keep - (1 if newest is not None else 0), 0)
    for _, old in dated[room:]:
        old.unlink(missing_ok=True)


def read_file(path: Path, limit: int) -> bytes | None:
    """A file of the cache, read whole; ``None`` when it is missing, unreadable, a symlink, not a
    regular file or larger than ``limit`` bytes. A cache file is hostile input: whoever reads one
    treats ``None`` as "make it again", never as an error. The file is opened without following a
    link (``O_NOFOLLOW``: no window between a check and the open) and without blocking on a FIFO
    planted in its place."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        if path.is_symlink():  # where O_NOFOLLOW is missing
            return None
        fd = os.open(path, flags)
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                return None
            raw = f.read(limit + 1)
    except OSError:
        return None
    return raw if len(raw) <= limit else None


def read_json(path: Path, limit: int) -> object | None:
    """A small JSON file of the cache, parsed (read as :func:`read_file` reads); ``None`` when
    :func:`read_file` gives nothing or it is not JSON or nested too deep."""
    import json

    raw = read_file(path, limit)
    if raw is None:
        return None
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        return None


def write_atomic(path: Path, write: Callable[[BinaryIO], object]) -> None:
    """Make the cache file ``path`` whole at once: ``write`` fills a new file (mode 0600) beside it,
    which then replaces ``path`` by a rename (a reader sees the old file or the new one, never a
    part; a link planted at ``path`` is replaced, not followed). Raises :class:`OSError` (the
    new file removed) when it cannot; callers run without the cache then."""
    import tempfile

    # ".part": never matched by a prune pattern ("*.json", ...), so no other process deletes it mid-write
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
