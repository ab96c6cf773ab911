"""An on-disk cache of loaded (and indexed) catalogs, so a CLI call skips parsing and indexing.

A cache entry is keyed by everything its content depends on, never by file times alone:

* the bytes of every catalog file the sources resolve to (so any edit misses the cache);
* the sources as given, the working directory (locations are shown relative to it);
* this package's version, the Python version, PyStemmer's version (indexes hold stemmed
  terms), and a fingerprint of the package's own source files (so an upgraded or edited
  toolsearch never reads objects pickled by another build).

Only file catalogs are cached (YAML/JSON); a Python module runs code and is always imported.
An entry stores its key and is re-checked on load; a missing, stale, corrupt or unreadable
entry is simply a miss. Entries are written atomically (temporary file + rename) in a folder
only the user can read. The newest :data:`MAX_ENTRIES` entries are kept.

A tool is pickled packed (:meth:`toolsearch_cli.model.Tool.__reduce__`): its name and category,
and its other fields as one ``bytes`` unpickled when one of them is first read, so a search of a
cached catalog of 100,000 tools unpacks the fields of its hits only. The entry is mapped
(``mmap``, private), authenticated and unpickled through a ``memoryview`` of the mapping (no copy
of a 100 MB entry); the indexes' NumPy arrays are out-of-band pickle buffers used in place.

Entries are pickles, and unpickling runs code, so a cache must not be a way for another user to
run code as this one:

* every entry is authenticated (HMAC-SHA256) with a random key kept in the folder's
  :data:`KEY_FILE` (mode 0600); an entry whose tag does not match is never unpickled;
* the key file must belong to the user and be readable by nobody else, and the folder must
  belong to the user and be writable by nobody else; otherwise the cache is not used, with one
  warning saying how to fix the permissions.

Location and the folder checks: :mod:`toolsearch_cli.cachedir` (``TOOLSEARCH_NO_CACHE=1`` turns the
cache off).
"""

from __future__ import annotations

import hashlib
import hmac
import mmap
import os
import pickle
import stat
import struct
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._version import __version__
from ..bounded import MAX_INPUT_BYTES, gc_paused
from ..cachedir import owned_by_someone_else, prune, trusted_folder, warn_once
from ..model import Catalog

MAGIC = b"toolsearch-catalog-cache/4\n"
#: The file holding the key entries are authenticated with (32 random bytes, mode 0600).
KEY_FILE = "cache.key"
_TAG_SIZE = hashlib.sha256().digest_size
MAX_ENTRIES = 32
#: File suffixes whose catalogs may be cached (pure data, no code runs when loading them).
CACHEABLE_SUFFIXES = (".yaml", ".yml", ".json", ".jsonl")


