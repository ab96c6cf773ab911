"""Warm registry paths (issue 35 item 4), against a real PostgreSQL on loopback.

Needs ../shared/eval/seal_tools (the synthetic catalog of ``scale.py``, ``--size`` tools, JSON)
and PostgreSQL's server programs (a throwaway cluster, as the tests start it: tests/pg_cluster.py,
``initdb`` / ``pg_ctl`` as an unprivileged user on 127.0.0.1). Every figure is a fresh process's
(wall and CPU seconds, ``wait4``), taken in the same run as its baseline:

* **search**: ``toolsearch search`` of the namespace against the same catalog as a file, both
  warm (each run once before, so its cache entry exists), alternated ``--rounds`` times; the
  ratio registry / file of the medians (target ≤ 1.2);
* **push**: ``toolsearch catalog push`` of a copy of the file, edited in place (``--changed``
  tools' descriptions) before each push: with the push's memo of the file (the last push of it
  left it; only the edited tools are read) against the same push without it
  (``TOOLSEARCH_NO_CACHE=1``: every tool read and encoded, the path before the memo), alternated
  ``--rounds`` times; the ratio of the medians, and the memo's push against ≤ 3 s at 100,000 tools;
* **node**: a process that starts a :class:`~toolsearch_cli.registry.sync.LiveToolSearch` on the
  namespace and answers its first ``toolSearch`` call, with the node's cache warm (a first node
  ran before): ready in ≤ 3 s.

``python -m benchmarks registry-warm [--size 100000] [--rounds 3] [--changed 100]``
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from benchmarks import options

ROOT = Path(__file__).resolve().parent.parent
QUERY = "send an email to my boss"

NODE = """
import json, sys, time
t0 = time.perf_counter()
from toolsearch_cli.registry.sync import LiveToolSearch
node = LiveToolSearch(sys.argv[1], start=False)
request = node.request([{"role": "user", "content": "hi"}])
answer = node.handle("toolSearch", {"query": sys.argv[2], "maxResults": 5}, request)
print(json.dumps({"ready_s": time.perf_counter() - t0, "answer": answer.content}))
"""


def main() -> int:
    parser = options.parser(__doc__)
    options.add_shared(parser)
    options.add_scale(parser)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--changed", type=int, default=100)
    args = parser.parse_args()
    from benchmarks.scale import synthetic_source
    from tests import pg_cluster as pg

    reason = pg.unavailable()
    if reason:
        print(reason)
        return 2
    found = synthetic_source(args)
    if found is None:
        return 2
    source = found[1]
    work = Path(tempfile.mkdtemp(prefix="toolsearch-registry-warm-"))
    try:
        with pg.running_cluster() as cluster:
            return run(args, source, cluster.create_database("bench"), work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _changed_copy(source: Path, target: Path, changed: int, mark: str = "") -> None:
    data = json.loads(source.read_text(encoding="utf-8"))
    tools = data["tools"]
    step = max(1, len(tools) // changed)
    for i in range(0, step * changed, step):
        tools[i]["description"] += f" recalibrated harbour tide gauge {i}{mark}"
    target.write_text(json.dumps(data), encoding="utf-8")


def run(args: object, source: Path, url: str, work: Path) -> int:
    import toolsearch_cli
    from benchmarks.common import alternated
    from benchmarks.scale import measured

    env = {**os.environ, "COLUMNS": "200", "TOOLSEARCH_CACHE_DIR": str(work / "cache")}
    env.pop("TOOLSEARCH_NO_CACHE", None)
    cli = [sys.executable, "-m", "toolsearch_cli"]
    namespace = f"{url}?namespace=big"
    print(f"toolsearch from {Path(toolsearch_cli.__file__).parent}; load {os.getloadavg()[0]:.1f}", flush=True)
    measured([*cli, "registry", "migrate", url], env)  # pushes never create the schema
    edited = work / "catalog.json"  # the file a team edits and pushes again (its push memo: see below)
    shutil.copyfile(source, edited)
    first_push = measured([*cli, "catalog", "push", "--to", url, "-n", "big", "-c", str(edited)], env)
    search_file = [*cli, "search", QUERY, "-c", str(source), "-n", "3", "-f", "json"]
    search_registry = [*cli, "search", QUERY, "-c", namespace, "-n", "3", "-f", "json"]
    first = {"file": measured(search_file, env), "registry": measured(search_registry, env)}
    searches = {"file": search_file, "registry": search_registry}
    runs = alternated(args.rounds, ["file", "registry"], lambda label, _: measured(searches[label], env))  # type: ignore[attr-defined]
    hits = {label: [h["name"] for h in json.loads(rows[-1]["stdout"])["hits"]] for label, rows in runs.items()}

    node_cmd = [sys.executable, "-c", NODE, namespace, QUERY]
    node_first = measured(node_cmd, env)
    node_warm = [measured(node_cmd, env) for _ in range(2)]

    push_cmd = [*cli, "catalog", "push", "--to", url, "-n", "big", "-c", str(edited), "-f", "json"]

    def pushed(label: str, i: int) -> dict:
        _changed_copy(source, edited, args.changed, f" round {i} {label}")  # type: ignore[attr-defined]
        row = measured(push_cmd, env if label == "memo" else {**env, "TOOLSEARCH_NO_CACHE": "1"})
        plan = json.loads(row["stdout"])
        assert len(plan["changed"]) == args.changed and not plan["added"] and not plan["removed"]  # type: ignore[attr-defined]
        return row

    pushes = alternated(args.rounds, ["memo", "no memo"], pushed)  # type: ignore[attr-defined]
    plan = json.loads(pushes["memo"][-1]["stdout"])
    push = min(pushes["memo"], key=lambda r: r["wall_s"])

    def med(label: str, key: str) -> float:
        return statistics.median(r[key] for r in runs[label])

    print(f"\n### Registry warm paths, {args.size:,} tools (fresh processes; medians of {args.rounds})\n")  # type: ignore[attr-defined]

    def line(label: str, r: dict) -> None:
        print(f"| {label} | {r['wall_s']:.2f} | {r['cpu_s']:.2f} | {r['load']:.1f} |")

    print("| measure | wall s | CPU s | load |")
    print("|---|---:|---:|---:|")
    line("first push (every tool)", first_push)
    for label in ("file", "registry"):
        line(f"search, {label}, first run", first[label])
        for r in runs[label]:
            line(f"search, {label}, warm", r)
    line("node, first start (cache filled)", node_first)
    for r in node_warm:
        line(f"node, warm start (ready: {json.loads(r['stdout'])['ready_s']:.2f} s in-process)", r)
    counts = f"{len(plan['added'])} added, {len(plan['changed'])} changed, {len(plan['removed'])} removed"
    for label, rows in pushes.items():
        for r in rows:
            line(f"push of {args.changed} changed tools ({counts}), {label}", r)  # type: ignore[attr-defined]

    ok = True
    wall_ratio = med("registry", "wall_s") / med("file", "wall_s")
    cpu_ratio = med("registry", "cpu_s") / med("file", "cpu_s")
    node_ready = min(json.loads(r["stdout"])["ready_s"] for r in node_warm)

    def push_med(label: str, key: str) -> float:
        return statistics.median(r[key] for r in pushes[label])

    print(
        f"\npush with the memo / without (medians of {args.rounds}): "  # type: ignore[attr-defined]
        f"{push_med('memo', 'cpu_s') / push_med('no memo', 'cpu_s'):.2f}x CPU "
        f"({push_med('memo', 'cpu_s'):.2f} s / {push_med('no memo', 'cpu_s'):.2f} s), "
        f"{push_med('memo', 'wall_s') / push_med('no memo', 'wall_s'):.2f}x wall "
        f"({push_med('memo', 'wall_s'):.2f} s / {push_med('no memo', 'wall_s'):.2f} s)"
    )
    checks = [
        ("warm search, registry / file, CPU", cpu_ratio, 1.2, "x"),
        ("warm search, registry / file, wall", wall_ratio, 1.2, "x"),
        (f"push of {args.changed} changed tools, wall (best, with the memo)", push["wall_s"], 3.0, "s"),  # type: ignore[attr-defined]
        ("node ready from a warm cache (in-process, best)", node_ready, 3.0, "s"),
    ]
    print("\nTargets:")
    for label, value, limit, unit in checks:
        good = value <= limit
        ok &= good
        print(f"- {label}: {value:.2f} {unit} (limit {limit:g}) — {'met' if good else 'NOT met'}")
    print(f"- the same top 3 from both: {hits['file'] == hits['registry']} ({', '.join(hits['registry'])})")
    ok &= hits["file"] == hits["registry"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
