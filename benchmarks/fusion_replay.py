"""`hybrid`'s fusion replayed on every real group and the dev sets from one dump (issue 32, item 3, round 4).

Usage:
    python -m benchmarks fusion-replay --embed-model FOLDER --dump /tmp/f.pkl            # once: run both sides
    python -m benchmarks fusion-replay --load /tmp/f.pkl                                 # replay the shipped rule
    python -m benchmarks fusion-replay --load /tmp/f.pkl --grid                          # the sweep of the notes

The dump holds, for every request of the real tuning sets (``real_quality.TUNING_SETS``, as
``python -m benchmarks real`` loads them) and of the six dev sets (``--limit N``
requests of each, evenly spaced), what ``hybrid`` fuses: the lexical side's best
:data:`~toolsearch_cli.search.hybrid.CANDIDATES` tools with their scores, the semantic part (0..1)
of every tool among them, the semantic side's best and the relevant tools, the evidence
:func:`~toolsearch_cli.search.hybrid.request_evidence` gives, and ``embedding``'s and ``default``'s
own top 10. A replay fuses them as ``HybridRanker._nsf`` does, with the rule given, in seconds
and without a model; the shipped rule replayed gives ``python -m benchmarks real``'s ``hybrid``
figures (the replay leaves out ``put_named_first``, which only moves a tool named exactly by the
request).

Figures: MRR@10 per catalog, then the mean over a group's catalogs (as ``real_quality``), and R@5
per dev set. Groups: ``SET/openapi`` and ``SET/mcp`` of each tuning set, ``blind`` and ``heldout``
(OpenAPI only). With ``--sims``
the dump also holds every view's cosine to every tool (``sims``, views x tools, in the slot order of
``tool_names``), so that a change to the semantic side's rescaling can be replayed too (round 6,
benchmarks/notes/fusion.md); every row holds the request's analysed terms and their weights (``plan``).
``--conflicts`` (round 9) prints, per group, where the two sides' firsts agree or disagree, which of
them was right and which one the shipped rule put first, and the per-request better of ``default``
and ``embedding`` (the oracle the share is measured against).
"""

from __future__ import annotations

import math
import pickle
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks import options, real_quality

DEPTH = 10
REAL_SETS = real_quality.TUNING_SETS


def _group(set_name: str, group: str) -> str:
    return set_name if set_name in real_quality.OPENAPI_ONLY_SETS else f"{set_name}/{group}"


def _entries(args: Any) -> list[tuple[str, str, Any, list[tuple[str, set[str]]]]]:
    """(group, catalog id, catalog, queries) of every real catalog and dev set."""
    from benchmarks.common import SETS, load_set
    from benchmarks.real_quality import load_sets

    out = []
    wanted = [s for s in args.sets.split(",") if s in REAL_SETS]
    for set_name, entries in load_sets(wanted, args.cache).items():
        for e in entries:
            out.append((_group(set_name, e.group), e.id, e.catalog, [(q, set(r)) for q, r in e.queries]))
    root = Path(args.shared) / "eval"
    if "dev" in args.sets.split(",") and root.is_dir():
        for name in SETS:
            catalog, queries = load_set(root / name)
            queries = options.spaced(queries, args.limit)
            out.append(("dev", name, catalog, [(q.query, set(q.relevant)) for q in queries]))
    return out


