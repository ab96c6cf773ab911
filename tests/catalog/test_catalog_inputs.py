"""What a new user hit with catalog files (issue 37, item 5): a misspelt keyword inside a
parameter's schema, a folder holding files that are not catalogs, and a catalog written by
PyYAML's ``safe_dump`` whose shared parameter lists are anchors and aliases."""

from __future__ import annotations

import json
import random

import pytest
import yaml

from toolsearch_cli.catalog import load_catalog, load_catalog_result
from toolsearch_cli.catalog.formats import not_a_catalog
from toolsearch_cli.catalog.schema import misspelt_keyword
from toolsearch_cli.errors import CatalogError

from ..conftest import SHARED

# ------------------------------------------------------------------ misspelt schema keywords

TYPOS = """\
tools:
  - name: getWeather
    description: Get the current weather for a city.
    parameters:
      city: {type: string, requird: true, descripton: City name}
      unit:
        type: string
        enums: [c, f]
  - name: search
    description: Search the documents.
    parameters:
      type: object
      properties:
        q: {type: string, Description: The query}
      requird: [q]
  - name: send
    description: Send a message.
    parameters:
      - name: to
        type: string
        descripton: Recipient
"""


def test_a_misspelt_keyword_in_a_parameter_is_a_warning_with_a_did_you_mean(write):
    loaded = load_catalog_result(str(write("typos.yaml", TYPOS)))
    found = [(w.kind, w.line, w.tool, w.field) for w in loaded.warnings]
    assert found == [
        ("keyword", 5, "getWeather", "parameters.city.requird"),
        ("keyword", 5, "getWeather", "parameters.city.descripton"),
        ("keyword", 8, "getWeather", "parameters.unit.enums"),  # the key's own line, block style
        ("keyword", 15, "search", "parameters.requird"),
        ("keyword", 14, "search", "parameters.q.Description"),
        ("keyword", 21, "send", "parameters.to.descripton"),
    ]
    messages = [w.message for w in loaded.warnings]
    assert messages[0].startswith("unknown keyword 'requird' (did you mean 'required'?)")
    assert "(did you mean 'description'?)" in messages[1] and "(did you mean 'enum'?)" in messages[2]
    # kept as written: the misspelt `required` makes nothing required
    weather = loaded.catalog.get("getWeather").parameters
    assert "required" not in weather and weather["properties"]["city"]["requird"] is True


def test_strict_loading_makes_a_misspelt_keyword_an_error_naming_file_line_tool_and_field(
    write, run_cli, monkeypatch, tmp_path
):
    write("typos.yaml", TYPOS)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(CatalogError) as err:
        load_catalog("typos.yaml", strict=True)
    assert str(err.value) == (
        "typos.yaml:5: tool 'getWeather', field 'parameters.city.requird': unknown keyword 'requird' "
        "(did you mean 'required'?); it is kept as written, and validators and models ignore it"
    )
    result = run_cli("--strict", "search", "weather", "-c", "typos.yaml")
    assert result.code == 2 and result.stderr.strip() == f"error: {err.value}"
    loose = run_cli("search", "weather", "-c", "typos.yaml")
    assert loose.code == 0 and "getWeather" in loose.stdout
    assert loose.stderr.splitlines()[0] == f"warning: {err.value}"
    assert loose.stderr.splitlines()[-1].startswith("6 load warnings: 6 misspelt schema keywords kept")


def test_a_json_catalog_names_the_pointer_and_line_of_the_misspelt_keyword(write):
    text = json.dumps(
        {"tools": [{"name": "t", "inputSchema": {"type": "object", "properties": {"city": {"tpye": "string"}}}}]},
        indent=1,
    )
    [warning] = load_catalog_result(str(write("mcp.json", text))).warnings
    assert warning.field == "/tools/0/inputSchema/properties/city/tpye"
    assert warning.line == text.splitlines().index('      "tpye": "string"') + 1
    assert "(did you mean 'type'?)" in warning.message


def test_lint_reports_a_misspelt_keyword(write, run_cli, monkeypatch, tmp_path):
    write("typos.yaml", TYPOS)
    monkeypatch.chdir(tmp_path)
    found = run_cli("lint", "typos.yaml", "--preset", "strict", "--format", "json").json()
    load = [(d["code"], d["tool"], d["count"]) for d in found if d["code"] == "TS005"]
    assert load == [("TS005", "getWeather", 3), ("TS005", "search", 2), ("TS005", "send", 1)]


