"""The inverted index behind the default ranker: BM25F with statistics kept exact under change.

What is stored per (term, tool, field) is only the capped count of the term in that field;
everything that depends on the whole catalog (number of tools, document frequency, average
field lengths) is applied when a term is scored. So adding or removing a tool touches only that
tool's postings and a few counters, and scores always equal those of an index built from
scratch over the same tools (a test checks it).

A term's per-tool scores are computed once per catalog *generation* and cached: a query is a
sum of cached arrays. A change bumps the generation, so each term is re-scored the next time a
query uses it.

Two storage backends share that model and give identical scores (a test checks it):

* ``python``: dicts and lists; no import cost, for the catalogs of a few hundred or thousand
  tools that a CLI call loads (start-up matters more than throughput there);
* ``numpy``: postings in flat arrays (a main segment plus a small append-only delta, merged
  when it grows), scored with vectorised arithmetic; for large catalogs (100,000 tools stay
  interactive). Chosen automatically above :data:`NUMPY_MIN_TOOLS` when NumPy is installed.
"""

from __future__ import annotations

import heapq
import math
from array import array
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

from ..errors import CatalogError
from ..model import Tool
from .text import classic_normalize, is_weak_term

#: Catalogs at least this large use the NumPy backend when NumPy is importable.
NUMPY_MIN_TOOLS = 2000


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

    __slots__ = ("terms", "weights", "clauses", "clause_share")

    def __init__(
        self,
        terms: list[str],
        weights: dict[str, float] | None = None,
        clauses: list[dict[str, float]] | None = None,
        clause_share: float = 0.0,
    ) -> None:
        # A plain class, not a dataclass: building one costs about a millisecond at start-up.
        self.terms = terms
        self.weights = weights or {}
        self.clauses = clauses or []
        self.clause_share = clause_share

    def __repr__(self) -> str:
        return f"QueryPlan({self.terms!r}, {self.weights!r}, {self.clauses!r}, {self.clause_share!r})"


