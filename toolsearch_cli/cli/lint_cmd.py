"""``toolsearch lint`` (tool-metadata lint for CI) and ``toolsearch rule`` (the rules' documentation).

The lint engine is imported inside the commands, so other commands do not pay for it.
"""

from __future__ import annotations

import os
from pathlib import Path

import typer

from .options import embed_options, output_file

LINT_FORMATS = ("text", "json", "github", "sarif", "auto")


def _split(values: list[str] | None) -> list[str] | None:
    if values is None:
        return None
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


PATHS_ARGUMENT = typer.Argument(
    None,
    help="Catalog files, folders or modules. Default: $TOOLSEARCH_CATALOG, else ./catalogs, else the demo.",
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


@embed_options
def lint(
    paths: list[str] | None = PATHS_ARGUMENT,
    output_format: str = typer.Option(
        "auto",
        "--format",
        "-f",
        help="text, json, github, sarif, or auto (github under GitHub Actions, else text).",
        metavar="FORMAT",
    ),
    config: Path | None = CONFIG_OPTION,
    isolated: bool = typer.Option(False, "--isolated", help="Ignore configuration files."),
    preset: str | None = typer.Option(None, "--preset", help="Rule preset: default or strict.", metavar="NAME"),
    select: list[str] | None = SELECT_OPTION,
    extend_select: list[str] | None = EXTEND_SELECT_OPTION,
    ignore: list[str] | None = IGNORE_OPTION,
    strict: bool = typer.Option(False, "--strict", help="Any finding fails (exit 1); same as --fail-on info."),
    fail_on: str | None = typer.Option(
        None,
        "--fail-on",
        help="Exit 1 on findings at or above this level: error (default), warning or info.",
        metavar="LEVEL",
    ),
    exit_zero: bool = typer.Option(False, "--exit-zero", help="Exit 0 even when there are findings."),
    output_file: str | None = OUTPUT_FILE_OPTION,
    statistics: bool = typer.Option(False, "--statistics", help="Count findings per rule instead of listing them."),
    ranker: str | None = typer.Option(
        None,
        "--ranker",
        "-r",
        help="Ranker of the findability rules (TS6xx), e.g. hybrid; overrides their configured ranker.",
        metavar="NAME",
    ),
) -> None:
    """Lint tool metadata: names, descriptions, parameters, categories, tokens and findability."""
    from ..errors import UsageError, did_you_mean
    from ..lint import LintConfig, find_config, load_config
    from ..lint import lint as run_lint
    from ..lint.rules import RULE_BY_CODE

    if output_format not in LINT_FORMATS:
        raise UsageError(
            f"unknown format {output_format!r}{did_you_mean(output_format, LINT_FORMATS)}; "
            f"choose from {', '.join(LINT_FORMATS)}"
        )
    from ..lint.diagnostic import SEVERITIES, Severity

    level: Severity | None = next((s for s in SEVERITIES if s == fail_on), None)
    if fail_on is not None and level is None:
        raise UsageError(
            f"unknown --fail-on level {fail_on!r}{did_you_mean(fail_on, SEVERITIES)}; "
            f"choose from {', '.join(SEVERITIES)}"
        )
    if statistics and output_format not in ("text", "auto"):
        raise UsageError(f"--statistics prints a text table; it cannot be combined with --format {output_format}")
    if output_format == "auto":
        # the statistics table is text, also under GitHub Actions
        output_format = "github" if os.environ.get("GITHUB_ACTIONS") == "true" and not statistics else "text"
    from .render import warn

    settings = LintConfig() if isolated else load_config(config or find_config(warn=warn))
    if ranker is not None:  # every rule with a ranker option (the findability rules) uses this one
        for code, lint_rule in RULE_BY_CODE.items():
            if "ranker" in lint_rule.options:
                settings.rules.setdefault(code, {})["ranker"] = ranker
    overrides: dict[str, object] = {}
    if preset is not None:
        overrides["preset"] = preset
    for key, value in (("select", select), ("extend-select", extend_select), ("ignore", ignore)):
        if value is not None:
            overrides[key] = _split(value)
    if overrides:
        merged = LintConfig.from_mapping(overrides, origin="command line")
        settings.preset = merged.preset if preset is not None else settings.preset
        if select is not None:
            settings.select = merged.select
        settings.extend_select = [*settings.extend_select, *merged.extend_select]
        settings.ignore = [*settings.ignore, *merged.ignore]
    result = run_lint(paths or None, settings)

    if output_format == "text":
        import io

        from .lint_render import render_lint_statistics, render_lint_text
        from .render import console

        buffer = io.StringIO()
        out = console(buffer if output_file is not None else None)
        if statistics:
            render_lint_statistics(out, result)
        else:
            render_lint_text(out, result, strict, level)
        if output_file is not None:
            _write_report(output_file, buffer.getvalue())
    else:
        from ..report import REPORTER_BY_NAME

        text = REPORTER_BY_NAME[output_format](result.diagnostics, RULE_BY_CODE)
        if output_file is not None:
            _write_report(output_file, text)
        else:
            typer.echo(text, nl=False)
    if result.failed(strict=strict, fail_on=level) and not exit_zero:
        raise typer.Exit(1)


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