def _package_fingerprint() -> bytes:
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith((".", "__pycache__")))
        for name in sorted(filenames):
            if name.endswith(".py"):
                st = os.stat(os.path.join(dirpath, name))
                digest.update(f"{dirpath}/{name}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return digest.digest()


def _stemmer_version() -> str:
    """Cached indexes hold stemmed terms: a different stemmer release must not reuse them."""
    try:
        import Stemmer
    except ImportError:  # pragma: no cover - PyStemmer is a dependency
        return "none"
    return str(Stemmer.version())


def key_for(
    sources: Sequence[str], files_of: dict[str, list[Path]], tokens_of: dict[str, str] | None = None
) -> str | None:
    """The cache key of these sources, or ``None`` when they cannot be cached.

    ``files_of`` maps each source to the catalog files it resolves to (empty: not a file catalog).
    ``tokens_of`` maps a source that is no file to a text naming its content exactly (a registry
    namespace: where it is, credentials masked, and its content digest; see
    :meth:`toolsearch_cli.registry.kind.RegistryCatalogSource.cache_token`): such a source is keyed
    by its token alone (its text, which may hold a password, is not hashed into the key).
    """
    digest = hashlib.sha256()
    digest.update(MAGIC)
    digest.update(f"{__version__}\n{sys.version}\n{os.getcwd()}\n{_stemmer_version()}\n".encode())
    digest.update(_package_fingerprint())
    for source in sources:
        token = (tokens_of or {}).get(source)
        if token is not None:
            digest.update(f"token {len(token)}\n{token}\n".encode())
            continue
        files = files_of.get(source)
        if not files:
            return None
        digest.update(f"source {source}\n".encode())
        for file in files:
            if file.suffix.lower() not in CACHEABLE_SUFFIXES:
                return None
            content = _file_digest(file)
            if content is None:
                return None
            digest.update(f"file {file} {content[0]}\n".encode())
            digest.update(content[1])
    return digest.hexdigest()


#: Bytes a catalog file is hashed by at a time (one buffer, reused).
_HASH_CHUNK = 1 << 20


def _file_digest(file: Path) -> tuple[int, bytes] | None:
    """The size and SHA-256 of a catalog file's bytes, read a chunk at a time into one buffer (the
    whole 51 MB of a 100,000-tool file read at once cost 0.04 s of page faults on every cached
    search); ``None`` when it cannot be read or is larger than a catalog file may be (it would
    not load either)."""
    digest = hashlib.sha256()
    buffer = bytearray(_HASH_CHUNK)
    view = memoryview(buffer)
    size = 0
    try:
        with open(file, "rb") as handle:
            while True:
                got = handle.readinto(buffer)
                if not got:
                    break
                size += got
                if size > MAX_INPUT_BYTES:
                    return None
                digest.update(view[:got])
    except OSError:
        return None
    return size, digest.digest()


@dataclass(frozen=True)
class Cached:
    """A cache entry read back: the catalog, the indexes built for it before it was stored (see
    :mod:`toolsearch_cli.indexes`) and the warnings it was loaded with."""

    catalog: Catalog
    indexes: dict[str, Any] = field(default_factory=dict)
    warnings: tuple[Any, ...] = ()


def load(key: str) -> Cached | None:
    """The cache entry for ``key``, or ``None`` (absent, stale, unreadable or not authentic: all
    misses)."""
    folder = trusted_folder(create=False)
    secret = _secret(folder) if folder is not None else None
    if folder is None or secret is None:
        return None
    try:
        with open(folder / f"{key}.pickle", "rb") as f:
            entry = _unpickled(f, secret)
    except Exception:  # noqa: BLE001 - any damage to a cache entry is a miss, never a failure
        return None
    if entry is None:
        return None
    stored_key, catalog, indexes, warnings = entry
    if stored_key != key or not isinstance(catalog, Catalog) or not isinstance(indexes, dict):
        return None
    return Cached(catalog, indexes, tuple(warnings))


def _unpickled(f: Any, secret: bytes) -> Any:
    """The entry of an open cache file unpickled, if its tag says this user's toolsearch wrote it.

    The file is mapped, not read: reading a 100,000-tool entry (111 MB) into memory cost 0.07 s of
    page faults, and the tag and the unpickler read the page cache through the mapping. The
    indexes' arrays are the entry's out-of-band buffers (see :func:`store`): NumPy arrays over the
    mapping itself, not copies (45 MB of a 100,000-tool entry). The mapping is private
    (copy-on-write: an array changed at run time changes this process's copy of the page only) and
    stays as long as an array uses it. Entries are only ever replaced by a rename, never rewritten
    in place, so a mapped file stays whole.
    """
    mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY)
    view = memoryview(mapped)
    try:
        if view[: len(MAGIC)] != MAGIC:
            return None
        tag = bytes(view[len(MAGIC) : len(MAGIC) + _TAG_SIZE])
        body = len(MAGIC) + _TAG_SIZE
        if not hmac.compare_digest(tag, hmac.new(secret, view[body:], hashlib.sha256).digest()):
            return None  # not written by this user's toolsearch: never unpickled
        size, count = _HEAD.unpack_from(view, body)
        start = body + _HEAD.size + count * _PLACE.size
        places = [_PLACE.unpack_from(view, body + _HEAD.size + i * _PLACE.size) for i in range(count)]
        if start + size > len(view) or any(at < start + size or at + length > len(view) for at, length in places):
            return None
        buffers = [view[at : at + length] for at, length in places]
        with gc_paused():  # millions of objects, no cycles: see gc_paused
            return pickle.loads(view[start : start + size], buffers=buffers)
    finally:
        view.release()  # the arrays' own views of the mapping keep it open