class BM25FIndex:
    """An updatable BM25F index over tools; ``analyse(tool)`` gives each field's term counts."""

    def __init__(
        self,
        tools: Iterable[Tool],
        analyse: Any,
        streams: Any,
        model: FieldModel,
        *,
        backend: str | None = None,
    ) -> None:
        tools = list(tools)
        #: ``tool -> per field (term counts, length)``: for one-tool changes and the Python backend.
        self.analyse = analyse
        #: ``tool -> per-field iterables of the same terms``: a NumPy bulk build counts them itself.
        self.streams = streams
        self.model = model
        self.nfields = len(model.weights)
        if backend is None:
            backend = "numpy" if len(tools) >= NUMPY_MIN_TOOLS and _numpy_available() else "python"
        self.backend = backend
        self.tools: list[Tool | None] = []
        self.slot_of: dict[str, int] = {}
        self.df: dict[str, int] = {}
        self.length_sum = [0] * self.nfields
        self.alive_count = 0
        self.generation = 0
        self._category_slots: dict[str, set[int]] = {}
        self._cache: dict[str, tuple[int, Any, Any]] = {}
        self._store: _PythonStore | _NumpyStore = _NumpyStore(self) if backend == "numpy" else _PythonStore(self)
        from ..bounded import gc_paused

        with gc_paused():  # a large catalog's terms and postings: many objects, no cycles
            self._store.bulk_load(tools)

    # -- bookkeeping shared by the backends -------------------------------------------------

    def _register_slot(self, tool: Tool) -> int:
        """Give a tool its slot (statistics are the caller's business)."""
        if tool.name in self.slot_of:
            raise CatalogError(f"the index already holds a tool named {tool.name!r}", tool=tool.name, field="name")
        slot = len(self.tools)
        self.tools.append(tool)
        self.slot_of[tool.name] = slot
        self.alive_count += 1
        if tool.category:
            self._category_slots.setdefault(_category_key(tool.category), set()).add(slot)
        return slot

    def _register(self, tool: Tool, fields: Analysed) -> int:
        slot = self._register_slot(tool)
        seen: set[str] = set()
        for fid, (counts, length) in enumerate(fields):
            self.length_sum[fid] += length
            seen.update(counts)
        for term in seen:
            self.df[term] = self.df.get(term, 0) + 1
        return slot

    def __len__(self) -> int:
        return self.alive_count

    def add(self, tool: Tool) -> None:
        """Index one more tool (no rebuild: its postings are appended)."""
        fields = self.analyse(tool)
        slot = self._register(tool, fields)
        self._store.append(slot, fields)
        self.generation += 1

    def remove(self, name: str) -> None:
        """Drop a tool by name (no rebuild: its slot is marked dead; storage compacts later)."""
        slot = self.slot_of.pop(name, None)
        if slot is None:
            raise CatalogError(f"the index holds no tool named {name!r}", tool=name, field="name")
        tool = self.tools[slot]
        assert tool is not None
        fields = self.analyse(tool)
        seen: set[str] = set()
        for fid, (counts, length) in enumerate(fields):
            self.length_sum[fid] -= length
            seen.update(counts)
        for term in seen:
            left = self.df[term] - 1
            if left:
                self.df[term] = left
            else:
                del self.df[term]
        if tool.category:
            self._category_slots.get(classic_normalize(tool.category), set()).discard(slot)
        self.tools[slot] = None
        self.alive_count -= 1
        self._store.kill(slot)
        self.generation += 1

    def averages(self) -> list[float]:
        n = self.alive_count
        return [(total / n if n else 0.0) or 1.0 for total in self.length_sum]

    def idf(self, term: str) -> float:
        return idf_of(self.alive_count, self.df.get(term, 0))

    def category_slots(self, category: str) -> set[int]:
        return self._category_slots.get(classic_normalize(category), set())

    # -- queries ------------------------------------------------------------------------------

    def top(self, terms: list[str], k: int, allowed: set[int] | None = None) -> list[tuple[Tool, float]]:
        """The ``k`` best tools for distinct analysed query terms (each of weight 1), best first."""
        return [(tool, score) for tool, score, _ in self.rank(QueryPlan(terms), k, allowed)]

    def rank(
        self, plan: QueryPlan, k: int, allowed: set[int] | None = None
    ) -> list[tuple[Tool, float, dict[str, float]]]:
        """The ``k`` best tools for a query plan, best first, ties by name; with each tool's term weights.

        A tool's score is the weighted sum of its term scores over the whole query plus, when the
        query has several sentences, a bonus for the sentence that suits it best (see
        :class:`QueryPlan`). The third item gives each term's total weight for that tool, so an
        explanation adds up to the score. When the query has a real word (not only single CJK
        characters), a tool must share one of those: a lone character such as 天 is not a match
        for 今天的新闻 on its own.
        """
        terms = plan.terms
        strong = [t for t in terms if not is_weak_term(t)]
        require = None
        if strong and len(strong) < len(terms):
            require = [t for t in strong if t in self.df]
            if not require:
                return []
        terms = [t for t in terms if t in self.df]
        if not terms or k <= 0:
            return []
        store = self._store
        keep = store.mask(allowed, require)
        clauses = [c for c in plan.clauses if any(t in self.df for t in c)]
        best_of: Any = {}  # slot -> (factor, c) of its best sentence, clauses[used[c]]
        used: list[int] = []
        accs: list[Any] = []  # the sentences that earn a bonus, with their factors
        factors: list[float] = []
        if len(clauses) > 1 and plan.clause_share > 0:
            sentences = [store.accumulate([t for t in c if t in self.df], c, keep) for c in clauses]
            # The whole query's scores as the sentences' sums, corrected for the words whose
            # weight is not the sum of their sentences' weights (repeated across sentences): each
            # word's postings are read about once, not once for the query and once per sentence.
            counted: dict[str, float] = {}
            for clause in clauses:
                for term, weight in clause.items():
                    counted[term] = counted.get(term, 0.0) + weight
            delta = {t: plan.weights.get(t, 1.0) - counted.get(t, 0.0) for t in terms}
            delta = {t: d for t, d in delta.items() if d}
            whole = store.total(sentences, list(delta), delta, keep)
            top_score = store.maximum(whole)
            # the clause of each of accs (a sentence that no allowed tool matches has none)
            for c, acc in enumerate(sentences):
                peak = store.maximum(acc)
                if peak > 0 and top_score > 0:
                    accs.append(acc)
                    factors.append(plan.clause_share * top_score / peak)
                    used.append(c)
        else:
            whole = store.accumulate(terms, plan.weights, keep)
        if accs:
            # No sentence's bonus exceeds clause_share × the best whole-query score.
            ranked, best_of = store.best_with_bonus(whole, accs, factors, plan.clause_share * top_score, k)
        else:
            ranked = store.best(whole, k)
        out = []
        for slot, score in ranked:
            tool = self.tools[slot]
            assert tool is not None
            weights = {t: plan.weights.get(t, 1.0) for t in terms}
            if slot in best_of:
                factor, c = best_of[slot]
                for term, weight in clauses[used[c]].items():
                    if term in weights:
                        weights[term] += factor * weight
            out.append((tool, score, weights))
        return out

    def term_scores(self, term: str) -> tuple[Any, Any]:
        """(slots, scores) of every live tool holding ``term``; cached per generation."""
        if isinstance(self._store, _NumpyStore):
            fresh = self._store.scores_at_generation(term)
            if fresh is not None:
                return fresh
        cached = self._cache.get(term)
        if cached is not None and cached[0] == self.generation:
            return cached[1], cached[2]
        slots, scores = self._store.score_term(term, self.idf(term), self.averages())
        self._cache[term] = (self.generation, slots, scores)
        return slots, scores


