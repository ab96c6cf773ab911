"""No import cycle goes through a ``simulate`` module, counting every ``import`` statement: at
module level, inside functions and under ``TYPE_CHECKING`` (issue 21: ``loop`` <-> ``runner``)."""

from __future__ import annotations

import ast
from pathlib import Path

import toolsearch_cli

PACKAGE = Path(toolsearch_cli.__file__).parent


def import_graph() -> dict[str, set[str]]:
    """Module -> the toolsearch_cli modules it imports anywhere in its source."""
    modules: dict[str, tuple[Path, bool]] = {}
    for path in PACKAGE.rglob("*.py"):
        parts = ["toolsearch_cli", *path.relative_to(PACKAGE).with_suffix("").parts]
        is_package = parts[-1] == "__init__"
        modules[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    graph: dict[str, set[str]] = {}
    for name, (path, is_package) in modules.items():
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = name.split(".") if is_package else name.split(".")[:-1]
                if node.level:
                    base = base[: len(base) - (node.level - 1)]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                candidates = [target, *(f"{target}.{alias.name}" for alias in node.names)]
            elif isinstance(node, ast.Import):
                candidates = [alias.name for alias in node.names]
            else:
                continue
            found.update(c for c in candidates if c in modules and c != name)
        graph[name] = found
    return graph


def reaches(graph: dict[str, set[str]], start: str, goal: str) -> bool:
    seen, todo = set(), list(graph[start])
    while todo:
        name = todo.pop()
        if name == goal:
            return True
        if name not in seen:
            seen.add(name)
            todo.extend(graph[name])
    return False


def test_no_import_cycle_goes_through_a_simulate_module():
    graph = import_graph()
    simulate = sorted(m for m in graph if m.startswith(("toolsearch_cli.simulate", "toolsearch_cli.cli.simulate")))
    assert "toolsearch_cli.simulate.loop" in simulate and "toolsearch_cli.simulate.settings" in simulate
    assert "toolsearch_cli.simulate.settings" in graph["toolsearch_cli.simulate.runner"]  # the graph sees imports
    in_cycles = [m for m in simulate if reaches(graph, m, m)]
    assert in_cycles == []


def test_the_graph_counts_imports_inside_functions_and_type_checking_blocks():
    graph = import_graph()
    # live.py imports these only inside functions; loop.py imports settings only for type checking
    assert "toolsearch_cli.bounded" in graph["toolsearch_cli.simulate.live"]
    assert "toolsearch_cli.simulate.settings" in graph["toolsearch_cli.simulate.loop"]
