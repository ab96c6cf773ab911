"""The core never imports typer or rich (only toolsearch_cli/cli/ does), so it stays light."""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys

import toolsearch_cli


def core_modules() -> list[str]:
    names = []
    for info in pkgutil.walk_packages(toolsearch_cli.__path__, "toolsearch_cli."):
        if not info.name.startswith("toolsearch_cli.cli") and info.name != "toolsearch_cli.__main__":
            names.append(info.name)
    return names


def test_core_modules_import_neither_typer_nor_rich():
    modules = core_modules()
    assert "toolsearch_cli.search.bm25f" in modules and "toolsearch_cli.catalog.yaml_loader" in modules
    code = (
        "import importlib, json, sys\n"
        f"for name in {modules!r}: importlib.import_module(name)\n"
        "from toolsearch_cli import load_catalog, search\n"
        f"search(load_catalog({str(toolsearch_cli.catalog.bundled_catalog_path())!r}), 'weather')\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('typer', 'rich', 'click'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []


def test_the_cli_package_is_what_brings_them_in():
    code = "import sys, toolsearch_cli.cli.app; print('typer' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"
