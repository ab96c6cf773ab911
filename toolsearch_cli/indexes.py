"""Indexes built from catalogs, kept beside each catalog rather than in it.

A ranker builds its index of a catalog once (``cached_index(catalog, "default", build)``) and
finds it again on the next search; when the catalog changes at run time (:meth:`Catalog.add_tool`,
:meth:`Catalog.remove_tools`) an index that can grow and shrink (``add(tool)`` / ``remove(name)``)
is updated in place and any other is dropped, to be rebuilt on its next use. The indexes of a
catalog go when the catalog does (they are held by its identity, never keep it alive).

The on-disk catalog cache (:mod:`toolsearch_cli.catalog.cache`) stores a catalog with the indexes
built so far (:func:`built`) and hands them back on load (:func:`adopt`); an index built with
``own_file=True`` (the dense rankers' tool vectors) is left out of it: its ranker keeps it in a
file of its own beside the catalog's entry, found by the entry's key (:func:`disk_key`), so a
search that does not use it never reads it (nor imports its code).
"""

from __future__ import annotations

import operator
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .model import Catalog, Tool


class _Indexes:
    """The indexes of one catalog, by key (``"default"``, ``"names"``, ``"classic"``, ...)."""

    __slots__ = ("by_key", "disk", "own_file", "ref")

    def __init__(self, catalog: Catalog) -> None:
        self.ref = weakref.ref(catalog)
        self.by_key: dict[str, Any] = {}
        #: keys of the indexes the catalog cache leaves out (kept in files of their own)
        self.own_file: set[str] = set()
        #: the catalog's key in the on-disk cache and its revision then (see :func:`disk_key`)
        self.disk: tuple[str, int] | None = None


_BY_CATALOG: dict[int, _Indexes] = {}
#: Keys of the indexes that depend on ``catalog.searchable()`` alone (``of_searchable``).
_OF_SEARCHABLE: set[str] = set()
#: How many times each index key was built in this process (:func:`cached_index` calling its
#: ``build``): what tests and benchmarks read to see that a cached catalog rebuilt nothing.
BUILDS: dict[str, int] = {}


def _entry(catalog: Catalog, create: bool) -> _Indexes | None:
    entry = _BY_CATALOG.get(id(catalog))
    if entry is not None and entry.ref() is catalog:
        return entry
    if not create:
        return None
    entry = _BY_CATALOG[id(catalog)] = _Indexes(catalog)
    weakref.finalize(catalog, _forget, id(catalog), entry)
    catalog.on_change(_catalog_changed)  # the indexes follow this catalog's run-time changes
    return entry


def _forget(key: int, entry: _Indexes) -> None:
    if _BY_CATALOG.get(key) is entry:
        del _BY_CATALOG[key]


def cached_index(
    catalog: Catalog, key: str, build: Callable[[], Any], *, own_file: bool = False, of_searchable: bool = False
) -> Any:
    """The index ``key`` of ``catalog``, built by ``build()`` on first use and kept until the
    catalog changes in a way the index cannot follow. ``own_file``: the catalog cache does not
    store this index with the catalog (its ranker keeps it on disk itself, see :func:`disk_key`).

    ``of_searchable``: the index depends on ``catalog.searchable()`` alone (the tools, in order),
    so when another live catalog holding the very same tool objects has it built, it is taken over
    from that catalog instead of built again (see :func:`_take_from_twin`)."""
    entry = _entry(catalog, create=True)
    assert entry is not None
    if own_file:
        entry.own_file.add(key)
    index = entry.by_key.get(key)
    if index is None:
        if of_searchable and not own_file:
            _OF_SEARCHABLE.add(key)
        index = _take_from_twin(catalog, entry, key) if of_searchable and not own_file else None
        if index is None:
            index = build()
            BUILDS[key] = BUILDS.get(key, 0) + 1
        entry.by_key[key] = index
    return index


