"""The interface between the BM25F index (:mod:`.index`) and its scoring stores.

A :class:`ScoringStore` keeps the postings of an index and turns them into scores: the
``python`` store (:mod:`.python_store`, dicts and lists) and the ``numpy`` store
(:mod:`.numpy_store`, flat arrays) implement it and give identical scores. The index keeps
everything that depends on the whole catalog (slots, document frequencies, field lengths, the
generation) and hands itself to its store as the :class:`StoreHost` the store reads.

A store's *accumulator* (the scores of a query per slot) and its *keep* set (the slots a tool
may be in, ``None`` for any) are the store's own types: a dict and a set for the ``python``
store, arrays for the ``numpy`` one. The index only passes them back to the same store.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

from ..model import Tool
from .scoring import Analysed, FieldModel, LazyBest


class StoreHost(Protocol):
    """What a scoring store reads from (and, for a bulk build, writes to) the index that owns it."""

    #: ``tool -> per field (term counts, length)``
    analyse: Callable[[Tool], Analysed]
    #: ``tool -> per field, a normalised text, or (the first field only) a tuple of its terms``
    #: (a bulk build analyses them itself, with ``token_terms``)
    texts: Callable[[Tool], Sequence[str | tuple[str, ...]]]
    #: ``token -> its terms`` (a token of ``texts``: no white space)
    token_terms: Callable[[str], tuple[str, ...]]
    model: FieldModel
    nfields: int
    #: tools by slot; ``None`` where a tool was removed
    tools: list[Tool | None]
    df: dict[str, int]
    length_sum: list[int]
    alive_count: int
    generation: int
    #: ``term -> (generation, slots, scores)``
    _cache: dict[str, tuple[int, Any, Any]]

    def _register_slot(self, tool: Tool) -> int: ...

    def _register_slots(self, tools: list[Tool]) -> None: ...

    def _register(self, tool: Tool, fields: Analysed) -> int: ...

    def averages(self) -> list[float]: ...

    def term_scores(self, term: str) -> tuple[Any, Any]: ...


@runtime_checkable
class ScoringStore(Protocol):
    """Postings of an index, and the arithmetic of scoring a query over them."""

    def bulk_load(self, tools: list[Tool]) -> None:
        """Index ``tools`` into an empty index (registering each with the host)."""
        ...

    def append(self, slot: int, fields: Analysed) -> None:
        """Add the postings of the tool just registered at ``slot``."""
        ...

    def kill(self, slot: int) -> None:
        """The tool at ``slot`` was removed: skip its postings from now on (and compact some day)."""
        ...

    def scores_at_generation(self, term: str) -> tuple[Any, Any] | None:
        """(slots, scores) of ``term`` precomputed at the host's current generation, else ``None``."""
        ...

    def score_term(self, term: str, idf: float, avgs: list[float]) -> tuple[Any, Any]:
        """(slots, scores) of every live tool holding ``term``, in slot order."""
        ...

    def mask(self, allowed: set[int] | None, require: list[str] | None) -> Any:
        """The *keep* set: slots in ``allowed`` holding one of the ``require`` terms (``None``: any)."""
        ...

    def held_in(self, term: str, slots: list[int], fields: frozenset[int]) -> list[bool]:
        """For each of ``slots``, whether its tool holds ``term`` in one of the field ids ``fields``."""
        ...

    def split_candidates(
        self, terms: list[str], slots: list[int], fields: frozenset[int], avgs: list[float]
    ) -> list[dict[int, tuple[float, float]]]:
        """Per term, for the indexes ``i`` of ``slots`` whose tool holds it in one of the field ids
        ``fields``: (its weighted, length-normalised frequency over all fields, before
        saturation; the part of it from ``fields``)."""
        ...

    def accumulate(self, terms: list[str], weights: dict[str, float], keep: Any) -> Any:
        """An accumulator: the weighted sum of the terms' scores per slot (nothing outside ``keep``)."""
        ...

    def total(self, accs: list[Any], terms: list[str], weights: dict[str, float], keep: Any) -> Any:
        """The sum of the accumulators ``accs`` plus the weighted scores of ``terms``."""
        ...

    def maximum(self, acc: Any) -> float:
        """The best score of an accumulator (0.0 when empty)."""
        ...

    def best(self, acc: Any, k: int) -> list[tuple[int, float]]:
        """The ``k`` best (slot, score) of an accumulator, best first, ties by tool name."""
        ...

    def best_with_bonus(
        self, whole: Any, accs: list[Any], factors: list[float], bound: float, k: int
    ) -> tuple[list[tuple[int, float]], LazyBest]:
        """The ``k`` best of ``whole`` plus each slot's best ``factor × sentence score`` (at most
        ``bound``), and per returned slot which sentence that was."""
        ...