@pytest.mark.parametrize(
    ("key", "meant"),
    [
        ("requird", "required"),
        ("descripton", "description"),
        ("desciption", "description"),
        ("Description", "description"),
        ("maxlength", "maxLength"),
        ("max_length", "maxLength"),
        ("tpye", "type"),
        ("enums", "enum"),
        ("propertes", "properties"),
        ("additonalProperties", "additionalProperties"),
        ("$def", "$defs"),
        ("minLenght", "minLength"),
        ("readonly", "readOnly"),
    ],
)
def test_misspelt_keywords_are_matched(key, meant):
    assert misspelt_keyword(key) == meant


@pytest.mark.parametrize(
    "key",
    [
        # keywords of JSON Schema (every draft), OpenAPI and the enum documentation keys
        *("$comment", "const", "contentMediaType", "deprecated", "discriminator", "example", "examples"),
        *("externalDocs", "nullable", "readOnly", "title", "xml", "unevaluatedProperties", "id", "in"),
        *("enumDescriptions", "markdownDescription", "propertyOrdering", "dependentRequired"),
        # vendors' own keys: cfn-lint's and CloudFormation's, json-schema-to-typescript's, OpenAPI x-
        *("requiredOr", "requiredXor", "insertionOrder", "typeName", "tsType", "x-stripeBypassValidation"),
        *("x-enum-descriptions", "default_value", "label", "hint", "unit", "order", "game"),
    ],
)
def test_keywords_and_vendor_keys_are_not_reported(key):
    assert misspelt_keyword(key) is None


def test_vendor_keys_load_without_a_warning(write):
    text = "tools:\n  - name: t\n    parameters:\n"
    text += "      a: {type: string, x-unit: cm, tsType: Foo, label: A, nullable: true}\n"
    assert load_catalog_result(str(write("v.yaml", text))).warnings == ()


@pytest.mark.shared
def test_real_catalogs_have_no_misspelt_keyword():
    """Measured when written: 0 on the nine realworld-dev catalogs (1,261 tools) and the six eval
    sets (7,348 tools); their only keys outside the keywords are x- ones."""
    paths = sorted((SHARED / "eval" / "realworld-dev").glob("*/catalog.*"))
    paths += sorted((SHARED / "eval").glob("*/catalog.yaml"))
    assert len(paths) >= 15
    for path in paths:
        loaded = load_catalog_result(str(path), strict=False)
        assert [w for w in loaded.warnings if w.kind == "keyword"] == [], path


# ------------------------------------------------------------------ files of a folder that are no catalogs

PACKAGE_JSON = '{"name": "my-tools", "version": "1.0.0", "dependencies": {"yaml": "^2"}}\n'
STRAY = {
    "package.json": PACKAGE_JSON,
    "docker-compose.yml": "services:\n  web:\n    image: nginx\n",
    "mcp.json": '{"mcpServers": {"files": {"command": "npx"}}}\n',
    "words.json": '["alpha", "beta"]\n',
    "schema.json": '{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "required": ["a"]}\n',
    "notes.yaml": "just a line of text\n",
}
GOOD = "tools:\n  - name: getWeather\n    description: Get the current weather for a city.\n"


def _folder(write, extra: dict[str, str]) -> None:
    write("tools/weather.yaml", GOOD)
    for name, text in extra.items():
        write(f"tools/{name}", text)


def test_a_folders_files_that_are_not_catalogs_are_skipped_with_one_line_each(write, run_cli, monkeypatch, tmp_path):
    _folder(write, STRAY)
    monkeypatch.chdir(tmp_path)
    result = run_cli("search", "weather", "-c", "tools")
    assert result.code == 0 and "getWeather" in result.stdout
    lines = result.stderr.strip().splitlines()
    assert lines[:-1] == [
        "warning: tools/docker-compose.yml: skipped, not a tool catalog: a mapping without 'tools', 'openapi' or "
        "'swagger' (its keys: 'services')",
        "warning: tools/mcp.json: skipped, not a tool catalog: a mapping without 'tools', 'openapi' or 'swagger' "
        "(its keys: 'mcpServers')",
        "warning: tools/notes.yaml: skipped, not a tool catalog: a string, not a mapping or a list",
        "warning: tools/package.json: skipped, not a tool catalog: a mapping without 'tools', 'openapi' or "
        "'swagger' (its keys: 'name', 'version', 'dependencies')",
        "warning: tools/schema.json: skipped, not a tool catalog: a mapping without 'tools', 'openapi' or "
        "'swagger' (its keys: '$schema', 'type', 'required')",
        "warning: tools/words.json: skipped, not a tool catalog: a list in which no item is a tool, a mapping "
        "with 'name'",
    ]
    assert lines[-1].startswith("6 load warnings: 6 files of a folder that are not catalogs skipped")
    assert [w.kind for w in load_catalog_result("tools").warnings] == ["skipped"] * 6  # the library's too


