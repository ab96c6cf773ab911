"""The benchmarks are one harness: ``python -m benchmarks COMMAND``, one options module, no
``sys.path`` edits, and the product never imports them (issue 33, item 5)."""

from __future__ import annotations

import ast
import re
import subprocess
import sys

import pytest

from benchmarks import options
from benchmarks.__main__ import COMMANDS, main

from ..conftest import ROOT

# a command module imported by another before it runs as __main__ (in one process, as here) is run again
pytestmark = pytest.mark.filterwarnings("ignore:.*found in sys.modules after import of package:RuntimeWarning")


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_starts_and_shows_its_options(name, capsys):
    assert main([name, "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: ") and "-h, --help" in out


def test_the_shared_options_mean_the_same_in_every_command(capsys):
    """--shared defaults to ../shared beside the checkout wherever a command has it."""
    with_shared = []
    for name in ("quality", "peers", "ablate", "scale", "lint-scale", "lint-real", "same-ranking", "fusion"):
        assert main([name, "--help"]) == 0
        if "--shared SHARED" in capsys.readouterr().out:
            with_shared.append(name)
    assert len(with_shared) == 8
    assert options.SHARED == ROOT.parent / "shared"


def test_the_listing_names_every_command_and_an_unknown_one_is_refused(capsys):
    assert main([]) == 0
    listing = capsys.readouterr().out
    assert all(re.search(rf"^  {re.escape(name)} ", listing, re.MULTILINE) for name in COMMANDS)
    assert main(["no-such-benchmark"]) == 2
    assert "no command 'no-such-benchmark'" in capsys.readouterr().err


def test_out_copies_what_the_command_prints(tmp_path, capsys):
    out = tmp_path / "results" / "quality.txt"
    assert main(["--out", str(out), "quality", "--help"]) == 0
    printed = capsys.readouterr().out
    assert "python -m benchmarks quality" in printed and out.read_text(encoding="utf-8") == printed


def test_a_command_runs_as_python_dash_m_from_the_checkout():
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks", "startup", "--help"], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: python -m benchmarks startup")


def _sources(folder):
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def _package_sources():
    """The modules of the benchmarks package: its folders with an __init__.py (not data folders
    such as ts206_unseen/, whose scripts are the record of how their data was written)."""
    root = ROOT / "benchmarks"

    def in_package(path):
        folder = path.parent
        while (folder / "__init__.py").is_file():
            if folder == root:
                return True
            folder = folder.parent
        return False

    return [p for p in _sources(root) if in_package(p)]


def test_no_benchmark_edits_sys_path():
    edits = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for path in _package_sources()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Attribute) and node.attr == "path"
        and isinstance(node.value, ast.Name) and node.value.id == "sys"
    ]  # fmt: skip
    assert edits == []


def test_the_product_never_imports_the_benchmarks():
    found = []
    for path in _sources(ROOT / "toolsearch_cli"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            found += [f"{path.relative_to(ROOT)}: {n}" for n in names if n.split(".")[0] == "benchmarks"]
    assert found == []


def test_every_benchmark_module_is_a_command_or_a_shared_module():
    modules = {
        ".".join(p.relative_to(ROOT / "benchmarks").with_suffix("").parts)
        for p in _package_sources()
        if not p.name.startswith("__")
    }
    shared = {"common", "options", "peers", "real_catalogs.dataset"}
    assert modules - shared == {module for module, _ in COMMANDS.values()}


def test_startup_times_a_cache_hit_against_unpickling_alone(capsys, monkeypatch):
    """The cache-hit line read the entry as it was before the buffers' table (UnpicklingError)."""
    from benchmarks import startup

    monkeypatch.delenv("TOOLSEARCH_CACHE_DIR", raising=False)
    startup.cache_hit_cost(runs=1)
    assert re.search(r"read \+ HMAC check \+ unpickle [0-9.]+ ms against unpickling alone", capsys.readouterr().out)


@pytest.mark.skipif(not (options.SHARED / "eval" / "bfcl_static").is_dir(), reason="../shared/eval is not here")
def test_quality_limit_is_a_small_run_of_evenly_spaced_queries(capsys):
    assert main(["quality", "--ranker", "default", "--sets", "bfcl_static", "--limit", "3"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^bfcl_static +default +[01]\.\d{3}", out, re.MULTILINE)
    assert re.search(r"\(load [0-9.]+s, \d+ tools, 3 queries\)", out)


def test_spaced_takes_evenly_spaced_items():
    assert options.spaced(list(range(10)), 0) == list(range(10))
    assert options.spaced(list(range(10)), 20) == list(range(10))
    assert options.spaced(list(range(10)), 5) == [0, 2, 4, 6, 8]
    assert options.names(" a, b,,c ") == ["a", "b", "c"]
