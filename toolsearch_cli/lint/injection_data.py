"""The written data of the injection rule (TS206, TS207): phrase patterns, language gates and
lexicons, one file per language under ``data/injection/`` (``en.tsv``, ``es.tsv`` ...), and the
regular-expression pieces they share (``fragments.tsv``, and the URL forms of
:mod:`.injection_text`). Read and checked once, on first use
(only a run of TS206 or TS207 reads them); a malformed file is a :class:`InjectionDataError`
naming its file and line.

Each line of a language's file is a record, its fields separated by tabs (``#`` starts a comment line):

- ``gate<TAB>regex``: the language's patterns run only on a text this expression finds (at most
  one per file; English has none: its patterns run on every text);
- ``pattern<TAB>why<TAB>needs<TAB>regex``: a phrase pattern (case-insensitive, ``.`` matches a
  line break), the message of its finding (``why``), and the words it cannot match without:
  groups separated by ``&``, the words of a group by ``|``, each group needing one of its words in
  the lower-cased text (checked with ``in`` before the expression runs; ``-``: none). ``{=name}``
  stands for a fragment;
- ``lexicon<TAB>role<TAB>entries``: ``|``-separated words of a role of the scored signals
  (:mod:`.injection_signals`: ``ov_verb``, ``tell``, ``transfer`` ...); several lines of a role add up.

Patterns run in the order of :data:`LANGUAGES`, then of their lines (the first that matches names
the finding); a role's lexicon is its entries in the same order.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING

from ..errors import ToolsearchError
from .injection_text import URL, URL_START

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

#: The languages, in the order their patterns run and their lexicon entries are read.
LANGUAGES = ("en", "es", "zh", "fr", "de", "pt", "ja")
#: The roles of the scored signals' lexicons (see :mod:`.injection_signals`).
ROLES = (
    "ov_verb",
    "ov_object",
    "ov_whose",
    "negation",
    "tell",
    "person",
    "conceal",
    "transfer",
    "private",
    "credentials",
    "field_sink",
    "self",
    "call",
    "quantifier",
    "role",
)
FRAGMENTS_FILE = "fragments.tsv"
PATTERN_FLAGS = re.I | re.S
GATE_FLAGS = re.I
_FRAGMENT = re.compile(r"\{=(\w+)\}")
_NAME = re.compile(r"[a-z_]+")


class InjectionDataError(ToolsearchError):
    """A data file of the injection rule is malformed (``file:line: what is wrong``)."""


@dataclass(frozen=True)
class Pattern:
    """A phrase pattern: its expression, the message of its finding, the word groups it cannot
    match without (see the module's doc), its language and where it is written (``file:line``)."""

    regex: re.Pattern[str]
    why: str
    needs: tuple[tuple[str, ...], ...]
    language: str
    where: str = field(compare=False)


@dataclass(frozen=True)
class Language:
    """A language's records: its gate (``None``: its patterns run on every text), its patterns and
    its lexicon entries by role."""

    code: str
    gate: re.Pattern[str] | None
    patterns: tuple[Pattern, ...]
    lexicons: dict[str, tuple[str, ...]]


@dataclass(frozen=True)
class InjectionData:
    """Every language's records, in the order of :data:`LANGUAGES`."""

    languages: tuple[Language, ...]

    def lexicon(self, role: str) -> list[str]:
        """A role's entries in every language, in order."""
        return [entry for language in self.languages for entry in language.lexicons.get(role, ())]


def _records(name: str, text: str) -> Iterable[tuple[int, list[str]]]:
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip() and not line.startswith("#"):
            yield number, line.split("\t")


def _compile(name: str, number: int, regex: str, flags: int) -> re.Pattern[str]:
    try:
        return re.compile(regex, flags)
    except re.error as exc:
        raise InjectionDataError(f"bad regular expression: {exc}", file=name, line=number) from None


def read_fragments(name: str, text: str) -> dict[str, str]:
    """The fragments of a ``fragment<TAB>name<TAB>regex`` file, by name (each checked to compile),
    with the URL forms every layer shares (``url``, ``url_start``: :mod:`.injection_text`)."""
    fragments: dict[str, str] = {"url": URL, "url_start": URL_START}
    for number, fields in _records(name, text):
        if len(fields) != 3 or fields[0] != "fragment" or not _NAME.fullmatch(fields[1]) or not fields[2]:
            raise InjectionDataError("expected fragment<TAB>name<TAB>regex", file=name, line=number)
        if fields[1] in fragments:
            raise InjectionDataError(f"fragment {fields[1]!r} is defined twice", file=name, line=number)
        _compile(name, number, fields[2], PATTERN_FLAGS)
        fragments[fields[1]] = fields[2]
    return fragments


def _needs(name: str, number: int, field: str) -> tuple[tuple[str, ...], ...]:
    if field == "-":
        return ()
    groups = tuple(tuple(word.strip() for word in group.split("|")) for group in field.split("&"))
    if any(not word or word != word.casefold() for group in groups for word in group):
        raise InjectionDataError(
            f"needs {field!r}: lower-case words, '|' between the words of a group, '&' between groups, or '-'",
            file=name,
            line=number,
        )
    return groups


def read_language(code: str, name: str, text: str, fragments: dict[str, str]) -> Language:
    """A language's records from its file's text (``name`` is how errors name the file)."""
    gate: re.Pattern[str] | None = None
    patterns: list[Pattern] = []
    lexicons: dict[str, list[str]] = {}

    def expand(number: int, regex: str) -> str:
        def one(match: re.Match[str]) -> str:
            if match.group(1) not in fragments:
                raise InjectionDataError(f"unknown fragment {{={match.group(1)}}}", file=name, line=number)
            return fragments[match.group(1)]

        return _FRAGMENT.sub(one, regex)

    for number, fields in _records(name, text):
        kind = fields[0]
        if kind == "gate":
            if len(fields) != 2 or not fields[1]:
                raise InjectionDataError("expected gate<TAB>regex", file=name, line=number)
            if gate is not None:
                raise InjectionDataError("a second gate (a language has one)", file=name, line=number)
            gate = _compile(name, number, fields[1], GATE_FLAGS)
        elif kind == "pattern":
            if len(fields) != 4 or not fields[1].strip() or not fields[3]:
                raise InjectionDataError("expected pattern<TAB>why<TAB>needs<TAB>regex", file=name, line=number)
            regex = _compile(name, number, expand(number, fields[3]), PATTERN_FLAGS)
            needs = _needs(name, number, fields[2])
            patterns.append(Pattern(regex, fields[1].strip(), needs, code, f"{name}:{number}"))
        elif kind == "lexicon":
            if len(fields) != 3 or fields[1] not in ROLES:
                raise InjectionDataError(
                    f"expected lexicon<TAB>role<TAB>entries, a role among {', '.join(ROLES)}", file=name, line=number
                )
            entries = [entry.strip() for entry in fields[2].split("|")]
            if not all(entries):
                raise InjectionDataError("an empty lexicon entry (two '|' in a row?)", file=name, line=number)
            lexicons.setdefault(fields[1], []).extend(entries)
        else:
            raise InjectionDataError(
                f"unknown record kind {kind[:40]!r}: expected gate, pattern or lexicon", file=name, line=number
            )
    return Language(code, gate, tuple(patterns), {role: tuple(entries) for role, entries in lexicons.items()})


def load(folder: Traversable) -> InjectionData:
    """The data of a folder of files (``fragments.tsv`` and one ``<language>.tsv`` per language of
    :data:`LANGUAGES`), checked: a :class:`InjectionDataError` names the file and line of a fault."""

    def read(file: str) -> tuple[str, str]:
        path = folder.joinpath(file)
        try:
            return str(path), path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InjectionDataError(f"cannot read the injection rule's data: {exc}", file=str(path)) from None

    fragments = read_fragments(*read(FRAGMENTS_FILE))
    return InjectionData(tuple(read_language(code, *read(f"{code}.tsv"), fragments) for code in LANGUAGES))


def shipped_folder() -> Traversable:
    """Where the shipped data is: ``toolsearch_cli/lint/data/injection/``."""
    return resources.files("toolsearch_cli.lint").joinpath("data", "injection")


@cache
def injection_data() -> InjectionData:
    """The shipped data, read and checked on first use."""
    return load(shipped_folder())