@lru_cache(maxsize=4096)
def _category_key(category: str) -> str:
    return classic_normalize(category)


def release_free_memory() -> None:
    """Hand memory freed by a large build back to the operating system (glibc keeps it otherwise).

    A bulk build allocates and frees a few hundred MiB of temporaries (analyses, entry lists);
    glibc's allocator keeps most of that in the process unless asked. Elsewhere this does nothing.
    """
    import ctypes
    import sys

    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.malloc_trim(0)
    except (OSError, AttributeError):  # not glibc (musl, ...): nothing to do
        return


def _numpy_available() -> bool:
    try:
        import numpy  # noqa: F401
    except ImportError:
        return False
    return True


def _rank_key(index: BM25FIndex, item: tuple[int, float]) -> tuple[float, str]:
    tool = index.tools[item[0]]
    return (-item[1], tool.name if tool is not None else "")


def _ordered(index: BM25FIndex, items: list[tuple[int, float]], k: int) -> list[tuple[int, float]]:
    """The ``k`` best (slot, score) items, ties by tool name; ``items`` holds every one scoring at
    least the k-th best score (so the ties at the cut are all there)."""
    return heapq.nsmallest(k, items, key=lambda item: _rank_key(index, item))


class _PythonStore:
    """Postings as ``term -> [slot, field, count, slot, field, count, ...]``, in slot order."""

    def __init__(self, index: BM25FIndex) -> None:
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
    ) -> tuple[dict[int, float], _LazyBest]:
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
        return out, _LazyBest(accs, factors, scaled=False)

    def best_with_bonus(
        self, whole: dict[int, float], accs: list[dict[int, float]], factors: list[float], bound: float, k: int
    ) -> tuple[list[tuple[int, float]], _LazyBest]:
        """The ``k`` best of ``whole`` plus the best-sentence bonus (at most ``bound``); per slot (factor, clause)."""
        scores, lazy = self.add_best(whole, accs, factors)
        return self.best(scores, k), lazy

    def best(self, acc: dict[int, float], k: int) -> list[tuple[int, float]]:
        if len(acc) > k:
            # Only the tools scoring at least the k-th best score are ordered by (score, name):
            # computing that order's key for every matching tool took most of a query's time.
            kth = heapq.nlargest(k, acc.values())[-1]
            return _ordered(self.index, [item for item in acc.items() if item[1] >= kth], k)
        return _ordered(self.index, list(acc.items()), k)


