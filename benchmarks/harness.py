"""Our rankers against their peers, in one run: quality on ../shared/eval, scale, start-up.

Usage:
    pip install -e ".[bench]"
    python -m benchmarks peers                      # everything (about 10 minutes)
    python -m benchmarks peers --part quality       # quality table only
    python -m benchmarks peers --part scale --sizes 1000,10000
    python -m benchmarks peers --part startup
    python -m benchmarks peers --part real          # the real-catalog set (python -m benchmarks fetch first)

Every figure is measured in this process (start-up in child processes of it), beside the peers
measured the same way, and the targets of issue 3 are checked against those in-run figures.
"""

from __future__ import annotations

import platform
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks import options
from benchmarks.common import SETS, load_set, ranked_names

HERE = Path(__file__).resolve().parent

DEPTH = 10  # ranking depth for every ranker (MRR counts the first relevant tool within it)


def machine() -> str:
    import importlib.metadata as md

    versions = []
    for dist in ("toolsearch-cli", "numpy", "bm25s", "PyStemmer", "tantivy", "rank-bm25"):
        try:
            versions.append(f"{dist} {md.version(dist)}")
        except md.PackageNotFoundError:
            versions.append(f"{dist} (not installed)")
    try:
        cpu = next(
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        )
    except (OSError, StopIteration):
        cpu = platform.processor() or "unknown CPU"
    import os

    return f"{cpu}, {os.cpu_count()} cores; Python {platform.python_version()}; " + ", ".join(versions)


def quality(shared: Path, sets: list[str], peers: list[str], rankers: list[str], embed: Any = None) -> bool:
    """``embed``: the EmbedSettings the dense rankers carry (None: no embedding model)."""
    from benchmarks.peers import PEERS, tool_text
    from toolsearch_cli.evaluate import query_metrics
    from toolsearch_cli.search import get_ranker

    names = rankers + peers
    table: dict[str, dict[str, dict[str, float]]] = {}
    for set_name in sets:
        catalog, queries = load_set(shared / set_name)
        tools = catalog.searchable()
        table[set_name] = {}
        for name in names:
            if name in rankers:
                impl = get_ranker(name, embed)
                prepare = getattr(impl, "prepare", None)
                if prepare is not None:  # dense rankers: embed the queries in batches (timed below)
                    prepare_start = time.perf_counter()
                    prepare(catalog, [q.query for q in queries])
                    prepare_s = time.perf_counter() - prepare_start
                else:
                    prepare_s = 0.0
                run = ranked_names(impl, catalog, DEPTH)
            else:
                peer = PEERS[name]([t.name for t in tools], [tool_text(t) for t in tools])

                def run(q: str, peer=peer) -> list[str]:
                    return peer.search(q, DEPTH)

                prepare_s = 0.0

            sums = {"recall@5": 0.0, "mrr": 0.0, "ndcg@5": 0.0}
            start = time.perf_counter()
            for q in queries:
                m = query_metrics(run(q.query), set(q.relevant), (5,))
                for key in sums:
                    sums[key] += m[key]
            elapsed = time.perf_counter() - start + prepare_s
            row = {k: v / len(queries) for k, v in sums.items()}
            row["ms"] = 1000 * elapsed / len(queries)
            table[set_name][name] = row
            print(
                f"  {set_name:<13} {name:<12} R@5 {row['recall@5']:.3f}  MRR {row['mrr']:.3f}  "
                f"NDCG@5 {row['ndcg@5']:.3f}  {row['ms']:.2f} ms/q",
                file=sys.stderr,
                flush=True,
            )

    print("\n### Quality (R@5 / MRR / NDCG@5, depth 10)\n")
    print("| ranker | " + " | ".join(sets) + " | mean R@5 |")
    print("|---|" + "---|" * len(sets) + "---:|")
    means = {}
    for name in names:
        cells = [
            f"{table[s][name]['recall@5']:.3f} / {table[s][name]['mrr']:.3f} / {table[s][name]['ndcg@5']:.3f}"
            for s in sets
        ]
        means[name] = sum(table[s][name]["recall@5"] for s in sets) / len(sets)
        label = f"**{name}**" if name == "default" else name
        print(f"| {label} | " + " | ".join(cells) + f" | {means[name]:.3f} |")

    ok = True
    if "default" in rankers and peers:
        print()
        for s in sets:
            best_r5 = max(table[s][p]["recall@5"] for p in peers)
            best_mrr = max(table[s][p]["mrr"] for p in peers)
            ours = table[s]["default"]
            good = ours["recall@5"] >= best_r5 and ours["mrr"] >= best_mrr
            ok &= good
            print(
                f"- {s}: default R@5 {ours['recall@5']:.3f} vs best peer {best_r5:.3f}, "
                f"MRR {ours['mrr']:.3f} vs {best_mrr:.3f} — {'met' if good else 'NOT met'}"
            )
        if len(sets) == len(SETS):
            best_peer = max(peers, key=lambda p: means[p])
            margin = means["default"] - means[best_peer]
            good = margin >= 0.03
            ok &= good
            print(
                f"- mean R@5: default {means['default']:.3f} vs best peer {best_peer} {means[best_peer]:.3f} "
                f"(+{margin:.3f}; target +0.030) — {'met' if good else 'NOT met'}"
            )
    if "hybrid" in rankers and "default" in rankers:
        ok &= hybrid_targets(table, sets, _model_label(embed))
    return ok


