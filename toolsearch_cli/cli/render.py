"""Rich renderers: each takes a Console and pure data, and prints.

Every piece of data (tool names, descriptions, categories, file names, model replies ...) reaches
the terminal through this module, and is shown *literally*:

- the consoles are made with markup, emoji codes and highlighting off, so ``[bold]``, ``[/x]``,
  ``[link=...]`` and ``:smile:`` in data are plain text (and never a MarkupError);
- :func:`shown` turns control characters (ESC, BEL, OSC sequences, CR, bidi overrides ...) into
  visible escapes such as ``\\x1b`` before they are measured for a table;
- as a last line of defence, :class:`SafeConsole` passes everything it renders through
  :func:`shown` again, so a renderer that forgot cannot write an escape sequence to the terminal.

Tables go through :func:`render_table`, which sizes the columns itself: numbers are never cut,
labels wrap, free text is cut with a visible ``…`` (or wraps with ``wide``), and when even that
does not fit the width, each row is stacked as ``header value`` pairs.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import IO, Any, Literal

from rich.console import Console, ConsoleOptions, RenderableType
from rich.segment import Segment
from rich.table import Table
from rich.text import Text

from ..markup import plain_text
from ..model import Catalog
from ..printable import hidden, shown
from ..search import Hit


def data(value: object, style: str = "") -> Text:
    """A piece of data as a Rich Text: never markup, never an emoji code, control characters visible."""
    return Text(shown(value), style=style, end="")


class SafeConsole(Console):
    """A Console that cannot be told to interpret data: every string and rendered segment goes through shown()."""

    def render_str(self, text: str, **kwargs: Any) -> Text:
        return super().render_str(shown(text), **kwargs)  # before Rich drops BEL & co. silently

    def render(self, renderable: RenderableType, options: ConsoleOptions | None = None) -> Iterable[Segment]:
        for segment in super().render(renderable, options):
            if segment.control or not hidden(segment.text):
                yield segment
            else:
                yield Segment(shown(segment.text), segment.style)


# Piped output is not cut to 80 columns (as ruff and git do): lines are as long as they need.
UNWRAPPED_WIDTH = 10_000


def _width(stderr: bool) -> int | None:
    """$COLUMNS when set, else the terminal's width (None: Rich asks it), else no wrapping."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    stream = sys.stderr if stderr else sys.stdout
    try:
        if stream.isatty():
            return None
    except (AttributeError, ValueError):
        pass
    return UNWRAPPED_WIDTH


def _height(width: int | None) -> int | None:
    """With a width of ours, a height too: Rich takes its own 80 columns on a dumb terminal
    (``TERM=dumb``, e.g. Emacs' shell, which sets ``COLUMNS``) unless given both."""
    if width is None:
        return None
    lines = os.environ.get("LINES", "")
    return int(lines) if lines.isdigit() and int(lines) > 0 else 25


def console(file: IO[str] | None = None) -> Console:
    """The console for a command's output: stdout, or ``file`` (a report written unwrapped, without colour)."""
    width = _width(False) if file is None else UNWRAPPED_WIDTH
    return SafeConsole(
        file=file, markup=False, emoji=False, highlight=False, soft_wrap=False, width=width, height=_height(width)
    )


def error_console() -> Console:
    """The console for messages on stderr: literal, and never wrapped (one message, one line)."""
    width = _width(True)
    return SafeConsole(
        stderr=True, markup=False, emoji=False, highlight=False, soft_wrap=True, width=width, height=_height(width)
    )


def warn(message: str) -> None:
    """``warning: message`` on stderr, one line, literal."""
    error_console().print(Text.assemble(("warning:", "yellow"), " ", data(message)))


def excerpt(text: str, width: int = 72) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1].rstrip() + "…"


def _score(value: float) -> str:
    return f"{value:.2f}" if value != int(value) else f"{value:.0f}"


def plural(n: int, one: str, many: str | None = None) -> str:
    """``1 tool``, ``2 tools``; ``many`` for irregular plurals."""
    return f"{n} {one if n == 1 else (many or one + 's')}"


# ---------------------------------------------------------------- tables that fit


