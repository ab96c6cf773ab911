"""Retrieval metrics over query sets: Recall@k, NDCG@k (binary gain) and MRR.

Definitions follow shared/eval/README.md: only tools with a positive score count as returned;
metrics are macro-averaged over queries.

Also here, for ``toolsearch eval``: query sets from YAML/JSON/JSONL files or from a catalog's
own ``examples``, per-query runs of several rankers, the worst misses with what ranked above
them, saved runs and their comparison, and CI gates. Everything returns data; nothing prints.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .bounded import json_lines, loads_json
from .errors import CatalogError, SearchError, UsageError, did_you_mean, kind_of
from .files import read_text
from .model import Catalog
from .search import EmbedSettings, get_ranker
from .search.base import Hit, SearchRequest
from .search.text import classic_normalize

#: The fields of a query; other fields are kept in ``Query.extra`` (see ``--category-field``).
QUERY_FIELDS = ("id", "query", "relevant", "subset")
#: Version of the ``--save`` file format.
SAVE_FORMAT = 1


@dataclass(slots=True)
class Query:
    """One labelled query: the text and the names of the tools that answer it."""

    id: str
    query: str
    relevant: list[str]
    subset: str | None = None
    #: Fields beyond id/query/relevant/subset, as written (e.g. a category for ``--category-field``).
    extra: dict[str, Any] = field(default_factory=dict)
    file: str | None = None
    line: int | None = None
    #: Line of each field, when known (YAML files).
    field_lines: dict[str, int] = field(default_factory=dict)

    def value(self, name: str) -> Any:
        """The value of a field (``subset`` or an extra field), ``None`` when absent."""
        if name == "subset":
            return self.subset
        if name in ("id", "query"):
            return getattr(self, name)
        return self.extra.get(name)

    def error(self, message: str, field: str | None = None, tool: str | None = None) -> CatalogError:
        """A CatalogError pointing at this query (at the field's line when known)."""
        line = self.field_lines.get(field, self.line) if field else self.line
        return CatalogError(f"query {self.id!r}: {message}", file=self.file, line=line, field=field, tool=tool)


# ---------------------------------------------------------------- loading query sets


def load_queries(path: str | Path) -> list[Query]:
    """Read a queries file: a list of ``{id, query, relevant: [names], subset?}``.

    ``.json`` files hold a JSON list, ``.jsonl``/``.ndjson`` one JSON object per line, anything
    else is YAML. Errors name the file and line.
    """
    file = str(path)
    text = read_text(path, file)
    suffix = Path(path).suffix.lower()
    items: list[tuple[Any, int | None]]
    if suffix == ".json":
        items = _json_items(text, file)
    elif suffix in (".jsonl", ".ndjson"):
        items = _jsonl_items(text, file)
    else:
        from .catalog.yaml_loader import parse_yaml  # PyYAML only for YAML queries files

        doc = parse_yaml(text, file)
        if doc is None:
            items = []
        elif not isinstance(doc, list):
            raise CatalogError("a queries file must be a list of {id, query, relevant}", file=file, line=1)
        else:
            lines = getattr(doc, "item_lines", [])
            items = [(item, lines[i] if i < len(lines) else None) for i, item in enumerate(doc)]
    if not items:
        raise CatalogError("the queries file holds no queries; expected a list of {id, query, relevant}", file=file)
    out: list[Query] = []
    seen: dict[str, int | None] = {}
    for item, line in items:
        query = _query_from_item(item, file, line)
        if query.id in seen:
            first = f" (first at line {seen[query.id]})" if seen[query.id] else ""
            raise query.error(f"duplicate query id{first}; ids must be unique", field="id")
        seen[query.id] = query.line
        out.append(query)
    return out


def _json_items(text: str, file: str) -> list[tuple[Any, int | None]]:
    doc = loads_json(text, file)
    if not isinstance(doc, list):
        raise CatalogError("a JSON queries file must be a list of {id, query, relevant}", file=file, line=1)
    # The text is valid JSON: walk the list again to learn the line each item starts on.
    decoder = json.JSONDecoder()
    lines: list[int | None] = []
    pos = text.index("[") + 1
    line, counted = 1, 0
    for _ in doc:
        while text[pos] in " \t\r\n,":
            pos += 1
        line += text.count("\n", counted, pos)
        counted = pos
        lines.append(line)
        _, pos = decoder.raw_decode(text, pos)
    return list(zip(doc, lines, strict=True))


def _jsonl_items(text: str, file: str) -> list[tuple[Any, int | None]]:
    return list(json_lines(text, file))


def _query_from_item(item: Any, file: str, line: int | None) -> Query:
    if not isinstance(item, dict):
        raise CatalogError(
            f"each query must be a mapping {{id, query, relevant}}, not {kind_of(item, 'a value')}",
            file=file,
            line=line,
        )
    line = getattr(item, "line", line)
    key_lines = {str(k): v[0] for k, v in getattr(item, "key_lines", {}).items()}

    def fail(message: str, field: str) -> CatalogError:
        return CatalogError(message, file=file, line=key_lines.get(field, line), field=field)

    def missing(field: str, what: str) -> CatalogError:
        import difflib

        unknown = [str(k) for k in item if str(k) not in QUERY_FIELDS]
        typo = difflib.get_close_matches(field, unknown, n=1, cutoff=0.6)
        if typo:  # point at the misspelt key, and name the right one
            return CatalogError(
                f"each query needs {what}; is {typo[0]!r} a misspelling of {field!r}?",
                file=file,
                line=key_lines.get(typo[0], line),
                field=typo[0],
            )
        return fail(f"each query needs {what}", field)

    raw_id = item.get("id")
    if raw_id is None:
        raise missing("id", "an 'id' (a unique name for the query)")
    if isinstance(raw_id, bool) or not isinstance(raw_id, str | int):
        raise fail(f"'id' must be a string or a number, not {kind_of(raw_id, 'a value')}", "id")
    qid = str(raw_id)
    text = item.get("query")
    if text is None:
        raise missing("query", "a 'query' string")
    if not isinstance(text, str) or not text.strip():
        found = "a blank string" if isinstance(text, str) else kind_of(text, "a value")
        raise fail(f"query {qid!r}: 'query' must be a non-empty string, not {found}", "query")
    relevant = item.get("relevant")
    if relevant is None:
        raise missing("relevant", "'relevant': a non-empty list of tool names")
    if isinstance(relevant, str):
        raise fail(f"query {qid!r}: 'relevant' must be a list of tool names; write [{relevant!r}]", "relevant")
    if not isinstance(relevant, list) or not relevant or not all(isinstance(r, str) and r for r in relevant):
        raise fail(f"query {qid!r}: 'relevant' must be a non-empty list of tool names", "relevant")
    subset = item.get("subset")
    if subset is not None:
        if isinstance(subset, bool) or not isinstance(subset, str | int | float):
            raise fail(f"query {qid!r}: 'subset' must be a string, not {kind_of(subset, 'a value')}", "subset")
        subset = str(subset)
    return Query(
        id=qid,
        query=text,
        relevant=list(dict.fromkeys(relevant)),
        subset=subset,
        extra={str(k): v for k, v in item.items() if str(k) not in QUERY_FIELDS},
        file=file,
        line=line,
        field_lines=key_lines,
    )


def queries_from_examples(catalog: Catalog) -> list[Query]:
    """Each example of each searchable tool T as a query with relevant [T].

    The id is ``T#n`` (n from 1), the subset and the extra field ``category`` are T's category.
    """
    out: list[Query] = []
    for tool in catalog.searchable():
        where = tool.location_of("examples")
        for n, example in enumerate(tool.examples, 1):
            if not example.strip():
                continue
            out.append(
                Query(
                    id=f"{tool.name}#{n}",
                    query=example,
                    relevant=[tool.name],
                    subset=tool.category,
                    extra={"category": tool.category},
                    file=where.file if where else None,
                    line=where.line if where else None,
                )
            )
    return out


def check_field(queries: Sequence[Query], name: str, option: str) -> None:
    """A field named by an option (--by, --category-field) must be set in at least one query."""
    if not any(q.value(name) is not None for q in queries):
        fields = sorted({k for q in queries for k in q.extra} | {"subset" for q in queries if q.subset})
        raise UsageError(
            f"no query has the field {name!r} given by {option}"
            f"{did_you_mean(name, fields)}; fields: {', '.join(fields) or '(none)'}",
            field=option.lstrip("-"),
        )


def without_absent(queries: Sequence[Query], catalog: Catalog) -> tuple[list[Query], list[tuple[Query, list[str]]]]:
    """The queries whose relevant tools are all in the catalog, and the others with the names the
    catalog lacks (a live server that did not start, a file not loaded). A query is left out whole:
    scored on the tools that remain, its figures would mean something else."""
    kept: list[Query] = []
    skipped: list[tuple[Query, list[str]]] = []
    for q in queries:
        absent = [name for name in q.relevant if name not in catalog]
        if absent:
            skipped.append((q, absent))
        else:
            kept.append(q)
    return kept, skipped


def absent_warning(query: Query, absent: list[str], catalog: Catalog) -> str:
    """One line saying why a query is skipped, at its place in the query file."""
    first = absent[0]
    more = f" and {len(absent) - 1} more" if len(absent) > 1 else ""
    return str(
        query.error(
            f"names a tool that is not in the catalog{did_you_mean(first, catalog.names)}{more}; query skipped",
            field="relevant",
            tool=first,
        )
    )


def check_queries(queries: Sequence[Query], catalog: Catalog, category_field: str | None = None) -> None:
    """Every relevant tool must be searchable in the catalog; every category value must exist there."""
    resident = set(catalog.resident)
    names = catalog.names
    for q in queries:
        for name in q.relevant:
            if name not in catalog:
                raise q.error(
                    f"names a tool that is not in the catalog{did_you_mean(name, names)} "
                    f"({len(names)} tool{'s' if len(names) != 1 else ''})",
                    field="relevant",
                    tool=name,
                )
            if name in resident:
                raise q.error("names a resident tool, which search never returns", field="relevant", tool=name)
    if category_field is None:
        return
    check_field(queries, category_field, "--category-field")
    known = {classic_normalize(c): c for c in catalog.categories()}
    for q in queries:
        value = q.value(category_field)
        if value is None:
            continue
        if not isinstance(value, str):
            raise q.error(f"the category must be a string, not {kind_of(value, 'a value')}", field=category_field)
        if classic_normalize(value) not in known:
            raise q.error(
                f"no tool has category {value!r}{did_you_mean(value, known.values())}",
                field=category_field,
            )


# ---------------------------------------------------------------- metrics


def recall_at(ranked: Sequence[str], relevant: set[str], k: int) -> float:
    return len(relevant.intersection(ranked[:k])) / len(relevant)


def ndcg_at(ranked: Sequence[str], relevant: set[str], k: int) -> float:
    dcg = sum(1.0 / math.log2(i + 2) for i, name in enumerate(ranked[:k]) if name in relevant)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(k, len(relevant))))
    return dcg / ideal


