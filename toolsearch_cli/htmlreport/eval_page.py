"""The HTML report of ``toolsearch eval --report``: recall@k curves, MRR/NDCG per query set,
the misses with where the right tool landed, and the deltas against a baseline."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..evaluate import EvalReport, RankerRun, eval_depth, recall_at
from ..evaluate.misses import MISS_ROWS, MissRow, miss_rows
from .page import Column, Markup, charts, excerpt, page, table
from .svg import Series, bar_chart, delta_chart, esc, line_chart

#: Query sets (values of --by, or subsets) drawn as bars; the rest are counted in a note.
MAX_SETS = 16


def recall_curve(run: RankerRun, depth: int) -> list[tuple[float, float]]:
    """(k, macro-averaged recall@k) for k = 1..depth, from each query's kept ranking."""
    results = run.results
    if not results:
        return []
    out = []
    for k in range(1, depth + 1):
        total = sum(recall_at(r.ranked, set(r.query.relevant), k) for r in results)
        out.append((float(k), total / len(results)))
    return out


def _set_field(report: EvalReport) -> str | None:
    """The query field whose values are the query sets: --by, else ``subset`` when queries carry one."""
    if report.settings.by is not None:
        return report.settings.by
    if any(q.subset for q in report.queries):
        return "subset"
    return None


def _metric_columns(ks: Sequence[int]) -> list[tuple[str, str]]:
    cols = [(f"recall@{k}", f"R@{k}") for k in ks]
    cols += [(f"ndcg@{k}", f"NDCG@{k}") for k in ks if k > 1]
    return [*cols, ("mrr", "MRR"), ("ms_per_query", "ms/q")]


def _metrics_table(
    rows: list[tuple[str, dict[str, Any]]], ks: Sequence[int], first: str, groups: Sequence[str] = ()
) -> str:
    """One row per (label, metrics); the best quality value among the rows of the same group
    (``groups[i]``; none given: all rows compete) is bold."""
    cols = _metric_columns(ks)
    columns = [Column(first), Column("queries", True)] + [Column(h, True) for _, h in cols]
    group_of = list(groups) or [""] * len(rows)
    peers: dict[str, list[dict[str, Any]]] = {}
    for group, (_, metrics) in zip(group_of, rows, strict=False):
        peers.setdefault(group, []).append(metrics)
    body = []
    for group, (label, metrics) in zip(group_of, rows, strict=False):
        line: list[object] = [label, metrics["queries"]]
        for key, _ in cols:
            value = metrics[key]
            text = f"{value:.2f}" if key == "ms_per_query" else f"{value:.3f}"
            competing = peers[group]
            if key != "ms_per_query" and len(competing) > 1 and value > 0 and value == max(m[key] for m in competing):
                line.append(Markup(f'<strong class="good">{text}</strong>'))
            else:
                line.append(text)
        body.append(line)
    return table(columns, body)


def _sets_section(report: EvalReport) -> list[str]:
    """MRR and NDCG per query set (all queries, then each value of the set field), per ranker."""
    field = _set_field(report)
    ks = report.settings.ks
    ndcg_k = max((k for k in ks if k > 1), default=None)
    groups: list[tuple[str, dict[str, dict[str, Any]]]] = [("all queries", report.metrics)]
    extra = 0
    if field is not None:
        by_value: dict[str, dict[str, dict[str, Any]]] = {}
        for run in report.runs:
            for value, metrics in run.by(field).items():
                by_value.setdefault(value, {})[run.ranker] = metrics
        ordered = sorted(by_value.items(), key=lambda item: (-max(m["queries"] for m in item[1].values()), item[0]))
        extra = max(len(ordered) - MAX_SETS, 0)
        groups += ordered[:MAX_SETS]
    rankers = [run.ranker for run in report.runs]
    names = [label for label, _ in groups]
    out = ["<h2>MRR and NDCG per query set</h2>"]
    what = f"the values of the query field {field!r}" if field else "one set: every query"
    out.append(f'<p class="note">Query sets: {esc(what)}.</p>')
    svgs = [
        bar_chart(
            names,
            [(r, [g.get(r, {}).get("mrr") for _, g in groups]) for r in rankers],
            title="MRR per query set",
            y_label="MRR",
            y_max=1.0,
        )
    ]
    if ndcg_k is not None:
        key = f"ndcg@{ndcg_k}"
        svgs.append(
            bar_chart(
                names,
                [(r, [g.get(r, {}).get(key) for _, g in groups]) for r in rankers],
                title=f"NDCG@{ndcg_k} per query set",
                y_label=f"NDCG@{ndcg_k}",
                y_max=1.0,
            )
        )
    out.append(charts(*svgs))
    if extra:
        out.append(f'<p class="note">{extra} smaller query sets are not drawn; the table lists them all.</p>')
    if field is not None:
        rows = []
        values = []
        by_ranker = {run.ranker: run.by(field) for run in report.runs}
        for value in by_ranker[rankers[0]]:
            for ranker in rankers:
                found = by_ranker[ranker].get(value)
                if found is not None:
                    label = excerpt(value, 80)  # a query field's value: data, of any length
                    rows.append((f"{label} · {ranker}" if len(rankers) > 1 else label, found))
                    values.append(value if len(rankers) > 1 else "")
        out.append(_metrics_table(rows, ks, field, values))
    return out


