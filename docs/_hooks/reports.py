"""MkDocs hook: the charts of the HTML reports (issue 36), drawn when the site is built.

A page's ``<!-- report-chart: NAME -->`` is replaced by that chart, made by the very code that
draws ``toolsearch eval --report`` and ``toolsearch simulate --report``
(:mod:`toolsearch_cli.htmlreport`) from a run made here, on the shipped demo catalog:

- ``eval-recall``: recall@k per ranker (default, classic) on the demo catalog's examples;
- ``eval-mrr``: MRR per query set (the tools' categories) of the same run;
- ``simulate-tokens``: tool tokens per request of ``catalogs/scenarios/weather-email.en.sim.yaml``
  under both policies, against sending all tools;
- ``simulate-timeline``: the tools each request of that scenario carried (policy latest).

Nothing is drawn by hand and nothing is stored: each build runs the eval and the simulation.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
MARK = re.compile(r"<!-- report-chart: ([a-z-]+) -->")
DEMO = ROOT / "catalogs" / "demo"
SCENARIO = ROOT / "catalogs" / "scenarios" / "weather-email.en.sim.yaml"


@lru_cache(maxsize=1)
def _eval_report() -> Any:
    from toolsearch_cli.evaluate import EvalSettings, run_eval

    return run_eval(EvalSettings.from_options(ranker="default,classic", catalog=[str(DEMO)], by="category"))


@lru_cache(maxsize=1)
def _simulation() -> Any:
    from toolsearch_cli.simulate import SimulateSettings, run_simulation

    return run_simulation(SimulateSettings(script=str(SCENARIO), policy="latest,cumulative"))


def chart(name: str) -> str:
    """The SVG of one chart by name (a KeyError for an unknown one: the build fails, strict)."""
    from toolsearch_cli.htmlreport import eval_page, simulate_page
    from toolsearch_cli.htmlreport.svg import bar_chart

    if name == "eval-recall":
        return eval_page.recall_svg(_eval_report(), title="Recall@k on the demo catalog's examples")
    if name == "eval-mrr":
        report = _eval_report()
        groups = report.breakdown()
        names = sorted(groups)
        series = [(r, [groups[g][r]["mrr"] for g in names]) for r in report.metrics]
        return bar_chart(names, series, title="MRR per category of the demo catalog", y_label="MRR", y_max=1.0)
    if name == "simulate-tokens":
        return simulate_page.tokens_svg(_simulation())
    if name == "simulate-timeline":
        return simulate_page.timeline_svg(_simulation().transcripts[0])[0]
    raise KeyError(f"no report chart named {name!r} (docs/_hooks/reports.py)")


def render(markdown: str) -> str:
    """``markdown`` with each chart mark replaced by its SVG, in a block-level element (raw HTML)."""
    return MARK.sub(lambda m: f'<div class="report-chart">\n{chart(m.group(1))}\n</div>', markdown)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    return render(markdown) if MARK.search(markdown) else markdown
