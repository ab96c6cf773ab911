"""The ``python`` scoring store of the BM25F index: postings in dicts and ``array`` lists.

No import cost: for the catalogs of a few hundred or thousand tools that a CLI call loads
(start-up matters more than throughput there). It implements :class:`.store.ScoringStore`.
"""

from __future__ import annotations

import heapq
from array import array

from ..model import Tool
from .scoring import Analysed, LazyBest, ordered
from .store import StoreHost


class PythonStore:
    """Postings as ``term -> [slot, field, count, slot, field, count, ...]``, in slot order."""

    def __init__(self, index: StoreHost) -> None:
        self.index = index
        self.postings: dict[str, array] = {}
        self.lengths: list[array] = [array("l") for _ in range(index.nfields)]
        self.dead = 0

    def bulk_load(self, tools: list[Tool]) -> None:
        analyse = self.index.analyse
        for tool in tools:
            fields = analyse(tool)
            slot = self.index._register(tool, fields)
            self.append(slot, fields)

    def append(self, slot: int, fields: Analysed) -> None:
        per_term: dict[str, list[int]] = {}
        for fid, (counts, length) in enumerate(fields):
            self.lengths[fid].append(length)
            for term, count in counts.items():
                per_term.setdefault(term, []).extend((slot, fid, count))
        for term, entries in per_term.items():
            posting = self.postings.get(term)
            if posting is None:
                self.postings[term] = array("l", entries)
            else:
                posting.extend(entries)

    def kill(self, slot: int) -> None:
        self.dead += 1
        if self.dead > 64 and self.dead * 4 > len(self.index.tools):
            self._compact()

    def _compact(self) -> None:
        """Drop dead slots' postings (slots keep their numbers; the tools list keeps holes)."""
        tools = self.index.tools
        for term in list(self.postings):
            posting = self.postings[term]
            kept = array("l")
            for i in range(0, len(posting), 3):
                if tools[posting[i]] is not None:
                    kept.extend(posting[i : i + 3])
            if kept:
                self.postings[term] = kept
            else:
                del self.postings[term]
        self.dead = 0

    def scores_at_generation(self, term: str) -> None:
        """Nothing is precomputed: every term is scored as queries need it (and cached by the index)."""
        return None

    def score_term(self, term: str, idf: float, avgs: list[float]) -> tuple[list[int], list[float]]:
        posting = self.postings.get(term)
        if posting is None:
            return [], []
        model = self.index.model
        tools = self.index.tools
        lengths = self.lengths
        slots: list[int] = []
        tfs: list[float] = []
        last = -1
        for i in range(0, len(posting), 3):
            slot, fid, count = posting[i], posting[i + 1], posting[i + 2]
            if tools[slot] is None:
                continue
            part = model.field_tf(fid, count, lengths[fid][slot], avgs[fid])
            if slot == last:
                tfs[-1] += part
            else:
                slots.append(slot)
                tfs.append(part)
                last = slot
        return slots, [model.saturate(idf, tf) for tf in tfs]

    def held_in(self, term: str, slots: list[int], fields: frozenset[int]) -> list[bool]:
        posting = self.postings.get(term)
        if posting is None:
            return [False] * len(slots)
        wanted = set(slots)
        found = {posting[i] for i in range(0, len(posting), 3) if posting[i + 1] in fields and posting[i] in wanted}
        return [slot in found for slot in slots]

    def split_candidates(
        self, terms: list[str], slots: list[int], fields: frozenset[int], avgs: list[float]
    ) -> list[dict[int, tuple[float, float]]]:
        """Each term's split over all its tools is made once per catalog generation (one pass
        over its postings) and kept in a cache the on-disk catalog cache does not store."""
        cache: dict[tuple[str, frozenset[int]], tuple[int, dict[int, tuple[float, float]]]]
        cache = self.__dict__.setdefault("_split_cache", {})
        generation = self.index.generation
        out = []
        for term in terms:
            cached = cache.get((term, fields))
            if cached is None or cached[0] != generation:
                cached = cache[(term, fields)] = (generation, self._split(term, fields, avgs))
            split = cached[1]
            out.append({i: split[slot] for i, slot in enumerate(slots) if slot in split} if split else {})
        return out

    def __getstate__(self) -> dict[str, object]:
        state = dict(self.__dict__)
        state.pop("_split_cache", None)
        return state

    def _split(self, term: str, fields: frozenset[int], avgs: list[float]) -> dict[int, tuple[float, float]]:
        posting = self.postings.get(term)
        if posting is None:
            return {}
        model, lengths, tools = self.index.model, self.lengths, self.index.tools
        total: dict[int, float] = {}
        part: dict[int, float] = {}
        for i in range(0, len(posting), 3):
            slot, fid = posting[i], posting[i + 1]
            if tools[slot] is None:
                continue
            tf = model.field_tf(fid, posting[i + 2], lengths[fid][slot], avgs[fid])
            total[slot] = total.get(slot, 0.0) + tf
            if fid in fields:
                part[slot] = part.get(slot, 0.0) + tf
        return {slot: (total[slot], p) for slot, p in part.items()}

    def mask(self, allowed: set[int] | None, require: list[str] | None) -> set[int] | None:
        """The slots a tool may be in (None: any)."""
        if require is None:
            return allowed
        required: set[int] = set()
        for term in require:
            required.update(self.index.term_scores(term)[0])
        return required if allowed is None else allowed & required

    def accumulate(self, terms: list[str], weights: dict[str, float], keep: set[int] | None) -> dict[int, float]:
        """Weighted sum of the terms' scores per slot (slots outside ``keep`` left out)."""
        acc: dict[int, float] = {}
        get = acc.get
        for term in terms:
            slots, scores = self.index.term_scores(term)
            weight = weights.get(term, 1.0)
            if weight != 1.0:
                scores = [score * weight for score in scores]
            if keep is not None:
                for slot, score in zip(slots, scores, strict=True):
                    if slot in keep:
                        acc[slot] = get(slot, 0.0) + score
            elif acc:
                for slot, score in zip(slots, scores, strict=True):
                    acc[slot] = get(slot, 0.0) + score
            else:  # the first term: 0.0 + score is score, so no additions
                acc.update(zip(slots, scores, strict=True))
        return acc

    def total(
        self, accs: list[dict[int, float]], terms: list[str], weights: dict[str, float], keep: set[int] | None
    ) -> dict[int, float]:
        """The sum of ``accs`` plus the weighted scores of ``terms``."""
        out = dict(accs[0])
        get = out.get
        for acc in [*accs[1:], self.accumulate(terms, weights, keep)]:
            for slot, score in acc.items():
                out[slot] = get(slot, 0.0) + score
        return out

    @staticmethod
    def maximum(acc: dict[int, float]) -> float:
        return max(acc.values(), default=0.0)

    @staticmethod
    def add_best(
        whole: dict[int, float], accs: list[dict[int, float]], factors: list[float]
    ) -> tuple[dict[int, float], LazyBest]:
        """``whole`` plus each slot's best ``factor × clause score``; per slot, (factor, clause)."""
        best: dict[int, float] = {}
        get = best.get
        for acc, factor in zip(accs, factors, strict=True):
            for slot, score in acc.items():
                bonus = score * factor
                if bonus > get(slot, -1.0):  # bonuses are positive; the first best sentence wins ties
                    best[slot] = bonus
        out = dict(whole)
        get = out.get
        for slot, bonus in best.items():
            out[slot] = get(slot, 0.0) + bonus
        return out, LazyBest(accs, factors, scaled=False)

    def best_with_bonus(
        self, whole: dict[int, float], accs: list[dict[int, float]], factors: list[float], bound: float, k: int
    ) -> tuple[list[tuple[int, float]], LazyBest]:
        """The ``k`` best of ``whole`` plus the best-sentence bonus (at most ``bound``); per slot (factor, clause)."""
        scores, lazy = self.add_best(whole, accs, factors)
        return self.best(scores, k), lazy

    def best(self, acc: dict[int, float], k: int) -> list[tuple[int, float]]:
        if len(acc) > k:
            # Only the tools scoring at least the k-th best score are ordered by (score, name):
            # computing that order's key for every matching tool took most of a query's time.
            kth = heapq.nlargest(k, acc.values())[-1]
            return ordered(self.index.tools, [item for item in acc.items() if item[1] >= kth], k)
        return ordered(self.index.tools, list(acc.items()), k)
