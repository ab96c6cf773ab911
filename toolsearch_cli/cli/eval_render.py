"""Rich renderers for ``toolsearch eval``: metric tables, misses with explanations, baseline diff, gates."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.text import Text

from ..evaluate import EvalReport, GateResult, Miss
from ..markup import plain_text
from .render import Col, data, excerpt, plural, render_table


def render_report(out: Console, report: EvalReport) -> None:
    """The table output of ``toolsearch eval``: metrics, then the breakdown, misses, baseline diff
    and embedding cost when they apply."""
    s = report.settings
    what = "catalog examples" if report.source == "examples" else report.source
    count = len(report.queries)
    title = f"{count} {'query' if count == 1 else 'queries'} from {what} · catalog {', '.join(report.catalog_sources)}"
    if report.embed_model is not None:
        title += f" · embeddings {report.embed_model}"
    render_summary(out, report.metrics, s.ks, title=title)
    if s.by is not None:
        render_breakdown(out, s.by, report.breakdown(), s.ks)
    if s.failures:
        render_misses(out, report.misses, s.failures)
    if report.comparison is not None:
        render_comparison(out, report.comparison)
    if report.embedding is not None:
        from .embed_progress import cost_line

        out.print(data(cost_line(report.embedding), "dim"))


def _columns(ks: Sequence[int]) -> list[tuple[str, str]]:
    cols = [(f"recall@{k}", f"R@{k}") for k in ks]
    cols += [(f"ndcg@{k}", f"NDCG@{k}") for k in ks if k > 1]
    cols += [("mrr", "MRR"), ("ms_per_query", "ms/q")]
    return cols


def _metrics_table(
    out: Console,
    headers: list[str],
    rows: list[tuple[list[str], dict[str, Any]]],
    ks: Sequence[int],
    title: str,
    count: str,
) -> None:
    """One row per (labels, metrics); the best quality value among rows sharing the first label is bold.

    With two label columns (value, ranker), rows with the same value compete; with one, all rows do.
    Numbers are never cut: a terminal too narrow for the table gets one block per row instead.
    """
    cols = _columns(ks)
    columns = [Col(header, style="cyan" if header == "ranker" else "") for header in headers]
    columns += [Col(count, "number", justify="right")] + [Col(header, "number", justify="right") for _, header in cols]
    groups: dict[str, list[dict[str, Any]]] = {}
    for label, metrics in rows:
        groups.setdefault(label[0] if len(headers) > 1 else "", []).append(metrics)
    cells_by_row: list[list[str | Text]] = []
    for label, metrics in rows:
        peers = groups[label[0] if len(headers) > 1 else ""]
        cells: list[str | Text] = [*label, str(metrics["queries"])]
        for key, _ in cols:
            value = metrics[key]
            if key == "ms_per_query":
                cells.append(f"{value:.2f}")
                continue
            best = len(peers) > 1 and value == max(p[key] for p in peers) and value > 0
            cells.append(Text(f"{value:.3f}", style="bold green" if best else ""))
        cells_by_row.append(cells)
    render_table(out, columns, cells_by_row, title=title, key_columns=len(headers))


def render_summary(out: Console, metrics: dict[str, dict[str, Any]], ks: Sequence[int], *, title: str) -> None:
    rows = [([name], values) for name, values in metrics.items()]
    _metrics_table(out, ["ranker"], rows, ks, title, "queries")


def render_breakdown(out: Console, field: str, groups: dict[str, dict[str, dict[str, Any]]], ks: Sequence[int]) -> None:
    """Metrics per value of a field; the ranker column only when several rankers ran."""
    several = len({name for by_ranker in groups.values() for name in by_ranker}) > 1
    rows = [
        ([value, name] if several else [value], metrics)
        for value, by_ranker in groups.items()
        for name, metrics in by_ranker.items()
    ]
    out.print()
    _metrics_table(out, [field, "ranker"] if several else [field], rows, ks, f"by {field}", "n")


def _explanation(hit_contributions: Sequence[Any], limit: int = 6) -> str:
    parts = sorted(hit_contributions, key=lambda c: -c.points)
    text = ", ".join(f"{c.term}→{c.field} {c.points:.2f}" for c in parts[:limit])
    if len(parts) > limit:
        text += f", … {len(parts) - limit} more"
    return text or "(no explanation)"


def render_misses(out: Console, misses: list[Miss], n: int) -> None:
    out.print()
    if not misses:
        out.print(Text("no misses: every expected tool ranked above every other tool", style="green"))
        return
    out.print(Text(f"worst misses (up to {n} per ranker)", style="bold"))
    for i, miss in enumerate(misses, 1):
        out.print()
        where = (
            f"rank {miss.rank}, score {miss.score:.2f}, {plural(miss.above_count, 'other tool')} above"
            if miss.rank is not None and miss.score is not None
            else "not returned: it scored 0 for this query"
        )
        out.print(
            Text.assemble(
                (f"{i}. ", "dim"),
                data(f"[{miss.ranker}] ", "dim"),
                data(miss.query.id, "bold"),
                "  ",
                data(excerpt(miss.query.query, 100), "italic"),
            )
        )
        out.print(Text.assemble("   expected ", data(miss.tool, "bold cyan"), f": {where}"))
        if miss.hit is not None:
            out.print(data(f"     why: {_explanation(miss.hit.contributions)}", "dim"))
        if miss.above_count == 0:
            out.print(Text("   no tool scored for this query", style="dim"))
        for rank, hit in enumerate(miss.above, 1):
            out.print(
                Text.assemble(
                    f"   above #{rank} ",
                    data(hit.tool.name, "yellow"),
                    f" score {hit.score:.2f}",
                    data(f"  {excerpt(plain_text(hit.tool.description), 70)}", "dim"),
                )
            )
            out.print(data(f"     why: {_explanation(hit.contributions)}", "dim"))
        if miss.above_count > len(miss.above):
            out.print(Text(f"   … and {miss.above_count - len(miss.above)} more above it", style="dim"))


def _rank(value: int | None) -> str:
    return "—" if value is None else str(value)


def render_comparison(out: Console, comparison: dict[str, Any]) -> None:
    k = comparison["k"]
    out.print()
    rows: list[list[str | Text]] = []
    for ranker, diff in comparison["rankers"].items():
        for key, d in diff["metrics"].items():
            delta = d["delta"]
            higher_is_better = key != "ms_per_query"
            good = delta > 0 if higher_is_better else delta < 0
            style = "" if abs(delta) < 1e-12 else ("green" if good else "red")
            fmt = ".2f" if key == "ms_per_query" else ".3f"
            rows.append(
                [ranker, key, f"{d['baseline']:{fmt}}", f"{d['current']:{fmt}}", Text(f"{delta:+{fmt}}", style=style)]
            )
    columns = [Col("ranker"), Col("metric")] + [Col(h, "number", justify="right") for h in ("baseline", "now", "delta")]
    render_table(out, columns, rows, title=f"compared with {comparison['file']}", key_columns=2)
    for ranker, diff in comparison["rankers"].items():
        for label, entries, style in (
            (f"moved out of the top {k}", diff["moved_out"], "red"),
            (f"moved into the top {k}", diff["moved_in"], "green"),
        ):
            out.print(data(f"\n[{ranker}] {plural(len(entries), 'expected tool')} {label}", f"bold {style}"))
            for e in entries:
                out.print(
                    Text.assemble(
                        "  ",
                        data(e["id"], "bold"),
                        "  ",
                        data(e["tool"], "cyan"),
                        f"  rank {_rank(e['before'])} → {_rank(e['after'])}  ",
                        data(excerpt(e["query"], 70), "dim italic"),
                    )
                )
        notes = []
        if diff["queries_only_now"]:
            notes.append(f"{plural(len(diff['queries_only_now']), 'query', 'queries')} not in the baseline")
        if diff["queries_only_in_baseline"]:
            notes.append(f"{plural(len(diff['queries_only_in_baseline']), 'baseline query', 'baseline queries')} gone")
        notes.append(f"{plural(diff['rank_changes'], 'rank change')} in all")
        out.print(data(f"\n[{ranker}] " + "; ".join(notes), "dim"))
    for ranker in comparison["rankers_not_in_baseline"]:
        out.print(data(f"[{ranker}] not in the baseline: not compared", "dim"))


def render_gates(err: Console, results: list[GateResult]) -> None:
    for r in results:
        fmt = ".2f" if r.gate.metric == "ms_per_query" else ".3f"
        if r.passed:
            err.print(
                f"gate passed: {r.ranker} {r.gate.metric} = {r.value:{fmt}} >= {r.gate.minimum:g}",
                markup=False,
                style="green",
            )
        else:
            err.print(
                f"gate failed: {r.ranker} {r.gate.metric} = {r.value:{fmt}} < {r.gate.minimum:g} (--min {r.gate.text})",
                markup=False,
                style="bold red",
            )
