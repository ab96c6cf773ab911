"""The folder source kind: every catalog file below a folder, merged, and the walk that finds
them (:func:`catalog_files`: no hidden files, no skipped folders, no link leading outside)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from ...errors import CatalogError, NotACatalog
from .files import LOADER_BY_SUFFIX, SKIPPED_SUFFIXES, display_path, packed_when_large, skipped_file

if TYPE_CHECKING:
    from ..result import LoadResult


@dataclass(frozen=True)
class FolderSource:
    """A folder of catalog files (a :class:`~.base.Source`)."""

    kind: ClassVar[str] = "folder"
    text: str

    @property
    def path(self) -> Path:
        return Path(self.text)

    @property
    def shown(self) -> str:
        return self.text

    @property
    def runs_code(self) -> str | None:
        return None  # Python files below a folder are never loaded: only when named

    def files(self) -> list[Path]:
        """Its catalog files (see :func:`catalog_files`)."""
        return catalog_files(self.path)

    def cache_files(self) -> list[Path]:
        return self.files()

    def load(self, catalog_format: str | None = None, *, prefix: bool = False) -> LoadResult:
        return _load_folder(self.path, self.text, catalog_format)


#: A folder holding a file of this name is skipped when a folder above it is loaded (it still
#: loads when named directly): for example catalogs that must not join the default catalog.
SKIP_MARKER = ".toolsearch-skip"


def catalog_files(folder: Path) -> list[Path]:
    """Catalog files below a folder, sorted: known suffixes, no hidden parts, no skipped folders.

    A subfolder that cannot be read is an error, not a silent gap in the catalog. The walk never
    leaves the folder named: a symbolic link (to a file or a folder) is followed only when it
    resolves inside it, and not to the folder the link is in or one above (a loop); any other link
    is skipped with one warning on stderr (a cloned repository must not pull in ``~/.ssh``).
    """

    def refuse(exc: OSError) -> None:
        raise CatalogError(f"cannot read this folder: {exc.strerror or exc}", file=str(exc.filename or folder))

    root = os.path.realpath(folder)
    found: list[Path] = []
    visited: set[tuple[int, int]] = set()
    for walked, dirs, files in os.walk(folder, onerror=refuse, followlinks=True):
        here = Path(walked)
        try:
            info = os.stat(here)
        except OSError as exc:
            refuse(exc)
        if (info.st_dev, info.st_ino) in visited or (here != folder and (here / SKIP_MARKER).exists()):
            dirs[:] = []
            continue
        visited.add((info.st_dev, info.st_ino))
        real_here = os.path.realpath(here)
        dirs[:] = [
            d for d in sorted(dirs) if not d.startswith(".") and _link_stays_inside(here / d, root, real_here, folder)
        ]
        for name in files:
            path = here / name
            if (
                not name.startswith(".")
                and path.suffix.lower() in LOADER_BY_SUFFIX
                and not name.lower().endswith(SKIPPED_SUFFIXES)
                and _link_stays_inside(path, root, None, folder)
                and path.is_file()
            ):
                found.append(path)
    return _each_file_once(sorted(found))


def _each_file_once(paths: list[Path]) -> list[Path]:
    """``paths`` with a file reached twice (a link inside the folder to one of its own files) kept
    once, under its own name rather than the link's; in order."""
    kept: dict[tuple[int, int] | Path, Path] = {}
    for path in paths:
        try:
            info = path.stat()
        except OSError:
            kept[path] = path  # gone meanwhile: its loader says so
            continue
        key = (info.st_dev, info.st_ino)
        other = kept.get(key)
        if other is None or (os.path.islink(other) and not os.path.islink(path)):
            kept[key] = path
    chosen = set(kept.values())
    return [path for path in paths if path in chosen]


#: Links already warned about: once per command, however often its loads walk the folder.
_warned_links: set[str] = set()


def forget_warned_links() -> None:
    """The next walk warns about each skipped link again (the CLI calls it after each command)."""
    _warned_links.clear()


def _link_stays_inside(path: Path, root: str, real_here: str | None, folder: Path) -> bool:
    """Whether the walk may go on to ``path``: it is not a symbolic link, or its target is inside
    ``root`` (the named folder, resolved) and, for a folder (``real_here`` given: where the link
    is), neither that folder nor one above it. Otherwise warns once and says no."""
    if not os.path.islink(path):
        return True
    target = os.path.realpath(path)
    inside = target == root or target.startswith(root.rstrip(os.sep) + os.sep)
    above = real_here is not None and (real_here == target or real_here.startswith(target.rstrip(os.sep) + os.sep))
    if inside and not above:
        return True
    shown_path = str(path)  # the link itself, not where it leads
    if shown_path not in _warned_links:
        _warned_links.add(shown_path)
        import sys

        from ...printable import shown

        why = f"outside {folder}" if not inside else "a folder that holds the link (a loop)"
        print(f"warning: {shown(shown_path)}: skipped: a symbolic link to {shown(target)}, {why}", file=sys.stderr)
    return False


def _load_folder(path: Path, source: str, catalog_format: str | None) -> LoadResult:
    """Every catalog file below a folder, merged. A file that parses but is no catalog at all (a
    ``package.json``, see :func:`formats.not_a_catalog`) is skipped with a warning (kind
    ``skipped``; an error when strict); a broken catalog stays an error."""
    from ..lenient import warn
    from ..result import LoadResult

    files = catalog_files(path)
    if not files:
        raise CatalogError(f"no catalog files ({', '.join(LOADER_BY_SUFFIX)}) in this folder", file=source)
    skipped: list[NotACatalog] = []

    def each() -> Iterator[LoadResult]:
        for file in files:
            try:
                yield LOADER_BY_SUFFIX[file.suffix.lower()](file, display_path(file), catalog_format)
            except NotACatalog as exc:
                skipped.append(exc)
                warn(skipped_file(exc, display_path(file)), "skipped")

    merged = LoadResult.merged(packed_when_large(each()))
    if len(skipped) == len(files):
        first = skipped[0]
        raise CatalogError(
            f"no tool catalog in this folder: {len(files)} file{'s' if len(files) != 1 else ''} and none a "
            f"catalog ({first.file}: {first.reason})",
            file=source,
        )
    return merged


__all__ = ["SKIP_MARKER", "FolderSource", "catalog_files", "forget_warned_links"]