def _miss_section(report: EvalReport) -> list[str]:
    out = ["<h2>Misses</h2>"]
    out.append(
        '<p class="note">A miss: an expected tool ranked below another tool, or not returned within the '
        f"depth ranked ({eval_depth(report.settings.ks)}). Worst first. The top hit is what ranked first, "
        "with the fields its score came from.</p>"
    )
    catalog = report.catalog
    if catalog is None:
        out.append('<p class="note">No catalog to explain the misses with.</p>')
        return out
    depth = eval_depth(report.settings.ks)
    for i, run in enumerate(report.runs):
        rows, total = miss_rows(catalog, run, MISS_ROWS, embed=report.settings.embed)
        heading = f"{esc(run.ranker)}: {total} miss{'es' if total != 1 else ''}"
        if not rows:
            out.append(f"<h3>{heading}</h3>")
            out.append('<p class="good">No misses: every expected tool ranked above every other tool.</p>')
            continue
        # a table per ranker, folded but for the first (no script: the browser's own <details>)
        out.append(f"<details{' open' if i == 0 else ''}><summary><h3>{heading}</h3></summary>")
        if total > len(rows):
            out.append(f'<p class="note">The worst {len(rows)} of {total} are listed.</p>')
        out.append(_miss_table(rows, depth))
        out.append("</details>")
    return out


def _miss_table(rows: list[MissRow], depth: int) -> str:
    columns = [
        Column("query"),
        Column("request"),
        Column("expected tool"),
        Column("landed at", True),
        Column("top hit"),
        Column("top hit matched"),
        Column("top hit's description"),
    ]
    body = []
    for row in rows:
        landed = str(row.rank) if row.rank is not None else f"not in top {depth}"
        if row.top is None:
            matched = "(nothing returned)"
        elif row.top_hit is None:
            matched = "(not explained: time budget spent)"
        else:
            matched = ", ".join(dict.fromkeys(row.top_hit.matched_fields)) or "(no field)"
        description = excerpt(row.top_hit.tool.description, 140, markup=True) if row.top_hit is not None else ""
        body.append(
            [
                row.query.id,
                excerpt(row.query.query, 160),
                row.tool,
                landed,
                row.top or "—",
                matched,
                description,
            ]
        )
    return table(columns, body, row_classes=["bad" if row.rank is None else "" for row in rows])


