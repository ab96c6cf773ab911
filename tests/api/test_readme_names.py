"""Every library name the README and the pages of docs/ (where sections of it moved, issue 36) give
(a backticked ``toolsearch_cli.x.y`` or a ``from toolsearch_cli... import ...`` line) can be had where
it says: a user copying it gets no ImportError or AttributeError.

The audit of issue 19 found ``toolsearch_cli.search.embed.configure``/``embed_cost()`` in the README after
the names had moved to ``search/embed_settings.py`` (moved names are not re-exported, see
test_module_exports.py)."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
#: the README and the hand-written pages of the documentation site (issue 36 moved sections there)
DOCUMENTS = [README, *sorted((ROOT / "docs").rglob("*.md"))]

DOTTED = re.compile(r"`(toolsearch_cli(?:\.[A-Za-z_][A-Za-z0-9_]*)+)")
FROM_IMPORT = re.compile(r"^\s*from (toolsearch_cli(?:\.[a-z_]+)*) import ([A-Za-z_][A-Za-z0-9_, ]*)", re.MULTILINE)


def readme_names() -> list[tuple[str, str]]:
    """(module path or package, attribute path) pairs; attribute path '' for a bare module."""
    text = "\n".join(document.read_text(encoding="utf-8") for document in DOCUMENTS)
    found: set[tuple[str, str]] = set()
    for dotted in DOTTED.findall(text):
        found.add((dotted, ""))
    for module, names in FROM_IMPORT.findall(text):
        for name in names.split(","):
            if name.strip():
                found.add((module, name.strip()))
    return sorted(found)


def resolve(dotted: str, attribute: str) -> object:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):  # the longest prefix that is a module, the rest attributes
        try:
            obj: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for part in [*parts[cut:], *([attribute] if attribute else [])]:
            obj = getattr(obj, part)
        return obj
    raise ModuleNotFoundError(dotted)


def test_the_readme_names_library_calls():
    names = readme_names()
    assert ("toolsearch_cli.search.embed_settings.embed_cost", "") in names  # the scan sees the README
    assert len(names) > 20


@pytest.mark.parametrize(("dotted", "attribute"), readme_names(), ids=lambda v: v or "-")
def test_a_name_the_readme_gives_exists_there(dotted, attribute):
    assert resolve(dotted, attribute) is not None