def _model_label(embed: Any) -> str | None:
    """The model as the targets name it: folder or Hub id, endpoint, and prompts when set."""
    if embed is None:
        return None
    label = embed.model + (f" @ {embed.base_url}" if embed.base_url else "")
    for name in ("query_prefix", "document_prefix", "weight"):
        if getattr(embed, name) is not None:
            label += f", {name} {getattr(embed, name)!r}"
    return label


#: Sets whose queries are English (the hybrid target is on their mean).
ENGLISH = ("bfcl_static", "metatool", "seal_tools", "toolbench_g3", "ultratool_en")


def hybrid_targets(table: dict[str, dict[str, dict[str, float]]], sets: list[str], model: str | None) -> bool:
    """Issue 12: hybrid >= default + 0.05 on the English mean, >= 0.76 on metatool, never below default."""
    ok = True
    print(f"\nHybrid targets (model: {model}):")
    english = [s for s in sets if s in ENGLISH]
    if len(english) == len(ENGLISH):
        hyb = sum(table[s]["hybrid"]["recall@5"] for s in english) / len(english)
        dft = sum(table[s]["default"]["recall@5"] for s in english) / len(english)
        good = hyb >= dft + 0.05
        ok &= good
        print(
            f"- English mean R@5: hybrid {hyb:.3f} vs default {dft:.3f} (+{hyb - dft:.3f}; target +0.050) — "
            f"{'met' if good else 'NOT met'}"
        )
    if "metatool" in sets:
        value = table["metatool"]["hybrid"]["recall@5"]
        good = value >= 0.76
        ok &= good
        print(f"- metatool R@5: hybrid {value:.3f} (target 0.760) — {'met' if good else 'NOT met'}")
    for s in sets:
        hyb_r5, dft_r5 = table[s]["hybrid"]["recall@5"], table[s]["default"]["recall@5"]
        good = hyb_r5 >= dft_r5
        ok &= good
        print(f"- {s}: hybrid R@5 {hyb_r5:.3f} vs default {dft_r5:.3f} — {'met' if good else 'NOT met'}")
    return ok


