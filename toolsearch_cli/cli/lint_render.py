"""Rich rendering of lint results (grouped by file, with a summary) and of the rules' documentation."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Console
from rich.text import Text

from .render import Col, data, plural, render_table

_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}
#: The longest run without a space a text line shows whole (a catalog may name a tool or a
#: parameter with 5,000 characters; the message quotes it again): longer runs lose their middle.
_RUN_WIDTH = 100


def _short(text: str) -> str:
    from ..errors import _middle

    return _middle(text, _RUN_WIDTH)


def _short_runs(text: str) -> str:
    """``text`` with every run of more than :data:`_RUN_WIDTH` non-space characters cut in the
    middle (``nnnn...ZZZZ``); JSON, SARIF and GitHub output keep the message whole."""
    if len(text) <= _RUN_WIDTH:
        return text
    import re

    return re.sub(rf"\S{{{_RUN_WIDTH + 1},}}", lambda m: _short(m.group()), text)


def _detail_style(row: str) -> str:
    if row.startswith("  -") or "[-" in row and "{+" not in row:
        return "red"
    if row.startswith("  +") or "{+" in row and "[-" not in row:
        return "green"
    return "dim"


def render_lint_text(out: Console, result: Any, failing: bool | None = None) -> None:
    """Diagnostics grouped by file (``line:col  severity  code  name  message``), then a summary
    (red when ``failing``; ``None``: when the result has errors)."""
    by_file: dict[str, list[Any]] = {}
    for d in result.diagnostics:
        by_file.setdefault(d.file or "(catalog)", []).append(d)
    for file, diagnostics in by_file.items():
        out.print(data(file, "bold underline"), soft_wrap=True)
        for d in diagnostics:
            where = (f"{d.line}:{d.column}" if d.column else f"{d.line}") if d.line else "-"
            line = Text("  ")
            line.append(f"{where:<8}")
            line.append(f"{d.severity:<8}", style=_STYLE[d.severity])
            line.append(f"{d.code} ", style="bold")
            line.append(f"{d.name}  ", style="dim")
            if d.tool:
                line.append_text(data(f"tool {_short(d.tool)!r}: "))
            line.append_text(data(_short_runs(" ".join(d.message.split()))))
            out.print(line, soft_wrap=True)
            for r in d.related:
                at = f"{r.file}:{r.line}" if r.line else (r.file or "")
                out.print(data(f"{'':10}↳ {at}: {r.message}", "dim"), soft_wrap=True)
            for row in d.detail:  # a diff: each line as it is, control characters made visible
                out.print(data(f"{'':10}{_short_runs(row)}", _detail_style(row)), soft_wrap=True)
        out.print()
    errors, warnings, infos = result.count("error"), result.count("warning"), result.count("info")
    files = len(result.files)
    checked = f"{plural(result.tool_count, 'tool')} in {plural(files, 'file')}"
    if not result.diagnostics:
        out.print(
            Text(f"All checks passed: {checked}, {plural(len(result.rules_run), 'rule')}.", style="green"),
            soft_wrap=True,
        )
        return
    problems = len(result.diagnostics)
    failing = result.failed() if failing is None else failing
    occurrences = result.occurrences()
    repeats = f", standing for {occurrences} findings" if occurrences != problems else ""
    info = f", {plural(infos, 'info')}" if infos else ""
    summary = Text(
        f"Found {problems} problem{'s' if problems != 1 else ''} "
        f"({errors} error{'s' if errors != 1 else ''}, {warnings} warning{'s' if warnings != 1 else ''}"
        f"{info}{repeats}) "
        f"in {len(by_file)} file{'s' if len(by_file) != 1 else ''}; checked {checked}.",
        style="bold red" if failing else "yellow",
    )
    out.print(summary, soft_wrap=True)
    out.print(Text("Run `toolsearch rule CODE` for what a rule checks and how to fix it.", style="dim"), soft_wrap=True)


def render_lint_report(out: Console, report: Any) -> None:
    """A lint report as text: the statistics table (``--statistics``), else the diagnostics."""
    if report.settings.statistics:
        render_lint_statistics(out, report.result)
    else:
        render_lint_text(out, report.result, report.failed)


def render_rule_table(out: Console, rules: Mapping[str, Any]) -> None:
    rows: list[list[str | Text]] = []
    for code, rule in rules.items():
        severity = Text(rule.severity, style=_STYLE[rule.severity])
        if not rule.default_enabled:
            severity.append(" (strict)", style="dim")
        rows.append([code, rule.name, severity, rule.summary()])
    columns = [Col("code", "name", style="bold"), Col("name", "name"), Col("severity"), Col("what it checks", "text")]
    render_table(out, columns, rows, wide=True, key_columns=2)


def render_rule_doc(out: Console, rule: Any) -> None:
    out.print(Text(f"{rule.code} {rule.name}", style="bold"))
    status = "on by default" if rule.default_enabled else "off by default (on in the strict preset, or select it)"
    out.print(Text(f"family: {rule.family} · severity: {rule.severity} · {status}", style="dim"))
    if not rule.default_enabled and getattr(rule, "opt_in_reason", None):
        out.print(Text(f"why it is opt-in: {' '.join(rule.opt_in_reason.split())}", style="dim"), soft_wrap=True)
    if rule.options:
        for name, default in rule.options.items():
            strict = f" (strict: {rule.strict_options[name]!r})" if name in rule.strict_options else ""
            out.print(Text(f"option {name}: default {default!r}{strict}", style="dim"), soft_wrap=True)
    out.print()
    out.print(rule.doc(), markup=False, highlight=False, soft_wrap=True)


def render_lint_statistics(out: Console, result: Any) -> None:
    """One line per rule that found something: findings (repeats included), tools they are on,
    code, name, severity; most frequent first."""
    out.print(Text(f"{'findings':>8}  {'tools':>6}  rule", style="dim"))
    for entry in result.rule_counts():
        line = Text(f"{entry.findings:>8}  {entry.tools:>6}  ")
        line.append(f"{entry.code} ", style="bold")
        line.append(f"{entry.name:<38}")
        line.append(entry.severity, style=_STYLE[entry.severity])
        out.print(line)
    total = result.occurrences()
    out.print(
        Text(
            f"{total:>8}  {len(result.diagnostics):>6}  in total ({plural(result.tool_count, 'tool')} checked)",
            style="dim",
        )
    )
