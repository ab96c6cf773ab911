"""Rich renderers for simulations: one table per request, a summary, and a policy comparison; and the
JSON of a :class:`~toolsearch_cli.simulate.run.SimulationResult` (its ``to_dict()``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.text import Text

from ..disclosure.engine import DISCLOSED, GROUP, RESIDENT, ROLES, SEARCH
from ..simulate.transcript import DIAGNOSTIC_KINDS, RequestRecord, Transcript

if TYPE_CHECKING:
    from ..simulate.run import Progress, SimulationResult
from .render import Col, data, excerpt, plural, render_table

ROLE_STYLE = {RESIDENT: "yellow", SEARCH: "magenta", GROUP: "blue", DISCLOSED: "bold cyan"}


def _pct(value: float) -> str:
    return f"{value:.1f}%"


def render_transcript(out: Console, transcript: Transcript) -> None:
    _heading(
        out,
        transcript.name or transcript.source,
        transcript.kind,
        transcript.mode,
        transcript.policy,
        transcript.max_active,
        transcript.context,
    )
    if transcript.restored is not None:
        restored = ", ".join(transcript.restored) or "(none)"
        out.print(data(f"restored run state from {transcript.state_file}: active {restored}", "dim"))
    for record in transcript.requests:
        out.print()
        render_request(out, record)
    out.print()
    render_summary(out, transcript)


def render_request(out: Console, record: RequestRecord) -> None:
    snap = record.snapshot
    head = Text(f"request {record.index}", style="bold")
    if record.turn:
        head.append(f" · turn {record.turn}", style="dim")
    if snap.search_status:
        head.append_text(data(f" · latest search: {snap.search_status}", "dim"))
    if snap.groups:
        head.append_text(data(f" · groups: {', '.join(snap.groups)}", "dim"))
    out.print(head)
    rows: list[list[str | Text]] = []
    for role in ROLES:
        for tool in (t for t in snap.tools if t.role == role):
            label = f"group {tool.group}" if role == GROUP else role
            rows.append([data(label, ROLE_STYLE[role]), tool.name, str(tool.tokens)])
    render_table(out, [Col("role"), Col("tool"), Col("tokens", "number", justify="right")], rows, key_columns=2)
    out.print(
        f"tools {snap.tool_tokens} tok = {_pct(100 * snap.tool_share)} of the all-tools baseline "
        f"({snap.baseline_tool_tokens} tok) · request {snap.request_tokens} vs {snap.baseline_request_tokens} tok "
        f"· saving {_pct(snap.saving_percent)}",
        markup=False,
        highlight=False,
    )
    if snap.system_prompt:
        out.print(data(f"+ system prompt: {excerpt(snap.system_prompt, 100)}", "blue"))
    for call in record.calls:
        line = Text("→ ", style="dim")
        line.append_text(data(call.name, "bold"))
        line.append_text(data(f"({excerpt(call.arguments, 80)})"))
        if call.result is not None:
            line.append_text(data(f" ⇒ {excerpt(call.result, 80)}", "green" if not call.error else "red"))
        out.print(line)
    if record.reply_text:
        out.print(Text.assemble(("→ says: ", "dim"), data(excerpt(record.reply_text, 110))))
    if record.live is not None:
        out.print(live_line(record.live, snap.counter), style="dim", markup=False, highlight=False)
    for finding in record.findings:
        where = f"line {finding.line}: " if finding.line else ""
        if finding.expected:
            out.print(f"  (expected {finding.kind}) {where}{finding.message}", style="dim", markup=False)
        else:
            if finding.kind == "expectation" or finding.kind in DIAGNOSTIC_KINDS:
                label = f"✗ {finding.kind}"
            else:
                label = f"✗ protocol error {finding.kind}"
            out.print(f"  {label}: {where}{finding.message}", style="bold red", markup=False)
    if record.checks and not record.failed:
        out.print(f"  ✓ {record.checks} check{'s' if record.checks != 1 else ''} passed", style="green")
    for warning in record.warnings:
        out.print(f"  ! {warning}", style="yellow", markup=False)


def render_summary(out: Console, transcript: Transcript) -> None:
    """One row per request, then the totals, the live and prompt-cache figures, and the verdict."""
    _summary_table(out, transcript)
    summary = transcript.summary()
    if not summary.get("requests"):
        out.print("no model requests", style="dim")
        return
    counts = f"{plural(summary['requests'], 'request')}, {plural(summary['searches'], 'search', 'searches')}"
    out.print(
        f"{counts} · tool tokens {summary['tool_tokens']} vs "
        f"{summary['baseline_tool_tokens']} all-tools ({_pct(100 * summary['tool_share'])}; "
        f"per request at most {_pct(100 * summary['max_tool_share'])}) · whole requests saved "
        f"{_pct(summary['saving_percent'])} · counter {transcript.counter}",
        markup=False,
    )
    if transcript.live is not None:
        _live_summary(out, transcript, summary)
    _cache_summary(out, summary)
    if summary.get("all_tools_cheaper"):
        out.print(
            f"! sending all {summary['baseline_tool_count']} tools is cheaper than disclosure for this catalog "
            f"(toolSearch and the disclosed tools cost more than all of them); disclosure pays off from about "
            f"{summary['break_even_tools']} tools",
            style="yellow",
            markup=False,
        )
    if transcript.error:
        out.print(f"✗ stopped early: {transcript.error}", style="bold red", markup=False)
    _verdict(out, summary)


def _summary_table(out: Console, transcript: Transcript) -> None:
    """One row per request; the all-tools baseline, the same for every request, goes in the title."""
    baselines = {r.snapshot.baseline_tool_tokens for r in transcript.requests}
    per_row = len(baselines) > 1
    columns = [Col(h, "number", justify="right") for h in ("#", "turn", "visible", "tool tok")]
    if per_row:
        columns.append(Col("baseline", "number", justify="right"))
    columns += [Col(h, "number", justify="right") for h in ("share", "request", "saving")]
    columns += [Col("ok"), Col("disclosed", "text")]
    rows: list[list[str | Text]] = []
    for r in transcript.requests:
        s = r.snapshot
        result = Text("✗", style="bold red") if r.failed else Text("✓" if r.checks else "", style="green")
        row: list[str | Text] = [str(r.index), str(r.turn or ""), str(len(s.tools)), str(s.tool_tokens)]
        if per_row:
            row.append(str(s.baseline_tool_tokens))
        row += [_pct(100 * s.tool_share), str(s.request_tokens), _pct(s.saving_percent), result]
        row.append(", ".join(s.disclosed) or "—")
        rows.append(row)
    title = "summary" if per_row or not baselines else f"summary (all-tools baseline {baselines.pop()} tool tok)"
    render_table(out, columns, rows, title=title, wide=True)


def _live_summary(out: Console, transcript: Transcript, summary: dict[str, Any]) -> None:
    """The model, where it is, the time spent waiting for it, and its usage beside our count."""
    live = summary["live"]
    usage = live["provider_usage"]
    reported = (
        f"prompt {usage.get('prompt_tokens', 0)} + completion {usage.get('completion_tokens', 0)} tok"
        if live["requests_with_usage"]
        else "not reported"
    )
    endpoint = transcript.live or {}
    out.print(
        f"live: {endpoint.get('model')} at {endpoint.get('base_url')} · "
        f"{live['latency_ms'] / 1000:.1f}s waiting for the model · provider-reported usage {reported} "
        f"(ours: {summary['request_tokens']} request tok, {transcript.counter})",
        markup=False,
        highlight=False,
    )


def _cache_summary(out: Console, summary: dict[str, Any]) -> None:
    """For how many requests the tools stayed byte-identical (the prompt cache), and where they changed."""
    cache = summary.get("prompt_cache") or {}
    if summary["requests"] <= 1 or not cache:
        return
    where = ", ".join(f"#{b['request']} (kept {b['kept_bytes']} of {b['bytes']} bytes)" for b in cache["broke_at"][:5])
    more = " ..." if cache["breaks"] > 5 else ""
    out.print(
        f"prompt cache: {cache['requests_reusing_tools']} of {summary['requests'] - 1} requests sent the "
        f"previous tools byte for byte (longest run {cache['longest_identical_run']})"
        + (f"; the tools changed at {where}{more}" if cache["breaks"] else ""),
        markup=False,
        highlight=False,
    )


def _verdict(out: Console, summary: dict[str, Any]) -> None:
    failed = summary["failed"]
    if failed:
        out.print(
            f"✗ {failed} failed check{'s' if failed != 1 else ''} or protocol error{'s' if failed != 1 else ''}",
            style="bold red",
        )
    elif summary["checks"]:
        checks = summary["checks"]
        out.print("✓ the check passed" if checks == 1 else f"✓ all {checks} checks passed", style="green")


def render_comparison(out: Console, transcripts: list[Transcript]) -> None:
    """Per request: visible tools · tool tokens · share of the baseline, one column per policy; then totals."""
    out.print("policies side by side (visible tools · tool tokens · share of the all-tools baseline)", style="bold")
    rows: list[list[str | Text]] = []
    for i in range(max(len(t.requests) for t in transcripts)):
        row: list[str | Text] = [str(i + 1)]
        for t in transcripts:
            if i < len(t.requests):
                s = t.requests[i].snapshot
                row.append(f"{len(s.tools)} · {s.tool_tokens} · {_pct(100 * s.tool_share)}")
            else:
                row.append("")
        rows.append(row)
    policies = [Col(t.policy, "number", justify="right") for t in transcripts]
    render_table(out, [Col("#", "number", justify="right"), *policies], rows)
    out.print()
    totals = [t.summary() for t in transcripts]
    formats: list[tuple[str, str, Callable[[Any], str]]] = [
        ("tool tokens", "tool_tokens", str),
        ("share of baseline", "tool_share", lambda v: _pct(100 * v)),
        ("max share per request", "max_tool_share", lambda v: _pct(100 * v)),
        ("whole requests saved", "saving_percent", _pct),
        ("peak visible tools", "peak_visible", str),
        ("distinct disclosed", "distinct_disclosed", lambda v: str(len(v))),
        ("failed checks", "failed", str),
    ]
    totals_rows: list[list[str | Text]] = [
        [label, *(fmt(total.get(key, 0)) for total in totals)] for label, key, fmt in formats
    ]
    render_table(out, [Col(""), *policies], totals_rows, title="policy totals")


def live_line(live: dict[str, Any], counter: str) -> str:
    """One request's live figures: latency, retries, the provider's usage beside our own count."""
    usage = live.get("usage") or {}
    parts = [f"model {live.get('latency_ms', 0):.0f} ms"]
    if live.get("attempts", 1) > 1:
        parts.append(f"{live['attempts']} attempts")
    if live.get("finish_reason"):
        parts.append(f"finish {live['finish_reason']}")
    if usage:
        prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
        parts.append(f"provider usage: prompt {prompt} + completion {completion} tok")
    else:
        parts.append("provider usage: not reported")
    parts.append(f"ours: request {live.get('our_request_tokens')} tok ({counter})")
    return "  " + " · ".join(parts)


def render_live_header(out: Console, name: str, settings: Any, options: Any, has_key: bool) -> None:
    """What a live run talks to, before the first request (the key itself is never shown)."""
    key = f"key from ${options.api_key_env}" if has_key else f"no key (${options.api_key_env} unset)"
    what = f"live · {options.model} at {options.base_url} · {key}"
    _heading(out, name, what, settings.mode, settings.policy, settings.max_active, settings.context)


def _heading(
    out: Console, title: str, what: str, mode: str, policy: str, max_active: int | None, context: dict[str, str]
) -> None:
    """``title  ·  what · mode M · policy P · max-active N · context k=v``: the line above a run."""
    parts = [what, f"mode {mode}", f"policy {policy}"]
    if max_active:
        parts.append(f"max-active {max_active}")
    if context:
        parts.append(f"context {', '.join(f'{k}={v}' for k, v in context.items())}")
    out.print(Text.assemble(data(title, "bold"), data("  ·  " + " · ".join(parts))))


def print_simulation(out: Console | None, result: SimulationResult, html_report: str | None = None) -> None:
    """The result as tables on ``out`` (a live run's requests were printed as they came), or as
    JSON when ``out`` is ``None``; then the HTML report written to ``html_report`` (``--report``)."""
    _print_result(out, result)
    if html_report is not None:
        from ..htmlreport import simulate_html, write_report
        from .render import error_console

        write_report(html_report, simulate_html(result))
        error_console().print(f"wrote the report to {html_report}", markup=False)


def _print_result(out: Console | None, result: SimulationResult) -> None:
    if out is None:
        import typer

        from ..printable import json_visible

        # the stream masks secrets
        typer.echo(json_visible(json.dumps(result.to_dict(), ensure_ascii=False, indent=2)))
        return
    transcripts = result.transcripts
    if transcripts[0].kind == "live":
        out.print()
        render_summary(out, transcripts[0])
        if result.record:
            verb = "kept what was recorded in" if result.failure else "recorded to"
            what = f"{verb} {result.record} (replay: toolsearch simulate --replay {result.record})"
            out.print(what, style="dim", markup=False)
    elif len(transcripts) == 1:
        render_transcript(out, transcripts[0])
    else:
        for transcript in transcripts:
            render_transcript(out, transcript)
            out.print()
        render_comparison(out, transcripts)


def simulation_progress(out: Console | None) -> Progress:
    """Warnings on stderr; with ``out`` (tables), a live run's header, requests and retries as they come."""
    from ..simulate.run import Progress
    from .render import warn

    if out is None:
        return Progress(warning=warn)
    console = out

    def start(name: str, settings: Any, options: Any, has_key: bool) -> None:
        render_live_header(console, name, settings, options, has_key)

    def request(record: RequestRecord) -> None:
        console.print()
        render_request(console, record)

    def retry(number: int, status: int, attempt: int, retries: int, delay: float) -> None:
        line = f"… request {number}: HTTP {status}, retry {attempt}/{retries} in {delay:g}s"
        console.print(line, style="yellow", markup=False)

    return Progress(warning=warn, live_start=start, request=request, retry=retry)
