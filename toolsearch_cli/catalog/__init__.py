"""Loading catalogs from files, folders and Python modules, merged into one :class:`Catalog`."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import environment
from ..bounded import path_problem, safe_is_dir, safe_is_file
from ..errors import CatalogError, NotACatalog, UsageError
from ..model import Catalog, Tool
from .mcp_client import load_live_source
from .python_loader import is_module_reference, load_python_module, tool, tool_from_function
from .result import LoadResult
from .sources import is_live_source, shown_source, split_env_sources

if TYPE_CHECKING:
    from .lenient import LoadWarning


def load_yaml_catalog(path: Path, display: str | None = None, catalog_format: str | None = None) -> LoadResult:
    """Load a YAML or JSON catalog file in any supported format, detected from the content unless
    ``catalog_format`` names it (PyYAML is imported on first use: a cached catalog never needs it)."""
    from .formats import load_file

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

ENV_VAR = environment.CATALOG

__all__ = [
    "ENV_VAR",
    "LOADER_BY_SUFFIX",
    "SKIP_MARKER",
    "LoadResult",
    "LoadedCatalog",
    "bundled_catalog_path",
    "catalog_files",
    "default_sources",
    "load_catalog",
    "load_catalog_result",
    "load_source",
    "refuse_unnamed_code",
    "runs_code",
    "store_in_cache",
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

        from ..printable import shown

        why = f"outside {folder}" if not inside else "a folder that holds the link (a loop)"
        print(f"warning: {shown(shown_path)}: skipped: a symbolic link to {shown(target)}, {why}", file=sys.stderr)
    return False


def runs_code(source: str) -> str | None:
    """What loading ``source`` would run, as words (``"starts the program 'x'"``), or ``None`` for
    data: files and folders of YAML/JSON, ``mcp+http`` servers. Python files and modules are
    imported; ``mcp+stdio`` starts its command."""
    source = source.strip()
    if _is_registry(source):
        return None  # a PostgreSQL registry holds data only
    if is_live_source(source):
        from .sources import parse_live_source

        try:
            live = parse_live_source(source)
        except CatalogError:  # e.g. a stdio command that does not split: still a program
            return "starts a program"
        return f"starts the program {live.command[0]!r}" if live.transport == "stdio" else None
    path = Path(source)
    if path.suffix == ".py":
        return "imports a Python file"
    if is_module_reference(source):  # (a dotted name that is not an existing path)
        return "imports a Python module"
    return None


def refuse_unnamed_code(sources: Iterable[Any], named_by: str, file: str, lines: Sequence[int | None] = ()) -> None:
    """Refuse every source in ``sources`` that would run code (see :func:`runs_code`): a file
    (a script, a recording) is data, and only the command line may name code to run.

    ``named_by`` says what named them (``"the recording"``); ``lines`` are their lines in ``file``.
    """
    import shlex

    for i, source in enumerate(sources):
        if not isinstance(source, str):
            continue
        what = runs_code(source)
        if what is not None:
            raise UsageError(
                f"{named_by} names the catalog {source!r}, which {what}; toolsearch never runs code "
                f"the command line does not name: add --catalog {shlex.quote(source)} to run it",
                file=file,
                line=lines[i] if i < len(lines) else None,
                field="catalog",
            )


def load_source(source: str, catalog_format: str | None = None, *, prefix: bool = False) -> LoadResult:
    """Tools, resident names, tool groups and load warnings from one source: a file, a folder, a
    Python module, a live MCP server (``mcp+stdio:...``, ``mcp+http://...``) or a registry.

    ``catalog_format`` forces the format of files (default: detected from each file's content);
    ``prefix`` puts an MCP server's alias before its tool names. A warning is collected into the
    result, or raised, as the enclosing :func:`lenient.collecting` block says (raised outside one).
    """
    from .lenient import collecting

    with collecting(None) as found:
        loaded = _load_source(source, catalog_format, prefix)
    return replace(loaded, warnings=(*loaded.warnings, *found))


def _load_source(source: str, catalog_format: str | None, prefix: bool) -> LoadResult:
    if is_live_source(source):
        return load_live_source(source, prefix=prefix)
    if _is_registry(source):
        from ..registry.store import load_registry_source

        return load_registry_source(source)
    path = Path(source)
    if safe_is_dir(path):
        return _load_folder(path, source, catalog_format)
    if safe_is_file(path):
        if path.suffix == ".py":
            return load_python_module(source)
        loader = LOADER_BY_SUFFIX.get(path.suffix.lower())
        if loader is None and catalog_format not in (None, "auto"):
            loader = load_yaml_catalog  # --catalog-format says what the file is, whatever its name
        if loader is None:
            raise CatalogError(
                f"unknown catalog format {path.suffix or '(no suffix)'!r}; "
                f"expected a folder, {', '.join(LOADER_BY_SUFFIX)} or .py file, or a module name "
                "(or name the file's format with --catalog-format)",
                file=source,
            )
        return next(_packed_when_large([loader(path, None, catalog_format)]))
    problem = path_problem(path)
    if problem is not None and problem != "no such file":  # a FIFO, a device, a link loop, a name too long
        raise CatalogError(problem, file=source)
    if path.suffix.lower() in (*LOADER_BY_SUFFIX, ".py", ".json"):
        raise CatalogError("no such file", file=source)
    if is_module_reference(source):
        return load_python_module(source)
    raise CatalogError("no such file, folder or importable module", file=source)


def _load_folder(path: Path, source: str, catalog_format: str | None) -> LoadResult:
    """Every catalog file below a folder, merged. A file that parses but is no catalog at all (a
    ``package.json``, see :func:`formats.not_a_catalog`) is skipped with a warning (kind
    ``skipped``; an error when strict); a broken catalog stays an error."""
    from .lenient import warn

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

    merged = LoadResult.merged(_packed_when_large(each()))
    if len(skipped) == len(files):
        first = skipped[0]
        raise CatalogError(
            f"no tool catalog in this folder: {len(files)} file{'s' if len(files) != 1 else ''} and none a "
            f"catalog ({first.file}: {first.reason})",
            file=source,
        )
    return merged


def skipped_file(exc: NotACatalog, file: str) -> CatalogError:
    """The warning for a file of a folder that is no catalog (the folder's load skips it), or the
    error when loading is strict."""
    from .lenient import strict_now

    if strict_now():
        message = f"not a tool catalog: {exc.reason}; --strict refuses it (without it, the folder's load skips it)"
    else:
        message = f"skipped, not a tool catalog: {exc.reason}"
    return CatalogError(message, file=exc.file or file)


#: A source of at least this many tools is held packed (:func:`~toolsearch_cli.model.pack_tools`):
#: each file's tools are packed as soon as the file is read, so its parsed document is freed before
#: the next is read (1,000,000 tools: ~0.8 KB a tool instead of ~2.5 KB). Below it the tools stay
#: plain: 100,000 tools take ~300 MB, and packing and reading them packed would cost ~25 µs a tool.
PACK_FROM = 200_000


def _packed_when_large(results: Iterable[LoadResult]) -> Iterator[LoadResult]:
    """Each file's result, its tools packed once the files read so far hold :data:`PACK_FROM`
    tools (those of the earlier files too, then)."""
    from ..model import pack_tools

    waiting: list[Tool] = []
    total = 0
    for result in results:
        total += len(result.tools)
        waiting.extend(result.tools)
        if total >= PACK_FROM:
            pack_tools(waiting)
            waiting = []
        yield result


def _is_registry(source: str) -> bool:
    """A ``[alias=]postgresql://…?namespace=NAME`` registry source (see :mod:`toolsearch_cli.registry`)."""
    from ..registry.source import is_registry_source

    return is_registry_source(source)


def shown_catalog_source(source: str) -> str:
    """A source as messages show it: credentials of an MCP or registry URL masked."""
    if _is_registry(source):
        from ..registry.source import shown_registry_source

        return shown_registry_source(source)
    return shown_source(source)


def display_path(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


@dataclass(eq=False)
class LoadedCatalog:
    """A whole load (:func:`load_catalog_result`): the merged :class:`Catalog`, the warnings of the
    load in source order, and where the catalog stands in the on-disk cache."""

    catalog: Catalog
    #: What loading left out or changed (:class:`lenient.LoadWarning`\ s), in source order.
    warnings: tuple[LoadWarning, ...] = ()
    #: Key of this catalog in the on-disk cache (``None``: not cached; see :mod:`.cache`).
    cache_key: str | None = None
    #: Index keys the cached copy holds (``None``: not stored yet).
    cache_stored: frozenset[str] | None = None
    #: The catalog's revision when loaded: changed since, it is no longer what the cached files say.
    cache_revision: int = 0


def load_catalog(
    sources: Sequence[str] | str | None = None,
    catalog_format: str | None = None,
    *,
    cache: bool = False,
    strict: bool | None = None,
) -> Catalog:
    """Load and merge catalog sources into one :class:`Catalog` (see :func:`load_catalog_result`,
    which also gives the load's warnings and cache state, for the arguments)."""
    return load_catalog_result(sources, catalog_format, cache=cache, strict=strict).catalog


def load_catalog_result(
    sources: Sequence[str] | str | None = None,
    catalog_format: str | None = None,
    *,
    cache: bool = False,
    strict: bool | None = None,
) -> LoadedCatalog:
    """Load and merge catalog sources (see :func:`default_sources` for what ``None`` means).

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
    if isinstance(sources, str):
        sources = [sources]
    resolved = default_sources(sources)
    key = None
    if cache:
        from .. import cachedir
        from . import cache as catalog_cache

        if cachedir.enabled():
            tagged = {f"{s}\0format={catalog_format}" if catalog_format else s: s for s in resolved}
            key = catalog_cache.key_for(list(tagged), {t: _cacheable_files(s) for t, s in tagged.items()})
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
    catalog = loaded.to_catalog([shown_catalog_source(s) for s in resolved])
    if key is not None:
        from .. import indexes

        indexes.remember_disk_key(catalog, key)  # indexes kept in files of their own are named by it
    result = LoadedCatalog(catalog, (*loaded.warnings, *found), key, cache_revision=catalog.revision)
    store_in_cache(result)
    return _report(result, strict)


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
    if loaded.cache_stored is not None and frozenset(built) <= loaded.cache_stored:
        return
    if catalog_cache.store(loaded.cache_key, loaded.catalog, built, loaded.warnings):
        loaded.cache_stored = frozenset(built)


def _cacheable_files(source: str) -> list[Path]:
    path = Path(source)
    if safe_is_dir(path):
        return catalog_files(path)
    if safe_is_file(path) and path.suffix.lower() in LOADER_BY_SUFFIX:
        return [path]
    return []


def prefixes_live_names(sources: Sequence[str]) -> bool:
    """Whether live MCP servers' tool names get their alias as a prefix (``alias__tool``): when
    several servers are loaded together. ``lint`` asks the same, so it sees the names search does."""
    return sum(is_live_source(s) for s in sources) > 1


def _load_uncached(resolved: list[str], catalog_format: str | None = None) -> LoadResult:
    from .lenient import collecting, warn
    from .mcp_client import fetch_live_sources, tools_from_live

    live = [s for s in resolved if is_live_source(s)]
    several_servers = prefixes_live_names(live)
    fetched = fetch_live_sources(live) if live else {}
    results: list[LoadResult] = []
    failed: list[CatalogError] = []
    for source in resolved:
        if source in fetched:
            answer = fetched[source]
            if isinstance(answer, CatalogError):
                if len(resolved) == 1:
                    raise answer
                failed.append(answer)
                continue
            with collecting(None) as found:
                more = tools_from_live(source, *answer, prefix=several_servers)
            results.append(replace(more, warnings=(*more.warnings, *found)))
        else:
            results.append(load_source(source, catalog_format, prefix=several_servers))
    if failed and len(failed) == len(resolved):
        raise failed[0]  # nothing is left to work with: the first server's error, as with one server
    for problem in failed:  # one server down of several: the others are still worth searching
        warn(problem, "server")
    return LoadResult.merged(results)
