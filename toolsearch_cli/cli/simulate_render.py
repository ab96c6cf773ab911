"""Rich renderers for simulations: one table per request, a summary, and a policy comparison."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..disclosure.engine import DISCLOSED, GROUP, RESIDENT, ROLES, SEARCH
from ..simulate.transcript import DIAGNOSTIC_KINDS, RequestRecord, Transcript
from .render import excerpt

ROLE_STYLE = {RESIDENT: "yellow", SEARCH: "magenta", GROUP: "blue", DISCLOSED: "bold cyan"}


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def _pct(value: float) -> str:
    return f"{value:.1f}%"


def render_transcript(out: Console, transcript: Transcript) -> None:
    title = transcript.name or transcript.source
    out.print(
        Text.assemble(
            (f"{title}", "bold"),
            f"  ·  {transcript.kind} · mode {transcript.mode} · policy {transcript.policy}"
            + (f" · max-active {transcript.max_active}" if transcript.max_active else "")
            + (
                f" · context {', '.join(f'{k}={v}' for k, v in transcript.context.items())}"
                if transcript.context
                else ""
            ),
        )
    )
    if transcript.restored is not None:
        restored = ", ".join(transcript.restored) or "(none)"
        out.print(f"restored run state from {transcript.state_file}: active {restored}", style="dim", markup=False)
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
        head.append(f" · latest search: {snap.search_status}", style="dim")
    if snap.groups:
        head.append(f" · groups: {', '.join(snap.groups)}", style="dim")
    out.print(head)
    table = Table(show_edge=False, header_style="bold", pad_edge=False)
    table.add_column("role")
    table.add_column("tool")
    table.add_column("tokens", justify="right")
    for role in ROLES:
        for tool in (t for t in snap.tools if t.role == role):
            label = f"group {tool.group}" if role == GROUP else role
            table.add_row(Text(label, style=ROLE_STYLE[role]), tool.name, str(tool.tokens))
    out.print(table)
    out.print(
        f"tools {snap.tool_tokens} tok = {_pct(100 * snap.tool_share)} of the all-tools baseline "
        f"({snap.baseline_tool_tokens} tok) · request {snap.request_tokens} vs {snap.baseline_request_tokens} tok "
        f"· saving {_pct(snap.saving_percent)}",
        markup=False,
        highlight=False,
    )
    if snap.system_prompt:
        out.print(f"+ system prompt: {excerpt(snap.system_prompt, 100)}", style="blue", markup=False)
    for call in record.calls:
        line = Text("→ ", style="dim")
        line.append(f"{call.name}", style="bold")
        line.append(f"({excerpt(call.arguments, 80)})")
        if call.result is not None:
            line.append(f" ⇒ {excerpt(call.result, 80)}", style="green" if not call.error else "red")
        out.print(line)
    if record.reply_text:
        out.print(Text.assemble(("→ says: ", "dim"), excerpt(record.reply_text, 110)))
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
    table = Table(title="summary", show_edge=False, header_style="bold", title_justify="left")
    for header in ("#", "turn", "visible", "disclosed", "tool tok", "baseline", "share", "request", "saving", "result"):
        table.add_column(header, justify="right" if header not in ("disclosed", "result") else "left")
    for r in transcript.requests:
        s = r.snapshot
        result = Text("✗", style="bold red") if r.failed else Text("✓" if r.checks else "", style="green")
        table.add_row(
            str(r.index),
            str(r.turn or ""),
            str(len(s.tools)),
            ", ".join(s.disclosed) or "—",
            str(s.tool_tokens),
            str(s.baseline_tool_tokens),
            _pct(100 * s.tool_share),
            str(s.request_tokens),
            _pct(s.saving_percent),
            result,
        )
    out.print(table)
    summary = transcript.summary()
    if not summary.get("requests"):
        out.print("no model requests", style="dim")
        return
    counts = f"{_count(summary['requests'], 'request')}, {_count(summary['searches'], 'search', 'searches')}"
    out.print(
        f"{counts} · tool tokens {summary['tool_tokens']} vs "
        f"{summary['baseline_tool_tokens']} all-tools ({_pct(100 * summary['tool_share'])}; "
        f"per request at most {_pct(100 * summary['max_tool_share'])}) · whole requests saved "
        f"{_pct(summary['saving_percent'])} · counter {transcript.counter}",
        markup=False,
    )
    if transcript.live is not None:
        live = summary["live"]
        usage = live["provider_usage"]
        reported = (
            f"prompt {usage.get('prompt_tokens', 0)} + completion {usage.get('completion_tokens', 0)} tok"
            if live["requests_with_usage"]
            else "not reported"
        )
        out.print(
            f"live: {transcript.live.get('model')} at {transcript.live.get('base_url')} · "
            f"{live['latency_ms'] / 1000:.1f}s waiting for the model · provider-reported usage {reported} "
            f"(ours: {summary['request_tokens']} request tok, {transcript.counter})",
            markup=False,
            highlight=False,
        )
    if transcript.error:
        out.print(f"✗ stopped early: {transcript.error}", style="bold red", markup=False)
    failed = summary["failed"]
    if failed:
        out.print(
            f"✗ {failed} failed check{'s' if failed != 1 else ''} or protocol error{'s' if failed != 1 else ''}",
            style="bold red",
        )
    elif summary["checks"]:
        out.print(f"✓ all {summary['checks']} checks passed", style="green")


def render_comparison(out: Console, transcripts: list[Transcript]) -> None:
    """Per request: visible tools · tool tokens · share of the baseline, one column per policy; then totals."""
    out.print("policies side by side (visible tools · tool tokens · share of the all-tools baseline)", style="bold")
    table = Table(show_edge=False, header_style="bold")
    table.add_column("#", justify="right")
    for t in transcripts:
        table.add_column(t.policy, justify="right")
    for i in range(max(len(t.requests) for t in transcripts)):
        row = [str(i + 1)]
        for t in transcripts:
            if i < len(t.requests):
                s = t.requests[i].snapshot
                row.append(f"{len(s.tools)} · {s.tool_tokens} · {_pct(100 * s.tool_share)}")
            else:
                row.append("")
        table.add_row(*row)
    out.print(table)
    out.print()
    totals = [t.summary() for t in transcripts]
    summary = Table(title="policy totals", show_edge=False, header_style="bold", title_justify="left")
    summary.add_column("")
    for t in transcripts:
        summary.add_column(t.policy, justify="right")
    rows: list[tuple[str, str, Callable[[Any], str]]] = [
        ("tool tokens", "tool_tokens", str),
        ("share of baseline", "tool_share", lambda v: _pct(100 * v)),
        ("max share per request", "max_tool_share", lambda v: _pct(100 * v)),
        ("whole requests saved", "saving_percent", _pct),
        ("peak visible tools", "peak_visible", str),
        ("distinct disclosed", "distinct_disclosed", lambda v: str(len(v))),
        ("failed checks", "failed", str),
    ]
    for label, key, fmt in rows:
        summary.add_row(label, *(fmt(total.get(key, 0)) for total in totals))
    out.print(summary)


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
    out.print(
        Text.assemble(
            (name, "bold"),
            f"  ·  live · {options.model} at {options.base_url} · {key} · mode {settings.mode} · policy "
            f"{settings.policy}"
            + (f" · max-active {settings.max_active}" if settings.max_active else "")
            + (f" · context {', '.join(f'{k}={v}' for k, v in settings.context.items())}" if settings.context else ""),
        )
    )
