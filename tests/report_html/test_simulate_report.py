"""``toolsearch simulate --report FILE.html``: tokens per request per policy against the all-tools
baseline, the tools of each request as a timeline, prompt-cache stability and the findings."""

from __future__ import annotations

import json

from ..conftest import ROOT
from .parse import ALLOWED, parse, value_of

EN = ROOT / "catalogs" / "scenarios" / "weather-email.en.sim.yaml"


def test_tokens_timeline_and_cache_are_the_transcripts_figures(run_cli, tmp_path):
    out = tmp_path / "sim.html"
    result = run_cli("simulate", str(EN), "-p", "latest,cumulative", "--report", str(out))
    assert result.code == 0, result.stderr
    runs = json.loads(run_cli("simulate", str(EN), "-p", "latest,cumulative", "-f", "json").stdout)["runs"]
    page = parse(out.read_text(encoding="utf-8"))
    assert page.tags() <= ALLOWED
    tools, whole = page.charts("line")
    assert tools.title == "Tool tokens per request against sending all tools"
    points = page.tooltips("circle")
    for run in runs:
        for request in run["requests"]:
            tip = f"policy {run['policy']}: request {request['index']} → {request['tokens']['tools']} tok"
            assert tip in points
            assert f"policy {run['policy']}: request {request['index']} → {request['tokens']['request']} tok" in points
    baseline = runs[0]["requests"][0]["tokens"]["baseline_tools"]
    assert f"all tools (baseline): request 1 → {baseline} tok" in points

    # the timeline: one cell per tool a request carried, coloured by its role
    timelines = page.charts("timeline")
    assert [t.title for t in timelines] == [
        "Tools per request · policy latest",
        "Tools per request · policy cumulative",
    ]
    cells = [t for t in page.tooltips("rect") if t.startswith("request ") and " tok)" in t]
    assert len(cells) == sum(len(r["tools"]) for run in runs for r in run["requests"])
    latest = runs[0]["requests"]
    second = {t["name"] for t in latest[1]["tools"] if t["role"] == "disclosed"}
    for name in second:
        assert any(c.startswith(f"request 2: {name} (disclosed") for c in cells)
    calls = [t for t in page.tooltips("circle") if "the model called" in t]
    assert len(calls) == 2 * sum(len(r["reply"]["tool_calls"]) for r in latest)

    # the prompt cache: a bar per request after the first, per policy; the kept share as the transcript says
    [cache] = page.charts("bar")
    bars = [t for t in page.tooltips("rect") if t.startswith("policy ")]
    assert len(bars) == sum(len(run["requests"]) - 1 for run in runs)
    for run in runs:
        for brk in run["summary"]["prompt_cache"]["broke_at"]:
            share = 100 * brk["kept_bytes"] / brk["bytes"]
            assert f"policy {run['policy']} · {brk['request']}: {share:.0f}%" in bars
    assert "every check passed" in page.text()


def test_findings_are_highlighted_on_the_timeline_and_listed(run_cli, tmp_path, hostile):
    out = tmp_path / "sim.html"
    result = run_cli("simulate", str(hostile["script"]), "--report", str(out))
    assert result.code == 0, result.stderr
    transcript = json.loads(run_cli("simulate", str(hostile["script"]), "-f", "json").stdout)
    failed = [(r["index"], f) for r in transcript["requests"] for f in r["findings"] if not f["expected"]]
    assert failed  # sendEmail was called without being disclosed: not-visible
    document = out.read_text(encoding="utf-8")
    page = parse(document)
    marks = [e for e in page.all("path") if e.attrs.get("fill") == "#cf222e"]
    assert [m.title.split(":")[0] for m in marks] == [f"request {i}" for i, _ in dict(failed).items()]
    findings = [e for e in page.all("div") if e.attrs.get("class") == "finding"]
    assert len(findings) == len(failed)
    assert "protocol error not-visible" in page.text()
    # three tools: sending them all is cheaper than toolSearch, as the table output says
    assert transcript["summary"]["all_tools_cheaper"] is True
    assert "sending all 3 tools is cheaper than disclosure" in page.text()
    assert "failed checks, protocol errors" in page.text()


def test_values_over_the_charts_max_are_drawn_at_the_top(run_cli, tmp_path):
    """A report of one request still draws its line chart (a single x value) without error."""
    out = tmp_path / "one.html"
    script = tmp_path / "one.sim.yaml"
    script.write_text(
        f"catalog: {ROOT / 'catalogs' / 'demo'}\nturns:\n  - user: hello\n    steps:\n      - say: hi\n",
        encoding="utf-8",
    )
    result = run_cli("simulate", str(script), "--report", str(out))
    assert result.code == 0, result.stderr
    page = parse(out.read_text(encoding="utf-8"))
    assert len(page.charts("line")) == 2 and not page.charts("bar")  # one request: no cache to compare
    assert value_of([t for t in page.tooltips("circle") if t.startswith("all tools")][0]) > 0


def test_a_long_conversation_is_drawn_within_bounds(monkeypatch):
    """A long replay (thousands of requests) keeps a bounded report: the timeline draws the first
    requests and says how many more there are; the prompt cache becomes a line, not a forest of
    bars. (Here with the bounds lowered to fit the five requests of the shipped scenario.)"""
    from toolsearch_cli.htmlreport import simulate_html, simulate_page
    from toolsearch_cli.simulate import SimulateSettings, run_simulation

    result = run_simulation(SimulateSettings(script=str(EN), policy="latest,cumulative"))
    monkeypatch.setattr(simulate_page, "MAX_TIMELINE_REQUESTS", 3)
    monkeypatch.setattr(simulate_page, "MAX_CACHE_BARS", 2)
    page = parse(simulate_html(result))
    timelines = page.charts("timeline")
    cells = [t for t in page.tooltips("rect") if t.startswith("request ") and " tok)" in t]
    assert len(timelines) == 2 and {c.split(":")[0] for c in cells} == {"request 1", "request 2", "request 3"}
    assert "The first 3 requests are drawn; 2 more are not." in page.text()
    assert not page.charts("bar") and len(page.charts("line")) == 3  # tokens, request tokens, the cache
    kept = [t for t in page.tooltips("circle") if "%" in t]
    assert len(kept) == 2 * 4  # a point per request after the first, per policy
