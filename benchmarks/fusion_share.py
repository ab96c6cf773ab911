"""`hybrid` against its two halves (`default`, `embedding`) on real catalogs and the dev sets (issue 32, item 3).

Usage:
    python -m benchmarks fusion --embed-model FOLDER                  # realworld-dev, per catalog and group
    python -m benchmarks fusion --embed-model FOLDER --sets real,blind --cache DIR
    python -m benchmarks fusion --embed-model FOLDER --sets dev --limit 1000
    python -m benchmarks fusion --embed-model FOLDER --dump /tmp/fusion.pkl   # inputs of the fusion, per request

Sets: ``realworld`` (../shared/eval/realworld-dev, 9 catalogs, skipped without ../shared), ``real``
(benchmarks/real_catalogs, 23 catalogs, 484 requests: needs python -m benchmarks fetch's cache),
``blind`` (real_catalogs/blind-fusion.yaml: 29 requests written before any ranking on their three
MCP servers), ``heldout`` (real_catalogs' held-out OpenAPI documents and requests, about half
of them Chinese), ``dev`` (the six sets of ../shared/eval; ``--limit N``: N requests of each, evenly spaced).
Metrics as in ../shared/eval/README.md: MRR@10 (and Recall@5) per catalog, then the mean over a
group's catalogs (OpenAPI documents, MCP servers and toolkits). ``hybrid`` is run as configured;
``--hybrid-weight W`` also runs it with a fixed weight (``hybrid@W``: adaptation off).

``--dump`` writes, for every request, what the fusion of ``hybrid`` is made from: the lexical
side's best tools with their scores and matched fields per term, the semantic side's best tools
with their parts (0..1), and the relevant names, so that a fusion rule can be tried on all of them
in seconds without a model (how the per-request share of benchmarks/README.md was chosen).
"""

from __future__ import annotations

import pickle
import statistics
import sys
import time
from pathlib import Path

from benchmarks import options
from benchmarks.common import SETS, load_set, ranked_names
from toolsearch_cli.evaluate import query_metrics
from toolsearch_cli.search import get_ranker

HERE = Path(__file__).resolve().parent

DEPTH = 10


class Entry:
    def __init__(self, cid: str, group: str, catalog, queries: list[tuple[str, set[str]]]) -> None:
        self.id, self.group, self.catalog, self.queries = cid, group, catalog, queries


def realworld_entries(root: Path) -> list[Entry]:
    from toolsearch_cli import load_catalog
    from toolsearch_cli.evaluate import load_queries

    folder = root / "realworld-dev"
    if not folder.is_dir():
        print(f"skipped: no {folder}", file=sys.stderr)
        return []
    out = []
    for sub in sorted(p for p in folder.iterdir() if p.is_dir()):
        files = [p for p in sub.iterdir() if p.name.startswith("catalog.")]
        queries = [(q.query, set(q.relevant)) for q in load_queries(sub / "queries.yaml")]
        group = "openapi" if sub.name.startswith("oa-") else "mcp"
        out.append(Entry(sub.name, group, load_catalog([str(files[0])]), queries))
    return out


def real_entries(cache: str | None, blind: bool, heldout: bool = False) -> list[Entry]:
    from benchmarks.real_catalogs import dataset

    if heldout:
        entries = dataset.load(cache, heldout=True)
    elif blind:
        requests = dataset.read_requests(HERE / "real_catalogs" / "blind-fusion.yaml")
        only = {r.catalog for r in requests}
        entries = dataset.load(cache, only)
        for e in entries:
            e.queries = [(r.query, r.relevant) for r in requests if r.catalog == e.id]
    else:
        entries = dataset.load(cache)
    return [Entry(e.id, e.group, e.catalog, e.queries) for e in entries]


def dev_entries(root: Path, limit: int) -> list[Entry]:
    out = []
    for name in SETS:
        catalog, queries = load_set(root / name)
        queries = options.spaced(queries, limit)  # evenly spaced over the file
        out.append(Entry(name, "dev", catalog, [(q.query, set(q.relevant)) for q in queries]))
    return out


def run(entries: list[Entry], rankers: dict[str, object]) -> dict[str, dict[str, dict[str, float]]]:
    results: dict[str, dict[str, dict[str, float]]] = {}
    for e in entries:
        results[e.id] = {}
        for label, ranker in rankers.items():
            prepare = getattr(ranker, "prepare", None)
            if prepare is not None:
                prepare(e.catalog, [q for q, _ in e.queries])
            search = ranked_names(ranker, e.catalog, DEPTH)
            mrr, r5 = [], []
            start = time.perf_counter()
            for query, relevant in e.queries:
                m = query_metrics(search(query), relevant, [5])
                mrr.append(m["mrr"])
                r5.append(m["recall@5"])
            results[e.id][label] = {
                "mrr": statistics.fmean(mrr),
                "recall@5": statistics.fmean(r5),
                "ms": 1000 * (time.perf_counter() - start) / max(1, len(e.queries)),
            }
    return results


