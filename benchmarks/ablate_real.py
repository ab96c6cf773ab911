"""Ablations of the default ranker on the dev sets and the real-catalog set together (issue 18).

Usage:
    python -m benchmarks ablate-real                          # every variant below
    python -m benchmarks ablate-real --variants current,"no nested field"

Each variant patches module constants of ``toolsearch_cli.search.bm25f`` (as ``ablate.py`` does),
clears every built index and runs every query of the six dev sets (R@5 and MRR, ../shared/eval),
of benchmarks/real_catalogs and of ../shared/eval/realworld-dev (MRR per group, catalog means;
``real_quality.load_shared``). A change is kept only when it holds on all of them (issue 32: real
catalogs first, each dev set may lose at most 0.01 R@5).
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

from benchmarks import ablate, options, real_quality
from benchmarks.common import load_set
from benchmarks.real_catalogs import dataset
from toolsearch_cli.evaluate import query_metrics

HERE = Path(__file__).resolve().parent

VARIANTS: dict[str, dict[str, Any]] = {
    "current": {},
    "no boilerplate list": {"BOILERPLATE_PARAMS": frozenset()},
    "pagination only": {
        "BOILERPLATE_PARAMS": frozenset(
            "page perpage pagesize pagenumber pagetoken nextpagetoken nexttoken continuationtoken cursor "
            "startingafter endingbefore startcursor nextcursor expand".split()
        )
    },
    "header and cookie parameters kept": {"SKIP_TRANSPORT_PARAMS": False},
    "no method verbs": {"METHOD_VERBS": {}},
    "markup kept": {"STRIP_MARKUP": False},
    "addresses dropped too": {"STRIP_URLS": True},
    "no generated field": {"GENERATED_FIELD": False},
    "no coverage bonus": {"COVER_SHARE": 0.0},
    "all of issue 18 undone": {
        "BOILERPLATE_PARAMS": frozenset(),
        "SKIP_TRANSPORT_PARAMS": False,
        "METHOD_VERBS": {},
        "STRIP_MARKUP": False,
        "GENERATED_FIELD": False,
    },
    # issue 32
    "no parameter cap": {"PARAM_CAP_OWN": None},
    "no value weight": {"VALUE_WEIGHT": 1.0},
    "no related words": {"RELATED_WEIGHT": 0.0},
    "issue 32 undone": {"PARAM_CAP_OWN": None, "VALUE_WEIGHT": 1.0, "RELATED_WEIGHT": 0.0},
}


def _extra(text: str) -> tuple[str, dict[str, Any]]:
    """``label=python literal`` (a dict of ablate.patched arguments) from the command line."""
    import ast

    label, _, literal = text.partition("=")
    patch = ast.literal_eval(literal)
    return label, {
        k: frozenset(v) if isinstance(v, set) else tuple(v) if isinstance(v, list) else v for k, v in patch.items()
    }


def real_scores(entries) -> dict[str, float]:
    per_group: dict[str, list[float]] = {"openapi": [], "mcp": []}
    for entry in entries:
        run = ablate.default_run(entry.catalog)
        mrr = [query_metrics(run(q), rel, (5,))["mrr"] for q, rel in entry.queries]
        per_group[entry.group].append(statistics.fmean(mrr))
    return {group: statistics.fmean(values) for group, values in per_group.items() if values}


def heldout_scores(entries) -> tuple[float, float]:
    """MRR and R@5 over every held-out request (Kubernetes, and issue 19's Docker Engine, Mastodon, Hetzner)."""
    mrr, r5 = [], []
    for entry in entries:
        run = ablate.default_run(entry.catalog)
        for q, rel in entry.queries:
            m = query_metrics(run(q), rel, (5,))
            mrr.append(m["mrr"])
            r5.append(m["recall@5"])
    return statistics.fmean(mrr), statistics.fmean(r5)


def main() -> int:
    parser = options.parser(__doc__)
    parser.add_argument("--variants", default=",".join(VARIANTS))
    options.add_shared(parser)
    options.add_sets(parser)
    options.add_cache(parser)
    parser.add_argument("--metatool-every", type=int, default=1, help="use every n-th metatool query (screening)")
    parser.add_argument("--no-real", action="store_true", help="skip the real-catalog dev set")
    parser.add_argument("--no-heldout", action="store_true", help="skip the held-out catalogs")
    parser.add_argument("--extra", action="append", default=[], help="label={'spec_params': [1.0, 0.5, 1e9, 1]}")
    args = parser.parse_args()
    for text in args.extra:
        label, patch = _extra(text)
        VARIANTS[label] = patch
        args.variants += "," + label
    sets = {name: load_set(Path(args.shared) / "eval" / name) for name in args.sets.split(",") if name}
    if "metatool" in sets and args.metatool_every > 1:
        catalog, queries = sets["metatool"]
        sets["metatool"] = (catalog, queries[:: args.metatool_every])
    entries = [] if args.no_real else dataset.load(args.cache)
    shared = [] if args.no_real else real_quality.load_shared()
    held = [] if args.no_heldout else dataset.load(args.cache, heldout=True)
    print(
        "| variant | "
        + " | ".join(sets)
        + " | dev mean R@5 | real OpenAPI MRR | real MCP MRR | shared OpenAPI MRR | shared MCP MRR"
        + " | held-out MRR / R@5 |"
    )
    print("|---|" + "---|" * len(sets) + "---:|---:|---:|---:|---:|---:|")
    for label in args.variants.split(","):
        with ablate.patched(**VARIANTS[label]):
            dev = ablate.measure(sets, ablate.default_run)
            real = real_scores(entries) if entries else {}
            dev_real = real_scores(shared) if shared else {}
            k8s = heldout_scores(held) if held else None
        cells = " | ".join(f"{dev[s]['recall@5']:.3f} / {dev[s]['mrr']:.3f}" for s in dev)
        mean = statistics.fmean(r["recall@5"] for r in dev.values()) if dev else float("nan")
        real_cells = " | ".join(f"{r[g]:.3f}" if g in r else "" for r in (real, dev_real) for g in ("openapi", "mcp"))
        held_cell = f"{k8s[0]:.3f} / {k8s[1]:.3f}" if k8s else ""
        print(f"| {label} | {cells} | {mean:.3f} | {real_cells} | {held_cell} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
