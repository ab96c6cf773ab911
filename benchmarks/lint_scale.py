"""Lint a large catalog (../shared/eval/seal_tools, ~4,000 tools) with findability and confusable pairs.

Usage: python -m benchmarks lint-scale [--shared PATH] [--set seal_tools] [--tools 5000] [--brute-force]

The catalog is topped up to ``--tools`` tools (default 5,000, the size the lint target names)
with perturbed copies of its own tools (see scale.py); 0 lints the set as it is.

The eval catalogs have no ``examples``; each query of ``queries.yaml`` is attached (in memory)
as an example of the tools it is labelled with, so the findability rules search every query
with the real ranker. Prints the load time, the time of each rule and the total; the baseline
in the same run is the load itself (lint time as a multiple of it). ``--brute-force`` also
times the all-pairs name/description overlap that prefix filtering avoids, and checks that both
find the same pairs.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from benchmarks import options
from toolsearch_cli.evaluate import load_queries
from toolsearch_cli.lint import LintConfig
from toolsearch_cli.lint.context import LintContext
from toolsearch_cli.lint.engine import run_rules
from toolsearch_cli.lint.rule import terms
from toolsearch_cli.lint.rules import RULE_BY_CODE
from toolsearch_cli.lint.rules.findability import overlapping_pairs
from toolsearch_cli.lint.sources import load_files


def main() -> int:
    parser = options.parser(__doc__)
    options.add_shared(parser)
    parser.add_argument("--set", default="seal_tools")
    parser.add_argument("--brute-force", action="store_true", help="also time the O(n^2) overlap baseline")
    parser.add_argument(
        "--tools",
        type=int,
        default=5000,
        help="this many tools: the set's first ones, topped up with perturbed copies (scale.py) past its size",
    )
    args = parser.parse_args()
    folder = Path(args.shared) / "eval" / args.set
    if not folder.is_dir():
        print(f"no eval set at {folder}", file=sys.stderr)
        return 2

    start = time.perf_counter()
    files = load_files([str(folder / "catalog.yaml")])
    load_seconds = time.perf_counter() - start
    if files[0].error:
        print(f"cannot load: {files[0].error}", file=sys.stderr)
        return 2
    by_name = {t.name: t for t in files[0].tools}
    attached = 0
    for query in load_queries(str(folder / "queries.yaml")):
        for name in query.relevant:
            if name in by_name:
                by_name[name].examples.append(query.query)
                attached += 1
    with_examples = sum(1 for t in files[0].tools if t.examples)
    loaded_tools = len(files[0].tools)
    if args.tools > loaded_tools:
        # Perturbed copies (renamed, 15% of words replaced) as benchmarks/scale.py builds them; they
        # carry no examples, so they add to every search and to the confusable-pair candidates.
        from benchmarks.scale import synthetic_tools

        files[0].tools.extend(synthetic_tools(folder, args.tools)[loaded_tools:])
    elif args.tools < loaded_tools:  # a small run: the set's first tools
        del files[0].tools[args.tools :]

    resolved = LintConfig().resolve(RULE_BY_CODE)
    ctx = LintContext(files)
    per_rule: list[tuple[str, float, int]] = []
    total = 0
    lint_start = time.perf_counter()
    for code in resolved.enabled:
        t0 = time.perf_counter()
        single = LintConfig(select=[code]).resolve(RULE_BY_CODE)
        found = run_rules(ctx, single, RULE_BY_CODE).diagnostics
        per_rule.append((code, time.perf_counter() - t0, len(found)))
        total += len(found)
    lint_seconds = time.perf_counter() - lint_start

    print(
        f"{args.set}: {len(ctx.tools)} tools ({loaded_tools} from the set), {attached} examples on {with_examples} "
        "tools (from queries.yaml)"
    )
    print(f"{'rule':<6} {'name':<38} {'seconds':>8} {'findings':>9}")
    for code, seconds, count in per_rule:
        print(f"{code:<6} {RULE_BY_CODE[code].name:<38} {seconds:8.3f} {count:9d}")
    print(f"load  {load_seconds:.2f} s (baseline)")
    print(f"lint  {lint_seconds:.2f} s, {total} findings, {lint_seconds / load_seconds:.1f}x the load time")
    print(f"total {load_seconds + lint_seconds:.2f} s (target: under 30 s)")

    if args.brute_force:
        tools = ctx.catalog().searchable()
        ts604 = RULE_BY_CODE["TS604"].options
        threshold, min_terms = ts604["overlap-threshold"], ts604["min-terms"]
        t0 = time.perf_counter()
        fast = overlapping_pairs(tools, threshold, min_terms)
        fast_seconds = time.perf_counter() - t0
        t0 = time.perf_counter()
        sets = [terms(f"{t.name} {t.description}") for t in tools]
        slow = {}
        for j in range(len(sets)):
            if len(sets[j]) < min_terms:
                continue
            for i in range(j):
                if len(sets[i]) < min_terms:
                    continue
                shared = len(sets[i] & sets[j])
                score = shared / (len(sets[i]) + len(sets[j]) - shared)
                if score >= threshold:
                    slow[(i, j)] = score
        slow_seconds = time.perf_counter() - t0
        same = set(fast) == set(slow)
        print(
            f"overlap pairs: prefix filtering {fast_seconds:.2f} s, all pairs {slow_seconds:.2f} s "
            f"({slow_seconds / fast_seconds:.0f}x); {len(fast)} pairs; same pairs: {same}"
        )
        if not same:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
