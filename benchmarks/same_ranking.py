"""Same ranking: the default ranker of this checkout against that of a git revision, query by query.

For changes meant to make the default ranker faster without changing what it returns. Both
versions run in one process: the revision's ``toolsearch_cli`` is extracted (``git archive``)
into a temporary folder under another package name and imported beside this checkout's.

* every query of every dev set in ../shared/eval and of ../shared/eval/realworld-dev, ranked as
  the ``default`` ranker ranks (``rank_index``: sentences, parameter cap, coverage bonus), on both
  index backends (python and numpy),
  also restricted to the category of the query's best tool: the best ``--depth`` tools must be
  the same names in the same order with the same scores (to 1e-9 relative), and the same
  ``--explain`` contributions for the first five. Per-term weights (what explanations are made
  of) that differ are counted apart, with which version's explanation adds up to the score;
* the synthetic seal_tools replicas of ``scale.py`` (``--sizes``), all seal_tools queries;
* then, on the largest replica, per-query latency of both (top 5, as ``scale.py`` times it),
  old and new alternating query by query so the machine's other load hits both alike.

Usage: ``python -m benchmarks same-ranking --base main [--sizes 100000] [--rounds 3]``.
Exit status 1 when any ranking differs.
"""

from __future__ import annotations

import importlib
import importlib.util
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path
from typing import Any

from benchmarks import options
from benchmarks.common import ROOT, load_set
from toolsearch_cli.search import bm25f as new

TOLERANCE = 1e-9


