"""Modules whose names moved out of them list only what they define: an importer of a moved name
fails here rather than reaching it through a module that merely re-exports it."""

from __future__ import annotations

import importlib
import inspect

import pytest

#: Modules that used to re-export names moved elsewhere (issue 21): simulate.runner (the settings,
#: the loop's Model and Reply, check_arguments) and search.hub (the cache helpers of hub_cache).
MODULES = ("toolsearch_cli.simulate.runner", "toolsearch_cli.search.hub")


@pytest.mark.parametrize("name", MODULES)
def test_the_module_lists_only_names_it_defines(name):
    module = importlib.import_module(name)
    listed = list(module.__all__)
    assert listed
    foreign = [
        n
        for n in listed
        if (inspect.isclass(getattr(module, n)) or inspect.isfunction(getattr(module, n)))
        and getattr(module, n).__module__ != name
    ]
    assert foreign == []


@pytest.mark.parametrize(
    ("name", "moved"),
    [
        ("toolsearch_cli.simulate.runner", ["Model", "MAX_RESULT_BYTES", "merged_settings", "check_arguments"]),
        ("toolsearch_cli.search.hub", ["not_pulled"]),
    ],
)
def test_moved_names_are_not_reached_through_the_old_module(name, moved):
    module = importlib.import_module(name)
    assert [n for n in moved if hasattr(module, n)] == []