def dump(args: Any) -> None:
    from toolsearch_cli.errors import SearchError
    from toolsearch_cli.search import get_ranker
    from toolsearch_cli.search.base import SearchRequest
    from toolsearch_cli.search.bm25f import action_of, query_plan
    from toolsearch_cli.search.embed_settings import EmbedSettings
    from toolsearch_cli.search.hybrid import (
        CANDIDATES,
        HybridRanker,
        _own_rows,
        _views_of,
        embedding_views,
        explained_hits,
        lexical_evidence,
        request_evidence,
        semantic_side,
        vector_index,
        view_similarities,
    )
    from toolsearch_cli.search.text import has_cjk
    from toolsearch_cli.search.values import value_terms

    embed = EmbedSettings(model=args.embed_model)
    hybrid = HybridRanker(embed=embed)
    embedding = get_ranker("embedding", embed)
    rows = []
    for group, cid, catalog, queries in _entries(args):
        start = time.perf_counter()
        texts = [q for q, _ in queries]
        hybrid.prepare(catalog, texts)
        embedding.prepare(catalog, texts)
        embedder = hybrid.embedder()
        index = vector_index(catalog, embedder)
        tool_names = [t.name if t is not None else "" for t in index.tools]
        for query, relevant in queries:
            sub = SearchRequest(query=query, max_results=CANDIDATES, explain=True)
            try:
                lexical = hybrid.lexical.search(catalog, sub)
            except SearchError:
                lexical = []
            try:
                emb = [h.tool.name for h in embedding.search(catalog, SearchRequest(query=query, max_results=DEPTH))]
            except SearchError:
                emb = []
            if args.semantic == "parts":
                sims = view_similarities(index, embedder, embedding_views(query), None, persist=True)
                semantic = semantic_side(index, sims, CANDIDATES, mean_of_whole_and_closest)
            else:
                semantic = hybrid._semantic(
                    index, embedder, _views_of(query, embedder.multilingual)[0], args.semantic_floor, None
                )  # with the English gloss of a request in another language, as the ranker embeds it
            names = {h.tool.name for h in lexical} | {t.name for t, _ in semantic.ranked} | set(relevant)
            parts = {}
            for n in names:
                slot = semantic.slot_of(n)
                parts[n] = float(semantic.part[slot]) if slot is not None else 0.0
            explained = explained_hits(catalog, query, lexical)  # once: the evidence and the rows below
            evidence = request_evidence(catalog, query, lexical, semantic, explained)
            plan = query_plan(query)
            label = [
                next((c.points for c in h.contributions if c.detail.startswith("label:")), 0.0) / h.score
                if h.score > 0
                else 0.0
                for h in lexical[:3]
            ]
            rows.append(
                {
                    "explained": [[(c.term, c.field, c.points) for c in hit_rows] for hit_rows in explained],
                    "values": sorted(value_terms(query)),
                    "plan": (list(plan.terms), dict(plan.weights)),
                    # the action the request asks for and each best lexical hit's (round 6b)
                    "action": (plan.action, [action_of(h.tool) for h in lexical[:3]]),
                    "group": group,
                    "catalog": cid,
                    "query": query,
                    "cjk": has_cjk(query),
                    # the terms the best lexical hits hold of the request's own words (not its related
                    # words or translations): what decides a CJK request's fusion (``HybridRanker._cjk_fused``)
                    "cjk_covered": lexical_evidence(_own_rows(query, explained)).covered,
                    "relevant": set(relevant),
                    "lexical": [(h.tool.name, h.score) for h in lexical],
                    "label": label,
                    "semantic": [(t.name, p) for t, p in semantic.ranked],
                    "parts": parts,
                    "evidence": (evidence.parameters, evidence.covered, evidence.confirmed),
                    "embedding": emb,
                    "tools": len(catalog.searchable()),
                    # every view's cosine to every tool (slot order of "tool_names"), for replays of the rescaling
                    "sims": semantic.sims.astype("float16") if args.sims else None,
                    "tool_names": tool_names if args.sims else None,
                }
            )
        print(f"{group} {cid}: {len(queries)} requests, {time.perf_counter() - start:.0f} s", file=sys.stderr)
    with open(args.dump, "wb") as f:
        pickle.dump(rows, f)
    print(f"dumped {len(rows)} requests to {args.dump}", file=sys.stderr)


def mean_of_whole_and_closest(sims: Any, k: int) -> tuple[Any, Any]:
    """``embedding``'s score (the mean of the cosine to the whole request and to its closest part),
    rescaled between the ``k``-th best tool and the best: the semantic part of ``--semantic parts``."""
    import numpy as np

    from toolsearch_cli.search.hybrid import rescale_views

    scores = ((sims[0] + sims.max(axis=0)) / 2)[None, :]
    rescaled, _, _ = rescale_views(scores, k)
    return np.maximum(rescaled[0], 0.0), sims.argmax(axis=0)


# -- replay ---------------------------------------------------------------------------------


def sigmoid_share(base: float, shift: float) -> float:
    return 1.0 / (1.0 + math.exp(-(math.log(base / (1.0 - base)) + shift)))


def round2_rule(row: dict, base: float = 0.5) -> float:
    """The share of round 2 (main before round 4): +2.0, +0.5 x parameters, -0.5 x confirmed,
    -0.35 per covered term (up to 8), no margin; CJK requests lexical alone."""
    if not row["lexical"]:
        return sigmoid_share(base, 2.0 + 0.5)
    params, covered, confirmed = row["evidence"][:3]
    return sigmoid_share(base, 2.0 + 0.5 * params - 0.5 * confirmed - 0.35 * min(covered, 8))


def shipped_rule(row: dict, base: float = 0.5) -> float:
    """The semantic share ``hybrid.fusion_share`` gives this request with the constants as they are."""
    from toolsearch_cli.search import hybrid as h

    if not row["lexical"]:
        return h.fusion_share(base, h.NO_EVIDENCE).semantic
    params, covered, confirmed = row["evidence"][:3]
    margin = h.lexical_margin([s for _, s in row["lexical"]])
    # the action asked for when the best lexical hit does it (dumps since round 6b; older: none)
    asked, hits = row.get("action") or (None, [])
    action = asked if asked is not None and hits[:1] == [asked] else None
    return h.fusion_share(base, h.LexicalEvidence(params, covered, confirmed, margin, action)).semantic