def reciprocal_rank(ranked: Sequence[str], relevant: set[str]) -> float:
    for i, name in enumerate(ranked):
        if name in relevant:
            return 1.0 / (i + 1)
    return 0.0


@dataclass(slots=True)
class Metrics:
    """Macro-averaged metrics of one ranker on one query set."""

    queries: int = 0
    sums: dict[str, float] = field(default_factory=dict)
    seconds: float = 0.0

    def add(self, values: dict[str, float]) -> None:
        self.queries += 1
        for key, value in values.items():
            self.sums[key] = self.sums.get(key, 0.0) + value

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"queries": self.queries}
        for key, value in self.sums.items():
            out[key] = value / self.queries if self.queries else 0.0
        out["ms_per_query"] = 1000.0 * self.seconds / self.queries if self.queries else 0.0
        return out


def query_metrics(ranked: Sequence[str], relevant: set[str], ks: Sequence[int]) -> dict[str, float]:
    values = {f"recall@{k}": recall_at(ranked, relevant, k) for k in ks}
    values.update({f"ndcg@{k}": ndcg_at(ranked, relevant, k) for k in ks if k > 1})
    values["mrr"] = reciprocal_rank(ranked, relevant)
    return values


def metric_keys(ks: Sequence[int]) -> list[str]:
    """The metric keys a run with these k values reports, in output order."""
    return ["queries", *query_metrics([], {"x"}, ks), "ms_per_query"]