def base_module(revision: str, folder: Path) -> Any:
    """The revision's ``toolsearch_cli.search.bm25f``, imported as ``toolsearch_base.search.bm25f``."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", revision, "toolsearch_cli"], capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    (folder / "toolsearch_cli").rename(folder / "toolsearch_base")
    package = folder / "toolsearch_base"
    spec = importlib.util.spec_from_file_location(
        "toolsearch_base", package / "__init__.py", submodule_search_locations=[str(package)]
    )
    assert spec is not None and spec.loader is not None
    sys.modules["toolsearch_base"] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sys.modules["toolsearch_base"])
    return importlib.import_module("toolsearch_base.search.bm25f")


def close(a: float, b: float) -> bool:
    return abs(a - b) <= TOLERANCE * max(1.0, abs(a), abs(b))


class Tally:
    def __init__(self) -> None:
        self.rankings = 0
        self.bitwise = 0
        self.failures: list[str] = []
        #: rankings equal but some tool's term weights not: (label, whose explanation adds up to the score)
        self.weights: list[tuple[str, str]] = []

    def compare(self, label: str, old: list[Any], ours: list[Any], adds_up: Any) -> None:
        """``adds_up(version, tool, score, weights)``: whether the explanation of a hit sums to its score."""
        self.rankings += 1
        names_old = [t.name for t, _, _ in old]
        names_new = [t.name for t, _, _ in ours]
        if names_old != names_new:
            self.failures.append(f"{label}: names differ: {names_old[:5]} vs {names_new[:5]}")
            return
        for (tool, s_old, _), (_, s_new, _) in zip(old, ours, strict=True):
            if not close(s_old, s_new):
                self.failures.append(f"{label}: {tool.name} scores {s_old!r} vs {s_new!r}")
                return
        for (tool, score, w_old), (_, _, w_new) in zip(old, ours, strict=True):
            if w_old.keys() != w_new.keys() or not all(close(w_old[t], w_new[t]) for t in w_old):
                good = [v for v, w in (("base", w_old), ("new", w_new)) if adds_up(v, tool, score, w)]
                self.weights.append((f"{label}: {tool.name}", "+".join(good) or "neither"))
                break
        if [s for _, s, _ in old] == [s for _, s, _ in ours]:
            self.bitwise += 1


def ranked(mod: Any, index: Any, query: str, k: int, allowed: Any = None, *, explain: bool = False) -> list[Any]:
    """What the default ranker ranks (before an exact name is put first): (tool, score, weights)."""
    plan = mod.query_plan(query)
    return mod.rank_index(index, plan, k, allowed, explain=explain)[0] if plan.terms else []


def compare_catalog(label: str, old_mod: Any, tools: list[Any], queries: list[str], depth: int, tally: Tally) -> None:
    backends = ("python", "numpy") if len(tools) < 20000 else ("numpy",)
    for backend in backends:
        old_index = old_mod.build_index(tools, backend=backend)
        new_index = new.build_index(tools, backend=backend)

        def adds_up(
            version: str,
            tool: Any,
            score: float,
            weights: dict[str, float],
            old_index: Any = old_index,
            new_index: Any = new_index,
        ) -> bool:
            mod, index = (old_mod, old_index) if version == "base" else (new, new_index)
            points = sum(c.points for c in mod.explain(index, tool, list(weights), {}, weights)[1])
            return close(points, score)

        for i, query in enumerate(queries):
            tally.compare(
                f"{label} {backend} query {i}",
                ranked(old_mod, old_index, query, depth),
                ranked(new, new_index, query, depth),
                adds_up,
            )
            old = ranked(old_mod, old_index, query, depth, explain=True)
            ours = ranked(new, new_index, query, depth, explain=True)
            tally.compare(f"{label} {backend} query {i} explained", old, ours, adds_up)
            for (tool, _, w_old), (_, _, w_new) in zip(old[:5], ours[:5], strict=False):
                explained_old = old_mod.explain(old_index, tool, list(w_old), {}, w_old)
                explained_new = new.explain(new_index, tool, list(w_new), {}, w_new)
                if w_old == w_new and (
                    explained_old[0] != explained_new[0]
                    or [(c.term, c.field, round(c.points, 9)) for c in explained_old[1]]
                    != [(c.term, c.field, round(c.points, 9)) for c in explained_new[1]]
                ):
                    tally.failures.append(f"{label} {backend} query {i}: explanation of {tool.name} differs")
            category = old[0][0].category if old else None
            if category:
                tally.compare(
                    f"{label} {backend} query {i} in {category!r}",
                    ranked(old_mod, old_index, query, depth, old_index.category_slots(category)),
                    ranked(new, new_index, query, depth, new_index.category_slots(category)),
                    adds_up,
                )


def realworld(root: Path) -> list[tuple[str, Any, list[str]]]:
    """(name, catalog, requests) of each catalog of ../shared/eval/realworld-dev (none without it)."""
    import yaml

    from toolsearch_cli import load_catalog

    if not root.is_dir():
        print(f"realworld-dev: skipped, {root} is absent", flush=True)
        return []
    out = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        found = sorted(folder.glob("catalog.*"))
        if found and (folder / "queries.yaml").is_file():
            items = yaml.safe_load((folder / "queries.yaml").read_text(encoding="utf-8")) or []
            out.append((folder.name, load_catalog([str(found[0])]), [str(item["query"]) for item in items]))
    return out


def time_both(old_mod: Any, tools: list[Any], queries: list[str], rounds: int) -> None:
    old_index = old_mod.build_index(tools)
    new_index = new.build_index(tools)
    warm, timed = queries[:100], queries[100:600]
    for q in warm:
        ranked(old_mod, old_index, q, 5)
        ranked(new, new_index, q, 5)
    for r in range(rounds):
        times: dict[str, list[float]] = {"base": [], "new": []}
        for i, q in enumerate(timed):
            order = [("base", old_mod, old_index), ("new", new, new_index)]
            for label, mod, index in order if (i + r) % 2 else order[::-1]:
                start = time.perf_counter()
                ranked(mod, index, q, 5)
                times[label].append(1000 * (time.perf_counter() - start))
        p50 = {k: statistics.median(v) for k, v in times.items()}
        p95 = {k: sorted(v)[int(0.95 * len(v)) - 1] for k, v in times.items()}
        print(
            f"  round {r + 1}: p50 base {p50['base']:.2f} ms, new {p50['new']:.2f} ms "
            f"(x{p50['new'] / p50['base']:.2f}); p95 base {p95['base']:.2f} ms, new {p95['new']:.2f} ms "
            f"(x{p95['new'] / p95['base']:.2f})",
            flush=True,
        )


def main() -> int:
    parser = options.parser(__doc__)
    parser.add_argument("--base", default="main", help="git revision to compare against")
    options.add_shared(parser)
    options.add_sets(parser)
    parser.add_argument("--sizes", default="100000", help="synthetic replica sizes ('' for none)")
    parser.add_argument("--depth", type=int, default=50)
    options.add_limit(parser)
    parser.add_argument("--rounds", type=int, default=3, help="timing rounds on the largest replica (0: none)")
    args = parser.parse_args()
    eval_root = Path(args.shared) / "eval"
    with tempfile.TemporaryDirectory() as tmp:
        old_mod = base_module(args.base, Path(tmp))
        tally = Tally()
        for name in filter(None, args.sets.split(",")):
            catalog, queries = load_set(eval_root / name)
            queries = queries[: args.limit or None]
            compare_catalog(name, old_mod, catalog.searchable(), [q.query for q in queries], args.depth, tally)
            print(f"{name}: {tally.rankings} rankings compared so far, {len(tally.failures)} differ", flush=True)
        for name, catalog, queries in realworld(eval_root / "realworld-dev"):
            compare_catalog(name, old_mod, catalog.searchable(), queries, args.depth, tally)
            print(f"{name}: {tally.rankings} rankings compared so far, {len(tally.failures)} differ", flush=True)
        sizes = [int(s) for s in args.sizes.split(",") if s]
        if sizes:
            from benchmarks.scale import synthetic_tools
            from toolsearch_cli.evaluate import load_queries

            seal = eval_root / "seal_tools"
            queries = [q.query for q in load_queries(seal / "queries.yaml")]
            for size in sizes:
                tools = synthetic_tools(seal, size)
                compare_catalog(f"replica {size}", old_mod, tools, queries[: args.limit or None], args.depth, tally)
                print(f"replica {size}: {tally.rankings} rankings compared so far, {len(tally.failures)} differ")
            if args.rounds:
                print(f"latency on the {max(sizes):,}-tool replica (base = {args.base}):")
                time_both(old_mod, synthetic_tools(seal, max(sizes)), queries, args.rounds)
        for failure in tally.failures[:20]:
            print("DIFFERS:", failure)
        print(
            f"{tally.rankings} rankings (top {args.depth}) compared: {len(tally.failures)} differ, "
            f"{tally.bitwise} with bit-for-bit equal scores"
        )
        if tally.weights:
            counts: dict[str, int] = {}
            for _, good in tally.weights:
                counts[good] = counts.get(good, 0) + 1
            print(
                f"{len(tally.weights)} rankings with the same tools and scores have other term weights "
                f"(what --explain shows); whose explanation adds up to the score: {counts}; "
                f"first: {tally.weights[0][0]}"
            )
        return 1 if tally.failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
