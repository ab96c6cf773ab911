"""`toolsearch serve --http` under many sessions (issue 34): the gateway process's memory.

Usage:
    python -m benchmarks serve-load                  # 5 upstreams, 100 concurrent sessions
    python -m benchmarks serve-load --sessions 20 --only time,fetch,git

The gateway (a real process, streamable HTTP on loopback) fronts the five real servers of
``python -m benchmarks serve`` (mcp-server-time, -fetch, -git; @modelcontextprotocol/server-memory
and -everything from tests/servers/npm/node_modules). ``--sessions`` clients of the official
``mcp`` SDK connect at once, each on its own HTTP session (handshake era: a session per
connection, the heavier case), and each runs one ``toolSearch`` and one ``callTool``
(``get_current_time`` on mcp-server-time). The resident set size of the gateway process alone
(``VmRSS``, and the peak ``VmHWM``, from /proc; its upstreams are other processes) is read once
the upstreams have listed, while the sessions are open, and after they closed. Target: at most
150 MB with 5 upstreams and 100 sessions.
"""

from __future__ import annotations

import os
import shlex
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio

from benchmarks import options
from benchmarks.common import wait_for_port
from benchmarks.serve import ROOT, servers


def rss_mb(pid: int) -> tuple[float, float]:
    """``(VmRSS, VmHWM)`` of a process, in MB."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = int(value.split()[0]) / 1024
    return fields["VmRSS"], fields["VmHWM"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def run(sessions: int, only: list[str] | None) -> None:
    from mcp import Client

    repo = tempfile.mkdtemp(prefix="serve-load-")
    subprocess.run(["git", "init", "-q", repo], check=True)
    commands = servers(repo, only)
    port = free_port()
    cmd = [sys.executable, "-m", "toolsearch_cli", "serve", "--http", f"127.0.0.1:{port}"]
    for alias, command in commands.items():
        cmd += ["--catalog", f"{alias}=mcp+stdio:{shlex.join(command)}"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        wait_for_port(port, process, 120, "the gateway")
        async with Client(url, read_timeout_seconds=120, mode="legacy") as first:  # warm: index built, imports done
            await first.call_tool("toolSearch", {"query": "current time"})
            await first.call_tool("callTool", {"name": "get_current_time", "arguments": {"timezone": "UTC"}})
        idle, _ = rss_mb(process.pid)
        opened = anyio.Event()
        count = [0]
        release = anyio.Event()
        peak_open = [0.0]
        times: list[float] = []
        failures = [0]

        async def one(i: int) -> None:
            started = time.perf_counter()
            try:
                async with Client(url, read_timeout_seconds=120, mode="legacy") as client:
                    found = await client.call_tool("toolSearch", {"query": "current time in Tokyo"})
                    ran = await client.call_tool(
                        "callTool", {"name": "get_current_time", "arguments": {"timezone": "Asia/Tokyo"}}
                    )
                    if found.is_error or ran.is_error:
                        failures[0] += 1
                    times.append((time.perf_counter() - started) * 1000)
                    count[0] += 1
                    if count[0] == sessions:
                        opened.set()
                    await release.wait()  # every session open at once when memory is read
            except Exception:  # noqa: BLE001 - counted, not fatal: the figure says how many failed
                failures[0] += 1
                count[0] += 1
                if count[0] == sessions:
                    opened.set()

        async with anyio.create_task_group() as group:
            for i in range(sessions):
                group.start_soon(one, i)
            with anyio.move_on_after(300):
                await opened.wait()
            peak_open[0], _ = rss_mb(process.pid)
            release.set()
        await anyio.sleep(1.0)
        after, hwm = rss_mb(process.pid)
        print(
            f"gateway process RSS with {len(commands)} upstreams: {idle:.1f} MB idle (upstreams listed, one session "
            f"served); {peak_open[0]:.1f} MB with {sessions} sessions open at once; {after:.1f} MB after they "
            f"closed; peak (VmHWM) {hwm:.1f} MB (target <= 150 MB)"
        )
        if times:
            print(
                f"{len(times)} sessions each did toolSearch + callTool: p50 {statistics.median(times):.0f} ms from "
                f"connect to both answers (all {sessions} at once on this machine); failed {failures[0]}"
            )
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


def main() -> None:
    parser = options.parser(__doc__)
    parser.add_argument("--sessions", type=int, default=100)
    parser.add_argument("--only", default=None, help="comma-separated servers (e.g. time,fetch,git: no node needed)")
    args = parser.parse_args()
    anyio.run(run, args.sessions, args.only.split(",") if args.only else None)


if __name__ == "__main__":
    main()
