"""Both reports opened in a real headless Chromium (Debian's package, driven over the DevTools
protocol by tests/browser.py): no console error, no load but the file itself, the charts in the
rendered DOM, and a screenshot kept in the test's folder. Skipped when no Chromium is installed."""

from __future__ import annotations

import pytest

from ..conftest import DEMO, ROOT

EN = ROOT / "catalogs" / "scenarios" / "weather-email.en.sim.yaml"

SVGS = "document.querySelectorAll('svg.chart').length"
DRAWN = "[...document.querySelectorAll('svg.chart')].filter(s => s.getBBox().width > 0).length"
MARKS = "document.querySelectorAll('svg.chart rect, svg.chart circle, svg.chart polyline').length"
ACTIVE = "document.querySelectorAll('script, img, iframe, object, embed, link, a[href]').length"
HANDLERS = (
    "[...document.querySelectorAll('*')].filter(e => [...e.attributes].some(a => a.name.startsWith('on'))).length"
)
TEXT = "document.body.innerText"
PNG = b"\x89PNG\r\n\x1a\n"


def opened(browser, path, shot):
    page = browser.load(path, evaluate=(SVGS, DRAWN, MARKS, ACTIVE, HANDLERS, TEXT), screenshot=shot)
    assert page.errors == [], page.errors
    assert page.requests == [path.resolve().as_uri()]  # nothing fetched but the file itself
    assert page.values[ACTIVE] == 0 and page.values[HANDLERS] == 0
    assert shot.read_bytes().startswith(PNG) and shot.stat().st_size > 10_000
    return page


def test_the_eval_report_renders_its_charts(browser, run_cli, tmp_path):
    report = tmp_path / "eval.html"
    assert run_cli("eval", "-c", str(DEMO), "-r", "default,classic", "--report", str(report)).code == 0
    page = opened(browser, report, tmp_path / "eval.png")
    assert page.values[SVGS] == 3 and page.values[DRAWN] == 3  # recall@k, MRR and NDCG per query set
    assert page.values[MARKS] > 40
    assert "Recall at every depth" in page.values[TEXT]


def test_the_simulate_report_renders_its_charts(browser, run_cli, tmp_path):
    report = tmp_path / "sim.html"
    assert run_cli("simulate", str(EN), "-p", "latest,cumulative", "--report", str(report)).code == 0
    page = opened(browser, report, tmp_path / "sim.png")
    # tool and request tokens, the prompt cache, a timeline per policy
    assert page.values[SVGS] == 5 and page.values[DRAWN] == 5
    assert "Prompt-cache prefix stability" in page.values[TEXT]


@pytest.mark.parametrize("kind", ["eval", "simulate"])
def test_hostile_text_stays_text_in_the_browser(browser, run_cli, hostile, tmp_path, kind):
    report = tmp_path / f"{kind}.html"
    args = (
        ["-c", str(hostile["catalog"]), "-q", str(hostile["queries"])] if kind == "eval" else [str(hostile["script"])]
    )
    assert run_cli(kind, *args, "--report", str(report)).code == 0
    page = opened(browser, report, tmp_path / f"{kind}.png")
    assert '<script>alert("s")</script>' in page.values[TEXT]  # shown, as the text it is
    assert "\\x1b[31mred" in page.values[TEXT] and "\\u202egnp.exe" in page.values[TEXT]


def test_the_checks_see_a_console_error_and_a_fetch(browser, tmp_path):
    """The harness is not blind: a script's console.error, an uncaught exception and a load from
    the network are each reported (the reports' own checks above could fail)."""
    page = tmp_path / "bad.html"
    page.write_text(
        "<!DOCTYPE html><html><body><p>x</p><img src='http://127.0.0.1:9/pixel.png'>"
        "<script>console.error('boom'); undefinedFunction();</script></body></html>",
        encoding="utf-8",
    )
    shown = browser.load(page)
    assert any("boom" in e for e in shown.console_errors)
    assert any("undefinedFunction" in e for e in shown.console_errors)
    assert "http://127.0.0.1:9/pixel.png" in shown.requests
