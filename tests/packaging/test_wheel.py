"""The wheel holds what the package reads at run time, and works away from the source tree.

The data files (the lexicon, the WordNet synonyms, the lint rules' patterns and model, the registry's
OpenAPI document) and the demo catalog are read with ``importlib.resources`` or beside the package;
several readers fall back quietly when a file is missing (WordNet then finds no synonym), so a file
left out of the wheel would show as worse rankings, not as an error. The wheel is built with the
project's own build backend (hatchling, as ``pip install .`` builds it), unpacked into an empty
folder, and a separate Python imports the package from there only (the source checkout is not on
its path) and reads every data file and runs ``toolsearch search`` on the shipped demo catalog.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("hatchling", reason="the project's build backend (the test extra installs it)")

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "toolsearch_cli"
DEMO = ROOT / "catalogs" / "demo"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run(
        [sys.executable, "-m", "hatchling", "build", "--target", "wheel", "--directory", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    (built,) = out.glob("toolsearch_cli-*.whl")
    return built


def _package_files() -> set[str]:
    """Every file of the package as the wheel should hold it (compiled and editor files aside)."""
    out = set()
    for path in PACKAGE.rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix not in (".pyc", ".pyo"):
            out.add(path.relative_to(ROOT).as_posix())
    return out


def test_the_wheel_holds_every_file_of_the_package_and_the_demo_catalog(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as zf:
        names = {n for n in zf.namelist() if not n.endswith("/")}
    missing = _package_files() - names
    assert not missing, f"left out of the wheel: {sorted(missing)}"
    demo = {f"toolsearch_cli/_catalogs/demo/{p.name}" for p in DEMO.iterdir() if p.is_file()}
    assert demo and demo <= names
    data = {n for n in names if n.startswith("toolsearch_cli/") and not n.endswith(".py")}
    # the files the readers below open, named here so that a rename is seen
    for name in (
        "toolsearch_cli/search/data/lexicon.txt",
        "toolsearch_cli/search/data/wordnet.tsv.gz",
        "toolsearch_cli/lint/data/ts206_model.tsv.gz",
        "toolsearch_cli/lint/data/ts206_intents.tsv",
        "toolsearch_cli/lint/data/injection/en.tsv",
        "toolsearch_cli/registry/openapi.json",
        "toolsearch_cli/py.typed",
    ):
        assert name in data


#: Run by a separate Python with only the unpacked wheel (and the venv's dependencies) on its path.
READERS = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import toolsearch_cli
assert toolsearch_cli.__file__.startswith(sys.argv[1]), toolsearch_cli.__file__
from toolsearch_cli.search import lexicon, wordnet
from toolsearch_cli.lint import injection_data, injection_model, injection_semantic
from toolsearch_cli.registry import http_api
from toolsearch_cli.catalog.sources.base import bundled_catalog_path
lines, start = wordnet._lines()
print(json.dumps({
    "package": toolsearch_cli.__file__,
    "wordnet_keys": len(lines) - start,
    "concepts": len(lexicon.concepts()),
    "injection_languages": len(injection_data.injection_data().languages),
    "model": injection_model.shipped_model() is not None,
    "intents": bool(injection_semantic.shipped_intents()),
    "openapi": http_api.openapi_document().get("openapi", ""),
    "demo": str(bundled_catalog_path()),
}))
"""


def _run(script: str, *args: str, cwd: Path) -> str:
    """A separate Python runs ``script`` with ``args`` in ``cwd`` (no toolsearch or Python settings
    of the caller's); its standard output, once it has exited 0."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TOOLSEARCH_", "PYTHON"))}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    done = subprocess.run(
        [sys.executable, "-c", script, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@pytest.fixture(scope="module")
def unpacked(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("site")
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(folder)
    return folder


def test_every_data_file_reads_from_the_unpacked_wheel(unpacked: Path, tmp_path: Path) -> None:
    found = json.loads(_run(READERS, str(unpacked), cwd=tmp_path))
    assert found["package"].startswith(str(unpacked))
    assert found["wordnet_keys"] > 20_000  # 28,564 keys in the shipped file
    assert found["concepts"] > 100
    assert found["injection_languages"] >= 7
    assert found["model"] and found["intents"]
    assert found["openapi"].startswith("3.")
    assert found["demo"] == str(unpacked / "toolsearch_cli" / "_catalogs" / "demo")


def test_toolsearch_search_runs_on_the_demo_catalog_inside_the_wheel(unpacked: Path, tmp_path: Path) -> None:
    # the README's first command, from a folder without ./catalogs: the demo catalog comes from the wheel
    script = (
        "import sys; sys.path.insert(0, sys.argv[1]); "
        "from toolsearch_cli.cli.app import main; "
        "sys.argv = ['toolsearch', 'search', sys.argv[2], '--format', 'json', '--max-results', '3']; main()"
    )
    hits = json.loads(_run(script, str(unpacked), "查询城市天气", cwd=tmp_path))["hits"]
    assert [hit["name"] for hit in hits][:1] == ["getWeather"] and len(hits) == 3
