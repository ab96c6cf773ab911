"""Scale: synthetic catalogs of 1k / 10k / 100k tools, our index beside bm25s and tantivy.

The catalogs replicate ``seal_tools`` (4,076 tools) with perturbed text: every copy after the
first gets a new name suffix, and 15% of its description and parameter-description words are
replaced by random words of the catalog's vocabulary (5% dropped). Queries are seal_tools' own
queries: 500 timed, after 100 others as warm-up (so caches hold the common terms, as in a
long-running process, but never the exact timed queries).

Each (engine, size) runs in a fresh child process so memory figures do not mix:
* build: seconds to index the tools (from Tool objects for us, including analysis; from
  pre-extracted text for the peers, including their tokenisation), best of three builds;
* p50 / p95: milliseconds per query, top 5, one thread;
* memory: growth of the process's resident set (RSS) from before the first build to after the
  queries, in MiB, so it covers the index and whatever caches the queries filled (the extra
  timing builds run after this reading).

Run through ``benchmarks/harness.py --part scale`` or alone:
``python -m benchmarks scale --sizes 1000,10000``.

``--cold 100000,1000000`` (issue 20) measures what a user waits for instead: ``toolsearch search``
in a fresh process on a catalog file it has never seen (JSON; over 64 MB, the size a file may
have, a folder of 100,000-tool files), against a fresh process that loads the same JSON with
``json.load``, extracts the same texts and builds a bm25s index (load + index), in the same run,
alternating. Each figure is a child's wall time, its CPU time and its peak resident set
(``wait4``), with the machine's 1-minute load average when it started; the best of ``--repeat``
runs. Rows: ``cold`` (no cache: ``TOOLSEARCH_NO_CACHE=1``), ``first`` (an empty cache: parsing,
indexing and writing the cache), ``warm`` (the cache written by ``first``).

The children run with compiled bytecode, as an installed package does (pip writes ``.pyc``
files): the package is compiled once into a temporary ``PYTHONPYCACHEPREFIX`` before the runs,
even where ``PYTHONDONTWRITEBYTECODE`` is set (it is on the benchmark machine; compiling the
package's sources at every start cost 0.5 s of each run).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchmarks import options

HERE = Path(__file__).resolve().parent
ENGINES = ("default", "default+explain", "bm25s", "tantivy")
#: Extra builds per engine; the build figure is the fastest (the machine's other load is noise).
REBUILDS = 2


def rss_mib() -> float:
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def synthetic_tools(seal_dir: Path, size: int, seed: int = 7) -> list:
    from toolsearch_cli import load_catalog
    from toolsearch_cli.model import Tool

    base = load_catalog([str(seal_dir / "catalog.yaml")]).searchable()
    rng = random.Random(seed)
    vocabulary = sorted({w for t in base for w in t.description.split()})

    def perturb(text: str) -> str:
        out = []
        for word in text.split():
            roll = rng.random()
            if roll < 0.05:
                continue
            out.append(rng.choice(vocabulary) if roll < 0.20 else word)
        return " ".join(out)

    tools = []
    copy = 0
    while len(tools) < size:
        for tool in base:
            if len(tools) >= size:
                break
            if copy == 0:
                tools.append(tool)
                continue
            params = json.loads(json.dumps(tool.parameters))
            for prop in (params.get("properties") or {}).values():
                if isinstance(prop, dict) and isinstance(prop.get("description"), str):
                    prop["description"] = perturb(prop["description"])
            tools.append(
                Tool(
                    name=f"{tool.name}_{copy}",
                    description=perturb(tool.description),
                    parameters=params,
                    category=tool.category,
                    tags=list(tool.tags),
                )
            )
        copy += 1
    return tools


def child(engine: str, size: int, seal_dir: Path, nqueries: int) -> dict:
    from toolsearch_cli.evaluate import load_queries

    tools = synthetic_tools(seal_dir, size)
    queries = [q.query for q in load_queries(seal_dir / "queries.yaml")]
    warm, timed = queries[:100], queries[100 : 100 + nqueries]
    if engine.startswith("default"):
        import numpy  # noqa: F401  - library import is not build time (bm25s imports it on import)

        from toolsearch_cli.search.bm25f import build_index, explain, query_plan, rank_index

        gc.collect()
        before = rss_mib()
        start = time.perf_counter()
        index = build_index(tools)
        build = time.perf_counter() - start

        def rebuild() -> None:
            build_index(tools)

        with_explain = engine.endswith("explain")

        def run(q: str) -> None:  # what the ranker does: sentences, parameter cap and coverage bonus included
            best, _, _ = rank_index(index, query_plan(q), 5, explain=with_explain)
            if with_explain:
                for tool, _, weights in best:
                    explain(index, tool, list(weights), {}, weights)

        backend = index.backend
    else:
        from benchmarks.peers import Bm25sPeer, TantivyPeer, tool_text

        names = [t.name for t in tools]
        texts = [tool_text(t) for t in tools]  # extracted before the timer: peers index plain text

        def make() -> Bm25sPeer | TantivyPeer:
            return Bm25sPeer(names, texts, cjk=False) if engine == "bm25s" else TantivyPeer(names, texts)

        gc.collect()
        before = rss_mib()
        start = time.perf_counter()
        peer = make()
        build = time.perf_counter() - start

        def rebuild() -> None:
            make()

        def run(q: str) -> None:
            peer.search(q, 5)

        backend = ""
    for q in warm:
        run(q)
    times = []
    for q in timed:
        start = time.perf_counter()
        run(q)
        times.append(1000 * (time.perf_counter() - start))
    gc.collect()
    after = rss_mib()
    times.sort()
    change_ms = first_after_change_ms = None
    if engine == "default":
        # A catalog changing at run time: one tool added and one removed, then the next query
        # (which re-scores its terms lazily); measured on the live index, no rebuild involved.
        extra = tools[0].copy_with(name="addedAtRunTime")
        start = time.perf_counter()
        index.add(extra)
        index.remove(tools[1].name)
        change_ms = 1000 * (time.perf_counter() - start)
        start = time.perf_counter()
        run(timed[0])
        first_after_change_ms = 1000 * (time.perf_counter() - start)
    for _ in range(REBUILDS):  # after the memory reading, so the extra builds cannot affect it
        start = time.perf_counter()
        rebuild()
        build = min(build, time.perf_counter() - start)
    return {
        "engine": engine,
        "size": size,
        "backend": backend,
        "build_s": build,
        "p50_ms": statistics.median(times),
        "p95_ms": times[int(0.95 * len(times)) - 1],
        "memory_mib": after - before,
        "change_ms": change_ms,
        "first_after_change_ms": first_after_change_ms,
    }


def run(seal_dir: Path, sizes: list[int], nqueries: int) -> bool:
    rows = []
    for size in sizes:
        for engine in ENGINES:
            proc = subprocess.run(
                [sys.executable, "-m", "benchmarks.scale", "--child", engine, str(size), str(seal_dir), str(nqueries)],
                cwd=HERE.parent,
                capture_output=True,
                text=True,
            )
            if proc.returncode != 0:
                print(proc.stderr, file=sys.stderr)
                raise SystemExit(f"scale child {engine} {size} failed")
            row = json.loads(proc.stdout.strip().splitlines()[-1])
            rows.append(row)
            print(
                f"  {size:>7} {engine:<16} build {row['build_s']:.2f}s p50 {row['p50_ms']:.2f} ms "
                f"p95 {row['p95_ms']:.2f} ms mem {row['memory_mib']:.0f} MiB",
                file=sys.stderr,
                flush=True,
            )
    print(f"\n### Scale (synthetic seal_tools replicas; {nqueries} queries, top 5, warm, one thread)\n")
    print("| tools | engine | build s | p50 ms | p95 ms | memory MiB |")
    print("|---:|---|---:|---:|---:|---:|")
    for row in rows:
        label = f"**{row['engine']}**" if row["engine"] == "default" else row["engine"]
        if row["backend"]:
            label += f" ({row['backend']})"
        print(
            f"| {row['size']:,} | {label} | {row['build_s']:.2f} | {row['p50_ms']:.2f} | {row['p95_ms']:.2f} "
            f"| {row['memory_mib']:.0f} |"
        )
    changes = [r for r in rows if r.get("change_ms") is not None]
    if changes:
        print("\nRun-time changes to the default index (add one tool + remove one, then the next query):\n")
        print("| tools | add + remove ms | next query ms (terms re-scored lazily) |")
        print("|---:|---:|---:|")
        for row in changes:
            print(f"| {row['size']:,} | {row['change_ms']:.2f} | {row['first_after_change_ms']:.2f} |")
    ok = True
    largest = max(sizes)
    at = {r["engine"]: r for r in rows if r["size"] == largest}
    ours, bm25s, tantivy = at["default"], at["bm25s"], at["tantivy"]
    best_p50 = min(bm25s["p50_ms"], tantivy["p50_ms"])
    best_p95 = min(bm25s["p95_ms"], tantivy["p95_ms"])
    checks = [
        ("p50", ours["p50_ms"] / best_p50, 1.5, f"{ours['p50_ms']:.2f} ms vs best peer {best_p50:.2f} ms"),
        ("p95", ours["p95_ms"] / best_p95, 1.5, f"{ours['p95_ms']:.2f} ms vs best peer {best_p95:.2f} ms"),
        ("build", ours["build_s"] / bm25s["build_s"], 1.0, f"{ours['build_s']:.2f} s vs bm25s {bm25s['build_s']:.2f}"),
        ("memory", ours["memory_mib"] * 2**20 / 150e6, 1.0, f"{ours['memory_mib']:.0f} MiB vs 150 MB"),
    ]
    print(f"\nTargets at {largest:,} tools:")
    for label, ratio, limit, detail in checks:
        good = ratio <= limit
        ok &= good
        print(f"- {label}: {detail}: ratio {ratio:.2f} (limit {limit:.1f}) — {'met' if good else 'NOT met'}")
    return ok


# ------------------------------------------------------------------ cold start (issue 20)

#: Tools per file of a catalog written as a folder (a file may hold 64 MB; 100,000 tools are 51 MB).
FILE_TOOLS = 100_000
COLD_QUERY = "send an email to my boss"


def synthetic_source(args: argparse.Namespace) -> tuple[Path, Path] | None:
    """seal_tools' folder and the synthetic catalog of ``args.size`` tools under ``args.data``
    (:func:`benchmarks.options.add_scale`); ``None``, said, when ``args.shared`` has no seal_tools."""
    seal = Path(args.shared) / "eval" / "seal_tools"
    if not seal.is_dir():
        print(f"{seal} is not available")
        return None
    return seal, write_catalog(seal, args.size, Path(args.data))


def write_catalog(seal_dir: Path, size: int, root: Path) -> Path:
    """The synthetic catalog of ``size`` tools as toolsearch JSON (written once, then reused): one
    file up to :data:`FILE_TOOLS` tools, else a folder of such files."""
    target = root / (f"tools-{size}.json" if size <= FILE_TOOLS else f"tools-{size}")
    if target.exists():
        return target
    root.mkdir(parents=True, exist_ok=True)
    tools = synthetic_tools(seal_dir, size)
    rows = [
        {
            "name": t.name,
            "description": t.description,
            "parameters": t.parameters,
            "category": t.category,
            "tags": t.tags,
        }
        for t in tools
    ]
    del tools
    if size <= FILE_TOOLS:
        target.write_text(json.dumps({"tools": rows}), encoding="utf-8")
        return target
    partial = root / f"tools-{size}.partial"
    partial.mkdir(exist_ok=True)
    for i in range(0, size, FILE_TOOLS):
        (partial / f"part-{i // FILE_TOOLS:03d}.json").write_text(
            json.dumps({"tools": rows[i : i + FILE_TOOLS]}), encoding="utf-8"
        )
    partial.rename(target)
    return target


def bm25s_cold(source: Path, query: str) -> None:
    """A peer's cold start: json.load every file, the texts our peers index, a bm25s index, one query."""
    import bm25s

    files = sorted(source.glob("*.json")) if source.is_dir() else [source]

    def walk(schema: object, out: list[str], depth: int = 0) -> None:
        props = schema.get("properties") if isinstance(schema, dict) else None
        if not isinstance(props, dict) or depth > 32:
            return
        for name, sub in props.items():
            out.append(str(name))
            if isinstance(sub, dict):
                out.append(str(sub.get("description") or ""))
                walk(sub, out, depth + 1)
                if isinstance(sub.get("items"), dict):
                    walk(sub["items"], out, depth + 1)

    names: list[str] = []
    texts: list[str] = []
    for file in files:
        with open(file, encoding="utf-8") as f:
            data = json.load(f)
        for tool in data["tools"]:
            parts = [tool["name"], tool.get("description") or "", tool.get("category") or ""]
            parts.append(" ".join(tool.get("tags") or []))
            walk(tool.get("parameters") or {}, parts)
            names.append(tool["name"])
            texts.append("\n".join(parts))
        del data
    tokens = bm25s.tokenize(texts, stopwords="en", show_progress=False)
    del texts
    retriever = bm25s.BM25()
    retriever.index(tokens, show_progress=False)
    found = bm25s.tokenize([query], stopwords="en", show_progress=False, return_ids=False)
    docs, _ = retriever.retrieve([found[0]], k=3, show_progress=False, n_threads=1)
    print(json.dumps([names[d] for d in docs[0]]))


