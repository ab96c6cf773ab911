"""The gateway's ops pieces on their own: the Prometheus exposition (bucket bounds, label
escaping; read back by the Prometheus client's parser when installed), readiness, and what a
JSON log line may carry."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from toolsearch_cli.serve.ops import BUCKETS, Histogram, Metrics, notice_record, readiness, traffic_record


def test_histogram_buckets_are_cumulative_and_inclusive():
    hist = Histogram()
    for seconds in (0.0005, 0.001, 0.0011, 0.03, 100.0):
        hist.observe(seconds)
    cumulative = dict(zip(BUCKETS, hist.cumulative(), strict=True))
    assert cumulative[0.001] == 2  # le is "less than or equal"
    assert cumulative[0.0025] == 3 and cumulative[0.05] == 4 and cumulative[30.0] == 4
    assert hist.count == 5  # the +Inf bucket


def upstream(alias: str, ready: bool, tools: int = 2, starts: int = 1) -> SimpleNamespace:
    return SimpleNamespace(
        live=SimpleNamespace(alias=alias, display=f"mcp+stdio:{alias}-server --token s3cr3t"),
        ready=ready,
        raw_tools=[{}] * tools,
        status=SimpleNamespace(starts=starts, state="ready" if ready else "restarting"),
    )


def test_exposition_read_back_by_the_prometheus_parser():
    parser = pytest.importorskip("prometheus_client.parser", reason="prometheus-client is not installed")
    metrics = Metrics(lambda: [upstream('we"ird\\name', True), upstream("down", False, 0, 3)])
    metrics.observe({"event": "search", "status": "ok", "ms": 2.0})
    metrics.observe({"event": "call", "server": "time", "ok": True, "refused": None, "ms": 9.0, "upstream_ms": 6.0})
    metrics.observe({"event": "call", "server": None, "ok": False, "refused": "unknown-tool", "ms": 0.2})
    text = metrics.render()
    assert "s3cr3t" not in text  # upstreams are named by alias, never by command
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in parser.text_string_to_metric_families(text)
        for s in family.samples
    }
    assert samples[("toolsearch_upstream_up", (("upstream", 'we"ird\\name'),))] == 1
    assert samples[("toolsearch_upstream_starts_total", (("upstream", "down"),))] == 3
    assert samples[("toolsearch_calls_total", (("outcome", "unknown-tool"), ("upstream", "none")))] == 1
    assert samples[("toolsearch_call_duration_seconds_bucket", (("le", "0.01"), ("upstream", "time")))] == 1
    assert samples[("toolsearch_call_duration_seconds_bucket", (("le", "0.005"), ("upstream", "time")))] == 0
    assert samples[("toolsearch_search_duration_seconds_count", ())] == 1


def test_readiness_names_the_missing_required_upstreams():
    ups = [upstream("time", True), upstream("github", False), upstream("docs", False)]
    assert readiness(ups, None) == (
        False,
        {
            "ready": False,
            "missing": [{"upstream": "github", "state": "restarting"}, {"upstream": "docs", "state": "restarting"}],
        },
    )
    assert readiness(ups, ["time", "github"])[1]["missing"] == [{"upstream": "github", "state": "restarting"}]
    assert readiness(ups, ["time"]) == (True, {"ready": True})


def test_log_records_carry_no_query_and_no_arguments():
    search = {
        "event": "search",
        "session": "s",
        "search": 1,
        "query": "secret plans",
        "hits": ["a", "b"],
        "status": "ok",
    }
    assert traffic_record(search) == {
        "level": "info",
        "event": "search",
        "session": "s",
        "search": 1,
        "status": "ok",
        "hits": 2,
    }
    call = {"event": "call", "tool": "t", "ok": True, "arguments": {"password": "x"}, "rank": 1}
    assert traffic_record(call) == {"level": "info", "event": "call", "tool": "t", "ok": True}
    assert notice_record("warning: time: not ready") == {
        "level": "warning",
        "event": "notice",
        "message": "time: not ready",
    }
    assert notice_record("listening")["level"] == "info"
