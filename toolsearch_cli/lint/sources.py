"""Load catalog sources file by file, collecting errors instead of stopping at the first."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..bounded import path_problem, safe_is_dir, safe_is_file
from ..catalog import (
    LOADER_BY_SUFFIX,
    catalog_files,
    default_sources,
    display_path,
    prefixes_live_names,
    skipped_file,
)
from ..catalog.lenient import LoadWarning, collecting, warn
from ..catalog.mcp_client import fetch_live_sources, tools_from_live
from ..catalog.python_loader import is_module_reference, load_python_module
from ..catalog.sources import is_live_source, shown_source
from ..errors import CatalogError, NotACatalog, UsageError
from ..model import Tool, ToolGroup
from ..registry.source import is_registry_source, shown_registry_source


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


def expand_sources(sources: Sequence[str] | None) -> list[tuple[str, str]]:
    """(kind, path-or-module) pairs to load: kind is ``file`` (named), ``walked`` (a file of a folder
    named), ``module``, ``live`` (an MCP server) or ``registry``. Bad paths are usage errors."""
    out: list[tuple[str, str]] = []
    for source in default_sources(sources):
        path = Path(source)
        if is_live_source(source):  # a live MCP server: its tools are linted like a file's
            out.append(("live", source))
        elif is_registry_source(source):  # a PostgreSQL registry namespace: linted like a file
            out.append(("registry", source))
        elif safe_is_dir(path):
            files = catalog_files(path)
            if not files:
                raise UsageError(f"{source}: no catalog files ({', '.join(LOADER_BY_SUFFIX)}) in this folder")
            out.extend(("walked", display_path(f)) for f in files)  # a folder's: skipped when no catalog
        elif safe_is_file(path):
            if path.suffix != ".py" and path.suffix.lower() not in LOADER_BY_SUFFIX:
                raise UsageError(
                    f"{source}: unknown catalog format {path.suffix or '(no suffix)'!r}; "
                    f"expected a folder, {', '.join(LOADER_BY_SUFFIX)} or .py file, or a module name"
                )
            out.append(("file", source))
        elif (problem := path_problem(path)) not in (None, "no such file"):  # a FIFO, a link loop, a name too long
            raise UsageError(f"{source}: {problem}")
        elif is_module_reference(source):
            out.append(("module", source))
        else:
            raise UsageError(f"{source}: no such file, folder or importable module")
    kinds: dict[str, str] = {}
    for kind, source in out:  # a file named and also found in a folder named is loaded once, as named
        kinds[source] = "file" if kind == "file" or kinds.get(source) == "file" else kinds.get(source, kind)
    return [(kinds[source], source) for source in dict.fromkeys(source for _, source in out)]


def _top_level_key_line(path: Path, key: str) -> int | None:
    """The line of a top-level ``key:`` in a YAML file that loaded fine (the loader keeps no such mark)."""
    pattern = re.compile(rf"^{re.escape(key)}\s*:", re.M)
    match = pattern.search(path.read_text(encoding="utf-8"))
    return match.string.count("\n", 0, match.start()) + 1 if match else None


def load_files(sources: Sequence[str] | None) -> list[LoadedFile]:
    """Every catalog file of the sources, each loaded on its own; a broken file keeps its error."""
    loaded = []
    expanded = expand_sources(sources)
    live = [source for kind, source in expanded if kind == "live"]
    prefix = prefixes_live_names(live)
    fetched = fetch_live_sources(live) if live else {}  # all servers at once (each still judged on its own)
    for kind, source in expanded:
        entry = LoadedFile(source, kind=kind, source=source)
        try:
            with collecting() as entry.warnings:
                _load_one(entry, kind, source, prefix, fetched)
        except CatalogError as exc:
            exc.file = exc.file or source
            entry.error = exc
        loaded.append(entry)
    return loaded


def _load_one(entry: LoadedFile, kind: str, source: str, prefix: bool, fetched: dict[str, Any]) -> None:
    """Load one file, module or live server (its names prefixed with its alias when ``prefix``; its
    ``tools/list`` answer, or error, in ``fetched``) into ``entry``."""
    if kind == "live":
        entry.file = shown_source(source)
        answer = fetched[source]
        if isinstance(answer, CatalogError):
            raise answer
        live = tools_from_live(source, *answer, prefix=prefix)
        entry.tools, entry.resident = list(live.tools), list(live.resident)
    elif kind == "registry":
        from ..registry.store import RegistryError, load_registry_source

        entry.file = shown_registry_source(source)
        try:
            stored = load_registry_source(source)
            entry.tools, entry.resident, entry.groups = list(stored.tools), list(stored.resident), list(stored.groups)
        except RegistryError as exc:  # unreachable, no such namespace: nothing to lint, as with a missing file
            raise UsageError(exc.message, field="catalog") from None
    elif kind == "module" or source.endswith(".py"):
        module = load_python_module(source)
        entry.tools, entry.resident = list(module.tools), list(module.resident)
    else:
        try:
            loaded_file = LOADER_BY_SUFFIX[Path(source).suffix.lower()](Path(source), source)
        except NotACatalog as exc:
            if kind != "walked":
                raise
            warn(skipped_file(exc, source), "skipped")  # a folder's package.json: reported by load-warning
            return
        entry.tools, entry.resident = list(loaded_file.tools), list(loaded_file.resident)
        entry.groups = list(loaded_file.groups)
        if entry.resident:
            entry.resident_line = _top_level_key_line(Path(source), "resident")
