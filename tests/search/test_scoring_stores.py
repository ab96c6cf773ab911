"""The BM25F index's scoring stores against their interface (search/store.py).

Each store is a :class:`ScoringStore`, and the same contract runs against both on the same
catalogs: method by method, what the index asks of a store (term scores, masks, accumulators,
the k best, the best-sentence bonus) is checked against a definition worked out here from the
index's own statistics, before and after tools are added and removed. The stores' accumulators
and masks are their own types (dict/set, arrays); the test reads them through :func:`as_scores`
and :func:`as_slots`.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolsearch_cli.model import Tool
from toolsearch_cli.search.bm25f import analyse_tool, build_index
from toolsearch_cli.search.index import BM25FIndex, make_store
from toolsearch_cli.search.python_store import PythonStore
from toolsearch_cli.search.store import ScoringStore

np = pytest.importorskip("numpy")

from toolsearch_cli.search.numpy_store import NumpyStore  # noqa: E402  (needs NumPy to be any use)

BACKENDS = ("python", "numpy")
WORDS = ["weather", "city", "email", "send", "file", "read", "stock", "price", "report", "天气", "查询", "get"]

tool_st = st.builds(
    lambda name, desc, cat, tags: Tool(name=name, description=" ".join(desc), category=cat, tags=tags),
    name=st.text("abcdefgh", min_size=3, max_size=8),
    desc=st.lists(st.sampled_from(WORDS), max_size=10),
    cat=st.sampled_from([None, "Weather", "Mail"]),
    tags=st.lists(st.sampled_from(WORDS), max_size=3),
)
catalog_st = st.lists(tool_st, min_size=1, max_size=20, unique_by=lambda t: t.name)


def small_catalog() -> list[Tool]:
    return [
        Tool(name="get_weather", description="Current weather for a city.", category="Weather", tags=["forecast"]),
        Tool(name="weather_report", description="A weather report, weather maps and more.", category="Weather"),
        Tool(name="send_email", description="Send an email to someone.", category="Mail"),
        Tool(name="read_file", description="Read a file from the disk.", tags=["file"]),
        Tool(name="stock_price", description="The price of a stock.", category="Finance"),
        Tool(name="city_email", description="Email the city council about the weather.", category="Mail"),
        Tool(name="aaa_tie", description="stock report"),
        Tool(name="zzz_tie", description="stock report"),
    ]


def as_scores(acc) -> dict[int, float]:
    """An accumulator as {slot: score} of the slots that score (a dict, or an array with zeros)."""
    if isinstance(acc, dict):
        return {slot: score for slot, score in acc.items() if score > 0}
    return {int(slot): float(acc[slot]) for slot in np.flatnonzero(acc > 0)}


def as_slots(keep) -> set[int] | None:
    """A mask as a set of slots (``None``: any)."""
    if keep is None:
        return None
    if isinstance(keep, set):
        return keep
    return {int(slot) for slot in np.flatnonzero(keep)}


def definition(index: BM25FIndex, term: str) -> dict[int, float]:
    """A term's score per live slot, from the index's statistics and each tool's own analysis."""
    model, avgs, idf = index.model, index.averages(), index.idf(term)
    out = {}
    for slot, tool in enumerate(index.tools):
        if tool is None:
            continue
        tf = sum(
            model.field_tf(fid, counts[term], length, avgs[fid])
            for fid, (counts, length) in enumerate(analyse_tool(tool))
            if term in counts
        )
        if tf:
            out[slot] = model.saturate(idf, tf)
    return out


def close(a: dict[int, float], b: dict[int, float]) -> bool:
    return a.keys() == b.keys() and all(math.isclose(a[s], b[s], rel_tol=1e-9, abs_tol=1e-12) for s in a)


