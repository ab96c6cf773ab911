"""The ``TOOLSEARCH_*`` environment variables are read in one module, :mod:`toolsearch_cli.environment`
(issue 33): no other module of the package holds such a name as a string (help texts build it from
the module's constants), so none can read one behind the table's back."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from toolsearch_cli import environment

PACKAGE = Path(__file__).resolve().parents[2] / "toolsearch_cli"
NAME = re.compile(r"TOOLSEARCH_[A-Z0-9_]*")


def docstrings(tree: ast.AST) -> set[int]:
    """ids of the string constants that are docstrings (text for people, not values)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def names_outside(package: Path, allowed: Path) -> dict[str, list[str]]:
    """file:line -> the TOOLSEARCH_ names held by strings (not docstrings) of any file but ``allowed``."""
    found: dict[str, list[str]] = {}
    for path in sorted(package.rglob("*.py")):
        if path == allowed:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = docstrings(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
                names = NAME.findall(node.value)
                if names:
                    found[f"{path.relative_to(package).as_posix()}:{node.lineno}"] = names
    return found


def test_no_module_but_environment_names_a_toolsearch_variable():
    assert names_outside(PACKAGE, PACKAGE / "environment.py") == {}


def test_the_check_finds_a_variable_read_elsewhere(tmp_path):
    (tmp_path / "one.py").write_text('import os\nLIMIT = os.environ.get("TOOLSEARCH_NEW_LIMIT")\n')
    (tmp_path / "two.py").write_text('"""Reads $TOOLSEARCH_NEW_LIMIT (a docstring: fine)."""\nX = f"{1}"\n')
    assert names_outside(tmp_path, tmp_path / "environment.py") == {"one.py:2": ["TOOLSEARCH_NEW_LIMIT"]}


def test_every_variable_is_in_the_table_and_the_docstring():
    source = (PACKAGE / "environment.py").read_text(encoding="utf-8")
    constants = {value for value in vars(environment).values() if isinstance(value, str) and NAME.fullmatch(value)}
    assert constants == set(environment.VARIABLES)
    assert len(constants) == 21
    doc = environment.__doc__ or ""
    assert all(name in doc for name in constants)
    assert set(NAME.findall(doc)) - {"TOOLSEARCH_"} == constants
    assert all(v.meaning and v.type and v.default is not None for v in environment.VARIABLES.values())
    assert "os.environ" in source


def test_an_undocumented_name_is_refused():
    import pytest

    with pytest.raises(KeyError, match="VARIABLES"):
        environment.raw("TOOLSEARCH_NOT_IN_THE_TABLE")


#: The readers of the MCP variables; :func:`environment.mcp_settings` builds the one settings object.
MCP_READERS = frozenset(
    {
        "mcp_timeout",
        "mcp_headers",
        "mcp_concurrency",
        "mcp_max_message_bytes",
        "mcp_max_exchange_bytes",
        "mcp_max_messages",
        "mcp_max_tools",
        "mcp_settings",
    }
)
#: Where the MCP settings are built: the environment module, the CLI at the edge (once per
#: command), and the library default outside any run (:func:`lenient.mcp_settings`).
MCP_BUILDERS = ("environment.py", "cli/load_report.py", "catalog/lenient.py")


def mcp_readers_used(package: Path) -> dict[str, list[str]]:
    """file -> the MCP readers of :mod:`environment` it uses (``environment.x`` or imported by name)."""
    found: dict[str, list[str]] = {}
    for path in sorted(package.rglob("*.py")):
        used: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "environment":
                if node.attr in MCP_READERS:
                    used.add(node.attr)
            elif isinstance(node, ast.ImportFrom) and (node.module or "").endswith("environment"):
                used.update(alias.name for alias in node.names if alias.name in MCP_READERS)
        if used:
            found[path.relative_to(package).as_posix()] = sorted(used)
    return found


def test_only_the_settings_builders_read_the_mcp_variables():
    # issue 33 item 2: the MCP client and transport receive the run's settings object
    # (LoadSettings.mcp), they never call the environment's readers themselves
    assert set(mcp_readers_used(PACKAGE)) <= set(MCP_BUILDERS), mcp_readers_used(PACKAGE)


def test_the_mcp_reader_check_finds_a_reader_called_elsewhere(tmp_path):
    (tmp_path / "one.py").write_text("from . import environment\nT = environment.mcp_timeout()\n")
    (tmp_path / "two.py").write_text("from .environment import mcp_max_tools as limit\n")
    (tmp_path / "three.py").write_text("from . import environment\nNAME = environment.MCP_TIMEOUT\n")
    assert mcp_readers_used(tmp_path) == {"one.py": ["mcp_timeout"], "two.py": ["mcp_max_tools"]}