def eval_depth(ks: Sequence[int]) -> int:
    """How deep each query is ranked: the largest k, and at least 10 (for MRR)."""
    return max(max(ks), 10)


def parse_ks(text: str) -> list[int]:
    """``"1,5,10"`` -> [1, 5, 10] (sorted, distinct, each 1..50)."""
    ks: set[int] = set()
    for part in text.split(","):
        part = part.strip()
        if not part.isdigit() or not 1 <= int(part) <= 50:
            raise UsageError(f"--k takes whole numbers 1..50 separated by commas, not {text!r}", field="k")
        ks.add(int(part))
    return sorted(ks)


# ---------------------------------------------------------------- runs


@dataclass(slots=True)
class QueryResult:
    """One query under one ranker: the returned names (top ``depth``), each relevant tool's rank."""

    query: Query
    ranked: list[str]
    values: dict[str, float]
    seconds: float

    def rank_of(self, name: str) -> int | None:
        """1-based rank of a tool among the returned ones, ``None`` when not returned within depth."""
        try:
            return self.ranked.index(name) + 1
        except ValueError:
            return None

    @property
    def ranks(self) -> dict[str, int | None]:
        return {name: self.rank_of(name) for name in self.query.relevant}


@dataclass(slots=True)
class RankerRun:
    """Every query of a set run through one ranker."""

    ranker: str
    ks: list[int]
    results: list[QueryResult]
    category_field: str | None = None

    def metrics(self, results: Iterable[QueryResult] | None = None) -> dict[str, Any]:
        """Macro-averaged metrics (``queries``, ``recall@k``, ``ndcg@k``, ``mrr``, ``ms_per_query``)."""
        total = Metrics()
        for r in self.results if results is None else results:
            total.add(r.values)
            total.seconds += r.seconds
        return total.as_dict()

    def by(self, field_name: str) -> dict[str, dict[str, Any]]:
        """Metrics per value of a query field (``subset`` or an extra field); missing values under ``(none)``."""
        groups: dict[str, list[QueryResult]] = {}
        for r in self.results:
            value = r.query.value(field_name)
            groups.setdefault("(none)" if value is None else str(value), []).append(r)
        return {key: self.metrics(groups[key]) for key in sorted(groups)}


