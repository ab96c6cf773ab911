"""Rankers come from RANKER_BY_NAME; installed packages can add more through entry points."""

from __future__ import annotations

import importlib
import importlib.metadata
from importlib.metadata import EntryPoint

import pytest

from toolsearch_cli import Catalog, SearchError, Tool, search
from toolsearch_cli.search import RANKER_BY_NAME, Hit

# the package re-exports the function `search`, so fetch the module itself
search_module = importlib.import_module("toolsearch_cli.search")


class ReverseRanker:
    """A toy ranker: every tool, in reverse name order, score 1."""

    name = "reverse"
    description = "toy"

    def search(self, catalog, request):
        tools = sorted(catalog.searchable(), key=lambda t: t.name, reverse=True)
        return [Hit(tool=t, score=1.0) for t in tools[: request.max_results]]


@pytest.fixture
def plugin(monkeypatch):
    import sys
    import types

    module = types.ModuleType("toy_ranker_plugin")
    module.ReverseRanker = ReverseRanker
    monkeypatch.setitem(sys.modules, "toy_ranker_plugin", module)
    point = EntryPoint("reverse", "toy_ranker_plugin:ReverseRanker", search_module.ENTRY_POINT_GROUP)
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group=None: [point] if group == point.group else [])
    monkeypatch.setattr(search_module, "_plugins_loaded", False)
    yield
    RANKER_BY_NAME.pop("reverse", None)


def test_builtin_rankers():
    assert list(RANKER_BY_NAME) == ["default", "classic", "hybrid", "embedding", "hybrid-rrf"]


def test_entry_point_ranker_is_registered_on_first_use(plugin):
    catalog = Catalog(tools=[Tool(name="a"), Tool(name="b")])
    assert [h.name for h in search(catalog, "anything", ranker="reverse")] == ["b", "a"]
    assert "reverse" in RANKER_BY_NAME


def test_broken_plugin_is_a_one_line_error(monkeypatch):
    point = EntryPoint("broken", "no_such_module_xyz:Ranker", search_module.ENTRY_POINT_GROUP)
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group=None: [point])
    monkeypatch.setattr(search_module, "_plugins_loaded", False)
    with pytest.raises(SearchError, match="ranker plugin 'broken'.*failed to load: ModuleNotFoundError"):
        search(Catalog(tools=[Tool(name="a")]), "x", ranker="broken")
