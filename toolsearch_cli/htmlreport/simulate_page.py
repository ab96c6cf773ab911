"""The HTML report of ``toolsearch simulate --report``: tokens per request per policy against the
all-tools baseline, the tools each request carried as a timeline, the prompt cache's prefix
stability, and the findings highlighted."""

from __future__ import annotations

from collections.abc import Sequence

from ..disclosure.engine import DISCLOSED, GROUP, RESIDENT, SEARCH
from ..simulate.run import SimulationResult
from ..simulate.transcript import DIAGNOSTIC_KINDS, Finding, Transcript, tools_changes
from .page import Column, Markup, charts, excerpt, page, table
from .svg import BAD, Series, bar_chart, colour, esc, line_chart, timeline

ROLE_COLOUR = {RESIDENT: "#e69f00", SEARCH: "#cc79a7", GROUP: "#56b4e9", DISCLOSED: "#0072b2"}
ROLE_LABEL = {RESIDENT: "resident", SEARCH: "toolSearch", GROUP: "group", DISCLOSED: "disclosed"}
#: Rows of a timeline (tools, by how many requests carried them) and rows of the request table.
MAX_TIMELINE_TOOLS = 60
MAX_REQUEST_ROWS = 500
#: Requests drawn in a timeline (the first ones; a long replay's are said in a note) ...
MAX_TIMELINE_REQUESTS = 200
#: ... and up to how many requests the prompt cache is drawn as bars (beyond: a line).
MAX_CACHE_BARS = 60


def _label(t: Transcript, several: bool) -> str:
    return f"policy {t.policy}" if several else excerpt(t.name or t.source, 120)


def tokens_svg(result: SimulationResult, *, whole: bool = False, width: int = 680) -> str:
    """Tool tokens (``whole``: whole request tokens) per request, one line per policy, against
    the all-tools baseline (dashed)."""
    transcripts = result.transcripts
    several = len(transcripts) > 1
    series = []
    for i, t in enumerate(transcripts):
        points = [
            (float(r.index), float(r.snapshot.request_tokens if whole else r.snapshot.tool_tokens)) for r in t.requests
        ]
        series.append(Series(_label(t, several), points, colour=colour(i)))
    if transcripts and transcripts[0].requests:
        base = [
            (
                float(r.index),
                float(r.snapshot.baseline_request_tokens if whole else r.snapshot.baseline_tool_tokens),
            )
            for r in transcripts[0].requests
        ]
        series.append(Series("all tools (baseline)", base, dashed=True, colour="#666666"))
    what = "Request tokens" if whole else "Tool tokens"
    return line_chart(
        series,
        title=f"{what} per request against sending all tools",
        x_label="request",
        y_label="tokens",
        value_format=lambda v: f"{v:.0f} tok",
        width=width,
    )


def cache_svg(result: SimulationResult, *, width: int = 680) -> str:
    """Per request, the share of the previous request's tools array it kept as its prefix
    (100%: byte for byte the same, the prompt cache holds), per policy."""
    transcripts = [t for t in result.transcripts if len(t.requests) > 1]
    several = len(result.transcripts) > 1
    indices = [r.index for r in transcripts[0].requests[1:]] if transcripts else []
    series = []
    for t in transcripts:
        values: list[float] = []
        for change in tools_changes([r.snapshot for r in t.requests]):
            values.append(100.0 if change is None else 100.0 * change[0] / max(change[1], 1))
        series.append((_label(t, several), values))
    title = "Tools prefix kept from the previous request (prompt cache)"
    if len(indices) > MAX_CACHE_BARS:  # a long replay: a line, one point per request
        lines = [
            Series(name, [(float(i), v) for i, v in zip(indices, values, strict=False)], colour=colour(n))
            for n, (name, values) in enumerate(series)
        ]
        return line_chart(
            lines,
            title=title,
            x_label="request",
            y_label="% of the tools array",
            y_max=100.0,
            value_format=lambda v: f"{v:.0f}%",
            width=width,
        )
    return bar_chart(
        [str(i) for i in indices],
        series,
        title=title,
        y_label="% of the tools array",
        y_max=100.0,
        value_format=lambda v: f"{v:.0f}%",
        width=width,
    )