def test_a_file_named_by_itself_is_still_an_error(write, run_cli, monkeypatch, tmp_path):
    _folder(write, {"package.json": PACKAGE_JSON})
    monkeypatch.chdir(tmp_path)
    result = run_cli("search", "weather", "-c", "tools/package.json")
    assert result.code == 2
    assert result.stderr.strip() == (
        "error: tools/package.json: unknown top-level key 'name'; expected tools, category, resident, groups, requires"
    )


@pytest.mark.parametrize(
    ("name", "text", "where"),
    [
        (
            "broken.yaml",
            "tools:\n  - name: a\n    descripton: x\n",
            "tools/broken.yaml:3: tool 'a', field 'descripton'",
        ),
        (
            "near.yaml",
            "tool:\n  - name: a\n",
            "tools/near.yaml:1: unknown top-level key 'tool' (did you mean 'tools'?)",
        ),
        ("noname.yaml", "- description: a tool without its name\n  parameters: {a: string}\n", "tools/noname.yaml:1"),
        ("single.json", '{"name": "t", "inputSchema": {"type": "object"}}', "tools/single.json: unknown top-level"),
        ("syntax.yaml", "tools:\n  - name: a\n   description: b\n", "tools/syntax.yaml:3: malformed YAML"),
        ("syntax.json", '{"tools": [}', "tools/syntax.json:1: malformed JSON"),
        ("api.yaml", "openapi: 3.0.0\npaths: 5\n", "tools/api.yaml"),
    ],
)
def test_a_broken_catalog_in_a_folder_is_still_an_error(write, run_cli, monkeypatch, tmp_path, name, text, where):
    _folder(write, {"package.json": PACKAGE_JSON, name: text})
    monkeypatch.chdir(tmp_path)
    result = run_cli("search", "weather", "-c", "tools")
    assert result.code == 2, result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and errors[0].startswith(f"error: {where}"), result.stderr


def test_strict_loading_refuses_a_folder_with_a_file_that_is_no_catalog(write, run_cli, monkeypatch, tmp_path):
    _folder(write, {"package.json": PACKAGE_JSON})
    monkeypatch.chdir(tmp_path)
    result = run_cli("--strict", "search", "weather", "-c", "tools")
    assert result.code == 2 and result.stderr.strip() == (
        "error: tools/package.json: not a tool catalog: a mapping without 'tools', 'openapi' or 'swagger' (its "
        "keys: 'name', 'version', 'dependencies'); --strict refuses it (without it, the folder's load skips it)"
    )


def test_a_folder_with_no_catalog_at_all_is_an_error(write, monkeypatch, tmp_path):
    write("tools/package.json", PACKAGE_JSON)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(CatalogError) as err:
        load_catalog("tools")
    assert str(err.value).startswith("tools: no tool catalog in this folder: 1 file and none a catalog (tools/package")


def test_lint_reports_a_skipped_file_as_a_load_warning_and_a_named_one_as_invalid(
    write, run_cli, monkeypatch, tmp_path
):
    _folder(write, {"package.json": PACKAGE_JSON})
    monkeypatch.chdir(tmp_path)
    walked = run_cli("lint", "tools", "--select", "TS001,TS005", "--format", "json").json()
    assert [(d["code"], d["filename"]) for d in walked] == [("TS005", "tools/package.json")]
    assert walked[0]["message"].startswith("skipped, not a tool catalog: a mapping without 'tools'")
    named = run_cli("lint", "tools", "tools/package.json", "--select", "TS001,TS005", "--format", "json").json()
    assert [(d["code"], d["filename"]) for d in named] == [("TS001", "tools/package.json")]


@pytest.mark.parametrize(
    ("data", "is_catalog"),
    [
        (None, True),
        ({}, True),
        ([], True),
        ({"tools": []}, True),
        ({"Tools": [1]}, True),
        ({"tols": [1]}, True),
        ({"openapi": "3.1.0"}, True),
        ({"swagger": "2.0"}, True),
        ({"groups": []}, True),
        ({"name": "t", "parameters": {}}, True),
        ({"type": "function", "function": {"name": "t"}}, True),
        ([{"name": "t"}], True),
        (["x", {"input_schema": {}}], True),
        ({"name": "pkg", "version": "1", "description": "a package"}, False),
        ({"mcpServers": {}}, False),
        ({"type": "object", "required": ["a"], "properties": {}}, False),
        (["a", "b"], False),
        ([{"id": 1, "title": "x"}], False),
        ("text", False),
        (42, False),
    ],
)
def test_what_has_the_shape_of_a_catalog(data, is_catalog):
    assert (not_a_catalog(data) is None) == is_catalog


