"""No import cycle inside toolsearch_cli, counting every import: top-level, inside functions and
under ``if TYPE_CHECKING``.

The graph is read from the source with :mod:`ast`, not from ``sys.modules``: a function-level
import is an edge although it runs late. ``from pkg import name`` is an edge to ``pkg.name`` when
that is a module, else to ``pkg``; ``import a.b.c`` is an edge to the deepest of ``a.b.c``,
``a.b``, ``a`` that is a module of the package. (Importing a submodule also runs its parent
packages' ``__init__``; that edge is not counted, or the package's public ``__init__`` would close
a cycle with every module.)
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "toolsearch_cli"


def modules_of(package: Path) -> dict[str, tuple[Path, bool]]:
    """Dotted module name -> (file, is a package ``__init__``)."""
    found: dict[str, tuple[Path, bool]] = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts.pop()
        found[".".join(parts)] = (path, is_package)
    return found


def import_graph(package: Path) -> dict[str, set[str]]:
    modules = modules_of(package)
    root = package.name

    def deepest(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, (path, is_package) in modules.items():
        here = name if is_package else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    target = deepest(alias.name)
                    if target is not None:
                        graph[name].add(target)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = here.split(".")
                    base = base[: len(base) - (node.level - 1)]
                    target_pkg = ".".join(base + ([node.module] if node.module else []))
                else:
                    target_pkg = node.module or ""
                if target_pkg != root and not target_pkg.startswith(root + "."):
                    continue
                for alias in node.names:
                    child = f"{target_pkg}.{alias.name}"
                    if child in modules:
                        graph[name].add(child)
                    elif target_pkg in modules:
                        graph[name].add(target_pkg)
        graph[name].discard(name)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
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


def describe(component: list[str], graph: dict[str, set[str]]) -> str:
    members = set(component)
    return "; ".join(f"{m} -> {', '.join(sorted(graph[m] & members))}" for m in component)


def test_toolsearch_has_no_import_cycle():
    graph = import_graph(PACKAGE)
    found = cycles(graph)
    assert not found, "import cycles:\n" + "\n".join(describe(c, graph) for c in found)


def test_the_graph_sees_function_level_and_from_imports():
    graph = import_graph(PACKAGE)
    assert "toolsearch_cli.catalog" in graph["toolsearch_cli.agent"]  # load_catalog, imported in a method
    assert "toolsearch_cli.catalog.cache" in graph["toolsearch_cli.catalog"]  # from . import cache (a module)
    assert "toolsearch_cli.catalog.result" in graph["toolsearch_cli.catalog.formats"]  # from .result import X
    assert "toolsearch_cli.catalog" in graph["toolsearch_cli"]  # from .catalog import load_catalog (a name)


def test_a_cycle_through_a_function_level_import_is_found(tmp_path):
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("from .. import low\n")
    (package / "low.py").write_text("def later():\n    from .sub import deep\n    return deep\n")
    (package / "sub" / "deep.py").write_text("import pkg.low\n")
    (package / "alone.py").write_text("from pkg import low\n")
    graph = import_graph(package)
    assert cycles(graph) == [["pkg.low", "pkg.sub.deep"]]
    assert graph["pkg.alone"] == {"pkg.low"} and graph["pkg.sub"] == {"pkg.low"}


def package_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The module graph seen from the package's first-level parts (``toolsearch_cli.search``,
    ``toolsearch_cli.simulate``, ``toolsearch_cli.agent``...): an edge where any module of one
    imports any module of the other, at whatever level of the file."""

    def part(module: str) -> str:
        return ".".join(module.split(".")[:2])

    out: dict[str, set[str]] = {}
    for module, targets in graph.items():
        out.setdefault(part(module), set()).update(part(t) for t in targets)
    for name, targets in out.items():
        targets.discard(name)
    return out


#: Package-level loops still to be broken (issue 33, items 1 and 6): each may shrink or go; none
#: may grow, and no other may appear (search -> simulate was one: the embeddings endpoint client
#: now lives in providers).
KNOWN_PACKAGE_LOOPS = [
    {"toolsearch_cli.agent", "toolsearch_cli.catalog", "toolsearch_cli.registry"},
    {"toolsearch_cli.lint", "toolsearch_cli.lock", "toolsearch_cli.report"},
]


def test_no_package_level_loop_but_the_known_ones():
    packages = package_graph(import_graph(PACKAGE))
    new = [c for c in cycles(packages) if not any(set(c) <= known for known in KNOWN_PACKAGE_LOOPS)]
    assert not new, "\n".join(describe(c, packages) for c in new)


def test_search_never_imports_simulate():
    graph = import_graph(PACKAGE)
    edges = [(m, t) for m, targets in graph.items() for t in targets
             if m.startswith("toolsearch_cli.search") and t.startswith("toolsearch_cli.simulate")]  # fmt: skip
    assert edges == []
