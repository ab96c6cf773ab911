"""Multi-intent requests: score tools against a request's parts, variants side by side (issue 19, ``multiq``).

Usage (an embedding model as for harness.py; the vector cache makes re-runs cheap):

    python -m benchmarks multiq --embed-model ~/models/all-MiniLM-L6-v2-onnx --sets toolbench_g3,seal_tools
    python -m benchmarks multiq --embed-base-url http://127.0.0.1:8767/v1 \\
        --embed-model use-multilingual-v3-onnx --embed-multilingual --real

Each variant is ``hybrid`` (or ``embedding``) with two things changed, nothing else:

* the *splitter*: which texts of a request are embedded (``whole``: the request alone;
  ``sent``: the request and its sentences, what ``hybrid`` did before; ``parts``: the request and
  its parts, :func:`toolsearch_cli.search.text.request_parts`);
* the *combination*: how the views' cosines become a tool's semantic part (see :data:`COMBINE`).

Every variant runs through the ranker's own ``search`` (the lexical side computed once per request
and reused), so its figures are the ranker's. Per set: R@5 and MRR (depth 10, all requests), and
against the first variant the requests whose R@5 went up / down.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks import options
from benchmarks.common import load_set, ranked_names
from toolsearch_cli.evaluate import query_metrics
from toolsearch_cli.search import hybrid as H
from toolsearch_cli.search.base import SearchRequest
from toolsearch_cli.search.bm25f import MAX_CLAUSES, BM25FRanker
from toolsearch_cli.search.embed import EmbedSettings
from toolsearch_cli.search.text import classic_normalize, split_sentences

HERE = Path(__file__).resolve().parent

DEPTH = 10


def split_whole(query: str) -> list[str]:
    return [query]


def split_sent(query: str) -> list[str]:
    """``hybrid``'s views before this work: the request, and its sentences when 2 to 16."""
    sentences = [s for s in split_sentences(query) if classic_normalize(s)]
    return [query, *sentences] if 1 < len(sentences) <= MAX_CLAUSES else [query]


def split_sentq(query: str) -> list[str]:
    """sentences, none ending inside quotes, tiny ones joined to a neighbour, at most 8 runs."""
    from toolsearch_cli.search.text import request_parts

    return [query, *request_parts(query)]


def split_parts(query: str) -> list[str]:
    """``sentq``, and clauses a connective starts ("…, and also …", "…，然后…") split too."""
    from toolsearch_cli.search.text import request_parts

    return [query, *request_parts(query, clauses=True)]


SPLIT: dict[str, Callable[[str], list[str]]] = {
    "whole": split_whole,
    "sent": split_sent,
    "sentq": split_sentq,
    "parts": split_parts,
}


_rescale = H.rescale_views  # each view between its k-th best and best, as hybrid rescales
#: (before) each view rescaled on its own, a tool's best view: what ``hybrid`` ships
combine_max = H.best_rescaled_view


def combine_joint(sims: Any, k: int) -> tuple[Any, Any]:
    """each tool's best raw cosine over the views, then rescaled as one view."""
    import numpy as np

    view = sims.argmax(axis=0)
    best = sims[view, np.arange(sims.shape[1])][None, :]
    rescaled, _, _ = _rescale(best, k)
    return np.maximum(rescaled[0], 0.0), view


def _joint_blend(share: float) -> Callable[[Any, int], tuple[Any, Any]]:
    def combine(sims: Any, k: int) -> tuple[Any, Any]:
        """raw cosines: ``share`` of the whole request's plus the rest of the best view's (the whole
        included), rescaled as one view."""
        import numpy as np

        view = sims.argmax(axis=0)
        mixed = share * sims[0] + (1 - share) * sims[view, np.arange(sims.shape[1])]
        rescaled, _, _ = _rescale(mixed[None, :], k)
        return np.maximum(rescaled[0], 0.0), view

    return combine


