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
    assert "toolsearch_cli.catalog.cache" in graph["toolsearch_cli.catalog.loading"]  # from . import cache (a module)
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


# --- the package level (issue 33, item 6) -----------------------------------------------------


def package_of(module: str, root: str, modules: dict[str, tuple[Path, bool]]) -> str:
    """The node a module belongs to in the package graph: its first-level subpackage
    (``toolsearch_cli.catalog.cache`` -> ``toolsearch_cli.catalog``), or itself for a module at the
    top (``toolsearch_cli.model``) and for the root package's ``__init__``."""
    parts = module.split(".")
    if len(parts) < 2:
        return module
    first = f"{root}.{parts[1]}"
    return first


def package_graph(package: Path) -> dict[str, set[str]]:
    """The import graph of ``package`` with every module folded into its first-level subpackage;
    every import counts (function-level and ``TYPE_CHECKING`` ones too), as in :func:`import_graph`.

    The root package's ``__init__`` (the public face: it re-exports from every subpackage, and
    runs before any of them) is a sink: its own imports are not edges, an import of it is.
    """
    modules = modules_of(package)
    root = package.name
    graph: dict[str, set[str]] = {}
    for module, targets in import_graph(package).items():
        node = package_of(module, root, modules)
        edges = graph.setdefault(node, set())
        if module == root:
            continue
        edges.update(package_of(t, root, modules) for t in targets)
        edges.discard(node)
    return graph


def test_toolsearch_has_no_package_level_import_loop():
    graph = package_graph(PACKAGE)
    found = cycles(graph)
    assert not found, "package-level import loops:\n" + "\n".join(describe(c, graph) for c in found)


def test_the_package_graph_folds_modules_and_counts_function_level_imports(tmp_path):
    package = tmp_path / "pkg"
    for sub in ("low", "high"):
        (package / sub).mkdir(parents=True)
        (package / sub / "__init__.py").write_text("")
    (package / "__init__.py").write_text("from .high import api\nfrom .low import base\n")
    (package / "top.py").write_text("")
    (package / "low" / "base.py").write_text("from .. import top\n\ndef later():\n    from ..high import api\n")
    (package / "high" / "api.py").write_text("from ..low.base import later\n")
    graph = package_graph(package)
    assert graph["pkg.low"] == {"pkg.top", "pkg.high"} and graph["pkg.high"] == {"pkg.low"}
    assert graph["pkg"] == set()  # the root face is a sink
    assert cycles(graph) == [["pkg.high", "pkg.low"]]


def test_search_never_imports_simulate():
    graph = import_graph(PACKAGE)
    edges = [(m, t) for m, targets in graph.items() for t in targets
             if m.startswith("toolsearch_cli.search") and t.startswith("toolsearch_cli.simulate")]  # fmt: skip
    assert edges == []