class _NumpyStore:
    """Postings in flat arrays sorted by (term, slot, field), plus an append-only delta.

    After a bulk load or a merge every term is scored at once (vectorised) into per-term runs
    of (slot, score); between merges, changes bump the generation and terms are re-scored one
    by one as queries need them.
    """

    #: Merge the delta into the main arrays when it holds this share of all postings.
    MERGE_SHARE = 0.05
    #: Slots per group when bounding the k-th best score from below (see :meth:`_floor`).
    BLOCK = 256
    #: best_with_bonus computes bonuses tool by tool when at most this share of tools can still reach the top.
    SPARSE_SHARE = 0.125

    def __init__(self, index: BM25FIndex) -> None:
        import numpy as np

        self.np = np
        self.index = index
        self.weights = np.asarray(index.model.weights, dtype=np.float64)
        self.bs = np.asarray(index.model.bs, dtype=np.float64)
        self.max_ratios = np.asarray(index.model.max_ratios, dtype=np.float64)
        self.capacity = 0
        self.lengths = np.zeros((index.nfields, 0), dtype=np.float64)
        self.alive = np.zeros(0, dtype=bool)
        # main segment: entries of term ``tid`` are [bounds[tid], bounds[tid + 1])
        self.tid: dict[str, int] = {}
        self.bounds = np.zeros(1, dtype=np.int64)
        self.slots = np.zeros(0, dtype=np.int32)
        self.fids = np.zeros(0, dtype=np.int8)
        self.counts = np.zeros(0, dtype=np.int8)
        # scores of the main segment at ``scored_generation``: runs [group_bounds[tid], ...)
        self.scored_generation = -1
        self.group_bounds = np.zeros(1, dtype=np.int64)
        self.group_slots = np.zeros(0, dtype=np.int32)
        self.group_scores = np.zeros(0, dtype=np.float64)
        self.delta: dict[str, list[int]] = {}
        self.delta_size = 0
        self.dead = 0

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        del state["np"]  # a module does not pickle; the on-disk catalog cache pickles indexes
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        import numpy

        self.__dict__.update(state)
        self.np = numpy

    def _grow(self, size: int) -> None:
        np = self.np
        if size <= self.capacity:
            return
        capacity = max(size, int(self.capacity * 1.5) + 16)
        lengths = np.zeros((self.index.nfields, capacity), dtype=np.float64)
        lengths[:, : self.capacity] = self.lengths
        alive = np.zeros(capacity, dtype=bool)
        alive[: self.capacity] = self.alive
        self.lengths, self.alive, self.capacity = lengths, alive, capacity

    def bulk_load(self, tools: list[Tool]) -> None:
        index = self.index
        assert not index.tools, "bulk_load builds an empty index"
        self._grow(len(tools))
        self._bulk_from_streams(tools)
        release_free_memory()

    def _bulk_from_streams(self, tools: list[Tool]) -> None:
        """Every term occurrence into one flat list; counting, ids and ordering done by NumPy."""
        np = self.np
        index = self.index
        nfields = index.nfields
        streams = index.streams
        register = index._register_slot
        occurrences: list[str] = []
        extend = occurrences.extend
        lengths = array("q")  # per (tool, field): number of term occurrences
        append = lengths.append
        for tool in tools:  # analysed one at a time: the analyses are never all in memory
            register(tool)
            for stream in streams(tool):
                before = len(occurrences)
                extend(stream)
                append(len(occurrences) - before)
        n = len(tools)
        self.alive[:n] = True
        per_field = np.frombuffer(lengths, dtype=np.int64) if n else np.zeros(0, dtype=np.int64)
        if n:
            by_field = per_field.reshape(n, nfields).T
            self.lengths[:, :n] = by_field
            index.length_sum = [int(total) for total in by_field.sum(axis=1)]
        term_ids = {term: i for i, term in enumerate(dict.fromkeys(occurrences))}
        key = np.fromiter(map(term_ids.__getitem__, occurrences), dtype=np.int64, count=len(occurrences))
        del occurrences
        # One integer per occurrence, ordered by (term, slot, field); runs of equal keys are counts.
        key *= max(n, 1) * nfields
        key += np.repeat(np.arange(n * nfields, dtype=np.int64), per_field)
        del per_field, lengths
        key, counts = np.unique(key, return_counts=True)
        fids = (key % nfields).astype(np.int8)
        key //= nfields
        slots = (key % max(n, 1)).astype(np.int32)
        key //= max(n, 1)
        terms = key
        counts = np.minimum(counts, index.model.max_count).astype(np.int8)
        first = self._group_starts(terms, slots)
        df = np.bincount(terms[first], minlength=len(term_ids)).tolist()
        index.df = dict(zip(term_ids, df, strict=True))
        self._set_main(term_ids, terms, slots, fids, counts)

    def _group_starts(self, terms: Any, slots: Any) -> Any:
        """Positions where a new (term, slot) run starts."""
        np = self.np
        if not len(terms):
            return np.zeros(0, dtype=np.int64)
        change = (terms[1:] != terms[:-1]) | (slots[1:] != slots[:-1])
        return np.flatnonzero(np.concatenate(([True], change)))

    def _set_main(self, term_ids: dict[str, int], terms: Any, slots: Any, fids: Any, counts: Any) -> None:
        np = self.np
        self.tid = term_ids
        self.slots, self.fids, self.counts = slots, fids, counts
        self.bounds = np.searchsorted(terms, np.arange(len(term_ids) + 1))
        self.index._cache.clear()
        self._score_all(terms)

    def _score_all(self, terms: Any) -> None:
        """Score every (term, slot) run of the main segment at the current generation."""
        np = self.np
        index = self.index
        avgs = np.asarray(index.averages())
        n = index.alive_count
        df = index.df
        idf = np.array([idf_of(n, df.get(term, 0)) for term in self.tid], dtype=np.float64)
        first = self._group_starts(terms, self.slots)
        fids = self.fids
        if len(fids):
            b = self.bs[fids]
            ratio = np.minimum(self.lengths[fids, self.slots] / avgs[fids], self.max_ratios[fids])
            norm = 1.0 - b + b * ratio
            part = self.weights[fids] * self.counts / norm
            tf = np.add.reduceat(part, first)
        else:
            tf = np.zeros(0)
        k1 = index.model.k1
        self.group_slots = self.slots[first].astype(np.intp)
        self.group_scores = idf[terms[first]] * tf * (k1 + 1.0) / (k1 + tf)
        self.group_bounds = np.searchsorted(first, self.bounds)
        self.scored_generation = index.generation

    def append(self, slot: int, fields: Analysed) -> None:
        self._grow(slot + 1)
        self.alive[slot] = True
        max_count = self.index.model.max_count
        for fid, (counts, length) in enumerate(fields):
            self.lengths[fid, slot] = length
            for term, count in counts.items():
                self.delta.setdefault(term, []).extend((slot, fid, min(count, max_count)))
                self.delta_size += 1
        if self.delta_size > self.MERGE_SHARE * max(len(self.slots), 1000):
            self._merge()

    def kill(self, slot: int) -> None:
        self.alive[slot] = False
        self.dead += 1
        if self.dead > 64 and self.dead * 4 > len(self.index.tools):
            self._merge()

    def _entries(self, term: str) -> tuple[Any, Any, Any]:
        """(slots, fields, counts) of a term: main segment, then delta (slot order holds)."""
        np = self.np
        tid = self.tid.get(term)
        if tid is None:
            slots, fids, counts = self.slots[:0], self.fids[:0], self.counts[:0]
        else:
            start, end = int(self.bounds[tid]), int(self.bounds[tid + 1])
            slots, fids, counts = self.slots[start:end], self.fids[start:end], self.counts[start:end]
        extra = self.delta.get(term)
        if extra:
            triples = np.asarray(extra, dtype=np.int64).reshape(-1, 3)
            slots = np.concatenate([slots, triples[:, 0].astype(np.int32)])
            fids = np.concatenate([fids, triples[:, 1].astype(np.int8)])
            counts = np.concatenate([counts, triples[:, 2].astype(np.int8)])
        return slots, fids, counts

    def _merge(self) -> None:
        """Fold the delta into the main arrays, drop dead slots' postings, re-score everything."""
        np = self.np
        term_ids: dict[str, int] = {}
        parts: list[tuple[Any, Any, Any, Any]] = []
        for term in list(self.tid) + [t for t in self.delta if t not in self.tid]:
            slots, fids, counts = self._entries(term)
            keep = self.alive[slots]
            if not keep.all():
                slots, fids, counts = slots[keep], fids[keep], counts[keep]
            if len(slots):
                tid = term_ids[term] = len(term_ids)
                parts.append((np.full(len(slots), tid, dtype=np.int64), slots, fids, counts))
        self.delta = {}
        self.delta_size = 0
        self.dead = 0
        if parts:
            terms, slots, fids, counts = (np.concatenate(column) for column in zip(*parts, strict=True))
        else:
            terms, slots = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int32)
            fids, counts = np.zeros(0, dtype=np.int8), np.zeros(0, dtype=np.int8)
        self._set_main(term_ids, terms, slots, fids, counts)

    def scores_at_generation(self, term: str) -> tuple[Any, Any] | None:
        """The precomputed run of a term, when nothing changed since the last full scoring."""
        if self.scored_generation != self.index.generation:
            return None
        tid = self.tid.get(term)
        if tid is None:
            return self.group_slots[:0], self.group_scores[:0]
        start, end = int(self.group_bounds[tid]), int(self.group_bounds[tid + 1])
        return self.group_slots[start:end], self.group_scores[start:end]

    def score_term(self, term: str, idf: float, avgs: list[float]) -> tuple[Any, Any]:
        np = self.np
        slots, fids, counts = self._entries(term)
        if not len(slots):
            return slots, np.zeros(0)
        b = self.bs[fids]
        ratio = np.minimum(self.lengths[fids, slots] / np.asarray(avgs)[fids], self.max_ratios[fids])
        norm = 1.0 - b + b * ratio
        part = self.weights[fids] * counts / norm
        first = np.flatnonzero(np.concatenate(([True], slots[1:] != slots[:-1])))
        tf = np.add.reduceat(part, first)
        unique = slots[first]
        if self.dead:
            keep = self.alive[unique]
            unique, tf = unique[keep], tf[keep]
        k1 = self.index.model.k1
        return unique, idf * tf * (k1 + 1.0) / (k1 + tf)

    def mask(self, allowed: set[int] | None, require: list[str] | None) -> Any:
        """A boolean array of the slots a tool may be in (None: any)."""
        np = self.np
        size = len(self.index.tools)
        mask = None
        if require is not None:
            mask = np.zeros(size, dtype=bool)
            for term in require:
                mask[self.index.term_scores(term)[0]] = True
        if allowed is not None:
            allowed_mask = np.zeros(size, dtype=bool)
            if allowed:
                allowed_mask[np.fromiter(allowed, dtype=np.int64, count=len(allowed))] = True
            mask = allowed_mask if mask is None else mask & allowed_mask
        return mask

    def accumulate(self, terms: list[str], weights: dict[str, float], keep: Any) -> Any:
        """Weighted sum of the terms' scores per slot (zero outside ``keep``)."""
        acc = self.np.zeros(len(self.index.tools), dtype=self.np.float64)
        for term in terms:
            slots, scores = self.index.term_scores(term)
            weight = weights.get(term, 1.0)
            # ``add.at``, not ``acc[slots] += ...``: the same sums (a term holds a slot once), two to
            # three times faster on postings of tens of thousands of tools since NumPy 1.25 (the
            # lower bound in pyproject.toml; on 1.24 ``add.at`` is twenty times slower).
            self.np.add.at(acc, slots, scores if weight == 1.0 else scores * weight)
        if keep is not None:
            acc[~keep] = 0.0
        return acc

    def total(self, accs: list[Any], terms: list[str], weights: dict[str, float], keep: Any) -> Any:
        """The sum of ``accs`` plus the weighted scores of ``terms``."""
        out = accs[0].copy()
        for acc in accs[1:]:
            out += acc
        if terms:
            out += self.accumulate(terms, weights, keep)
        return out

    @staticmethod
    def maximum(acc: Any) -> float:
        return float(acc.max()) if len(acc) else 0.0

    def add_best(self, whole: Any, accs: list[Any], factors: list[float]) -> tuple[Any, _LazyBest]:
        """``whole`` plus each slot's best ``factor × clause score``; per slot, (factor, clause).

        Two passes over the catalog per sentence (scale, running maximum); which sentence was
        best is worked out later, only for the tools returned.
        """
        np = self.np
        for acc, factor in zip(accs, factors, strict=True):
            acc *= factor  # in place: the sentences' own scores are not needed afterwards
        top = accs[0] if len(accs) == 1 else np.maximum(accs[0], accs[1])
        for acc in accs[2:]:
            np.maximum(top, acc, out=top)
        whole += top
        return whole, _LazyBest(accs, factors, scaled=True)

    def _floor(self, acc: Any, k: int) -> tuple[float, Any, Any] | None:
        """A floor for the k-th best score of ``acc`` (None for small arrays), with the groups behind it.

        The k-th best of the maxima of disjoint groups of slots: k groups hold a score at least that
        high. Group j is every slot equal to j modulo the number of groups: the column of a
        (BLOCK, groups) view, whose maxima take one vectorised pass. Returns (floor, view, maxima).
        """
        rows = self.BLOCK
        groups = len(acc) // rows
        if groups <= 4 * k:
            return None
        grid = acc[: rows * groups].reshape(rows, groups)
        tops = grid.max(axis=0)
        return float(self.np.partition(tops, groups - k)[groups - k]), grid, tops

    def best(self, acc: Any, k: int) -> list[tuple[int, float]]:
        np = self.np
        candidates = None
        bounded = self._floor(acc, k)
        if bounded is not None and bounded[0] > 0:
            # Only the few tools at or above the floor are looked at, in the groups that reach it,
            # not the tens of thousands with any score (partitioning those took half a millisecond).
            floor, grid, tops = bounded
            groups = grid.shape[1]
            columns = np.flatnonzero(tops >= floor)
            row, at = np.nonzero(grid[:, columns] >= floor)
            tail = np.flatnonzero(acc[grid.size :] >= floor)
            candidates = np.concatenate([row * groups + columns[at], tail + grid.size])
        if candidates is None:
            candidates = np.flatnonzero(acc > 0)
        return self._top(candidates, acc[candidates], k)

    def best_with_bonus(
        self, whole: Any, accs: list[Any], factors: list[float], bound: float, k: int
    ) -> tuple[list[tuple[int, float]], _LazyBest]:
        """The ``k`` best of ``whole`` plus the best-sentence bonus (at most ``bound``); per slot (factor, clause).

        A score is at least its whole-query part, so the k-th best score is at least the floor of
        the whole-query scores; a tool whose whole-query part is below that floor minus ``bound``
        cannot reach it. Usually a few hundred tools are left, and their bonuses are computed
        for them alone (the same products and maxima as :meth:`add_best`, so the same scores).
        """
        np = self.np
        bounded = self._floor(whole, k)
        if bounded is not None:
            # The margin covers the rounding of the factors and the products (a few units in the last place).
            threshold = bounded[0] - bound * (1.0 + 1e-9)
            if threshold > 0:
                candidates = np.flatnonzero(whole >= threshold)
                if len(candidates) <= self.SPARSE_SHARE * len(whole):
                    bonus = accs[0][candidates] * factors[0]
                    for acc, factor in zip(accs[1:], factors[1:], strict=True):
                        np.maximum(bonus, acc[candidates] * factor, out=bonus)
                    return self._top(candidates, whole[candidates] + bonus, k), _LazyBest(accs, factors, scaled=False)
        scores, lazy = self.add_best(whole, accs, factors)
        return self.best(scores, k), lazy

    def _top(self, candidates: Any, scores: Any, k: int) -> list[tuple[int, float]]:
        """The ``k`` best ``candidates`` (slots: all that score at least the k-th best) by score, ties by name."""
        np = self.np
        if len(candidates) > k:
            # Everything scoring at least the k-th best score, so ties at the cut are ordered by name.
            kth = np.partition(scores, len(scores) - k)[len(scores) - k]
            keep = scores >= kth
            candidates, scores = candidates[keep], scores[keep]
        return _ordered(self.index, list(zip(candidates.tolist(), scores.tolist(), strict=True)), k)


class _LazyBest:
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

    def __getitem__(self, slot: int) -> tuple[float, int]:
        values = self._bonuses(slot)
        c = values.index(max(values))  # the first best sentence
        return self.factors[c], c
