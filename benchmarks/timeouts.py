"""Timeouts: how long a run takes to give up, against the timeout it was given.

The tests check that a timeout is applied (the run fails with the timeout's message, and a
server that never answers is stopped); how long that takes is measured here, on this machine,
and printed as a ratio to the configured timeout rather than asserted in the test suite:

- ``--embed-timeout 0.3`` against a ``/v1/embeddings`` server that hangs 30 s (within the
  default 60 s timeout, so only the option makes the run fail): the tries and the SDK's
  back-off included. Was asserted in tests as "under 25 s".
- ``TOOLSEARCH_MCP_TIMEOUT=1`` against a stdio MCP server that never says a word and sleeps an
  hour: the time to report the timeout and stop the server. Was asserted as "under 15 s".

``python -m benchmarks timeouts [--runs N]`` (default 3; the median is printed). Needs the
test extra (``pip install -e ".[test]"``) for the SDKs and the tests' static model.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks import options

ROOT = Path(__file__).resolve().parent.parent

EMBED_TIMEOUT = 0.3
MCP_TIMEOUT = 1.0


def toolsearch(args: list[str], env: dict[str, str]) -> tuple[float, subprocess.CompletedProcess[str]]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "toolsearch_cli", *args], capture_output=True, text=True, env=env)
    return time.perf_counter() - start, done


def embed_run(env: dict[str, str]) -> float:
    from tests.embed_server import EmbeddingServer
    from toolsearch_cli.search.embed import load_local

    with EmbeddingServer(load_local(str(ROOT / "tests" / "data" / "minilm-static"))) as server:
        server.delay = 30.0
        took, done = toolsearch(
            ["search", "weather", "-c", str(ROOT / "catalogs" / "demo"), "-r", "embedding",
             "--embed-timeout", str(EMBED_TIMEOUT), "--embed-base-url", server.base_url, "--embed-model", "m"],
            env,
        )  # fmt: skip
    if done.returncode != 2 or "Timeout" not in done.stderr:
        raise SystemExit(f"unexpected result of the embedding run: {done.returncode} {done.stderr.strip()}")
    return took


def mcp_run(env: dict[str, str], folder: Path) -> float:
    script = folder / "silent.py"
    script.write_text("import time\ntime.sleep(3600)\n")
    took, done = toolsearch(["catalog", "-c", f"mcp+stdio:{sys.executable} {script}"], env)
    if done.returncode != 2 or "did not list its tools" not in done.stderr:
        raise SystemExit(f"unexpected result of the MCP run: {done.returncode} {done.stderr.strip()}")
    return took


def main() -> None:
    parser = options.parser(__doc__)
    parser.add_argument("--runs", type=int, default=3)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        env = dict(os.environ, TOOLSEARCH_CACHE_DIR=str(folder / "cache"), TOOLSEARCH_MCP_TIMEOUT=str(MCP_TIMEOUT))
        embed = [embed_run(env) for _ in range(runs)]
        mcp = [mcp_run(env, folder) for _ in range(runs)]
    print(f"| what | timeout | median of {runs} | ratio |")
    print("|---|---:|---:|---:|")
    for what, timeout, times in (("--embed-timeout (all tries)", EMBED_TIMEOUT, embed),
                                 ("TOOLSEARCH_MCP_TIMEOUT (report + stop)", MCP_TIMEOUT, mcp)):  # fmt: skip
        median = statistics.median(times)
        print(f"| {what} | {timeout:g} s | {median:.2f} s | {median / timeout:.1f}x |")


if __name__ == "__main__":
    main()
