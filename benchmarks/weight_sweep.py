"""``hybrid``'s semantic share (``--embed-weight``) swept on the dev sets or the real catalogs.

Usage (an embedding model as for harness.py; the vector cache makes re-runs cheap):

    python -m benchmarks weight-sweep --embed-base-url http://127.0.0.1:8767/v1 \\
        --embed-model use-multilingual-v3-onnx --embed-multilingual --weights 0.5,0.4,0.3
    python -m benchmarks weight-sweep --embed-model ~/models/all-MiniLM-L6-v2-onnx --real

Each weight runs the shipped ``hybrid`` through its own ``search`` with ``EmbedSettings(weight=W)``;
``default``'s list is computed once per request and shared (the same list ``hybrid`` would compute).
Prints R@5 / MRR (depth 10, every request) per set and weight, and for ``--real`` the group means.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
from pathlib import Path
from typing import Any

from benchmarks import options
from benchmarks.common import load_set, ranked_names
from benchmarks.multiq import _MemoLexical, embed_views, score
from toolsearch_cli.search import get_ranker
from toolsearch_cli.search.bm25f import BM25FRanker
from toolsearch_cli.search.embed_settings import EmbedSettings

HERE = Path(__file__).resolve().parent

DEPTH = 10


def per_request(catalog: Any, queries: list[tuple[str, set[str]]], embed: EmbedSettings, weights: list[float],
                lexical: _MemoLexical) -> list[list[tuple[float, float]]]:  # fmt: skip
    """Each request's (R@5, MRR) under ``default``, then under ``hybrid`` at each weight."""
    embed_views(embed, [q for q, _ in queries], ["sent"])  # hybrid's views, embedded in batches
    runs = [score(ranked_names(BM25FRanker(), catalog, DEPTH), queries)]
    for weight in weights:
        ranker = get_ranker("hybrid", dataclasses.replace(embed, weight=weight))
        ranker.lexical = lexical
        runs.append(score(ranked_names(ranker, catalog, DEPTH), queries))
    return runs


def sweep(catalog: Any, queries: list[tuple[str, set[str]]], embed: EmbedSettings, weights: list[float],
          lexical: _MemoLexical) -> list[tuple[float, float]]:  # fmt: skip
    """(R@5, MRR) of ``default``, then of ``hybrid`` at each weight."""
    runs = per_request(catalog, queries, embed, weights, lexical)
    return [(statistics.fmean(m[0] for m in run), statistics.fmean(m[1] for m in run)) for run in runs]


def add_model_arguments(parser: argparse.ArgumentParser, weights: str) -> None:
    """The model and the weights to sweep, as options (this script's and heldml_lang.py's)."""
    parser.add_argument("--weights", default=weights)
    options.add_embed(parser)


def model_settings(args: argparse.Namespace) -> tuple[EmbedSettings, list[float]]:
    embed = EmbedSettings(
        model=args.embed_model, base_url=args.embed_base_url, multilingual=args.embed_multilingual, timeout=600
    )
    return embed, [float(w) for w in args.weights.split(",")]


def main() -> int:
    parser = options.parser(__doc__)
    options.add_shared(parser)
    options.add_sets(parser)
    parser.add_argument("--real", action="store_true", help="the real catalogs (and held-out) instead of the sets")
    add_model_arguments(parser, "0.5,0.45,0.4,0.35,0.3,0.25")
    args = parser.parse_args()
    embed, weights = model_settings(args)
    lexical = _MemoLexical()
    print("| set | requests | default | " + " | ".join(f"hybrid w={w:g}" for w in weights) + " |")
    print("|---|---:|" + "---|" * (len(weights) + 1))
    groups: dict[str, list[list[tuple[float, float]]]] = {}
    if args.real:
        from benchmarks.real_catalogs import dataset

        items = [
            (("held-out " if held else "") + entry.group, entry.id, entry.catalog, entry.queries)
            for held in (False, True)
            for entry in dataset.load(heldout=held)
        ]
    else:
        items = []
        for name in args.sets.split(","):
            catalog, queries = load_set(Path(args.shared) / "eval" / name)
            items.append(("", name, catalog, [(q.query, q.relevant) for q in queries]))
    for group, name, catalog, raw in items:
        queries = [(q, set(r)) for q, r in raw]
        row = sweep(catalog, queries, embed, weights, lexical)
        groups.setdefault(group, []).append(row)
        cells = " | ".join(f"{r5:.3f} / {mrr:.3f}" for r5, mrr in row)
        print(f"| {(group + ': ') if group else ''}{name} | {len(queries)} | {cells} |", flush=True)
    if args.real:
        print("\n| group (mean over catalogs) | catalogs | default | " + " | ".join(f"w={w:g}" for w in weights) + " |")
        print("|---|---:|" + "---|" * (len(weights) + 1))
        for group, rows in groups.items():
            means = [
                (statistics.fmean(r[i][0] for r in rows), statistics.fmean(r[i][1] for r in rows))
                for i in range(len(weights) + 1)
            ]
            print(f"| {group} | {len(rows)} | " + " | ".join(f"{a:.3f} / {b:.3f}" for a, b in means) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
