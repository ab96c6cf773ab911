"""A Catalog holds tools and nothing of the other layers: indexes live in ``toolsearch_cli.indexes``
(held by the catalog's identity), cache bookkeeping and warnings in the load's result; loaders all
return one ``LoadResult``."""

from __future__ import annotations

import dataclasses
import gc
import weakref

import pytest

from toolsearch_cli import cachedir, indexes
from toolsearch_cli.catalog import LoadResult, load_catalog_result, load_source, store_in_cache
from toolsearch_cli.catalog import cache as catalog_cache
from toolsearch_cli.catalog.lenient import collecting
from toolsearch_cli.errors import CatalogError
from toolsearch_cli.model import Catalog, Tool
from toolsearch_cli.search import search

ODD_TYPE = "tools:\n  - name: a\n    description: weather of a city\n    parameters:\n      x: {type: float}\n"


def tools(*names: str) -> list[Tool]:
    return [Tool(name=n, description=f"{n} weather tool") for n in names]


def test_tools_is_a_tuple_that_cannot_be_appended_to_behind_get():
    catalog = Catalog(tools=tools("a", "b"), resident=["a"])
    assert catalog.tools == (catalog.get("a"), catalog.get("b")) and isinstance(catalog.tools, tuple)
    with pytest.raises(AttributeError):
        catalog.tools.append(Tool(name="c"))  # type: ignore[attr-defined]
    catalog.add_tools(tools("c", "d"))
    assert catalog.names == ["a", "b", "c", "d"] and catalog.get("d") is catalog.tools[-1]
    with pytest.raises(CatalogError, match="duplicate tool name"):
        catalog.add_tools(tools("e", "e"))
    assert "e" not in catalog and len(catalog) == 4  # a refused batch adds nothing
    catalog.remove_tools(["a", "c"])
    assert catalog.names == ["b", "d"] and catalog.resident == [] and catalog.get("a") is None


def test_a_catalog_carries_no_indexes_cache_keys_or_warnings():
    fields = {f.name for f in dataclasses.fields(Catalog)}
    assert fields == {"_tools", "resident", "sources", "groups", "revision", "_by_name", "_view", "_listeners"}
    for gone in ("cached_index", "index_keys", "cache_key", "cache_stored", "warnings", "_indexes"):
        assert not hasattr(Catalog(), gone)


def test_indexes_follow_changes_in_place_and_go_with_their_catalog():
    catalog = Catalog(tools=tools("getWeather", "sendEmail"))
    assert [h.name for h in search(catalog, "sendEmail")][0] == "sendEmail"
    built = indexes.cached_index(catalog, "default", lambda: None)
    assert built is not None and "default" in indexes.index_keys(catalog)
    catalog.add_tool(Tool(name="bookFlight", description="book a flight"))
    catalog.remove_tool("sendEmail")
    assert indexes.cached_index(catalog, "default", lambda: None) is built  # updated, not rebuilt
    assert [h.name for h in search(catalog, "flight")] == ["bookFlight"]
    assert catalog.revision == 2
    other = Catalog(tools=tools("getWeather"))
    assert indexes.index_keys(other) == []  # an equal-looking catalog has its own indexes
    entry, alive = indexes._BY_CATALOG[id(catalog)], weakref.ref(catalog)
    del catalog
    gc.collect()
    assert alive() is None  # the indexes never keep their catalog alive ...
    assert all(kept is not entry for kept in indexes._BY_CATALOG.values())  # ... and go with it


def test_an_index_that_cannot_change_in_place_is_dropped_on_a_change():
    catalog = Catalog(tools=tools("a"))
    indexes.cached_index(catalog, "frozen", lambda: ["a"])  # no add/remove
    catalog.add_tool(Tool(name="b"))
    assert "frozen" not in indexes.index_keys(catalog)


def test_load_result_is_frozen_and_made_of_tuples():
    result = LoadResult(tools=tools("a"), resident=["a"])
    assert result.tools == tuple(tools("a")) and result.resident == ("a",) and result.groups == ()
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.tools = ()  # type: ignore[misc]
    merged = LoadResult.merged([result, LoadResult(tools=tools("b"), resident=["a", "b"])])
    assert [t.name for t in merged.tools] == ["a", "b"] and merged.resident == ("a", "b")


def test_load_source_returns_its_warnings_or_raises_outside_a_lenient_block(write):
    path = str(write("odd.yaml", ODD_TYPE))
    with pytest.raises(CatalogError, match="non-standard type 'float'"):
        load_source(path)  # no enclosing block: a warning is an error, as before
    with collecting() as outer:
        loaded = load_source(path)
    assert isinstance(loaded, LoadResult) and [t.name for t in loaded.tools] == ["a"]
    assert [w.kind for w in loaded.warnings] == ["type"] and outer == []  # in the result, not beside it
    with collecting(strict=True), pytest.raises(CatalogError):
        load_source(path)  # as strict as the enclosing block


def test_the_load_result_carries_warnings_and_cache_state_and_a_changed_catalog_is_not_stored(
    write, monkeypatch, tmp_path
):
    monkeypatch.setenv(cachedir.CACHE_DIR_VAR, str(tmp_path / "c"))
    path = str(write("odd.yaml", ODD_TYPE))
    first = load_catalog_result(path, cache=True)
    assert [w.kind for w in first.warnings] == ["type"] and first.cache_key is not None
    hit = load_catalog_result(path, cache=True)
    assert hit.catalog is not first.catalog and [w.kind for w in hit.warnings] == ["type"]  # kept with the entry
    search(hit.catalog, "weather")
    hit.catalog.add_tool(Tool(name="late", description="added at run time"))
    store_in_cache(hit)  # the catalog is no longer what the files say: not written back
    again = catalog_cache.load(hit.cache_key)
    assert again is not None and again.catalog.names == ["a"] and again.indexes == {}
    fresh = load_catalog_result(path, cache=True)
    search(fresh.catalog, "weather")
    store_in_cache(fresh)
    stored = catalog_cache.load(fresh.cache_key)
    assert stored is not None and "default" in stored.indexes