def run_ranker(
    catalog: Catalog,
    queries: Sequence[Query],
    ranker: str = "default",
    ks: Sequence[int] = (1, 5, 10),
    *,
    category_field: str | None = None,
    on_query: Callable[[], None] | None = None,
    embed: EmbedSettings | str | None = None,
) -> RankerRun:
    """Rank every query (to depth max(ks), at least 10) and keep each query's ranking and metrics;
    ``embed``: the model of a dense ranker (``None``: the process default)."""
    impl = get_ranker(ranker, embed)
    depth = eval_depth(ks)
    results: list[QueryResult] = []
    prepare = getattr(impl, "prepare", None)
    prepared = 0.0
    if queries and prepare is not None:  # dense rankers embed the catalog and all queries in batches
        start = time.perf_counter()
        prepare(catalog, [q.query for q in queries])
        prepared = (time.perf_counter() - start) / len(queries)  # query embedding counts as query time
    if queries:  # build the ranker's index before timing, so ms_per_query is query time alone
        try:
            impl.search(catalog, SearchRequest(query=queries[0].query, max_results=1, explain=False))
        except SearchError:
            pass
    for q in queries:
        category = q.value(category_field) if category_field else None
        request = SearchRequest(query=q.query, max_results=depth, category=category, explain=False)
        start = time.perf_counter()
        try:
            hits = impl.search(catalog, request)
        except SearchError:  # a query a ranker refuses (only stop words) returns nothing
            hits = []
        seconds = time.perf_counter() - start + prepared
        ranked = [h.tool.name for h in hits if h.score > 0]
        results.append(QueryResult(q, ranked, query_metrics(ranked, set(q.relevant), ks), seconds))
        if on_query is not None:
            on_query()
    return RankerRun(ranker, list(ks), results, category_field)


def evaluate(
    catalog: Catalog, queries: Sequence[Query], ranker: str = "default", ks: Sequence[int] = (1, 5, 10)
) -> Metrics:
    """Run every query through a ranker (depth max(ks), at least 10 for MRR) and average the metrics."""
    metrics = Metrics()
    for r in run_ranker(catalog, queries, ranker, ks).results:
        metrics.add(r.values)
        metrics.seconds += r.seconds
    return metrics


# ---------------------------------------------------------------- misses


