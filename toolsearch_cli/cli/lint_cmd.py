"""``toolsearch lint`` (tool-metadata lint for CI) and ``toolsearch rule`` (the rules' documentation).

The lint engine is imported inside the commands, so other commands do not pay for it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from .. import environment
from .lock_cmd import LOCKED_OPTION
from .options import (
    EmbedApiKeyEnv,
    EmbedBaseUrl,
    EmbedDocumentPrefix,
    EmbedModel,
    EmbedMultilingual,
    EmbedQueryPrefix,
    EmbedTimeout,
    EmbedWeight,
    embed_settings,
    output_file,
)

if TYPE_CHECKING:
    from ..lint.run import LintReport

PATHS_ARGUMENT = typer.Argument(
    None,
    help=f"Catalog files, folders or modules. Default: ${environment.CATALOG}, else ./catalogs, else the demo.",
    metavar="[PATH]...",
)
CONFIG_OPTION = typer.Option(
    None,
    "--config",
    help="pyproject.toml or .toolsearch.yaml. Default: the nearest one with lint settings.",
    metavar="FILE",
)
SELECT_OPTION = typer.Option(
    None, "--select", help="Rules to run (codes, prefixes, names); comma list.", metavar="RULES"
)
EXTEND_SELECT_OPTION = typer.Option(None, "--extend-select", help="Rules to add to the selection.", metavar="RULES")
IGNORE_OPTION = typer.Option(None, "--ignore", help="Rules to skip.", metavar="RULES")
OUTPUT_FILE_OPTION = typer.Option(
    None,
    "--output-file",
    "-o",
    help="Write the report to this file.",
    metavar="FILE",
    callback=output_file("--output-file"),
)


FORMAT_OPTION = typer.Option(
    "auto",
    "--format",
    "-f",
    help="text, json, github, sarif, or auto (github under GitHub Actions, else text).",
    metavar="FORMAT",
)
ISOLATED_OPTION = typer.Option(False, "--isolated", help="Ignore configuration files.")
PRESET_OPTION = typer.Option(None, "--preset", help="Rule preset: default or strict.", metavar="NAME")
STRICT_OPTION = typer.Option(False, "--strict", help="Any finding fails (exit 1); same as --fail-on info.")
FAIL_ON_OPTION = typer.Option(
    None,
    "--fail-on",
    help="Exit 1 on findings at or above this level: error (default), warning or info.",
    metavar="LEVEL",
)
EXIT_ZERO_OPTION = typer.Option(False, "--exit-zero", help="Exit 0 even when there are findings.")
STATISTICS_OPTION = typer.Option(False, "--statistics", help="Count findings per rule instead of listing them.")
RANKER_OPTION = typer.Option(
    None,
    "--ranker",
    "-r",
    help="Ranker of the findability rules (TS6xx), e.g. hybrid; overrides their configured ranker.",
    metavar="NAME",
)


def lint(
    typer_context: typer.Context,
    paths: list[str] | None = PATHS_ARGUMENT,
    output_format: str = FORMAT_OPTION,
    config: Path | None = CONFIG_OPTION,
    isolated: bool = ISOLATED_OPTION,
    preset: str | None = PRESET_OPTION,
    select: list[str] | None = SELECT_OPTION,
    extend_select: list[str] | None = EXTEND_SELECT_OPTION,
    ignore: list[str] | None = IGNORE_OPTION,
    strict: bool = STRICT_OPTION,
    fail_on: str | None = FAIL_ON_OPTION,
    exit_zero: bool = EXIT_ZERO_OPTION,
    output_file: str | None = OUTPUT_FILE_OPTION,
    statistics: bool = STATISTICS_OPTION,
    ranker: str | None = RANKER_OPTION,
    locked: str | None = LOCKED_OPTION,
    embed_model: EmbedModel = None,
    embed_base_url: EmbedBaseUrl = None,
    embed_api_key_env: EmbedApiKeyEnv = "OPENAI_API_KEY",
    embed_multilingual: EmbedMultilingual = False,
    embed_timeout: EmbedTimeout = None,
    embed_query_prefix: EmbedQueryPrefix = None,
    embed_document_prefix: EmbedDocumentPrefix = None,
    embed_weight: EmbedWeight = None,
) -> None:
    """Lint tool metadata: names, descriptions, parameters, categories, tokens and findability."""
    from ..catalog.sources import parse_sources
    from ..lint.run import run_lint
    from ..lint.settings import LintSettings
    from ..report import REPORTER_BY_NAME
    from .lint_progress import lint_progress
    from .render import warn

    embed = embed_settings(typer_context)
    settings = LintSettings(
        paths=parse_sources(paths),  # the one place the paths' text is read
        output_format=output_format,
        config=config,
        isolated=isolated,
        preset=preset,
        select=select,
        extend_select=extend_select,
        ignore=ignore,
        strict=strict,
        fail_on=fail_on,
        exit_zero=exit_zero,
        statistics=statistics,
        ranker=ranker,
        locked=locked,
        github_actions=os.environ.get("GITHUB_ACTIONS") == "true",
        embed=embed,
    )
    with lint_progress(settings.format) as progress:  # a bar on a terminal, for a large catalog
        report = run_lint(settings, warn=warn, reporters=REPORTER_BY_NAME, progress=progress)
    _show(report, output_file)
    if report.exit_code:
        raise typer.Exit(report.exit_code)


def _show(report: LintReport, output_file: str | None) -> None:
    """The report in its format, on stdout or into ``output_file``."""
    if report.settings.format != "text":
        text = report.render()
        if output_file is None:
            typer.echo(text, nl=False)
        else:
            _write_report(output_file, text)
        return
    import io

    from .lint_render import render_lint_report
    from .render import console

    if output_file is None:
        render_lint_report(console(), report)
        return
    buffer = io.StringIO()
    render_lint_report(console(buffer), report)
    _write_report(output_file, buffer.getvalue())


def _write_report(path: str, text: str) -> None:
    """Write the report file; an unwritable path is a one-line error (exit 2), not a traceback."""
    from ..errors import UsageError
    from ..files import write_text_atomic

    write_text_atomic(path, text, what="the report", error=UsageError, field="output-file")


def rule(
    code: str | None = typer.Argument(None, help="A rule code (TS101) or name (invalid-tool-name); none lists all."),
) -> None:
    """Show a lint rule's documentation, or list every rule."""
    from ..lint.config import rule_code
    from ..lint.rules import RULE_BY_CODE, load_rule_plugins
    from .lint_render import render_rule_doc, render_rule_table
    from .render import console

    load_rule_plugins()
    if code is None:
        render_rule_table(console(), RULE_BY_CODE)
        return
    render_rule_doc(console(), RULE_BY_CODE[rule_code(code, RULE_BY_CODE, "toolsearch rule")])
