"""A new ``hybrid`` request, this checkout against another, measured pair by pair: wall and CPU time.

``hybrid_cost.py`` runs four variants per round; on a shared machine a round's medians move with
the load. This script runs only the new request (the catalog's vectors cached, the request new
every time, so the model is loaded and embeds it) with this checkout's code and with
``--before``'s, alternately (the order flips each pair), each with its own warmed cache, and a
``default`` search after each pair; it prints medians, ratios to ``default`` and the median of
the pairwise differences (this checkout minus the other), which the load moves least.

``--request repeated`` measures a repeated request instead (its vector on disk: no model is
loaded), ``--request default`` a ``default`` search of the catalog each checkout's hybrid runs
left in its cache (what a user who once searched with ``hybrid`` pays for a plain search).

    python benchmarks/hybrid_pair.py --embed-model ~/models/all-MiniLM-L6-v2-onnx --before ../main [--pairs 20] \
        [--request new|repeated|default]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(root: str, cache: str, model: str | None, catalog: str, query: str) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of one ``toolsearch search`` child."""
    env = dict(os.environ, PYTHONPATH=root, TOOLSEARCH_CACHE_DIR=cache)
    env.pop("TOOLSEARCH_EMBED_MODEL", None)
    args = [sys.executable, "-m", "toolsearch_cli", "search", "--catalog", catalog, "-n", "5"]
    if model is not None:
        args += ["--ranker", "hybrid", "--embed-model", model]
    began = time.perf_counter()
    child = subprocess.Popen([*args, query], env=env, cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert child.stderr is not None
    err = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - began
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(args)} failed in {root}: {err.decode(errors='replace')[-500:]}")
    return wall, usage.ru_utime + usage.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embed-model", required=True, help="a model folder")
    parser.add_argument("--before", required=True, metavar="CHECKOUT", help="the other checkout (e.g. the main branch)")
    parser.add_argument("--catalog", default=str(ROOT / "catalogs" / "demo"))
    parser.add_argument("--pairs", type=int, default=20)
    parser.add_argument("--request", choices=("new", "repeated", "default"), default="new", help="what is measured")
    args = parser.parse_args()
    model = None if args.request == "default" else args.embed_model
    roots = {"this checkout": str(ROOT), "before": str(Path(args.before).resolve())}
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="hybrid-pair-") as work:
        caches = {name: os.path.join(work, str(i)) for i, name in enumerate(roots)}
        for name, root in roots.items():  # the catalog's cache and vectors, the model's prepared copy
            for i in range(3):
                run(root, caches[name], args.embed_model, args.catalog, f"warm up {i}")
        time.sleep(2.2)  # files' hashes are remembered once the files are 2 s old (search/file_hashes.py)
        for name, root in roots.items():
            run(root, caches[name], args.embed_model, args.catalog, "warm up again")
        results: dict[str, list[tuple[float, float]]] = {name: [] for name in [*roots, "default"]}
        for i in range(args.pairs):
            order = list(roots) if i % 2 == 0 else list(roots)[::-1]
            for name in order:
                query = f"remember that person {i} works at company {i * 7}"  # new every pair
                if args.request != "new":
                    query = "warm up 0"  # its vector on disk since the warm-up
                results[name].append(run(roots[name], caches[name], model, args.catalog, query))
            default = run(roots["before"], caches["before"], None, args.catalog, "remember that Alice works at Acme")
            results["default"].append(default)
    base_wall = statistics.median(w for w, _ in results["default"])
    base_cpu = statistics.median(c for _, c in results["default"])
    load_after = os.getloadavg()
    print(
        f"{args.pairs} pairs, catalog {args.catalog}, medians; load average (1, 5, 15 min) before "
        f"{' '.join(f'{x:.1f}' for x in load_before)}, after {' '.join(f'{x:.1f}' for x in load_after)}\n"
    )
    print("| variant | wall s | × default | CPU s | × default |")
    print("|---|---:|---:|---:|---:|")
    what = {"new": "new request", "repeated": "repeated request", "default": "default after hybrid"}[args.request]
    for name, label in (("default", "default"), ("before", f"{what}, before"), ("this checkout", what)):
        wall = statistics.median(w for w, _ in results[name])
        cpu = statistics.median(c for _, c in results[name])
        print(f"| {label} | {wall:.3f} | {wall / base_wall:.2f} | {cpu:.3f} | {cpu / base_cpu:.2f} |")
    pairs = list(zip(results["this checkout"], results["before"], strict=True))
    cpu_diff = statistics.median(a[1] - b[1] for a, b in pairs)
    wall_diff = statistics.median(a[0] - b[0] for a, b in pairs)
    print(
        "\nthis checkout minus before, pair by pair (medians): "
        f"CPU {cpu_diff * 1000:+.0f} ms, wall {wall_diff * 1000:+.0f} ms"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
