"""Time to load a catalog of many live MCP stdio servers: one after another (the old way), started
concurrently, and from the live-catalog cache (warm); plus a whole `toolsearch search` command.

Usage:
    python -m benchmarks live-servers                  # 16 servers, 3 rounds each
    python -m benchmarks live-servers --servers 10 --rounds 1

The servers are real: PyPI's `mcp-server-time` (when installed: `pip install mcp-server-time`)
and this repository's `tests/servers/weather_server.py`, alternating, each under its own alias.
Every figure is measured in this run; ratios are against the sequential baseline of this run.
"""

from __future__ import annotations

import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from benchmarks import options
from benchmarks.common import weather_server_command
from toolsearch_cli.catalog import load_catalog
from toolsearch_cli.catalog.lenient import LoadSettings, configure


def server_sources(count: int) -> list[str]:
    commands = [f"mcp+stdio:{weather_server_command()}"]
    if shutil.which("mcp-server-time"):
        commands.insert(0, f"mcp+stdio:{shlex.quote(shutil.which('mcp-server-time') or '')} --local-timezone UTC")
    return [f"s{i:02d}={commands[i % len(commands)]}" for i in range(count)]


def timed(load) -> tuple[float, int]:
    start = time.perf_counter()
    catalog = load()
    return time.perf_counter() - start, len(catalog)


def main() -> None:
    parser = options.parser(__doc__)
    parser.add_argument("--servers", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    sources = server_sources(args.servers)
    cache = tempfile.mkdtemp(prefix="toolsearch-live-bench-")
    os.environ["TOOLSEARCH_CACHE_DIR"] = cache
    kinds = sorted({s.split("=", 1)[1].split()[0].rsplit("/", 1)[-1] for s in sources})
    print(f"{args.servers} stdio servers ({', '.join(kinds)}), {args.rounds} rounds, {os.cpu_count()} CPUs\n")

    rows: list[tuple[str, list[float], int]] = []

    def run(label: str, settings: LoadSettings, workers: str | None) -> None:
        times, size = [], 0
        for _ in range(args.rounds):
            if workers is None:
                os.environ.pop("TOOLSEARCH_MCP_CONCURRENCY", None)
            else:
                os.environ["TOOLSEARCH_MCP_CONCURRENCY"] = workers
            configure(settings)
            seconds, size = timed(lambda: load_catalog(sources))
            times.append(seconds)
        rows.append((label, times, size))

    run("cold, one after another (before)", LoadSettings(), "1")
    run("cold, concurrent (8 at a time)", LoadSettings(), None)
    run("cold, concurrent (16 at a time)", LoadSettings(), "16")
    configure(LoadSettings(live_ttl=600, refresh=True))
    load_catalog(sources)  # fill the cache
    run("warm, live cache (--live-ttl 10m)", LoadSettings(live_ttl=600), None)
    os.environ.pop("TOOLSEARCH_MCP_CONCURRENCY", None)

    # a whole command, as a user runs it (Python start-up, import, load, index, search, print)
    command = [sys.executable, "-m", "toolsearch_cli", "--live-ttl", "10m", "search", "forecast"]
    for source in sources:
        command += ["-c", source]
    cli: list[float] = []
    for _ in range(args.rounds):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        cli.append(time.perf_counter() - start)
    rows.append(("`toolsearch --live-ttl 10m search` (warm, whole command)", cli, rows[-1][2]))

    base = statistics.median(rows[0][1])
    print("| load | tools | median s | min s | vs sequential |")
    print("|---|---:|---:|---:|---:|")
    for label, times, size in rows:
        median = statistics.median(times)
        print(f"| {label} | {size} | {median:.2f} | {min(times):.2f} | {base / median:.1f}x faster |")
    shutil.rmtree(cache, ignore_errors=True)


if __name__ == "__main__":
    main()