def check_contract(index: BM25FIndex) -> None:
    """What the index relies on, for the store behind ``index``."""
    store = index._store
    assert isinstance(store, ScoringStore)
    terms = sorted(index.df)
    weights = {term: 1.0 + (i % 3) / 2 for i, term in enumerate(terms)}
    live = {slot for slot, tool in enumerate(index.tools) if tool is not None}
    by_term = {}
    for term in terms:
        want = definition(index, term)
        slots, scores = store.score_term(term, index.idf(term), index.averages())
        slots = [int(s) for s in slots]
        assert slots == sorted(slots) and set(slots) <= live  # slot order, live tools only
        assert close(dict(zip(slots, map(float, scores), strict=True)), want), term
        fresh = store.scores_at_generation(term)
        if fresh is not None:  # precomputed scores are those of the current generation
            assert close({int(s): float(v) for s, v in zip(*fresh, strict=True)}, want), term
        by_term[term] = want
    assert [len(x) for x in store.score_term("notaterm", 1.0, index.averages())] == [0, 0]

    def weighted(chosen: list[str], keep: set[int] | None) -> dict[int, float]:
        out: dict[int, float] = {}
        for term in chosen:
            for slot, score in by_term[term].items():
                if keep is None or slot in keep:
                    out[slot] = out.get(slot, 0.0) + weights[term] * score
        return out

    assert store.mask(None, None) is None
    some = set(sorted(live)[::2])
    assert as_slots(store.mask(some, None)) == some
    for term in terms[:4]:
        holding = set(by_term[term])
        assert as_slots(store.mask(None, [term])) == holding
        assert as_slots(store.mask(some, [term])) == holding & some

    for keep_slots in (None, some):
        keep = store.mask(keep_slots, None)
        for chosen in (terms[:1], terms[:3], terms[::2], terms):
            acc = store.accumulate(chosen, weights, keep)
            want = weighted(chosen, keep_slots)
            assert close(as_scores(acc), want)
            assert store.maximum(acc) == pytest.approx(max(want.values(), default=0.0), rel=1e-9)
            for k in (1, 3, len(live) + 2):
                best = store.best(acc, k)
                order = sorted(want.items(), key=lambda item: (-item[1], index.tools[item[0]].name))
                assert [slot for slot, _ in best] == [slot for slot, _ in order[:k]]  # ties by name
                assert [score for _, score in best] == pytest.approx([score for _, score in order[:k]], rel=1e-9)
        if len(terms) >= 3:
            parts = [store.accumulate(terms[:1], weights, keep), store.accumulate(terms[1:2], weights, keep)]
            total = store.total(parts, terms[2:3], weights, keep)
            assert close(as_scores(total), weighted(terms[:3], keep_slots))

    # the best-sentence bonus: whole + each slot's best factor × sentence score, bounded by ``bound``
    if len(terms) >= 2:
        sentences = [terms[: len(terms) // 2], terms[len(terms) // 2 :]]
        whole = store.accumulate(terms, weights, None)
        accs = [store.accumulate(s, weights, None) for s in sentences]
        plain = [weighted(s, None) for s in sentences]
        factors = [0.5 * store.maximum(whole) / max(p.values()) for p in plain]
        bound = 0.5 * store.maximum(whole)
        want = weighted(terms, None)
        bonus = {}
        for c, part in enumerate(plain):
            for slot, score in part.items():
                if score * factors[c] > bonus.get(slot, (0.0, -1))[0]:
                    bonus[slot] = (score * factors[c], c)
        final = {slot: score + bonus.get(slot, (0.0, 0))[0] for slot, score in want.items()}
        k = 3
        ranked, lazy = store.best_with_bonus(whole, accs, factors, bound, k)
        order = sorted(final.items(), key=lambda item: (-item[1], index.tools[item[0]].name))[:k]
        assert [slot for slot, _ in ranked] == [slot for slot, _ in order]
        assert [score for _, score in ranked] == pytest.approx([score for _, score in order], rel=1e-9)
        for slot, _ in ranked:
            assert (slot in lazy) == (slot in bonus)
            if slot in bonus:
                factor, c = lazy[slot]
                assert (factor, c) == (factors[bonus[slot][1]], bonus[slot][1])


@pytest.mark.parametrize("backend", BACKENDS)
def test_each_store_is_a_scoring_store_of_its_backend(backend):
    index = build_index(small_catalog(), backend=backend)
    assert isinstance(index._store, PythonStore if backend == "python" else NumpyStore)
    assert isinstance(index._store, ScoringStore)
    assert isinstance(make_store(backend, index), ScoringStore)


def test_a_class_missing_a_method_is_not_a_scoring_store():
    class Partial:
        def score_term(self, term, idf, avgs):  # one method of eleven
            return [], []

    assert not isinstance(Partial(), ScoringStore)


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_contract_holds_on_a_small_catalog(backend):
    check_contract(build_index(small_catalog(), backend=backend))


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_contract_holds_after_tools_are_added_and_removed(backend):
    tools = small_catalog()
    index = build_index(tools[:5], backend=backend)
    for tool in tools[5:]:
        index.add(tool)
    index.remove("send_email")
    index.remove("aaa_tie")
    check_contract(index)
    store = index._store
    killed = [slot for slot, tool in enumerate(index.tools) if tool is None]
    for term in index.df:  # a removed tool's postings are never scored again
        slots, _ = store.score_term(term, index.idf(term), index.averages())
        assert not set(map(int, slots)) & set(killed)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tools=catalog_st, backend=st.sampled_from(BACKENDS))
def test_the_contract_holds_on_any_catalog(tools, backend):
    check_contract(build_index(tools, backend=backend))


@pytest.mark.parametrize("block", [1, 3])
def test_the_numpy_store_keeps_the_contract_when_it_prunes_by_a_floor(monkeypatch, block):
    # Small groups of slots and bonuses computed for the few tools that can still reach the top:
    # the k best must be the definition's all the same (the floor paths of best and
    # best_with_bonus). With groups of 3, the last two slots are outside the groups (the tail),
    # and the last tool, holding every word, is among the best of most queries.
    monkeypatch.setattr(NumpyStore, "BLOCK", block)
    monkeypatch.setattr(NumpyStore, "SPARSE_SHARE", 1.0)
    tools = [
        Tool(name=f"t{i:02}", description=" ".join(WORDS[(i + j) % 9] for j in range(1 + i % 4))) for i in range(40)
    ]
    tools.append(Tool(name="every_word", description=" ".join(WORDS)))
    check_contract(build_index(tools, backend="numpy"))


@pytest.mark.parametrize("k", [5, 100, 1000])
def test_a_large_k_still_gets_a_floor_below_its_kth_best_score(k):
    # issue 32's parameter cap ranks a pool of 100: with groups of BLOCK slots, 100,000 tools made
    # 390 groups, too few for a floor of the 100th best, and every matching score was partitioned
    store = build_index([Tool(name="t", description="weather")], backend="numpy")._store
    scores = np.random.default_rng(32).random(100_000)
    scores[scores < 0.5] = 0.0
    found = store._floor(scores, k)
    assert found is not None
    assert 0 < found[0] <= np.sort(scores)[-k]


@pytest.mark.parametrize("size", [1, 9, 700])
def test_both_stores_give_the_same_scores_slot_for_slot(size):
    tools = [
        Tool(name=f"t{i:03}", description=" ".join(WORDS[(i + j) % 9] for j in range(1 + i % 4))) for i in range(size)
    ]
    stores = {backend: build_index(tools, backend=backend)._store for backend in BACKENDS}
    index = build_index(tools, backend="python")
    for term in sorted(index.df):
        got = {}
        for backend, store in stores.items():
            slots, scores = store.score_term(term, index.idf(term), index.averages())
            got[backend] = dict(zip(map(int, slots), map(float, scores), strict=True))
        assert close(got["python"], got["numpy"]), term