def shipped_cjk_lexical(row: dict) -> bool:
    """Whether ``hybrid`` ranks this request lexically alone (a CJK request, English-only model)."""
    from toolsearch_cli.search import hybrid as h

    covered = row.get("cjk_covered", row["evidence"][1])  # dumps before round 7b: every term
    return bool(row["cjk"] and row["lexical"] and covered > h.CJK_MAX_TERMS)


def fuse(row: dict, weight: float, *, depth: int = 50, cjk_lexical: bool | None = None) -> list[str]:
    """The fused top 10 of one dumped request at semantic share ``weight`` (``HybridRanker._nsf``);
    a CJK request lexically alone when ``cjk_lexical`` (``None``: as ``hybrid`` decides it now)."""
    lexical = row["lexical"]
    if cjk_lexical is None:
        cjk_lexical = shipped_cjk_lexical(row)
    if row["cjk"] and cjk_lexical:
        return [n for n, s in lexical[:DEPTH] if s > 0]
    best = max((s for _, s in lexical), default=0.0)
    floor = lexical[depth - 1][1] if len(lexical) >= depth else 0.0
    span = best - floor if best > 1e-9 else 0.0
    parts = row["parts"]
    out: dict[str, float] = {}
    for name, part in row["semantic"]:
        out[name] = weight * part
    for name, score in lexical[:depth]:
        lex = (1.0 - weight) * (score - floor) / span if span > 0 else (1.0 - weight) * (best > 1e-9)
        out[name] = lex + weight * parts.get(name, 0.0)
    ranked = sorted(out.items(), key=lambda kv: (-kv[1], kv[0]))
    return [n for n, s in ranked[:DEPTH] if s > 0]


def metrics(names: list[str], relevant: set[str]) -> tuple[float, float]:
    rr = next((1.0 / i for i, n in enumerate(names[:DEPTH], 1) if n in relevant), 0.0)
    r5 = len(relevant & set(names[:5])) / len(relevant) if relevant else 0.0
    return rr, r5


GROUP_ORDER = tuple(
    name if name in real_quality.OPENAPI_ONLY_SETS else f"{name}/{group}"
    for name in REAL_SETS
    for group in ("openapi", "mcp")
    if name not in real_quality.OPENAPI_ONLY_SETS or group == "openapi"
)


def score(rows: list[dict], ranking: Callable[[dict], list[str]]) -> dict[str, float]:
    """Group means of catalog-mean MRR@10 for the real groups; R@5 per dev set."""
    per: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for row in rows:
        per.setdefault((row["group"], row["catalog"]), []).append(metrics(ranking(row), row["relevant"]))
    out: dict[str, float] = {}
    groups: dict[str, list[float]] = {}
    for (group, cid), ms in per.items():
        if group == "dev":
            out[cid] = statistics.fmean(r5 for _, r5 in ms)
        else:
            groups.setdefault(group, []).append(statistics.fmean(rr for rr, _ in ms))
    for g in GROUP_ORDER:
        if g in groups:
            out[g] = statistics.fmean(groups[g])
    return out


def _first_rank(names: list[str], relevant: set[str]) -> int | None:
    return next((i for i, n in enumerate(names[:DEPTH], 1) if n in relevant), None)


CONFLICT_KINDS = ("agree, right", "agree, wrong", "lexical first right", "semantic first right", "neither right")