def table(entries: list[Entry], results: dict, labels: list[str]) -> str:
    lines = ["| catalog | group | requests | " + " | ".join(labels) + " |", "|---|---|---:|" + "---:|" * len(labels)]
    for e in entries:  # MRR@10 (R@5)
        cells = " | ".join(f"{results[e.id][n]['mrr']:.3f} ({results[e.id][n]['recall@5']:.3f})" for n in labels)
        lines.append(f"| {e.id} | {e.group} | {len(e.queries)} | {cells} |")
    groups = list(dict.fromkeys(e.group for e in entries))
    for metric in ("mrr", "recall@5"):
        for g in groups:
            mine = [e for e in entries if e.group == g]
            cells = " | ".join(f"{statistics.fmean(results[e.id][n][metric] for e in mine):.3f}" for n in labels)
            lines.append(f"| **mean {metric} {g}** ({len(mine)}) | | {sum(len(e.queries) for e in mine)} | {cells} |")
    return "\n".join(lines)


def dump(entries: list[Entry], hybrid, path: str) -> None:
    """Every request's fusion inputs (see the module's docstring), pickled to ``path``."""
    from toolsearch_cli.errors import SearchError
    from toolsearch_cli.search.base import SearchRequest
    from toolsearch_cli.search.bm25f import query_plan
    from toolsearch_cli.search.hybrid import CANDIDATES, explained_hits, query_views, request_evidence, vector_index

    rows = []
    for e in entries:
        hybrid.prepare(e.catalog, [q for q, _ in e.queries])
        embedder = hybrid.embedder()
        index = vector_index(e.catalog, embedder)
        for query, relevant in e.queries:
            sub = SearchRequest(query=query, max_results=CANDIDATES, explain=True)
            try:
                lexical = hybrid.lexical.search(e.catalog, sub)
            except SearchError:
                lexical = []
            views = query_views(query)
            semantic = hybrid._semantic(index, embedder, views, CANDIDATES, None)
            lex = [(h.tool.name, h.score, [(c.term, c.field, c.points) for c in h.contributions]) for h in lexical]
            names = {n for n, _, _ in lex} | {t.name for t, _ in semantic.ranked} | set(relevant)
            parts = {}
            for n in names:
                slot = semantic.slot_of(n)
                parts[n] = float(semantic.part[slot]) if slot is not None else 0.0
            cos = semantic.sims.max(axis=0)
            top_cos = sorted((float(c) for c in cos if c > -1e9), reverse=True)[:10]
            evidence = request_evidence(e.catalog, query, lexical, semantic)
            rows.append(
                {
                    "evidence": (evidence.parameters, evidence.covered, evidence.confirmed),
                    "explained": [
                        [(c.term, c.field, c.points) for c in rows]
                        for rows in explained_hits(e.catalog, query, lexical)
                    ],
                    "terms": len(query_plan(query).terms),
                    "set": e.id,
                    "group": e.group,
                    "query": query,
                    "relevant": set(relevant),
                    "lexical": lex,
                    "semantic": [(t.name, p) for t, p in semantic.ranked],
                    "parts": parts,
                    "top_cosines": top_cos,
                    "tools": len(e.catalog.searchable()),
                }
            )
    with open(path, "wb") as f:
        pickle.dump(rows, f)
    print(f"dumped {len(rows)} requests to {path}", file=sys.stderr)


def main() -> int:
    parser = options.parser(__doc__)
    options.add_embed(parser, extras=False)
    options.add_sets(parser, "realworld", help="comma-separated: realworld, real, blind, heldout, dev")
    options.add_shared(parser)
    options.add_cache(parser)
    options.add_limit(parser, help="dev sets: N requests of each, evenly spaced (0: all)")
    parser.add_argument("--only", default="", help="comma-separated catalog or dev-set ids (default: all)")
    options.add_rankers(parser, "default,embedding,hybrid")
    parser.add_argument(
        "--hybrid-weight", type=float, action="append", default=[], help="also hybrid at this fixed weight"
    )
    parser.add_argument("--dump", default=None)
    args = parser.parse_args()
    from toolsearch_cli.search.embed_settings import EmbedSettings
    from toolsearch_cli.search.hybrid import HybridRanker

    embed = EmbedSettings(model=args.embed_model)
    rankers: dict[str, object] = {name: get_ranker(name, embed) for name in args.rankers.split(",") if name}
    for w in args.hybrid_weight:
        rankers[f"hybrid@{w:g}"] = HybridRanker(weight=w, embed=embed, adaptive=False)
    root = Path(args.shared) / "eval"  # --shared is the folder holding eval/, as in every command
    for name in args.sets.split(","):
        start = time.perf_counter()
        if name == "realworld":
            entries = realworld_entries(root)
        elif name in ("real", "blind", "heldout"):
            entries = real_entries(args.cache, name == "blind", name == "heldout")
        elif name == "dev":
            entries = dev_entries(root, args.limit) if root.is_dir() else []
        else:
            parser.error(f"unknown set {name!r}")
        if args.only:
            entries = [e for e in entries if e.id in args.only.split(",")]
        if not entries:
            continue
        if args.dump:
            dump(entries, HybridRanker(embed=embed), args.dump.replace(".pkl", f"-{name}.pkl"))
            continue
        results = run(entries, rankers)
        print(
            f"\n{name}: {len(entries)} catalogs, {sum(len(e.queries) for e in entries)} requests "
            f"({time.perf_counter() - start:.0f} s)\n"
        )
        print(table(entries, results, list(rankers)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
