"""Small SVG charts written as text: lines, grouped bars, diverging bars and a timeline grid.

No charting library and no script: each function returns one ``<svg>`` element, styled by
presentation attributes (so it looks the same inside a report, a docs page or opened alone),
with a ``<title>`` per mark that a browser shows as a tooltip. Every label that comes from data
(a ranker's name, a tool's, a query's) goes through :func:`esc`: control and invisible
characters become visible escapes (:func:`~toolsearch_cli.printable.shown`), then ``& < > " '``
become entities, so no text can open an element or an attribute.

The output is deterministic (same data, same bytes) and free of blank lines (a Markdown page
embeds it as one raw HTML block).
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ..printable import shown

#: Series colours, distinguishable for common colour blindness (Okabe and Ito's palette).
PALETTE = ("#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#f0e442")
GRID = "#d8d8d8"
AXIS = "#444444"
MUTED = "#666666"
GOOD = "#1a7f37"
BAD = "#cf222e"
FONT = 'font-family="system-ui, -apple-system, Segoe UI, Roboto, sans-serif" font-size="12"'


def esc(value: object) -> str:
    """Data as HTML/SVG text or attribute value: visible escapes for control characters, then
    entities for the characters markup uses (quotes included)."""
    return html.escape(shown(value), quote=True)


#: The longest data text a tooltip or title shows (a hostile catalog's 1 MB name stays one line).
MAX_TIP = 300


def short(value: object, limit: int = MAX_TIP) -> str:
    """:func:`esc` of at most ``limit`` characters of ``value`` (cut with an ellipsis)."""
    text = shown(value)
    return esc(text if len(text) <= limit else text[: limit - 1] + "…")


def colour(index: int) -> str:
    return PALETTE[index % len(PALETTE)]


def _num(value: float) -> str:
    """A coordinate, short: two decimals at most, no trailing zeros."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def nice_max(value: float) -> float:
    """The top of an axis: ``value`` rounded up to 1, 2, 2.5 or 5 times a power of ten."""
    if value <= 0 or not math.isfinite(value):
        return 1.0
    power = 10 ** math.floor(math.log10(value))
    for step in (1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10):
        if value <= step * power + 1e-12:
            return step * power
    return 10 * power


def _ticks(top: float, count: int = 5) -> list[float]:
    return [top * i / count for i in range(count + 1)]


def _fmt_tick(value: float) -> str:
    if value >= 10_000:
        return f"{value / 1000:.0f}k"
    if value >= 1000:
        return f"{value / 1000:.1f}k".replace(".0k", "k")
    if value == int(value):
        return str(int(value))
    return f"{value:.2f}".rstrip("0")


@dataclass(slots=True)
class Series:
    """One line of a :func:`line_chart`: a name for the legend and (x, y) points."""

    name: str
    points: Sequence[tuple[float, float]]
    dashed: bool = False
    colour: str | None = None


def _open(width: int, height: int, title: str, kind: str) -> list[str]:
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart chart-{kind}" role="img" '
        f'width="{width}" height="{height}" viewBox="0 0 {width} {height}" {FONT}>',
        f"<title>{short(title)}</title>",
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
        f'<text x="{width / 2:.0f}" y="18" text-anchor="middle" font-weight="600" font-size="13">'
        f"{short(title, 120)}</text>",
    ]


def _legend(names: Sequence[tuple[str, str, bool]], x: float, y: float, width: float) -> list[str]:
    """Legend entries (name, colour, dashed) laid out in rows from (x, y)."""
    out = []
    cx, cy = x, y
    for name, paint, dashed in names:
        label = shown(name)
        label = label if len(label) <= 40 else label[:39] + "…"
        span = 28 + 7 * len(label)
        if cx + span > x + width and cx > x:
            cx, cy = x, cy + 16
        dash = ' stroke-dasharray="5 3"' if dashed else ""
        out.append(
            f'<line x1="{_num(cx)}" y1="{_num(cy - 4)}" x2="{_num(cx + 18)}" y2="{_num(cy - 4)}" '
            f'stroke="{paint}" stroke-width="3"{dash}/>'
        )
        out.append(f'<text x="{_num(cx + 22)}" y="{_num(cy)}" fill="{AXIS}">{esc(label)}</text>')
        cx += span
    return out


