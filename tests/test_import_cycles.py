"""No import cycle among the modules of a package, counting imports inside functions too.

Read from the source (``ast``), so an import that only runs in some function counts as much as
one at the top of a module: ``from . import hub`` inside ``load_local`` is an edge to the package
and to ``hub``. ``CHECKED`` lists the packages held to it (issue 21: the search package first).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import toolsearch_cli

#: Packages whose modules must not import each other in a cycle.
CHECKED = ["toolsearch_cli.search"]


def module_files(root: Path, package: str) -> dict[str, tuple[Path, bool]]:
    """Module name -> (file, is a package) for every module under ``root`` (the folder of ``package``)."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = [package, *path.relative_to(root).with_suffix("").parts]
        is_package = parts[-1] == "__init__"
        out[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return out


def import_graph(modules: dict[str, tuple[Path, bool]]) -> dict[str, set[str]]:
    """Module -> the modules of ``modules`` it imports anywhere in its source."""
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, (path, is_package) in modules.items():
        package = name if is_package else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    source = ".".join(base + ([node.module] if node.module else []))
                else:
                    source = node.module or ""
                targets = [source, *(f"{source}.{alias.name}" for alias in node.names)]
            else:
                continue
            graph[name].update(t for t in targets if t in modules and t != name)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def edges_within(graph: dict[str, set[str]], package: str) -> dict[str, set[str]]:
    inside = {name for name in graph if name == package or name.startswith(package + ".")}
    return {name: graph[name] & inside for name in inside}


@pytest.mark.parametrize("package", CHECKED)
def test_no_import_cycle_within_the_package(package):
    root = Path(toolsearch_cli.__file__).parent
    graph = import_graph(module_files(root, "toolsearch_cli"))
    assert package in graph
    found = cycles(edges_within(graph, package))
    shown = [" <-> ".join(component) for component in found]
    assert not found, f"import cycles (imports inside functions count): {shown}"


def test_the_check_finds_a_cycle_through_a_function_level_import(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from .a import A\n")
    (pkg / "a.py").write_text("from .sub.b import B\nA = 1\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "b.py").write_text("def f():\n    from .. import c\n    return c\nB = 2\n")
    (pkg / "c.py").write_text("import pkg.sub.b\n")
    (pkg / "d.py").write_text("from . import a\n")  # imports a, which never imports d: no cycle
    graph = import_graph(module_files(pkg, "pkg"))
    assert graph["pkg.sub.b"] == {"pkg", "pkg.c"}
    assert graph["pkg.d"] == {"pkg", "pkg.a"}
    assert cycles(graph) == [["pkg", "pkg.a", "pkg.c", "pkg.sub.b"]]
    assert cycles(edges_within(graph, "pkg.sub")) == []
