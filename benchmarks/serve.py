"""`toolsearch serve` in one run (issue 22): toolSearch latency, call-through overhead, tool-list tokens.

Usage:
    python -m benchmarks serve                 # 200 searches, 200 calls per path
    python -m benchmarks serve --n 50
    python -m benchmarks serve --only time,fetch,git   # the PyPI servers only (no node/npm)

Over stdio, with the official `mcp` client, the gateway fronts five real servers: mcp-server-time,
-fetch and -git (PyPI) and @modelcontextprotocol/server-memory and -everything (npm, from
tests/servers/npm/node_modules). It measures:

1. `toolSearch` latency (client round trip), p50/p95 over varied queries;
2. call-through overhead: the same call (`get_current_time` on mcp-server-time, `echo` on
   server-everything) through `callTool` and on a direct client connection to a second instance of
   the same server, alternated call by call so load drifts hit both paths alike; the added p50;
   the gateway's own part of a call (its --log timings: total minus the upstream's round trip)
   separates its work from the extra stdio hop;
3. tokens (cl100k_base, as `simulate` counts them) of the gateway's tool list against the union
   of the five servers' tool lists, each as read from the servers themselves.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio

from benchmarks import options

ROOT = Path(__file__).resolve().parent.parent
NODE_MODULES = ROOT / "tests" / "servers" / "npm" / "node_modules" / "@modelcontextprotocol"
QUERIES = [
    "current time in Tokyo",
    "convert 9am Paris time to New York",
    "fetch a web page as markdown",
    "show the git log of the repository",
    "what changed in the working tree",
    "commit the staged changes",
    "create entities in the knowledge graph",
    "search nodes of the knowledge graph",
    "echo a message back",
    "add two numbers",
    "return a tiny image",
    "run a long operation with progress",
    "delete observations",
    "create a new branch",
    "print environment variables",
]


def servers(repo: str, only: list[str] | None = None) -> dict[str, list[str]]:
    node = shutil.which("node") or "node"
    if only is None and shutil.which("node") is None:
        sys.exit("node is needed for the npm servers (or --only time,fetch,git)")
    py = sys.executable
    every = {
        "time": [py, "-m", "mcp_server_time"],
        "fetch": [py, "-m", "mcp_server_fetch"],
        "git": [py, "-m", "mcp_server_git", "--repository", repo],
        "memory": [node, str(NODE_MODULES / "server-memory" / "dist" / "index.js")],
        "everything": [node, str(NODE_MODULES / "server-everything" / "dist" / "index.js")],
    }
    return {name: command for name, command in every.items() if only is None or name in only}


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))]


def params(command: list[str]):
    from mcp import StdioServerParameters

    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return StdioServerParameters(command=command[0], args=command[1:], env=env)


async def run(n: int, only: list[str] | None = None) -> None:
    from mcp import Client

    from toolsearch_cli.tokens import get_counter, tools_tokens

    repo = tempfile.mkdtemp(prefix="serve-bench-")
    subprocess.run(["git", "init", "-q", repo], check=True)
    commands = servers(repo, only)
    log = Path(repo) / "traffic.jsonl"
    gateway_cmd = [sys.executable, "-m", "toolsearch_cli", "serve", "--log", str(log)]
    for alias, command in commands.items():
        gateway_cmd += ["--catalog", f"{alias}=mcp+stdio:{shlex.join(command)}"]
    counter = get_counter("cl100k_base")
    async with contextlib.AsyncExitStack() as stack:
        gateway = await stack.enter_async_context(Client(params(gateway_cmd), read_timeout_seconds=120))
        time_direct = await stack.enter_async_context(Client(params(commands["time"]), read_timeout_seconds=60))
        everything_direct = None
        if "everything" in commands:
            everything_direct = await stack.enter_async_context(
                Client(params(commands["everything"]), read_timeout_seconds=60)
            )
        # 3. tokens: the gateway's list against the union of the servers' own lists
        listed = (await gateway.list_tools()).tools
        union = []
        for command in commands.values():
            async with Client(params(command), read_timeout_seconds=60) as direct:
                tools = (await direct.list_tools()).tools
                union += [
                    {"type": "function", "function": {"name": t.name, "description": t.description or "",
                                                      "parameters": t.input_schema}}
                    for t in tools
                ]  # fmt: skip
        gateway_defs = [
            {"type": "function", "function": {"name": t.name, "description": t.description or "",
                                              "parameters": t.input_schema}}
            for t in listed
        ]  # fmt: skip
        # warm-up
        for query in QUERIES:
            await gateway.call_tool("toolSearch", {"query": query})
        # 1. toolSearch latency
        search_ms: list[float] = []
        for i in range(n):
            started = time.perf_counter()
            result = await gateway.call_tool("toolSearch", {"query": QUERIES[i % len(QUERIES)]})
            search_ms.append((time.perf_counter() - started) * 1000)
            assert not result.is_error
        # 2. call-through overhead, alternated call by call
        rows = []
        paths = [("time", time_direct, "get_current_time", {"timezone": "UTC"})]
        if everything_direct is not None:
            paths.append(("everything", everything_direct, "echo", {"message": "hello"}))
        for name, direct, tool, arguments in paths:
            for _ in range(10):
                await direct.call_tool(tool, arguments)
                await gateway.call_tool("callTool", {"name": tool, "arguments": arguments})
            via_gateway: list[float] = []
            via_direct: list[float] = []
            for _ in range(n):
                started = time.perf_counter()
                a = await direct.call_tool(tool, arguments)
                via_direct.append((time.perf_counter() - started) * 1000)
                started = time.perf_counter()
                b = await gateway.call_tool("callTool", {"name": tool, "arguments": arguments})
                via_gateway.append((time.perf_counter() - started) * 1000)
                assert not a.is_error and not b.is_error
            rows.append((name, tool, via_direct, via_gateway))
    print(f"toolSearch over stdio, {n} searches: p50 {pct(search_ms, 50):.2f} ms, p95 {pct(search_ms, 95):.2f} ms")
    for name, tool, via_direct, via_gateway in rows:
        d50, g50 = statistics.median(via_direct), statistics.median(via_gateway)
        print(
            f"{name} {tool}, {n} calls each: direct p50 {d50:.2f} ms (p95 {pct(via_direct, 95):.2f}), "
            f"through callTool p50 {g50:.2f} ms (p95 {pct(via_gateway, 95):.2f}); added p50 {g50 - d50:+.2f} ms"
        )
    import json

    records = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    own = [r["ms"] - r["upstream_ms"] for r in records if r["event"] == "call" and r["upstream_ms"] is not None]
    searches = [r["ms"] for r in records if r["event"] == "search"]
    print(
        f"inside the gateway (its --log timings): a search p50 {pct(searches, 50):.2f} ms; a call's own work "
        f"(validation, routing, logging; not the upstream's time) p50 {pct(own, 50):.3f} ms, p95 {pct(own, 95):.3f} ms"
    )
    g_tokens, u_tokens = tools_tokens(gateway_defs, counter), tools_tokens(union, counter)
    print(
        f"tool list: gateway {len(gateway_defs)} tools, {g_tokens:,} tokens; the {len(commands)} servers' union "
        f"{len(union)} tools, {u_tokens:,} tokens ({100 * (u_tokens - g_tokens) / u_tokens:.1f}% less)"
    )


def main() -> None:
    parser = options.parser(__doc__)
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--only", default=None, help="comma-separated servers (e.g. time,fetch,git: no node needed)")
    args = parser.parse_args()
    anyio.run(run, args.n, args.only.split(",") if args.only else None)


if __name__ == "__main__":
    main()
