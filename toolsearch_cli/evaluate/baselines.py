"""Saved runs (``eval --save``), read back as baselines, and the comparison of two runs."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..bounded import loads_json
from ..errors import UsageError, kind_of
from ..files import read_text
from .metrics import eval_depth
from .runs import RankerRun

#: Version of the ``--save`` file format.
SAVE_FORMAT = 1


def run_document(
    runs: Sequence[RankerRun], *, source: str, catalog_sources: Sequence[str], by: str | None = "subset"
) -> dict[str, Any]:
    """A run as JSON data for ``--save``: metrics per ranker and every query's relevant-tool ranks."""
    ks = runs[0].ks if runs else []
    doc: dict[str, Any] = {
        "format": SAVE_FORMAT,
        "tool": "toolsearch eval",
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "queries_source": source,
        "catalog": list(catalog_sources),
        "ks": ks,
        "depth": eval_depth(ks) if ks else None,
        "category_field": runs[0].category_field if runs else None,
        "rankers": {run.ranker: run.metrics() for run in runs},
    }
    if by:
        doc[f"by_{by}"] = {run.ranker: run.by(by) for run in runs}
    doc["query_set"] = [
        {"id": r.query.id, "query": r.query.query, "relevant": r.query.relevant, "subset": r.query.subset}
        for r in (runs[0].results if runs else [])
    ]
    doc["ranks"] = {run.ranker: {r.query.id: r.ranks for r in run.results} for run in runs}
    return doc


def load_run_document(path: str | Path) -> dict[str, Any]:
    """Read a ``--save`` file back; anything else is a one-line error."""
    file = str(path)
    text = read_text(path, file, what="the baseline", error=UsageError)
    doc = loads_json(text, file, error=UsageError)
    if (
        not isinstance(doc, dict)
        or doc.get("tool") != "toolsearch eval"
        or not isinstance(doc.get("rankers"), dict)
        or not isinstance(doc.get("ranks"), dict)
    ):
        raise UsageError("not a run saved by `toolsearch eval --save`", file=file, line=1)
    if doc.get("format") != SAVE_FORMAT:
        raise UsageError(f"saved with format {doc.get('format')!r}; this version reads format {SAVE_FORMAT}", file=file)
    _check_run_document(doc, file, text)
    return doc


def _check_run_document(doc: dict[str, Any], file: str, text: str) -> None:
    """The parts of a saved run a comparison reads have the types ``--save`` writes (an edited
    file may not): ``rankers``: ranker -> {metric: number}; ``ranks``: ranker -> query -> tool ->
    rank (a whole number from 1) or null."""
    from ..catalog.document import Document, pointer_join

    located = Document(doc, file, text)

    def fail(pointer: str, message: str) -> UsageError:
        return UsageError(message, file=file, line=located.line_of(pointer), field=pointer)

    depth = doc.get("depth")  # how deep the run was ranked: bounds --diff-k
    whole = isinstance(depth, int) and not isinstance(depth, bool)
    if depth is not None and (not whole or depth < 1):
        raise fail("/depth", f"the depth must be a whole number from 1, not {depth if whole else kind_of(depth)}")
    for ranker, metrics in doc["rankers"].items():
        if not isinstance(metrics, dict):
            raise fail(
                pointer_join("/rankers", ranker), f"must be a mapping of metric to number, not {kind_of(metrics)}"
            )
    for ranker, queries in doc["ranks"].items():
        at = pointer_join("/ranks", ranker)
        if not isinstance(queries, dict):
            raise fail(at, f"must map query ids to the ranks of their tools, not {kind_of(queries)}")
        for qid, ranks in queries.items():
            if not isinstance(ranks, dict):
                raise fail(pointer_join(at, qid), f"must map tool names to ranks, not {kind_of(ranks)}")
            for tool, rank in ranks.items():
                if rank is not None and (isinstance(rank, bool) or not isinstance(rank, int) or rank < 1):
                    shown = rank if isinstance(rank, int) else kind_of(rank)
                    raise fail(
                        pointer_join(at, qid, tool), f"a rank must be a whole number from 1 or null, not {shown}"
                    )


def default_diff_k(ks: Sequence[int]) -> int:
    """The k the baseline diff uses unless told: 5 when measured, else the largest k."""
    return 5 if 5 in ks else max(ks)


def compare_runs(current: dict[str, Any], baseline: dict[str, Any], k: int) -> dict[str, Any]:
    """Metric deltas per ranker and the (query, tool) pairs that moved out of or into the top ``k``.

    Rankers and queries present in only one of the runs are listed, not compared.
    """
    texts = {q["id"]: q["query"] for q in current.get("query_set", [])}
    out: dict[str, Any] = {"k": k, "rankers": {}}
    for ranker, metrics in current["rankers"].items():
        old = baseline["rankers"].get(ranker)
        if not isinstance(old, dict):
            continue
        deltas = {
            key: {"baseline": old[key], "current": value, "delta": value - old[key]}
            for key, value in metrics.items()
            if key != "queries" and isinstance(old.get(key), int | float)
        }
        now_ranks: dict[str, dict[str, int | None]] = current["ranks"].get(ranker, {})
        old_ranks: dict[str, dict[str, int | None]] = baseline["ranks"].get(ranker, {})
        if not isinstance(old_ranks, dict):
            old_ranks = {}
        moved_out: list[dict[str, Any]] = []
        moved_in: list[dict[str, Any]] = []
        changed = 0
        for qid, ranks in now_ranks.items():
            before_ranks = old_ranks.get(qid)
            if not isinstance(before_ranks, dict):
                continue
            for tool, after in ranks.items():
                if tool not in before_ranks:
                    continue
                before = before_ranks[tool]
                if before != after:
                    changed += 1
                was_in = before is not None and before <= k
                is_in = after is not None and after <= k
                entry = {"id": qid, "query": texts.get(qid, ""), "tool": tool, "before": before, "after": after}
                if was_in and not is_in:
                    moved_out.append(entry)
                elif is_in and not was_in:
                    moved_in.append(entry)
        out["rankers"][ranker] = {
            "metrics": deltas,
            "moved_out": moved_out,
            "moved_in": moved_in,
            "rank_changes": changed,
            "queries_only_now": sorted(set(now_ranks) - set(old_ranks)),
            "queries_only_in_baseline": sorted(set(old_ranks) - set(now_ranks)),
        }
    out["rankers_not_in_baseline"] = [r for r in current["rankers"] if r not in baseline["rankers"]]
    return out