def _y_axis(
    left: float, top: float, plot_w: float, plot_h: float, y_top: float, label: str, fmt: Callable[[float], str]
) -> list[str]:
    out = []
    for tick in _ticks(y_top):
        y = top + plot_h - plot_h * tick / y_top
        out.append(
            f'<line x1="{_num(left)}" y1="{_num(y)}" x2="{_num(left + plot_w)}" y2="{_num(y)}" stroke="{GRID}"/>'
        )
        out.append(f'<text x="{_num(left - 6)}" y="{_num(y + 4)}" text-anchor="end" fill="{MUTED}">{fmt(tick)}</text>')
    out.append(
        f'<text transform="translate(14 {_num(top + plot_h / 2)}) rotate(-90)" text-anchor="middle" '
        f'fill="{AXIS}">{esc(label)}</text>'
    )
    out.append(
        f'<line x1="{_num(left)}" y1="{_num(top + plot_h)}" x2="{_num(left + plot_w)}" y2="{_num(top + plot_h)}" '
        f'stroke="{AXIS}"/>'
    )
    return out


def line_chart(
    series: Sequence[Series],
    *,
    title: str,
    x_label: str,
    y_label: str,
    y_max: float | None = None,
    x_ticks: Sequence[float] | None = None,
    y_format: Callable[[float], str] = _fmt_tick,
    value_format: Callable[[float], str] = lambda v: f"{v:g}",
    width: int = 680,
    height: int = 340,
    markers: bool = True,
) -> str:
    """Lines over a shared x axis; each point carries a tooltip ``series: x → y``."""
    xs = [x for s in series for x, _ in s.points]
    ys = [y for s in series for _, y in s.points]
    x_min, x_max = (min(xs), max(xs)) if xs else (0.0, 1.0)
    if x_max == x_min:
        x_max = x_min + 1
    y_top = y_max if y_max is not None else nice_max(max(ys) if ys else 1.0)
    legend_rows = 1 + sum(7 * len(shown(s.name)) + 28 for s in series) // max(width - 80, 1)
    left, right, top = 58.0, 16.0, 32.0
    bottom = 44.0 + 16 * legend_rows
    plot_w, plot_h = width - left - right, height - top - bottom
    out = _open(width, height, title, "line")
    out += _y_axis(left, top, plot_w, plot_h, y_top, y_label, y_format)

    def sx(x: float) -> float:
        return left + plot_w * (x - x_min) / (x_max - x_min)

    def sy(y: float) -> float:
        return top + plot_h - plot_h * min(max(y, 0.0), y_top) / y_top

    ticks = x_ticks if x_ticks is not None else _x_ticks(x_min, x_max)
    for tick in ticks:
        out.append(
            f'<text x="{_num(sx(tick))}" y="{_num(top + plot_h + 16)}" text-anchor="middle" '
            f'fill="{MUTED}">{_fmt_tick(tick)}</text>'
        )
    out.append(
        f'<text x="{_num(left + plot_w / 2)}" y="{_num(top + plot_h + 34)}" text-anchor="middle" '
        f'fill="{AXIS}">{esc(x_label)}</text>'
    )
    for i, s in enumerate(series):
        paint = s.colour or colour(i)
        if not s.points:
            continue
        path = " ".join(f"{_num(sx(x))},{_num(sy(y))}" for x, y in s.points)
        dash = ' stroke-dasharray="6 4"' if s.dashed else ""
        out.append(f'<g class="series"><title>{short(s.name)}</title>')
        out.append(f'<polyline points="{path}" fill="none" stroke="{paint}" stroke-width="2"{dash}/>')
        if markers and len(s.points) <= 120:
            for x, y in s.points:
                out.append(
                    f'<circle cx="{_num(sx(x))}" cy="{_num(sy(y))}" r="3" fill="{paint}">'
                    f"<title>{short(s.name)}: {esc(x_label)} {_fmt_tick(x)} → {esc(value_format(y))}</title></circle>"
                )
        out.append("</g>")
    out += _legend(
        [(s.name, s.colour or colour(i), s.dashed) for i, s in enumerate(series)],
        left,
        height - 10 - 16 * (legend_rows - 1),
        plot_w,
    )
    out.append("</svg>")
    return "\n".join(out)


