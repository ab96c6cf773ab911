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

Location: ``$TOOLSEARCH_CACHE_DIR``, else ``$XDG_CACHE_HOME/toolsearch``, else
``~/.cache/toolsearch``. ``TOOLSEARCH_NO_CACHE=1`` turns the cache off.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from .. import __version__
from ..model import Catalog

MAGIC = b"toolsearch-catalog-cache/1\n"
MAX_ENTRIES = 32
CACHE_DIR_VAR = "TOOLSEARCH_CACHE_DIR"
NO_CACHE_VAR = "TOOLSEARCH_NO_CACHE"
#: File suffixes whose catalogs may be cached (pure data, no code runs when loading them).
CACHEABLE_SUFFIXES = (".yaml", ".yml", ".json", ".jsonl")


def enabled() -> bool:
    return os.environ.get(NO_CACHE_VAR, "").strip().lower() not in ("1", "true", "yes", "on")


def cache_dir() -> Path:
    explicit = os.environ.get(CACHE_DIR_VAR, "").strip()
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    return (Path(base) if base else Path.home() / ".cache") / "toolsearch"


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


def key_for(sources: Sequence[str], files_of: dict[str, list[Path]]) -> str | None:
    """The cache key of these sources, or ``None`` when they cannot be cached.

    ``files_of`` maps each source to the catalog files it resolves to (empty: not a file catalog).
    """
    digest = hashlib.sha256()
    digest.update(MAGIC)
    digest.update(f"{__version__}\n{sys.version}\n{os.getcwd()}\n{_stemmer_version()}\n".encode())
    digest.update(_package_fingerprint())
    for source in sources:
        files = files_of.get(source)
        if not files:
            return None
        digest.update(f"source {source}\n".encode())
        for file in files:
            if file.suffix.lower() not in CACHEABLE_SUFFIXES:
                return None
            try:
                data = file.read_bytes()
            except OSError:
                return None
            digest.update(f"file {file} {len(data)}\n".encode())
            digest.update(data)
    return digest.hexdigest()


def load(key: str) -> Catalog | None:
    """The cached catalog for ``key``, or ``None`` (absent, stale or unreadable: all misses)."""
    path = cache_dir() / f"{key}.pickle"
    try:
        with open(path, "rb") as f:
            if f.read(len(MAGIC)) != MAGIC:
                return None
            stored_key, catalog = pickle.load(f)
    except Exception:  # noqa: BLE001 - any damage to a cache entry is a miss, never a failure
        return None
    if stored_key != key or not isinstance(catalog, Catalog):
        return None
    catalog.cache_key = key
    return catalog


def store(catalog: Catalog) -> bool:
    """Write the catalog (with the indexes built so far) under its key; ``False`` if it could not."""
    key = catalog.cache_key
    if key is None:
        return False
    folder = cache_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".pickle")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(MAGIC)
                pickle.dump((key, catalog), f, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, folder / f"{key}.pickle")
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        _prune(folder)
    except (OSError, pickle.PicklingError, TypeError, AttributeError):
        return False  # a read-only home or an unpicklable extension: run without the cache
    return True


def _prune(folder: Path) -> None:
    entries = sorted(folder.glob("*.pickle"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in entries[MAX_ENTRIES:]:
        old.unlink(missing_ok=True)