@dataclass(frozen=True)
class Col:
    """A table column. ``kind``: number or name (never cut or wrapped), label (wraps), text (cut with …)."""

    header: str
    kind: Literal["number", "name", "label", "text"] = "label"
    style: str = ""
    justify: Literal["left", "right"] = "left"
    limit: int | None = None  # the widest a label column grows to before it wraps


Cell = str | Text


def _cell(value: Cell) -> Text:
    return data(value) if isinstance(value, str) else value


def _longest_word(text: Text) -> int:
    from rich.cells import cell_len

    return max((cell_len(word) for line in text.plain.split("\n") for word in line.split()), default=0)


def _natural(text: Text) -> int:
    from rich.cells import cell_len

    return max((cell_len(line) for line in text.plain.split("\n")), default=0)


_TEXT_MIN = 12  # a text column narrower than this is not worth showing: stack instead


def render_table(
    out: Console,
    columns: Sequence[Col],
    rows: Sequence[Sequence[Cell]],
    *,
    title: str | None = None,
    wide: bool = False,
    key_columns: int = 1,
    ruled: bool = True,
) -> None:
    """Print rows as a table that fits ``out.width``, or stacked when no table can.

    Numbers keep their full width; labels wrap; text columns get what is left (at least 12 cells)
    and are cut with ``…`` unless ``wide``, when they wrap. When even the narrowest table is wider
    than the console, each row is printed as its first ``key_columns`` cells, then ``header value``
    pairs wrapped at the width: nothing is lost.
    """
    cells = [[_cell(v) for v in row] for row in rows]
    widths, excess = _column_widths(columns, cells, out.width, wide=wide, ruled=ruled)
    if title:
        out.print(data(title, "bold"))
    if excess > 0:
        _stacked(out, columns, cells, key_columns)
        return
    if ruled:
        table = Table(show_edge=False, header_style="bold")
    else:
        table = Table(show_edge=False, header_style="dim", box=None, pad_edge=False)
    for col, width in zip(columns, widths, strict=True):
        cut = col.kind == "text" and not wide
        table.add_column(
            col.header,
            justify=col.justify,
            style=col.style or None,
            width=width,
            no_wrap=col.kind in ("number", "name") or cut,
            overflow="ellipsis" if cut else "fold",
        )
    for row in cells:
        table.add_row(*row)
    out.print(table)


def _column_widths(
    columns: Sequence[Col], cells: Sequence[Sequence[Text]], width: int, *, wide: bool, ruled: bool
) -> tuple[list[int], int]:
    """Each column's width within ``width``, and by how many cells the narrowest table is still too wide."""
    n = len(columns)
    natural = []
    minimum = []
    for i, col in enumerate(columns):
        head = Text(col.header)
        widest = max([_natural(head)] + [_natural(r[i]) for r in cells])
        if col.kind in ("number", "name"):
            natural.append(widest)
            minimum.append(max([_longest_word(head)] + [_natural(r[i]) for r in cells]))
        elif col.kind == "label":
            natural.append(min(widest, col.limit) if col.limit else widest)
            minimum.append(min(natural[-1], max([_longest_word(head), 10])))
        else:
            natural.append(widest)
            # cut text needs only a few cells; wrapped text (wide) its longest word, within reason
            least = min(max((_longest_word(r[i]) for r in cells), default=0), 30) if wide else 0
            minimum.append(min(widest, max(_TEXT_MIN, least)))
    # ruled: one space of padding on both sides of every cell and a rule between columns;
    # plain (no rules): two spaces between columns, none at the edges
    overhead = 3 * n - 1 if ruled else 2 * (n - 1)
    widths = list(natural)
    excess = sum(widths) + overhead - width
    # shrink text columns first, then labels, then the headers of numbers, each down to its minimum
    for kinds in (("text",), ("label",), ("number", "name")):
        for i, col in sorted(enumerate(columns), key=lambda ic: -widths[ic[0]]):
            if excess <= 0:
                break
            if col.kind in kinds:
                cut = min(excess, widths[i] - minimum[i])
                widths[i] -= cut
                excess -= cut
    return widths, excess