def real(rankers: list[str], embed: Any = None) -> bool:
    """Issue 18's real-catalog targets: ``default`` at or above plain BM25 (bm25s over name,
    description and parameters) on the mean MRR of both groups, and every exact name first."""
    from benchmarks import real_quality
    from benchmarks.real_catalogs import dataset

    try:
        entries = dataset.load()
    except FileNotFoundError as exc:
        print(f"\n### Real catalogs\n\nskipped: {exc}")
        return True
    peers = ["bm25s", "bm25s (name+desc)", "tantivy+cjk"]
    results = real_quality.evaluate(entries, rankers, peers, embed=embed)
    exact = {e.id: real_quality.exact_name_failures(e, ["default"]) for e in entries}
    requests = sum(len(e.queries) for e in entries)
    print(f"\n### Real catalogs ({len(entries)} catalogs, {requests} requests; MRR and R@5, depth 10)\n")
    print(real_quality.markdown(entries, results, rankers + peers, exact))
    ok = True
    ours = real_quality.group_means(entries, results, "default", "mrr")
    plain = real_quality.group_means(entries, results, "bm25s", "mrr")
    print()
    for group in real_quality.GROUPS:
        met = ours[group] >= plain[group]
        ok &= met
        verdict = "met" if met else "NOT met"
        print(f"- {group}: default MRR {ours[group]:.3f} vs plain BM25 (bm25s) {plain[group]:.3f} — {verdict}")
    misses = sum(len(exact[e.id]["default"]) for e in entries)
    total = sum(len(e.catalog.searchable()) for e in entries)
    ok &= misses == 0
    print(f"- exact names first (default): {total - misses}/{total} — {'met' if not misses else 'NOT met'}")
    try:
        held = dataset.load(heldout=True)
    except FileNotFoundError as exc:
        print(f"\n### Held-out catalogs\n\nskipped: {exc}")
        return ok
    results = real_quality.evaluate(held, rankers, peers, embed=embed)
    exact = {e.id: real_quality.exact_name_failures(e, ["default"]) for e in held}
    requests = sum(len(e.queries) for e in held)
    print(f"\n### Held-out catalogs ({len(held)} catalogs, {requests} requests; no target, not tuned on)\n")
    print(real_quality.markdown(held, results, rankers + peers, exact))
    return ok


def main() -> int:
    parser = options.parser(__doc__)
    options.add_shared(parser)
    parser.add_argument("--part", default="quality,real,scale,startup")
    options.add_sets(parser)
    options.add_rankers(parser, "default")
    parser.add_argument("--peers", default="bm25s,bm25s+cjk,tantivy+cjk,rank-bm25")
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument(
        "--embed-model",
        help="an embedding model: a local folder (benchmarks/export_onnx.py), a pulled Hub id, or a name at "
        "--embed-base-url; adds the embedding, hybrid and hybrid-rrf rankers and checks the hybrid targets",
    )
    parser.add_argument("--embed-base-url", help="an OpenAI-compatible /v1 embeddings endpoint serving --embed-model")
    parser.add_argument("--embed-query-prefix", help="override the model's query prompt ('' for none)")
    parser.add_argument("--embed-document-prefix", help="override the model's document prompt ('' for none)")
    parser.add_argument("--embed-multilingual", action="store_true", help="the model reads Chinese too")
    parser.add_argument("--embed-weight", type=float, help="hybrid's semantic share (default 0.5)")
    args = parser.parse_args()
    embed = None
    if args.embed_model:
        from toolsearch_cli.search.embed_settings import EmbedSettings

        embed = EmbedSettings(
            model=args.embed_model,
            base_url=args.embed_base_url,
            multilingual=args.embed_multilingual,
            query_prefix=args.embed_query_prefix,
            document_prefix=args.embed_document_prefix,
            weight=args.embed_weight,
            timeout=600,
        )
        if args.rankers == "default":
            args.rankers = "default,embedding,hybrid,hybrid-rrf"
    parts = args.part.split(",")
    print(f"Machine: {machine()}\n")
    ok = True
    shared = Path(args.shared) / "eval"
    if "quality" in parts or "scale" in parts:
        if not shared.is_dir():
            print(f"no eval sets at {shared}", file=sys.stderr)
            return 2
    if "quality" in parts:
        peers = [p for p in args.peers.split(",") if p]
        ok &= quality(shared, args.sets.split(","), peers, args.rankers.split(","), embed)
    if "real" in parts:
        ok &= real(args.rankers.split(","), embed)
    if "scale" in parts:
        from benchmarks import scale

        ok &= scale.run(shared / "seal_tools", [int(s) for s in args.sizes.split(",")], args.queries)
    if "startup" in parts:
        from benchmarks import startup

        ok &= startup.run()
    print(f"\nAll targets met: {'yes' if ok else 'NO'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
