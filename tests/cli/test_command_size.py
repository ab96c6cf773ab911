"""Commands stay thin (issue 21): no function under toolsearch_cli/cli/ is over 60 lines, ``def`` to
its last line; logic that would make one longer belongs in the library."""

from __future__ import annotations

import ast

from ..conftest import ROOT

LIMIT = 60


def test_no_function_of_the_cli_is_over_the_limit():
    sizes = {}
    for path in sorted((ROOT / "toolsearch_cli" / "cli").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                sizes[f"{path.name}:{node.lineno} {node.name}"] = node.end_lineno - node.lineno + 1
    assert len(sizes) > 100  # every module was read
    assert {name: n for name, n in sizes.items() if n > LIMIT} == {}
