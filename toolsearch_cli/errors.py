"""One error base class for everything a user can get wrong.

The CLI catches :class:`ToolsearchError` once and prints ``error: <message>`` on one line
(exit code 2). Messages name the place (file:line), the tool and the field, and what was
expected.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence


class ToolsearchError(Exception):
    """Base class of every error toolsearch reports to a user."""

    exit_code = 2
    #: The longest message shown (its middle elided): ``None``, any length.
    message_width: int | None = None

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        tool: str | None = None,
        field: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.tool = tool
        self.field = field

    def __str__(self) -> str:
        where = ""
        if self.file:
            where = f"{self.file}:{self.line}: " if self.line else f"{self.file}: "
        subject = []
        if self.tool:
            subject.append(f"tool {_middle(self.tool, _TOOL_WIDTH)!r}")
        if self.field:
            subject.append(f"field {_middle(self.field)!r}")
        prefix = f"{', '.join(subject)}: " if subject else ""
        message = self.message if self.message_width is None else _middle(self.message, self.message_width)
        from .redaction import mask_userinfo  # a URL's password echoed in a message, however it was typed

        return mask_userinfo(f"{where}{prefix}{message}")


#: The longest field path an error shows (a 200-level schema has a 2 KB path): its ends are kept.
_FIELD_WIDTH = 100
#: The longest tool name an error shows (a catalog may name a tool with 5,000 characters).
_TOOL_WIDTH = 80


def _middle(text: str, width: int = _FIELD_WIDTH) -> str:
    """``text`` cut to ``width`` characters by eliding its middle."""
    if len(text) <= width:
        return text
    half = (width - 3) // 2
    return f"{text[:half]}...{text[-half:]}"


class CatalogError(ToolsearchError):
    """A catalog source cannot be read, parsed or validated. Its message quotes what the catalog
    said (a 5,000-character type name, a server's answer): cut to one short line."""

    message_width = 200


class SourceUnavailable(CatalogError):
    """A source names a service that cannot be reached, or that holds nothing under that name (a
    registry that is down, a namespace never pushed): there is nothing to read, as with a missing
    file. ``lint`` stops on it rather than reporting it as a broken file."""


class NotACatalog(CatalogError):
    """A file that parsed, but has none of the shapes of a catalog (a ``package.json``, a compose
    file): the error that loading it gave, with ``reason`` saying why it is no catalog at all. A
    folder's walk skips such a file with a warning; named by itself, it is the error it always was."""

    def __init__(self, error: CatalogError, reason: str) -> None:
        super().__init__(error.message, file=error.file, line=error.line, tool=error.tool, field=error.field)
        self.reason = reason


class SearchError(ToolsearchError):
    """A search request is invalid (blank query, bad max results, unknown ranker)."""


class EmbedError(ToolsearchError):
    """Vectors cannot be had: no model configured, a model folder that is not one, a failing endpoint.

    Not a :class:`SearchError`: those are about one query (and an evaluation scores such a query as
    a miss); this stops the run, whatever the query.
    """


class UsageError(ToolsearchError):
    """Options that do not fit together, or a value outside what is accepted."""


class ToolArgumentsError(ToolsearchError):
    """A tool call's arguments do not fit the tool's schema: ``problems`` lists each way (with its
    path), ``problem`` joins them."""

    def __init__(self, tool: str, problem: str, problems: Sequence[str] | None = None) -> None:
        super().__init__(f"invalid arguments for {tool}: {problem}", field="arguments")
        self.tool = tool
        self.problem = problem
        self.problems: list[str] = list(problems) if problems is not None else [problem]


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """Return ``" (did you mean 'x'?)"`` for the closest choice, or ``""``."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def edit_distance(a: str, b: str, limit: int) -> int:
    """Edits (insert, delete, replace, swap two neighbours) that turn ``a`` into ``b``, or
    ``limit + 1`` as soon as more than ``limit`` are needed."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    before: list[int] = []
    previous = list(range(len(b) + 1))
    for i, char in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, other in enumerate(b, 1):
            cost = current[j - 1] + 1, previous[j] + 1, previous[j - 1] + (char != other)
            current[j] = min(cost)
            if i > 1 and j > 1 and char == b[j - 2] and a[i - 2] == other:
                current[j] = min(current[j], before[j - 2] + 1)
        if min(current) > limit:
            return limit + 1
        before, previous = previous, current
    return min(previous[-1], limit + 1)


def kind_of(value: object, other: str | None = None) -> str:
    """Describe a value's JSON kind for an error message: ``"a string"``, ``"a list"``, ``"nothing"`` ...

    Anything that is not a JSON kind is described as ``other``, or by its type name when not given.
    """
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return other if other is not None else type(value).__name__
