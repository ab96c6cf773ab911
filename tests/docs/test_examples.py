"""Every code and console example of the README and of the documentation's pages runs, and what it
shows is what the command prints today (issue 36): see tests/docs/examples.py for how a page's
blocks are run and the directives a block may carry."""

from __future__ import annotations

import ast
import hashlib

import pytest

from . import examples
from .examples import ROOT, Workspace


def test_the_pages_have_examples_to_run():
    runnable = [b for b in examples.all_blocks() if b.kind in examples.RUN_KINDS]
    assert len(runnable) > 40
    assert {b.page.name for b in runnable} >= {"README.md", "tune-openapi.md", "agent-loop.md", "gateway.md"}


def test_every_example_runs_or_says_which_test_runs_it_or_why_not():
    unexplained = []
    for block in examples.all_blocks():
        d = block.directives
        if "skip" in d and not d["skip"]:
            unexplained.append(f"{block.where}: skip without a reason")
        if "tested-by" in d:
            path, _, name = d["tested-by"].partition("::")
            source = ROOT / path
            defined = source.is_file() and any(
                isinstance(node, ast.FunctionDef) and node.name == name
                for node in ast.walk(ast.parse(source.read_text(encoding="utf-8")))
            )
            if not defined:
                unexplained.append(f"{block.where}: tested-by {d['tested-by']}, which does not exist")
        unknown = set(d) - {
            "skip",
            "tested-by",
            "file",
            "edit",
            "columns",
            "exit",
            "drop-column",
            "registry",
            "output",
            "check",
        }
        if unknown:
            unexplained.append(f"{block.where}: unknown directive {sorted(unknown)}")
    assert not unexplained


def test_the_client_registrations_are_json_that_start_the_gateway():
    """The gateway tutorial's registration snippets (JSON, not run): valid JSON, each stdio entry
    running ``toolsearch serve``."""
    import json

    page = ROOT / "docs" / "tutorials" / "gateway.md"
    found = [json.loads(b.body) for b in examples.blocks(page) if b.kind == "json"]
    assert len(found) >= 3
    for document in found:
        servers = document.get("mcpServers") or document.get("servers")
        assert servers, document
        for entry in servers.values():
            assert ("url" in entry) or (entry["command"] == "toolsearch" and entry["args"][0] == "serve"), entry


def test_every_data_example_parses():
    """The YAML, JSON and TOML blocks (catalogs, scripts, configurations, client registrations)
    parse; a block with elisions (``…``) says why it is not checked."""
    import json
    import tomllib

    import yaml

    loaders = {"yaml": yaml.safe_load, "json": json.loads, "toml": tomllib.loads}
    broken = []
    for block in examples.all_blocks():
        if block.kind in loaders and "skip" not in block.directives:
            try:
                loaders[block.kind](block.body)
            except Exception as exc:  # noqa: BLE001 - any parse error is the finding
                broken.append(f"{block.where}: {' '.join(str(exc).split())[:200]}")
    assert not broken


def _pages_with_examples():
    return [
        page
        for page in examples.PAGES
        if any(
            (b.kind in examples.RUN_KINDS and not {"skip", "tested-by"} & set(b.directives)) or "check" in b.directives
            for b in examples.blocks(page)
        )
    ]


@pytest.mark.parametrize("page", _pages_with_examples(), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_examples_of_the_page_print_what_it_shows(page, tmp_path, request):
    registry_url = None
    if any("registry" in b.directives for b in examples.blocks(page)):
        cluster = request.getfixturevalue("pg_cluster")
        # one database per page, named by its path (two pages may share a file name)
        registry_url = cluster.create_database(
            "docs_" + hashlib.sha256(str(page.relative_to(ROOT)).encode()).hexdigest()[:12]
        )
    workspace = Workspace(tmp_path, registry_url)
    ran, problems = examples.run_page(page, workspace)
    assert not problems, "\n\n".join(problems)
    assert ran >= 1 or not examples.SHARED.is_dir()


def test_a_wrong_example_is_caught(tmp_path):
    """The comparison can fail: a page showing output the command does not print, or a wrong exit code."""
    page = tmp_path / "page.md"
    page.write_text(
        "```console\n$ toolsearch search weather\n 1 │ getWeather │ weather │ 99.99 │ desc │ Made up\n```\n\n"
        "<!-- test: exit=1 -->\n```console\n$ toolsearch search weather\n```\n",
        encoding="utf-8",
    )
    workspace = Workspace(tmp_path)
    first, second = examples.blocks(page)
    assert "does not print today" in examples.run_block(first, workspace)
    assert "exited 0, not 1" in examples.run_block(second, workspace)
    right = examples.Block(page, 1, "console", "$ toolsearch search weather\n 1 │ getWeather │ weather │ …\n")
    assert examples.run_block(right, workspace) is None
