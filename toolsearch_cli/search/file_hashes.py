"""Hashes of model files, remembered in the cache by each file's stamp, so a search does not hash
the same unchanged files again in every process.

A model's identity (:func:`.embed._file_identity`) and its prepared copy's checks
(:mod:`.prepared`) hash a few MiB of the model's files; a new ``hybrid`` request paid that
(about 10 ms of CPU) on every run. :func:`remembered` keeps each result in
``<cache>/file-hashes.json`` under the stamp of the files it read: path, device, inode, size,
modification and status-change times (nanoseconds). Any change of a file changes its
status-change time, which no user can set back, so a remembered hash is used only for the bytes
it was computed from; anything else hashes again.

The file is a cache, treated as hostile: one that is missing, too big, not JSON or not of the
expected shape, or an entry that is not a short hex text, is ignored (the hashes are computed
again), never an error. A hash is not remembered when a file changed in the last
:data:`SETTLE_NS` (a file still being written could change again within one tick of the file
system's clock and keep its stamp). As for the other caches, the folder must be this user's alone
(:func:`..cachedir.trusted_folder`) and ``TOOLSEARCH_NO_CACHE`` turns it off.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from collections.abc import Callable, Sequence
from pathlib import Path

NAME = "file-hashes.json"
FORMAT = 1
#: entries kept (the newest); a model needs about four
MAX_ENTRIES = 64
#: a bigger file is not read (64 entries take about 10 KB)
MAX_BYTES = 256 * 1024
#: a file changed less than this long ago is hashed but its hash not remembered (2 s)
SETTLE_NS = 2_000_000_000
_VALUE = re.compile(r"^[0-9a-f]{8,128}$")

#: the entries read (or written) by this process, and the file they belong to
_memo: tuple[Path, dict[str, str]] | None = None


def _path() -> Path | None:
    from .. import cachedir as cache

    if not cache.enabled():
        return None
    return cache.cache_dir() / NAME


def _load(path: Path) -> dict[str, str]:
    global _memo
    if _memo is not None and _memo[0] == path:
        return _memo[1]
    memo: dict[str, str] = {}
    _memo = (path, memo)
    from .. import cachedir as cache

    if cache.trusted_folder(False) is None:
        return memo
    data = cache.read_json(path, MAX_BYTES)  # None: missing, a symlink, too big, not JSON...
    entries = data.get("entries") if isinstance(data, dict) and data.get("format") == FORMAT else None
    if isinstance(entries, dict):
        for key, value in list(entries.items())[-MAX_ENTRIES:]:
            if isinstance(key, str) and len(key) == 64 and isinstance(value, str) and _VALUE.match(value):
                memo[key] = value
    return memo


def _save(path: Path, memo: dict[str, str]) -> None:
    from .. import cachedir as cache

    if cache.trusted_folder(True) is None:
        return
    data = json.dumps({"format": FORMAT, "entries": memo}).encode("utf-8")
    try:
        cache.write_atomic(path, lambda f: f.write(data))
    except OSError:
        pass  # a read-only or full cache folder: the hashes are computed again next time


def forget() -> None:
    """Drop what this process read of the file (tests; a changed ``TOOLSEARCH_CACHE_DIR``)."""
    global _memo
    _memo = None


def remembered(kind: str, paths: Sequence[Path], compute: Callable[[], str]) -> str:
    """``compute()`` (a hash of ``paths``' contents, as hex text), or what it gave before for these
    files unchanged. ``kind`` names the computation (another kind of hash of the same files is
    another entry). An unreadable file raises :class:`OSError` as hashing it would."""
    stamps = []
    newest = 0
    for path in paths:
        st = os.stat(path)
        stamps.append([os.path.abspath(path), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns])
        newest = max(newest, st.st_mtime_ns, st.st_ctime_ns)
    where = _path()
    if where is None:
        return compute()
    key = hashlib.sha256(json.dumps([kind, stamps]).encode("utf-8", "surrogatepass")).hexdigest()
    memo = _load(where)
    value = memo.get(key)
    if value is not None:
        return value
    value = compute()
    if _VALUE.match(value) and time.time_ns() - newest >= SETTLE_NS:
        memo[key] = value
        while len(memo) > MAX_ENTRIES:
            del memo[next(iter(memo))]
        _save(where, memo)
    return value
