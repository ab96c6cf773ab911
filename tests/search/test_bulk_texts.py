"""A NumPy bulk build analyses many tools' texts at once (joined, split, each distinct token once):
its postings and field lengths are those of each tool analysed alone (``analyse_tool``)."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolsearch_cli.markup import plain_text
from toolsearch_cli.model import Tool, pack_tools
from toolsearch_cli.search.bm25f import FIELD_MODEL, FIELD_SPECS, analyse_tool, build_index, tool_streams, tool_texts
from toolsearch_cli.search.text import analyze

pytest.importorskip("numpy")

from toolsearch_cli.search.numpy_store import NumpyStore  # noqa: E402 - after the NumPy check

# NFKC matters (full-width letters, a ligature, an ideographic space), CJK, markup, a NUL (the
# joined batch's separator is one), white space of every kind, words that stem.
PIECES = [
    "weather",
    "Sending",
    "emails",
    "ｗｅａｔｈｅｒ",
    "ﬁle",
    "天气\u3000查询",
    "**bold**",
    "<b>tag</b>",
    "a\x00b",
    "\x00",
    "\x001",
    "tab\there",
    "line\nbreak",
    "getHTTPResponse",
    "snake_case-name",
    "",
    " ",
]
text_st = st.lists(st.sampled_from(PIECES), max_size=6).map(" ".join)
word_st = st.sampled_from([p for p in PIECES if p.strip()])


def _tool(i, name, desc, tags, params, enum, category, openapi):
    metadata = {"openapi": {"method": openapi[0], "path": openapi[1]}} if openapi else {}
    properties = {p: {"type": "string", "description": d} for p, d in params}
    if enum:
        properties["kind"] = {"type": "string", "enum": enum}
    return Tool(
        name=f"{name}{i}",
        description=desc,
        category=category,
        tags=tags,
        parameters={"type": "object", "properties": properties},
        metadata=metadata,
    )


tools_st = st.lists(
    st.tuples(
        st.sampled_from(["getUsers", "PostCustomers", "ｆｉｌｅ", "天气", "send_mail", "x"]),
        text_st,
        st.lists(word_st, max_size=3),
        st.lists(st.tuples(st.sampled_from(["city", "Ｃｉｔｙ", "to", "a\x00b"]), text_st), max_size=3),
        st.lists(word_st, max_size=3),
        st.sampled_from([None, "Weather", "ｍａｉｌ", "\x00"]),
        st.sampled_from([None, ("get", "/users"), ("post", "/customers"), ("delete", "/users/{id}")]),
    ),
    min_size=1,
    max_size=30,
).map(lambda rows: [_tool(i, *row) for i, row in enumerate(rows)])


def postings_by_slot(index):
    """Per slot, per field: term -> count, as the NumPy store holds them."""
    store = index._store
    out = {}
    for term, tid in store.tid.items():
        start, end = int(store.bounds[tid]), int(store.bounds[tid + 1])
        entries = zip(store.slots[start:end], store.fids[start:end], store.counts[start:end], strict=True)
        for slot, fid, count in entries:
            out.setdefault(int(slot), {}).setdefault(int(fid), {})[term] = int(count)
    return out


def assert_same_as_tool_by_tool(tools, index):
    held = postings_by_slot(index)
    cap = FIELD_MODEL.max_count
    for slot, tool in enumerate(tools):
        for fid, (counts, length) in enumerate(analyse_tool(tool)):
            assert held.get(slot, {}).get(fid, {}) == {t: min(c, cap) for t, c in counts.items()}, (tool.name, fid)
            assert index._store.lengths[fid, slot] == length, (tool.name, fid)


def assert_streams_are_each_items_analysis(tool):
    """Joined lists give the terms of each item analysed alone, in order; texts the analyser's."""
    fields = dict(zip(FIELD_SPECS, tool_streams(tool), strict=True))
    properties = tool.parameters["properties"]
    if "openapi" not in tool.metadata:
        assert list(fields["name"]) == analyze(tool.name)
    assert list(fields["category"]) == analyze(tool.category)
    assert list(fields["tags"]) == [term for tag in tool.tags for term in analyze(tag)]
    assert list(fields["params"]) == [term for name in properties for term in analyze(name)]
    enum = properties.get("kind", {}).get("enum", [])
    assert list(fields["param_values"]) == [term for value in enum for term in analyze(value)]
    assert list(fields["description"]) == analyze(plain_text(tool.description))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tools=tools_st, batch=st.integers(1, 7), keep=st.integers(1, 40))
def test_a_bulk_build_holds_each_tools_own_analysis(tools, batch, keep):
    saved = NumpyStore.BATCH, NumpyStore.KEEP_TOKENS
    NumpyStore.BATCH, NumpyStore.KEEP_TOKENS = batch, keep  # many batches, the token memory cleared
    try:
        index = build_index(tools, backend="numpy")
    finally:
        NumpyStore.BATCH, NumpyStore.KEEP_TOKENS = saved
    assert_same_as_tool_by_tool(tools, index)
    for tool in tools:
        assert_streams_are_each_items_analysis(tool)
    # term ids in first-seen order, as a tool-by-tool build numbers them
    seen = {}
    for tool in tools:
        for counts, _ in analyse_tool(tool):
            for term in counts:
                seen.setdefault(term, len(seen))
    assert list(index._store.tid) == [t for t in seen if t in index.df]


def test_packed_tools_and_an_openapi_name_are_analysed_alike():
    tools = [
        Tool(
            name="PostCustomers",
            description="Create a customer",
            metadata={"openapi": {"method": "post", "path": "/customers"}},
        ),
        Tool(name="getWeather", description="Current ｗｅａｔｈｅｒ\x00 in a city", tags=["天气"]),
        Tool(name="listFiles", description="List files"),
    ]
    assert isinstance(tool_texts(tools[0])[0], tuple)  # the method verb replaces "post"
    expected = [analyse_tool(tool) for tool in tools]
    pack_tools(tools)
    index = build_index(tools, backend="numpy")
    assert [analyse_tool(tool) for tool in tools] == expected
    assert_same_as_tool_by_tool(tools, index)
    assert index.df["creat"] == 1 and "post" not in index.df


def test_a_name_twice_in_a_bulk_build_is_the_error_of_one_at_a_time():
    from toolsearch_cli.errors import CatalogError

    tools = [Tool(name=f"t{i}") for i in range(2500)] + [Tool(name="t7")]
    for backend in ("python", "numpy"):
        with pytest.raises(CatalogError, match="already holds a tool named 't7'"):
            build_index(tools, backend=backend)
