"""Shared fixtures: run the CLI in-process and capture exit code, stdout and stderr together."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from toolsearch_cli import Tool
from toolsearch_cli.cli.app import main

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "catalogs" / "demo"
SHARED = ROOT.parent / "shared"


@dataclass
class Result:
    code: int
    stdout: str
    stderr: str

    def json(self):
        return json.loads(self.stdout)


@pytest.fixture
def run_cli(capsys, monkeypatch):
    """Run ``toolsearch ARGS`` in-process; returns exit code, stdout and stderr."""
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.delenv("TOOLSEARCH_CATALOG", raising=False)

    def run(*args: str) -> Result:
        capsys.readouterr()
        try:
            main(list(args))
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        out, err = capsys.readouterr()
        return Result(code, out, err)

    return run


@pytest.fixture
def write(tmp_path):
    """Write a text file under tmp_path and return its path."""

    def write_file(name: str, text: str) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    return write_file


def make(name, description="", category=None, tags=(), params=None) -> Tool:
    """A tool in the reference's shorthand: name / description / category / tags / params."""
    return Tool(
        name=name,
        description=description,
        category=category,
        tags=list(tags),
        parameters={"type": "object", "properties": params or {}},
    )


@pytest.fixture(autouse=True)
def _private_catalog_cache(tmp_path_factory, monkeypatch):
    """Each test session gets its own on-disk catalog cache (never the user's ~/.cache)."""
    monkeypatch.setenv("TOOLSEARCH_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "catalog-cache"))
