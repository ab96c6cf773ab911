"""Rich renderers: each takes a Console and pure data, and prints."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..model import Catalog
from ..search import Hit


def console() -> Console:
    return Console(highlight=False, soft_wrap=False)


def error_console() -> Console:
    return Console(stderr=True, highlight=False)


def excerpt(text: str, width: int = 72) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1].rstrip() + "…"


def _score(value: float) -> str:
    return f"{value:.2f}" if value != int(value) else f"{value:.0f}"


FIELD_ABBREVIATIONS = {"description": "desc", "category": "cat", "parameters": "params"}


def _table(out: Console, columns: list[tuple[str, dict[str, object]]], rows: list[list[str | Text]]) -> Table:
    """A table whose columns keep their content width (up to 40); the last one is cut to fit."""
    table = Table(show_edge=False, header_style="bold")
    widths = []
    for i, (header, _) in enumerate(columns):
        cells = [Text(cell) if isinstance(cell, str) else cell for cell in (r[i] for r in rows)]
        widths.append(min(max([len(header)] + [c.cell_len for c in cells]), 40))
    # each column is padded by one space on both sides, and separated by one rule character
    used = sum(w + 2 for w in widths[:-1]) + len(columns) - 1
    widths[-1] = max(8, min(widths[-1], out.width - used - 2))
    for (header, options), width in zip(columns, widths, strict=True):
        table.add_column(header, no_wrap=True, overflow="ellipsis", width=width, **options)  # type: ignore[arg-type]
    for row in rows:
        table.add_row(*row)
    return table


def render_hits(out: Console, hits: list[Hit], *, explain: bool = False) -> None:
    rows: list[list[str | Text]] = [
        [
            str(i),
            hit.tool.name,
            hit.tool.category or "",
            _score(hit.score),
            ",".join(FIELD_ABBREVIATIONS.get(f, f) for f in hit.matched_fields),
            excerpt(hit.tool.description, 120),
        ]
        for i, hit in enumerate(hits, 1)
    ]
    table = _table(
        out,
        [
            ("#", {"justify": "right", "style": "dim"}),
            ("tool", {"style": "bold cyan"}),
            ("category", {}),
            ("score", {"justify": "right"}),
            ("matched", {}),
            ("description", {}),
        ],
        rows,
    )
    out.print(table)
    if not explain:
        return
    for i, hit in enumerate(hits, 1):
        out.print()
        out.print(Text.assemble((f"{i}. {hit.tool.name}", "bold cyan"), f"  score {_score(hit.score)}"))
        detail = Table(show_edge=False, header_style="dim", box=None, padding=(0, 2))
        detail.add_column("term")
        detail.add_column("field")
        detail.add_column("points", justify="right")
        detail.add_column("why", style="dim")
        for c in hit.contributions:
            detail.add_row(c.term, c.field, f"{c.points:.2f}", c.detail)
        out.print(detail)


def _short_source(source: str, width: int = 24) -> str:
    return source if len(source) <= width else "…" + source[-(width - 1) :]


def render_catalog(out: Console, catalog: Catalog) -> None:
    resident = set(catalog.resident)
    rows: list[list[str | Text]] = []
    for tool in catalog.tools:
        name = Text(tool.name, style="bold cyan")
        if tool.name in resident:
            name.append(" (resident)", style="yellow")
        rows.append(
            [
                name,
                tool.category or "",
                str(tool.parameter_count()),
                _short_source(str(tool.source)) if tool.source else "",
                ", ".join(tool.tags),
            ]
        )
    table = _table(
        out,
        [("tool", {}), ("category", {}), ("params", {"justify": "right"}), ("source", {"style": "dim"}), ("tags", {})],
        rows,
    )
    out.print(table)
    categories = catalog.categories()
    noun = "category" if len(categories) == 1 else "categories"
    out.print(
        f"\n{len(catalog)} tools ({len(resident)} resident, {len(catalog) - len(resident)} searchable) "
        f"in {len(categories)} {noun}, from {', '.join(catalog.sources)}"
    )