def timeline_svg(t: Transcript, *, width: int = 680) -> tuple[str, int]:
    """The tools each of the first :data:`MAX_TIMELINE_REQUESTS` requests of ``t`` carried (a row
    per tool, coloured by why it was there, a dot where the model called it, a red marker above a
    request with a finding), and how many tools were left out of the rows."""
    count: dict[str, int] = {}
    first: dict[str, int] = {}
    requests = t.requests[:MAX_TIMELINE_REQUESTS]
    for c, r in enumerate(requests):
        for tool in r.snapshot.tools:
            count[tool.name] = count.get(tool.name, 0) + 1
            first.setdefault(tool.name, c)
    kept = sorted(count, key=lambda n: (-count[n], first[n], n))[:MAX_TIMELINE_TOOLS]
    names = sorted(kept, key=lambda n: (first[n], n))
    row_of = {n: i for i, n in enumerate(names)}
    cells: dict[tuple[int, int], tuple[str, str]] = {}
    dots: dict[tuple[int, int], str] = {}
    marks: dict[int, tuple[str, str]] = {}
    for c, r in enumerate(requests):
        for tool in r.snapshot.tools:
            row = row_of.get(tool.name)
            if row is None:
                continue
            role = ROLE_LABEL.get(tool.role, tool.role)
            if tool.role == GROUP and tool.group:
                role = f"group {tool.group}"
            cells[(row, c)] = (
                ROLE_COLOUR.get(tool.role, "#999999"),
                f"request {r.index}: {tool.name} ({role}, {tool.tokens} tok)",
            )
        for call in r.calls:
            row = row_of.get(call.name)
            if row is not None:
                dots[(row, c)] = f"request {r.index}: the model called {call.name}" + (
                    f" (refused: {call.error})" if call.error else ""
                )
        failed = r.failed
        if failed:
            marks[c] = (BAD, f"request {r.index}: " + "; ".join(f"{f.kind}: {f.message}" for f in failed))
    legend = [(ROLE_LABEL[role], ROLE_COLOUR[role]) for role in (RESIDENT, SEARCH, GROUP, DISCLOSED)]
    svg = timeline(
        names,
        [r.index for r in requests],
        cells,
        title=f"Tools per request · policy {t.policy}",
        legend=[*legend, ("called ●", "#000000"), ("finding ▼", BAD)],
        marks=marks,
        dots=dots,
        width=width,
    )
    return svg, len(count) - len(names)


def _summary_table(transcripts: Sequence[Transcript]) -> str:
    columns = [
        Column("run"),
        Column("requests", True),
        Column("searches", True),
        Column("tool tok", True),
        Column("all-tools tok", True),
        Column("share", True),
        Column("request saving", True),
        Column("peak visible", True),
        Column("cache reuse", True),
        Column("failed", True),
    ]
    rows = []
    classes = []
    several = len(transcripts) > 1
    for t in transcripts:
        s = t.summary()
        if not s.get("requests"):
            rows.append([_label(t, several), 0, "", "", "", "", "", "", "", len(t.failures)])
            classes.append("bad" if t.failures else "")
            continue
        cache = s.get("prompt_cache") or {}
        reuse = f"{cache.get('requests_reusing_tools', 0)}/{s['requests'] - 1}" if s["requests"] > 1 else "—"
        rows.append(
            [
                _label(t, several),
                s["requests"],
                s["searches"],
                s["tool_tokens"],
                s["baseline_tool_tokens"],
                f"{100 * s['tool_share']:.1f}%",
                f"{s['saving_percent']:.1f}%",
                s["peak_visible"],
                reuse,
                s["failed"],
            ]
        )
        classes.append("bad" if s["failed"] else "")
    return table(columns, rows, row_classes=classes)


def _finding_html(index: int, f: Finding) -> str:
    where = f"line {f.line}: " if f.line else ""
    if f.expected:
        kind, css = f"expected {f.kind}", "finding expected"
    elif f.kind == "expectation" or f.kind in DIAGNOSTIC_KINDS:
        kind, css = f"✗ {f.kind}", "finding"
    else:
        kind, css = f"✗ protocol error {f.kind}", "finding"
    message = esc(where + excerpt(f.message, 400))
    return f'<div class="{css}"><strong>request {index} · {esc(kind)}</strong>: {message}</div>'


