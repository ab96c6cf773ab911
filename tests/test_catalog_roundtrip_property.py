"""Property: any catalog survives every export format and back unchanged in meaning."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolsearch_cli.catalog.export import EXPORTER_BY_NAME, export_catalog
from toolsearch_cli.catalog.formats import load_document, parse_document
from toolsearch_cli.model import Catalog, Tool

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
        )
        for name in tool_names
    ]
    resident = draw(st.lists(st.sampled_from(tool_names), unique=True, max_size=2))
    return Catalog(tools=tools, resident=resident)


def meaning(catalog):
    resident = set(catalog.resident)
    return sorted(
        (t.name, t.description, t.parameters, t.category, t.tags, t.examples, t.metadata, t.name in resident)
        for t in catalog.tools
    )


@settings(max_examples=100, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(catalogs(), st.sampled_from(list(EXPORTER_BY_NAME)))
def test_export_then_load_gives_the_same_catalog(catalog, fmt):
    doc = parse_document(export_catalog(catalog, fmt), "converted", json_hint=fmt != "yaml")
    tools, resident = load_document(doc)
    assert meaning(Catalog(tools=tools, resident=resident)) == meaning(catalog)
