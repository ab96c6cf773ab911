"""YAML catalogs: the three parameter forms, folders, merging, residents, locations."""

from __future__ import annotations

import copy

import pytest
import yaml

from toolsearch_cli import CatalogError, load_catalog
from toolsearch_cli.catalog import bundled_catalog_path
from toolsearch_cli.catalog.yaml_loader import _MarkedLoader

from ..conftest import DEMO


def test_short_form_becomes_json_schema(write):
    path = write(
        "c.yaml",
        """
tools:
  - name: getWeather
    description: Weather for a city
    parameters:
      city: {type: string, description: City name, required: true}
      days: {type: integer, default: 3, minimum: 1}
      units: string
      address:
        type: object
        required: true
        properties:
          street: {type: string, required: true}
          zip: {type: string}
      items:
        type: array
        items:
          type: object
          properties:
            sku: {type: string, required: true}
""",
    )
    tool = load_catalog(str(path)).get("getWeather")
    assert tool.parameters == {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "City name"},
            "days": {"type": "integer", "default": 3, "minimum": 1},
            "units": {"type": "string"},
            "address": {
                "type": "object",
                "properties": {"street": {"type": "string"}, "zip": {"type": "string"}},
                "required": ["street"],
            },
            "items": {
                "type": "array",
                "items": {"type": "object", "properties": {"sku": {"type": "string"}}, "required": ["sku"]},
            },
        },
        "required": ["city", "address"],
    }
    assert tool.location_of("parameters.days").line == 7
    assert tool.location_of("parameters.address.street").line == 13


def test_full_json_schema_is_kept_as_written(write):
    path = write(
        "c.yaml",
        """
- name: t
  parameters:
    type: object
    properties:
      q: {type: string, enum: [a, b], description: the query}
    required: [q]
    additionalProperties: false
""",
    )
    assert load_catalog(str(path)).get("t").parameters == {
        "type": "object",
        "properties": {"q": {"type": "string", "enum": ["a", "b"], "description": "the query"}},
        "required": ["q"],
        "additionalProperties": False,
    }


def test_list_form_of_the_eval_catalogs(write):
    path = write(
        "c.yaml",
        """
- name: get_current_weather
  description: Retrieves the current weather.
  parameters:
  - {name: location, type: string, description: "City and state", required: true}
  - {name: unit, type: string, description: "celsius or fahrenheit", required: false}
  category: Finance
  tags: [Alpha Vantage]
""",
    )
    tool = load_catalog(str(path)).get("get_current_weather")
    assert tool.parameters["required"] == ["location"]
    assert list(tool.parameters["properties"]) == ["location", "unit"]
    assert tool.category == "Finance" and tool.tags == ["Alpha Vantage"]
    assert [p.name for p in tool.parameter_tree()] == ["location", "unit"]
    assert tool.location_of("parameters.unit").line == 6


def test_folder_is_loaded_recursively_and_sorted_with_file_defaults(write, tmp_path):
    write("b/second.yml", "category: mail\ntools:\n  - name: sendEmail\n    description: send mail\n")
    write("a.yaml", "resident: [now]\ntools:\n  - name: now\n  - name: getWeather\n    category: weather\n")
    write(".hidden/skip.yaml", "tools: [{name: hidden}]\n")
    write("notes.txt", "not a catalog")
    catalog = load_catalog(str(tmp_path))
    assert catalog.names == ["now", "getWeather", "sendEmail"]
    assert catalog.resident == ["now"]
    assert catalog.get("sendEmail").category == "mail"
    assert [t.name for t in catalog.searchable()] == ["getWeather", "sendEmail"]


def test_several_sources_merge(write):
    one = write("one.yaml", "- name: a\n")
    two = write("two.yaml", "- name: b\n  resident: true\n")
    catalog = load_catalog([str(one), str(two)])
    assert catalog.names == ["a", "b"] and catalog.resident == ["b"]


def test_shipped_demo_catalog():
    catalog = load_catalog(str(DEMO))
    assert len(catalog) >= 60
    categories = set(catalog.categories()) - {"system"}
    assert len(categories) >= 8
    assert set(catalog.resident) == {"currentTime", "askUser"}
    weather, email = catalog.get("getWeather"), catalog.get("sendEmail")
    assert "查询指定城市的实时天气和未来预报" in weather.description
    assert "city" in weather.parameters["required"]
    assert "向指定邮箱发送邮件" in email.description
    assert {"address", "content"} <= set(email.parameters["required"])
    for tool in catalog.tools:
        assert tool.description and tool.tags, tool.name
        assert 2 <= len(tool.examples) <= 3, tool.name
        assert any("\u4e00" <= ch <= "\u9fff" for ch in tool.description), f"{tool.name} has no Chinese text"


def test_bundled_catalog_is_the_demo():
    assert bundled_catalog_path().is_dir()
    assert {p.name for p in bundled_catalog_path().glob("*.yaml")} == {p.name for p in DEMO.glob("*.yaml")}


