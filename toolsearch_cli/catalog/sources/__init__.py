"""Catalog sources, typed and parsed once (issue 33).

Each kind of source is a module of its own, with a class that satisfies :class:`Source`:

* :mod:`.files`: a catalog file (:class:`FileSource`) and the loaders by suffix;
* :mod:`.folder`: a folder of them (:class:`FolderSource`) and the walk that finds them;
* :mod:`.module`: a ``.py`` file or an importable module (:class:`ModuleSource`);
* :mod:`.live`: a live MCP server, ``mcp+stdio:`` or ``mcp+http(s)://`` (:class:`LiveServer`; its
  syntax, :class:`LiveSource`, in :mod:`.live_syntax`, which the MCP client builds on);
* a registry namespace, ``postgresql://…`` — registered by :mod:`toolsearch_cli.registry.source`,
  which builds on this package (not the other way round).

:mod:`.base` holds the protocol, the table of kinds recognised by their text and
:func:`parse_sources`, the one place a string becomes a source; :mod:`.unnamed_code` the rule that
only the command line names code to run. This module only re-exports.
"""

from __future__ import annotations

from .base import (
    ENV_VAR,
    Source,
    SourceKind,
    bundled_catalog_path,
    default_sources,
    parse_source,
    parse_sources,
    register_kind,
    source_kinds,
    split_env_sources,
)
from .files import LOADER_BY_SUFFIX, FileSource, display_path, load_yaml_catalog, skipped_file
from .folder import SKIP_MARKER, FolderSource, catalog_files, forget_warned_links
from .live import LiveServer
from .live_syntax import LiveSource, is_live_source, parse_live_source, shown_source
from .module import ModuleSource
from .unnamed_code import refuse_unnamed_code, runs_code

__all__ = [
    "ENV_VAR",
    "LOADER_BY_SUFFIX",
    "SKIP_MARKER",
    "FileSource",
    "FolderSource",
    "LiveServer",
    "LiveSource",
    "ModuleSource",
    "Source",
    "SourceKind",
    "bundled_catalog_path",
    "catalog_files",
    "default_sources",
    "display_path",
    "forget_warned_links",
    "is_live_source",
    "load_yaml_catalog",
    "parse_live_source",
    "parse_source",
    "parse_sources",
    "refuse_unnamed_code",
    "register_kind",
    "runs_code",
    "shown_source",
    "skipped_file",
    "source_kinds",
    "split_env_sources",
]
