"""Issue 20: what a huge model reply costs `simulate --live --record`, and whether the recording
replays. For each reply size, a real HTTP server on 127.0.0.1 (tests/chat_server.py, in a process
of its own) answers one Chat Completions request with a reply of that size (with a
Content-Length, or chunked without one); the CLI runs in another child process, whose peak RSS is
read from wait4() (the parent stays small: a child forked from a big parent counts its pages).

    PYTHONPATH=. python benchmarks/live_reply_bound.py [SIZE_MB ...]      # default: 1 40 150
    TREE=/work/main PYTHONPATH=. python benchmarks/live_reply_bound.py    # the CLI of another checkout
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def serve(megabytes: float, chunked: bool) -> None:
    """The server process: one reply of ``megabytes``, port on stdout, until stdin closes."""
    sys.path.insert(0, str(ROOT))
    from tests.chat_server import ChatServer, Raw, completion

    content = "x" * int(megabytes * 1024 * 1024)
    body = json.dumps(completion({"role": "assistant", "content": content}, "stop", None))
    server = ChatServer()
    server.add(Raw(200, body, chunked=chunked))
    print(server.url, flush=True)
    sys.stdin.read()
    server.close()


def run(megabytes: float, chunked: bool, folder: Path) -> dict[str, object]:
    record = folder / f"rec-{megabytes}-{chunked}.json"
    server = subprocess.Popen(
        [sys.executable, __file__, "--serve", str(megabytes), str(int(chunked))],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip()
        demo = str(ROOT / "catalogs" / "demo")
        args = [sys.executable, "-m", "toolsearch_cli", "simulate", "--live", "--base-url", url]
        args += ["--model", "m", "--prompt", "hi", "--catalog", demo, "--record", str(record)]
        env = dict(os.environ, OPENAI_API_KEY="sk-bench", PYTHONPATH=os.environ.get("TREE", str(ROOT)))
        cli = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=folder)
        stderr = cli.stderr.read().decode("utf-8", "replace") if cli.stderr else ""
        _, status, usage = os.wait4(cli.pid, 0)
        replay = None
        if record.exists():
            again = subprocess.run(
                [sys.executable, "-m", "toolsearch_cli", "simulate", "--replay", str(record), "--format", "json",
                 "--catalog", demo],
                capture_output=True, text=True, env=env, cwd=folder,
            )  # fmt: skip
            replay = again.returncode
        return {
            "reply MB": megabytes,
            "chunked": chunked,
            "exit": os.waitstatus_to_exitcode(status),
            "peak RSS MB": round(usage.ru_maxrss / 1024),
            "recording MB": round(record.stat().st_size / 1024 / 1024, 1) if record.exists() else None,
            "replay exit": replay,
            "stderr": stderr.strip().splitlines()[-1][:140] if stderr.strip() else "",
        }
    finally:
        server.communicate("")


def main() -> None:
    if sys.argv[1:2] == ["--serve"]:
        serve(float(sys.argv[2]), sys.argv[3] == "1")
        return
    sizes = [float(a) for a in sys.argv[1:]] or [1.0, 40.0, 150.0]
    with tempfile.TemporaryDirectory() as tmp:
        for size in sizes:
            for chunked in (False, True):
                print(json.dumps(run(size, chunked, Path(tmp))), flush=True)


if __name__ == "__main__":
    main()
