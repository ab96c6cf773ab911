"""The docs page of the HTML reports (docs/how-to/reports.md): its commands run as shown, and its
charts are drawn at build time (docs/_hooks/reports.py) from the runs' own figures."""

from __future__ import annotations

import importlib.util
import json
import re
import shlex

import pytest

from ..conftest import ROOT
from .parse import parse, value_of

PAGE = ROOT / "docs" / "how-to" / "reports.md"


def hook():
    spec = importlib.util.spec_from_file_location("reports_hook", ROOT / "docs" / "_hooks" / "reports.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def commands() -> list[list[str]]:
    blocks = re.findall(r"```console\n(.*?)\n```", PAGE.read_text(encoding="utf-8"), re.S)
    return [shlex.split(line[2:]) for block in blocks for line in block.splitlines() if line.startswith("$ ")]


@pytest.mark.parametrize("argv", commands(), ids=lambda argv: argv[1])
def test_the_pages_commands_write_their_reports(run_cli, monkeypatch, tmp_path, argv):
    monkeypatch.chdir(ROOT)  # the shipped catalogs and scenarios, as in a clone
    assert argv[0] == "toolsearch"
    at = argv.index("--report") + 1
    argv[at] = str(tmp_path / argv[at])
    result = run_cli(*argv[1:])
    assert result.code == 0, result.stderr
    assert parse((tmp_path / argv[at]).read_text(encoding="utf-8")).charts("line")


def test_every_mark_of_the_page_becomes_its_chart():
    text = PAGE.read_text(encoding="utf-8")
    marks = re.findall(r"<!-- report-chart: ([a-z-]+) -->", text)
    assert marks == ["eval-recall", "eval-mrr", "simulate-tokens", "simulate-timeline"]
    rendered = hook().render(text)
    assert "report-chart:" not in rendered
    page = parse(rendered)
    assert len(page.all("svg")) == 4
    # no blank line inside a chart: Markdown would end the raw HTML block there
    for block in re.findall(r'<div class="report-chart">\n(.*?)\n</div>', rendered, re.S):
        assert "\n\n" not in block


def test_the_recall_chart_of_the_docs_is_the_demo_catalogs_eval(run_cli):
    page = parse(hook().chart("eval-recall"))
    points = {t.split(" → ")[0]: value_of(t) for t in page.tooltips("circle")}
    metrics = run_cli("eval", "-c", str(ROOT / "catalogs" / "demo"), "-r", "default,classic", "-f", "json")
    for ranker, values in json.loads(metrics.stdout)["rankers"].items():
        for k in (1, 5, 10):
            assert points[f"{ranker}: k {k}"] == pytest.approx(values[f"recall@{k}"], abs=5e-4)


def test_an_unknown_chart_fails_the_build():
    with pytest.raises(KeyError):
        hook().render("<!-- report-chart: no-such-chart -->")