def conflicts(rows: list[dict], share: Callable[[dict], float] = shipped_rule) -> dict[str, dict[str, Any]]:
    """Per real group: how many requests fall in each of :data:`CONFLICT_KINDS` (the lexical side's
    first against the semantic side's first, as ``hybrid`` fuses them; a CJK request ranked lexically
    alone counts as agreeing) with, for the two middle kinds, how many the fused list (``share``) puts
    right first ("picked"); and the MRR@10 of the per-request better of ``default`` and ``embedding``
    ("oracle", catalog means, as :func:`score`). Round 9, benchmarks/notes/fusion.md."""
    counts: dict[str, dict[str, Any]] = {}
    oracle: dict[tuple[str, str], list[float]] = {}
    for row in rows:
        group = row["group"]
        if group == "dev":
            continue
        relevant = row["relevant"]
        lexical = [n for n, s in row["lexical"] if s > 0]
        by_default = _first_rank(lexical, relevant)
        by_embedding = _first_rank(list(row["embedding"]), relevant)
        ranks = [r for r in (by_default, by_embedding) if r is not None]
        oracle.setdefault((group, row["catalog"]), []).append(1.0 / min(ranks) if ranks else 0.0)
        c = counts.setdefault(group, {k: 0 for k in CONFLICT_KINDS} | {"picked lexical": 0, "picked semantic": 0})
        first_l = lexical[0] if lexical else None
        first_s = row["semantic"][0][0] if row["semantic"] else None
        if first_l is None or first_s is None or first_l == first_s or (row["cjk"] and shipped_cjk_lexical(row)):
            first = first_l or first_s
            c["agree, right" if first in relevant else "agree, wrong"] += 1
            continue
        fused = fuse(row, share(row))
        fused_first = fused[0] if fused else None
        if first_l in relevant:
            c["lexical first right"] += 1
            c["picked lexical"] += fused_first == first_l
        elif first_s in relevant:
            c["semantic first right"] += 1
            c["picked semantic"] += fused_first == first_s
        else:
            c["neither right"] += 1
    per_group: dict[str, list[float]] = {}
    for (group, _), rrs in oracle.items():
        per_group.setdefault(group, []).append(statistics.fmean(rrs))
    for group, means in per_group.items():
        counts[group]["oracle"] = statistics.fmean(means)
    return counts


def conflict_table(rows: list[dict]) -> list[str]:
    """:func:`conflicts` as Markdown lines."""
    table = conflicts(rows)
    head = [*CONFLICT_KINDS[:2], "lexical first right (picked)", "semantic first right (picked)", "neither right"]
    out = ["| group | " + " | ".join(head) + " | oracle of the two rankers |", "|---|" + "---:|" * (len(head) + 1)]
    for g in [g for g in GROUP_ORDER if g in table]:
        c = table[g]
        out.append(
            f"| {g} | {c['agree, right']} | {c['agree, wrong']} | {c['lexical first right']} ({c['picked lexical']}) | "
            f"{c['semantic first right']} ({c['picked semantic']}) | {c['neither right']} | {c['oracle']:.3f} |"
        )
    return out


def line(label: str, figures: dict[str, float], keys: list[str]) -> str:
    return f"| {label} | " + " | ".join(f"{figures.get(k, float('nan')):.3f}" for k in keys) + " |"


def main() -> int:
    parser = options.parser(__doc__)
    parser.add_argument("--embed-model", default=None)
    options.add_shared(parser)
    options.add_cache(parser)
    options.add_sets(parser, ",".join((*REAL_SETS, "dev")), help="comma-separated, of the real sets and dev")
    options.add_limit(parser, help="dev sets: N requests of each, evenly spaced (0: all)")
    parser.add_argument("--dump", default=None, help="run both sides and write the dump here")
    parser.add_argument(
        "--semantic-floor",
        type=int,
        default=50,
        help="dump: rescale each view between its Nth best tool and its best (hybrid: CANDIDATES, 50)",
    )
    parser.add_argument(
        "--semantic",
        choices=("views", "parts"),
        default="views",
        help="the semantic part dumped: hybrid's (best rescaled sentence view) or embedding's (parts, mean)",
    )
    parser.add_argument("--sims", action="store_true", help="dump: also every view's cosine to every tool")
    parser.add_argument(
        "--conflicts", action="store_true", help="replay: where the two sides' firsts disagree, per group"
    )
    parser.add_argument("--load", action="append", default=[], help="replay this dump (repeatable: all together)")
    args = parser.parse_args()
    if args.dump:
        if not args.embed_model:
            parser.error("--dump needs --embed-model")
        dump(args)
        return 0
    if not args.load:
        parser.error("give --dump or --load")
    rows = []
    for path in args.load:
        with open(path, "rb") as f:
            rows.extend(pickle.load(f))
    if args.conflicts:
        print("\n".join(conflict_table(rows)))
        return 0
    keys = [g for g in GROUP_ORDER if any(r["group"] == g for r in rows)]
    keys += list(dict.fromkeys(r["catalog"] for r in rows if r["group"] == "dev"))
    print("| variant | " + " | ".join(keys) + " |")
    print("|---|" + "---:|" * len(keys))
    print(line("default", score(rows, lambda r: [n for n, s in r["lexical"][:DEPTH] if s > 0]), keys))
    print(line("embedding", score(rows, lambda r: r["embedding"]), keys))
    print(
        line(
            "hybrid, round-2 share, CJK lexical", score(rows, lambda r: fuse(r, round2_rule(r), cjk_lexical=True)), keys
        )
    )
    print(line("hybrid@0.5, CJK lexical", score(rows, lambda r: fuse(r, 0.5, cjk_lexical=True)), keys))
    print(line("hybrid as shipped", score(rows, lambda r: fuse(r, shipped_rule(r))), keys))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
