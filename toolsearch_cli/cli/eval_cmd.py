"""``toolsearch eval``: retrieval quality of one or more rankers on a labelled query set.

Parse options -> load catalog, queries, gates and baseline (fail fast) -> run each ranker ->
render (table or JSON), save, compare, gate. Exit 0, 1 when a ``--min`` gate fails, 2 for bad input.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from ..printable import json_visible
from .options import (
    CATALOG_FORMAT_OPTION,
    CATALOG_OPTION,
    FORMAT_OPTION,
    check_catalog_format,
    check_format,
    embed_model_label,
    embed_options,
    output_file,
)

if TYPE_CHECKING:
    from ..evaluate import Query, RankerRun

QUERIES_OPTION = typer.Option(
    None,
    "--queries",
    "-q",
    help="Labelled queries: YAML, JSON or JSONL list of {id, query, relevant: [names], subset?}. "
    "Default: every example of every searchable tool, expecting that tool.",
    metavar="FILE",
)
FROM_LOG_OPTION = typer.Option(
    None,
    "--from-log",
    help="Labelled queries from a `toolsearch serve --log` file: each search followed by a call of a "
    "catalog tool becomes {query, relevant: [that tool]}. Use the catalog the gateway served.",
    metavar="FILE",
)
SAVE_OPTION = typer.Option(
    None,
    "--save",
    help="Write the run (metrics and every query's ranks) as JSON.",
    metavar="FILE",
    callback=output_file("--save"),
)
BASELINE_OPTION = typer.Option(
    None,
    "--baseline",
    help="Compare with a run saved by --save: metric deltas and queries that moved out of / into the top k.",
    metavar="FILE",
)
MIN_OPTION = typer.Option(
    None,
    "--min",
    help="CI gate [RANKER:]METRIC=VALUE, e.g. recall@5=0.8 (repeatable); exit 1 when one fails.",
    metavar="GATE",
)


@embed_options
def eval_command(
    catalog: list[str] | None = CATALOG_OPTION,
    queries: Path | None = QUERIES_OPTION,
    from_log: Path | None = FROM_LOG_OPTION,
    ranker: str = typer.Option(
        "default", "--ranker", "-r", help="Rankers to compare, comma-separated (or 'all').", metavar="NAMES"
    ),
    ks: str = typer.Option("1,5,10", "--k", help="Cut-offs for Recall@k and NDCG@k, comma-separated.", metavar="K,.."),
    category_field: str | None = typer.Option(
        None,
        "--category-field",
        help="Query field whose value is passed to search as the category filter (queries without it "
        "search the whole catalog). With examples as queries, 'category' is the tool's own category.",
        metavar="FIELD",
    ),
    by: str | None = typer.Option(
        None, "--by", help="Also break the metrics down by a query field, e.g. subset.", metavar="FIELD"
    ),
    failures: int = typer.Option(
        0, "--failures", help="List the N worst misses and what ranked above the expected tool.", metavar="N", min=0
    ),
    save: str | None = SAVE_OPTION,
    baseline: Path | None = BASELINE_OPTION,
    diff_k: int | None = typer.Option(
        None,
        "--diff-k",
        help="The k of the baseline diff (default 5 if measured, else the largest k).",
        min=1,
        metavar="K",
    ),
    minimum: list[str] | None = MIN_OPTION,
    output_format: str = FORMAT_OPTION,
    catalog_format: str = CATALOG_FORMAT_OPTION,
) -> None:
    """Measure retrieval quality (Recall@k, NDCG@k, MRR) of rankers on labelled queries."""
    from .. import evaluate as ev
    from ..catalog import load_catalog_result
    from ..errors import UsageError

    check_format(output_format)
    forced_format = check_catalog_format(catalog_format)
    cutoffs = ev.parse_ks(ks)
    rankers = _rankers(ranker)
    keys = ev.metric_keys(cutoffs)
    gates = [ev.parse_gate(text, keys, rankers) for text in minimum or []]
    if diff_k is not None and baseline is None:
        raise UsageError("--diff-k sets the cut-off of a baseline comparison; give the run to compare with --baseline")
    old = ev.load_run_document(baseline) if baseline is not None else None
    if old is not None and not set(rankers) & set(old["rankers"]):
        raise UsageError(
            f"the baseline {baseline} holds runs of {', '.join(old['rankers'])}, this run is of {', '.join(rankers)}; "
            "compare runs of the same ranker (--ranker)",
            field="baseline",
        )
    if old is not None and diff_k is not None:
        # ranks are only known to each run's depth: past it, "not in the top k" would be a guess
        depth = min(ev.eval_depth(cutoffs), int(old.get("depth") or 10))
        if diff_k > depth:
            raise UsageError(
                f"--diff-k {diff_k} is deeper than the runs were ranked ({depth}); raise the largest --k of both runs"
            )
    if from_log is not None and queries is not None:
        raise UsageError("give the queries with --queries or --from-log, not both", field="from-log")
    result = load_catalog_result(catalog, forced_format, cache=True)
    loaded = result.catalog
    query_set, source = _query_set(loaded, queries) if from_log is None else _log_query_set(loaded, from_log)
    query_set, skipped = _skip_absent(query_set, loaded)
    ev.check_queries(query_set, loaded, category_field)
    if by is not None:
        ev.check_field(query_set, by, "--by")

    from ..search.embed import embed_cost, reset_embed_cost

    reset_embed_cost()
    runs = _run_all(loaded, query_set, rankers, cutoffs, category_field, output_format)
    cost = embed_cost()
    from ..catalog import store_in_cache

    store_in_cache(result)  # with the indexes just built
    metrics = {run.ranker: run.metrics() for run in runs}
    payload: dict[str, Any] = {"rankers": metrics}
    if by is not None:
        payload[f"by_{by}"] = {value: {} for value in runs[0].by(by)}
        for run in runs:
            for value, values in run.by(by).items():
                payload[f"by_{by}"][value][run.ranker] = values
    misses = [m for run in runs for m in ev.worst_misses(loaded, run, failures)] if failures else []
    if failures:
        payload["failures"] = {run.ranker: [m.to_dict() for m in misses if m.ranker == run.ranker] for run in runs}
    doc = ev.run_document(runs, source=source, catalog_sources=loaded.sources)
    if skipped:  # what these figures leave out
        doc["skipped"] = payload["skipped"] = [q.id for q in skipped]
    embed_label = embed_model_label(rankers)
    if embed_label is not None:  # which model the dense rankers' figures are of
        doc["embed_model"] = payload["embed_model"] = embed_label
        payload["embedding"] = cost.to_dict()  # texts embedded, texts found cached, seconds
    comparison = None
    if old is not None:
        k = diff_k or min(ev.default_diff_k(cutoffs), int(old.get("depth") or 10))
        comparison = ev.compare_runs(doc, old, k)
        comparison["file"] = str(baseline)
        payload["baseline"] = comparison
    gate_results = ev.check_gates(gates, metrics)
    if gates:
        payload["gates"] = [g.to_dict() for g in gate_results]

    if save is not None:
        _write_json(save, doc)
    from . import eval_render as render
    from .render import console, error_console

    if output_format == "json":
        typer.echo(json_visible(json.dumps(payload, ensure_ascii=False, indent=2)))
    else:
        out = console()
        title = _title(source, len(query_set), loaded.sources)
        if embed_label is not None:
            title += f" · embeddings {embed_label}"
        render.render_summary(out, metrics, cutoffs, title=title)
        if by is not None:
            render.render_breakdown(out, by, payload[f"by_{by}"], cutoffs)
        if failures:
            render.render_misses(out, misses, failures)
        if comparison is not None:
            render.render_comparison(out, comparison)
        if embed_label is not None:
            from .embed_progress import cost_line
            from .render import data

            out.print(data(cost_line(cost), "dim"))
    err = error_console()
    if old is not None and embed_label is not None and old.get("embed_model") not in (None, embed_label):
        err.print(
            f"warning: the baseline {baseline} was measured with another embedding model "
            f"({old['embed_model']}; this run: {embed_label}): the dense rankers' deltas are partly the model's",
            markup=False,
        )
    if save is not None:
        err.print(f"saved the run to {save}", markup=False)
    if gate_results:
        render.render_gates(err, gate_results)
        if not all(g.passed for g in gate_results):
            raise typer.Exit(1)


def _rankers(spec: str) -> list[str]:
    """``default,classic`` or ``all`` -> ranker names, each checked (unknown: error with did-you-mean)."""
    from ..errors import UsageError
    from ..search import RANKER_BY_NAME, get_ranker, load_ranker_plugins

    if spec.strip() == "all":
        from ..search.embed import current_settings

        load_ranker_plugins()
        dense = current_settings().configured  # rankers that need an embedding model run only with one
        return [n for n, r in RANKER_BY_NAME.items() if dense or not getattr(r, "needs_embeddings", False)]
    names = list(dict.fromkeys(r.strip() for r in spec.split(",") if r.strip()))
    if not names:
        raise UsageError("--ranker needs at least one ranker name", field="ranker")
    for name in names:
        get_ranker(name)
    return names


def _query_set(catalog: Any, path: Path | None) -> tuple[list[Query], str]:
    """The queries file's queries, or else the catalog's examples; and where they came from."""
    from ..errors import UsageError
    from ..evaluate import load_queries, queries_from_examples

    if path is not None:
        return load_queries(path), str(path)
    queries = queries_from_examples(catalog)
    if not queries:
        raise UsageError(
            f"the catalog ({', '.join(catalog.sources)}) has no examples to use as queries; "
            "add `examples:` to its tools or pass --queries FILE",
            field="queries",
        )
    return queries, "examples"


def _log_query_set(catalog: Any, path: Path) -> tuple[list[Query], str]:
    """Queries labelled by what the gateway's clients called after searching (see serve.traffic)."""
    from ..errors import UsageError
    from ..serve.traffic import queries_from_log
    from .render import warn

    found = queries_from_log(path, catalog)
    if found.unmatched:
        warn(
            f"{found.unmatched} labelled call(s) in {path} name tools this catalog does not have "
            "(or has as resident); give eval the catalog the gateway served"
        )
    if not found.queries:
        raise UsageError(
            f"{path} has no search followed by a call of a catalog tool ({found.searches} searches): nothing to label",
            field="from-log",
        )
    return found.queries, str(path)