def combine_span(sims: Any, k: int) -> tuple[Any, Any]:
    """each view from its own floor, but over the widest view's span: a view whose best tool stands
    out less from its 50th than another view's counts for less."""
    import numpy as np

    ordered = -np.partition(-sims, k - 1, axis=1)
    floor = np.maximum(ordered[:, k - 1 : k], 0.0)
    span = float((ordered[:, :1] - floor).max())
    if span <= 0:
        zero = np.zeros(sims.shape[1])
        return zero, zero.astype(int)
    rescaled = np.nan_to_num((sims - floor) / span, nan=0.0, neginf=0.0)
    view = rescaled.argmax(axis=0)
    return np.maximum(rescaled[view, np.arange(len(view))], 0.0), view


def combine_cap(sims: Any, k: int) -> tuple[Any, Any]:
    """each view from its own ``k``-th best up to the best cosine of any view: a view's best tool
    gets full marks only if it is as close to its view as the request's best match is to its own."""
    import numpy as np

    ordered = -np.partition(-sims, k - 1, axis=1)
    floor = np.maximum(ordered[:, k - 1 : k], 0.0)
    top = float(ordered[:, 0].max())
    span = top - floor
    with np.errstate(invalid="ignore", divide="ignore"):
        rescaled = (sims - floor) / np.where(span > 0, span, np.inf)
    rescaled = np.nan_to_num(rescaled, nan=0.0, neginf=0.0, copy=False)
    view = rescaled.argmax(axis=0)
    return np.maximum(rescaled[view, np.arange(len(view))], 0.0), view


def combine_halfcap(sims: Any, k: int) -> tuple[Any, Any]:
    """between ``max`` and ``cap``: each view from its own ``k``-th best up to the mean of its own
    best and the best of any view."""
    import numpy as np

    ordered = -np.partition(-sims, k - 1, axis=1)
    floor = np.maximum(ordered[:, k - 1 : k], 0.0)
    top = (ordered[:, :1] + float(ordered[:, 0].max())) / 2
    span = top - floor
    with np.errstate(invalid="ignore", divide="ignore"):
        rescaled = (sims - floor) / np.where(span > 0, span, np.inf)
    rescaled = np.nan_to_num(rescaled, nan=0.0, neginf=0.0, copy=False)
    view = rescaled.argmax(axis=0)
    return np.clip(rescaled[view, np.arange(len(view))], 0.0, 1.0), view


def _blend(share: float) -> Callable[[Any, int], tuple[Any, Any]]:
    def combine(sims: Any, k: int) -> tuple[Any, Any]:
        """the whole request's rescaled cosine blended with the best part's."""
        import numpy as np

        rescaled, _, _ = _rescale(sims, k)
        if len(rescaled) == 1:
            return np.maximum(rescaled[0], 0.0), np.zeros(sims.shape[1], dtype=int)
        best = rescaled[1:].argmax(axis=0)
        part = rescaled[1:][best, np.arange(len(best))]
        mixed = share * rescaled[0] + (1 - share) * part
        view = np.where(rescaled[0] >= part, 0, best + 1)
        return np.maximum(mixed, 0.0), view

    return combine


def combine_maxsecond(sims: Any, k: int) -> tuple[Any, Any]:
    """each view rescaled; a tool's best view, discounted when no other view places it well
    (best + second best) / 2 over the views: agreement between the whole and a part counts."""
    import numpy as np

    rescaled, _, _ = _rescale(sims, k)
    rescaled = np.maximum(rescaled, 0.0)
    if len(rescaled) == 1:
        return rescaled[0], np.zeros(sims.shape[1], dtype=int)
    ordered = -np.sort(-rescaled, axis=0)
    view = rescaled.argmax(axis=0)
    return (ordered[0] + ordered[1]) / 2, view


COMBINE: dict[str, Callable[[Any, int], tuple[Any, Any]]] = {
    "max": combine_max,
    "joint": combine_joint,
    "span": combine_span,
    "jblend50": _joint_blend(0.5),
    "jblend60": _joint_blend(0.6),
    "jblend70": _joint_blend(0.7),
    "jblend30": _joint_blend(0.3),
    "cap": combine_cap,
    "halfcap": combine_halfcap,
    "blend50": _blend(0.5),
    "blend30": _blend(0.3),
    "max2": combine_maxsecond,
}