def _x_ticks(x_min: float, x_max: float, most: int = 12) -> list[float]:
    span = x_max - x_min
    step = max(1, math.ceil(span / most))
    for nice in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000):
        if nice >= step:
            step = nice
            break
    first = math.ceil(x_min / step) * step
    ticks = [float(first + step * i) for i in range(int((x_max - first) // step) + 1)]
    if x_min not in ticks:
        ticks.insert(0, float(x_min))
    return ticks


def bar_chart(
    groups: Sequence[str],
    series: Sequence[tuple[str, Sequence[float | None]]],
    *,
    title: str,
    y_label: str,
    y_max: float | None = None,
    value_format: Callable[[float], str] = lambda v: f"{v:.3f}",
    width: int = 680,
    height: int = 320,
) -> str:
    """Bars grouped by ``groups`` (x axis), one bar per series in each group; ``None``: no bar."""
    values = [v for _, vs in series for v in vs if v is not None]
    y_top = y_max if y_max is not None else nice_max(max(values) if values else 1.0)
    legend_rows = 1 + sum(7 * len(shown(n)) + 28 for n, _ in series) // max(width - 80, 1)
    left, right, top = 58.0, 16.0, 32.0
    bottom = 48.0 + 16 * legend_rows
    plot_w, plot_h = width - left - right, height - top - bottom
    out = _open(width, height, title, "bar")
    out += _y_axis(left, top, plot_w, plot_h, y_top, y_label, _fmt_tick)
    slot = plot_w / max(len(groups), 1)
    bar = min(36.0, slot * 0.8 / max(len(series), 1))
    every = math.ceil(24 / slot) if slot < 24 else 1  # narrow groups: a label under every n-th one
    for g, group in enumerate(groups):
        start = left + slot * g + (slot - bar * len(series)) / 2
        label = shown(group)
        room = max(int(slot / 7), 3)  # characters that fit under a group (about 7 px each)
        label = label if len(label) <= room else label[: room - 1] + "…"
        if g % every == 0:
            out.append(
                f'<text x="{_num(left + slot * (g + 0.5))}" y="{_num(top + plot_h + 16)}" text-anchor="middle" '
                f'fill="{AXIS}">{esc(label)}</text>'
            )
        for i, (name, vs) in enumerate(series):
            value = vs[g] if g < len(vs) else None
            if value is None:
                continue
            h = plot_h * min(max(value, 0.0), y_top) / y_top
            x = start + bar * i
            out.append(
                f'<rect x="{_num(x)}" y="{_num(top + plot_h - h)}" width="{_num(bar - 2)}" height="{_num(h)}" '
                f'fill="{colour(i)}"><title>{short(name)} · {short(group)}: {esc(value_format(value))}</title></rect>'
            )
            if bar >= 22:
                out.append(
                    f'<text x="{_num(x + bar / 2 - 1)}" y="{_num(top + plot_h - h - 3)}" text-anchor="middle" '
                    f'font-size="10" fill="{MUTED}">{esc(value_format(value))}</text>'
                )
    out += _legend(
        [(n, colour(i), False) for i, (n, _) in enumerate(series)], left, height - 10 - 16 * (legend_rows - 1), plot_w
    )
    out.append("</svg>")
    return "\n".join(out)


def delta_chart(
    rows: Sequence[tuple[str, float, bool]],
    *,
    title: str,
    value_format: Callable[[float], str] = lambda v: f"{v:+.3f}",
    width: int = 680,
) -> str:
    """Horizontal bars either side of zero, one per (label, delta, higher is better): green where
    the change is an improvement, red where it is a regression, grey where there is none."""
    row_h = 20
    height = 44 + row_h * max(len(rows), 1)
    label_w = 220.0
    left, right = label_w + 10, 60.0
    plot_w = width - left - right
    biggest = max((abs(d) for _, d, _ in rows), default=0.0) or 1.0
    mid = left + plot_w / 2
    out = _open(width, height, title, "delta")
    out.append(f'<line x1="{_num(mid)}" y1="28" x2="{_num(mid)}" y2="{height - 8}" stroke="{AXIS}"/>')
    for i, (label, delta, higher_better) in enumerate(rows):
        y = 32 + row_h * i
        text = shown(label)
        text = text if len(text) <= 32 else text[:31] + "…"
        out.append(f'<text x="{_num(label_w)}" y="{_num(y + 13)}" text-anchor="end" fill="{AXIS}">{esc(text)}</text>')
        w = (plot_w / 2 - 4) * abs(delta) / biggest
        good = delta > 0 if higher_better else delta < 0
        paint = MUTED if abs(delta) < 1e-12 else (GOOD if good else BAD)
        x = mid if delta >= 0 else mid - w
        out.append(
            f'<rect x="{_num(x)}" y="{_num(y + 3)}" width="{_num(max(w, 1))}" height="{row_h - 6}" fill="{paint}">'
            f"<title>{short(label)}: {esc(value_format(delta))}</title></rect>"
        )
        tx = mid + w + 4 if delta >= 0 else mid - w - 4
        anchor = "start" if delta >= 0 else "end"
        out.append(
            f'<text x="{_num(tx)}" y="{_num(y + 13)}" text-anchor="{anchor}" font-size="11" fill="{paint}">'
            f"{esc(value_format(delta))}</text>"
        )
    out.append("</svg>")
    return "\n".join(out)


def timeline(
    rows: Sequence[str],
    columns: Sequence[int],
    cells: Mapping[tuple[int, int], tuple[str, str]],
    *,
    title: str,
    legend: Sequence[tuple[str, str]],
    marks: Mapping[int, tuple[str, str]] | None = None,
    dots: Mapping[tuple[int, int], str] | None = None,
    width: int = 680,
) -> str:
    """A grid: one row per name, one column per step; ``cells[(row, column)]`` is (colour,
    tooltip). ``marks[column]`` (colour, tooltip) draws a marker above a column (a finding),
    ``dots[(row, column)]`` a dot in a cell (a call), with its tooltip."""
    label_w = 170.0
    cols = max(len(columns), 1)
    cell_w = max(3.0, min(30.0, (width - label_w - 20) / cols))
    width = int(max(width, label_w + 20 + cell_w * cols))
    cell_h = 16
    top = 44.0
    height = int(top + cell_h * max(len(rows), 1) + 46)
    out = _open(width, height, title, "timeline")
    for c, column in enumerate(columns):
        if cols <= 40 or c % math.ceil(cols / 40) == 0:
            out.append(
                f'<text x="{_num(label_w + cell_w * (c + 0.5))}" y="{_num(top - 4)}" text-anchor="middle" '
                f'font-size="10" fill="{MUTED}">{column}</text>'
            )
    for r, name in enumerate(rows):
        y = top + cell_h * r
        text = shown(name)
        text = text if len(text) <= 26 else text[:25] + "…"
        out.append(
            f'<text x="{_num(label_w - 6)}" y="{_num(y + 12)}" text-anchor="end" fill="{AXIS}">{esc(text)}</text>'
        )
        out.append(
            f'<line x1="{_num(label_w)}" y1="{_num(y + cell_h)}" x2="{_num(label_w + cell_w * cols)}" '
            f'y2="{_num(y + cell_h)}" stroke="{GRID}" stroke-width="0.5"/>'
        )
    for (r, c), (paint, tip) in sorted(cells.items()):
        out.append(
            f'<rect x="{_num(label_w + cell_w * c + 0.5)}" y="{_num(top + cell_h * r + 1)}" '
            f'width="{_num(max(cell_w - 1, 1))}" height="{cell_h - 2}" fill="{paint}">'
            f"<title>{short(tip, 600)}</title></rect>"
        )
    for (r, c), tip in sorted((dots or {}).items()):
        out.append(
            f'<circle cx="{_num(label_w + cell_w * (c + 0.5))}" cy="{_num(top + cell_h * r + cell_h / 2)}" '
            f'r="{_num(min(4.0, cell_w / 3))}" fill="#000000"><title>{short(tip, 600)}</title></circle>'
        )
    for c, (paint, tip) in sorted((marks or {}).items()):
        x = label_w + cell_w * (c + 0.5)
        out.append(
            f'<path d="M{_num(x - 5)},{_num(top - 28)} L{_num(x + 5)},{_num(top - 28)} L{_num(x)},{_num(top - 18)} Z" '
            f'fill="{paint}"><title>{short(tip, 600)}</title></path>'
        )
    legend_y = top + cell_h * max(len(rows), 1) + 20
    cx = label_w
    for name, paint in legend:
        out.append(f'<rect x="{_num(cx)}" y="{_num(legend_y - 10)}" width="12" height="12" fill="{paint}"/>')
        out.append(f'<text x="{_num(cx + 16)}" y="{_num(legend_y)}" fill="{AXIS}">{esc(name)}</text>')
        cx += 30 + 7 * len(name)
    out.append(f'<text x="{_num(label_w)}" y="{_num(legend_y + 20)}" fill="{MUTED}" font-size="11">request →</text>')
    out.append("</svg>")
    return "\n".join(out)