#: Skipped queries named one by one; the rest are counted.
_SKIPS_SHOWN = 5


def _skip_absent(queries: list[Query], catalog: Any) -> tuple[list[Query], list[Query]]:
    """Leave out the queries that name tools the catalog lacks (a live server that did not start):
    a warning for each (the first few) and a count. With ``--strict``, or when no query would be
    left, nothing is skipped and :func:`evaluate.check_queries` refuses as before."""
    from ..catalog.lenient import settings
    from ..evaluate import absent_warning, without_absent
    from .render import data, error_console, warn

    if settings().strict:
        return queries, []
    kept, skipped = without_absent(queries, catalog)
    if not skipped or not kept:
        return queries, []
    for q, absent in skipped[:_SKIPS_SHOWN]:
        warn(absent_warning(q, absent, catalog))
    more = f" ({len(skipped) - _SKIPS_SHOWN} not shown)" if len(skipped) > _SKIPS_SHOWN else ""
    error_console().print(
        data(
            f"{len(skipped)} of {len(queries)} queries skipped{more}: they name tools the catalog does not have; "
            "the figures are of the other queries (--strict makes this an error)"
        )
    )
    return kept, [q for q, _ in skipped]


def _title(source: str, count: int, sources: list[str]) -> str:
    what = "catalog examples" if source == "examples" else source
    return f"{count} {'query' if count == 1 else 'queries'} from {what} · catalog {', '.join(sources)}"


