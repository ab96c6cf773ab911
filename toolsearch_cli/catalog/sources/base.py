"""A catalog source, typed: the :class:`Source` protocol, the table of source kinds, and the one
parser that turns what a user typed (``--catalog`` values, ``$TOOLSEARCH_CATALOG``) into sources.

A string is classified here, once; everything after works on :class:`Source` objects, which load
themselves, say how they are shown and whether loading them runs code. Kinds recognised by their
syntax (a live MCP server's ``mcp+…``, a registry's ``postgresql://…``) are tried first, in the
order they were registered; then the file system decides (a folder, a file, a ``.py`` file); a
dotted name that is no path is a Python module.

A package that brings a kind of its own registers it with :func:`register_kind` when it is
imported (:mod:`toolsearch_cli.registry.kind` does for ``postgresql://``, and ``toolsearch_cli``'s
``__init__`` imports it, so every entry point knows the kind), so this package never imports the
packages built on it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Protocol, runtime_checkable

from ... import environment
from ...bounded import path_problem, safe_is_dir, safe_is_file
from ...errors import CatalogError

if TYPE_CHECKING:
    from ..result import LoadResult

#: The variable that names the default sources (separated by :data:`os.pathsep`).
ENV_VAR = environment.CATALOG


@runtime_checkable
class Source(Protocol):
    """One parsed catalog source."""

    #: The kind's name: ``file``, ``folder``, ``module``, ``live``, ``registry``.
    kind: ClassVar[str]

    @property
    def text(self) -> str:
        """The source as the user gave it (the key of caches and lockfiles)."""
        ...

    @property
    def shown(self) -> str:
        """The source as messages and ``Catalog.sources`` show it: no credentials."""
        ...

    @property
    def runs_code(self) -> str | None:
        """What loading it runs, as words (``"imports a Python module"``), or ``None`` for data."""
        ...

    def cache_files(self) -> list[Path]:
        """The catalog files whose content keys the on-disk cache; empty: never cached that way."""
        ...

    def load(self, catalog_format: str | None = None, *, prefix: bool = False) -> LoadResult:
        """Its tools, resident names, groups and warnings. ``catalog_format`` forces the format of
        files; ``prefix`` puts a live server's alias before its tool names."""
        ...


@dataclass(frozen=True)
class SourceKind:
    """A kind of source recognised by its text alone.

    ``parse`` returns the source, or ``None`` when the text is not of this kind (it raises a
    :class:`~toolsearch_cli.errors.ToolsearchError` when it is, but malformed). ``joins`` says
    whether a piece of ``$TOOLSEARCH_CATALOG`` cut at ``:`` continues the previous one (a URL's
    ``//host`` or port): ``joins(previous, piece)``.
    """

    name: str
    parse: Callable[[str], Source | None]
    joins: Callable[[str, str], bool] | None = None


#: The kinds recognised by their text, tried in this order before the file system is asked.
_KINDS: list[SourceKind] = []


def register_kind(kind: SourceKind) -> None:
    """Add (or replace, by name) a kind recognised by its text."""
    for i, known in enumerate(_KINDS):
        if known.name == kind.name:
            _KINDS[i] = kind
            return
    _KINDS.append(kind)


def source_kinds() -> tuple[SourceKind, ...]:
    """The kinds recognised by their text, in the order they are tried."""
    return tuple(_KINDS)


def parse_source(value: str | os.PathLike[str] | Source) -> Source:
    """One source from what a user named; a :class:`Source` is returned as it is.

    A path that does not exist, a folder or file that cannot be read, a name that is neither a
    path nor a module: a one-line :class:`~toolsearch_cli.errors.CatalogError` naming it."""
    if not isinstance(value, str | os.PathLike):
        return value
    text = os.fspath(value)
    for kind in _KINDS:
        found = kind.parse(text)
        if found is not None:
            return found
    from .files import LOADER_BY_SUFFIX, FileSource
    from .folder import FolderSource
    from .module import ModuleSource, is_module_reference

    path = Path(text)
    if safe_is_dir(path):
        return FolderSource(text)
    if safe_is_file(path):
        if path.suffix == ".py":
            return ModuleSource(text, is_file=True)
        return FileSource(text)
    problem = path_problem(path)
    if problem is not None and problem != "no such file":  # a FIFO, a device, a link loop, a name too long
        raise CatalogError(problem, file=text)
    if path.suffix.lower() in (*LOADER_BY_SUFFIX, ".py", ".json"):
        raise CatalogError("no such file", file=text)
    if is_module_reference(text):
        return ModuleSource(text)
    raise CatalogError("no such file, folder or importable module", file=text)


def parse_sources(
    values: Iterable[str | os.PathLike[str] | Source] | str | os.PathLike[str] | Source | None,
) -> list[Source]:
    """Sources from what a user named (see :func:`default_sources` for ``None`` and empty), each
    parsed once, in order; a source named twice is kept once."""
    if isinstance(values, str | os.PathLike) or isinstance(values, Source):
        values = [values]
    named = list(values or ())
    if not named:
        named = list(default_sources())
    out: dict[str, Source] = {}
    for value in named:
        source = parse_source(value)
        out.setdefault(source.text, source)
    return list(out.values())


def bundled_catalog_path() -> Path:
    """The demo catalog shipped inside the package (or beside it, in a source checkout)."""
    here = Path(__file__).resolve().parents[2]
    inside = here / "_catalogs" / "demo"
    if inside.is_dir():
        return inside
    return here.parent / "catalogs" / "demo"


def default_sources(explicit: Sequence[str] | None = None) -> list[str]:
    """``--catalog`` values, else ``$TOOLSEARCH_CATALOG``, else ``./catalogs``, else the bundled demo.
    A source given twice loads once (as ``toolsearch lint`` does), not as a clash with itself."""
    if explicit:
        return list(dict.fromkeys(explicit))
    env = environment.catalog_sources()
    if env:
        return list(dict.fromkeys(part for part in split_env_sources(env, os.pathsep) if part.strip()))
    if Path("catalogs").is_dir():
        return ["catalogs"]
    return [str(bundled_catalog_path())]


def split_env_sources(value: str, separator: str) -> list[str]:
    """Split ``$TOOLSEARCH_CATALOG`` on ``separator`` (``:``) without cutting a source apart: each
    kind recognised by its text says when a piece continues the previous one (``mcp+stdio:CMD``
    keeps its command, ``mcp+http://host:port/path`` its scheme and port, and so on)."""
    out: list[str] = []
    for part in value.split(separator):
        if out and separator == ":" and any(k.joins is not None and k.joins(out[-1], part) for k in _KINDS):
            out[-1] += ":" + part
        else:
            out.append(part)
    return out


__all__ = [
    "ENV_VAR",
    "Source",
    "SourceKind",
    "bundled_catalog_path",
    "default_sources",
    "parse_source",
    "parse_sources",
    "register_kind",
    "source_kinds",
    "split_env_sources",
]
