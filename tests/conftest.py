"""Shared fixtures: a clean environment for every test; run the CLI in-process and capture exit
code, stdout and stderr together.

The environment every test starts from (:func:`_clean_environment`, autouse), whatever the
caller's shell holds — ``NO_COLOR=1 FORCE_COLOR=1 TERM=dumb COLUMNS=40 GITHUB_ACTIONS=true CI=true
pytest`` passes like plain ``pytest`` (``.ci/run`` runs both):

- **removed**: colour (``NO_COLOR``, ``FORCE_COLOR``, ``CLICOLOR``, ``CLICOLOR_FORCE``,
  ``PY_COLORS``, ``COLORTERM``, ``TTY_COMPATIBLE``, ``TTY_INTERACTIVE``), terminal and width
  (``TERM``, ``COLUMNS``, ``LINES``, ``JUPYTER_COLUMNS``, ``JUPYTER_LINES``, ``TERMINAL_WIDTH``,
  ``UNICODE_VERSION``), CI (``CI``, ``GITHUB_*``, ``RUNNER_*``, ``GITLAB_CI``, ``BUILDKITE``,
  ``CIRCLECI``, ``TRAVIS``, ``JENKINS_URL``, ``TF_BUILD``, ``TEAMCITY_VERSION``), Typer's
  (``TYPER_*``, ``_TYPER_*``), the program's own (``TOOLSEARCH_*``, ``OPENAI_*``, e.g. a base
  URL or a key) and proxies (``HTTP_PROXY`` & co.: the test servers are on 127.0.0.1);
- **set**: ``HOME`` and ``XDG_CACHE_HOME`` to a folder of the test session (nothing reads or
  writes the user's own), ``TOOLSEARCH_CACHE_DIR`` to the session's catalog cache;
- **kept**: everything else (``PATH``, locale, ``PYTHON*``), and the opt-in test settings that
  the program itself never reads (:data:`TEST_SETTINGS`); a test marked ``live`` also keeps its
  API key variable (``$TOOLSEARCH_LIVE_API_KEY_ENV``, default ``OPENAI_API_KEY``).

A test that needs a variable sets it itself (``monkeypatch.setenv``); a test that starts the CLI
in another process passes it :func:`clean_env` (or no ``env`` at all: children inherit the clean
``os.environ``). The caller's environment is cleaned once more when this module is imported,
before Typer and Rich are: Typer reads ``FORCE_COLOR``, ``GITHUB_ACTIONS`` and ``TERMINAL_WIDTH``
once, at import.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

#: names removed from every test's environment
CLEARED = frozenset(
    {
        # colour
        "NO_COLOR", "FORCE_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "PY_COLORS", "COLORTERM",
        "TTY_COMPATIBLE", "TTY_INTERACTIVE",
        # terminal and width
        "TERM", "COLUMNS", "LINES", "JUPYTER_COLUMNS", "JUPYTER_LINES", "TERMINAL_WIDTH", "UNICODE_VERSION",
        # CI
        "CI", "CONTINUOUS_INTEGRATION", "BUILD_NUMBER", "GITLAB_CI", "BUILDKITE", "CIRCLECI", "TRAVIS",
        "JENKINS_URL", "TF_BUILD", "TEAMCITY_VERSION",
        # proxies (every test server is on 127.0.0.1)
        "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "all_proxy", "no_proxy",
        # home and caches: set again below to the session's folders
        "XDG_CACHE_HOME",
    }
)  # fmt: skip
#: prefixes of names removed from every test's environment
CLEARED_PREFIXES = ("TOOLSEARCH_", "OPENAI_", "GITHUB_", "RUNNER_", "TYPER_", "_TYPER_", "PG")
#: opt-in settings of the tests themselves (never read by toolsearch): kept
TEST_SETTINGS = frozenset(
    {
        "TOOLSEARCH_LIVE_BASE_URL",
        "TOOLSEARCH_LIVE_MODEL",
        "TOOLSEARCH_LIVE_API_KEY_ENV",
        "TOOLSEARCH_LIVE_TIMEOUT",
        "TOOLSEARCH_TEST_ONNX_MODEL",
        "TOOLSEARCH_UPDATE_SNAPSHOTS",
        "TOOLSEARCH_TEST_REQUIRE_POSTGRES",
        "TOOLSEARCH_TEST_PG_USER",
    }
)
#: the variable holding a live test's API key, and the caller's value of it (kept for tests marked live)
LIVE_KEY_ENV = os.environ.get("TOOLSEARCH_LIVE_API_KEY_ENV", "OPENAI_API_KEY")
_LIVE_KEY = os.environ.get(LIVE_KEY_ENV)
#: ``$CI`` as the tests were started with (cleared below): in CI, tests needing PostgreSQL fail, never skip
STARTED_CI = os.environ.get("CI")


def cleared(name: str) -> bool:
    """Whether ``name`` is removed from a test's environment."""
    if name in TEST_SETTINGS:
        return False
    return name in CLEARED or name.startswith(CLEARED_PREFIXES)