class _MemoLexical:
    """``default`` once per (catalog, request, depth): every variant fuses the same lexical list."""

    def __init__(self) -> None:
        self.ranker = BM25FRanker()
        self.memo: dict[tuple[int, str, int, str | None], Any] = {}

    def search(self, catalog: Any, request: SearchRequest) -> Any:
        import copy

        key = (id(catalog), request.query, request.max_results, request.category)
        if key not in self.memo:
            try:
                self.memo[key] = self.ranker.search(catalog, request)
            except Exception as exc:  # noqa: BLE001 - a refused query is refused for every variant
                self.memo[key] = exc
        hits = self.memo[key]
        if isinstance(hits, Exception):
            raise hits
        return copy.deepcopy(hits) if request.explain else list(hits)


def variant(kind: str, split: str, combine: str, embed: EmbedSettings, lexical: _MemoLexical) -> Any:
    """A ranker of ``kind`` (hybrid / embedding) with this splitter and combination."""
    splitter, combiner = SPLIT[split], COMBINE[combine]

    def semantic(index: Any, embedder: Any, views: list[str], depth: int, category: str | None) -> Any:
        sims = H.view_similarities(index, embedder, views, category, persist=True)
        return H.semantic_side(index, sims, depth, combiner)

    if kind == "hybrid":

        class Variant(H.HybridRanker):
            def search(self, catalog: Any, request: SearchRequest) -> Any:
                saved = H.query_views
                H.query_views = splitter
                try:
                    return super().search(catalog, request)
                finally:
                    H.query_views = saved

        ranker = Variant(embed=embed)
        ranker._semantic = semantic  # type: ignore[method-assign]
        ranker.lexical = lexical  # type: ignore[assignment]
        return ranker

    class Dense(H.EmbeddingRanker):
        def search(self, catalog: Any, request: SearchRequest) -> Any:
            from toolsearch_cli.search.base import Hit

            H._check_query(request)
            embedder = self.embedder()
            index = H.vector_index(catalog, embedder)
            sem = semantic(index, embedder, splitter(request.query), max(50, request.max_results), request.category)
            return [Hit(tool=t, score=s) for t, s in sem.ranked[: request.max_results] if s > 0]

    return Dense(embed=embed)


def embed_views(embed: EmbedSettings, queries: list[str], splits: list[str]) -> None:
    """Every view of every request under every splitter, in batches through the on-disk store."""
    from toolsearch_cli.search.embed import embedder_for

    views = list(dict.fromkeys(v for q in queries if classic_normalize(q) for s in splits for v in SPLIT[s](q)))
    H.query_vectors(embedder_for(embed), views, persist=True)


def score(run: Callable[[str], list[str]], queries: list[tuple[str, set[str]]]) -> list[tuple[float, float]]:
    out = []
    for query, relevant in queries:
        m = query_metrics(run(query), relevant, (5,))
        out.append((m["recall@5"], m["mrr"]))
    return out


