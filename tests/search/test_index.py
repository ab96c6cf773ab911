"""The default ranker's index: backends agree, and add/remove equals a rebuild."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolsearch_cli.errors import CatalogError
from toolsearch_cli.indexes import cached_index
from toolsearch_cli.model import Tool
from toolsearch_cli.search.bm25f import analyse_tool, build_index, query_plan

pytest.importorskip("numpy")

WORDS = ["weather", "city", "email", "send", "file", "read", "stock", "price", "天气", "查询", "邮件", "发送", "get"]

tool_st = st.builds(
    lambda name, desc, cat, tags, params, title: Tool(
        name=name,
        description=" ".join(desc),
        category=cat,
        tags=tags,
        parameters={"type": "object", "properties": {p: {"type": "string", "description": p} for p in params}},
        metadata={"openapi": {"summary": " ".join(title)}} if title else {},
    ),
    name=st.text("abcdefgh", min_size=3, max_size=8),
    desc=st.lists(st.sampled_from(WORDS), max_size=12),
    cat=st.sampled_from([None, "Weather", "Mail"]),
    tags=st.lists(st.sampled_from(WORDS), max_size=3),
    params=st.lists(st.sampled_from(["city", "to", "body", "path"]), max_size=3, unique=True),
    title=st.lists(st.sampled_from(WORDS), max_size=3),  # an OpenAPI summary: title + details fields
)
catalog_st = st.lists(tool_st, min_size=1, max_size=25, unique_by=lambda t: t.name)
# Repeated words and several sentences: query-term weights and the best-sentence bonus are covered too.
query_st = st.lists(st.sampled_from([*WORDS, ".", "?", "。"]), min_size=1, max_size=7).map(" ".join)


def ranking(index, query, k=10, category=None):
    allowed = index.category_slots(category) if category else None
    return [(t.name, round(s, 9)) for t, s, _ in index.rank(query_plan(query), k, allowed)]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tools=catalog_st, queries=st.lists(query_st, min_size=1, max_size=4))
def test_python_and_numpy_backends_give_the_same_ranking(tools, queries):
    py = build_index(tools, backend="python")
    npy = build_index(tools, backend="numpy")
    for q in queries:
        assert ranking(py, q) == ranking(npy, q)
        assert ranking(py, q, category="Weather") == ranking(npy, q, category="Weather")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    tools=catalog_st,
    extra=catalog_st,
    remove_every=st.integers(2, 4),
    queries=st.lists(query_st, min_size=1, max_size=3),
    backend=st.sampled_from(["python", "numpy"]),
)
def test_adding_and_removing_tools_equals_a_rebuild(tools, extra, remove_every, queries, backend):
    names = {t.name for t in tools}
    extra = [t for t in extra if t.name not in names]
    index = build_index(tools, backend=backend)
    for q in queries:  # fill the per-term caches so a stale cache would show
        ranking(index, q)
    for tool in extra:
        index.add(tool)
    everything = tools + extra
    removed = {t.name for t in everything[::remove_every]}
    for name in removed:
        index.remove(name)
    kept = [t for t in everything if t.name not in removed]
    rebuilt = build_index(kept, backend=backend)
    assert len(index) == len(kept)
    for q in queries:
        assert ranking(index, q) == ranking(rebuilt, q)
        assert ranking(index, q, category="Mail") == ranking(rebuilt, q, category="Mail")


@pytest.mark.parametrize("backend", ["python", "numpy"])
def test_many_changes_trigger_compaction_and_stay_exact(backend):
    tools = [
        Tool(name=f"tool{i}", description=f"{WORDS[i % len(WORDS)]} {WORDS[(i * 7) % len(WORDS)]}") for i in range(400)
    ]
    index = build_index(tools[:200], backend=backend)
    for tool in tools[200:]:
        index.add(tool)  # the numpy delta merges into the main arrays several times
    for tool in tools[::3]:
        index.remove(tool.name)  # past a quarter dead: compaction
    kept = [t for t in tools if t.name not in {x.name for x in tools[::3]}]
    rebuilt = build_index(kept, backend=backend)
    for q in ["weather city", "send email", "天气 查询", "stock price read"]:
        assert ranking(index, q) == ranking(rebuilt, q)
        assert ranking(index, q)  # the queries do match something


def test_duplicate_add_and_unknown_remove_are_errors():
    index = build_index([Tool(name="a1", description="weather")], backend="python")
    with pytest.raises(CatalogError, match="already holds a tool named 'a1'"):
        index.add(Tool(name="a1", description="x"))
    with pytest.raises(CatalogError, match="holds no tool named 'zz'"):
        index.remove("zz")


def test_backend_is_chosen_by_size():
    from toolsearch_cli.search import index as index_module

    small = build_index([Tool(name="a1", description="weather")])
    assert small.backend == "python"
    many = [Tool(name=f"t{i}", description="weather") for i in range(index_module.NUMPY_MIN_TOOLS)]
    assert build_index(many).backend == "numpy"


def test_analysed_fields_follow_field_order():
    from toolsearch_cli.search.bm25f import FIELD_SPECS

    at = {name: i for i, name in enumerate(FIELD_SPECS)}
    fields = analyse_tool(Tool(name="getWeather", description="Weather of a city", category="Weather"))
    assert fields[at["name"]] == ({"get": 1, "weather": 1}, 2)
    assert fields[at["category"]] == ({"weather": 1}, 1)
    assert fields[at["description"]] == ({"weather": 1, "citi": 1}, 2)
    assert fields[at["title"]] == fields[at["details"]] == ({}, 0)
    # With a title (MCP title, OpenAPI summary) the description is indexed as details.
    titled = Tool(name="getWeather", description="Weather of a city", metadata={"mcp": {"title": "City weather"}})
    fields = analyse_tool(titled)
    assert fields[at["title"]] == ({"citi": 1, "weather": 1}, 2)
    assert fields[at["details"]] == ({"weather": 1, "citi": 1}, 2)
    assert fields[at["description"]] == ({}, 0)


def test_counted_analysis_matches_the_term_lists_on_the_demo_catalog():
    from collections import Counter

    from toolsearch_cli import load_catalog
    from toolsearch_cli.search.bm25f import tool_fields

    from ..conftest import DEMO

    for tool in load_catalog([str(DEMO)]).tools:
        lists = tool_fields(tool)
        counted = analyse_tool(tool)
        assert [(dict(Counter(terms)), len(terms)) for terms in lists.values()] == counted, tool.name


@pytest.mark.parametrize("backend", ["python", "numpy"])
def test_an_index_survives_pickling_for_the_disk_cache(backend):
    import pickle

    tools = [
        Tool(name=f"tool{i}", description=f"{WORDS[i % len(WORDS)]} {WORDS[(i * 5) % len(WORDS)]}") for i in range(50)
    ]
    index = build_index(tools, backend=backend)
    copy = pickle.loads(pickle.dumps(index))
    for q in ["weather city", "send email", "天气"]:
        assert ranking(copy, q) == ranking(index, q)
    copy.add(Tool(name="late", description="weather email"))  # still updatable after loading
    assert "late" in [name for name, _ in ranking(copy, "weather email")]


def test_catalog_changes_update_the_built_index_in_place():
    from toolsearch_cli.model import Catalog
    from toolsearch_cli.search import search

    catalog = Catalog(tools=[Tool(name="getWeather", description="weather of a city")])
    assert [h.name for h in search(catalog, "weather")] == ["getWeather"]
    index = cached_index(catalog, "default", lambda: None)
    catalog.add_tool(Tool(name="getForecast", description="weather forecast for the week"))
    catalog.remove_tool("getWeather")
    assert cached_index(catalog, "default", lambda: None) is index  # updated, not rebuilt
    assert [h.name for h in search(catalog, "weather")] == ["getForecast"]
    with pytest.raises(CatalogError, match="duplicate tool name"):
        catalog.add_tool(Tool(name="getForecast"))
    with pytest.raises(CatalogError, match="no tool named 'nope'"):
        catalog.remove_tool("nope")


def test_manager_registrations_reach_the_index_without_a_rebuild():
    from toolsearch_cli.disclosure.manager import CatalogManager

    manager = CatalogManager([Tool(name="getWeather", description="weather of a city")])
    assert manager.search("weather", max_results=5) == ["getWeather"]
    provider = manager.provider
    catalog = provider._catalog
    index = cached_index(catalog, "default", lambda: None)
    manager.register(Tool(name="getForecast", description="weather forecast"))
    manager.register(Tool(name="getWeather", description="umbrella advice"), replace=True)
    assert manager.search("forecast", max_results=5) == ["getForecast"]
    assert manager.search("umbrella", max_results=5) == ["getWeather"]
    assert manager.search("city", max_results=5) == []  # the replaced description is gone
    assert provider._catalog is catalog and cached_index(catalog, "default", lambda: None) is index
    manager.unregister("getForecast")
    assert manager.search("forecast", max_results=5) == []


def reference_ranking(tools, query, k, category=None):
    """The default ranker's scores straight from their definition, tool by tool (no index):
    BM25F term scores, the query's term weights, and the best-sentence bonus of QueryPlan."""
    import math

    from toolsearch_cli.search.bm25f import CLAUSE_SHARE, FIELD_SPECS, K1, MAX_FIELD_COUNT
    from toolsearch_cli.search.text import classic_normalize, is_weak_term

    specs = list(FIELD_SPECS.values())
    fields = [analyse_tool(t) for t in tools]
    n = len(tools)
    avgs = [(sum(f[fid][1] for f in fields) / n) or 1.0 for fid in range(len(specs))]
    df: dict[str, int] = {}
    for f in fields:
        for term in set().union(*(counts for counts, _ in f)):
            df[term] = df.get(term, 0) + 1

    def term_score(i, term):
        tf = 0.0
        for spec, (counts, length) in zip(specs, fields[i], strict=True):
            if term in counts:
                norm = 1.0 - spec.b + spec.b * min(length / avgs[specs.index(spec)], spec.max_ratio)
                tf += spec.weight * min(counts[term], MAX_FIELD_COUNT) / norm
        idf = math.log(1.0 + (n - df[term] + 0.5) / (df[term] + 0.5))
        return idf * tf * (K1 + 1.0) / (K1 + tf)

    plan = query_plan(query)
    terms = [t for t in plan.terms if t in df]
    strong = [t for t in plan.terms if not is_weak_term(t)]
    eligible = [
        i
        for i, tool in enumerate(tools)
        if (category is None or classic_normalize(tool.category) == classic_normalize(category))
        # a query with a real word and single CJK characters: a tool must hold one of the real words
        and not (strong and len(strong) < len(plan.terms) and not any(t in c for c, _ in fields[i] for t in strong))
    ]
    whole = {i: sum(plan.weights.get(t, 1.0) * term_score(i, t) for t in terms) for i in eligible}
    clauses = [c for c in plan.clauses if any(t in df for t in c)]
    bonus = dict.fromkeys(eligible, 0.0)
    if len(clauses) > 1 and CLAUSE_SHARE > 0:
        top = max(whole.values(), default=0.0)
        for clause in clauses:
            sentence = {i: sum(w * term_score(i, t) for t, w in clause.items() if t in df) for i in eligible}
            peak = max(sentence.values(), default=0.0)
            if peak > 0 and top > 0:
                for i in eligible:
                    bonus[i] = max(bonus[i], CLAUSE_SHARE * top / peak * sentence[i])
    final = {tools[i].name: whole[i] + bonus[i] for i in eligible if whole[i] + bonus[i] > 0}
    return final, {t: term_score for t in terms}, sorted(final.items(), key=lambda kv: (-kv[1], kv[0]))[:k]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    tools=catalog_st,
    queries=st.lists(query_st, min_size=1, max_size=3),
    k=st.integers(1, 6),
    block=st.sampled_from([1, 2, 3, 64]),
    sparse=st.sampled_from([0.125, 1.0]),
    backend=st.sampled_from(["python", "numpy"]),
)
def test_rankings_equal_a_tool_by_tool_computation_of_the_scores(tools, queries, k, block, sparse, backend):
    """Both backends return exactly the best k tools of the definition, with their scores and term
    weights that add up to them; the NumPy one with its k-th-best floor on groups of any size, and
    with the best-sentence bonus computed for the tools that can still reach the top or for all."""
    from toolsearch_cli.search.numpy_store import NumpyStore as _NumpyStore

    index = build_index(tools, backend=backend)
    by_name = {t.name: i for i, t in enumerate(tools)}
    original = _NumpyStore.BLOCK, _NumpyStore.SPARSE_SHARE
    _NumpyStore.BLOCK, _NumpyStore.SPARSE_SHARE = block, sparse
    try:
        for q in queries:
            for category in (None, "Weather"):
                allowed = index.category_slots(category) if category else None
                got = index.rank(query_plan(q), k, allowed)
                final, scorers, expected = reference_ranking(tools, q, k, category)
                assert len(got) == len(expected)
                got_scores = [s for _, s, _ in got]
                assert got_scores == sorted(got_scores, reverse=True)
                for (tool, score, weights), (_, want) in zip(got, expected, strict=True):
                    assert score == pytest.approx(final[tool.name], rel=1e-9, abs=1e-12)  # its own score
                    assert score == pytest.approx(want, rel=1e-9, abs=1e-12)  # the k best scores
                    parts = sum(w * scorers[t](by_name[tool.name], t) for t, w in weights.items())
                    assert parts == pytest.approx(score, rel=1e-9, abs=1e-12)  # explanations add up
                if got:  # nothing clearly better than the last one returned was left out
                    names = {tool.name for tool, _, _ in got}
                    last = got_scores[-1]
                    assert all(name in names for name, s in final.items() if s > last * (1 + 1e-9))
    finally:
        _NumpyStore.BLOCK, _NumpyStore.SPARSE_SHARE = original


