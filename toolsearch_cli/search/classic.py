"""The reference scorer, reproduced exactly (shared/spec/seed-behaviour.md §2).

Kept for parity and comparison: substring matching, fixed points per signal, a coverage
bonus, no rarity weighting. Its known flaws (no CJK segmentation, one-letter noise, stuffing)
are reproduced on purpose.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..indexes import cached_index
from ..model import Catalog, Tool
from .base import Contribution, Hit, SearchRequest
from .text import classic_normalize, classic_tokenize


@dataclass(slots=True)
class _Prepared:
    tool: Tool
    name: str
    name_words: frozenset[str]
    description: str
    category: str
    tags: list[str]
    params: list[tuple[str, str]]  # (normalised name, normalised description), recursively


def _prepare(tool: Tool) -> _Prepared:
    params = [
        (classic_normalize(p.name), classic_normalize(p.description))
        for top in tool.parameter_tree()
        for p in top.walk()
    ]
    name = classic_normalize(tool.name)
    return _Prepared(
        tool=tool,
        name=name,
        name_words=frozenset(name.split(" ")) if name else frozenset(),
        description=classic_normalize(tool.description),
        category=classic_normalize(tool.category),
        tags=[classic_normalize(t) for t in tool.tags],
        params=params,
    )


def _utf16_key(name: str) -> bytes:
    return name.encode("utf-16-be", "surrogatepass")


class ClassicRanker:
    """Weighted substring scan with the reference's points and tie-breaks."""

    name: ClassVar[str] = "classic"
    description: ClassVar[str] = "the reference scorer (agents-flex), reproduced exactly"

    def search(self, catalog: Catalog, request: SearchRequest) -> list[Hit]:
        prepared: list[_Prepared] = cached_index(
            catalog, "classic", lambda: [_prepare(t) for t in catalog.searchable()]
        )
        if request.category is not None and request.category.strip():
            wanted = classic_normalize(request.category)
            # tools without a category are excluded, as in the reference
            prepared = [p for p in prepared if p.tool.category is not None and p.category == wanted]
        query = classic_normalize(request.query)
        if not query:
            hits = [Hit(tool=p.tool, score=0.0) for p in prepared]
            hits.sort(key=lambda h: _utf16_key(h.tool.name))
            return hits[: request.max_results]
        tokens = classic_tokenize(request.query)
        # Every tool is scored by points() alone; only the hits returned are scored again by
        # score(), which lists each contribution for --explain (the same sums, so the same total).
        scored = [(total, p) for p in prepared if (total := points(p, query, tokens)) > 0]
        scored.sort(key=lambda sp: (-sp[0], _utf16_key(sp[1].tool.name)))
        return [score(p, query, tokens) for _, p in scored[: request.max_results]]


def points(p: _Prepared, query: str, tokens: list[str]) -> float:
    """The total :func:`score` gives *p*, without recording the contributions (both are
    :func:`_walk`: the integral points summed, the coverage float added last)."""
    return _walk(p, query, tokens, None)


def score(p: _Prepared, query: str, tokens: list[str]) -> Hit:
    """Score one prepared tool and list each contribution (for ``--explain``)."""
    parts: list[Contribution] = []
    total = _walk(p, query, tokens, parts)
    fields = dict.fromkeys(c.field for c in parts if c.field != "coverage")
    return Hit(tool=p.tool, score=total, matched_fields=list(fields), contributions=parts)


def _walk(p: _Prepared, query: str, tokens: list[str], parts: list[Contribution] | None) -> float:
    """The reference's points for *p*; each one also recorded in *parts* unless it is ``None``.

    The ranker scores every tool with ``parts=None`` (no allocation per signal) and records only
    the hits it returns; one walk for both, so the order and the explanation cannot drift."""
    total = 0
    if query == p.name:
        total += 120
        if parts is not None:
            _add(parts, query, "name", 120, "query equals the name")
    elif query in p.name:
        total += 50
        if parts is not None:
            _add(parts, query, "name", 50, "query is inside the name")
    if query in p.description:
        total += 30
        if parts is not None:
            _add(parts, query, "description", 30, "query is inside the description")
    matched = 0
    for t in tokens:
        gained = 0
        if t in p.name_words:
            gained += 25
            if parts is not None:
                _add(parts, t, "name", 25, "whole word of the name")
        elif t in p.name:
            gained += 12
            if parts is not None:
                _add(parts, t, "name", 12, "inside the name")
        if t in p.description:
            gained += 6
            if parts is not None:
                _add(parts, t, "description", 6, "inside the description")
        if p.category:
            if t == p.category:
                gained += 20
                if parts is not None:
                    _add(parts, t, "category", 20, "equals the category")
            elif t in p.category:
                gained += 8
                if parts is not None:
                    _add(parts, t, "category", 8, "inside the category")
        for tag in p.tags:
            if t in tag:
                gained += 15
                if parts is not None:
                    _add(parts, t, "tags", 15, f"inside tag {tag!r}")
        for pname, pdesc in p.params:
            if t in pname:
                gained += 10
                if parts is not None:
                    _add(parts, t, "parameters", 10, f"inside parameter name {pname!r}")
            if t in pdesc:
                gained += 4
                if parts is not None:
                    _add(parts, t, "parameters", 4, f"inside the description of parameter {pname!r}")
        if gained:
            total += gained
            matched += 1
    result = float(total)
    if tokens and matched:
        coverage = 20.0 * matched / len(tokens)
        result += coverage
        if parts is not None:
            _add(parts, "*", "coverage", coverage, f"{matched}/{len(tokens)} terms matched")
    return result


def _add(parts: list[Contribution], term: str, field: str, points: float, detail: str) -> None:
    parts.append(Contribution(term=term, field=field, points=float(points), detail=detail))
