"""Modules whose names moved out of them list only what they define: an importer of a moved name
fails here rather than reaching it through a module that merely re-exports it."""

from __future__ import annotations

import ast
import importlib
import inspect

import pytest

#: Modules that used to re-export names moved elsewhere (issue 21): simulate.runner (the settings,
#: the loop's Model and Reply, check_arguments) and search.hub (the cache helpers of hub_cache);
#: then agent, catalog.cache (cachedir), catalog.formats (document), catalog.mcp_client (sources),
#: disclosure.history (providers), search.index (scoring), search.names (name_lookup) and
#: simulate.live (settings).
MODULES = (
    "toolsearch_cli.simulate.runner",
    "toolsearch_cli.search.hub",
    "toolsearch_cli.agent",
    "toolsearch_cli.catalog.cache",
    "toolsearch_cli.catalog.formats",
    "toolsearch_cli.catalog.mcp_client",
    "toolsearch_cli.disclosure.history",
    "toolsearch_cli.search.index",
    "toolsearch_cli.search.names",
    "toolsearch_cli.simulate.live",
)


def imported_names(module) -> set[str]:
    """The names the module's top level (its ``if`` blocks included) binds by importing them."""
    names: set[str] = set()
    for node in ast.parse(inspect.getsource(module)).body:
        for inner in node.body if isinstance(node, ast.If) else [node]:
            if isinstance(inner, ast.ImportFrom | ast.Import):
                names.update((alias.asname or alias.name).split(".")[0] for alias in inner.names)
    return names


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
    assert sorted(set(listed) & imported_names(module)) == []  # constants too: imported is not defined


@pytest.mark.parametrize(
    ("name", "moved"),
    [
        ("toolsearch_cli.simulate.runner", ["Model", "MAX_RESULT_BYTES", "merged_settings", "check_arguments"]),
        ("toolsearch_cli.search.hub", ["not_pulled"]),
        ("toolsearch_cli.catalog.cache", ["CACHE_DIR_VAR", "NO_CACHE_VAR", "cache_dir", "enabled"]),
        ("toolsearch_cli.catalog.formats", ["EXTENSION_FIELDS", "parse_document", "parse_json_lines"]),
        ("toolsearch_cli.catalog.mcp_client", ["split_env_sources"]),
        ("toolsearch_cli.disclosure.history", ["message_text"]),
        (
            "toolsearch_cli.search.names",
            ["MIN_PREFIX", "NAME_BONUS", "NameLookup", "name_key", "named_tool", "put_named_first"],
        ),
    ],
)
def test_moved_names_are_not_reached_through_the_old_module(name, moved):
    module = importlib.import_module(name)
    assert [n for n in moved if hasattr(module, n)] == []