def _findings_section(transcripts: Sequence[Transcript], several: bool) -> list[str]:
    out = ["<h2>Findings</h2>"]
    any_shown = False
    for t in transcripts:
        items = []
        for r in t.requests:
            items += [_finding_html(r.index, f) for f in r.findings]
            for warning in r.warnings:
                text = esc(excerpt(warning, 400))
                items.append(f'<div class="finding warning"><strong>request {r.index} · warning</strong>: {text}</div>')
        summary = t.summary()
        if summary.get("all_tools_cheaper"):
            text = (
                f"sending all {summary['baseline_tool_count']} tools is cheaper than disclosure for this catalog "
                f"(toolSearch and the disclosed tools cost more than all of them); disclosure pays off from about "
                f"{summary['break_even_tools']} tools"
            )
            items.append(f'<div class="finding warning"><strong>tokens</strong>: {esc(text)}</div>')
        if t.error:
            items.append(f'<div class="finding"><strong>stopped early</strong>: {esc(excerpt(t.error, 400))}</div>')
        if not items:
            continue
        any_shown = True
        if several:
            out.append(f"<h3>{esc(_label(t, several))}</h3>")
        out += items
    if not any_shown:
        out.append('<p class="good">No failed check, no protocol error, no warning.</p>')
    return out


def _requests_table(t: Transcript) -> str:
    columns = [
        Column("#", True),
        Column("turn", True),
        Column("visible", True),
        Column("tool tok", True),
        Column("share", True),
        Column("request tok", True),
        Column("saving", True),
        Column("disclosed"),
        Column("model called"),
        Column("model said"),
    ]
    rows = []
    classes = []
    for r in t.requests[:MAX_REQUEST_ROWS]:
        s = r.snapshot
        calls = "; ".join(
            f"{c.name}({excerpt(c.arguments, 80)})" + (f" refused: {c.error}" if c.error else "") for c in r.calls
        )
        rows.append(
            [
                r.index,
                r.turn or "",
                len(s.tools),
                s.tool_tokens,
                f"{100 * s.tool_share:.1f}%",
                s.request_tokens,
                f"{s.saving_percent:.1f}%",
                ", ".join(s.disclosed) or "—",
                excerpt(calls, 240),
                excerpt(r.reply_text, 160),
            ]
        )
        classes.append("bad" if r.failed else "")
    out = table(columns, rows, row_classes=classes)
    if len(t.requests) > MAX_REQUEST_ROWS:
        out += f'<p class="note">{len(t.requests) - MAX_REQUEST_ROWS} more requests not listed.</p>'
    return out


def simulate_html(result: SimulationResult) -> str:
    """The whole report of a simulation (one policy or several compared) as one HTML document."""
    transcripts = result.transcripts
    first = transcripts[0]
    several = len(transcripts) > 1
    policies = ", ".join(t.policy for t in transcripts)
    subtitle = (
        f"{excerpt(first.name or first.source, 200)} · {first.kind} · mode {first.mode} · "
        f"{'policies' if several else 'policy'} {policies} · catalog {', '.join(first.catalog)} · "
        f"ranker {first.ranker} · counter {first.counter}"
    )
    if first.live is not None:
        subtitle += f" · model {first.live.get('model')}"
    verdict_ok = result.ok
    verdict = (
        '<p class="verdict good">✓ every check passed, no protocol error</p>'
        if verdict_ok
        else '<p class="verdict bad">✗ failed checks, protocol errors or a run cut short: see the findings</p>'
    )
    body = [verdict, "<h2>Summary</h2>", _summary_table(transcripts)]
    body.append("<h2>Tokens per request</h2>")
    body.append(charts(tokens_svg(result), tokens_svg(result, whole=True)))
    if any(len(t.requests) > 1 for t in transcripts):
        body.append("<h2>Prompt-cache prefix stability</h2>")
        body.append(
            '<p class="note">The tools array opens every request: where it is the previous request\'s '
            "byte for byte (100%), a provider's prompt cache can reuse it; a bar below 100% shows how much "
            "of it still matched from the start.</p>"
        )
        body.append(charts(cache_svg(result)))
    body += _findings_section(transcripts, several)
    body.append("<h2>Tools disclosed per request</h2>")
    for t in transcripts:
        svg, left_out = timeline_svg(t)
        body.append(charts(svg))
        if left_out:
            body.append(f'<p class="note">{left_out} tools carried by fewer requests are not drawn.</p>')
        if len(t.requests) > MAX_TIMELINE_REQUESTS:
            rest = len(t.requests) - MAX_TIMELINE_REQUESTS
            note = f"The first {MAX_TIMELINE_REQUESTS} requests are drawn; {rest} more are not."
            body.append(f'<p class="note">{note}</p>')
    body.append("<h2>Requests</h2>")
    for t in transcripts:
        if several:
            body.append(f"<h3>{esc(_label(t, several))}</h3>")
        body.append(_requests_table(t))
    if result.failure is not None:
        body.append(Markup(f'<p class="bad">The server ended the run early: {esc(str(result.failure))}</p>'))
    return page("toolsearch simulate", subtitle, body)