def measured(command: list[str], env: dict[str, str]) -> dict:
    """Run a child; its wall seconds, CPU seconds and peak RSS (MiB), and its stdout."""
    import tempfile

    with tempfile.TemporaryFile() as out:
        load = os.getloadavg()[0]
        start = time.perf_counter()
        proc = subprocess.Popen(command, stdout=out, stderr=subprocess.PIPE, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        err = proc.stderr.read().decode() if proc.stderr else ""
        out.seek(0)
        text = out.read().decode()
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(command[:4])}... failed ({proc.returncode}): {err.strip()[-500:]}")
    return {
        "wall_s": wall,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "peak_mib": usage.ru_maxrss / 1024,
        "load": load,
        "stdout": text,
    }


def _keeper(best: dict[str, dict], size: int):  # noqa: ANN202 - a closure for one size's runs
    def keep(label: str, row: dict) -> None:
        if label not in best or row["wall_s"] < best[label]["wall_s"]:
            best[label] = row
        print(
            f"  {size:>9,} {label:<6} {row['wall_s']:7.1f} s wall {row['cpu_s']:7.1f} s cpu {row['peak_mib']:6.0f} MiB"
            f" (load {row['load']:.1f})",
            file=sys.stderr,
            flush=True,
        )

    return keep


def cold(seal_dir: Path, sizes: list[int], repeat: int, root: Path) -> bool:
    import shutil
    import tempfile

    toolsearch = [sys.executable, "-m", "toolsearch_cli"]
    pycache = Path(tempfile.mkdtemp(prefix="toolsearch-pyc-"))
    base_env = {**os.environ, "PYTHONPATH": str(HERE.parent), "COLUMNS": "200", "PYTHONPYCACHEPREFIX": str(pycache)}
    base_env.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(HERE.parent / "toolsearch_cli")],
        env=base_env,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    rows = []
    ok = True
    for size in sizes:
        source = write_catalog(seal_dir, size, root)
        search = [*toolsearch, "search", COLD_QUERY, "-c", str(source), "-n", "3", "-f", "json"]
        best: dict[str, dict] = {}
        keep = _keeper(best, size)

        for _ in range(repeat):
            keep(
                "bm25s",
                measured([sys.executable, "-m", "benchmarks.scale", "--bm25s-cold", str(source), COLD_QUERY], base_env),
            )
            keep("cold", measured(search, {**base_env, "TOOLSEARCH_NO_CACHE": "1"}))
            cache = Path(tempfile.mkdtemp(prefix="toolsearch-cache-"))
            try:
                env = {**base_env, "TOOLSEARCH_CACHE_DIR": str(cache)}
                keep("first", measured(search, env))
                keep("warm", measured(search, env))
            finally:
                shutil.rmtree(cache, ignore_errors=True)
        hits = [h["name"] for h in json.loads(best["cold"]["stdout"])["hits"]]
        rows.append((size, best, hits))
    shutil.rmtree(pycache, ignore_errors=True)
    print("\n### Cold start (a fresh process per run; JSON catalog; best of", repeat, "runs)\n")
    print("| tools | run | wall s | CPU s | peak MiB | wall / bm25s | CPU / bm25s | load |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|")
    for size, best, _ in rows:
        peer = best["bm25s"]
        for label in ("bm25s", "cold", "first", "warm"):
            row = best[label]
            print(
                f"| {size:,} | {label} | {row['wall_s']:.1f} | {row['cpu_s']:.1f} | {row['peak_mib']:.0f} "
                f"| {row['wall_s'] / peer['wall_s']:.2f} | {row['cpu_s'] / peer['cpu_s']:.2f} | {row['load']:.1f} |"
            )
    print("\nTargets:")
    for size, best, hits in rows:
        checks = [("peak memory", best["cold"]["peak_mib"] * 2**20 / 1e9, 1.0 if size <= 100_000 else 4.0, "GB")]
        if size <= 100_000:
            checks.append(("cold wall / bm25s load+index", best["cold"]["wall_s"] / best["bm25s"]["wall_s"], 2.0, "x"))
            checks.append(("warm wall", best["warm"]["wall_s"], 1.0, "s"))
            checks.append(("warm CPU", best["warm"]["cpu_s"], 1.0, "s"))
        else:
            checks.append(("cold wall", best["cold"]["wall_s"], 120.0, "s"))
        for label, value, limit, unit in checks:
            good = value <= limit
            ok &= good
            print(f"- {size:,} tools, {label}: {value:.2f} {unit} (limit {limit:g}) — {'met' if good else 'NOT met'}")
        print(f"  ({size:,} tools: top 3 for {COLD_QUERY!r}: {', '.join(hits)})")
    return ok


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--bm25s-cold":
        bm25s_cold(Path(sys.argv[2]), sys.argv[3])
        raise SystemExit(0)
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        engine, size, seal, n = sys.argv[2], int(sys.argv[3]), Path(sys.argv[4]), int(sys.argv[5])
        print(json.dumps(child(engine, size, seal, n)))
    else:
        parser = options.parser(__doc__)
        options.add_shared(parser)
        parser.add_argument("--sizes", default="1000,10000,100000")
        parser.add_argument("--queries", type=int, default=500)
        parser.add_argument("--cold", metavar="SIZES", help="cold-start runs instead (issue 20), e.g. 100000,1000000")
        parser.add_argument("--repeat", type=int, default=2, help="runs of each cold-start figure (the best is kept)")
        data_help = "where the cold-start catalogs are written (once)"
        parser.add_argument("--data", default=str(options.SCALE_DATA), help=data_help)
        args = parser.parse_args()
        if args.cold:
            seal = Path(args.shared) / "eval" / "seal_tools"
            ok = cold(seal, [int(s) for s in args.cold.split(",")], args.repeat, Path(args.data))
            raise SystemExit(0 if ok else 1)
        ok = run(Path(args.shared) / "eval" / "seal_tools", [int(s) for s in args.sizes.split(",")], args.queries)
        raise SystemExit(0 if ok else 1)