def test_loader_is_safe_and_uses_the_c_parser_when_available(write):
    path = write("evil.yaml", "- name: !!python/object/apply:os.system ['echo hi']\n")
    with pytest.raises(CatalogError, match="malformed YAML|could not determine a constructor"):
        load_catalog(str(path))
    if hasattr(yaml, "CSafeLoader"):
        assert issubclass(_MarkedLoader, yaml.CSafeLoader)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("tools: {name: a}\n", "'tools' must be a list"),
        ("tool:\n  - name: a\n", "unknown top-level key 'tool' (did you mean 'tools'?)"),
        ("- just a string\n", "a tool must be a mapping, not a string"),
        ("- name: a\n  tags: weather\n", "must be a list of strings; write ['weather']"),
        ("- name: 12\n", "'name' must be a string"),
        ("- name: a\n  parameters:\n    type: string\n", "must have type 'object'"),
        ("- name: a\n  parameters: [{type: string}]\n", "needs a string 'name'"),
        ("- name: a\n  resident: yes please\n", "must be true or false"),
        ("- name: a\n- name: b\nresident: [a]\n", "c.yaml:3: malformed YAML"),
        ("resident: [ghost]\ntools:\n  - name: a\n", "resident tool 'ghost' is not in the catalog"),
        ("42\n", "a catalog must be a mapping with 'tools' or a list of tools"),
    ],
)
def test_invalid_documents(write, text, message):
    path = write("c.yaml", text)
    with pytest.raises(CatalogError) as info:
        load_catalog(str(path))
    assert message in str(info.value)


def test_empty_file_is_an_empty_catalog(write):
    assert len(load_catalog(str(write("empty.yaml", "")))) == 0


def _tools_yaml(count: int, *, shared: bool) -> str:
    """``count`` tools of 4 parameters; ``shared``: one parameters block anchored on the first tool
    and aliased by the others (what PyYAML's dump writes for shared objects)."""
    block = {
        "type": "object",
        "properties": {
            name: {"type": "string", "description": f"the {name}"} for name in ("city", "day", "unit", "lang")
        },
    }
    tools = [
        {
            "name": f"tool{i}",
            "description": f"Tool number {i}.",
            "parameters": block if shared else copy.deepcopy(block),
        }
        for i in range(count)
    ]
    return yaml.safe_dump({"tools": tools}, sort_keys=False)


def test_the_alias_cap_counts_what_aliases_add_not_the_documents_own_values(write, monkeypatch):
    """A large honest catalog (its own values past the floor, no alias, or ordinary anchors) loads;
    what aliases add is held to ALIAS_RATIO times the document's own values (at least the floor);
    a billion-laughs bomb is refused. The floor is lowered to 2,000 so the documents stay small."""
    from toolsearch_cli.catalog import yaml_loader

    monkeypatch.setattr(yaml_loader, "MAX_VALUES", 2_000)
    plain_text = _tools_yaml(300, shared=False)  # ~5,400 values of its own, no alias
    assert "&" not in plain_text and "*" not in plain_text
    assert len(load_catalog(str(write("plain.yaml", plain_text)))) == 300
    anchored = _tools_yaml(60, shared=True)  # 59 aliases of a 29-value block: 1,711 values added
    assert anchored.count("*id") == 59
    catalog = load_catalog(str(write("anchored.yaml", anchored)))
    assert len(catalog) == 60 and catalog.get("tool59").parameters == catalog.get("tool0").parameters
    # 299 aliases of the block add 8,671 values, past the floor but 4.8 times the document's own
    # 1,800: as a catalog of shared parameter lists grows, so does what it may add
    assert len(load_catalog(str(write("many.yaml", _tools_yaml(300, shared=True))))) == 300
    laughs = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    laughs += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 5)]
    bomb = "tools: []\nx-bomb:\n" + "".join(f"  {line}\n" for line in laughs)  # 10^5 values from 5 lines
    with pytest.raises(CatalogError, match="alias bomb") as err:
        load_catalog(str(write("bomb.yaml", bomb)))
    # named at the level where the growth passes what a document of its length may add, while it
    # is built: 20 * (2 * 303 + 2) = 12,160; a3 adds 11,097, a4 111,096
    assert len(bomb) == 303 and yaml_loader.ALIAS_RATIO == 20
    assert err.value.line == 7 and "grows by more than 12,160 values" in err.value.message
    # a `<<:` merge adds the pairs it copies: 8 values for a 4-key mapping
    monkeypatch.setattr(yaml_loader, "MAX_VALUES", 10)
    merged = "tools:\n  - {name: t0, metadata: &b {a: 1, b: 2, c: 3, d: 4}}\n"
    merged += "  - {name: t1, metadata: {<<: *b, e: 5}}\n"
    assert load_catalog(str(write("merge.yaml", merged))).get("t1").metadata == {"a": 1, "b": 2, "c": 3, "d": 4, "e": 5}
    # 100 merges of a 200-key mapping copy 40,000 values into a document of ~1,000 of its own
    block = "{" + ", ".join(f"k{i}: {i}" for i in range(200)) + "}"
    many = f"tools:\n  - {{name: t0, metadata: &b {block}}}\n"
    many += "".join(f"  - {{name: t{i}, metadata: {{<<: *b}}}}\n" for i in range(1, 101))
    with pytest.raises(CatalogError, match="alias bomb"):
        load_catalog(str(write("merge2.yaml", many)))
