"""What a new user hit with catalog files (issue 37, item 5): a misspelt keyword inside a
parameter's schema, a folder holding files that are not catalogs, and a catalog written by
PyYAML's ``safe_dump`` whose shared parameter lists are anchors and aliases."""

from __future__ import annotations

import random

import pytest
import yaml

from toolsearch_cli.catalog import load_catalog
from toolsearch_cli.errors import CatalogError

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
