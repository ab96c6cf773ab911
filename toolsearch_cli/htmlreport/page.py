"""One self-contained HTML page: the styles inline, the charts inline SVG, no script at all.

The page fetches nothing when opened: a Content-Security-Policy ``<meta>`` forbids every load
(``default-src 'none'``) but inline styles and ``data:`` images, so even a string that escaped
escaping could neither run a script nor reach the network. Tables are written by
:func:`table`, whose cells are escaped unless given as :class:`Markup` (HTML this package built).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .._version import __version__
from ..markup import plain_text
from ..printable import shown
from .svg import esc

#: Nothing loads from anywhere: no script, no font, no image but ``data:``, no frame, no form target.
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"

STYLE = """
:root { color-scheme: light; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0 auto; max-width: 1100px;
  padding: 1.5rem; color: #1f2328; background: #ffffff; line-height: 1.45; }
h1 { font-size: 1.5rem; margin: 0 0 .25rem; } h2 { font-size: 1.2rem; margin-top: 2rem;
  border-bottom: 1px solid #d0d7de; padding-bottom: .25rem; } h3 { font-size: 1rem; margin-top: 1.25rem; }
.meta { color: #59636e; margin: 0 0 1rem; } .note { color: #59636e; font-size: .9rem; }
table { border-collapse: collapse; margin: .5rem 0 1rem; font-size: .88rem; }
th, td { border: 1px solid #d0d7de; padding: .25rem .5rem; text-align: left; vertical-align: top; }
th { background: #f6f8fa; } td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.bad td { background: #ffebe9; } tr.expected td { color: #59636e; }
td.best { font-weight: 700; color: #1a7f37; } .good { color: #1a7f37; } .bad { color: #cf222e; }
.charts { display: flex; flex-wrap: wrap; gap: 1rem; } .charts svg { max-width: 100%; height: auto;
  border: 1px solid #d0d7de; border-radius: 6px; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .85em;
  overflow-wrap: anywhere; }
.finding { border-left: 4px solid #cf222e; background: #ffebe9; padding: .4rem .6rem; margin: .3rem 0; }
.finding.expected { border-color: #8c959f; background: #f6f8fa; }
.finding.warning { border-color: #bf8700; background: #fff8c5; }
summary { cursor: pointer; } summary h3 { display: inline; }
.verdict { font-weight: 600; } footer { margin-top: 2rem; color: #59636e; font-size: .8rem; }
"""


class Markup(str):
    """HTML built here (a chart, a span around escaped text): written as it is, never escaped again."""


def cell(value: object) -> str:
    """A table cell's content: :class:`Markup` as it is, anything else escaped."""
    return value if isinstance(value, Markup) else esc(value)


def excerpt(text: str | None, limit: int = 160, *, markup: bool = False) -> str:
    """Data text for a table: control characters made visible, one line, at most ``limit``
    characters (not yet escaped: :func:`table` and :func:`~.svg.esc` do that). ``markup``: the
    text is a tool's description, whose HTML/Markdown is removed first
    (:func:`~toolsearch_cli.markup.plain_text`); anything else (a request, a model's reply) is
    shown as it was written."""
    if not text:
        return ""
    flat = " ".join(shown(plain_text(text) if markup else text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


NUM_TH = '<th class="num">'
NUM_TD = '<td class="num">'
#: The classes a table row may have (anything else is ignored: never data in an attribute).
ROW_CLASSES = frozenset({"bad", "expected", "good"})


@dataclass(slots=True)
class Column:
    header: str
    number: bool = False


def table(columns: Sequence[Column], rows: Iterable[Sequence[object]], *, row_classes: Sequence[str] = ()) -> str:
    """An HTML table; ``row_classes[i]`` (when given) is the class of row ``i`` (``bad``, ``expected``)."""
    head = "".join((NUM_TH if c.number else "<th>") + f"{esc(c.header)}</th>" for c in columns)
    body = []
    for i, row in enumerate(rows):
        kind = row_classes[i] if i < len(row_classes) and row_classes[i] else ""
        cells = []
        for column, value in zip(columns, row, strict=False):
            opening = NUM_TD if column.number else "<td>"
            cells.append(f"{opening}{cell(value)}</td>")
        opening = f'<tr class="{kind}">' if kind in ROW_CLASSES else "<tr>"
        body.append(opening + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>\n" + "\n".join(body) + "\n</tbody></table>"


def page(title: str, subtitle: str, body: Iterable[str]) -> str:
    """The whole document: ``title`` and ``subtitle`` are data (escaped); ``body`` is HTML built here."""
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta name="generator" content="toolsearch ' + esc(__version__) + '">',
        f"<title>{esc(title)}</title>",
        f"<style>{STYLE}</style>",
        "</head>",
        "<body>",
        f"<h1>{esc(title)}</h1>",
        f'<p class="meta">{esc(subtitle)}</p>',
        *body,
        f"<footer>written by toolsearch {esc(__version__)}; self-contained: it loads nothing when opened.</footer>",
        "</body>",
        "</html>",
    ]
    return "\n".join(parts) + "\n"


def charts(*svgs: str) -> str:
    return '<div class="charts">\n' + "\n".join(svgs) + "\n</div>"
