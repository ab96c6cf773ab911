"""Retrieval quality of rankers on labelled query sets, for ``toolsearch eval`` and for scripts.

- :mod:`.queries`: query sets from YAML/JSON/JSONL files or a catalog's ``examples``, checked;
- :mod:`.metrics`: Recall@k, NDCG@k (binary gain), MRR, macro-averaged;
- :mod:`.runs`: every query through a ranker, each query's ranking kept; :mod:`.misses`: the
  worst misses with what ranked above them;
- :mod:`.baselines`: saved runs and their comparison; :mod:`.gates`: CI gates;
- :mod:`.report`: :func:`run_eval`, the whole of ``toolsearch eval`` as one call returning an
  :class:`EvalReport`.

Everything returns data; nothing prints.
"""

from __future__ import annotations

from .baselines import SAVE_FORMAT, compare_runs, default_diff_k, load_run_document, run_document
from .gates import Gate, GateResult, check_gates, parse_gate
from .metrics import (
    Metrics,
    eval_depth,
    metric_keys,
    ndcg_at,
    parse_ks,
    query_metrics,
    recall_at,
    reciprocal_rank,
)
from .misses import EXPLAIN_DEPTH, FULL_RANK_MIN, FULL_RANK_SECONDS, Miss, worst_misses
from .queries import (
    QUERY_FIELDS,
    Query,
    absent_warning,
    check_field,
    check_queries,
    load_queries,
    queries_from_examples,
    without_absent,
)
from .report import EvalListener, EvalReport, EvalSettings, run_eval
from .runs import QueryResult, RankerRun, evaluate, run_ranker

__all__ = [
    "EXPLAIN_DEPTH",
    "FULL_RANK_MIN",
    "FULL_RANK_SECONDS",
    "QUERY_FIELDS",
    "SAVE_FORMAT",
    "EvalListener",
    "EvalReport",
    "EvalSettings",
    "Gate",
    "GateResult",
    "Metrics",
    "Miss",
    "Query",
    "QueryResult",
    "RankerRun",
    "absent_warning",
    "check_field",
    "check_gates",
    "check_queries",
    "compare_runs",
    "default_diff_k",
    "eval_depth",
    "evaluate",
    "load_queries",
    "load_run_document",
    "metric_keys",
    "ndcg_at",
    "parse_gate",
    "parse_ks",
    "queries_from_examples",
    "query_metrics",
    "recall_at",
    "reciprocal_rank",
    "run_document",
    "run_eval",
    "run_ranker",
    "worst_misses",
    "without_absent",
]