def _take_from_twin(catalog: Catalog, entry: _Indexes, key: str) -> Any:
    """The index ``key`` of another live catalog whose searchable tools are this one's (the same
    objects, in the same order), moved here; ``None`` when there is none.

    A catalog read from the cache comes with its indexes; what searches it is often another
    catalog made of its tools (a tool search's catalog manager ranks over ``Catalog(tools=...)``
    of its registered tools), which built the index of 100,000 tools again (5 s). The index is
    moved, not shared: an index follows the run-time changes of its catalog in place, and two
    catalogs changed one after the other would apply each change to it twice."""
    donors = [
        other
        for other in list(_BY_CATALOG.values())
        if other is not entry and key in other.by_key and key not in other.own_file
    ]
    if not donors:
        return None
    mine = catalog.searchable()
    for donor in donors:
        other_catalog = donor.ref()
        if other_catalog is None:
            continue
        if _same_tools(other_catalog.searchable(), mine):
            return donor.by_key.pop(key)
    return None


def _same_tools(a: Sequence[Tool], b: Sequence[Tool]) -> bool:
    return len(a) == len(b) and all(map(operator.is_, a, b))


def index_keys(catalog: Catalog) -> list[str]:
    """Keys of the indexes built for ``catalog`` so far."""
    entry = _entry(catalog, create=False)
    return list(entry.by_key) if entry is not None else []


def built(catalog: Catalog) -> dict[str, Any]:
    """The indexes built for ``catalog`` so far that the catalog cache stores with it, by key (a
    copy of the mapping, not of the indexes): those built with ``own_file`` are left out; those of
    its searchable tools (``of_searchable``) that another live catalog of the very same tools holds
    (took over, or built: a tool search's manager ranks over a catalog of its own) are in."""
    entry = _entry(catalog, create=False)
    out = {} if entry is None else {key: index for key, index in entry.by_key.items() if key not in entry.own_file}
    missing = _OF_SEARCHABLE - out.keys()
    if not missing:
        return out
    mine: list[Tool] | None = None
    for other in list(_BY_CATALOG.values()):
        found = missing & other.by_key.keys()
        twin = other.ref() if found and other is not entry else None
        if twin is None:
            continue
        mine = catalog.searchable() if mine is None else mine
        if _same_tools(twin.searchable(), mine):  # built for these very tools (taken over, or on its own)
            for key in found:
                out[key] = other.by_key[key]
            missing -= found
            if not missing:
                break
    return out


def remember_disk_key(catalog: Catalog, key: str) -> None:
    """``catalog`` (as it is now) is the content of the on-disk cache's entry ``key``."""
    entry = _entry(catalog, create=True)
    assert entry is not None
    entry.disk = (key, catalog.revision)


def disk_key(catalog: Catalog) -> str | None:
    """The on-disk cache key of ``catalog`` while it still holds what it was loaded with (``None``
    when it was not loaded through the cache or has changed at run time since): an index kept in a
    file of its own is named by it, so it is found again, and goes stale, as the catalog's entry
    does (the key covers the catalog files' bytes and this build of toolsearch)."""
    entry = _entry(catalog, create=False)
    if entry is None or entry.disk is None:
        return None
    key, revision = entry.disk
    return key if catalog.revision == revision else None


def adopt(catalog: Catalog, indexes: Mapping[str, Any]) -> None:
    """Take ``indexes`` (read back with ``catalog`` from a cache) as built for ``catalog``."""
    if indexes:
        entry = _entry(catalog, create=True)
        assert entry is not None
        entry.by_key.update(indexes)


def forget(catalog: Catalog) -> None:
    """Drop every index of ``catalog`` (the next search builds them again)."""
    entry = _entry(catalog, create=False)
    if entry is not None:
        entry.by_key.clear()


def _catalog_changed(catalog: Catalog, added: Sequence[Tool], removed: Sequence[Tool]) -> None:
    entry = _entry(catalog, create=False)
    if entry is None:
        return
    for key, index in list(entry.by_key.items()):
        if not (added or removed):
            continue
        if hasattr(index, "add") and hasattr(index, "remove"):
            for tool in removed:
                index.remove(tool.name)
            for tool in added:
                index.add(tool)
        else:
            del entry.by_key[key]  # an index that cannot change in place is rebuilt on next use


__all__ = ["BUILDS", "adopt", "built", "cached_index", "disk_key", "forget", "index_keys", "remember_disk_key"]
