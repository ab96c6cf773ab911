"""Peak memory and time of ``toolsearch catalog`` against hostile MCP servers (issue 20 item 5).

python -m benchmarks mcp-bounds [CASE ...]

Each case runs ``toolsearch catalog -f json --catalog SOURCE`` in a subprocess (its own peak RSS,
from ``resource.getrusage(RUSAGE_CHILDREN)`` of a fresh wrapper process, so earlier cases do not
count) against ``tests/servers/hostile_server.py``; prints exit code, seconds, peak MB and the
first line of stderr. ``$TOOLSEARCH_MCP_TIMEOUT`` is passed through (default here 60 s);
``$MCP_BOUNDS_CODE`` runs another checkout's toolsearch (``/work/main``: the numbers before).
"""

from __future__ import annotations

import os
import shlex
import socket
import subprocess
import sys
from pathlib import Path

from benchmarks import options
from benchmarks.common import wait_for_port

ROOT = Path(__file__).resolve().parents[1]
SERVER = ROOT / "tests" / "servers" / "hostile_server.py"
PY = shlex.quote(sys.executable)

CASES = {
    "stdio-longline-200MB": ("stdio", "longline", 200 * 1024 * 1024),
    "stdio-endless-line": ("stdio", "longline", 0),
    "stdio-endless-pages": ("stdio", "pages", 0),
    "stdio-1M-tools": ("stdio", "many", 1_000_000),
    "http-body-200MB": ("http", "longline", 200 * 1024 * 1024),
    "http-endless-body": ("http", "longline", 0),
    "http-endless-sse-event": ("http", "sse", 0),
    "stdio-endless-small-messages": ("stdio", "chatter", 0),
    "http-endless-small-events": ("http", "chatter", 0),
    "stdio-byte-trickle": ("stdio", "trickle", 0),
    "http-byte-trickle": ("http", "trickle", 0),
    # honest servers: the same listing must load as before (and not slower)
    "stdio-20k-tools-ok": ("stdio", "many", 20_000),
    "http-20k-tools-ok": ("http", "many", 20_000),
    "http-3k-messages-then-answer-ok": ("http", "chatter", 3_000),
}

MEASURE = """
import resource, subprocess, sys, time
start = time.perf_counter()
done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
took = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
first = (done.stderr.strip().splitlines() or [""])[0]
print(f"{done.returncode}\\t{took:.1f}\\t{peak:.0f}\\t{first[:230]}")
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def run(name: str) -> None:
    transport, mode, size = CASES[name]
    server = None
    if transport == "stdio":
        source = f"mcp+stdio:{PY} {shlex.quote(str(SERVER))} {mode} {size}"
    else:
        port = free_port()
        server = subprocess.Popen([sys.executable, str(SERVER), mode, str(size), "--http", str(port)])
        wait_for_port(port, server, 30, "the test MCP server")
        source = f"mcp+http://127.0.0.1:{port}/mcp"
    code = os.environ.get("MCP_BOUNDS_CODE", str(ROOT))  # another checkout's code: a before/after pair
    env = {**os.environ, "PYTHONPATH": code, "TOOLSEARCH_MCP_TIMEOUT": os.environ.get("TOOLSEARCH_MCP_TIMEOUT", "60")}
    command = [sys.executable, "-m", "toolsearch_cli", "catalog", "-f", "json", "--catalog", source]
    try:
        out = subprocess.run(
            [sys.executable, "-c", MEASURE, *command], capture_output=True, text=True, env=env, cwd=code
        )
        print(f"{name}\t{out.stdout.strip() or out.stderr.strip()[-300:]}", flush=True)
    finally:
        if server is not None:
            server.kill()
            server.wait()


def main() -> None:
    parser = options.parser(__doc__)
    parser.add_argument("cases", nargs="*", metavar="CASE", help=f"of {', '.join(CASES)} (default: all)")
    cases = parser.parse_args().cases
    for case in cases:
        if case not in CASES:
            parser.error(f"no case {case!r}")
    print("case\texit\tseconds\tpeak MB\tstderr", flush=True)
    for case in cases or list(CASES):
        run(case)


if __name__ == "__main__":
    main()