@dataclass(slots=True)
class Miss:
    """A relevant tool that other tools outranked: where it landed and what came first, with explanations."""

    ranker: str
    query: Query
    tool: str
    #: Rank among all returned tools; ``None`` when the ranker gave it no positive score.
    rank: int | None
    score: float | None
    #: The tool's own hit (with its explanation) when it ranked within the explained depth.
    hit: Hit | None
    #: Non-relevant tools ranked above it, best first (at most ``show`` of them), with explanations.
    above: list[Hit]
    #: How many non-relevant tools ranked above it in all.
    above_count: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "ranker": self.ranker,
            "id": self.query.id,
            "query": self.query.query,
            "tool": self.tool,
            "rank": self.rank,
            "score": self.score,
            "above_count": self.above_count,
            "explanation": [c.to_dict() for c in self.hit.contributions] if self.hit else [],
            "above": [{"rank": i, **h.to_dict()} for i, h in enumerate(self.above, 1)],
        }


#: How many hits a miss's explanation search builds explanations for.
EXPLAIN_DEPTH = 50


#: Tools missing from the top ``depth`` are ranked in full to order the misses: all of them, unless
#: that takes longer than ``FULL_RANK_SECONDS``; then at least max(4n, ``FULL_RANK_MIN``).
FULL_RANK_SECONDS = 2.0
FULL_RANK_MIN = 40


def worst_misses(catalog: Catalog, run: RankerRun, n: int, *, show: int = 3) -> list[Miss]:
    """The ``n`` worst misses of a run, each with what ranked above the expected tool and why.

    A relevant tool is missed when a non-relevant tool ranked above it. Worst first: tools the
    ranker did not return at all (score 0), then the lowest ranked. Tools beyond the evaluation
    depth are ranked in full to order them: all of them, or with a slow ranker, as many as fit in
    ``FULL_RANK_SECONDS`` (at least max(4n, 40)), in query id order.
    """
    beyond: list[tuple[QueryResult, str]] = []
    within: list[tuple[QueryResult, str, int]] = []
    for r in run.results:
        relevant = set(r.query.relevant)
        for name in r.query.relevant:
            rank = r.rank_of(name)
            if rank is None:
                beyond.append((r, name))
            elif any(other not in relevant for other in r.ranked[: rank - 1]):
                within.append((r, name, rank))
    beyond.sort(key=lambda c: (c[0].query.id, c[1]))
    within.sort(key=lambda c: (-c[2], c[0].query.id, c[1]))
    impl = get_ranker(run.ranker)
    searchable = max(len(catalog.searchable()), 1)

    def ranking(q: Query, depth: int, explain: bool) -> list[Hit]:
        category = q.value(run.category_field) if run.category_field else None
        try:
            hits = impl.search(catalog, SearchRequest(q.query, depth, category, explain=explain))
        except SearchError:
            return []
        return [h for h in hits if h.score > 0]

    # (order, result, tool): score 0 first, then lowest rank
    ordered: list[tuple[tuple[int, int, str, str], QueryResult, str]] = []
    minimum = max(4 * n, FULL_RANK_MIN)
    started = time.perf_counter()
    for i, (r, name) in enumerate(beyond):
        if i >= minimum and time.perf_counter() - started > FULL_RANK_SECONDS:
            break
        full = ranking(r.query, searchable, False)
        names = [h.tool.name for h in full]
        rank = names.index(name) + 1 if name in names else 0
        ordered.append(((0 if rank == 0 else 1, -rank, r.query.id, name), r, name))
    if len(ordered) < n:
        ordered += [((1, -rank, r.query.id, name), r, name) for r, name, rank in within[: n - len(ordered)]]
    ordered.sort(key=lambda c: c[0])
    out: list[Miss] = []
    for _, r, name in ordered[:n]:
        q = r.query
        relevant = set(q.relevant)
        full = ranking(q, searchable if r.rank_of(name) is None else eval_depth(run.ks), False)
        names = [h.tool.name for h in full]
        rank = names.index(name) + 1 if name in names else None
        above_names = [other for other in names[: (rank or len(names) + 1) - 1] if other not in relevant]
        by_name = {h.tool.name: h for h in ranking(q, EXPLAIN_DEPTH, True)}
        out.append(
            Miss(
                ranker=run.ranker,
                query=q,
                tool=name,
                rank=rank,
                score=full[rank - 1].score if rank else None,
                hit=by_name.get(name),
                above=[by_name[other] for other in above_names[:show] if other in by_name],
                above_count=len(above_names),
            )
        )
    return out


# ---------------------------------------------------------------- saved runs and comparison


