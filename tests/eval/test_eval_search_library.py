"""The library entry points behind ``toolsearch eval`` and ``search``, called directly:
``EvalSettings`` -> ``run_eval`` -> ``EvalReport`` and ``SearchSettings`` -> ``run_search`` -> ``SearchReport``."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from toolsearch_cli import CatalogError, SearchError, UsageError
from toolsearch_cli.evaluate import EvalListener, EvalReport, EvalSettings, GateResult, Miss, run_eval
from toolsearch_cli.search import MAX_RESULTS_LIMIT
from toolsearch_cli.search_report import SearchReport, SearchSettings, run_search

CATALOG = """\
tools:
  - name: getForecast
    description: Weather forecast for a city, for the next days.
    category: weather
    examples: [will it rain tomorrow in Paris]
  - name: sendEmail
    description: Send an email message to an address.
    category: email
    examples: [email bob the report]
  - name: cancelOrder
    description: Cancel an order and refund the payment.
    category: orders
"""

QUERIES = """\
- {id: q1, query: weather forecast in Paris, relevant: [getForecast], subset: a}
- {id: q2, query: send an email to bob, relevant: [sendEmail], subset: b}
- {id: q3, query: refund my order, relevant: [cancelOrder], subset: b}
- {id: q4, query: book a flight, relevant: [bookFlight], subset: a}
"""


@pytest.fixture
def files(tmp_path) -> tuple[str, Path]:
    catalog = tmp_path / "catalog.yaml"
    catalog.write_text(CATALOG, encoding="utf-8")
    queries = tmp_path / "queries.yaml"
    queries.write_text(QUERIES, encoding="utf-8")
    return str(catalog), queries


class Recorder(EvalListener):
    def __init__(self) -> None:
        self.events: list[tuple[str, object]] = []

    def warning(self, message: str) -> None:
        self.events.append(("warning", message))

    def note(self, message: str) -> None:
        self.events.append(("note", message))

    def ranker_started(self, ranker: str, queries: int):
        self.events.append(("started", (ranker, queries)))
        return lambda: self.events.append(("query", ranker))


def test_from_options_parses_the_command_lines_text():
    settings = EvalSettings.from_options(ranker="classic, default", ks="10,1", minimum=["classic:mrr=0.5"])
    assert settings.rankers == ("classic", "default") and settings.ks == (1, 10)
    assert [(g.ranker, g.metric, g.minimum) for g in settings.gates] == [("classic", "mrr", 0.5)]
    with pytest.raises(UsageError, match="--k takes whole numbers"):
        EvalSettings.from_options(ks="0")
    with pytest.raises(UsageError, match="give the run to compare with --baseline"):
        EvalSettings.from_options(diff_k=3)
    with pytest.raises(UsageError, match="unknown metric 'recall@7'"):
        EvalSettings.from_options(minimum=["recall@7=0.5"])


def test_run_eval_returns_a_typed_report_and_tells_the_listener(files):
    catalog, queries = files
    listener = Recorder()
    settings = EvalSettings.from_options(
        ranker="default,classic", ks="1,5", catalog=[catalog], queries=queries, by="subset", failures=2
    )
    report = run_eval(settings, listener)
    assert isinstance(report, EvalReport)
    assert [run.ranker for run in report.runs] == ["default", "classic"]
    assert [q.id for q in report.queries] == ["q1", "q2", "q3"] and [q.id for q in report.skipped] == ["q4"]
    assert report.source == str(queries) and report.catalog_sources == [catalog]
    assert report.metrics["default"]["queries"] == 3 and report.metrics["default"]["recall@5"] == 1.0
    assert set(report.breakdown()) == {"a", "b"} and report.breakdown()["b"]["classic"]["queries"] == 2
    assert all(isinstance(m, Miss) for m in report.misses)
    assert report.passed and report.gates == [] and report.comparison is None and report.embed_model is None
    # the skipped query is a warning at its line, then a count; each ranker's queries are counted as done
    kinds = [kind for kind, _ in listener.events]
    assert kinds[:2] == ["warning", "note"] and "bookFlight" in str(listener.events[0][1])
    assert "1 of 4 queries skipped" in str(listener.events[1][1])
    assert listener.events[2] == ("started", ("default", 3)) and kinds.count("query") == 6
    payload = report.to_dict()
    assert list(payload) == ["rankers", "by_subset", "failures", "skipped"]
    assert payload["skipped"] == ["q4"] and json.loads(json.dumps(payload)) == payload


def test_the_report_is_what_the_cli_prints_as_json(files, run_cli, monkeypatch):
    """One ``to_dict()`` for both: the CLI's JSON is the library's report, byte for byte (clock frozen)."""
    monkeypatch.setattr(time, "perf_counter", lambda: 0.0)
    catalog, queries = files
    printed = run_cli(
        "eval", "-c", catalog, "-q", str(queries), "-r", "default,classic", "--by", "subset", "-f", "json"
    )
    assert printed.code == 0 and printed.stderr.count("warning:") == 1
    report = run_eval(
        EvalSettings.from_options(ranker="default,classic", catalog=[catalog], queries=queries, by="subset")
    )
    assert printed.stdout == json.dumps(report.to_dict(), ensure_ascii=False, indent=2) + "\n"


def test_gates_baseline_and_save(files, tmp_path):
    catalog, queries = files
    saved = tmp_path / "run.json"
    first = run_eval(EvalSettings.from_options(ranker="classic", catalog=[catalog], queries=queries, save=str(saved)))
    assert json.loads(saved.read_text(encoding="utf-8"))["ranks"] == first.document["ranks"]
    report = run_eval(
        EvalSettings.from_options(
            ranker="default,classic", minimum=["mrr=1.01"], catalog=[catalog], queries=queries, baseline=saved
        )
    )
    assert all(isinstance(g, GateResult) for g in report.gates) and len(report.gates) == 2
    assert not report.passed
    assert report.comparison is not None and report.comparison["file"] == str(saved)
    assert report.comparison["rankers_not_in_baseline"] == ["default"]
    assert report.baseline_warning() is None  # no embedding model on either side
    assert list(report.to_dict())[-2:] == ["baseline", "gates"]


def test_bad_input_fails_before_any_ranker_runs(files, tmp_path):
    catalog, queries = files
    listener = Recorder()
    with pytest.raises(UsageError, match="not both"):
        run_eval(EvalSettings(catalog=[catalog], queries=queries, from_log=queries), listener)
    bad = tmp_path / "bad.yaml"
    bad.write_text("- {id: x, query: hi}\n", encoding="utf-8")
    with pytest.raises(CatalogError, match="relevant"):
        run_eval(EvalSettings(catalog=[catalog], queries=bad), listener)
    assert listener.events == []


def test_run_search_returns_a_typed_report(files):
    catalog, _ = files
    report = run_search(SearchSettings("weather forecast quokka", catalog=[catalog], max_results=2))
    assert isinstance(report, SearchReport)
    assert report.hits[0].tool.name == "getForecast" and len(report.hits) <= 2
    assert report.searchable == 3 and report.catalog_sources == [catalog]
    assert [w.word for w in report.unmatched] == ["quokka"]
    payload = report.to_dict()
    assert list(payload) == ["query", "ranker", "category", "max_results", "hits", "unmatched"]
    assert payload["hits"][0]["rank"] == 1 and payload["max_results"] == 2


def test_run_search_checks_the_category_and_the_limit(files):
    catalog, _ = files
    with pytest.raises(
        UsageError,
        match=r"no tool has category 'wether' \(did you mean 'weather'\?\); categories: weather, email, orders",
    ):
        run_search(SearchSettings("x", catalog=[catalog], category="wether"))
    assert SearchSettings.parse_max_results("3") == 3
    with pytest.raises(UsageError, match="at least 1"):
        SearchSettings.parse_max_results("0")
    with pytest.raises(SearchError, match="max results must be a whole number, not 'many'"):
        SearchSettings.parse_max_results("many")
    assert SearchSettings.parse_max_results("999") == MAX_RESULTS_LIMIT  # as for a model's toolSearch call
