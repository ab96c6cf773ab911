"""A pickled Tool keeps its fields packed until one is read (the catalog cache's warm search reads
the fields of the hits only): the copy must be the same tool in every respect."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from toolsearch_cli.model import Location, Tool, pack_tools, unpacked

FULL = Tool(
    name="getWeather",
    description="Current weather of a city",
    parameters={
        "type": "object",
        "properties": {"city": {"type": "string", "description": "City name", "enum": ["Paris", "Oslo"]}},
        "required": ["city"],
    },
    category="weather",
    tags=["forecast", "météo"],
    examples=["weather in Paris"],
    metadata={"mcp": {"title": "Weather"}, "n": 3},
    source=Location("cat.yaml", 4, 3),
    field_locations={"description": Location("cat.yaml", 5, 5)},
    lint={"ignore": ["TS301"]},
    requires={"role": ["admin"]},
    mock={"temperature": 12},
)


def packed(tool: Tool) -> Tool:
    return pickle.loads(pickle.dumps(tool, protocol=pickle.HIGHEST_PROTOCOL))


def test_a_pickled_tool_stays_packed_until_a_field_is_read():
    copy_ = packed(FULL)
    assert set(vars(copy_)) == {"name", "category", "_packed"}
    assert copy_.name == "getWeather" and copy_.category == "weather"
    assert set(vars(copy_)) == {"name", "category", "_packed"}  # name and category read nothing else
    assert copy_.parameters == FULL.parameters
    assert "_packed" not in vars(copy_)


@pytest.mark.parametrize(
    "field",
    # every field but the two kept plain: a field added to Tool is checked here without a test edit
    [f.name for f in dataclasses.fields(Tool) if f.name not in ("name", "category")],
)
def test_every_field_survives_the_round_trip(field):
    assert getattr(packed(FULL), field) == getattr(FULL, field)


def test_the_copy_equals_the_original_and_shows_the_same():
    copy_ = packed(FULL)
    assert copy_ == FULL and FULL == copy_
    assert repr(packed(FULL)) == repr(FULL)
    assert packed(FULL).title == "Weather"
    assert packed(FULL).parameter_count() == 1
    assert packed(packed(FULL)) == FULL  # a packed tool pickles again without unpacking
    assert copy.deepcopy(FULL) == FULL


def test_a_field_assigned_while_packed_keeps_its_value():
    copy_ = packed(FULL)
    copy_.description = "Changed"
    assert copy_.parameters == FULL.parameters  # unpacking the rest does not undo the change
    assert copy_.description == "Changed"
    assert copy_ != FULL
    again = packed(copy_)
    assert again.description == "Changed"


def test_equality_is_a_dataclass_equality():
    assert Tool(name="a") == Tool(name="a")
    assert Tool(name="a") != Tool(name="b")
    assert Tool(name="a", mock=1) != Tool(name="a", mock=2)
    assert Tool(name="a", category="x") != Tool(name="a")
    # where a field was defined is not part of the tool; its parameters are
    assert Tool(name="a", field_locations={"name": Location("f", 1)}) == Tool(name="a")
    assert Tool(name="a", parameters={"type": "object"}) != Tool(name="a")
    assert Tool(name="a").__eq__("a") is NotImplemented
    with pytest.raises(TypeError):
        hash(Tool(name="a"))  # as before: tools change in place


def test_a_missing_attribute_is_still_an_attribute_error():
    copy_ = packed(FULL)
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        copy_.nope  # noqa: B018
    assert not hasattr(copy_, "nope")
    assert "_packed" in vars(copy_)  # asking for an unknown attribute unpacks nothing
    with pytest.raises(AttributeError):
        Tool(name="a").nope  # noqa: B018


def test_defaults_are_still_the_dataclass_defaults():
    tool = Tool(name="a")
    assert (tool.description, tool.source, tool.function, tool.mock) == ("", None, None, None)
    assert tool.parameters == {"type": "object", "properties": {}}
    assert packed(tool) == tool


def test_a_packed_field_changed_in_a_cache_entry_is_a_miss_never_a_wrong_tool(write, monkeypatch, tmp_path):
    """The packed fields are inside the authenticated payload: a description edited in the entry
    (someone who can write the cache folder, without the key) makes the entry a miss."""
    from toolsearch_cli import cachedir
    from toolsearch_cli.catalog import cache, load_catalog, load_catalog_result

    monkeypatch.setenv(cachedir.CACHE_DIR_VAR, str(tmp_path / "c"))
    path = write("cat.yaml", "tools:\n  - name: getWeather\n    description: Current weather of a city\n")
    first = load_catalog_result([str(path)], cache=True)
    assert first.cache_key is not None
    entry = cachedir.cache_dir() / f"{first.cache_key}.pickle"
    data = entry.read_bytes()
    assert data.count(b"Current weather of a city") == 1  # inside the tool's packed bytes
    entry.write_bytes(data.replace(b"Current weather of a city", b"Current weather of a town"))
    assert cache.load(first.cache_key) is None
    again = load_catalog([str(path)], cache=True)
    assert again.get("getWeather").description == "Current weather of a city"


# -- packing in place (a large catalog's loader) and reading a packed tool without unpacking it


def test_pack_tools_packs_in_place_and_every_field_reads_back():
    tool = dataclasses.replace(FULL)
    pack_tools([tool])
    assert set(vars(tool)) == {"name", "category", "source", "_packed"}  # source held out: see the test below
    assert tool == FULL and repr(tool) == repr(FULL)
    assert "_packed" not in vars(tool)  # read: unpacked for good, as a pickled tool is


def test_pack_tools_leaves_a_tool_with_a_function_and_a_packed_tool_alone():
    with_function = dataclasses.replace(FULL, function=len)
    pack_tools([with_function])
    assert "_packed" not in vars(with_function) and with_function.function is len
    already = packed(FULL)
    before = vars(already)["_packed"]
    pack_tools([already])
    assert vars(already)["_packed"] is before


def test_a_packed_tool_pickles_to_the_same_tool():
    tool = dataclasses.replace(FULL)
    pack_tools([tool])
    assert packed(tool) == FULL and set(vars(tool)) == {"name", "category", "source", "_packed"}


def test_a_tool_packed_in_place_holds_its_source_plain_and_pickles_it():
    # a pass over a packed catalog reads no source: unpickling a Location per tool cost as much as the parameters
    tool = dataclasses.replace(FULL)
    pack_tools([tool])
    assert vars(tool)["source"] is FULL.source
    assert FULL.source not in pickle.loads(vars(tool)["_packed"])
    copy_ = packed(tool)
    assert set(vars(copy_)) == {"name", "category", "source", "_packed"}
    assert copy_.source == FULL.source and copy_ == FULL and repr(copy_) == repr(FULL)
    tool.source = Location("moved.yaml", 9)  # assigned while packed: it wins, in the copy too
    assert packed(tool).source == Location("moved.yaml", 9) and unpacked(tool).source == Location("moved.yaml", 9)
    assert "_packed" in vars(tool)


def test_unpacked_reads_a_packed_tool_without_unpacking_it():
    tool = dataclasses.replace(FULL)
    assert unpacked(tool) is tool  # a plain tool is its own view
    pack_tools([tool])
    view = unpacked(tool)
    assert view is not tool and view == FULL and view.parameters == FULL.parameters
    assert set(vars(tool)) == {"name", "category", "source", "_packed"}
    tool.description = "assigned while packed"
    assert unpacked(tool).description == "assigned while packed"  # the assigned value wins
    assert unpacked(tool).tags == FULL.tags


def test_a_large_folder_loads_packed_and_a_small_one_plain(tmp_path, monkeypatch):
    import json

    import toolsearch_cli.catalog.sources.files as catalog_module
    from toolsearch_cli.catalog import load_catalog
    from toolsearch_cli.search import search

    for part in range(3):
        rows = [
            {"name": f"tool{part}_{i}", "description": f"send mail number {i}", "parameters": {"type": "object"}}
            for i in range(4)
        ]
        (tmp_path / f"part{part}.json").write_text(json.dumps({"tools": rows}))
    plain = load_catalog([str(tmp_path)])
    assert not any("_packed" in vars(t) for t in plain.tools)
    monkeypatch.setattr(catalog_module, "PACK_FROM", 6)  # packed from the second file on (and the first then)
    lean = load_catalog([str(tmp_path)])
    assert all(set(vars(t)) == {"name", "category", "source", "_packed"} for t in lean.tools)
    assert list(lean.tools) == list(plain.tools)
    lean = load_catalog([str(tmp_path)])
    hits = search(lean, "send mail number 3", max_results=3)
    assert [h.tool.name for h in hits] == [h.tool.name for h in search(plain, "send mail number 3", max_results=3)]
    # indexing read every tool through a transient copy: only the hits were unpacked
    assert sum("_packed" not in vars(t) for t in lean.tools) <= 3


def test_a_tool_of_plain_values_packs_by_marshal_and_reads_back_the_same():
    # a loaded file's tools (no Location in field_locations): marshal packs and reads faster than pickle
    import marshal

    tool = dataclasses.replace(
        FULL,
        field_locations={},
        parameters={
            "type": "object",
            "properties": {"n": {"type": "number", "default": -0.0, "maximum": 1e308, "enum": [1, 1.5, True, None]}},
            "required": ["n"],
            "x-nested": [[{"a": ["b", {"ü": "東京\ud800"}]}], 2**70],
        },
        metadata={"mcp": {"title": "Weather", "readOnly": False}},
        mock=[{"ok": True}],
    )
    original = copy.deepcopy(tool)
    pack_tools([tool])
    raw = vars(tool)["_packed"]
    assert raw[0] != 0x80 and marshal.loads(raw)[1] == original.parameters  # marshal, not a pickle
    view = unpacked(tool)
    assert view == original and repr(view) == repr(original)
    for a, b in ((view.parameters, original.parameters), (view.mock, original.mock)):
        assert json_types(a) == json_types(b)
    again = packed(tool)  # through a pickle, as the cache stores it: the marshalled bytes kept
    assert (
        vars(again)["_packed"] == raw
        and again == original
        and json_types(again.parameters) == json_types(original.parameters)
    )
    assert tool == original and "_packed" not in vars(tool)


def json_types(value):
    """The value with each leaf's type beside it (True == 1 == 1.0 would hide a changed type)."""
    if isinstance(value, dict):
        return {k: json_types(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_types(v) for v in value]
    return (type(value).__name__, repr(value))


class Mapping(dict):
    """A dict subclass: marshal refuses it (it would come back a plain dict), pickle keeps it."""


def test_a_tool_with_locations_or_subclasses_packs_by_pickle():
    for tool in (dataclasses.replace(FULL), dataclasses.replace(FULL, field_locations={}, metadata=Mapping(a=1))):
        expected = copy.deepcopy(tool)
        pack_tools([tool])
        assert vars(tool)["_packed"][0] == 0x80  # a pickle
        assert unpacked(tool) == expected and type(unpacked(tool).metadata) is type(expected.metadata)
