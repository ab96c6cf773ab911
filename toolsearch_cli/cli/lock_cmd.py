"""``toolsearch lock``: write the lockfile of every tool's definition (rug-pull detection; see
:mod:`toolsearch_cli.lock`), and the ``--locked [FILE]`` option ``lint`` and ``serve`` share."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from .. import environment
from .render import data, plural

if TYPE_CHECKING:
    from rich.console import Console

    from ..lock import Changes

LOCK_PATHS_ARGUMENT = typer.Argument(
    None,
    help="Catalog files, folders, modules, mcp+stdio:/mcp+http:// servers or registries. "
    f"Default: ${environment.CATALOG}, else ./catalogs, else the demo.",
    metavar="[PATH]...",
)
LOCK_OUTPUT_OPTION = typer.Option("toolsearch.lock", "--output", "-o", help="The lockfile to write.", metavar="FILE")
#: ``--locked [FILE]`` of ``lint`` and ``serve`` (a bare ``--locked`` is given its default by
#: :func:`locked_args` before the command line is parsed).
LOCKED_OPTION = typer.Option(
    None,
    "--locked",
    help="Check every tool against this lockfile (bare --locked: toolsearch.lock), written by `toolsearch lock`.",
    metavar="[FILE]",
)


def lock(paths: list[str] | None = LOCK_PATHS_ARGUMENT, output: str = LOCK_OUTPUT_OPTION) -> None:
    """Write a lockfile of every tool's definition (name, description, input schema) and its hash."""
    from ..catalog.sources import parse_sources
    from ..lock import lock_sources
    from .render import console

    outcome = lock_sources(parse_sources(paths), output)
    sources = {p.source for p in outcome.pins}
    said = f"wrote {outcome.path}: {plural(len(outcome.pins), 'tool')} from {plural(len(sources), 'source')}"
    if outcome.since is None:
        said += " (a new lockfile)"
    elif outcome.since.clean:
        said += " (unchanged)"
    else:
        said += f" (since the last lock: {outcome.since.summary()})"
    out = console()
    out.print(data(said), soft_wrap=True)
    if outcome.since is not None:
        _show_changes(out, outcome.since)


#: The most tools ``lock`` names one by one among those it recorded as changed.
SHOWN_CHANGES = 20


def _show_changes(out: Console, since: Changes) -> None:
    """One line per tool whose entry this lock added, changed or removed (the first few)."""
    rows = [("changed", now) for _, now in since.changed]
    rows += [("added", p) for p in since.added] + [("removed", p) for p in since.removed]
    for what, entry in rows[:SHOWN_CHANGES]:
        out.print(data(f"  {what}: {entry.source}: {entry.name}", "dim"), soft_wrap=True)
    if len(rows) > SHOWN_CHANGES:
        out.print(data(f"  ... and {len(rows) - SHOWN_CHANGES} more", "dim"))


def locked_args(args: list[str]) -> list[str]:
    """``--locked`` with no value gets ``toolsearch.lock``: the next word is its value only when it
    is a lockfile (an existing file that says so, or a new name ending ``.lock``), so
    ``lint --locked catalogs/`` lints ``catalogs/`` against ``toolsearch.lock``."""
    from ..lock import LOCKFILE_NAME

    out: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            return out + args[i:]
        if arg != "--locked":
            out.append(arg)
        elif i + 1 < len(args) and not args[i + 1].startswith("-") and _names_a_lockfile(args[i + 1]):
            out.append(f"--locked={args[i + 1]}")
            i += 1
        else:
            out.append(f"--locked={LOCKFILE_NAME}")
        i += 1
    return out


def _names_a_lockfile(word: str) -> bool:
    from ..bounded import path_problem, safe_is_file

    if safe_is_file(word):
        try:
            with open(word, "rb") as handle:
                return b'"lockfileVersion"' in handle.read(4096)
        except OSError:
            return False
    return path_problem(word) == "no such file" and word.endswith((".lock", ".lock.json"))
