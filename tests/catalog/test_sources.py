"""Typed catalog sources (issue 33, item 1): a string is parsed once into a :class:`Source` of one
kind, and everything after works on the parsed source."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pytest

from toolsearch_cli.catalog import load_catalog, load_catalog_result, parse_source, parse_sources
from toolsearch_cli.catalog.result import LoadResult
from toolsearch_cli.catalog.sources import (
    FileSource,
    FolderSource,
    LiveServer,
    ModuleSource,
    Source,
    SourceKind,
    register_kind,
    source_kinds,
    split_env_sources,
)
from toolsearch_cli.errors import CatalogError
from toolsearch_cli.model import Tool
from toolsearch_cli.registry.kind import RegistryCatalogSource

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "catalogs" / "demo"


def test_each_kind_is_parsed_from_its_text_once():
    parsed = parse_sources(
        [
            str(DEMO),
            str(DEMO / "email.yaml"),
            str(ROOT / "catalogs" / "python" / "ops_tools.py"),
            "some_package.tools",
            "w=mcp+stdio:python server.py",
            "mcp+https://user:pw@h.example/mcp",
            "reg=postgresql://u:secret@db.example/tools?namespace=team",
        ]
    )
    assert [type(s) for s in parsed] == [
        FolderSource,
        FileSource,
        ModuleSource,
        ModuleSource,
        LiveServer,
        LiveServer,
        RegistryCatalogSource,
    ]
    assert [s.kind for s in parsed] == ["folder", "file", "module", "module", "live", "live", "registry"]
    assert all(isinstance(s, Source) for s in parsed)
    assert [s.runs_code for s in parsed] == [
        None,
        None,
        "imports a Python file",
        "imports a Python module",
        "starts the program 'python'",
        None,
        None,
    ]
    shown = [s.shown for s in parsed]
    assert shown[5] == "mcp+https://***@h.example/mcp" and "secret" not in shown[6] and "pw" not in shown[5]
    assert shown[6] == "reg=postgresql://***@db.example/tools?namespace=team"
    assert parse_source(parsed[0]) is parsed[0]  # a parsed source is never parsed again


def test_a_source_named_twice_is_kept_once_and_none_means_the_default(tmp_path, monkeypatch):
    assert len(parse_sources([str(DEMO), str(DEMO)])) == 1
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TOOLSEARCH_CATALOG", raising=False)
    (default,) = parse_sources(None)
    assert isinstance(default, FolderSource) and Path(default.text).name == "demo"  # the bundled demo


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("missing.yaml", "missing.yaml: no such file"),
        ("missing.py", "missing.py: no such file"),
        ("not a module", "not a module: no such file, folder or importable module"),
        ("mcp+stdio:", "mcp+stdio:: no server command after 'mcp+stdio:'"),
    ],
)
def test_a_bad_source_is_a_one_line_error_when_parsed(tmp_path, monkeypatch, text, message):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(CatalogError) as caught:
        parse_source(text)
    assert str(caught.value) == message


def test_the_registry_kind_joins_its_url_pieces_in_the_variable():
    value = "catalogs/demo:postgresql://u:pw@db.example:5432/tools?namespace=t:w=mcp+http://127.0.0.1:8000/mcp"
    assert split_env_sources(value, ":") == [
        "catalogs/demo",
        "postgresql://u:pw@db.example:5432/tools?namespace=t",
        "w=mcp+http://127.0.0.1:8000/mcp",
    ]
    assert [k.name for k in source_kinds()][:2] == ["live", "registry"]  # tried before the file system


@dataclass(frozen=True)
class _MemorySource:
    """A kind the catalog package has never heard of: tools held in memory."""

    kind: ClassVar[str] = "memory"
    text: str

    @property
    def shown(self) -> str:
        return self.text

    @property
    def runs_code(self) -> str | None:
        return None

    def cache_files(self) -> list[Path]:
        return []

    def load(self, catalog_format: str | None = None, *, prefix: bool = False) -> LoadResult:
        name = self.text.removeprefix("memory:")
        return LoadResult(tools=[Tool(name=name, description=f"The {name} tool, from memory.")])


@pytest.fixture
def memory_kind():
    register_kind(SourceKind("memory", lambda text: _MemorySource(text) if text.startswith("memory:") else None))
    yield
    from toolsearch_cli.catalog.sources import base

    base._KINDS[:] = [k for k in base._KINDS if k.name != "memory"]


def test_a_registered_kind_loads_through_every_loader(memory_kind, tmp_path):
    """The loaders dispatch on the parsed source, not on its text: a kind registered from outside
    loads through load_catalog, its cache and lint without the catalog package knowing it."""
    from toolsearch_cli.lint import lint

    catalog = load_catalog(["memory:getTide", str(DEMO / "weather.yaml")])
    assert catalog.tools[0].name == "getTide" and catalog.sources[0] == "memory:getTide"
    loaded = load_catalog_result([parse_source("memory:getTide")], cache=True)
    assert loaded.cache_key is None  # a kind with no files is never cached with them
    result = lint(["memory:getTide"])
    assert "memory:getTide" in result.files


def test_the_serve_settings_parse_their_sources_once():
    from toolsearch_cli.serve.gateway import Settings
    from toolsearch_cli.serve.server import GatewaySources

    settings = Settings(sources=[str(DEMO), "a=mcp+stdio:python a.py", str(DEMO), "postgresql://h/db?namespace=n"])
    assert [s.kind for s in settings.sources] == ["folder", "live", "registry"]
    by_use = GatewaySources.of(settings.sources)
    assert [s.kind for s in by_use.live] == ["live"] and [s.kind for s in by_use.registries] == ["registry"]
    assert [s.kind for s in by_use.static] == ["folder"] and [s.kind for s in by_use.not_live] == ["folder", "registry"]
    assert Settings(sources=[]).sources == []  # none named: none (not the default catalog)


def test_a_path_object_is_a_source_too():
    assert isinstance(parse_source(DEMO), FolderSource)
    assert [t.name for t in load_catalog(DEMO / "weather.yaml").tools] == [
        t.name for t in load_catalog(os.fspath(DEMO / "weather.yaml")).tools
    ]


@pytest.mark.parametrize("face", ["catalog/__init__.py", "catalog/sources/__init__.py"])
def test_the_package_faces_only_re_export(face):
    """``catalog/__init__.py`` was 524 lines of loading logic; now its modules hold it."""
    import ast

    tree = ast.parse((ROOT / "toolsearch_cli" / face).read_text(encoding="utf-8"))
    kinds = {type(node).__name__ for node in tree.body}
    assert kinds <= {"Expr", "ImportFrom", "Assign"}, kinds  # docstring, imports, __all__
    assigned = [t.id for node in tree.body if isinstance(node, ast.Assign) for t in node.targets]  # type: ignore[attr-defined]
    assert assigned == ["__all__"]
