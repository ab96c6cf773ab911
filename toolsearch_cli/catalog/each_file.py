"""Load catalog sources file by file, collecting errors instead of stopping at the first: what
``toolsearch lint`` checks and ``toolsearch lock`` pins (a folder is its files, each on its own)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import CatalogError, NotACatalog, SourceUnavailable, UsageError
from ..model import Tool, ToolGroup
from .lenient import LoadWarning, collecting, warn
from .loading import SourcesLike, prefixes_live_names
from .sources import (
    LOADER_BY_SUFFIX,
    FileSource,
    FolderSource,
    LiveSource,
    ModuleSource,
    Source,
    display_path,
    parse_sources,
    skipped_file,
)


@dataclass(slots=True)
class LoadedFile:
    """One catalog file (or module): its tools and resident names, or the error that stopped it."""

    file: str
    tools: list[Tool] = field(default_factory=list)
    resident: list[str] = field(default_factory=list)
    error: CatalogError | None = None
    #: Line of the top-level ``resident:`` key (YAML), for findings about resident names.
    resident_line: int | None = None
    #: The file's tool groups (checked against the tools of every file, as the catalog is).
    groups: list[ToolGroup] = field(default_factory=list)
    #: What loading left out or changed (reported by the ``load-warning`` rule).
    warnings: list[LoadWarning] = field(default_factory=list)
    #: The kind of source (``file``, ``module``, ``live``, ``registry``) and the source as given
    #: (for the lockfile's keys: :func:`toolsearch_cli.lock.keyed_tools`).
    kind: str = "file"
    source: str = ""


#: One file to load: its kind for :class:`LoadedFile` (``walked``: a file of a folder named, skipped
#: when it is no catalog) and the source that loads it.
Expanded = tuple[str, Source]


def expand_sources(sources: SourcesLike) -> list[Expanded]:
    """(kind, source) pairs to load, a folder replaced by its files: kind is ``file`` (named),
    ``walked`` (a file of a folder named), ``module``, ``live`` (an MCP server) or ``registry``
    (any kind that is not a file, folder or module: its own name). Bad paths are usage errors."""
    out: list[Expanded] = []
    for source in parse_sources(sources):
        if isinstance(source, FolderSource):
            files = source.files()
            if not files:
                raise UsageError(f"{source.text}: no catalog files ({', '.join(LOADER_BY_SUFFIX)}) in this folder")
            out.extend(("walked", _file(display_path(f))) for f in files)  # skipped when no catalog
        elif isinstance(source, FileSource):
            if not source.known_format:
                raise UsageError(
                    f"{source.text}: unknown catalog format {source.path.suffix or '(no suffix)'!r}; "
                    f"expected a folder, {', '.join(LOADER_BY_SUFFIX)} or .py file, or a module name"
                )
            out.append(("file", _file(source.text)))
        elif isinstance(source, ModuleSource):
            out.append(("file" if source.is_file else "module", source))
        else:
            out.append((source.kind, source))
    kinds: dict[str, str] = {}
    chosen: dict[str, Source] = {}
    for kind, source in out:  # a file named and also found in a folder named is loaded once, as named
        text = source.text
        kinds[text] = "file" if kind == "file" or kinds.get(text) == "file" else kinds.get(text, kind)
        chosen.setdefault(text, source)
    return [(kinds[text], source) for text, source in chosen.items()]


def _file(text: str) -> FileSource:
    return FileSource(text, display=text)


def _top_level_key_line(path: Path, key: str) -> int | None:
    """The line of a top-level ``key:`` in a YAML file that loaded fine (the loader keeps no such mark)."""
    pattern = re.compile(rf"^{re.escape(key)}\s*:", re.M)
    match = pattern.search(path.read_text(encoding="utf-8"))
    return match.string.count("\n", 0, match.start()) + 1 if match else None


def load_files(sources: SourcesLike) -> list[LoadedFile]:
    """Every catalog file of the sources, each loaded on its own; a broken file keeps its error."""
    from .mcp_client import fetch_live_sources

    loaded = []
    expanded = expand_sources(sources)
    live = [source.text for _, source in expanded if isinstance(source, LiveSource)]
    prefix = prefixes_live_names([source for _, source in expanded])
    fetched = fetch_live_sources(live) if live else {}  # all servers at once (each still judged on its own)
    for kind, source in expanded:
        entry = LoadedFile(source.text, kind=kind, source=source.text)
        try:
            with collecting() as entry.warnings:
                _load_one(entry, kind, source, prefix, fetched)
        except CatalogError as exc:
            exc.file = exc.file or source.text
            entry.error = exc
        loaded.append(entry)
    return loaded


def _load_one(entry: LoadedFile, kind: str, source: Source, prefix: bool, fetched: dict[str, Any]) -> None:
    """Load one file, module or live server (its names prefixed with its alias when ``prefix``; its
    ``tools/list`` answer, or error, in ``fetched``) into ``entry``."""
    entry.file = source.shown
    if isinstance(source, LiveSource):
        from .mcp_client import tools_from_live

        answer = fetched[source.text]
        if isinstance(answer, CatalogError):
            raise answer
        live = tools_from_live(source.text, *answer, prefix=prefix)
        entry.tools, entry.resident = list(live.tools), list(live.resident)
    elif isinstance(source, ModuleSource):
        module = source.load()
        entry.tools, entry.resident = list(module.tools), list(module.resident)
    elif isinstance(source, FileSource):
        try:
            loaded_file = source.read()
        except NotACatalog as exc:
            if kind != "walked":
                raise
            warn(skipped_file(exc, source.text), "skipped")  # a folder's package.json: reported by load-warning
            return
        entry.tools, entry.resident = list(loaded_file.tools), list(loaded_file.resident)
        entry.groups = list(loaded_file.groups)
        if entry.resident:
            entry.resident_line = _top_level_key_line(source.path, "resident")
    else:  # a kind registered by another package (a registry namespace): linted like a file
        try:
            stored = source.load()
        except SourceUnavailable as exc:  # unreachable, no such namespace: nothing to lint, as a missing file
            raise UsageError(exc.message, field="catalog") from None
        entry.tools, entry.resident, entry.groups = list(stored.tools), list(stored.resident), list(stored.groups)


__all__ = ["LoadedFile", "expand_sources", "load_files"]
