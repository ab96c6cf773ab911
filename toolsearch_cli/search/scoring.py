"""What the BM25F index (:mod:`.index`) and its scoring stores share.

The field model (weights, length normalisation, saturation), IDF, a tool's analysed fields, a
query plan, the order of results (by score, ties by name) and the lazy look-up of each returned
tool's best sentence. Nothing here imports the index or a store: both import this module.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from operator import itemgetter
from typing import Any

from ..model import Tool


class FieldModel:
    """Field weights and length normalisation, shared by the backends and explanations."""

    def __init__(
        self,
        weights: Sequence[float],
        bs: Sequence[float],
        k1: float,
        max_count: int,
        max_ratios: Sequence[float] | None = None,
    ) -> None:
        self.weights = list(weights)
        self.bs = list(bs)
        self.k1 = k1
        self.max_count = max_count
        #: Per field: a field longer than this many times its average is normalised as if it were that long.
        self.max_ratios = list(max_ratios) if max_ratios is not None else [math.inf] * len(self.weights)

    def field_tf(self, fid: int, count: int, length: int, avg: float) -> float:
        b = self.bs[fid]
        norm = 1.0 - b + b * min(length / avg, self.max_ratios[fid])
        return self.weights[fid] * min(count, self.max_count) / norm

    def saturate(self, idf: float, tf: float) -> float:
        return idf * tf * (self.k1 + 1.0) / (self.k1 + tf)


def idf_of(n: int, df: int) -> float:
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


#: One tool's analysed fields: per field id, (term -> count, field length).
Analysed = list[tuple[dict[str, int], int]]


class QueryPlan:
    """What to score for a query: its terms and their weights, and its sentences.

    ``terms`` are the distinct terms of the whole query and ``weights`` their weights (absent: 1).
    ``clauses`` holds, per sentence of a query of several, that sentence's term weights. A tool's
    score is then its whole-query score plus ``clause_share`` × the best whole-query score ×
    its score for its best sentence relative to that sentence's best tool: a request for two or
    three tools in turn gets each sentence's best tools near the top, instead of the tools
    matching the most words of any sentence filling every place.
    """

    __slots__ = ("terms", "weights", "clauses", "clause_share", "related", "action", "translated", "wordnet", "text")

    def __init__(
        self,
        terms: list[str],
        weights: dict[str, float] | None = None,
        clauses: list[dict[str, float]] | None = None,
        clause_share: float = 0.0,
        related: dict[str, str] | None = None,
    ) -> None:
        # A plain class, not a dataclass: building one costs about a millisecond at start-up.
        self.terms = terms
        self.weights = weights or {}
        self.clauses = clauses or []
        self.clause_share = clause_share
        #: Terms the query does not say, added for a related word it does (term -> that word).
        self.related = related or {}
        #: What the request asks to do (:func:`~.actions.request_action`), set by the default ranker.
        self.action: str | None = None
        #: Of those, the English terms of words of another language (:mod:`.lexicon`): term ->
        #: ("word → English", the analysed terms of that word).
        self.translated: dict[str, tuple[str, tuple[str, ...]]] = {}
        #: Of those, the WordNet synonyms of words the catalog last ranked on does not have
        #: (:mod:`.wordnet`, set per catalog by the default ranker): term -> the word or phrasal verb.
        self.wordnet: dict[str, str] = {}
        #: The request's text (its phrasal verbs are read from it), set by the default ranker.
        self.text = ""

    def __repr__(self) -> str:
        return f"QueryPlan({self.terms!r}, {self.weights!r}, {self.clauses!r}, {self.clause_share!r}, {self.related!r})"


def by_score_then_name(
    items: list[Any], score: Callable[[Any], float], name: Callable[[Any], str], end: int | None = None
) -> None:
    """Sort ``items`` in place as by (-score, name), without a name look-up per item: by score (a
    stable sort), then each run of equal scores that starts before ``end`` (all when ``None``) by
    name. The parameter cap orders a pool of 100 tools on every query."""
    items.sort(key=score, reverse=True)
    stop = len(items) if end is None else min(end, len(items))
    i = 0
    while i < stop:
        j = i + 1
        while j < len(items) and score(items[j]) == score(items[i]):
            j += 1
        if j - i > 1:
            items[i:j] = sorted(items[i:j], key=name)
        i = j


def ordered(tools: Sequence[Tool | None], items: list[tuple[int, float]], k: int) -> list[tuple[int, float]]:
    """The ``k`` best (slot, score) items, ties by tool name; ``items`` holds every one scoring at
    least the k-th best score (so the ties at the cut are all there)."""

    def name_of(item: tuple[int, float]) -> str:
        tool = tools[item[0]]
        return tool.name if tool is not None else ""

    items = list(items)
    by_score_then_name(items, itemgetter(1), name_of, end=k)
    return items[:k]


class LazyBest:
    """Per slot, (factor, clause) of its best sentence, worked out only for the few slots returned.

    ``sentences`` are the sentences' scores by slot (NumPy arrays, zero where a sentence does not
    match, or the Python backend's dicts), multiplied by their factors already when ``scaled``.
    """

    def __init__(self, sentences: list[Any], factors: list[float], *, scaled: bool) -> None:
        self.sentences, self.factors, self.scaled = sentences, factors, scaled

    def _bonuses(self, slot: int) -> list[float]:
        if self.scaled:
            return [float(bonus[slot]) for bonus in self.sentences]
        return [
            (acc.get(slot, 0.0) if isinstance(acc, dict) else float(acc[slot])) * f
            for acc, f in zip(self.sentences, self.factors, strict=True)
        ]

    def __contains__(self, slot: object) -> bool:
        return isinstance(slot, int) and max(self._bonuses(slot)) > 0

    def get(self, slot: int) -> tuple[float, int] | None:
        """``self[slot]`` when the slot has a bonus (as ``slot in self``), else None: one pass."""
        values = self._bonuses(slot)
        best = max(values)
        return (self.factors[values.index(best)], values.index(best)) if best > 0 else None

    def __getitem__(self, slot: int) -> tuple[float, int]:
        values = self._bonuses(slot)
        c = values.index(max(values))  # the first best sentence
        return self.factors[c], c