def cost(embed: EmbedSettings, sets: list[tuple[str, list[str]]], rounds: int) -> None:
    """CPU seconds per request of embedding it whole (one text) against whole and parts (one batch),
    each request a call of its own as a new search makes it; the two alternate, ``rounds`` times."""
    from toolsearch_cli.search.embed import embedder_for
    from toolsearch_cli.search.hybrid import embedding_views

    embedder = embedder_for(embed)
    embedder.embed(["warm the session up"])
    print("| set | requests | texts per request | CPU ms, whole only | CPU ms, whole and parts | added |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, queries in sets:
        views = [embedding_views(q) for q in queries]
        spent = {"whole": [], "parts": []}
        for _ in range(rounds):
            for kind in ("whole", "parts"):
                start = time.process_time()
                for q, v in zip(queries, views, strict=True):
                    embedder.embed([q] if kind == "whole" else v)
                spent[kind].append((time.process_time() - start) / len(queries))
        whole, parts = statistics.median(spent["whole"]) * 1000, statistics.median(spent["parts"]) * 1000
        texts = statistics.fmean(map(len, views))
        print(f"| {name} | {len(queries)} | {texts:.2f} | {whole:.1f} | {parts:.1f} | {parts - whole:+.1f} |")


def main() -> int:
    parser = options.parser(__doc__)
    options.add_shared(parser)
    options.add_sets(parser)
    parser.add_argument(
        "--variants",
        default="hybrid:sent:max,hybrid:parts:max",
        help="KIND:SPLIT:COMBINE,... (KIND hybrid/embedding; the first is the baseline of the up/down counts)",
    )
    parser.add_argument("--default", action="store_true", help="also the default ranker, as a row")
    parser.add_argument("--real", action="store_true", help="the real catalogs (and held-out) instead of the sets")
    parser.add_argument(
        "--cost",
        type=int,
        metavar="N",
        help="instead: CPU per request of embedding its parts (N requests a set, spread)",
    )
    options.add_embed(parser)
    args = parser.parse_args()
    embed = EmbedSettings(model=args.embed_model, base_url=args.embed_base_url, multilingual=args.embed_multilingual)
    specs = [tuple(v.split(":")) for v in args.variants.split(",")]
    splits = sorted({s for _, s, _ in specs})
    lexical = _MemoLexical()
    rows: dict[str, dict[str, list[tuple[float, float]]]] = {}  # set -> variant -> per-request metrics

    if args.cost:
        chosen = []
        for name in args.sets.split(","):
            _, queries = load_set(Path(args.shared) / "eval" / name)
            step = max(1, len(queries) // args.cost)  # spread over the set, in file order
            chosen.append((name, [q.query for q in queries[::step][: args.cost]]))
        cost(embed, chosen, rounds=5)
        return 0
    if args.real:
        from benchmarks.real_catalogs import dataset

        groups: dict[str, str] = {}
        for held in (False, True):
            for entry in dataset.load(heldout=held):
                label = ("held-out " if held else "") + entry.id
                groups[label] = ("held-out " if held else "") + entry.group
                sets = [(label, entry.catalog, [(q, set(r)) for q, r in entry.queries])]
                _run_sets(sets, specs, splits, embed, lexical, args.default, rows)
        _print(rows, specs, args.default, groups)
        return 0
    sets = []
    for name in args.sets.split(","):
        catalog, queries = load_set(Path(args.shared) / "eval" / name)
        sets.append((name, catalog, [(q.query, set(q.relevant)) for q in queries]))
    _run_sets(sets, specs, splits, embed, lexical, args.default, rows)
    _print(rows, specs, args.default, None)
    return 0


def _run_sets(sets: list, specs: list, splits: list[str], embed: EmbedSettings, lexical: _MemoLexical,
              with_default: bool, rows: dict) -> None:  # fmt: skip
    for name, catalog, queries in sets:
        start = time.perf_counter()
        embed_views(embed, [q for q, _ in queries], splits)
        rows[name] = {}
        if with_default:
            rows[name]["default"] = score(ranked_names(BM25FRanker(), catalog, DEPTH), queries)
        for spec in specs:
            rows[name][":".join(spec)] = score(ranked_names(variant(*spec, embed, lexical), catalog, DEPTH), queries)
        print(f"  {name}: {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)


def _print(rows: dict, specs: list, with_default: bool, groups: dict[str, str] | None) -> None:
    names = (["default"] if with_default else []) + [":".join(s) for s in specs]
    base = ":".join(specs[0])
    print("| set | requests | " + " | ".join(names) + " |")
    print("|---|---:|" + "---|" * len(names))
    for set_name, by in rows.items():
        cells = []
        for name in names:
            r5 = statistics.fmean(m[0] for m in by[name])
            mrr = statistics.fmean(m[1] for m in by[name])
            cell = f"{r5:.3f} / {mrr:.3f}"
            if name != base and name != "default":
                up = sum(a[0] > b[0] for a, b in zip(by[name], by[base], strict=True))
                down = sum(a[0] < b[0] for a, b in zip(by[name], by[base], strict=True))
                cell += f" (+{up}/-{down})"
            cells.append(cell)
        print(f"| {set_name} | {len(next(iter(by.values())))} | " + " | ".join(cells) + " |")
    if groups:
        print()
        for group in dict.fromkeys(groups.values()):
            members = [s for s in rows if groups[s] == group]
            cells = []
            for name in names:
                r5 = statistics.fmean(statistics.fmean(m[0] for m in rows[s][name]) for s in members)
                mrr = statistics.fmean(statistics.fmean(m[1] for m in rows[s][name]) for s in members)
                cells.append(f"{r5:.3f} / {mrr:.3f}")
            print(f"| mean {group} ({len(members)} catalogs) | | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    raise SystemExit(main())