def run_document(
    runs: Sequence[RankerRun], *, source: str, catalog_sources: Sequence[str], by: str | None = "subset"
) -> dict[str, Any]:
    """A run as JSON data for ``--save``: metrics per ranker and every query's relevant-tool ranks."""
    ks = runs[0].ks if runs else []
    doc: dict[str, Any] = {
        "format": SAVE_FORMAT,
        "tool": "toolsearch eval",
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "queries_source": source,
        "catalog": list(catalog_sources),
        "ks": ks,
        "depth": eval_depth(ks) if ks else None,
        "category_field": runs[0].category_field if runs else None,
        "rankers": {run.ranker: run.metrics() for run in runs},
    }
    if by:
        doc[f"by_{by}"] = {run.ranker: run.by(by) for run in runs}
    doc["query_set"] = [
        {"id": r.query.id, "query": r.query.query, "relevant": r.query.relevant, "subset": r.query.subset}
        for r in (runs[0].results if runs else [])
    ]
    doc["ranks"] = {run.ranker: {r.query.id: r.ranks for r in run.results} for run in runs}
    return doc


def load_run_document(path: str | Path) -> dict[str, Any]:
    """Read a ``--save`` file back; anything else is a one-line error."""
    file = str(path)
    text = read_text(path, file, what="the baseline", error=UsageError)
    doc = loads_json(text, file, error=UsageError)
    if (
        not isinstance(doc, dict)
        or doc.get("tool") != "toolsearch eval"
        or not isinstance(doc.get("rankers"), dict)
        or not isinstance(doc.get("ranks"), dict)
    ):
        raise UsageError("not a run saved by `toolsearch eval --save`", file=file, line=1)
    if doc.get("format") != SAVE_FORMAT:
        raise UsageError(f"saved with format {doc.get('format')!r}; this version reads format {SAVE_FORMAT}", file=file)
    _check_run_document(doc, file, text)
    return doc


def _check_run_document(doc: dict[str, Any], file: str, text: str) -> None:
    """The parts of a saved run a comparison reads have the types ``--save`` writes (an edited
    file may not): ``rankers``: ranker -> {metric: number}; ``ranks``: ranker -> query -> tool ->
    rank (a whole number from 1) or null."""
    from .catalog.formats import Document, pointer_join

    located = Document(doc, file, text)

    def fail(pointer: str, message: str) -> UsageError:
        return UsageError(message, file=file, line=located.line_of(pointer), field=pointer)

    depth = doc.get("depth")  # how deep the run was ranked: bounds --diff-k
    whole = isinstance(depth, int) and not isinstance(depth, bool)
    if depth is not None and (not whole or depth < 1):
        raise fail("/depth", f"the depth must be a whole number from 1, not {depth if whole else kind_of(depth)}")
    for ranker, metrics in doc["rankers"].items():
        if not isinstance(metrics, dict):
            raise fail(
                pointer_join("/rankers", ranker), f"must be a mapping of metric to number, not {kind_of(metrics)}"
            )
    for ranker, queries in doc["ranks"].items():
        at = pointer_join("/ranks", ranker)
        if not isinstance(queries, dict):
            raise fail(at, f"must map query ids to the ranks of their tools, not {kind_of(queries)}")
        for qid, ranks in queries.items():
            if not isinstance(ranks, dict):
                raise fail(pointer_join(at, qid), f"must map tool names to ranks, not {kind_of(ranks)}")
            for tool, rank in ranks.items():
                if rank is not None and (isinstance(rank, bool) or not isinstance(rank, int) or rank < 1):
                    shown = rank if isinstance(rank, int) else kind_of(rank)
                    raise fail(
                        pointer_join(at, qid, tool), f"a rank must be a whole number from 1 or null, not {shown}"
                    )


def default_diff_k(ks: Sequence[int]) -> int:
    """The k the baseline diff uses unless told: 5 when measured, else the largest k."""
    return 5 if 5 in ks else max(ks)


