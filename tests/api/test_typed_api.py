"""The library API is typed for its users: ``py.typed`` ships, the README's names are visible to a
type checker with their real types, and a consumer script passes ``mypy --strict``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import toolsearch_cli

from ..conftest import ROOT

CONSUMER = ROOT / "tests" / "typed" / "consumer.py"


def test_the_package_is_marked_typed():
    assert (Path(toolsearch_cli.__file__).parent / "py.typed").is_file()


def test_the_errors_users_catch_and_the_lazy_names_are_exported():
    from toolsearch_cli.agent import ToolSearch
    from toolsearch_cli.search.embed import EmbedError

    assert toolsearch_cli.ToolSearch is ToolSearch and toolsearch_cli.EmbedError is EmbedError
    assert issubclass(toolsearch_cli.ToolArgumentsError, toolsearch_cli.ToolsearchError)
    assert {"ToolSearch", "validate_arguments", "ToolArgumentsError", "EmbedError", "Handled", "Request"} <= set(
        toolsearch_cli.__all__
    )
    for name in toolsearch_cli.__all__:
        assert getattr(toolsearch_cli, name) is not None


@pytest.fixture(scope="module")
def mypy_cache(tmp_path_factory) -> Path:
    """One mypy cache for this module's runs: the package's modules are analysed once (17 s of CPU
    here), the second run reads their types from the cache (1 s). Both runs use the same options,
    as a cache is only reused by a run with the options it was written with."""
    return tmp_path_factory.mktemp("mypy-cache")


#: the options of every mypy run here: the checked file strictly; the package's own modules imported for types
MYPY_OPTIONS = ["--strict", "--follow-imports=silent", "--ignore-missing-imports"]


def _mypy() -> list[str] | None:
    """mypy run by this interpreter: the venv's ``bin/mypy`` script names the interpreter that
    installed it, which another user (CI's second run) may not be allowed to run."""
    import importlib.util

    return [sys.executable, "-m", "mypy"] if importlib.util.find_spec("mypy") is not None else None


def test_a_consumer_of_the_readme_api_passes_mypy_strict(mypy_cache):
    mypy = _mypy()
    if mypy is None:
        pytest.skip("mypy is not installed")
    command = [*mypy, *MYPY_OPTIONS, "--cache-dir", str(mypy_cache), str(CONSUMER)]
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "MYPYPATH": str(ROOT)}
    out = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=env, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Success" in out.stdout


def test_mypy_would_catch_a_misuse(tmp_path, mypy_cache):
    """The check can fail: a wrong argument type and an unknown api are errors to mypy."""
    mypy = _mypy()
    if mypy is None:
        pytest.skip("mypy is not installed")
    bad = tmp_path / "bad.py"
    bad.write_text(
        "from toolsearch_cli import ToolSearch\n"
        "ts = ToolSearch('catalogs/demo', mode='agnet')\n"
        "n: int = ts.request([]).names\n"
    )
    command = [*mypy, *MYPY_OPTIONS, "--cache-dir", str(mypy_cache), str(bad)]
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "MYPYPATH": str(ROOT)}
    out = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=env, timeout=600)
    assert out.returncode == 1, out.stdout + out.stderr
    assert 'Argument "mode" to "ToolSearch"' in out.stdout and '"list[str]"' in out.stdout