def _baseline_section(comparison: dict[str, Any]) -> list[str]:
    k = comparison["k"]
    out = [f"<h2>Against the baseline {esc(comparison.get('file', ''))}</h2>"]
    rows: list[tuple[str, float, bool]] = []
    body = []
    for ranker, diff in comparison["rankers"].items():
        for key, d in diff["metrics"].items():
            higher = key != "ms_per_query"
            fmt = ".2f" if key == "ms_per_query" else ".3f"
            delta = d["delta"]
            good = delta > 0 if higher else delta < 0
            css = "" if abs(delta) < 1e-12 else ("good" if good else "bad")
            shown_delta = f"{delta:+{fmt}}"
            body.append(
                [
                    ranker,
                    key,
                    f"{d['baseline']:{fmt}}",
                    f"{d['current']:{fmt}}",
                    Markup(f'<span class="{css}">{esc(shown_delta)}</span>') if css else shown_delta,
                ]
            )
            if higher:
                rows.append((f"{ranker} {key}", delta, True))
    if rows:
        out.append(charts(delta_chart(rows, title="Metric deltas (now − baseline)")))
    columns = [Column("ranker"), Column("metric"), Column("baseline", True), Column("now", True), Column("delta", True)]
    out.append(table(columns, body))
    for ranker, diff in comparison["rankers"].items():
        for label, entries, css in (
            (f"moved out of the top {k}", diff["moved_out"], "bad"),
            (f"moved into the top {k}", diff["moved_in"], "good"),
        ):
            shown_css = f' class="{css}"' if entries else ""
            out.append(f"<h3{shown_css}>{esc(ranker)}: {len(entries)} expected tool(s) {label}</h3>")
            if entries:
                moved = [
                    [e["id"], excerpt(e["query"], 120), e["tool"], _rank(e["before"]), _rank(e["after"])]
                    for e in entries
                ]
                cols = [Column("query"), Column("request"), Column("tool"), Column("before", True), Column("now", True)]
                out.append(table(cols, moved, row_classes=[css] * len(moved)))
        notes = [f"{diff['rank_changes']} rank change(s) in all"]
        if diff["queries_only_now"]:
            notes.append(f"{len(diff['queries_only_now'])} query(ies) not in the baseline")
        if diff["queries_only_in_baseline"]:
            notes.append(f"{len(diff['queries_only_in_baseline'])} baseline query(ies) gone")
        out.append(f'<p class="note">{esc(ranker)}: {esc("; ".join(notes))}</p>')
    for ranker in comparison["rankers_not_in_baseline"]:
        out.append(f'<p class="note">{esc(ranker)} is not in the baseline: not compared.</p>')
    return out


def _rank(value: int | None) -> str:
    return "—" if value is None else str(value)


def recall_svg(report: EvalReport, *, title: str = "Recall@k per ranker", width: int = 680) -> str:
    """The recall@k curves of every ranker of ``report`` (k = 1 .. the depth ranked)."""
    depth = eval_depth(report.settings.ks)
    series = [Series(run.ranker, recall_curve(run, depth)) for run in report.runs]
    return line_chart(
        series,
        title=title,
        x_label="k",
        y_label="recall@k",
        y_max=1.0,
        x_ticks=[float(k) for k in range(1, depth + 1)] if depth <= 20 else None,
        value_format=lambda v: f"{v:.3f}",
        width=width,
    )


def eval_html(report: EvalReport) -> str:
    """The whole report of an eval run as one HTML document."""
    s = report.settings
    what = "catalog examples" if report.source == "examples" else report.source
    count = len(report.queries)
    subtitle = (
        f"{count} {'query' if count == 1 else 'queries'} from {what} · catalog {', '.join(report.catalog_sources)}"
    )
    if report.embed_model is not None:
        subtitle += f" · embeddings {report.embed_model}"
    body = ["<h2>Metrics</h2>", _metrics_table(list(report.metrics.items()), s.ks, "ranker")]
    if report.skipped:
        body.append(
            f'<p class="note">{len(report.skipped)} queries skipped (they name tools the catalog lacks): '
            "the figures are of the others.</p>"
        )
    body.append("<h2>Recall at every depth</h2>")
    body.append(charts(recall_svg(report)))
    body += _sets_section(report)
    body += _miss_section(report)
    if report.comparison is not None:
        body += _baseline_section(report.comparison)
    if report.gates:
        body.append("<h2>Gates</h2>")
        rows = [[g.ranker, g.gate.text, f"{g.value:.3f}", "passed" if g.passed else "FAILED"] for g in report.gates]
        cols = [Column("ranker"), Column("gate"), Column("value", True), Column("result")]
        body.append(table(cols, rows, row_classes=["good" if g.passed else "bad" for g in report.gates]))
    return page("toolsearch eval", subtitle, body)
