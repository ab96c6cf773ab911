"""The worst misses of a run: a relevant tool outranked by others, with what came first and why."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from ..errors import SearchError
from ..model import Catalog
from ..search import get_ranker
from ..search.base import Hit, SearchRequest
from ..search.embed_settings import EmbedSettings
from .metrics import eval_depth
from .queries import Query
from .runs import QueryResult, RankerRun


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


def _candidates(run: RankerRun) -> tuple[list[tuple[QueryResult, str]], list[tuple[QueryResult, str, int]]]:
    """The relevant tools not returned within the run's depth (in query id order), and those
    returned below a non-relevant tool (lowest rank first)."""
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
    return beyond, within


def worst_misses(
    catalog: Catalog, run: RankerRun, n: int, *, show: int = 3, embed: EmbedSettings | None = None
) -> list[Miss]:
    """The ``n`` worst misses of a run, each with what ranked above the expected tool and why.

    A relevant tool is missed when a non-relevant tool ranked above it. Worst first: tools the
    ranker did not return at all (score 0), then the lowest ranked. Tools beyond the evaluation
    depth are ranked in full to order them: all of them, or with a slow ranker, as many as fit in
    ``FULL_RANK_SECONDS`` (at least max(4n, 40)), in query id order. ``embed``: the model of a
    dense ranker, as the run had it (``None``: the library default).
    """
    beyond, within = _candidates(run)
    impl = get_ranker(run.ranker, embed)
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
        found = names.index(name) + 1 if name in names else None
        above_names = [other for other in names[: (found or len(names) + 1) - 1] if other not in relevant]
        by_name = {h.tool.name: h for h in ranking(q, EXPLAIN_DEPTH, True)}
        out.append(
            Miss(
                ranker=run.ranker,
                query=q,
                tool=name,
                rank=found,
                score=full[found - 1].score if found else None,
                hit=by_name.get(name),
                above=[by_name[other] for other in above_names[:show] if other in by_name],
                above_count=len(above_names),
            )
        )
    return out


#: The misses table of an HTML report: at most this many rows per ranker (worst first) ...
MISS_ROWS = 200
#: ... and the top hits' explanations (their matched fields) built within this many seconds per ranker.
MISS_EXPLAIN_SECONDS = 2.0


@dataclass(slots=True)
class MissRow:
    """One row of a misses table: a relevant tool outranked by another, where it landed and what
    came first (with the fields the top hit matched, when explained)."""

    ranker: str
    query: Query
    tool: str
    #: Rank among the returned tools; ``None`` when not returned within the run's depth.
    rank: int | None
    #: The tool ranked first (``None``: the ranker returned nothing for the query).
    top: str | None
    #: The top hit's own hit with its matched fields, when explained in time.
    top_hit: Hit | None


def miss_rows(
    catalog: Catalog,
    run: RankerRun,
    limit: int = MISS_ROWS,
    *,
    seconds: float = MISS_EXPLAIN_SECONDS,
    embed: EmbedSettings | None = None,
) -> tuple[list[MissRow], int]:
    """The run's misses, worst first (not returned within the depth, then the lowest rank), at
    most ``limit``, and how many there are in all. Only the rows kept are explained: one search
    each for the top hit's matched fields, for as long as ``seconds`` allow (later rows keep the
    top hit's name, without its fields)."""
    rows: list[tuple[tuple[int, int, str, str], QueryResult, str, int | None]] = []
    for r in run.results:
        relevant = set(r.query.relevant)
        for name in r.query.relevant:
            rank = r.rank_of(name)
            if rank is None or any(other not in relevant for other in r.ranked[: rank - 1]):
                order = (0 if rank is None else 1, -(rank or 0), r.query.id, name)
                rows.append((order, r, name, rank))
    rows.sort(key=lambda row: row[0])
    impl = get_ranker(run.ranker, embed)
    started = time.perf_counter()
    out: list[MissRow] = []
    for _, r, name, rank in rows[:limit]:
        top = r.ranked[0] if r.ranked else None
        top_hit = None
        if top is not None and time.perf_counter() - started < seconds:
            category = r.query.value(run.category_field) if run.category_field else None
            try:
                hits = impl.search(catalog, SearchRequest(r.query.query, 1, category, explain=True))
            except SearchError:
                hits = []
            top_hit = hits[0] if hits and hits[0].tool.name == top else None
        out.append(MissRow(run.ranker, r.query, name, rank, top, top_hit))
    return out, len(rows)