# ------------------------------------------------------------------ YAML aliases: relative to the document


def _dumped_catalog(count: int, lists: int, seed: int = 0) -> str:
    """``count`` tools, 80 % of them sharing one of ``lists`` parameter lists, dumped by PyYAML (which
    writes a shared object once, anchored, and aliases it everywhere else)."""
    rng = random.Random(seed)

    def parameters() -> list[dict]:
        return [
            {"name": f"p{j}", "type": "string", "description": f"Parameter {j}.", "required": j == 0}
            for j in range(rng.randint(2, 6))
        ]

    shared = [parameters() for _ in range(lists)]
    tools = [
        {
            "name": f"tool_{i}",
            "description": f"Tool number {i}.",
            "parameters": rng.choice(shared) if rng.random() < 0.8 else parameters(),
        }
        for i in range(count)
    ]
    return yaml.safe_dump({"tools": tools}, sort_keys=False)


def test_a_safe_dump_catalog_sharing_parameter_lists_loads(write, monkeypatch):
    """Aliases add ~2 times the document's own values (100,000 such tools, 16.8 MB, add 2.9
    million); the floor is lowered from 1,000,000 to 2,000 so that 2,000 tools show it."""
    from toolsearch_cli.catalog import yaml_loader

    monkeypatch.setattr(yaml_loader, "MAX_VALUES", 2_000)
    text = _dumped_catalog(2_000, lists=50)
    assert text.count("&id") == 50 and text.count("*id") > 1_000
    catalog = load_catalog(str(write("dumped.yaml", text)))
    assert len(catalog) == 2_000
    names = [p["name"] for p in yaml.safe_load(text)["tools"][1_999]["parameters"]]
    assert list(catalog.get("tool_1999").parameters["properties"]) == names


def test_aliases_may_add_twenty_times_the_documents_own_values(write, monkeypatch):
    """A 1,000-value block in a document of 1,005 values: 20 references (added: 20,020 values, at
    most 20 * 1,005 = 20,100) load, 21 (21,021) do not. Floor lowered to 1,000."""
    from toolsearch_cli.catalog import yaml_loader

    monkeypatch.setattr(yaml_loader, "MAX_VALUES", 1_000)
    block = "block: &b\n" + "".join(f"  - v{i}\n" for i in range(1_000))

    def refs(n: int) -> str:
        return block + "refs:\n" + "".join("  - *b\n" for _ in range(n))

    assert len(yaml_loader.parse_yaml(refs(20), "twenty.yaml")["refs"]) == 20
    with pytest.raises(CatalogError) as err:
        yaml_loader.parse_yaml(refs(21), "more.yaml")
    assert err.value.line == 1_003  # the `refs:` list
    assert err.value.message == (
        "this document grows from 1,005 values to 22,026 once its aliases are expanded, more than 21 times "
        "its own (a YAML alias bomb?)"
    )


def _laughs(levels: int = 9) -> str:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, levels + 1)]
    return "tools: []\nx-laughs:\n" + "".join(f"  {line}\n" for line in lines)


def _wide(n: int = 3_000) -> str:
    return "tools: []\nblock: &b [" + ", ".join(["x"] * n) + "]\nrefs: [" + ", ".join(["*b"] * n) + "]\n"


def _huge_block(values: int = 50_000, aliases: int = 100) -> str:
    text = "tools: []\nblock: &b\n" + "".join(f"  - v{i}\n" for i in range(values))
    return text + "refs:\n" + "".join("  - *b\n" for _ in range(aliases))


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        (_laughs(), "bomb.yaml:8:", "this value grows by more than 1,000,000 values once its aliases are expanded"),
        (_wide(), "bomb.yaml:3:", "this value grows by more than 1,000,000 values once its aliases are expanded"),
        (_huge_block(), "bomb.yaml:50004:", "this document grows from 50,007 values to 5,050,107 once its aliases"),
    ],
    ids=["nested", "wide", "few-aliases-to-a-huge-block"],
)
def test_alias_bombs_are_still_refused_in_one_line(write, run_cli, monkeypatch, tmp_path, text, where, message):
    write("bomb.yaml", text)
    monkeypatch.chdir(tmp_path)
    result = run_cli("search", "x", "-c", "bomb.yaml")
    assert result.code == 2 and "Traceback" not in result.stderr
    [line] = result.stderr.strip().splitlines()
    assert line.startswith(f"error: {where} {message}") and line.endswith("(a YAML alias bomb?)")
