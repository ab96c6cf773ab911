"""Ablations of the default ranker on every dev set, in one process (the table of benchmarks/README.md).

Usage:
    python -m benchmarks ablate                       # every variant below
    python -m benchmarks ablate --variants current,no-tags --sets toolbench_g3
    python -m benchmarks ablate --diagnose toolbench_g3  # per-query misses of `current` vs `bm25ref`

Each variant patches the ranker's module constants (field weights and b, k1, ...), rebuilds the
index of every set and runs every query through the real `default` ranker. `bm25ref` is a
re-implementation of the reference BM25 of ../shared/eval/README.md (k1 1.5, b 0.75, one field:
name + description + parameter names and descriptions, no stemming), to compare per query.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from benchmarks import options
from benchmarks.common import load_set, ranked_names
from toolsearch_cli import indexes
from toolsearch_cli.evaluate import Query, query_metrics
from toolsearch_cli.model import Catalog
from toolsearch_cli.search import bm25f, text

HERE = Path(__file__).resolve().parent


@contextmanager
def patched(**changes: Any) -> Iterator[None]:
    """Set attributes of the bm25f module (FIELD_SPECS entries as ``spec_<field>=(weight, b)``)."""
    saved_specs = dict(bm25f.FIELD_SPECS)
    saved = {}
    try:
        for key, value in changes.items():
            if key.startswith("spec_"):
                field = key[5:]
                old = bm25f.FIELD_SPECS[field]
                ratio = value[2] if len(value) > 2 else old.max_ratio
                bm25f.FIELD_SPECS[field] = bm25f.FieldSpec(value[0], value[1], old.reported_as, ratio)
            else:
                saved[key] = getattr(bm25f, key)
                setattr(bm25f, key, value)
        _refresh_model()
        yield
    finally:
        bm25f.FIELD_SPECS.clear()
        bm25f.FIELD_SPECS.update(saved_specs)
        for key, value in saved.items():
            setattr(bm25f, key, value)
        _refresh_model()


def _refresh_model() -> None:
    bm25f.FIELD_MODEL = bm25f.field_model()
    bm25f._PACKED_ACTIONS.clear()  # a packed tool's action is memoised, and the ACTION_* switches change it


_OLD_WEIGHTS = {"spec_name": (3.0, 0.3), "spec_params": (0.7, 0.5), "spec_param_text": (0.4, 0.3)}
#: name -> keyword arguments of :func:`patched`. ``current`` is the ranker as shipped; ``before``
#: the ranker before issue 12 (no sentence bonus, no query-term weights, its old field weights;
#: enum values weighed as parameter descriptions did, so the same); the rest take one step back.
VARIANTS: dict[str, dict[str, Any]] = {
    "current": {},
    "before": {"QUERY_K3": 0.0, "CLAUSE_SHARE": 0.0, "COVER_SHARE": 0.0, **_OLD_WEIGHTS},
    "old field weights": _OLD_WEIGHTS,
    "no sentence bonus": {"CLAUSE_SHARE": 0.0},
    "no query-term weights": {"QUERY_K3": 0.0},
    "no coverage bonus": {"COVER_SHARE": 0.0},
    "sentence share 1": {"CLAUSE_SHARE": 1.0},
    "name 2": {"spec_name": (2.0, 0.75)},
    "name 1.5 b 0.3": {"spec_name": (1.5, 0.3)},
    "flat (every field 1 and b 0.75)": {
        f"spec_{f}": (1.0, 0.75) for f in ("name", "category", "tags", "params", "param_text", "param_values")
    },
}


def default_run(catalog: Catalog, depth: int = 10) -> Callable[[str], list[str]]:
    indexes.forget(catalog)  # each variant builds its own index
    return ranked_names(bm25f.BM25FRanker(), catalog, depth)


# -- the reference BM25, for per-query comparison --------------------------------------------

_REF_STOP = frozenset("a an and are as at be by for from has in is it of on or that the to was were will with".split())


def _ref_terms(value: str) -> list[str]:
    out: list[str] = []
    for word in text._RUN.findall(text.split_identifiers(value)):
        for part in text._words(word):
            part = part.casefold()
            if text.is_cjk(part[0]):
                out.extend(part if len(part) == 1 else [part[i : i + 2] for i in range(len(part) - 1)])
            elif part not in _REF_STOP:
                out.append(part)
    return out


def bm25ref_run(catalog: Catalog) -> Callable[[str], list[str]]:
    docs: list[tuple[str, dict[str, int], int]] = []
    df: dict[str, int] = {}
    for tool in catalog.searchable():
        parts = [tool.name, tool.description]
        for top in tool.parameter_tree(include_array_items=True):
            for p in top.walk():
                parts += [p.name, p.description]
        counts: dict[str, int] = {}
        terms = _ref_terms(" ".join(parts))
        for t in terms:
            counts[t] = counts.get(t, 0) + 1
        for t in counts:
            df[t] = df.get(t, 0) + 1
        docs.append((tool.name, counts, len(terms)))
    n = len(docs)
    avg = sum(d[2] for d in docs) / n

    def run(query: str) -> list[str]:
        terms = list(dict.fromkeys(_ref_terms(query)))
        scored = []
        for name, counts, length in docs:
            s = 0.0
            for t in terms:
                tf = counts.get(t)
                if tf:
                    idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
                    s += idf * tf * 2.5 / (tf + 1.5 * (0.25 + 0.75 * length / avg))
            if s > 0:
                scored.append((-s, name))
        scored.sort()
        return [name for _, name in scored[:10]]

    return run


# -- running ------------------------------------------------------------------------------------


def measure(sets: dict[str, tuple[Catalog, list[Any]]], make: Callable[[Catalog], Callable[[str], list[str]]]):
    out = {}
    for name, (catalog, queries) in sets.items():
        run = make(catalog)
        sums = {"recall@5": 0.0, "mrr": 0.0}
        for q in queries:
            m = query_metrics(run(q.query), set(q.relevant), (5,))
            sums["recall@5"] += m["recall@5"]
            sums["mrr"] += m["mrr"]
        out[name] = {k: v / len(queries) for k, v in sums.items()}
    return out


def row(label: str, result: dict[str, dict[str, float]]) -> str:
    cells = [f"{result[s]['recall@5']:.3f} / {result[s]['mrr']:.3f}" for s in result]
    mean = sum(r["recall@5"] for r in result.values()) / len(result)
    return f"| {label} | " + " | ".join(cells) + f" | {mean:.3f} |"


def diagnose(catalog: Catalog, queries: list[Any], limit: int) -> None:
    ours, ref = default_run(catalog), bm25ref_run(catalog)
    shown = 0
    for q in queries:
        a, b = ours(q.query), ref(q.query)
        ra = query_metrics(a, set(q.relevant), (5,))["recall@5"]
        rb = query_metrics(b, set(q.relevant), (5,))["recall@5"]
        if rb > ra:
            print(f"\n{q.id}: default {ra:.2f} < bm25ref {rb:.2f}\n  {q.query}\n  relevant: {q.relevant}")
            print(f"  default: {a[:6]}\n  bm25ref: {b[:6]}")
            shown += 1
            if shown >= limit:
                return


def probe_sets(sets: dict[str, tuple[Catalog, list[Any]]]) -> dict[str, tuple[Catalog, list[Any]]]:
    """Query styles no dev set has, made from the dev queries themselves (labels unchanged in meaning):

    * ``<set>×3``: three consecutive queries as one request ("A. Also, b. Finally, C."), relevant =
      the union (multi-tool requests);
    * ``<set>-implicit``: each query without the words of its relevant tools' names (requests that
      describe the task without the API's vocabulary); queries left empty are dropped.
    The first 3,000 queries of each set are used.
    """
    out = {}
    for name in ("bfcl_static", "metatool", "seal_tools", "ultratool_en"):
        if name not in sets:
            continue
        catalog, queries = sets[name]
        queries = queries[:3000]
        joined = []
        for i in range(0, len(queries) - 2, 3):
            a, b, c = queries[i : i + 3]
            request = f"{a.query} Also, {b.query[:1].lower() + b.query[1:]} Finally, {c.query}"
            joined.append(
                Query(id=f"x{i}", query=request, relevant=list(dict.fromkeys(a.relevant + b.relevant + c.relevant)))
            )
        out[f"{name}×3"] = (catalog, joined)
    for name in ("bfcl_static", "metatool", "seal_tools", "toolbench_g3", "ultratool_en"):
        if name not in sets:
            continue
        catalog, queries = sets[name]
        implicit = []
        for q in queries[:3000]:
            banned = {term for tool in q.relevant for term in text.analyze(catalog.get(tool).name)}
            words = [w for w in q.query.split() if not set(text.analyze(w)) & banned]
            if words:
                implicit.append(Query(id=q.id, query=" ".join(words), relevant=q.relevant))
        out[f"{name}-implicit"] = (catalog, implicit)
    return out


def main() -> int:
    parser = options.parser(__doc__)
    options.add_shared(parser)
    options.add_sets(parser)
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--metatool-every", type=int, default=1, help="use every n-th metatool query (speed)")
    parser.add_argument("--bm25ref", action="store_true", help="also measure the reference re-implementation")
    parser.add_argument("--probes", action="store_true", help="multi-tool and implicit sets made from the dev queries")
    parser.add_argument("--only-probes", action="store_true", help="the probe sets alone")
    parser.add_argument("--diagnose", metavar="SET")
    options.add_limit(parser, 20, help="--diagnose: how many queries to show")
    args = parser.parse_args()
    root = Path(args.shared) / "eval"
    names = [args.diagnose] if args.diagnose else args.sets.split(",")
    sets = {}
    for name in names:
        catalog, queries = load_set(root / name)
        if name == "metatool":
            queries = queries[:: args.metatool_every]
        sets[name] = (catalog, queries)
    if args.diagnose:
        diagnose(*sets[args.diagnose], args.limit)
        return 0
    if args.probes or args.only_probes:
        probes = probe_sets(sets)
        sets = probes if args.only_probes else {**sets, **probes}
    print("| variant | " + " | ".join(sets) + " | mean R@5 |")
    print("|---|" + "---|" * len(sets) + "---:|")
    if args.bm25ref:
        print(row("bm25ref (re-implemented)", measure(sets, bm25ref_run)), flush=True)
    for variant in args.variants.split(","):
        start = time.perf_counter()
        with patched(**VARIANTS[variant]):
            result = measure(sets, default_run)
        print(row(variant, result), flush=True)
        print(f"  ({time.perf_counter() - start:.1f}s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
