"""The rule that only the command line names code to run: a file (a simulation script, a
recording) that names a catalog which would run code when loaded (a ``.py`` file, a Python
module, an ``mcp+stdio`` server) is refused, whatever else it says."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import Any

from ...errors import UsageError
from .base import Source, parse_source


def runs_code(source: str | os.PathLike[str] | Source) -> str | None:
    """What loading ``source`` would run, as words (``"starts the program 'x'"``), or ``None`` for
    data: files and folders of YAML/JSON, ``mcp+http`` servers, registries. Python files and
    modules are imported; ``mcp+stdio`` starts its command. A string is parsed first (its errors
    are the source's own: a missing file, a command that does not split)."""
    return parse_source(source).runs_code


def refuse_unnamed_code(sources: Iterable[Any], named_by: str, file: str, lines: Sequence[int | None] = ()) -> None:
    """Refuse every source in ``sources`` that would run code (see :func:`runs_code`): a file
    (a script, a recording) is data, and only the command line may name code to run.

    ``named_by`` says what named them (``"the recording"``); ``lines`` are their lines in ``file``.
    Values that are not strings are left to the loader's own checks.
    """
    import shlex

    for i, source in enumerate(sources):
        if not isinstance(source, str):
            continue
        what = runs_code(source)
        if what is not None:
            raise UsageError(
                f"{named_by} names the catalog {source!r}, which {what}; toolsearch never runs code "
                f"the command line does not name: add --catalog {shlex.quote(source)} to run it",
                file=file,
                line=lines[i] if i < len(lines) else None,
                field="catalog",
            )


__all__ = ["refuse_unnamed_code", "runs_code"]