def _stacked(out: Console, columns: Sequence[Col], cells: Sequence[Sequence[Text]], key_columns: int) -> None:
    """Each row: its key cells on a line, then ``header value`` pairs filling lines up to the width."""
    from rich.cells import cell_len

    for row in cells:
        keys = zip(columns, row[:key_columns], strict=False)
        head = Text(" · ").join(
            Text.assemble(f"{col.header} " if col.kind == "number" else "", cell, style=col.style or "bold")
            for col, cell in keys
        )
        out.print(head, soft_wrap=False, overflow="fold")
        line = Text("  ")
        for col, cell in zip(columns[key_columns:], row[key_columns:], strict=True):
            if not cell.plain:
                continue
            pair = Text.assemble((col.header, "dim"), " ", cell)
            if len(line.plain) > 2 and cell_len(line.plain) + 3 + cell_len(pair.plain) > out.width:
                out.print(line, soft_wrap=False, overflow="fold")
                line = Text("  ")
            if len(line.plain) > 2:
                line.append(" · ", style="dim")
            line.append_text(pair)
        if len(line.plain) > 2:
            out.print(line, soft_wrap=False, overflow="fold")


# ---------------------------------------------------------------- search and catalog


FIELD_ABBREVIATIONS = {"description": "desc", "category": "cat", "parameters": "params"}


def _shown_description(hit: Hit, wide: bool) -> str:
    """The description as a reader sees it: markup (HTML, Markdown) as plain text, cut unless wide."""
    text = plain_text(hit.tool.description)
    return " ".join(text.split()) if wide else excerpt(text, 120)


def render_hits(out: Console, hits: list[Hit], *, explain: bool = False, wide: bool = False) -> None:
    rows: list[list[Cell]] = [
        [
            str(i),
            hit.tool.name,
            hit.tool.category or "",
            _score(hit.score),
            ", ".join(FIELD_ABBREVIATIONS.get(f, f) for f in hit.matched_fields),
            _shown_description(hit, wide),
        ]
        for i, hit in enumerate(hits, 1)
    ]
    render_table(
        out,
        [
            Col("#", "number", style="dim", justify="right"),
            Col("tool", style="bold cyan", limit=40),
            Col("category", limit=40),
            Col("score", "number", justify="right"),
            Col("matched"),
            Col("description", "text"),
        ],
        rows,
        wide=wide,
        key_columns=2,
    )
    if not explain:
        return
    for i, hit in enumerate(hits, 1):
        out.print()
        out.print(Text.assemble(data(f"{i}. {hit.tool.name}", "bold cyan"), f"  score {_score(hit.score)}"))
        render_table(
            out,
            [Col("term"), Col("field"), Col("points", "number", justify="right"), Col("why", "text", style="dim")],
            [[c.term, c.field, f"{c.points:.2f}", c.detail] for c in hit.contributions],
            wide=True,
            key_columns=2,
            ruled=False,
        )


def _short_source(source: str, width: int = 24) -> str:
    return source if len(source) <= width else "…" + source[-(width - 1) :]


def render_catalog(out: Console, catalog: Catalog, *, wide: bool = False) -> None:
    resident = set(catalog.resident)
    rows: list[list[Cell]] = []
    for tool in catalog.tools:
        name = data(tool.name, "bold cyan")
        if tool.name in resident:
            name.append(" (resident)", style="yellow")
        source = str(tool.source) if tool.source else ""
        rows.append(
            [
                name,
                tool.category or "",
                str(tool.parameter_count()),
                source if wide else _short_source(source),
                ", ".join(tool.tags),
            ]
        )
    render_table(
        out,
        [
            Col("tool", limit=40),
            Col("category", limit=40),
            Col("params", "number", justify="right"),
            Col("source", style="dim"),
            Col("tags", "text"),
        ],
        rows,
        wide=wide,
    )
    categories = catalog.categories()
    searchable = len(catalog) - len(resident)
    out.print(
        data(
            f"\n{plural(len(catalog), 'tool')} ({len(resident)} resident, {searchable} searchable) "
            f"in {plural(len(categories), 'category', 'categories')}, from {', '.join(catalog.sources)}"
        )
    )
