"""What the benchmark commands share: the dev sets, running a ranker for names, the test MCP server.

(Their shared command-line options are in ``benchmarks.options``.)
"""

from __future__ import annotations

import shlex
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.options import ROOT, SETS

__all__ = [
    "ROOT",
    "SETS",
    "alternated",
    "load_set",
    "ranked_names",
    "port_opened",
    "wait_for_port",
    "weather_server_command",
    "WEATHER_SERVER",
]

#: The stdio MCP server of the tests (stdlib only): a live server that needs nothing installed.
WEATHER_SERVER = ROOT / "tests" / "servers" / "weather_server.py"


def load_set(folder: Path) -> tuple[Any, list[Any]]:
    """A dev set's catalog and queries (``folder`` holds catalog.yaml and queries.yaml)."""
    from toolsearch_cli import load_catalog
    from toolsearch_cli.evaluate import load_queries

    return load_catalog([str(folder / "catalog.yaml")]), load_queries(folder / "queries.yaml")


def ranked_names(ranker: Any, catalog: Any, depth: int) -> Callable[[str], list[str]]:
    """A query -> the names of ``ranker``'s best ``depth`` tools with a positive score ([] for a
    query the ranker refuses, such as one of stop words alone: a miss, as evaluations count it)."""
    from toolsearch_cli.errors import SearchError
    from toolsearch_cli.search.base import SearchRequest

    def run(query: str) -> list[str]:
        try:
            hits = ranker.search(catalog, SearchRequest(query=query, max_results=depth, explain=False))
        except SearchError:
            return []
        return [h.tool.name for h in hits if h.score > 0]

    return run


def weather_server_command() -> str:
    """The command line (after ``mcp+stdio:``) that starts the tests' weather server."""
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(WEATHER_SERVER))}"


def alternated(rounds: int, labels: list[str], one: Callable[[str, int], Any]) -> dict[str, list[Any]]:
    """``one(label, round)`` for every label, ``rounds`` times, the labels taking turns at going
    first: a shared machine's load moves within seconds, and this way each sees the same."""
    out: dict[str, list[Any]] = {label: [] for label in labels}
    for i in range(rounds):
        for label in labels if i % 2 == 0 else labels[::-1]:
            out[label].append(one(label, i))
    return out


def port_opened(port: int, process: subprocess.Popen[Any] | None, seconds: float) -> bool:
    """Whether something came to listen on loopback ``port`` before ``process`` (the server started
    for it; ``None``: not watched) ended and before ``seconds`` passed."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return True
        except OSError:
            if (process is not None and process.poll() is not None) or time.monotonic() > deadline:
                return False
            time.sleep(0.05)


def wait_for_port(port: int, process: subprocess.Popen[Any], seconds: float, what: str) -> None:
    """Wait until something listens on loopback ``port``; exit naming ``what`` when ``process``
    ends first or ``seconds`` pass (:func:`port_opened`)."""
    if not port_opened(port, process, seconds):
        sys.exit(f"{what} did not start")
