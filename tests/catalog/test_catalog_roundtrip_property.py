"""Property: any catalog survives every export format and back unchanged in meaning."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolsearch_cli.catalog.document import parse_document
from toolsearch_cli.catalog.export import EXPORTER_BY_NAME, export_catalog
from toolsearch_cli.catalog.formats import load_document
from toolsearch_cli.model import Catalog, GroupMatcher, Tool, ToolGroup

names = st.from_regex(r"[A-Za-z][A-Za-z0-9_-]{0,20}", fullmatch=True).filter(lambda n: n != "toolSearch")
text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)  # control characters too
words = st.lists(st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=12), max_size=4)
leaf = st.fixed_dictionaries(
    {"type": st.sampled_from(["string", "integer", "boolean", "number"])}, optional={"description": text}
)
schemas = st.builds(
    lambda props, req: {
        "type": "object",
        "properties": props,
        **({"required": sorted(req & set(props))} if req & set(props) else {}),
    },
    st.dictionaries(st.from_regex(r"[a-z][a-zA-Z0-9_]{0,10}", fullmatch=True), leaf, max_size=4),
    st.sets(st.from_regex(r"[a-z][a-zA-Z0-9_]{0,10}", fullmatch=True), max_size=2),
)
scalars = st.one_of(st.integers(), text, st.booleans())
#: metadata keys that collide with format names and their fields are the hard cases
format_fields = st.dictionaries(
    st.sampled_from(
        [
            "name",
            "description",
            "parameters",
            "input_schema",
            "inputSchema",
            "type",
            "function",
            "defer_loading",
            "_meta",
            "title",
            "strict",
            "cache_control",
            "tool.type",
            "tool.x",
            "x-toolsearch",
        ]
    ),
    st.one_of(scalars, st.dictionaries(st.sampled_from(["a", "b"]), scalars, max_size=2)),
    max_size=3,
)
metadata = st.dictionaries(
    st.one_of(st.sampled_from(["openai", "anthropic", "mcp", "yaml"]), st.from_regex(r"[a-z]{1,8}", fullmatch=True)),
    st.one_of(scalars, format_fields),
    max_size=3,
)


attribute = st.from_regex(r"[a-z]{1,6}", fullmatch=True)
requires = st.dictionaries(attribute, st.lists(st.one_of(attribute, st.just("*")), min_size=1, max_size=2), max_size=2)
codes = st.from_regex(r"TS[0-9]{3}", fullmatch=True)
matchers = st.one_of(
    st.just(GroupMatcher()),
    st.builds(
        lambda words, ic: GroupMatcher(kind="keywords", keywords=words, ignore_case=ic),
        st.lists(st.text(min_size=1, max_size=8), min_size=1, max_size=3),
        st.booleans(),
    ),
    st.builds(lambda ic: GroupMatcher(kind="regex", pattern="refund|退款", ignore_case=ic), st.booleans()),
    st.builds(
        lambda attrs: GroupMatcher(kind="context", attributes=attrs),
        st.dictionaries(attribute, st.lists(attribute, min_size=1, max_size=2), min_size=1, max_size=2),
    ),
)


@st.composite
def catalogs(draw):
    tool_names = draw(st.lists(names, min_size=1, max_size=5, unique=True))
    tools = [
        Tool(
            name=name,
            description=draw(text),
            parameters=draw(schemas),
            category=draw(st.one_of(st.none(), st.text(min_size=1, max_size=10).filter(str.strip))),
            tags=draw(words),
            examples=draw(words),
            metadata=draw(metadata),
            requires=draw(requires),
            lint=draw(
                st.one_of(st.just({}), st.builds(lambda c: {"ignore": c}, st.lists(codes, min_size=1, max_size=3)))
            ),
        )
        for name in tool_names
    ]
    resident = draw(st.lists(st.sampled_from(tool_names), unique=True, max_size=2))
    groups = [
        ToolGroup(
            name=f"group{i}",
            description=draw(text),
            system_prompt=draw(text),
            tools=draw(st.lists(st.sampled_from(tool_names), unique=True, max_size=3)),
            matcher=draw(matchers),
        )
        for i in range(draw(st.integers(0, 2)))
    ]
    return Catalog(tools=tools, resident=resident, groups=groups)


def meaning(catalog):
    resident = set(catalog.resident)
    tools = sorted(
        (t.name, t.description, t.parameters, t.category, t.tags, t.examples, t.metadata, t.requires, t.lint)
        + (t.name in resident,)
        for t in catalog.tools
    )
    return tools, [(g.name, g.description, g.system_prompt, g.tools, g.matcher) for g in catalog.groups]


@settings(max_examples=100, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(catalogs(), st.sampled_from(list(EXPORTER_BY_NAME)))
def test_export_then_load_gives_the_same_catalog(catalog, fmt):
    doc = parse_document(export_catalog(catalog, fmt), "converted", json_hint=fmt != "yaml")
    loaded = load_document(doc)
    assert meaning(loaded.to_catalog()) == meaning(catalog)
