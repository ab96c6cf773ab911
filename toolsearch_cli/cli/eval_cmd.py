"""``toolsearch eval``: retrieval quality of one or more rankers on a labelled query set.

Options -> :class:`~toolsearch_cli.evaluate.EvalSettings` -> :func:`~toolsearch_cli.evaluate.run_eval`
(loads, runs, compares, gates and saves; progress and warnings through an ``EvalListener``) ->
a table, or JSON from :meth:`EvalReport.to_dict`. Exit 0, 1 when a ``--min`` gate fails, 2 for bad input.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from ..printable import json_visible
from .options import (
    CatalogFormat,
    CatalogSources,
    EmbedApiKeyEnv,
    EmbedBaseUrl,
    EmbedDocumentPrefix,
    EmbedModel,
    EmbedMultilingual,
    EmbedQueryPrefix,
    EmbedTimeout,
    EmbedWeight,
    OutputFormat,
    check_catalog_format,
    check_format,
    embed_settings,
    output_file,
    report_option,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from rich.console import Console
    from rich.progress import Progress

    from ..evaluate import EvalListener, EvalReport

QUERIES_OPTION = typer.Option(
    None,
    "--queries",
    "-q",
    help="Labelled queries: YAML, JSON or JSONL list of {id, query, relevant: [names], subset?}. "
    "Default: every example of every searchable tool, expecting that tool.",
    metavar="FILE",
)
FROM_LOG_OPTION = typer.Option(
    None,
    "--from-log",
    help="Labelled queries from a `toolsearch serve --log` file: each search followed by a call of a "
    "catalog tool becomes {query, relevant: [that tool]}. Use the catalog the gateway served.",
    metavar="FILE",
)
SAVE_OPTION = typer.Option(
    None,
    "--save",
    help="Write the run (metrics and every query's ranks) as JSON.",
    metavar="FILE",
    callback=output_file("--save"),
)
BASELINE_OPTION = typer.Option(
    None,
    "--baseline",
    help="Compare with a run saved by --save: metric deltas and queries that moved out of / into the top k.",
    metavar="FILE",
)
MIN_OPTION = typer.Option(
    None,
    "--min",
    help="CI gate [RANKER:]METRIC=VALUE, e.g. recall@5=0.8 (repeatable); exit 1 when one fails.",
    metavar="GATE",
)


RANKER_OPTION = typer.Option(
    "default", "--ranker", "-r", help="Rankers to compare, comma-separated (or 'all').", metavar="NAMES"
)
K_OPTION = typer.Option("1,5,10", "--k", help="Cut-offs for Recall@k and NDCG@k, comma-separated.", metavar="K,..")
CATEGORY_FIELD_OPTION = typer.Option(
    None,
    "--category-field",
    help="Query field whose value is passed to search as the category filter (queries without it "
    "search the whole catalog). With examples as queries, 'category' is the tool's own category.",
    metavar="FIELD",
)
BY_OPTION = typer.Option(
    None, "--by", help="Also break the metrics down by a query field, e.g. subset.", metavar="FIELD"
)
FAILURES_OPTION = typer.Option(
    0, "--failures", help="List the N worst misses and what ranked above the expected tool.", metavar="N", min=0
)
REPORT_OPTION = report_option(
    "recall@k curves per ranker, MRR and NDCG per query set (--by, else subset), the misses with the rank "
    "where the expected tool landed and the fields the top hit matched, and the deltas against --baseline"
)
DIFF_K_OPTION = typer.Option(
    None,
    "--diff-k",
    help="The k of the baseline diff (default 5 if measured, else the largest k).",
    min=1,
    metavar="K",
)


def eval_command(
    typer_context: typer.Context,
    catalog: CatalogSources = None,
    queries: Path | None = QUERIES_OPTION,
    from_log: Path | None = FROM_LOG_OPTION,
    ranker: str = RANKER_OPTION,
    ks: str = K_OPTION,
    category_field: str | None = CATEGORY_FIELD_OPTION,
    by: str | None = BY_OPTION,
    failures: int = FAILURES_OPTION,
    save: str | None = SAVE_OPTION,
    baseline: Path | None = BASELINE_OPTION,
    diff_k: int | None = DIFF_K_OPTION,
    html_report: str | None = REPORT_OPTION,
    minimum: list[str] | None = MIN_OPTION,
    output_format: OutputFormat = "table",
    catalog_format: CatalogFormat = "auto",
    embed_model: EmbedModel = None,
    embed_base_url: EmbedBaseUrl = None,
    embed_api_key_env: EmbedApiKeyEnv = "OPENAI_API_KEY",
    embed_multilingual: EmbedMultilingual = False,
    embed_timeout: EmbedTimeout = None,
    embed_query_prefix: EmbedQueryPrefix = None,
    embed_document_prefix: EmbedDocumentPrefix = None,
    embed_weight: EmbedWeight = None,
) -> None:
    """Measure retrieval quality (Recall@k, NDCG@k, MRR) of rankers on labelled queries."""
    from ..catalog.sources import parse_sources
    from ..evaluate import EvalSettings, run_eval

    embed = embed_settings(typer_context)
    check_format(output_format)
    forced_format = check_catalog_format(catalog_format)
    settings = EvalSettings.from_options(
        ranker=ranker,
        ks=ks,
        minimum=minimum or [],
        catalog=parse_sources(catalog),  # the one place the --catalog text is read
        catalog_format=forced_format,
        queries=queries,
        from_log=from_log,
        category_field=category_field,
        by=by,
        failures=failures,
        save=save,
        baseline=baseline,
        diff_k=diff_k,
        embed=embed,
    )
    report = run_eval(settings, _listener(output_format))
    if output_format == "json":
        typer.echo(json_visible(json.dumps(report.to_dict(), ensure_ascii=False, indent=2)))
    else:
        from .eval_render import render_report
        from .render import console

        render_report(console(), report)
    _finish(report, html_report)
    if not report.passed:
        raise typer.Exit(1)


def _finish(report: EvalReport, html_report: str | None) -> None:
    """After the output: the HTML report written (``--report``), then on stderr a baseline of
    another model, the files written, the gates."""
    from .eval_render import render_gates
    from .render import error_console

    if html_report is not None:
        from ..htmlreport import eval_html, write_report

        write_report(html_report, eval_html(report))
    err = error_console()
    notice = report.baseline_warning()
    if notice is not None:
        err.print(f"warning: {notice}", markup=False)
    if report.settings.save is not None:
        err.print(f"saved the run to {report.settings.save}", markup=False)
    if html_report is not None:
        err.print(f"wrote the report to {html_report}", markup=False)
    if report.gates:
        render_gates(err, report.gates)


def _listener(output_format: str) -> EvalListener:
    """Warnings and notes on stderr; a progress bar there when it is a terminal that can redraw."""
    from ..evaluate import EvalListener
    from .render import data, error_console, warn

    class CliListener(EvalListener):
        """Prints what the run says; draws each ranker's queries as a bar on an interactive stderr
        (or with FORCE_COLOR), never on a dumb one (``TERM=dumb`` cannot redraw a line). A model
        embedding many texts (a first run) adds its own line to the bar (not with JSON output)."""

        def __init__(self) -> None:
            self.err = error_console()
            self.progress: Progress | None = None

        def warning(self, message: str) -> None:
            warn(message)

        def note(self, message: str) -> None:
            self.err.print(data(message))

        @contextmanager
        def running(self) -> Iterator[None]:
            if not self.err.is_terminal or self.err.is_dumb_terminal:
                yield
                return
            from .embed_progress import embed_progress

            with _query_bar(self.err) as progress, embed_progress(output_format, progress):
                self.progress = progress
                try:
                    yield
                finally:
                    self.progress = None

        def ranker_started(self, ranker: str, queries: int) -> Callable[[], None] | None:
            progress = self.progress
            if progress is None:
                return None
            task = progress.add_task(f"eval {ranker}", total=queries)
            return lambda: progress.advance(task)

    return CliListener()


def _query_bar(err: Console) -> Progress:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    return Progress(
        TextColumn("{task.description}", markup=False),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=err,
        transient=True,
    )