#: An entry's body (after MAGIC and the tag): the payload's size and the number of buffers, then
#: each buffer's place (offset in the file, size), the payload (a pickle) and the buffers, each
#: at a multiple of :data:`_ALIGN` (NumPy arrays over them are aligned).
_HEAD = struct.Struct("<QI")
_PLACE = struct.Struct("<QQ")
_ALIGN = 64


def _entry_parts(payload: bytes, buffers: list[memoryview]) -> list[bytes | memoryview]:
    """The body of an entry (see :data:`_HEAD`), as the pieces to write in order."""
    body = len(MAGIC) + _TAG_SIZE
    at = body + _HEAD.size + len(buffers) * _PLACE.size + len(payload)
    places: list[bytes] = []
    pieces: list[bytes | memoryview] = []
    for buffer in buffers:
        padding = -at % _ALIGN
        pieces += [b"\0" * padding, buffer]
        at += padding
        places.append(_PLACE.pack(at, buffer.nbytes))
        at += buffer.nbytes
    return [_HEAD.pack(len(payload), len(buffers)), *places, payload, *pieces]


def _out_of_band(buffers: list[memoryview]) -> Any:
    """A ``buffer_callback`` for :func:`pickle.dumps`: a contiguous buffer (an array's data) is kept
    out of the pickle, to be written after it; any other is pickled in-band, as before."""

    def keep(buffer: pickle.PickleBuffer) -> bool:
        try:
            buffers.append(buffer.raw())
        except BufferError:  # not contiguous
            return True
        return False

    return keep


def store(key: str, catalog: Catalog, indexes: dict[str, Any] | None = None, warnings: Sequence[Any] = ()) -> bool:
    """Write the catalog, the indexes built for it so far and its load warnings under ``key``;
    ``False`` if it could not."""
    try:
        folder = trusted_folder(create=True)
        secret = _secret(folder) if folder is not None else None
        if folder is None or secret is None:
            return False
        buffers: list[memoryview] = []
        with gc_paused():
            payload = pickle.dumps(
                (key, catalog, dict(indexes or {}), tuple(warnings)),
                protocol=5,
                buffer_callback=_out_of_band(buffers),
            )
        parts = _entry_parts(payload, buffers)
        tag = hmac.new(secret, digestmod=hashlib.sha256)
        for part in parts:
            tag.update(part)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".pickle")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(MAGIC)
                f.write(tag.digest())
                for part in parts:
                    f.write(part)
            os.replace(tmp, folder / f"{key}.pickle")
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        prune(folder, "*.pickle", MAX_ENTRIES, newest=folder / f"{key}.pickle")
    except (OSError, pickle.PicklingError, TypeError, AttributeError):
        return False  # a read-only home or an unpicklable extension: run without the cache
    return True


_secrets: dict[str, bytes] = {}


def _secret(folder: Path) -> bytes | None:
    """The key that authenticates this folder's entries: read from :data:`KEY_FILE`, created
    (32 random bytes, mode 0600) when missing; ``None`` when the file is not the user's alone."""
    path = folder / KEY_FILE
    known = _secrets.get(str(path))
    if known is not None:
        return known
    nofollow = getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, os.O_RDONLY | nofollow)
    except FileNotFoundError:
        return _new_secret(path, nofollow)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None
        if owned_by_someone_else(st) or st.st_mode & 0o077:
            warn_once(f"not using the catalog cache: its key file {path} is not yours alone; remove it: rm '{path}'")
            return None
        secret = os.read(fd, 64)
    except OSError:
        return None
    finally:
        os.close(fd)
    if len(secret) != 32:
        return None
    _secrets[str(path)] = secret
    return secret


def _new_secret(path: Path, nofollow: int) -> bytes | None:
    import secrets

    secret = secrets.token_bytes(32)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | nofollow, 0o600)
    except FileExistsError:  # another toolsearch made it just now
        return _secret(path.parent)
    except OSError:
        return None
    try:
        os.write(fd, secret)
    finally:
        os.close(fd)
    _secrets[str(path)] = secret
    return secret


__all__ = [
    "KEY_FILE",
    "MAGIC",
    "Cached",
    "key_for",
    "load",
    "store",
]
