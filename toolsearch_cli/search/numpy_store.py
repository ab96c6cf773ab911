"""The ``numpy`` scoring store of the BM25F index: postings in flat arrays, scored vectorised.

A main segment plus a small append-only delta, merged when it grows; for large catalogs
(100,000 tools stay interactive). It implements :class:`.store.ScoringStore`; NumPy is imported
when a store is made, never with this module.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Sequence
from itertools import chain, compress
from typing import Any

from ..model import Tool
from .scoring import Analysed, LazyBest, idf_of, ordered
from .store import StoreHost

_NUL = "\x00"
#: The token that ends each field of a batch's joined texts (see NumpyStore._bulk_from_texts).
_SEPARATOR = _NUL
_SPACED_SEPARATOR = f" {_SEPARATOR} "


class NumpyStore:
    """Postings in flat arrays sorted by (term, slot, field), plus an append-only delta.

    After a bulk load or a merge every term is scored at once (vectorised) into per-term runs
    of (slot, score); between merges, changes bump the generation and terms are re-scored one
    by one as queries need them.
    """

    #: Merge the delta into the main arrays when it holds this share of all postings.
    MERGE_SHARE = 0.05
    #: Slots per group when bounding the k-th best score from below (see :meth:`_floor`).
    BLOCK = 256
    #: Fewer slots per group (down to this many) when k is large, so there are at least 8k groups:
    #: with BLOCK's 390 groups a pool of 100 at 100,000 tools got no floor, and partitioning every
    #: matching tool's score cost ~0.5 ms a query (issue 32's parameter cap ranks a pool of 100).
    MIN_BLOCK = 16
    #: best_with_bonus computes bonuses tool by tool when at most this share of tools can still reach the top.
    SPARSE_SHARE = 0.125

    def __init__(self, index: StoreHost) -> None:
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
        # the main segment's entries by slot (see _by_slot), made after FORWARD_AFTER weighings
        self.forward: tuple[Any, Any] | None = None
        self.weighings = 0

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        del state["np"]  # a module does not pickle; the on-disk catalog cache pickles indexes
        state["forward"], state["weighings"] = None, 0  # made again when a process needs it
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        import numpy

        self.__dict__.setdefault("forward", None)
        self.__dict__.setdefault("weighings", 0)
        self.__dict__.update(state)
        self.np = numpy
        for name, value in state.items():
            if isinstance(value, numpy.ndarray):
                self.__dict__[name] = builtin_dtype(value)

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
        self._bulk_from_texts(tools)
        release_free_memory()

    #: Tools whose texts are analysed together (joined, split, each distinct token looked up once):
    #: ~250,000 tokens, a few MiB of text and ~15 MiB of transient token strings.
    BATCH = 4096
    #: Distinct tokens whose term ids are kept from one batch for the next; past this many (a
    #: large catalog's names are mostly unique) they are forgotten and found again as needed.
    KEEP_TOKENS = 1 << 17

    def _bulk_from_texts(self, tools: list[Tool]) -> None:
        """Every term occurrence as an int32 term id, tool after tool and field after field (term
        ids in first-seen order); counting and ordering done by NumPy.

        The texts of a batch of tools (:attr:`StoreHost.texts`) are joined into one string with a
        separator token between fields, split once, and each distinct token of the batch is
        analysed and turned into term ids once; the separators give each field's length. The
        separator and the stand-ins for fields given as terms start with a NUL, so a batch whose
        texts hold a NUL themselves is analysed text by text instead (the same terms)."""
        np = self.np
        index = self.index
        nfields = index.nfields
        texts_of = index.texts
        token_terms = index.token_terms
        term_ids: dict[str, int] = {}  # in first-seen order
        id_chunks: list[Any] = []
        length_chunks: list[Any] = []
        given: dict[str, tuple[str, ...]] = {}  # stand-in token -> the field's terms

        def ids_of(terms: Iterable[str]) -> tuple[int, ...]:
            out = []
            for term in terms:
                tid = term_ids.get(term)
                if tid is None:
                    tid = term_ids[term] = len(term_ids)
                out.append(tid)
            return tuple(out)

        class Known(dict):  # type: ignore[type-arg]
            """Token -> its term ids, found on the first look-up (so in first-seen order)."""

            def __missing__(self, token: str) -> tuple[int, ...]:
                found = self[token] = ids_of(given[token] if token[0] == _NUL else token_terms(token))
                return found

        known = Known({_SEPARATOR: (-1,)})
        parts: list[str] = []
        batch: list[Sequence[str | tuple[str, ...]]] = []

        def flush() -> None:
            nonlocal known
            if not batch:
                return
            filled = list(map(bool, parts))  # an empty field is no text to split: its length is 0
            texts = list(compress(parts, filled))
            joined = _SPACED_SEPARATOR.join(texts) + _SPACED_SEPARATOR
            if joined.count(_NUL) != len(texts) + len(given):
                ids, lengths = self._ids_text_by_text(batch, token_terms, ids_of)
            else:
                tokens = joined.split()
                del joined, texts
                with_separators = np.fromiter(chain.from_iterable(map(known.__getitem__, tokens)), dtype=np.int32)
                del tokens
                ends = np.flatnonzero(with_separators < 0)
                lengths = np.zeros(len(parts), dtype=np.int64)
                lengths[np.asarray(filled, dtype=bool)] = np.diff(ends, prepend=-1) - 1
                ids = with_separators[with_separators >= 0]
                for token in given:
                    del known[token]
                if len(known) > self.KEEP_TOKENS:
                    known = Known({_SEPARATOR: (-1,)})
            id_chunks.append(ids)
            length_chunks.append(lengths)
            parts.clear()
            given.clear()
            batch.clear()

        size = self.BATCH
        index._register_slots(tools)
        for tool in tools:
            texts = texts_of(tool)
            batch.append(texts)
            if texts[0].__class__ is tuple:  # the name's terms, given (an OpenAPI method's verbs)
                stand_in = f"{_NUL}{len(given)}"
                given[stand_in] = texts[0]
                texts = (stand_in, *texts[1:])
            parts.extend(texts)  # type: ignore[arg-type]  # (only the first may be terms: replaced)
            if len(batch) >= size:
                flush()
        flush()
        per_field = np.concatenate(length_chunks) if length_chunks else np.zeros(0, dtype=np.int64)
        length_chunks.clear()
        chunks = id_chunks
        n = len(tools)
        self.alive[:n] = True
        if n:
            by_field = per_field.reshape(n, nfields).T
            self.lengths[:, :n] = by_field
            index.length_sum = [int(total) for total in by_field.sum(axis=1)]
        ids = np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.int32)
        chunks.clear()
        # One integer per occurrence, ordered by (term, slot, field); runs of equal keys are counts.
        key = ids.astype(np.int64)
        del ids
        key *= max(n, 1) * nfields
        place = np.int32 if n * nfields < 2**31 else np.int64
        key += np.repeat(np.arange(n * nfields, dtype=place), per_field)
        del per_field
        key.sort()  # in place; then what np.unique(key, return_counts=True) gives, without its copy
        first = np.flatnonzero(np.concatenate(([True], key[1:] != key[:-1]))) if len(key) else np.zeros(0, np.intp)
        counts = np.diff(np.append(first, len(key)))
        key = key[first]
        del first
        fids = (key % nfields).astype(np.int8)
        key //= nfields
        slots = (key % max(n, 1)).astype(np.int32)
        key //= max(n, 1)
        terms = key
        counts = np.minimum(counts, index.model.max_count).astype(np.int8)
        first = self._group_starts(terms, slots)
        df = np.bincount(terms[first], minlength=len(term_ids)).tolist()
        index.df = dict(zip(term_ids, df, strict=True))
        self._set_main(term_ids, terms, slots, fids, counts, first)

    def _ids_text_by_text(
        self,
        batch: list[Sequence[str | tuple[str, ...]]],
        token_terms: Callable[[str], tuple[str, ...]],
        ids_of: Callable[[Iterable[str]], tuple[int, ...]],
    ) -> tuple[Any, Any]:
        """A batch's term ids and field lengths, each text analysed alone (the same as the joined
        batch's: for texts that hold a NUL, which the separator of a joined batch is made of)."""
        np = self.np
        ids = array("i")
        lengths = array("q")
        for texts in batch:
            for text in texts:
                terms = text if isinstance(text, tuple) else chain.from_iterable(map(token_terms, text.split()))
                found = ids_of(terms)
                ids.extend(found)
                lengths.append(len(found))
        return np.frombuffer(ids, dtype=np.int32) if ids else np.zeros(0, dtype=np.int32), np.frombuffer(
            lengths, dtype=np.int64
        )

    def _group_starts(self, terms: Any, slots: Any) -> Any:
        """Positions where a new (term, slot) run starts."""
        np = self.np
        if not len(terms):
            return np.zeros(0, dtype=np.int64)
        change = (terms[1:] != terms[:-1]) | (slots[1:] != slots[:-1])
        return np.flatnonzero(np.concatenate(([True], change)))

    def _set_main(
        self, term_ids: dict[str, int], terms: Any, slots: Any, fids: Any, counts: Any, first: Any = None
    ) -> None:
        """The main segment is these postings (sorted by term, slot, field); ``first``: where each
        (term, slot) run starts, when the caller has it already."""
        np = self.np
        self.tid = term_ids
        self.slots, self.fids, self.counts = slots, fids, counts
        self.forward, self.weighings = None, 0
        self.bounds = np.searchsorted(terms, np.arange(len(term_ids) + 1))
        self.index._cache.clear()
        self._score_all(terms, first)

    def _score_all(self, terms: Any, first: Any = None) -> None:
        """Score every (term, slot) run of the main segment at the current generation."""
        np = self.np
        index = self.index
        avgs = np.asarray(index.averages())
        n = index.alive_count
        df = index.df
        idf = np.array([idf_of(n, df.get(term, 0)) for term in self.tid], dtype=np.float64)
        if first is None:
            first = self._group_starts(terms, self.slots)
        fids = self.fids
        if len(fids):
            # each (field, slot)'s length normalisation once, then read per posting: the same
            # arithmetic as score_term's per posting (the same bits), a few passes over the
            # postings fewer (1,000,000 tools have ~30 million)
            b = self.bs[:, None]
            norms = 1.0 - b + b * np.minimum(self.lengths / avgs[:, None], self.max_ratios[:, None])
            part = self.weights[fids] * self.counts / norms[fids, self.slots]
            del norms
            tf = np.add.reduceat(part, first)
        else:
            tf = np.zeros(0)
        k1 = index.model.k1
        # the postings' own (int32) slots, as score_term gives them: an int64 copy added 8 bytes a
        # run (15 MB of a 100,000-tool cache entry, read and authenticated on every cached search)
        self.group_slots = self.slots[first]
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

    def held_in(self, term: str, slots: list[int], fields: frozenset[int]) -> list[bool]:
        """Binary search of each slot in the term's postings (slot order), then its few entries."""
        np = self.np
        posting, fids, _ = self._entries(term)
        if not len(posting) or not slots:
            return [False] * len(slots)
        wanted = np.asarray(slots, dtype=posting.dtype)
        left = np.searchsorted(posting, wanted, "left")
        right = np.searchsorted(posting, wanted, "right")
        own = np.zeros(self.index.nfields, dtype=bool)
        own[list(fields)] = True
        found = np.zeros(len(slots), dtype=bool)
        last = len(posting) - 1
        for offset in range(int((right - left).max())):  # at most one entry per field
            at = left + offset
            found |= (at < right) & own[fids[np.minimum(at, last)]]
        return [bool(x) for x in found]

    def split_candidates(
        self, terms: list[str], slots: list[int], fields: frozenset[int], avgs: list[float]
    ) -> list[dict[int, tuple[float, float]]]:
        """Per term, for the indexes ``i`` of ``slots`` whose tool holds it in one of the field ids
        ``fields``: (its weighted, length-normalised frequency over all fields, before saturation;
        the part from ``fields``). The candidates' entries of every term in the main segment are
        read from its entries by slot (:meth:`_pairs_by_slot`; at first found by binary search,
        :meth:`_pairs_by_search`: see FORWARD_AFTER) and scored in one vectorised pass (a pass over
        whole postings cost 6 ms a query at 100,000 tools); a term with entries in the delta segment
        (tools added since the last merge) is read whole."""
        np = self.np
        out: list[dict[int, tuple[float, float]]] = [{} for _ in terms]
        if not terms or not slots:
            return out
        chosen = np.zeros(self.index.nfields, dtype=bool)
        chosen[list(fields)] = True
        averages = np.asarray(avgs)
        wanted = np.asarray(slots, dtype=self.slots.dtype)
        nslots = len(slots)
        plain: list[int] = []  # the terms read from the main segment alone, and their ids
        tids: list[int] = []
        for t, term in enumerate(terms):
            if term in self.delta:
                out[t] = self._split_whole(term, wanted, chosen, averages)
                continue
            tid = self.tid.get(term)
            if tid is not None:
                plain.append(t)
                tids.append(tid)
        if not plain or not len(self.slots):
            return out
        self.weighings += 1
        if self.forward is None and self.weighings > self.FORWARD_AFTER:
            self.forward = self._by_slot()
            release_free_memory()  # the argsort's int64 temporaries: 22 MB held otherwise
        if self.forward is not None and int(wanted.max()) + 1 < len(self.forward[1]):
            row, at = self._pairs_by_slot(plain, tids, wanted)
        else:
            row, at = self._pairs_by_search(plain, tids, wanted)
        fid, slot = self.fids[at], self.slots[at]
        b = self.bs[fid]
        ratio = np.minimum(self.lengths[fid, slot] / averages[fid], self.max_ratios[fid])
        tf = self.weights[fid] * self.counts[at] / (1.0 - b + b * ratio)
        size = len(terms) * nslots
        total = np.bincount(row, tf, minlength=size)
        part = np.bincount(row, np.where(chosen[fid], tf, 0.0), minlength=size)
        for r in np.flatnonzero(part).tolist():
            t, i = divmod(r, nslots)
            if not out[t] or i not in out[t]:
                out[t][i] = (float(total[r]), float(part[r]))
        return out

    #: split_candidates finds the candidates' entries by binary search in each term's postings for
    #: this many calls, then makes the main segment's entries by slot once (an ``argsort`` of the
    #: postings: 0.1 s and 11 MB at 100,000 tools, its temporaries handed back to the system) and
    #: reads each candidate's entries from it: a one-off search (a CLI call on a cached catalog)
    #: does not pay for it, a long-running process does once (the entries of ~45 terms x 20
    #: candidates, p50: 0.41 ms by search, 0.10 ms by slot).
    FORWARD_AFTER = 16

    def _by_slot(self) -> tuple[Any, Any]:
        """The main segment's entry positions ordered by slot (ascending positions within a slot),
        and where each slot's run starts (one more than the slots)."""
        np = self.np
        order = np.argsort(self.slots, kind="stable")
        if len(order) < 2**31:
            order = order.astype(np.int32)
        size = len(self.index.tools)  # a slot added later has no entries here: searched instead
        starts = np.zeros(size + 1, dtype=np.int64)
        np.cumsum(np.bincount(self.slots, minlength=size), out=starts[1:])
        return order, starts

    def _pairs_by_slot(self, plain: list[int], tids: list[int], wanted: Any) -> tuple[Any, Any]:
        """(row, entry position) of every main-segment entry of the candidates ``wanted`` for the
        term ids ``tids`` (row ``plain[j] * len(wanted) + i``), read from the entries by slot;
        ordered by candidate, then position (so a row's entries in field order)."""
        np = self.np
        order, starts = self.forward  # type: ignore[misc]
        nslots = len(wanted)
        first, last = starts[wanted], starts[wanted + 1]
        count = last - first
        at = order[np.repeat(first - np.cumsum(count) + count, count) + np.arange(int(count.sum()))]
        candidate = np.repeat(np.arange(nslots), count)
        term_of = np.searchsorted(self.bounds, at, "right") - 1
        asked = np.asarray(tids, dtype=np.int64)
        by_id = np.argsort(asked)
        sorted_ids = asked[by_id]
        j = np.minimum(np.searchsorted(sorted_ids, term_of), len(sorted_ids) - 1)
        match = sorted_ids[j] == term_of
        t = np.asarray(plain, dtype=np.int64)[by_id[j[match]]]
        return t * nslots + candidate[match], at[match]

    def _pairs_by_search(self, plain: list[int], tids: list[int], wanted: Any) -> tuple[Any, Any]:
        """What :meth:`_pairs_by_slot` gives (the same entries per row, in the same order), found
        by a binary search of every (term, candidate) pair at once in the term's postings (the
        first entry of the candidate's slot; a slot's entries are adjacent, one per field)."""
        np = self.np
        nslots = len(wanted)
        ids = np.asarray(tids, dtype=np.int64)
        low = np.repeat(self.bounds[ids], nslots)
        end = np.repeat(self.bounds[ids + 1], nslots)
        high = end.copy()
        target = np.tile(wanted, len(tids))
        postings = self.slots
        last = len(postings) - 1
        while True:
            open_ = low < high
            if not open_.any():
                break
            middle = (low + high) >> 1
            below = open_ & (postings[np.minimum(middle, last)] < target)
            low = np.where(below, middle + 1, low)
            high = np.where(open_ & ~below, middle, high)
        nfields = self.index.nfields
        at = low[:, None] + np.arange(nfields)
        inside = (at < end[:, None]) & (postings[np.minimum(at, last)] == target[:, None])
        count = inside.sum(axis=1)
        held = np.flatnonzero(count)
        row = np.asarray(plain, dtype=np.int64)[held // nslots] * nslots + held % nslots
        first, count = low[held], count[held]
        at = np.repeat(first - np.cumsum(count) + count, count) + np.arange(int(count.sum()))
        return np.repeat(row, count), at

    def _split_whole(self, term: str, wanted: Any, chosen: Any, averages: Any) -> dict[int, tuple[float, float]]:
        np = self.np
        posting, fids, counts = self._entries(term)
        where = {slot: i for i, slot in enumerate(wanted.tolist())}
        b = self.bs[fids]
        ratio = np.minimum(self.lengths[fids, posting] / averages[fids], self.max_ratios[fids])
        tf = (self.weights[fids] * counts / (1.0 - b + b * ratio)).tolist()
        total: dict[int, float] = {}
        part: dict[int, float] = {}
        for slot, fid, x in zip(posting.tolist(), fids.tolist(), tf, strict=True):
            i = where.get(slot)
            if i is None:
                continue
            total[i] = total.get(i, 0.0) + x
            if chosen[fid]:
                part[i] = part.get(i, 0.0) + x
        return {i: (total[i], p) for i, p in part.items()}

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

    def add_best(self, whole: Any, accs: list[Any], factors: list[float]) -> tuple[Any, LazyBest]:
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
        return whole, LazyBest(accs, factors, scaled=True)

    def _floor(self, acc: Any, k: int) -> tuple[float, Any, Any] | None:
        """A floor for the k-th best score of ``acc`` (None for small arrays), with the groups behind it.

        The k-th best of the maxima of disjoint groups of slots: k groups hold a score at least that
        high. Group j is every slot equal to j modulo the number of groups: the column of a
        (BLOCK, groups) view, whose maxima take one vectorised pass. Returns (floor, view, maxima).
        """
        # at least 8k groups when the array allows it (see MIN_BLOCK)
        rows = min(self.BLOCK, max(self.MIN_BLOCK, len(acc) // (8 * max(k, 1))))
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
    ) -> tuple[list[tuple[int, float]], LazyBest]:
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
                    return self._top(candidates, whole[candidates] + bonus, k), LazyBest(accs, factors, scaled=False)
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
        return ordered(self.index.tools, list(zip(candidates.tolist(), scores.tolist(), strict=True)), k)


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


def builtin_dtype(array: Any) -> Any:
    """``array`` viewed with NumPy's own instance of its dtype (no copy).

    An unpickled array's dtype is a new ``dtype`` object equal to the built-in one, not the
    built-in one itself, and some of NumPy's fast paths test the dtype by identity: ``np.add.at``
    on a cached index's postings took the generic path, 15 to 60 times slower (a 100,000-tool
    catalog read back from the cache answered each query in 7.8 ms against 1.2 ms for the same
    index just built)."""
    import numpy

    dtype = array.dtype
    try:
        canonical = numpy.dtype(dtype.type)
    except TypeError:  # pragma: no cover - a structured or parametric dtype: left as it is
        return array
    if canonical is dtype or canonical != dtype:
        return array
    return array.view(canonical)