#: The real catalogs' benchmark cache (`python -m benchmarks fetch`: ``$TOOLSEARCH_BENCH_CACHE``, else
#: ``~/.cache/toolsearch-bench/real``) as the caller has it, read before the environment is cleaned and
#: every test gets a HOME of its own: tests that read real documents from it (tests/openapi_directory.py)
#: find it there, and skip without it.
BENCH_CACHE = Path(os.environ.get("TOOLSEARCH_BENCH_CACHE") or Path.home() / ".cache" / "toolsearch-bench" / "real")

for _name in [name for name in os.environ if cleared(name)]:
    del os.environ[_name]  # before Typer and Rich are imported (see the module docstring)

# Started in the background by a shell without job control (`nohup pytest &`, a script's `... &`),
# the tests inherit SIGINT ignored, and so would every toolsearch they start: the tests that send
# Ctrl-C would see it ignored. A handled SIGINT here is reset to the default in each child at exec.
import signal  # noqa: E402

if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# The MCP SDK's stdio_client takes ``errlog=sys.stderr`` as its default, bound when the module is
# first imported. Imported first inside a test that captures output (run_cli, capsys), the default
# is that capture's stream, which has no file descriptor, and every later test client started with
# the default fails (io.UnsupportedOperation: fileno) — whether it does depended on which test file
# ran first in the process (pytest-xdist's workers). Imported here, the default is the stderr the
# session starts with. (toolsearch itself always passes errlog.)
try:
    import mcp.client.stdio  # noqa: E402, F401
except ImportError:  # the mcp extra is not installed: the tests needing it skip
    pass

from toolsearch_cli import Tool  # noqa: E402
from toolsearch_cli.cli.app import main  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "catalogs" / "demo"
SHARED = ROOT.parent / "shared"
#: the tests' data files (tests/data) and the npm packages of tests/servers/npm (absent until
#: ``npm install --prefix tests/servers/npm``; the tests needing them skip)
DATA = ROOT / "tests" / "data"
NODE_MODULES = ROOT / "tests" / "servers" / "npm" / "node_modules"


#: ``toolsearch`` in another process, run by this interpreter
TOOLSEARCH = [sys.executable, "-m", "toolsearch_cli"]


def npm_mcp_server(name: str) -> tuple[str, Path]:
    """``node`` and the script of ``@modelcontextprotocol/server-NAME`` from tests/servers/npm;
    skips the test when either is absent."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    script = NODE_MODULES / "@modelcontextprotocol" / f"server-{name}" / "dist" / "index.js"
    if not script.is_file():
        pytest.skip(f"@modelcontextprotocol/server-{name} is not installed: npm install --prefix tests/servers/npm")
    return node, script


@dataclass
class Result:
    code: int
    stdout: str
    stderr: str

    def json(self):
        return json.loads(self.stdout)


@pytest.fixture
def run_cli(capsys, monkeypatch):
    """Run ``toolsearch ARGS`` in-process; returns exit code, stdout and stderr."""
    monkeypatch.setenv("COLUMNS", "200")  # tables as wide as a wide terminal's (the clean environment has no COLUMNS)

    def run(*args: str) -> Result:
        capsys.readouterr()
        try:
            main(list(args))
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        out, err = capsys.readouterr()
        return Result(code, out, err)

    return run


@pytest.fixture
def write(tmp_path):
    """Write a text file under tmp_path and return its path."""

    def write_file(name: str, text: str) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    return write_file


#: Workers of ``-n auto`` (pyproject.toml's addopts): one per core, at most this many. Half the
#: suite's time is spent waiting on servers, subprocesses and timeouts, which a second worker fills;
#: beyond 4 the tests that bound time (a trickling server, a stalled upstream) start to fight for
#: the cores they measure.
MAX_WORKERS = 4


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config):
    """``-n auto``: the cores this process may use, at most :data:`MAX_WORKERS`."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, MAX_WORKERS))


