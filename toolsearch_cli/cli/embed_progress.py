"""What embedding costs, as the CLI shows it: a progress bar with an ETA on an interactive stderr
while a model embeds many texts, and the "embedding: N texts in X s (M cached)" footer.

The core (``search/embed.py``) draws nothing: it reports to an ``EmbedProgress`` set with
``set_progress`` and counts into ``embed_cost()``; this module is the Rich side of both.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress

    from ..search.embed_settings import EmbedCost


class RichEmbedProgress:
    """The core's ``EmbedProgress`` as a transient Rich bar (texts done of total, ETA) on ``console``.

    Given a ``progress`` already on screen (``eval``'s bar of queries), the embedding run is one more
    line of it, removed when done: Rich shows one live display at a time.
    """

    def __init__(self, console: Console, progress: Progress | None = None) -> None:
        self.console = console
        self.shared = progress
        self.progress: Progress | None = None
        self.task: Any = None

    def start(self, total: int, label: str) -> None:
        from ..printable import shown
        from ..redaction import redact

        progress = self.shared
        if progress is None:
            progress = self.progress = _new_progress(self.console)
            progress.start()
        description = f"embedding {total:,} texts with {shown(redact(label))[:80]} (once: cached)"
        self.task = progress.add_task(description, total=total)
        self.progress = progress

    def advance(self, count: int) -> None:
        if self.progress is not None and self.task is not None:
            self.progress.advance(self.task, count)

    def stop(self) -> None:
        progress, task = self.progress, self.task
        self.task = None
        if progress is None:
            return
        if task is not None:
            progress.remove_task(task)
        if progress is not self.shared:
            progress.stop()
        self.progress = None


#: Columns the bar (20), the count (up to "10000/10000"), "ETA" and the time left take, with gaps.
_AFTER_DESCRIPTION = 46


def _new_progress(console: Console) -> Progress:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
    from rich.table import Column

    # the description holds a model path: shown as text, never as markup, and cut to fit (with
    # "…") so that the bar, the count and the ETA stay on an 80-column line
    description = Column(no_wrap=True, overflow="ellipsis", max_width=max(12, console.width - _AFTER_DESCRIPTION))
    return Progress(
        TextColumn("{task.description}", markup=False, table_column=description),
        BarColumn(bar_width=20),
        MofNCompleteColumn(),
        TextColumn("ETA", markup=False),
        TimeRemainingColumn(),
        console=console,
        transient=True,
    )


def shows_progress(console: Console, output_format: str = "table") -> bool:
    """A bar is drawn only on an interactive stderr that can redraw a line, and never with JSON output."""
    return output_format != "json" and console.is_terminal and not console.is_dumb_terminal


@contextmanager
def embed_progress(output_format: str = "table", progress: Progress | None = None) -> Iterator[None]:
    """While inside, long embedding runs draw a bar on stderr (when :func:`shows_progress`)."""
    from ..search.embed_settings import set_progress
    from .render import error_console

    err = error_console()
    if not shows_progress(err, output_format):
        yield
        return
    previous = set_progress(RichEmbedProgress(err, progress))
    try:
        yield
    finally:
        set_progress(previous)


def cost_line(cost: EmbedCost) -> str:
    """``embedding: 3 texts in 0.21 s (130 cached)``: what producing the vectors took in this command."""
    texts = "1 text" if cost.texts == 1 else f"{cost.texts:,} texts"
    return f"embedding: {texts} in {cost.seconds:.2f} s ({cost.cached:,} cached)"
