"""The rule base class, the fixed docstring template, and helpers every rule shares."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from ..model import Tool
from .diagnostic import Finding, Severity

if TYPE_CHECKING:
    from .context import LintContext

#: Rule families by code prefix (TS0xx, TS1xx, ...), for docs and selection by family name.
FAMILIES: dict[str, str] = {
    "TS0": "catalog",
    "TS1": "names",
    "TS2": "descriptions",
    "TS3": "parameters",
    "TS4": "categories",
    "TS5": "tokens",
    "TS6": "findability",
    "TS8": "lock",
}

DOC_SECTIONS = ("What it does", "Why is this bad?", "Example", "Use instead")

Options = dict[str, Any]


class Rule:
    """One check. Subclasses set the class attributes and override :meth:`check` or :meth:`check_tool`.

    The class docstring is the rule's documentation and follows :data:`DOC_SECTIONS`; the YAML
    blocks under *Example* and *Use instead* are run as tests (the first must fire, the second
    must not). A first line ``# options: {...}`` in the Example block sets options for both.
    """

    code: ClassVar[str]
    name: ClassVar[str]
    severity: ClassVar[Severity] = "warning"
    #: Option names (kebab-case) and their defaults; the type of the default is the accepted type.
    options: ClassVar[Options] = {}
    #: Option values the ``strict`` preset uses instead of the defaults.
    strict_options: ClassVar[Options] = {}
    #: Whether the ``default`` preset runs the rule (``strict`` runs them all).
    default_enabled: ClassVar[bool] = True
    #: Why an opt-in rule is off by default (its measured precision on real catalogs), shown by
    #: ``toolsearch rule CODE``.
    opt_in_reason: ClassVar[str | None] = None
    #: Run after every other rule (for rules about what the others found).
    runs_last: ClassVar[bool] = False
    #: Whether a tool's own ``lint: {ignore: [...]}`` may silence it (not for the ``lock`` rules:
    #: the catalog they check must not be able to hide its own change).
    inline_suppressible: ClassVar[bool] = True

    @classmethod
    def check_option(cls, option: str, value: Any) -> str | None:
        """What is wrong with a configured option value beyond its type (``None``: nothing).
        Called when the configuration is read, so a bad value fails even on an empty catalog."""
        return None

    @property
    def family(self) -> str:
        return FAMILIES[self.code[:3]]

    def check(self, ctx: LintContext, options: Options) -> Iterator[Finding]:
        """Findings for the whole catalog; by default, :meth:`check_tool` on every tool."""
        for tool in ctx.tools:
            yield from self.check_tool(tool, ctx, options)

    def check_tool(self, tool: Tool, ctx: LintContext, options: Options) -> Iterator[Finding]:
        return iter(())

    @classmethod
    def doc(cls) -> str:
        import inspect

        return inspect.cleandoc(cls.__doc__ or "")

    @classmethod
    def summary(cls) -> str:
        """The first sentence of *What it does*."""
        body = doc_sections(cls.doc()).get("What it does", "")
        return " ".join(body.split()).split(". ")[0].rstrip(".")


_HEADER = re.compile(r"^## (.+?)\s*$", re.M)


def doc_sections(doc: str) -> dict[str, str]:
    """``## Title`` sections of a rule docstring, by title."""
    parts = _HEADER.split(doc)
    return {parts[i].strip(): parts[i + 1].strip("\n") for i in range(1, len(parts) - 1, 2)}


_FENCE = re.compile(r"```yaml\n(.*?)```", re.S)


@dataclass(slots=True)
class DocExample:
    failing: str
    passing: str
    options: Options
    #: Other rules the example needs running (``# also-select: [...]``).
    also_select: list[str]
    #: ``# locked: use-instead``: the Example is linted against a lockfile of the *Use instead*
    #: catalog (the ``lock`` rules), which then passes against it.
    locked: bool = False


def doc_example(doc: str) -> DocExample | None:
    """The YAML of *Example* and *Use instead*, with ``# options: {...}`` and ``# also-select: [...]``
    from the Example block's leading comment lines."""
    import yaml

    sections = doc_sections(doc)
    bad = _FENCE.search(sections.get("Example", ""))
    good = _FENCE.search(sections.get("Use instead", ""))
    if not bad or not good:
        return None
    options: Options = {}
    also: list[str] = []
    locked = False
    for line in bad.group(1).splitlines():
        if not line.startswith("#"):
            break
        if line.startswith("# options:"):
            options = yaml.safe_load(line.partition(":")[2]) or {}
        elif line.startswith("# also-select:"):
            also = yaml.safe_load(line.partition(":")[2]) or []
        elif line.startswith("# locked:"):
            locked = line.partition(":")[2].strip() == "use-instead"
    return DocExample(bad.group(1), good.group(1), options, also, locked)


# --- text helpers shared by rules ---------------------------------------------------------

_WORDS = re.compile(r"[^\W_]+")


def name_words(name: str) -> list[str]:
    """Lower-case words of an identifier: ``get_HTTPResponse`` -> ``[get, http, response]``."""
    from ..search.text import split_identifiers

    return [w.casefold() for w in _WORDS.findall(split_identifiers(name))]


def terms(text: str) -> set[str]:
    """Distinct search terms (stemmed, stop words dropped, CJK bigrams) of a text."""
    from ..search.text import analyze

    return set(analyze(text))


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def quote_list(values: list[str], limit: int = 3) -> str:
    shown = ", ".join(repr(v) for v in values[:limit])
    return shown + (f" and {len(values) - limit} more" if len(values) > limit else "")
