"""Reading a report back as a browser's parser would: its elements, attributes and text."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

#: Every element a report may hold: the page's, the tables' and the charts'. Nothing else
#: (no script, img, iframe, object, a, form, foreignObject, use...).
ALLOWED = frozenset(
    "html head meta title style body h1 h2 h3 p div table thead tbody tr th td strong span footer "
    "details summary svg g rect line polyline circle text path".split()
)


@dataclass
class Element:
    tag: str
    attrs: dict[str, str]
    #: the text of the element's own <title> child (a chart mark's tooltip), when it has one
    title: str = ""


@dataclass
class Parsed:
    elements: list[Element] = field(default_factory=list)
    #: text of every element, in document order (entities decoded)
    texts: list[str] = field(default_factory=list)
    #: end tags seen, by name
    closed: dict[str, int] = field(default_factory=dict)

    def tags(self) -> set[str]:
        return {e.tag for e in self.elements}

    def all(self, tag: str, **attrs: str) -> list[Element]:
        return [e for e in self.elements if e.tag == tag and all(e.attrs.get(k) == v for k, v in attrs.items())]

    def charts(self, kind: str) -> list[Element]:
        return [e for e in self.all("svg") if f"chart-{kind}" in e.attrs.get("class", "").split()]

    def tooltips(self, tag: str) -> list[str]:
        return [e.title for e in self.all(tag)]

    def text(self) -> str:
        return " ".join(self.texts)


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parsed = Parsed()
        self.stack: list[Element] = []
        self.in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {k: v or "" for k, v in attrs})
        self.parsed.elements.append(element)
        if tag == "title":
            self.in_title = True
            return
        if tag != "meta":  # (the one void element a report has that never holds a title)
            self.stack.append(element)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.parsed.elements.append(Element(tag, {k: v or "" for k, v in attrs}))

    def handle_endtag(self, tag: str) -> None:
        self.parsed.closed[tag] = self.parsed.closed.get(tag, 0) + 1
        if tag == "title":
            self.in_title = False
            return
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i].tag == tag:
                del self.stack[i:]
                break

    def handle_data(self, data: str) -> None:
        if self.in_title and self.stack:
            self.stack[-1].title += data
        self.parsed.texts.append(data)


def parse(document: str) -> Parsed:
    reader = _Reader()
    reader.feed(document)
    reader.close()
    return reader.parsed


_ARROW = re.compile(r"→ ([0-9.]+)")


def value_of(tooltip: str) -> float:
    """The number after the arrow of a chart point's tooltip (``default: k 1 → 0.600``)."""
    match = _ARROW.search(tooltip)
    assert match is not None, tooltip
    return float(match.group(1))
