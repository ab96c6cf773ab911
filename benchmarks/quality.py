"""Retrieval quality of the built-in rankers on the dev sets in ../shared/eval.

Usage: python -m benchmarks quality [--shared PATH] [--ranker default,classic] [--sets a,b] [--limit N]
Prints one row per set and ranker (R@1, R@5, R@10, NDCG@5, MRR, ms/query) and the
reference `bm25` rows of shared/eval/README.md beside ours.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from benchmarks import options
from benchmarks.common import load_set
from toolsearch_cli.evaluate import evaluate

# The reference BM25 rows (R@1, R@5, R@10, NDCG@5, MRR) from shared/eval/README.md.
REFERENCE_BM25 = {
    "bfcl_static": (0.666, 0.916, 0.955, 0.841, 0.842),
    "metatool": (0.390, 0.556, 0.610, 0.481, 0.471),
    "seal_tools": (0.441, 0.878, 0.937, 0.884, 0.974),
    "toolbench_g3": (0.281, 0.564, 0.743, 0.573, 0.831),
    "ultratool_en": (0.266, 0.650, 0.796, 0.565, 0.654),
    "ultratool_zh": (0.308, 0.648, 0.808, 0.585, 0.685),
}


def main() -> int:
    parser = options.parser(__doc__)
    options.add_shared(parser)
    options.add_rankers(parser, "default,classic", flag="--ranker")
    options.add_sets(parser)
    options.add_limit(parser, help="N queries of each set, evenly spaced (0: all; the bm25 reference rows are of all)")
    args = parser.parse_args()
    root = Path(args.shared) / "eval"
    if not root.is_dir():
        print(f"no eval sets at {root}", file=sys.stderr)
        return 2
    rankers = args.ranker.split(",")
    header = f"{'set':<13} {'ranker':<8} {'R@1':>6} {'R@5':>6} {'R@10':>6} {'NDCG@5':>7} {'MRR':>6} {'ms/q':>7}"
    print(f"{header} {'vs bm25 R@5':>12}")
    means: dict[str, list[float]] = {r: [] for r in rankers}
    for name in args.sets.split(","):
        start = time.perf_counter()
        catalog, queries = load_set(root / name)
        queries = options.spaced(queries, args.limit)
        load_s = time.perf_counter() - start
        ref = REFERENCE_BM25[name]
        print(f"{name:<13} {'bm25ref':<8} {ref[0]:>6.3f} {ref[1]:>6.3f} {ref[2]:>6.3f} {ref[3]:>7.3f} {ref[4]:>6.3f}")
        for ranker in rankers:
            m = evaluate(catalog, queries, ranker, ks=(1, 5, 10)).as_dict()
            means[ranker].append(m["recall@5"])
            delta = m["recall@5"] - ref[1]
            print(
                f"{name:<13} {ranker:<8} {m['recall@1']:>6.3f} {m['recall@5']:>6.3f} {m['recall@10']:>6.3f} "
                f"{m['ndcg@5']:>7.3f} {m['mrr']:>6.3f} {m['ms_per_query']:>7.2f} {delta:>+12.3f}"
            )
        print(f"{'':<13} (load {load_s:.2f}s, {len(catalog)} tools, {len(queries)} queries)")
    ref_mean = sum(r[1] for r in REFERENCE_BM25.values()) / len(REFERENCE_BM25)
    for ranker, values in means.items():
        if len(values) == len(REFERENCE_BM25):
            print(f"mean R@5 {ranker}: {sum(values) / len(values):.3f} (bm25 reference {ref_mean:.3f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
