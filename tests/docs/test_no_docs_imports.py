"""The package never imports the documentation tools (issue 36): the site's generator is a hook in
docs/_hooks/ that imports toolsearch_cli, never the other way round."""

from __future__ import annotations

import ast

from ..conftest import ROOT

DOCS_TOOLS = {"mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers", "griffe", "pymdownx"}


def imported_roots(source: str) -> set[str]:
    roots = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def test_the_scan_sees_imports():
    assert imported_roots("import mkdocs.plugins\nfrom material import x\n") == {"mkdocs", "material"}


def test_the_package_imports_no_documentation_tool():
    found = {
        str(path.relative_to(ROOT)): sorted(imported_roots(path.read_text(encoding="utf-8")) & DOCS_TOOLS)
        for path in sorted((ROOT / "toolsearch_cli").rglob("*.py"))
    }
    assert len(found) > 50
    assert not {path: names for path, names in found.items() if names}
