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

* ``python`` (:mod:`.python_store`): dicts and lists; no import cost, for the catalogs of a few
  hundred or thousand tools that a CLI call loads (start-up matters more than throughput there);
* ``numpy`` (:mod:`.numpy_store`): postings in flat arrays (a main segment plus a small
  append-only delta, merged when it grows), scored with vectorised arithmetic; for large catalogs
  (100,000 tools stay interactive). Chosen automatically above :data:`NUMPY_MIN_TOOLS` when NumPy
  is installed.

Both implement :class:`.store.ScoringStore`; this module keeps what does not depend on the store
(slots, statistics, the query algorithm) and picks the store (:func:`make_store`).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from ..errors import CatalogError
from ..model import Tool
from .python_store import PythonStore
from .scoring import Analysed, FieldModel, QueryPlan, idf_of
from .store import ScoringStore, StoreHost
from .text import classic_normalize, is_weak_term

__all__ = ["NUMPY_MIN_TOOLS", "BM25FIndex", "make_store"]

#: Catalogs at least this large use the NumPy backend when NumPy is importable.
NUMPY_MIN_TOOLS = 2000


def make_store(backend: str, host: StoreHost) -> ScoringStore:
    """The scoring store of ``backend`` (``numpy``, else ``python``) for the index ``host``."""
    if backend == "numpy":
        from .numpy_store import NumpyStore  # imports NumPy: only for the large catalogs that use it

        return NumpyStore(host)
    return PythonStore(host)


class BM25FIndex:
    """An updatable BM25F index over tools; ``analyse(tool)`` gives each field's term counts."""

    def __init__(
        self,
        tools: Iterable[Tool],
        analyse: Any,
        texts: Any,
        model: FieldModel,
        *,
        backend: str | None = None,
        token_terms: Any = None,
    ) -> None:
        tools = list(tools)
        #: ``tool -> per field (term counts, length)``: for one-tool changes and the Python backend.
        self.analyse = analyse
        #: ``tool -> per field, a normalised text or a tuple of terms`` (see
        #: :func:`.bm25f.tool_texts`), the same terms as ``analyse``: a NumPy bulk build analyses
        #: the texts of many tools at once, each distinct token once.
        self.texts = texts
        #: ``token -> its terms``: the analyser of the tokens of ``texts``.
        self.token_terms = token_terms
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
        self._store: ScoringStore = make_store(backend, self)
        from ..bounded import gc_paused

        with gc_paused():  # a large catalog's terms and postings: many objects, no cycles
            self._store.bulk_load(tools)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("slot_of", None)  # made again from the slots on first use (see __getattr__); absent until then
        return state

    def __getattr__(self, name: str) -> Any:
        # Only for what the instance lacks: an index read back from a pickle makes its slots by
        # name on first use (a dict of 100,000 names cost 0.04 s to unpickle on every cached
        # search, which needs it only to change the index). A removed tool's slot holds None.
        tools = self.__dict__.get("tools")
        if name != "slot_of" or tools is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        slot_of = self.__dict__["slot_of"] = {tool.name: slot for slot, tool in enumerate(tools) if tool is not None}
        return slot_of

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

    def _register_slots(self, tools: list[Tool]) -> None:
        """Give each of ``tools`` its slot, in order, in an empty index, as :meth:`_register_slot`
        one at a time does (a bulk build: the names' map made in one go, the categories' slots in
        one loop); a name given twice is the same error."""
        assert not self.tools, "for an empty index"
        slot_of = self.slot_of = dict(zip([tool.name for tool in tools], range(len(tools)), strict=True))
        if len(slot_of) != len(tools):
            seen: set[str] = set()
            for tool in tools:
                if tool.name in seen:
                    raise CatalogError(
                        f"the index already holds a tool named {tool.name!r}", tool=tool.name, field="name"
                    )
                seen.add(tool.name)
        self.tools.extend(tools)
        self.alive_count += len(tools)
        slots_of, key = self._category_slots, _category_key
        for slot, tool in enumerate(tools):
            category = tool.category
            if category:
                slots_of.setdefault(key(category), set()).add(slot)

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

    def held_in(self, term: str, slots: list[int], fields: frozenset[int]) -> list[bool]:
        """For each of ``slots``, whether its tool holds ``term`` in one of the field ids ``fields``."""
        return self._store.held_in(term, slots, fields)

    def param_split(
        self, terms: list[str], slots: list[int], fields: frozenset[int]
    ) -> list[dict[int, tuple[float, float]]]:
        """Per term, for the indexes ``i`` of ``slots`` whose tool holds it in one of the field ids
        ``fields``: (its frequency over all fields as scored, weighted and length-normalised
        before saturation; the part from ``fields``)."""
        return self._store.split_candidates(terms, slots, fields, self.averages())

    def category_slots(self, category: str) -> set[int]:
        return self._category_slots.get(classic_normalize(category), set())

    # -- queries ------------------------------------------------------------------------------

    def top(self, terms: list[str], k: int, allowed: set[int] | None = None) -> list[tuple[Tool, float]]:
        """The ``k`` best tools for distinct analysed query terms (each of weight 1), best first."""
        return [(tool, score) for tool, score, _ in self.rank(QueryPlan(terms), k, allowed)]

    def rank(
        self, plan: QueryPlan, k: int, allowed: set[int] | None = None, *, weights: bool = True
    ) -> list[tuple[Tool, float, dict[str, float]]]:
        """The ``k`` best tools for a query plan, best first, ties by name; with each tool's term weights
        (see :meth:`ranked_slots`)."""
        return [(tool, score, w) for _, tool, score, w in self.ranked_slots(plan, k, allowed, weights=weights)]

    def ranked_slots(
        self,
        plan: QueryPlan,
        k: int,
        allowed: set[int] | None = None,
        *,
        weights: bool = True,
        weighed: int | None = None,
    ) -> list[tuple[int, Tool, float, dict[str, float]]]:
        """:meth:`rank`'s tools with their slots: ``(slot, tool, score, term weights)``, best first.

        A tool's score is the weighted sum of its term scores over the whole query plus, when the
        query has several sentences, a bonus for the sentence that suits it best (see
        :class:`QueryPlan`). The third item gives each term's total weight for that tool, so an
        explanation adds up to the score (empty with ``weights=False``: nothing to explain). When
        the query has a real word (not only single CJK characters), a tool must share one of those:
        a lone character such as 天 is not a match for 今天的新闻 on its own.
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
        out: list[tuple[int, Tool, float, dict[str, float]]] = []
        base = {t: plan.weights.get(t, 1.0) for t in terms}
        for n, (slot, score) in enumerate(ranked):
            tool = self.tools[slot]
            assert tool is not None
            if not weights or (weighed is not None and n >= weighed):
                out.append((slot, tool, score, {}))
                continue
            term_weights = dict(base)
            best = best_of.get(slot)  # one look-up: LazyBest works each slot's sentences out per call
            if best is not None:
                factor, c = best
                for term, weight in clauses[used[c]].items():
                    if term in term_weights:
                        term_weights[term] += factor * weight
            out.append((slot, tool, score, term_weights))
        return out

    def term_scores(self, term: str) -> tuple[Any, Any]:
        """(slots, scores) of every live tool holding ``term``; cached per generation."""
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


def _numpy_available() -> bool:
    try:
        import numpy  # noqa: F401
    except ImportError:
        return False
    return True
