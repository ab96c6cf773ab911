"""Retrieval quality on the real-catalog dev set (benchmarks/real_catalogs): our rankers against the peers.

Usage:
    python benchmarks/real_catalogs/fetch.py           # once: downloads and builds the catalogs
    python benchmarks/real_quality.py                  # default and the peers, per catalog and per group
    python benchmarks/real_quality.py --rankers default,hybrid --embed-model FOLDER --per-query

Metrics as in ../shared/eval/README.md (MRR and Recall@5, each query ranked 10 deep), averaged per
catalog and then over the catalogs of a group (OpenAPI documents, MCP servers), as issue 18 states
its targets. Peers index the text of ``peers.tool_text`` (name, description, category, tags and
every parameter's name and description, nested ones included: "plain BM25 with parameters");
``bm25s (name+desc)`` indexes name and description only. Also checked: every tool's exact name as
the query ranks it first (``exact names``), for each ranker.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "real_catalogs"))

from common import ranked_names  # noqa: E402
from peers import PEERS, Bm25sPeer, tool_text  # noqa: E402

from toolsearch_cli.evaluate import query_metrics  # noqa: E402
from toolsearch_cli.search import get_ranker  # noqa: E402

DEPTH = 10
GROUPS = ("openapi", "mcp")


def name_desc_peer(names: list[str], tools: list) -> Bm25sPeer:
    peer = Bm25sPeer(names, [f"{t.name}\n{t.description}" for t in tools], cjk=False)
    peer.name = "bm25s (name+desc)"
    return peer


def runners(entry, rankers: list[str], peers: list[str], embed=None) -> dict[str, Callable[[str], list[str]]]:
    """Per ranker or peer name: query -> ranked tool names (``embed``: the dense rankers' EmbedSettings)."""
    tools = entry.catalog.searchable()
    names = [t.name for t in tools]
    out: dict[str, Callable[[str], list[str]]] = {}
    for name in rankers:
        out[name] = ranked_names(get_ranker(name, embed), entry.catalog, DEPTH)
    texts = [tool_text(t) for t in tools]
    for name in peers:
        if name == "bm25s (name+desc)":
            peer = name_desc_peer(names, tools)
        else:
            peer = PEERS[name](names, texts)
        out[name] = lambda q, p=peer: p.search(q, DEPTH)
    return out


def exact_name_failures(entry, rankers: list[str], embed=None) -> dict[str, list[str]]:
    """Per ranker, the tools that are not first when their exact name is the query."""
    tools = entry.catalog.searchable()
    failures: dict[str, list[str]] = {}
    for name in rankers:
        run = ranked_names(get_ranker(name, embed), entry.catalog, 1)
        failures[name] = [t.name for t in tools if run(t.name)[:1] != [t.name]]
    return failures


def evaluate(entries, rankers: list[str], peers: list[str], per_query: bool = False, embed=None) -> dict:
    """{catalog id: {ranker: {"mrr", "recall@5", "ms"}}} and printed per-query misses if asked."""
    results: dict[str, dict[str, dict[str, float]]] = {}
    for entry in entries:
        results[entry.id] = {}
        for name, run in runners(entry, rankers, peers, embed).items():
            mrr, r5, elapsed = [], [], 0.0
            for query, relevant in entry.queries:
                start = time.perf_counter()
                ranked = run(query)
                elapsed += time.perf_counter() - start
                m = query_metrics(ranked, relevant, [5])
                mrr.append(m["mrr"])
                r5.append(m["recall@5"])
                if per_query and name == rankers[0]:
                    first = next((i for i, n in enumerate(ranked, 1) if n in relevant), None)
                    print(f"  {entry.id:22} {first or '-':>3}  {query[:90]}", file=sys.stderr)
            results[entry.id][name] = {
                "mrr": statistics.fmean(mrr),
                "recall@5": statistics.fmean(r5),
                "ms": 1000 * elapsed / max(1, len(entry.queries)),
            }
    return results


def group_means(entries, results: dict, name: str, metric: str) -> dict[str, float]:
    out = {}
    for group in GROUPS:
        values = [results[e.id][name][metric] for e in entries if e.group == group]
        out[group] = statistics.fmean(values) if values else float("nan")
    return out


def markdown(entries, results: dict, names: list[str], exact: dict[str, dict[str, list[str]]]) -> str:
    lines = [
        "| ranker | OpenAPI MRR | MCP MRR | OpenAPI R@5 | MCP R@5 | exact names first |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    total_tools = sum(len(e.catalog.searchable()) for e in entries)
    for name in names:
        mrr = group_means(entries, results, name, "mrr")
        r5 = group_means(entries, results, name, "recall@5")
        if name in next(iter(exact.values()), {}):
            misses = sum(len(exact[e.id][name]) for e in entries)
            exact_cell = f"{total_tools - misses}/{total_tools}"
        else:
            exact_cell = ""
        cells = [mrr["openapi"], mrr["mcp"], r5["openapi"], r5["mcp"]]
        lines.append(f"| {name} | " + " | ".join(f"{c:.3f}" for c in cells) + f" | {exact_cell} |")
    lines += ["", "Per catalog (MRR):", "", "| catalog | group | tools | requests | " + " | ".join(names) + " |"]
    lines.append("|---|---|---:|---:|" + "---:|" * len(names))
    for e in entries:
        cells = " | ".join(f"{results[e.id][n]['mrr']:.3f}" for n in names)
        lines.append(f"| {e.id} | {e.group} | {len(e.catalog.searchable())} | {len(e.queries)} | {cells} |")
    return "\n".join(lines)


def main() -> int:
    import dataset

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rankers", default="default")
    parser.add_argument("--peers", default="bm25s,bm25s (name+desc),tantivy+cjk")
    parser.add_argument("--catalogs", default="", help="comma-separated ids (default: all)")
    parser.add_argument("--cache", default=None, help="fetch.py's cache folder")
    parser.add_argument("--embed-model", default=None)
    parser.add_argument("--per-query", action="store_true", help="print each query's first relevant rank (stderr)")
    parser.add_argument("--no-exact", action="store_true", help="skip the exact-name check")
    parser.add_argument("--heldout", action="store_true", help="the held-out catalogs (Kubernetes) instead")
    args = parser.parse_args()
    embed = None
    if args.embed_model:
        from toolsearch_cli.search.embed_settings import EmbedSettings

        embed = EmbedSettings(model=args.embed_model)
    rankers = [r for r in args.rankers.split(",") if r]
    peers = [p for p in args.peers.split(",") if p]
    entries = dataset.load(args.cache, set(args.catalogs.split(",")) if args.catalogs else None, args.heldout)
    start = time.perf_counter()
    results = evaluate(entries, rankers, peers, args.per_query, embed)
    exact = {} if args.no_exact else {e.id: exact_name_failures(e, rankers, embed) for e in entries}
    print(
        f"{len(entries)} catalogs, {sum(len(e.queries) for e in entries)} requests "
        f"({time.perf_counter() - start:.0f} s)\n"
    )
    print(markdown(entries, results, rankers + peers, exact))
    for e in entries:
        for name, missing in exact.get(e.id, {}).items():
            if missing:
                print(f"\nexact name not first ({name}, {e.id}): {', '.join(missing[:10])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