def compare_runs(current: dict[str, Any], baseline: dict[str, Any], k: int) -> dict[str, Any]:
    """Metric deltas per ranker and the (query, tool) pairs that moved out of or into the top ``k``.

    Rankers and queries present in only one of the runs are listed, not compared.
    """
    texts = {q["id"]: q["query"] for q in current.get("query_set", [])}
    out: dict[str, Any] = {"k": k, "rankers": {}}
    for ranker, metrics in current["rankers"].items():
        old = baseline["rankers"].get(ranker)
        if not isinstance(old, dict):
            continue
        deltas = {
            key: {"baseline": old[key], "current": value, "delta": value - old[key]}
            for key, value in metrics.items()
            if key != "queries" and isinstance(old.get(key), int | float)
        }
        now_ranks: dict[str, dict[str, int | None]] = current["ranks"].get(ranker, {})
        old_ranks: dict[str, dict[str, int | None]] = baseline["ranks"].get(ranker, {})
        if not isinstance(old_ranks, dict):
            old_ranks = {}
        moved_out: list[dict[str, Any]] = []
        moved_in: list[dict[str, Any]] = []
        changed = 0
        for qid, ranks in now_ranks.items():
            before_ranks = old_ranks.get(qid)
            if not isinstance(before_ranks, dict):
                continue
            for tool, after in ranks.items():
                if tool not in before_ranks:
                    continue
                before = before_ranks[tool]
                if before != after:
                    changed += 1
                was_in = before is not None and before <= k
                is_in = after is not None and after <= k
                entry = {"id": qid, "query": texts.get(qid, ""), "tool": tool, "before": before, "after": after}
                if was_in and not is_in:
                    moved_out.append(entry)
                elif is_in and not was_in:
                    moved_in.append(entry)
        out["rankers"][ranker] = {
            "metrics": deltas,
            "moved_out": moved_out,
            "moved_in": moved_in,
            "rank_changes": changed,
            "queries_only_now": sorted(set(now_ranks) - set(old_ranks)),
            "queries_only_in_baseline": sorted(set(old_ranks) - set(now_ranks)),
        }
    out["rankers_not_in_baseline"] = [r for r in current["rankers"] if r not in baseline["rankers"]]
    return out


# ---------------------------------------------------------------- gates


@dataclass(slots=True, frozen=True)
class Gate:
    """``--min [RANKER:]METRIC=VALUE``: the metric must be at least VALUE (for that ranker, or every one)."""

    metric: str
    minimum: float
    ranker: str | None = None
    text: str = ""


def parse_gate(text: str, keys: Sequence[str], rankers: Sequence[str]) -> Gate:
    """Parse one ``--min`` value against the metric keys and rankers of the run; a bad one is a UsageError."""
    spec, sep, raw = text.partition("=")
    if not sep or not spec.strip() or not raw.strip():
        raise UsageError(f"--min takes METRIC=VALUE (e.g. recall@5=0.8), not {text!r}")
    ranker: str | None = None
    metric = spec.strip()
    if ":" in metric:
        ranker, _, metric = (part.strip() for part in metric.partition(":"))
        if ranker not in rankers:
            raise UsageError(
                f"--min {text!r}: ranker {ranker!r} is not evaluated{did_you_mean(ranker, rankers)}; "
                f"rankers: {', '.join(rankers)}",
            )
    metric = metric.lower()
    if metric not in keys:
        hint = ""
        if metric.partition("@")[0] in ("recall", "ndcg") and metric.partition("@")[2].isdigit():
            hint = f"; add {metric.partition('@')[2]} to --k to measure it"
        raise UsageError(
            f"--min {text!r}: unknown metric {metric!r}{did_you_mean(metric, keys)}{hint}; metrics: {', '.join(keys)}"
        )
    try:
        minimum = float(raw)
    except ValueError:
        raise UsageError(f"--min {text!r}: {raw.strip()!r} is not a number") from None
    if minimum != minimum:
        raise UsageError(f"--min {text!r}: {raw.strip()!r} is not a number")
    return Gate(metric, minimum, ranker, text)


@dataclass(slots=True, frozen=True)
class GateResult:
    gate: Gate
    ranker: str
    value: float

    @property
    def passed(self) -> bool:
        return self.value >= self.gate.minimum

    def to_dict(self) -> dict[str, Any]:
        return {
            "ranker": self.ranker,
            "metric": self.gate.metric,
            "min": self.gate.minimum,
            "value": self.value,
            "passed": self.passed,
        }


def check_gates(gates: Sequence[Gate], metrics_by_ranker: dict[str, dict[str, Any]]) -> list[GateResult]:
    """Each gate against each ranker it applies to."""
    return [
        GateResult(gate, ranker, float(metrics[gate.metric]))
        for gate in gates
        for ranker, metrics in metrics_by_ranker.items()
        if gate.ranker in (None, ranker)
    ]