@pytest.mark.parametrize("position", [0, 5, 9, 10, 19, 20])
@pytest.mark.parametrize("k", [1, 2])
def test_the_best_tools_are_found_wherever_their_slots_fall(monkeypatch, position, k):
    # 21 tools in groups of 2 slots: 10 groups (slot j in group j % 10, more than 4k) and a tail, slot 20.
    from toolsearch_cli.search.numpy_store import NumpyStore as _NumpyStore

    monkeypatch.setattr(_NumpyStore, "BLOCK", 2)
    tools = [Tool(name=f"t{i:02}", description="weather report") for i in range(21)]
    tools[position] = Tool(name="best", description="city weather")
    tools[(position + 3) % 21] = Tool(name="second", description="city weather report and more words")
    index = build_index(tools, backend="numpy")
    everything = ranking(index, "city weather", k=21)
    assert [name for name, _ in everything[:2]] == ["best", "second"]
    assert ranking(index, "city weather", k=k) == everything[:k]


def test_a_tool_lifted_by_its_sentence_bonus_alone_is_not_cut(monkeypatch):
    # "lifted" matches only the second sentence's common word "data": its whole-query score is
    # tiny, far below the third best whole-query score, and the bonus of the best tool for that
    # sentence (half the best whole-query score) puts it third. Pruning by whole-query scores
    # must allow for the largest bonus there can be.
    from toolsearch_cli.search.numpy_store import NumpyStore as _NumpyStore

    monkeypatch.setattr(_NumpyStore, "BLOCK", 1)
    monkeypatch.setattr(_NumpyStore, "SPARSE_SHARE", 1.0)
    tools = [Tool(name=f"strong{i}", description="weather forecast city") for i in range(2)]
    tools.append(Tool(name="partial", description="city"))
    tools += [Tool(name=f"data{i:02}", description="data " + " ".join(["extra"] * 20)) for i in range(40)]
    tools.append(Tool(name="lifted", description="data"))
    index = build_index(tools, backend="numpy")
    query = "weather forecast city. data"
    assert [name for name, _ in ranking(index, query, k=3)] == ["strong0", "strong1", "lifted"]
    assert ranking(index, query, k=3) == ranking(index, query, k=44)[:3]
    assert ranking(index, query, k=3) == ranking(build_index(tools, backend="python"), query, k=3)
