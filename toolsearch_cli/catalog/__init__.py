"""Catalogs: loading tool definitions from files, folders, Python modules, live MCP servers and
registries, merged into one :class:`~toolsearch_cli.model.Catalog`.

This module only re-exports. Where things live:

* :mod:`.sources`: the typed sources (one module per kind) and :func:`parse_sources`;
* :mod:`.loading`: :func:`load_catalog`, :func:`load_catalog_result` and the on-disk cache's use;
* :mod:`.each_file`: every file of the sources loaded on its own (what ``lint`` and ``lock`` read);
* :mod:`.formats` and its loaders: what a file holds; :mod:`.python_loader`: ``@tool`` functions.
"""

from __future__ import annotations

from .loading import LoadedCatalog, load_catalog, load_catalog_result, load_source, store_in_cache
from .python_loader import tool, tool_from_function
from .result import LoadResult
from .sources import (
    ENV_VAR,
    LOADER_BY_SUFFIX,
    SKIP_MARKER,
    Source,
    bundled_catalog_path,
    catalog_files,
    default_sources,
    forget_warned_links,
    parse_source,
    parse_sources,
    refuse_unnamed_code,
    runs_code,
)

__all__ = [
    "ENV_VAR",
    "LOADER_BY_SUFFIX",
    "SKIP_MARKER",
    "LoadResult",
    "LoadedCatalog",
    "Source",
    "bundled_catalog_path",
    "catalog_files",
    "default_sources",
    "forget_warned_links",
    "load_catalog",
    "load_catalog_result",
    "load_source",
    "parse_source",
    "parse_sources",
    "refuse_unnamed_code",
    "runs_code",
    "store_in_cache",
    "tool",
    "tool_from_function",
]
