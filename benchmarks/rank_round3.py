"""Round 3 of issue 32's ranking work: every group in one process, per variant of the default ranker.

Usage:
    python -m benchmarks ablate-groups                                   # every variant below
    python -m benchmarks ablate-groups --variants current,"no label bonus" --metatool-every 5
    python -m benchmarks ablate-groups --no-dev --extra "share 0.6={'LABEL_SHARE': 0.6}"

Per variant (module constants of ``toolsearch_cli.search.bm25f`` patched as ``ablate.patched`` does):
mean MRR@10 per group of the real catalogs as ``real_quality.py`` computes it (per catalog, then
over the catalogs of a group: realworld-dev OpenAPI and MCP, the project's real set OpenAPI and
MCP, the blind requests, the held-out catalogs, blind sets 4, 5 and 6's OpenAPI and MCP groups) and R@5 of
the six dev sets (../shared/eval).
The figures of benchmarks/notes/ranking-round3.md come from this script.
"""

from __future__ import annotations

import ast
import statistics
from pathlib import Path
from typing import Any

from benchmarks import ablate, options, real_quality
from benchmarks.common import load_set
from toolsearch_cli.evaluate import query_metrics

VARIANTS: dict[str, dict[str, Any]] = {
    "current": {},
    "no label bonus": {"LABEL_SHARE": 0.0},
}


def group_mrr(entries) -> dict[str, float]:
    per: dict[str, list[float]] = {}
    for entry in entries:
        run = ablate.default_run(entry.catalog)
        mrr = [query_metrics(run(q), rel, (5,))["mrr"] for q, rel in entry.queries]
        per.setdefault(entry.group, []).append(statistics.fmean(mrr))
    return {g: statistics.fmean(v) for g, v in per.items()}


def main() -> int:
    parser = options.parser(__doc__)
    parser.add_argument("--variants", default=",".join(VARIANTS))
    options.add_cache(parser)
    options.add_shared(parser)
    parser.add_argument("--metatool-every", type=int, default=1, help="every n-th metatool query (screening)")
    parser.add_argument("--no-dev", action="store_true", help="real catalogs only")
    parser.add_argument("--extra", action="append", default=[], help="label={'LABEL_SHARE': 0.3}")
    args = parser.parse_args()
    for text in args.extra:
        label, _, literal = text.partition("=")
        VARIANTS[label] = ast.literal_eval(literal)
        args.variants += "," + label
    real = real_quality.load_sets(list(real_quality.TUNING_SETS), args.cache)
    split = [n for n in real_quality.TUNING_SETS if n not in real_quality.OPENAPI_ONLY_SETS]
    split = ["shared", "project"] + [n for n in split if n not in ("shared", "project")]
    dev = {} if args.no_dev else {name: load_set(Path(args.shared) / "eval" / name) for name in options.SETS}
    if "metatool" in dev and args.metatool_every > 1:
        catalog, queries = dev["metatool"]
        dev["metatool"] = (catalog, queries[:: args.metatool_every])
    head = "| variant |" + "".join(f" {n} OA | {n} MCP |" for n in split[:2]) + " blind | held-out |"
    head += "".join(f" {n} OA | {n} MCP |" for n in split[2:])
    head += "".join(f" {s} |" for s in dev) + (" dev mean |" if dev else "")
    print(head)
    print("|---" + "|---:" * (head.count("|") - 2) + "|")
    for label in args.variants.split(","):
        with ablate.patched(**VARIANTS[label]):
            cells = []
            for name in split[:2]:
                r = group_mrr(real[name])
                cells += [f"{r.get(g, float('nan')):.3f}" for g in ("openapi", "mcp")]
            cells += [f"{group_mrr(real[name]).get('openapi', float('nan')):.3f}" for name in ("blind", "heldout")]
            for name in split[2:]:
                r = group_mrr(real.get(name, []))
                cells += [f"{r.get(g, float('nan')):.3f}" for g in ("openapi", "mcp")]
            if dev:
                d = ablate.measure(dev, ablate.default_run)
                cells += [f"{d[s]['recall@5']:.3f}" for s in d]
                cells.append(f"{statistics.fmean(r['recall@5'] for r in d.values()):.3f}")
        print(f"| {label} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
