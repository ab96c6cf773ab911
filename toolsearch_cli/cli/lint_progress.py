"""``toolsearch lint``'s progress bar: the rules run so far over a large catalog, on an interactive
stderr only (never piped, on a dumb terminal or with ``--format json``), as ``eval`` draws its
queries and the embedding runs theirs (:mod:`.embed_progress`).

The engine draws nothing: it tells a callback each rule's start and end
(:class:`toolsearch_cli.lint.engine.LintStep`); this module is the Rich side.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress

    from ..lint.engine import LintProgress, LintStep

#: A catalog this large gets a bar; a smaller one lints in well under a second, and a bar that
#: flashes on and off is noise.
MIN_TOOLS = 500


class LintBar:
    """A transient bar of rules (done of total), started at the first step of a large catalog."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.progress: Progress | None = None
        self.task: Any = None

    def __call__(self, step: LintStep) -> None:
        if self.progress is None:
            if step.tools < MIN_TOOLS or step.rule is None:
                return
            self.progress = _new_bar(self.console)
            self.progress.start()
            self.task = self.progress.add_task(_label(step), total=step.total)
        self.progress.update(self.task, completed=step.done, description=_label(step))

    def stop(self) -> None:
        if self.progress is not None:
            self.progress.stop()
            self.progress = None


def _label(step: LintStep) -> str:
    return f"lint {step.tools:,} tools" + (f" · {step.rule}" if step.rule else "")


def _new_bar(console: Console) -> Progress:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(
        TextColumn("{task.description}", markup=False),
        BarColumn(bar_width=20),
        MofNCompleteColumn(),
        TextColumn("rules", markup=False),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    )


@contextmanager
def lint_progress(output_format: str) -> Iterator[LintProgress | None]:
    """The callback to give ``run_lint`` (``None`` when no bar may be drawn); the bar is removed on exit."""
    from .embed_progress import shows_progress
    from .render import error_console

    err = error_console()
    if not shows_progress(err, output_format):
        yield None
        return
    bar = LintBar(err)
    try:
        yield bar
    finally:
        bar.stop()
