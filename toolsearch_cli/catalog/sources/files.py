"""The file source kind: one catalog file (YAML or JSON, in any supported format), and the
table of file loaders by suffix that folders (:mod:`.folder`) use too."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from ...errors import CatalogError, NotACatalog

if TYPE_CHECKING:
    from ...model import Tool
    from ..result import LoadResult


def load_yaml_catalog(path: Path, display: str | None = None, catalog_format: str | None = None) -> LoadResult:
    """Load a YAML or JSON catalog file in any supported format, detected from the content unless
    ``catalog_format`` names it (PyYAML is imported on first use: a cached catalog never needs it)."""
    from ..formats import load_file

    return load_file(path, display, catalog_format)


#: File loaders by suffix, called with (path, name to show in messages[, format or None to detect
#: it from the content]). A folder loads every file whose suffix is a key here, recursively;
#: Python files load only when named directly.
LOADER_BY_SUFFIX: dict[str, Callable[..., LoadResult]] = {
    ".yaml": load_yaml_catalog,
    ".yml": load_yaml_catalog,
    ".json": load_yaml_catalog,
    ".jsonl": load_yaml_catalog,
}

#: Files a folder walk skips although their suffix is a catalog's: simulation scripts
#: (``*.sim.yaml``) live beside catalogs in ``catalogs/`` but are not catalogs.
SKIPPED_SUFFIXES = (".sim.yaml", ".sim.yml")

#: A source of at least this many tools is held packed (:func:`~toolsearch_cli.model.pack_tools`):
#: each file's tools are packed as soon as the file is read, so its parsed document is freed before
#: the next is read (1,000,000 tools: ~0.8 KB a tool instead of ~2.5 KB). Below it the tools stay
#: plain: 100,000 tools take ~300 MB, and packing and reading them packed would cost ~25 µs a tool.
PACK_FROM = 200_000


@dataclass(frozen=True)
class FileSource:
    """A catalog file named by its path (a :class:`~.base.Source`). ``display`` is the name its
    tools' locations and messages use (``None``: the path as :mod:`..formats` shows it)."""

    kind: ClassVar[str] = "file"
    text: str
    display: str | None = None

    @property
    def path(self) -> Path:
        return Path(self.text)

    @property
    def shown(self) -> str:
        return self.text

    @property
    def runs_code(self) -> str | None:
        return None

    @property
    def known_format(self) -> bool:
        """Whether its suffix names a catalog format (else only ``--catalog-format`` can)."""
        return self.path.suffix.lower() in LOADER_BY_SUFFIX

    def cache_files(self) -> list[Path]:
        return [self.path] if self.known_format else []

    def read(self, catalog_format: str | None = None) -> LoadResult:
        """The file's catalog as its loader reads it (tools never packed)."""
        path = self.path
        loader = LOADER_BY_SUFFIX.get(path.suffix.lower())
        if loader is None and catalog_format not in (None, "auto"):
            loader = load_yaml_catalog  # --catalog-format says what the file is, whatever its name
        if loader is None:
            raise CatalogError(
                f"unknown catalog format {path.suffix or '(no suffix)'!r}; "
                f"expected a folder, {', '.join(LOADER_BY_SUFFIX)} or .py file, or a module name "
                "(or name the file's format with --catalog-format)",
                file=self.text,
            )
        return loader(path, self.display, catalog_format)

    def load(self, catalog_format: str | None = None, *, prefix: bool = False) -> LoadResult:
        return next(packed_when_large([self.read(catalog_format)]))


def packed_when_large(results: Iterable[LoadResult]) -> Iterator[LoadResult]:
    """Each file's result, its tools packed once the files read so far hold :data:`PACK_FROM`
    tools (those of the earlier files too, then)."""
    from ...model import pack_tools

    waiting: list[Tool] = []
    total = 0
    for result in results:
        total += len(result.tools)
        waiting.extend(result.tools)
        if total >= PACK_FROM:
            pack_tools(waiting)
            waiting = []
        yield result


def skipped_file(exc: NotACatalog, file: str) -> CatalogError:
    """The warning for a file of a folder that is no catalog (the folder's load skips it), or the
    error when loading is strict."""
    from ..lenient import strict_now

    if strict_now():
        message = f"not a tool catalog: {exc.reason}; --strict refuses it (without it, the folder's load skips it)"
    else:
        message = f"skipped, not a tool catalog: {exc.reason}"
    return CatalogError(message, file=exc.file or file)


def display_path(path: Path) -> str:
    """A path as messages show it: relative to the working folder when inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


__all__ = [
    "LOADER_BY_SUFFIX",
    "PACK_FROM",
    "SKIPPED_SUFFIXES",
    "FileSource",
    "display_path",
    "load_yaml_catalog",
    "packed_when_large",
    "skipped_file",
]
