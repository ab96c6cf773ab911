"""Loading catalog sources into one :class:`~toolsearch_cli.model.Catalog`: the merge, the load's
warnings, the on-disk cache, live servers asked concurrently.

Every function takes parsed sources (:class:`~.sources.Source`); a string or path given instead
is parsed at the entry (:func:`~.sources.parse_sources`), once.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..errors import CatalogError
from ..model import Catalog
from .result import LoadResult
from .sources import LiveSource, Source, parse_source, parse_sources

if TYPE_CHECKING:
    from .lenient import LoadWarning

#: What the loaders accept: sources, or what a user typed (parsed at the entry).
SourcesLike = Sequence[str | os.PathLike[str] | Source] | str | os.PathLike[str] | Source | None


def load_source(
    source: str | os.PathLike[str] | Source, catalog_format: str | None = None, *, prefix: bool = False
) -> LoadResult:
    """Tools, resident names, tool groups and load warnings from one source: a file, a folder, a
    Python module, a live MCP server (``mcp+stdio:...``, ``mcp+http://...``) or a registry.

    ``catalog_format`` forces the format of files (default: detected from each file's content);
    ``prefix`` puts an MCP server's alias before its tool names. A warning is collected into the
    result, or raised, as the enclosing :func:`lenient.collecting` block says (raised outside one).
    """
    from .lenient import collecting

    parsed = parse_source(source)
    with collecting(None) as found:
        loaded = parsed.load(catalog_format, prefix=prefix)
    return replace(loaded, warnings=(*loaded.warnings, *found))


@dataclass(eq=False)
class LoadedCatalog:
    """A whole load (:func:`load_catalog_result`): the merged :class:`Catalog`, the warnings of the
    load in source order, and where the catalog stands in the on-disk cache."""

    catalog: Catalog
    #: What loading left out or changed (:class:`lenient.LoadWarning`\\ s), in source order.
    warnings: tuple[LoadWarning, ...] = ()
    #: Key of this catalog in the on-disk cache (``None``: not cached; see :mod:`.cache`).
    cache_key: str | None = None
    #: Index keys the cached copy holds (``None``: not stored yet).
    cache_stored: frozenset[str] | None = None
    #: The catalog's revision when loaded: changed since, it is no longer what the cached files say.
    cache_revision: int = 0


def load_catalog(
    sources: SourcesLike = None,
    catalog_format: str | None = None,
    *,
    cache: bool = False,
    strict: bool | None = None,
) -> Catalog:
    """Load and merge catalog sources into one :class:`Catalog` (see :func:`load_catalog_result`,
    which also gives the load's warnings and cache state, for the arguments)."""
    return load_catalog_result(sources, catalog_format, cache=cache, strict=strict).catalog


def load_catalog_result(
    sources: SourcesLike = None,
    catalog_format: str | None = None,
    *,
    cache: bool = False,
    strict: bool | None = None,
) -> LoadedCatalog:
    """Load and merge catalog sources (see :func:`~.sources.default_sources` for what ``None``
    means; strings and paths are parsed with :func:`~.sources.parse_sources`).

    ``catalog_format`` forces the format of every file (see :data:`formats.FORMATS`); live MCP
    servers are never cached here (see :mod:`.live_cache` for their own cache).

    Problems that leave the rest of the catalog usable (a non-standard parameter type, a tool
    that is not a function, one failing server of several) are kept in the result's ``warnings``
    and shown by :func:`lenient.settings`'s ``report``; ``strict`` (default: the settings') makes
    them errors. See :mod:`toolsearch_cli.catalog.lenient`.

    With ``cache=True`` (what the CLI uses) file catalogs are read from and written to the
    on-disk cache of :mod:`toolsearch_cli.catalog.cache`, keyed by the files' content; a cached
    catalog comes with the indexes built before it was stored (see :func:`store_in_cache`).
    """
    from ..bounded import gc_paused
    from .lenient import collecting, settings

    if strict is None:
        strict = settings().strict
    resolved = parse_sources(sources)
    key = None
    if cache:
        from .. import cachedir
        from . import cache as catalog_cache

        if cachedir.enabled():
            tagged = {f"{s.text}\0format={catalog_format}" if catalog_format else s.text: s for s in resolved}
            tokens = _cache_tokens(tagged)
            files = {t: s.cache_files() for t, s in tagged.items()}
            key = catalog_cache.key_for(list(tagged), files, tokens)
            if key is not None:
                cached = catalog_cache.load(key)
                if cached is not None:
                    from .. import indexes

                    indexes.adopt(cached.catalog, cached.indexes)
                    indexes.remember_disk_key(cached.catalog, key)
                    stored = frozenset(cached.indexes)
                    hit = LoadedCatalog(cached.catalog, cached.warnings, key, stored, cached.catalog.revision)
                    return _report(hit, strict)
    with collecting(strict) as found, gc_paused():  # parsing builds millions of objects, no cycles
        loaded = _load_uncached(resolved, catalog_format)
    if key is not None and tokens:
        # what was read is keyed by what it was (a push between the token's query and the read
        # moved the namespace on: the content read is stored under its own token, never the older one)
        read = {text: tagged[text].loaded_token() for text in tokens}  # type: ignore[attr-defined]
        if read != tokens:
            known = {text: token for text, token in read.items() if token is not None}
            key = None if len(known) < len(read) else catalog_cache.key_for(list(tagged), files, known)
    catalog = loaded.to_catalog([s.shown for s in resolved])
    if key is not None:
        from .. import indexes

        indexes.remember_disk_key(catalog, key)  # indexes kept in files of their own are named by it
    result = LoadedCatalog(catalog, (*loaded.warnings, *found), key, cache_revision=catalog.revision)
    store_in_cache(result)
    return _report(result, strict)


def _cache_tokens(tagged: dict[str, Source]) -> dict[str, str]:
    """The content tokens of the sources that are no files but name their content exactly (a
    registry namespace's digest: one small query), by tagged source text; see
    :func:`~.cache.key_for`. A source that offers one has ``cache_token()`` (``None``: not now)
    and ``loaded_token()`` (the token of what its last load read)."""
    tokens: dict[str, str] = {}
    for text, source in tagged.items():
        ask = getattr(source, "cache_token", None)
        if ask is not None and not source.cache_files():
            token = ask()
            if token is not None:
                tokens[text] = token
    return tokens


def _report(loaded: LoadedCatalog, strict: bool) -> LoadedCatalog:
    """Raise the first warning when strict (a cached catalog keeps the warnings it was loaded with),
    else show them through the settings' ``report``."""
    from .lenient import settings

    if loaded.warnings and strict:
        raise loaded.warnings[0].to_error()
    report = settings().report
    if loaded.warnings and report is not None:
        report(list(loaded.warnings))
    return loaded


def store_in_cache(loaded: LoadedCatalog) -> None:
    """Write a catalog loaded with ``cache=True`` back to the cache if it gained an index since
    (not once it has changed at run time: the cached files no longer say what it holds)."""
    if loaded.cache_key is None or loaded.catalog.revision != loaded.cache_revision:
        return
    from .. import indexes
    from . import cache as catalog_cache

    built = indexes.built(loaded.catalog)
    if loaded.cache_stored is not None and not loaded.cache_stored < frozenset(built):
        # nothing new, or an index the entry holds has moved to another catalog of the same tools
        # since (see indexes.cached_index): written now, the entry would lose it
        return
    if catalog_cache.store(loaded.cache_key, loaded.catalog, built, loaded.warnings):
        loaded.cache_stored = frozenset(built)


def prefixes_live_names(sources: Sequence[Source]) -> bool:
    """Whether live MCP servers' tool names get their alias as a prefix (``alias__tool``): when
    several servers are loaded together. ``lint`` asks the same, so it sees the names search does."""
    return sum(isinstance(s, LiveSource) for s in sources) > 1


def _load_uncached(resolved: list[Source], catalog_format: str | None = None) -> LoadResult:
    from .lenient import collecting, warn
    from .mcp_client import fetch_live_sources, tools_from_live

    live = [s.text for s in resolved if isinstance(s, LiveSource)]
    several_servers = prefixes_live_names(resolved)
    fetched = fetch_live_sources(live) if live else {}
    results: list[LoadResult] = []
    failed: list[CatalogError] = []
    for source in resolved:
        if isinstance(source, LiveSource):
            answer = fetched[source.text]
            if isinstance(answer, CatalogError):
                if len(resolved) == 1:
                    raise answer
                failed.append(answer)
                continue
            with collecting(None) as found:
                more = tools_from_live(source.text, *answer, prefix=several_servers)
            results.append(replace(more, warnings=(*more.warnings, *found)))
        else:
            results.append(load_source(source, catalog_format, prefix=several_servers))
    if failed and len(failed) == len(resolved):
        raise failed[0]  # nothing is left to work with: the first server's error, as with one server
    for problem in failed:  # one server down of several: the others are still worth searching
        warn(problem, "server")
    return LoadResult.merged(results)


__all__ = [
    "LoadedCatalog",
    "SourcesLike",
    "load_catalog",
    "load_catalog_result",
    "load_source",
    "prefixes_live_names",
    "store_in_cache",
]
