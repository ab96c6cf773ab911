"""Start-up: `toolsearch search weather` on the shipped catalogs against the interpreter floor.

The floor is `python -c "import typer, rich"` (what any Typer + Rich CLI pays before doing
anything). Both commands run alternately, from the repository root (so the shipped `catalogs/`
are the default catalog), 21 times each; the figure is the difference of the medians. The
on-disk catalog cache is warmed by one untimed run first, as it is after a user's first call.

Run through ``benchmarks/harness.py --part startup`` or alone: ``python benchmarks/startup.py``.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNS = 21
TARGET_MS = 150.0


def command() -> list[str]:
    script = Path(sys.executable).with_name("toolsearch")
    if script.exists():
        return [str(script), "search", "weather"]
    found = shutil.which("toolsearch")
    return [found, "search", "weather"] if found else [sys.executable, "-m", "toolsearch_cli", "search", "weather"]


def timed(argv: list[str]) -> float:
    env = dict(os.environ, COLUMNS="120")
    start = time.perf_counter()
    subprocess.run(argv, cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
    return 1000 * (time.perf_counter() - start)


def run() -> bool:
    floor_cmd = [sys.executable, "-c", "import typer, rich"]
    ours_cmd = command()
    timed(ours_cmd)  # warm the OS file cache and the catalog cache
    floor, ours = [], []
    for _ in range(RUNS):
        floor.append(timed(floor_cmd))
        ours.append(timed(ours_cmd))
    f, o = statistics.median(floor), statistics.median(ours)
    print(f"\n### Start-up ({RUNS} alternating runs each, medians)\n")
    print("| command | median ms | min ms |")
    print("|---|---:|---:|")
    print(f'| `python -c "import typer, rich"` (floor) | {f:.0f} | {min(floor):.0f} |')
    print(f"| `toolsearch search weather` | {o:.0f} | {min(ours):.0f} |")
    good = o - f <= TARGET_MS
    print(f"\n- over the floor: {o - f:.0f} ms (target at most {TARGET_MS:.0f} ms) — {'met' if good else 'NOT met'}")
    return good


if __name__ == "__main__":
    raise SystemExit(0 if run() else 1)