def _run_all(
    catalog: Any,
    queries: list[Query],
    rankers: list[str],
    ks: list[int],
    category_field: str | None,
    output_format: str = "table",
) -> list[RankerRun]:
    """Run each ranker, with a progress bar on stderr when it is a terminal (or FORCE_COLOR says to
    treat it as one), but not a dumb one (``TERM=dumb``: it cannot redraw a line). A model embedding
    many texts (a first run) adds its own line to the bar, with an ETA (not with JSON output)."""
    from ..evaluate import run_ranker
    from .embed_progress import embed_progress
    from .render import error_console

    err = error_console()
    if not err.is_terminal or err.is_dumb_terminal:
        return [run_ranker(catalog, queries, r, ks, category_field=category_field) for r in rankers]
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeRemainingColumn

    runs = []
    with (
        Progress(
            TextColumn("{task.description}", markup=False),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=err,
            transient=True,
        ) as progress,
        embed_progress(output_format, progress),
    ):
        for name in rankers:
            task = progress.add_task(f"eval {name}", total=len(queries))

            def advance(task: TaskID = task) -> None:
                progress.advance(task)

            runs.append(run_ranker(catalog, queries, name, ks, category_field=category_field, on_query=advance))
    return runs


def _write_json(path: str, doc: dict[str, Any]) -> None:
    """Write atomically, so an interrupted run never leaves half a baseline behind."""
    from ..errors import UsageError
    from ..files import write_text_atomic

    text = json.dumps(doc, ensure_ascii=False, indent=1) + "\n"
    write_text_atomic(path, text, what="the run", error=UsageError)
