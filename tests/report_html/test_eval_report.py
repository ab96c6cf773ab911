"""``toolsearch eval --report FILE.html``: the charts and tables hold the run's own figures."""

from __future__ import annotations

import re

import pytest

from ..eval.test_eval_cli import CATALOG, CATALOG_V2, QUERIES
from .parse import ALLOWED, parse, value_of


@pytest.fixture
def files(write):
    return {"catalog": str(write("cat.yaml", CATALOG)), "queries": str(write("q.yaml", QUERIES))}


def eval_report(run_cli, files, tmp_path, *args, name="report.html"):
    out = tmp_path / name
    result = run_cli("eval", "-c", files["catalog"], "-q", files["queries"], "--report", str(out), *args)
    assert result.code == 0, result.stderr
    assert f"wrote the report to {out}" in result.stderr
    return out.read_text(encoding="utf-8"), result


def test_the_recall_curve_is_the_runs_recall_at_every_k(run_cli, files, tmp_path):
    document, _ = eval_report(run_cli, files, tmp_path, "-r", "default,classic")
    metrics = run_cli("eval", "-c", files["catalog"], "-q", files["queries"], "-r", "default,classic", "-f", "json")
    page = parse(document)
    assert page.tags() <= ALLOWED
    [curve] = page.charts("line")
    assert curve.title == "Recall@k per ranker"
    points = [t for t in page.tooltips("circle") if ": k " in t]
    for ranker in ("default", "classic"):
        mine = {int(t.split(": k ")[1].split(" ")[0]): value_of(t) for t in points if t.startswith(f"{ranker}: ")}
        assert sorted(mine) == list(range(1, 11))  # k = 1 .. the depth ranked
        for k in (1, 5, 10):
            assert mine[k] == pytest.approx(metrics.json()["rankers"][ranker][f"recall@{k}"], abs=5e-4)
        assert all(mine[k] <= mine[k + 1] for k in range(1, 10))  # recall never falls with k
    # by hand (tests/eval/test_eval_cli.py): default finds q1-q3 first, q4 second, q5 never
    default = {int(t.split(": k ")[1].split(" ")[0]): value_of(t) for t in points if t.startswith("default: ")}
    # a misses table per ranker, the first unfolded (the browser's own <details>, no script)
    assert [d.attrs for d in page.all("details")] == [{"open": ""}, {}]
    assert default[1] == pytest.approx(0.6) and default[2] == pytest.approx(0.8) and default[10] == pytest.approx(0.8)


def test_mrr_and_ndcg_per_query_set_and_the_misses(run_cli, files, tmp_path):
    document, _ = eval_report(run_cli, files, tmp_path)
    page = parse(document)
    mrr, ndcg = page.charts("bar")
    assert (mrr.title, ndcg.title) == ("MRR per query set", "NDCG@10 per query set")
    bars = page.tooltips("rect")
    # all queries (3.5 / 5), then the subsets: weather (q1 1, q2 1, q4 1/2), payments 1, other 0
    assert "default · all queries: 0.700" in bars
    assert "default · weather: 0.833" in bars and "default · payments: 1.000" in bars
    assert "default · other: 0.000" in bars
    text = page.text()
    assert "default: 2 misses" in text
    rows = [r for r in document.split("<tr") if "<td>q4</td>" in r or "<td>q5</td>" in r]
    assert len(rows) == 2
    q5, q4 = rows  # worst first: q5's tool was not returned at all
    assert "not in top 10" in q5 and "sendEmail" in q5 and "(nothing returned)" in q5
    assert '<td class="num">2</td>' in q4 and "getAirQuality" in q4  # the top hit, above getWeather
    assert "description" in q4  # the fields getAirQuality matched "city pollution index" in


def test_baseline_deltas_are_charted_with_the_queries_that_moved(run_cli, files, tmp_path, write):
    before = tmp_path / "before.json"
    assert run_cli("eval", "-c", files["catalog"], "-q", files["queries"], "--save", str(before)).code == 0
    files = {**files, "catalog": str(write("cat2.yaml", CATALOG_V2))}
    document, _ = eval_report(run_cli, files, tmp_path, "--baseline", str(before), "--diff-k", "1")
    page = parse(document)
    [delta] = page.charts("delta")
    bars = page.tooltips("rect")
    # q4 moved into the top 1 and q3 out of it: R@1 unchanged, MRR the same (1/2 traded for 1/2)
    assert "default recall@1: +0.000" in bars
    assert "default: 1 expected tool(s) moved out of the top 1" in page.text()
    assert "default: 1 expected tool(s) moved into the top 1" in page.text()
    moved_out = document.split("moved out of the top 1</h3>")[1].split("<h3")[0]
    assert "<td>q3</td>" in moved_out and "<td>refundPayment</td>" in moved_out
    assert '<td class="num">1</td><td class="num">2</td>' in moved_out  # rank 1 → 2


def test_no_report_without_the_option(run_cli, files, tmp_path):
    result = run_cli("eval", "-c", files["catalog"], "-q", files["queries"])
    assert result.code == 0 and "report" not in result.stderr
    assert list(tmp_path.glob("*.html")) == []


def test_misses_are_worst_first_and_explained_within_the_time_given(files):
    from pathlib import Path

    from toolsearch_cli.evaluate import EvalSettings, run_eval
    from toolsearch_cli.evaluate.misses import miss_rows

    report = run_eval(EvalSettings(catalog=[files["catalog"]], queries=Path(files["queries"])))
    [run] = report.runs
    rows, total = miss_rows(report.catalog, run)
    assert total == 2 and [(r.query.id, r.rank, r.top) for r in rows] == [
        ("q5", None, None),
        ("q4", 2, "getAirQuality"),
    ]
    assert rows[1].top_hit is not None and rows[1].top_hit.matched_fields  # explained: the fields it matched
    rows, total = miss_rows(report.catalog, run, 1, seconds=0.0)
    assert total == 2 and len(rows) == 1  # the worst only, and no time to explain it
    rows, _ = miss_rows(report.catalog, run, seconds=0.0)
    assert rows[1].top == "getAirQuality" and rows[1].top_hit is None


def test_a_dense_rankers_misses_are_explained_with_its_own_model(run_cli, tmp_path):
    """hybrid with a real static model (tests/data/minilm-static): the report's misses come from
    the same ranker and model the run used, and their top hits are explained."""
    pytest.importorskip("model2vec")
    from ..conftest import DATA, DEMO

    out = tmp_path / "dense.html"
    model = str(DATA / "minilm-static")
    result = run_cli("eval", "-c", str(DEMO), "-r", "default,hybrid", "--embed-model", model, "--report", str(out))
    assert result.code == 0, result.stderr
    metrics = run_cli("eval", "-c", str(DEMO), "-r", "hybrid", "--embed-model", model, "-f", "json").json()
    page = parse(out.read_text(encoding="utf-8"))
    points = {t.split(" → ")[0]: value_of(t) for t in page.tooltips("circle") if ": k " in t}
    assert points["hybrid: k 1"] == pytest.approx(metrics["rankers"]["hybrid"]["recall@1"], abs=5e-4)
    assert f"embeddings {metrics['embed_model']}" in page.text()
    hybrid = out.read_text(encoding="utf-8").split("<h3>hybrid: ")[1].split("</table>")[0]
    matched = re.findall(r'<td class="num">[^<]*</td><td>[^<]*</td><td>([^<]*)</td>', hybrid)
    assert matched and any(m and not m.startswith("(") for m in matched)  # the top hits' matched fields
