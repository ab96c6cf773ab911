"""A missing optional package is one line with an install command that works: toolsearch-cli is not on
PyPI, so "pip install 'toolsearch-cli[hub]'" (what these errors said before the issue-19 audit) fails for
every user; the package itself does install from PyPI, and the extra from a clone."""

from __future__ import annotations

import sys

import pytest

from toolsearch_cli.search import embed, embed_settings

from ..conftest import DEMO
from .conftest import STATIC


@pytest.fixture(autouse=True)
def _clean(monkeypatch):
    monkeypatch.delenv(embed_settings.MODEL_VAR, raising=False)
    embed._embedders.clear()
    yield
    embed._embedders.clear()


def _hint(result) -> str:
    assert (result.code, result.stdout) == (2, "")
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert "toolsearch-cli[" not in lines[0]  # not on PyPI: that command cannot work
    return lines[0]


@pytest.mark.parametrize(
    "argv",
    [
        ["model", "pull", "sentence-transformers/all-MiniLM-L6-v2"],
        ["model", "list"],
        [
            "search",
            "weather",
            "-c",
            str(DEMO),
            "-r",
            "hybrid",
            "--embed-model",
            "sentence-transformers/all-MiniLM-L6-v2",
        ],
    ],
    ids=["pull", "list", "search"],
)
def test_without_the_hub_client_the_hint_installs_it(run_cli, monkeypatch, argv):
    monkeypatch.setitem(sys.modules, "huggingface_hub", None)  # not installed
    line = _hint(run_cli(*argv))
    assert "pip install huggingface_hub" in line and "pip install -e '.[hub]'" in line


def test_without_model2vec_the_hint_installs_it(run_cli, monkeypatch):
    pytest.importorskip("model2vec")
    monkeypatch.setitem(sys.modules, "model2vec", None)  # not installed
    line = _hint(run_cli("search", "weather", "-c", str(DEMO), "-r", "hybrid", "--embed-model", str(STATIC)))
    assert "needs model2vec, which is not installed: pip install model2vec" in line
    assert "pip install -e '.[embed]'" in line
