"""HTML reports of ``toolsearch eval --report`` and ``toolsearch simulate --report``.

Each is one self-contained file: styles inline, charts as inline SVG drawn by :mod:`.svg` (no
charting library, no script), a Content-Security-Policy that forbids every load, every text
from a catalog, a query set, a script or a model escaped (:func:`.svg.esc`). Nothing here prints.

- :func:`eval_html` (:mod:`.eval_page`): recall@k curves, MRR/NDCG per query set, the misses and
  the baseline deltas of an :class:`~toolsearch_cli.evaluate.EvalReport`;
- :func:`simulate_html` (:mod:`.simulate_page`): tokens per request per policy, the tools of
  each request as a timeline, prompt-cache stability and the findings of a
  :class:`~toolsearch_cli.simulate.SimulationResult`;
- :func:`write_report`: the document written atomically (a temporary file renamed).
"""

from __future__ import annotations

from pathlib import Path

from ..errors import UsageError
from ..files import write_text_atomic
from .eval_page import eval_html
from .simulate_page import simulate_html


def write_report(path: str | Path, document: str) -> None:
    """Write ``document`` to ``path`` through a temporary file renamed over it; a folder, or a
    place that cannot be written, is a one-line :class:`~toolsearch_cli.errors.UsageError`."""
    write_text_atomic(path, document, what="the report", error=UsageError, field="--report")


__all__ = ["eval_html", "simulate_html", "write_report"]
