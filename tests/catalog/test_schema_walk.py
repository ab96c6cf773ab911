"""check_schema's one walk also tells whether has_nonstandard_types would find a type to map, so a
large catalog's parameters are walked once, not twice; its errors name the same paths."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolsearch_cli.catalog.lenient import has_nonstandard_types
from toolsearch_cli.catalog.schema import check_schema
from toolsearch_cli.errors import CatalogError

TYPES = ["string", "object", "array", "any", "integer", "float", "date (yyyy-mm-dd)", ["string", "null"], ["int"]]

schemas = st.recursive(
    st.fixed_dictionaries({}, optional={"type": st.sampled_from(TYPES), "description": st.just("d")}),
    lambda inner: st.fixed_dictionaries(
        {},
        optional={
            "type": st.sampled_from(TYPES),
            "properties": st.dictionaries(st.sampled_from(["a", "b", "c"]), inner, max_size=3),
            "items": inner,
            "anyOf": st.lists(inner, max_size=2),
            "$defs": st.dictionaries(st.sampled_from(["x", "y"]), inner, max_size=2),
            "definitions": st.dictionaries(st.sampled_from(["x"]), inner, max_size=1),
            "additionalProperties": st.one_of(st.booleans(), inner),
            "not": inner,
            "prefixItems": st.lists(inner, max_size=2),
            "patternProperties": st.dictionaries(st.sampled_from(["^x"]), inner, max_size=1),
        },
    ),
    max_leaves=12,
)

BEYOND = {"definitions", "patternProperties", "prefixItems", "additionalProperties", "not"}


def _fail(path, message):
    return CatalogError(message, field=path)


def _keys(schema):
    """Every key of every mapping in a schema."""
    out = set()
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            out.update(node)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return out


@settings(max_examples=300, deadline=None)
@given(schema=schemas)
def test_a_shown_standard_schema_has_no_type_to_map(schema):
    shown = check_schema(schema, "parameters", _fail, types=False)
    if shown:
        assert not has_nonstandard_types(schema)
    if not BEYOND & _keys(schema):  # nothing the walk skips: it tells exactly
        assert shown == (not has_nonstandard_types(schema))


@pytest.mark.parametrize(
    ("schema", "field"),
    [
        ({"type": "object", "properties": {"a": {"type": "object", "properties": {"b": 3}}}}, "parameters.a.b"),
        ({"properties": {"a": {"items": {"anyOf": [{}, {"type": "nope"}]}}}}, "parameters.a.items.anyOf[1]"),
        ({"$defs": {"T": {"properties": []}}}, "parameters.$defs.T"),
        ({"properties": {"x": {"type": {"a": 1}}}}, "parameters.x"),
    ],
)
def test_errors_name_the_dotted_path(schema, field):
    with pytest.raises(CatalogError) as caught:
        check_schema(schema, "parameters", _fail)
    assert caught.value.field == field