def pytest_collection_modifyitems(config, items):
    """A test marked ``shared`` skips when ../shared/eval is not beside the checkout (the marker
    alone says so: no test repeats the check)."""
    if (SHARED / "eval").is_dir():
        return
    absent = pytest.mark.skip(reason="../shared/eval is not available")
    for item in items:
        if item.get_closest_marker("shared"):
            item.add_marker(absent)


def make(name, description="", category=None, tags=(), params=None) -> Tool:
    """A tool in the reference's shorthand: name / description / category / tags / params."""
    return Tool(
        name=name,
        description=description,
        category=category,
        tags=list(tags),
        parameters={"type": "object", "properties": params or {}},
    )


@pytest.fixture(scope="session")
def session_home(tmp_path_factory) -> Path:
    """The ``HOME`` of every test: a folder of this test session (its ``.cache`` is ``XDG_CACHE_HOME``)."""
    home = tmp_path_factory.getbasetemp() / "home"
    (home / ".cache").mkdir(parents=True, exist_ok=True, mode=0o700)
    return home


@pytest.fixture(autouse=True)
def _clean_environment(request, monkeypatch, session_home, tmp_path_factory):
    """Every test starts from the clean environment the module docstring describes."""
    for name in [name for name in os.environ if cleared(name)]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(session_home))
    monkeypatch.setenv("XDG_CACHE_HOME", str(session_home / ".cache"))
    # one catalog cache for the whole session (never the user's ~/.cache)
    monkeypatch.setenv("TOOLSEARCH_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "catalog-cache"))
    if _LIVE_KEY and request.node.get_closest_marker("live"):
        monkeypatch.setenv(LIVE_KEY_ENV, _LIVE_KEY)


def clean_env(**overrides: str) -> dict[str, str]:
    """The environment for a CLI started in another process: the test's own (clean) one, plus ``overrides``."""
    return {**os.environ, **overrides}


def run_toolsearch(*args: str, cwd: Path = ROOT, timeout: float = 120, **env: str) -> Result:
    """Run ``toolsearch ARGS`` in another process with its output piped, in the test's clean
    environment plus ``env``; returns exit code, stdout and stderr (UTF-8)."""
    done = subprocess.run(
        [*TOOLSEARCH, *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=clean_env(**env),
        cwd=cwd,
        timeout=timeout,
    )
    return Result(done.returncode, done.stdout, done.stderr)


@pytest.fixture(scope="session")
def pg_cluster():
    """A throwaway PostgreSQL server on loopback for the session (tests/pg_cluster.py); skips
    where PostgreSQL or psycopg is absent, except in CI, where that fails."""
    from tests import pg_cluster as pg

    reason = pg.unavailable()
    if reason is not None:
        pg.skip_or_fail(reason, STARTED_CI)
    with pg.running_cluster() as cluster:
        yield cluster


@pytest.fixture
def pg_url(pg_cluster, request):
    """A URL (with the password) of a fresh database of the session's cluster, one per test."""
    import re

    name = "t_" + re.sub(r"[^a-z0-9]+", "_", request.node.name.lower())[:50]
    pg_cluster.sql(f'DROP DATABASE IF EXISTS "{name}"')
    url = pg_cluster.create_database(name)
    if "pg_empty" not in request.fixturenames:  # a registry, created as its owner would (registry migrate)
        from toolsearch_cli.registry.history import migrate

        migrate(url)
    return url


@pytest.fixture
def pg_empty():
    """Asked for beside ``pg_url``: its database is left empty (no registry schema)."""


def file_mode(path: Path | str) -> int:
    """A file's permission bits (``0o644``)."""
    return stat.S_IMODE(os.stat(path).st_mode)


def umask_mode() -> int:
    """The mode an ordinary new file gets here: ``0o666`` less the umask."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask
