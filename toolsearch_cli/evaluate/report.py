"""``toolsearch eval`` as one library call: :class:`EvalSettings` in, :class:`EvalReport` out.

:func:`run_eval` loads the baseline, catalog and queries (failing fast, before any ranker runs),
runs each ranker, finds the worst misses, compares with the baseline, checks the gates and
writes the ``--save`` file. What happens on the way (warnings, progress) goes to an
:class:`EvalListener`; the CLI draws it, a script may ignore it. Nothing here prints.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import UsageError
from .baselines import compare_runs, default_diff_k, load_run_document, run_document
from .gates import Gate, GateResult, check_gates, parse_gate
from .metrics import eval_depth, metric_keys, parse_ks
from .misses import Miss, worst_misses
from .queries import Query, absent_warning, check_field, check_queries, without_absent
from .runs import RankerRun, run_ranker

if TYPE_CHECKING:
    from ..catalog.loading import SourcesLike
    from ..model import Catalog
    from ..search.embed_settings import EmbedCost, EmbedSettings

#: Skipped queries named one by one; the rest are counted.
SKIPS_SHOWN = 5


@dataclass(frozen=True, slots=True)
class EvalSettings:
    """What to evaluate and how: the options of ``toolsearch eval``, parsed and checked.

    ``catalog``: sources for :func:`~toolsearch_cli.catalog.load_catalog` (``None``: the default);
    ``queries`` or ``from_log`` (a ``serve --log`` file), or neither for the catalog's examples.
    """

    catalog: SourcesLike = None
    catalog_format: str | None = None
    queries: Path | None = None
    from_log: Path | None = None
    rankers: tuple[str, ...] = ("default",)
    ks: tuple[int, ...] = (1, 5, 10)
    category_field: str | None = None
    by: str | None = None
    failures: int = 0
    save: str | None = None
    baseline: Path | None = None
    diff_k: int | None = None
    gates: tuple[Gate, ...] = ()
    #: Rankers ``all`` left out (they need an embedding model and none is configured): said in a note.
    left_out: tuple[str, ...] = ()
    #: The embedding model of the dense rankers (``None``: the library default, ``TOOLSEARCH_EMBED_*``).
    embed: EmbedSettings | None = None

    @classmethod
    def from_options(
        cls,
        *,
        ranker: str = "default",
        ks: str = "1,5,10",
        minimum: Sequence[str] = (),
        catalog: SourcesLike = None,
        catalog_format: str | None = None,
        queries: Path | None = None,
        from_log: Path | None = None,
        category_field: str | None = None,
        by: str | None = None,
        failures: int = 0,
        save: str | None = None,
        baseline: Path | None = None,
        diff_k: int | None = None,
        embed: EmbedSettings | None = None,
    ) -> EvalSettings:
        """Settings from the command line's text: ``ranker`` ``"default,classic"`` or ``"all"``,
        ``ks`` ``"1,5,10"``, ``minimum`` the ``--min`` gates; bad values are a UsageError."""
        cutoffs = parse_ks(ks)
        rankers = parse_rankers(ranker, embed)
        keys = metric_keys(cutoffs)
        gates = tuple(parse_gate(text, keys, rankers) for text in minimum)
        if diff_k is not None and baseline is None:
            raise UsageError(
                "--diff-k sets the cut-off of a baseline comparison; give the run to compare with --baseline"
            )
        return cls(
            catalog=catalog,
            catalog_format=catalog_format,
            queries=queries,
            from_log=from_log,
            rankers=tuple(rankers),
            ks=tuple(cutoffs),
            category_field=category_field,
            by=by,
            failures=failures,
            save=save,
            baseline=baseline,
            diff_k=diff_k,
            gates=gates,
            left_out=_left_out_of_all(ranker, rankers),
            embed=embed,
        )


def parse_rankers(spec: str, embed: EmbedSettings | None = None) -> list[str]:
    """``default,classic`` or ``all`` -> ranker names, each checked (unknown: error with did-you-mean).

    ``all`` leaves out the rankers that need an embedding model when ``embed`` (``None``: the
    default settings) names none."""
    from ..search import RANKER_BY_NAME, get_ranker, load_ranker_plugins

    if spec.strip() == "all":
        from ..search.embed_settings import default_settings

        load_ranker_plugins()
        dense = (embed if embed is not None else default_settings()).configured
        return [n for n, r in RANKER_BY_NAME.items() if dense or not getattr(r, "needs_embeddings", False)]
    names = list(dict.fromkeys(r.strip() for r in spec.split(",") if r.strip()))
    if not names:
        raise UsageError("--ranker needs at least one ranker name", field="ranker")
    for name in names:
        get_ranker(name)
    return names


def _left_out_of_all(spec: str, rankers: Sequence[str]) -> tuple[str, ...]:
    from ..search import RANKER_BY_NAME

    return tuple(n for n in RANKER_BY_NAME if n not in rankers) if spec.strip() == "all" else ()


class EvalListener:
    """What :func:`run_eval` tells while it runs. This default ignores everything; the CLI's
    subclass prints warnings and notes on stderr and draws a progress bar."""

    def warning(self, message: str) -> None:
        """A problem the run goes on past (a query skipped, log calls that name no catalog tool)."""

    def note(self, message: str) -> None:
        """A plain line of information (how many queries were skipped)."""

    def running(self) -> AbstractContextManager[object]:
        """Entered around the rankers' runs (and nothing else)."""
        return nullcontext()

    def ranker_started(self, ranker: str, queries: int) -> Callable[[], None] | None:
        """A ranker starts on ``queries`` queries; the callable returned is called after each one."""
        return None


@dataclass(slots=True)
class EvalReport:
    """The result of :func:`run_eval`: the runs and everything derived from them.

    :meth:`to_dict` is the JSON ``toolsearch eval --format json`` prints; :attr:`document` the
    file ``--save`` writes.
    """

    settings: EvalSettings
    #: Where the queries came from: the queries file, the log file, or ``"examples"``.
    source: str
    catalog_sources: list[str]
    #: The queries run (those skipped left out).
    queries: list[Query]
    runs: list[RankerRun]
    #: ranker -> macro-averaged metrics.
    metrics: dict[str, dict[str, Any]]
    #: The saved-run document (``--save``), also what a baseline comparison reads.
    document: dict[str, Any]
    skipped: list[Query] = field(default_factory=list)
    misses: list[Miss] = field(default_factory=list)
    #: The embedding model of the dense rankers, and what embedding cost (``None``: none ran).
    embed_model: str | None = None
    embedding: EmbedCost | None = None
    #: The baseline comparison (see :func:`~.baselines.compare_runs`), with ``file``.
    comparison: dict[str, Any] | None = None
    #: The embedding model the baseline was measured with, when it names one.
    baseline_embed_model: str | None = None
    gates: list[GateResult] = field(default_factory=list)
    #: The catalog the queries ran on (what an HTML report explains its misses with).
    catalog: Catalog | None = field(default=None, repr=False)

    @property
    def passed(self) -> bool:
        """Every gate passed (no gates: true)."""
        return all(g.passed for g in self.gates)

    def breakdown(self) -> dict[str, dict[str, dict[str, Any]]]:
        """With ``by``: value of the field -> ranker -> metrics (empty without ``by``)."""
        by = self.settings.by
        if by is None or not self.runs:
            return {}
        groups: dict[str, dict[str, dict[str, Any]]] = {value: {} for value in self.runs[0].by(by)}
        for run in self.runs:
            for value, values in run.by(by).items():
                groups[value][run.ranker] = values
        return groups

    def baseline_warning(self) -> str | None:
        """Why the dense rankers' deltas are partly the model's, when the baseline used another one."""
        if self.comparison is None or self.embed_model is None:
            return None
        if self.baseline_embed_model in (None, self.embed_model):
            return None
        return (
            f"the baseline {self.settings.baseline} was measured with another embedding model "
            f"({self.baseline_embed_model}; this run: {self.embed_model}): the dense rankers' deltas are partly "
            "the model's"
        )

    def to_dict(self) -> dict[str, Any]:
        """The JSON output: ``rankers``, then ``by_FIELD``, ``failures``, ``skipped``, ``embed_model``,
        ``embedding``, ``baseline`` and ``gates`` when they apply."""
        payload: dict[str, Any] = {"rankers": self.metrics}
        if self.settings.by is not None:
            payload[f"by_{self.settings.by}"] = self.breakdown()
        if self.settings.failures:
            payload["failures"] = {
                run.ranker: [m.to_dict() for m in self.misses if m.ranker == run.ranker] for run in self.runs
            }
        if self.skipped:
            payload["skipped"] = [q.id for q in self.skipped]
        if self.embed_model is not None:
            payload["embed_model"] = self.embed_model
            if self.embedding is not None:
                payload["embedding"] = self.embedding.to_dict()  # texts embedded, texts found cached, seconds
        if self.comparison is not None:
            payload["baseline"] = self.comparison
        if self.settings.gates:
            payload["gates"] = [g.to_dict() for g in self.gates]
        return payload


def run_eval(settings: EvalSettings, listener: EvalListener | None = None) -> EvalReport:
    """Evaluate the rankers of ``settings`` on its query set; bad input is a ToolsearchError,
    raised before any ranker runs."""
    from ..catalog import load_catalog_result, store_in_cache
    from ..search.embed_settings import embed_cost, reset_embed_cost
    from ..search_report import embed_model_label

    listen = listener or EvalListener()
    s = settings
    if s.left_out:
        listen.note(
            f"{', '.join(s.left_out)} left out of 'all': they need an embedding model "
            "(--embed-model; get one with `toolsearch model pull NAME`)"
        )
    old = _baseline(s)
    if s.from_log is not None and s.queries is not None:
        raise UsageError("give the queries with --queries or --from-log, not both", field="from-log")
    loaded = load_catalog_result(s.catalog, s.catalog_format, cache=True)
    catalog = loaded.catalog
    if s.from_log is None:
        query_set, source = _query_set(catalog, s.queries)
    else:
        query_set, source = _log_query_set(catalog, s.from_log, listen)
    query_set, skipped = _skip_absent(query_set, catalog, listen)
    check_queries(query_set, catalog, s.category_field)
    if s.by is not None:
        check_field(query_set, s.by, "--by")
    reset_embed_cost()
    runs = _run_all(catalog, query_set, s, listen)
    cost = embed_cost()
    store_in_cache(loaded)  # with the indexes just built
    metrics = {run.ranker: run.metrics() for run in runs}
    misses = [m for run in runs for m in worst_misses(catalog, run, s.failures, embed=s.embed)] if s.failures else []
    doc = run_document(runs, source=source, catalog_sources=catalog.sources)
    if skipped:  # what these figures leave out
        doc["skipped"] = [q.id for q in skipped]
    embed_label = embed_model_label(list(s.rankers), s.embed)
    if embed_label is not None:  # which model the dense rankers' figures are of
        doc["embed_model"] = embed_label
    comparison = None
    if old is not None:
        k = s.diff_k or min(default_diff_k(s.ks), int(old.get("depth") or 10))
        comparison = compare_runs(doc, old, k)
        comparison["file"] = str(s.baseline)
    gate_results = check_gates(s.gates, metrics)
    if s.save is not None:
        write_run(s.save, doc)
    return EvalReport(
        settings=s,
        source=source,
        catalog_sources=list(catalog.sources),
        queries=query_set,
        runs=runs,
        metrics=metrics,
        document=doc,
        skipped=skipped,
        misses=misses,
        embed_model=embed_label,
        embedding=cost if embed_label is not None else None,
        comparison=comparison,
        baseline_embed_model=old.get("embed_model") if old is not None else None,
        gates=gate_results,
        catalog=catalog,
    )


def _baseline(s: EvalSettings) -> dict[str, Any] | None:
    """The saved run to compare with, checked against this run's rankers and depth."""
    if s.baseline is None:
        return None
    old = load_run_document(s.baseline)
    if not set(s.rankers) & set(old["rankers"]):
        raise UsageError(
            f"the baseline {s.baseline} holds runs of {', '.join(old['rankers'])}, "
            f"this run is of {', '.join(s.rankers)}; compare runs of the same ranker (--ranker)",
            field="baseline",
        )
    if s.diff_k is not None:
        # ranks are only known to each run's depth: past it, "not in the top k" would be a guess
        depth = min(eval_depth(s.ks), int(old.get("depth") or 10))
        if s.diff_k > depth:
            raise UsageError(
                f"--diff-k {s.diff_k} is deeper than the runs were ranked ({depth}); raise the largest --k of both runs"
            )
    return old


def _query_set(catalog: Catalog, path: Path | None) -> tuple[list[Query], str]:
    """The queries file's queries, or else the catalog's examples; and where they came from."""
    from .queries import load_queries, queries_from_examples

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


def _log_query_set(catalog: Catalog, path: Path, listen: EvalListener) -> tuple[list[Query], str]:
    """Queries labelled by what the gateway's clients called after searching (see :mod:`.traffic`)."""
    from .traffic import queries_from_log

    found = queries_from_log(path, catalog)
    if found.unmatched:
        listen.warning(
            f"{found.unmatched} labelled call(s) in {path} name tools this catalog does not have "
            "(or has as resident); give eval the catalog the gateway served"
        )
    if not found.queries:
        raise UsageError(
            f"{path} has no search followed by a call of a catalog tool ({found.searches} searches): nothing to label",
            field="from-log",
        )
    return found.queries, str(path)


def _skip_absent(queries: list[Query], catalog: Catalog, listen: EvalListener) -> tuple[list[Query], list[Query]]:
    """Leave out the queries that name tools the catalog lacks (a live server that did not start):
    a warning for each (the first few) and a count. With ``--strict``, or when no query would be
    left, nothing is skipped and :func:`~.queries.check_queries` refuses as before."""
    from ..catalog.lenient import settings

    if settings().strict:
        return queries, []
    kept, skipped = without_absent(queries, catalog)
    if not skipped or not kept:
        return queries, []
    for q, absent in skipped[:SKIPS_SHOWN]:
        listen.warning(absent_warning(q, absent, catalog))
    more = f" ({len(skipped) - SKIPS_SHOWN} not shown)" if len(skipped) > SKIPS_SHOWN else ""
    listen.note(
        f"{len(skipped)} of {len(queries)} queries skipped{more}: they name tools the catalog does not have; "
        "the figures are of the other queries (--strict makes this an error)"
    )
    return kept, [q for q, _ in skipped]


def _run_all(catalog: Catalog, queries: list[Query], s: EvalSettings, listen: EvalListener) -> list[RankerRun]:
    """Each ranker in turn, telling the listener as each query is done."""
    runs = []
    with listen.running():
        for name in s.rankers:
            advance = listen.ranker_started(name, len(queries))
            runs.append(
                run_ranker(
                    catalog, queries, name, s.ks, category_field=s.category_field, on_query=advance, embed=s.embed
                )
            )
    return runs


def write_run(path: str, doc: dict[str, Any]) -> None:
    """Write a saved run atomically, so an interrupted run never leaves half a baseline behind."""
    from ..files import write_text_atomic

    text = json.dumps(doc, ensure_ascii=False, indent=1) + "\n"
    write_text_atomic(path, text, what="the run", error=UsageError)
