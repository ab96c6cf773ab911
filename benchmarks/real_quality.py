"""Retrieval quality on real catalogs: our rankers against the peers, per catalog, per group, per request.

Usage:
    python -m benchmarks fetch           # once: downloads and builds the catalogs
    python -m benchmarks real                  # default and the peers on every real set
    python -m benchmarks real --sets shared --per-query     # each request's first relevant rank
    python -m benchmarks real --rankers default,hybrid --embed-model FOLDER --per-query

The sets (``--sets``, comma-separated; all but ``heldout`` by default):

* ``project`` — benchmarks/real_catalogs (23 catalogs, 484 requests);
* ``shared``  — ../shared/eval/realworld-dev (9 catalogs, 46 requests; group from the folder's
  prefix: ``oa-`` OpenAPI, the rest MCP servers and toolkits); skipped with a note when absent;
* ``blind``   — real_catalogs/blind-rank.yaml (28 requests on netlify and square, written before
  any ranking was seen, issue 32);
* ``heldout`` — the held-out catalogs (Kubernetes, Docker Engine, Mastodon, Hetzner);
* ``blind4``  — real_catalogs/blind4.yaml (90 requests on nine catalogs used nowhere else: five OpenAPI
  documents, four MCP catalogs; written before any ranking was seen on them, issue 32; not by default);
* ``blind5``  — real_catalogs/blind5.yaml (96 requests on nine more such catalogs: five OpenAPI documents,
  four MCP catalogs; written the same way; not by default); skipped with a note when its request file
  or one of its OpenAPI documents is absent (``python -m benchmarks fetch --only ...`` fetches them);
* ``blind6``  — real_catalogs/blind6.yaml (106 requests on ten more such catalogs: five OpenAPI documents,
  five MCP catalogs; written the same way; not by default), skipped likewise;
* ``blind7``  — real_catalogs/blind7.yaml (106 requests on ten more such catalogs, MCP-heavy: three OpenAPI
  documents, seven MCP servers; written the same way; not by default), skipped likewise;
* ``blind8``  — real_catalogs/blind8.yaml (100 requests on nine more such catalogs, MCP-heavy: three OpenAPI
  documents, seven MCP servers in six catalogs; written the same way; not by default), skipped likewise;
* ``blind9``  — real_catalogs/blind9.yaml (100 requests on ten more such catalogs, MCP-heavy: three OpenAPI
  documents, seven MCP servers; written the same way; not by default; UNSEEN: measured by the lead,
  never tuned on), skipped likewise.

Two diagnostics per ranker and set (``diagnose``), computed from the analysed words each hit shares
with the request (``bm25f.tool_fields``, the same for every ranker): *param-only above own* — the
share of requests where a hit that matched on parameters only ranks above a hit that matched the
name or description (title, category and tags count as the tool's own words); *value-only top* —
the share of requests whose top hit's matched words are all value-like
(``toolsearch_cli.search.values``: proper nouns, numbers, dates, quoted strings, e-mails, ids).

Metrics as in ../shared/eval/README.md (MRR and Recall@5, each query ranked 10 deep), averaged per
catalog and then over the catalogs of a group (OpenAPI documents, MCP servers), as issue 18 states
its targets. Peers index the text of ``peers.tool_text`` (name, description, category, tags and
every parameter's name and description, nested ones included: "plain BM25 with parameters");
``bm25s (name+desc)`` indexes name and description only. Also checked: every tool's exact name as
the query ranks it first (``exact names``), for each ranker.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks import options
from benchmarks.common import ROOT, ranked_names
from benchmarks.peers import PEERS, Bm25sPeer, tool_text
from toolsearch_cli.evaluate import query_metrics
from toolsearch_cli.search import get_ranker

HERE = Path(__file__).resolve().parent

DEPTH = 10
GROUPS = ("openapi", "mcp")
SETS = ("project", "shared", "blind", "heldout", "blind4", "blind5", "blind6", "blind7", "blind8", "blind9")
#: The newest blind set, measured and never tuned on (ablate-groups and fusion-replay never read it).
#: Blind set 9 since round 9 (blind set 8 was measured on round 8's merge and then read request by
#: request for round 9, so it is a tuning set).
UNSEEN_SETS: tuple[str, ...] = ("blind9",)
#: The sets ranking work is tuned on (ablate-groups, fusion-replay): every set but the unseen one.
TUNING_SETS = tuple(name for name in SETS if name not in UNSEEN_SETS)
#: Sets of OpenAPI documents only (the others have an OpenAPI and an MCP group).
OPENAPI_ONLY_SETS = ("blind", "heldout")
SHARED = ROOT.parent / "shared" / "eval" / "realworld-dev"
BLIND = HERE / "real_catalogs" / "blind-rank.yaml"
PARAM_FIELDS = frozenset({"params", "param_text", "param_values"})


def load_shared(root: Path = SHARED) -> list:
    """The catalogs of ../shared/eval/realworld-dev as dataset Entries ([] when the folder is absent)."""
    import yaml

    from benchmarks.real_catalogs import dataset
    from toolsearch_cli import load_catalog

    entries = []
    if not root.is_dir():
        return entries
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        catalogs = sorted(folder.glob("catalog.*"))
        queries = folder / "queries.yaml"
        if not catalogs or not queries.is_file():
            continue
        group = "openapi" if folder.name.startswith("oa-") else "mcp"
        entry = dataset.Entry(folder.name, group, catalogs[0], load_catalog([str(catalogs[0])]))
        for item in yaml.safe_load(queries.read_text(encoding="utf-8")) or []:
            entry.queries.append((str(item["query"]), set(item["relevant"])))
            entry.styles.append(None)
        entries.append(entry)
    return entries


def load_blind(cache: str | None = None) -> list:
    """The catalogs of blind-rank.yaml with those requests only."""
    from benchmarks.real_catalogs import dataset

    requests = dataset.read_requests(BLIND)
    entries = dataset.load(cache, {r.catalog for r in requests})
    for entry in entries:
        mine = [r for r in requests if r.catalog == entry.id]
        entry.queries = [(r.query, r.relevant) for r in mine]
        entry.styles = [r.style for r in mine]
    return entries


def load_blind_set(name: str, cache: str | None = None, only: set[str] | None = None) -> list:
    """Blind set ``name``'s entries (``blind4`` to ``blind9``: dataset.BLIND_SETS); none, with a note,
    when its request file or a catalog is absent."""
    from benchmarks.real_catalogs import dataset

    files, catalogs = dataset.BLIND_SETS[name]
    missing = [path for path in files if not path.is_file()]
    if missing:
        print(f"{name}: skipped, {missing[0]} is absent", file=sys.stderr)
        return []
    try:
        return dataset.load(cache, only, blind=name)
    except FileNotFoundError as exc:
        wanted = " ".join(c for c in catalogs if not only or c in only)
        print(f"{name}: skipped, {exc} --only {wanted}", file=sys.stderr)
        return []


def load_sets(names: list[str], cache: str | None = None, only: set[str] | None = None) -> dict[str, list]:
    """Per set name, its entries (a missing ../shared prints a note and gives none)."""
    from benchmarks.real_catalogs import dataset

    out: dict[str, list] = {}
    for name in names:
        if name == "project":
            out[name] = dataset.load(cache, only)
        elif name == "heldout":
            out[name] = dataset.load(cache, only, True)
        elif name in dataset.BLIND_SETS:
            out[name] = load_blind_set(name, cache, only)
        elif name == "shared":
            out[name] = [e for e in load_shared() if not only or e.id in only]
            if not SHARED.is_dir():
                print(f"shared: skipped, {SHARED} is absent", file=sys.stderr)
        elif name == "blind":
            out[name] = [e for e in load_blind(cache) if not only or e.id in only]
        else:
            raise SystemExit(f"unknown set {name!r} (one of {', '.join(SETS)})")
    return out


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


class FieldsOf:
    """A catalog's tools' analysed fields, split into own words and parameter words (made on first use)."""

    def __init__(self, catalog) -> None:
        self.tools = {t.name: t for t in catalog.searchable()}
        self.cache: dict[str, tuple[frozenset[str], frozenset[str]]] = {}

    def __call__(self, name: str) -> tuple[frozenset[str], frozenset[str]]:
        found = self.cache.get(name)
        if found is None:
            from toolsearch_cli.search.bm25f import tool_fields

            own: set[str] = set()
            params: set[str] = set()
            for field, terms in tool_fields(self.tools[name]).items():
                (params if field in PARAM_FIELDS else own).update(terms)
            found = self.cache[name] = (frozenset(own), frozenset(params))
        return found


def diagnose(query: str, ranked: list[str], fields: FieldsOf) -> tuple[bool, bool]:
    """(a hit matched on parameters only ranks above one that matched its own words, the top
    hit's matched words are all value-like) for one request's ranking. The request's words are the
    default ranker's query terms, related words (``toolsearch_cli.search.related``) included, so a
    hit matched by a related word is not counted as no match."""
    from toolsearch_cli.search.bm25f import query_plan
    from toolsearch_cli.search.values import value_terms

    terms = set(query_plan(query).terms)
    param_only_seen = inverted = False
    for name in ranked:
        own, params = fields(name)
        if terms & own:
            if param_only_seen:
                inverted = True
                break
        elif terms & params:
            param_only_seen = True
    value_top = False
    if ranked:
        own, params = fields(ranked[0])
        matched = terms & (own | params)
        value_top = bool(matched) and matched <= value_terms(query)
    return inverted, value_top


def evaluate(entries, rankers: list[str], peers: list[str], per_query: bool = False, embed=None) -> dict:
    """{catalog id: {ranker: {"mrr", "recall@5", "ms", "inverted", "value_top", "ranks"}}}: the
    means per catalog, the two diagnostics (shares of its requests, see ``diagnose``) and each
    request's rank of its first relevant tool (0: not in the first DEPTH). ``per_query`` prints
    those ranks, one line per request, every ranker side by side (stderr)."""
    results: dict[str, dict[str, dict]] = {}
    for entry in entries:
        results[entry.id] = {}
        fields = FieldsOf(entry.catalog)
        run_of = runners(entry, rankers, peers, embed)
        for name, run in run_of.items():
            mrr, r5, ranks, inverted, value_top, elapsed = [], [], [], [], [], 0.0
            for query, relevant in entry.queries:
                start = time.perf_counter()
                ranked = run(query)
                elapsed += time.perf_counter() - start
                m = query_metrics(ranked, relevant, [5])
                mrr.append(m["mrr"])
                r5.append(m["recall@5"])
                ranks.append(next((i for i, n in enumerate(ranked, 1) if n in relevant), 0))
                inv, val = diagnose(query, ranked, fields)
                inverted.append(inv)
                value_top.append(val)
            results[entry.id][name] = {
                "mrr": statistics.fmean(mrr),
                "recall@5": statistics.fmean(r5),
                "ms": 1000 * elapsed / max(1, len(entry.queries)),
                "inverted": statistics.fmean(inverted),
                "value_top": statistics.fmean(value_top),
                "ranks": ranks,
            }
        if per_query:
            for i, (query, _) in enumerate(entry.queries):
                cells = " ".join(f"{results[entry.id][n]['ranks'][i] or '-':>3}" for n in run_of)
                print(f"  {entry.id:22} {cells}  {query[:90]}", file=sys.stderr)
    return results


def group_means(entries, results: dict, name: str, metric: str) -> dict[str, float]:
    out = {}
    for group in GROUPS:
        values = [results[e.id][name][metric] for e in entries if e.group == group]
        out[group] = statistics.fmean(values) if values else float("nan")
    return out


#: Function words of English and of the other languages requests are written in (German, French,
#: Spanish, Portuguese, Italian, Dutch), for :func:`english` only.
_EN_WORDS = frozenset(
    "the a an to of for and is are my me i it this that with from all what which how who please".split()
)
_OTHER_WORDS = frozenset(
    """der die das den dem ein eine und ist mit für von zu auf ich mein meine bitte nicht alle le la les
    du un une et est pour avec dans sur mes je nous el los las del una para con por que mis es al um uma
    com da dos das não il gli della di che sono het een van voor met op mijn niet als aus bei nach noch""".split()
)


def english(query: str) -> bool:
    """Whether a request is in English: only Latin letters and more English function words than
    those of other languages (a request of no function word at all: no letter outside ASCII)."""
    import unicodedata

    letters = [ch for ch in query if ch.isalpha()]
    if any(not unicodedata.name(ch, "").startswith("LATIN") for ch in letters):
        return False
    words = [w.strip(".,;:!?\"'()[]{}«»¿¡").casefold() for w in query.split()]
    en = sum(1 for w in words if w in _EN_WORDS)
    other = sum(1 for w in words if w in _OTHER_WORDS)
    if en or other:
        return en > other
    return all(ch.isascii() for ch in letters)


def by_language(entries, results: dict, names: list[str]) -> list[str]:
    """Lines of MRR over the requests in English and over the others (each request counts once)."""
    lines = ["", "MRR by language (mean over requests):", "", "| ranker | English | other languages |"]
    lines.append("|---|---:|---:|")
    for name in names:
        cells = {True: [], False: []}
        for e in entries:
            for (query, _), rank in zip(e.queries, results[e.id][name]["ranks"], strict=True):
                cells[english(query)].append(1.0 / rank if 0 < rank <= DEPTH else 0.0)
        shown = [f"{statistics.fmean(v):.3f} ({len(v)})" if v else "-" for v in (cells[True], cells[False])]
        lines.append(f"| {name} | {shown[0]} | {shown[1]} |")
    return lines


def markdown(entries, results: dict, names: list[str], exact: dict[str, dict[str, list[str]]]) -> str:
    lines = [
        "| ranker | OpenAPI MRR | MCP MRR | OpenAPI R@5 | MCP R@5 | param-only above own | value-only top "
        "| exact names first |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
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
        # the diagnostics over all the set's requests (not per catalog)
        diag = []
        for key in ("inverted", "value_top"):
            hits = sum(results[e.id][name].get(key, 0.0) * len(e.queries) for e in entries)
            diag.append(f"{hits / max(1, sum(len(e.queries) for e in entries)):.0%}")
        lines.append(
            f"| {name} | " + " | ".join(f"{c:.3f}" for c in cells) + f" | {diag[0]} | {diag[1]} | {exact_cell} |"
        )
    lines += by_language(entries, results, names)
    lines += ["", "Per catalog (MRR):", "", "| catalog | group | tools | requests | " + " | ".join(names) + " |"]
    lines.append("|---|---|---:|---:|" + "---:|" * len(names))
    for e in entries:
        cells = " | ".join(f"{results[e.id][n]['mrr']:.3f}" for n in names)
        lines.append(f"| {e.id} | {e.group} | {len(e.catalog.searchable())} | {len(e.queries)} | {cells} |")
    return "\n".join(lines)


def main() -> int:
    parser = options.parser(__doc__)
    options.add_rankers(parser, "default")
    parser.add_argument("--peers", default="bm25s,bm25s (name+desc),tantivy+cjk")
    parser.add_argument("--catalogs", default="", help="comma-separated ids (default: all)")
    options.add_cache(parser)
    options.add_embed(parser, required=False, extras=False)
    parser.add_argument("--per-query", action="store_true", help="print each query's first relevant rank (stderr)")
    parser.add_argument("--no-exact", action="store_true", help="skip the exact-name check")
    parser.add_argument("--heldout", action="store_true", help="the held-out catalogs only (= --sets heldout)")
    options.add_sets(parser, "project,shared,blind", help=f"comma-separated, of {', '.join(SETS)}")
    args = parser.parse_args()
    embed = None
    if args.embed_model:
        from toolsearch_cli.search.embed_settings import EmbedSettings

        embed = EmbedSettings(model=args.embed_model)
    rankers = [r for r in args.rankers.split(",") if r]
    peers = [p for p in args.peers.split(",") if p]
    only = set(args.catalogs.split(",")) if args.catalogs else None
    names = ["heldout"] if args.heldout else [s for s in args.sets.split(",") if s]
    for set_name, entries in load_sets(names, args.cache, only).items():
        if not entries:
            continue
        start = time.perf_counter()
        results = evaluate(entries, rankers, peers, args.per_query, embed)
        exact = {} if args.no_exact else {e.id: exact_name_failures(e, rankers, embed) for e in entries}
        print(
            f"## {set_name}: {len(entries)} catalogs, {sum(len(e.queries) for e in entries)} requests "
            f"({time.perf_counter() - start:.0f} s)\n"
        )
        print(markdown(entries, results, rankers + peers, exact))
        for e in entries:
            for name, missing in exact.get(e.id, {}).items():
                if missing:
                    print(f"\nexact name not first ({name}, {e.id}): {', '.join(missing[:10])}")
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
