"""Issue 23: a registry-backed node beside a file-backed one, at 100k tools (one run).

Needs ../shared/eval/seal_tools (the synthetic 100k catalog of benchmarks/scale.py) and
PostgreSQL's server programs (a throwaway cluster on loopback, as the tests start it).

* load: seconds to a searchable catalog (first search answered, so the index is built or read)
  from the registry vs from the catalog file through the on-disk cache (a warm hit, whose entry
  holds the built index), and the registry's read alone;
* apply: a push changing 100 tools' descriptions, from the push's commit to a running node's
  first search that sees the new version (notification, read, in-place apply, the index
  updated); rankings then compared with a fresh load of the same catalog on 100 queries;
* search: p50 / p95 milliseconds per toolSearch call on the registry-backed node and on an
  in-memory one, the same queries.

``python -m benchmarks registry [--size 100000]``
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from benchmarks import options

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = options.parser(__doc__)
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--changed", type=int, default=100)
    args = parser.parse_args()
    seal = ROOT.parent / "shared" / "eval" / "seal_tools"
    if not seal.is_dir():
        print("../shared/eval/seal_tools is not available")
        return 2
    from benchmarks.scale import synthetic_tools
    from tests import pg_cluster as pg
    from toolsearch_cli.evaluate import load_queries

    reason = pg.unavailable()
    if reason:
        print(reason)
        return 2
    queries = [q.query for q in load_queries(str(seal / "queries.yaml"))][:300]
    tools = synthetic_tools(seal, args.size)
    work = Path(tempfile.mkdtemp(prefix="toolsearch-registry-bench-"))
    try:
        return run(args, tools, queries, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run(args: argparse.Namespace, tools: list, queries: list[str], work: Path) -> int:
    from tests import pg_cluster as pg
    from toolsearch_cli.agent import ToolSearch
    from toolsearch_cli.catalog import load_catalog
    from toolsearch_cli.model import Catalog
    from toolsearch_cli.registry import store
    from toolsearch_cli.registry.codec import tool_row
    from toolsearch_cli.registry.sync import LiveToolSearch

    catalog = Catalog(tools=tools)
    os.environ["TOOLSEARCH_CACHE_DIR"] = str(work / "cache")
    file = work / "catalog.json"
    # toolsearch's own format, as JSON (what a registry row holds, per tool)
    file.write_text(json.dumps({"tools": [tool_row(t) for t in tools]}, ensure_ascii=False), encoding="utf-8")
    messages = [{"role": "user", "content": "hi"}]

    def first_search(ts: ToolSearch) -> list[str]:
        request = ts.request(messages)
        content = json.loads(ts.handle("toolSearch", {"query": queries[0], "maxResults": 5}, request).content or "[]")
        return content if isinstance(content, list) else content.get("names", [])

    with pg.running_cluster() as cluster:
        url = cluster.create_database("bench")
        source = f"{url}?namespace=big"
        started = time.perf_counter()
        store.push(url, catalog, "big")
        push_s = time.perf_counter() - started

        # warm the file cache (entry with the built index), then time both paths
        first_search(ToolSearch(load_catalog(str(file), cache=True)))
        warm = load_catalog(str(file), cache=True)
        ts_file = ToolSearch(warm)
        first_search(ts_file)
        LiveToolSearch(source, start=False)  # puts the namespace (by its digest) in the node's cache
        timings: dict[str, list[float]] = {"file": [], "cold": [], "warm": [], "read_cold": []}
        for _ in range(2):
            t0 = time.perf_counter()
            ts_file = ToolSearch(load_catalog(str(file), cache=True))
            first_search(ts_file)
            timings["file"].append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            snap = store.read_snapshot(source)  # no cache: every row fetched and validated
            timings["read_cold"].append(time.perf_counter() - t0)
            first_search(ToolSearch(Catalog(tools=snap.tools, resident=snap.resident, groups=snap.groups)))
            timings["cold"].append(time.perf_counter() - t0)
            del snap
            t0 = time.perf_counter()
            node = LiveToolSearch(source, start=False)  # the digest checked, the tools from the cache
            first_search(node)
            timings["warm"].append(time.perf_counter() - t0)
        load = {k: min(v) for k, v in timings.items()}

        # apply a push of N changed tools to a running node
        node = LiveToolSearch(source, poll_interval=0.5)
        first_search(node)
        changed = list(tools)
        step = max(1, len(changed) // args.changed)
        for i in range(0, step * args.changed, step):
            t = changed[i]
            changed[i] = t.copy_with(description=f"{t.description} recalibrated harbour tide gauge {i}")
        new_catalog = Catalog(tools=changed)
        t0 = time.perf_counter()
        plan = store.push(url, new_catalog, "big")
        committed = time.perf_counter()
        assert node.wait_for(plan.version or 0, 30)
        first_search(node)  # the manager's ranker index brought up to date
        applied_s = time.perf_counter() - committed
        push_changed_s = committed - t0

        fresh = ToolSearch(Catalog(tools=list(changed)))
        probe = [*queries[:90], *(f"recalibrated harbour tide gauge {i}" for i in range(0, step * 10, step))]
        equal = 0
        for query in probe:
            a = ts_names(node, query, messages)
            b = ts_names(fresh, query, messages)
            equal += a == b

        # search latency
        def latencies(ts: ToolSearch) -> tuple[float, float]:
            request = ts.request(messages)
            for query in queries[:50]:
                ts.handle("toolSearch", {"query": query, "maxResults": 5}, request)
            times = []
            for query in queries[50:300]:
                t = time.perf_counter()
                ts.handle("toolSearch", {"query": query, "maxResults": 5}, ts.request(messages))
                times.append((time.perf_counter() - t) * 1000)
            times.sort()
            return statistics.median(times), times[int(len(times) * 0.95)]

        rounds = [(latencies(fresh), latencies(node)) for _ in range(3)]  # alternated: noise hits both
        mem_p = min(r[0] for r in rounds)
        live_p = min(r[1] for r in rounds)
        node.close()
        stopped_p = latencies(node)  # the same node, its watcher stopped
        fresh_node = LiveToolSearch(source, start=False)
        fresh_p = latencies(fresh_node)

    print(f"tools: {len(tools)}; initial push {push_s:.1f} s")
    print(
        f"load to first search (best of 2): file via its cache {load['file']:.2f} s; registry, digest in the "
        f"node's cache {load['warm']:.2f} s ({load['warm'] / load['file']:.2f}x); registry cold "
        f"{load['cold']:.2f} s ({load['cold'] / load['file']:.2f}x, of which fetch + validation "
        f"{load['read_cold']:.2f} s)"
    )
    print(
        f"push of {args.changed} changed tools: {push_changed_s:.2f} s to commit; "
        f"node applied and answering {applied_s:.2f} s after the commit "
        f"({node.applied} in place, {node.rebuilt} rebuilt)"
    )
    print(f"rankings equal to a fresh load: {equal}/{len(probe)} queries")
    print(
        f"toolSearch p50/p95 ms: registry-backed {live_p[0]:.2f}/{live_p[1]:.2f}, "
        f"in-memory {mem_p[0]:.2f}/{mem_p[1]:.2f}; the registry-backed node with its watcher stopped "
        f"{stopped_p[0]:.2f}/{stopped_p[1]:.2f}; a fresh registry-backed node {fresh_p[0]:.2f}/{fresh_p[1]:.2f}"
    )
    return 0


def ts_names(ts: object, query: str, messages: list) -> list[str]:
    request = ts.request(messages)  # type: ignore[attr-defined]
    content = json.loads(ts.handle("toolSearch", {"query": query, "maxResults": 10}, request).content or "[]")  # type: ignore[attr-defined]
    return content if isinstance(content, list) else content.get("names", [])


if __name__ == "__main__":
    sys.exit(main())
