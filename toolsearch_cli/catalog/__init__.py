"""Loading catalogs from files, folders and Python modules, merged into one :class:`Catalog`."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

from ..errors import CatalogError
from ..model import Catalog, Tool
from .formats import load_file
from .mcp_client import is_live_source, load_live_source, shown_source, split_env_sources
from .python_loader import is_module_reference, load_python_module, tool, tool_from_function

Loaded = tuple[list[Tool], list[str]]

#: File loaders by suffix, called with (path, name to show in messages, format or None to detect
#: it from the content). A folder loads every file whose suffix is a key here, recursively;
#: Python files load only when named directly.
LOADER_BY_SUFFIX: dict[str, Callable[[Path, str | None, str | None], Loaded]] = {
    ".yaml": load_file,
    ".yml": load_file,
    ".json": load_file,
}

ENV_VAR = "TOOLSEARCH_CATALOG"

__all__ = [
    "ENV_VAR",
    "LOADER_BY_SUFFIX",
    "bundled_catalog_path",
    "default_sources",
    "load_catalog",
    "load_source",
    "tool",
    "tool_from_function",
]


def bundled_catalog_path() -> Path:
    """The demo catalog shipped inside the package (or beside it, in a source checkout)."""
    here = Path(__file__).resolve().parent.parent
    inside = here / "_catalogs" / "demo"
    if inside.is_dir():
        return inside
    return here.parent / "catalogs" / "demo"


def default_sources(explicit: Sequence[str] | None = None) -> list[str]:
    """``--catalog`` values, else ``$TOOLSEARCH_CATALOG``, else ``./catalogs``, else the bundled demo."""
    if explicit:
        return list(explicit)
    env = os.environ.get(ENV_VAR, "").strip()
    if env:
        return [part for part in split_env_sources(env, os.pathsep) if part.strip()]
    if Path("catalogs").is_dir():
        return ["catalogs"]
    return [str(bundled_catalog_path())]


def load_source(source: str, catalog_format: str | None = None, *, prefix: bool = False) -> Loaded:
    """Tools and resident names from one source: a file, a folder, a Python module or a live MCP server.

    ``catalog_format`` forces the format of files (default: detected from each file's content);
    ``prefix`` puts an MCP server's alias before its tool names.
    """
    if is_live_source(source):
        return load_live_source(source, prefix=prefix)
    path = Path(source)
    if path.is_dir():
        files = sorted(
            p
            for p in path.rglob("*")
            if p.suffix.lower() in LOADER_BY_SUFFIX
            and p.is_file()
            and not any(part.startswith(".") for part in p.relative_to(path).parts)
        )
        if not files:
            raise CatalogError(f"no catalog files ({', '.join(LOADER_BY_SUFFIX)}) in this folder", file=source)
        tools: list[Tool] = []
        resident: list[str] = []
        for file in files:
            more, more_resident = LOADER_BY_SUFFIX[file.suffix.lower()](file, _display(file), catalog_format)
            tools.extend(more)
            resident.extend(more_resident)
        return tools, resident
    if path.is_file():
        if path.suffix == ".py":
            return load_python_module(source)
        loader = LOADER_BY_SUFFIX.get(path.suffix.lower())
        if loader is None:
            raise CatalogError(
                f"unknown catalog format {path.suffix or '(no suffix)'!r}; "
                f"expected a folder, {', '.join(LOADER_BY_SUFFIX)} or .py file, or a module name",
                file=source,
            )
        return loader(path, None, catalog_format)
    if path.suffix.lower() in (*LOADER_BY_SUFFIX, ".py", ".json"):
        raise CatalogError("no such file", file=source)
    if is_module_reference(source):
        return load_python_module(source)
    raise CatalogError("no such file, folder or importable module", file=source)


def _display(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def load_catalog(sources: Sequence[str] | str | None = None, catalog_format: str | None = None) -> Catalog:
    """Load and merge catalog sources (see :func:`default_sources` for what ``None`` means).

    ``catalog_format`` forces the format of every file (see :data:`formats.FORMATS`).
    """
    if isinstance(sources, str):
        sources = [sources]
    resolved = default_sources(sources)
    several_servers = sum(is_live_source(s) for s in resolved) > 1
    tools: list[Tool] = []
    resident: list[str] = []
    for source in resolved:
        more, more_resident = load_source(source, catalog_format, prefix=several_servers)
        tools.extend(more)
        resident.extend(n for n in more_resident if n not in resident)
    return Catalog(tools=tools, resident=resident, sources=[shown_source(s) for s in resolved])
