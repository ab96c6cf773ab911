"""Why didn't the model use the tool? Live-run diagnostics, against the real loopback chat server.

Cut-off replies, servers that dropped the tools, a live run measured against its script,
``--max-tokens``/``--system``, a failed recording's error on replay, deterministic 500s; and the
scripted mode's default results (script ``mocks``, catalog ``mock``).
"""

# ruff: noqa: F811 - the fixtures `live` and `server` are shared with test_simulate_live
from __future__ import annotations

import json

import pytest

from ..chat_server import Status, Trickle, _usage, call, say
from ..conftest import ROOT
from .test_simulate_live import MOCKED_CATALOG, live, server  # noqa: F401

pytest.importorskip("openai")

EN = ROOT / "catalogs" / "scenarios" / "weather-email.en.sim.yaml"
DEMO = str(ROOT / "catalogs" / "demo")
SEARCH_WEATHER = call("toolSearch", {"query": "current weather for a city", "maxResults": 3})


def kinds(data):
    return [[f["kind"] for f in r["findings"]] for r in data["requests"]]


def test_a_reply_cut_off_by_the_token_limit_is_flagged_and_fails_check(live, server):
    cut = say("The weather in Shanghai is")
    cut["choices"][0]["finish_reason"] = "length"
    server.add(cut, cut)
    data = live("--prompt", "weather?", "--catalog", DEMO, "--format", "json").json()
    assert kinds(data) == [["truncated-reply"]]
    assert data["ok"] is False and data["summary"]["diagnostics"] == 1 and data["summary"]["protocol_errors"] == 0
    shown = live("--prompt", "weather?", "--catalog", DEMO, "--check")
    assert shown.code == 1
    assert "✗ truncated-reply" in shown.stdout and "--max-tokens" in shown.stdout


def test_diagnostics_come_back_when_the_recording_is_replayed(live, run_cli, server, tmp_path):
    cut = say("The weather in Shanghai is")
    cut["choices"][0]["finish_reason"] = "length"
    server.add(call("toolSearch", {"query": "weather"}, usage=_usage(20, 5)), cut)
    rec = tmp_path / "cut.json"
    recorded = live("--prompt", "weather?", "--catalog", DEMO, "--record", str(rec), "--format", "json").json()
    replayed = run_cli("simulate", "--replay", str(rec), "--format", "json", "--check")
    assert replayed.code == 1
    assert kinds(replayed.json()) == kinds(recorded) == [["tools-dropped"], ["truncated-reply"]]
    # a hostile recording's 'requests' is ignored, never a crash
    data = json.loads(rec.read_text(encoding="utf-8"))
    data["requests"][0]["live"] = {"latency_ms": "x", "usage": [1], "attempts": "y", "finish_reason": 3}
    rec.write_text(json.dumps(data), encoding="utf-8")
    table = run_cli("simulate", "--replay", str(rec))
    assert table.code == 0 and "provider usage: not reported" in table.stdout
    data["requests"] = 7
    rec.write_text(json.dumps(data), encoding="utf-8")
    assert run_cli("simulate", "--replay", str(rec), "--format", "json").code == 0


def test_a_whole_reply_is_not_flagged(live, server):
    server.add(say("It is sunny."))
    data = live("--prompt", "weather?", "--catalog", DEMO, "--format", "json", "--check")
    assert data.code == 0 and kinds(data.json()) == [[]]


def test_prompt_tokens_below_our_tool_tokens_say_the_server_dropped_the_tools(live, server):
    server.add(say("Hello!", usage=_usage(46, 5)))
    result = live("--prompt", "weather?", "--catalog", DEMO, "--format", "json")
    data = result.json()
    finding = data["requests"][0]["findings"][0]
    assert finding["kind"] == "tools-dropped"
    tools = data["requests"][0]["tokens"]["tools"]
    assert f"counted 46 prompt tokens, fewer than the {tools} tokens of the tools alone" in finding["message"]
    assert "--system" in finding["message"]


def test_a_live_run_is_measured_against_its_script(live, server):
    server.add(say("I cannot check the weather."))
    result = live(str(EN), "--format", "json", "--check")
    assert result.code == 1
    data = result.json()
    messages = [f["message"] for f in data["requests"][0]["findings"]]
    assert messages == ["turn 1: the model never called toolSearch / getWeather / sendEmail that the script expects"]
    assert data["requests"][0]["line"] is not None  # step 1's expect was checked against request 1
    assert data["requests"][0]["checks"] >= 3 + 5  # the three calls and step 1's expectations
    assert any("expectations were not checked" in w for w in data["requests"][0]["warnings"])


def test_a_live_run_failing_a_step_expectation_fails_check(live, server):
    # request 2 searches for email instead of calling getWeather: step 3 then expects getWeather
    # visible, but under the latest policy the email search replaced it
    server.add(SEARCH_WEATHER, call("toolSearch", {"query": "send an email"}), say("done"))
    result = live(str(EN), "--format", "json", "--check")
    assert result.code == 1
    data = result.json()
    found = [(r["index"], f["message"]) for r in data["requests"] for f in r["findings"]]
    assert found[0][0] == 3 and found[0][1].startswith("expected 'getWeather' to be visible")
    assert found[1:] == [(3, "turn 1: the model never called getWeather / sendEmail that the script expects")]


def test_max_tokens_and_system_are_sent(live, server):
    server.add(say("hi"))
    result = live("--prompt", "hello", "--catalog", DEMO, "--max-tokens", "64", "--system", "Use toolSearch.")
    assert result.code == 0, result.stderr
    body = server.requests[0].body
    assert body["max_tokens"] == 64
    assert body["messages"][0] == {"role": "system", "content": "Use toolSearch."}


@pytest.mark.parametrize(
    "args, words",
    [
        (("--max-tokens", "0"), "--max-tokens must be at least 1"),
        (("--system", " "), "--system is blank"),
    ],
)
def test_bad_max_tokens_and_system_are_one_line_errors(live, server, args, words):
    result = live("--prompt", "hello", "--catalog", DEMO, *args)
    assert result.code == 2 and words in result.stderr and server.requests == []


def test_max_tokens_needs_live(run_cli):
    result = run_cli("simulate", str(EN), "--max-tokens", "5")
    assert result.code == 2 and "--max-tokens is for live runs" in result.stderr


def test_replaying_a_failed_recording_shows_its_error(live, run_cli, server, tmp_path):
    server.add(SEARCH_WEATHER, Status(400, {"error": {"message": "context window exceeded"}}))
    rec = tmp_path / "failed.json"
    assert live("--prompt", "weather?", "--catalog", DEMO, "--record", str(rec)).code == 2
    replayed = run_cli("simulate", "--replay", str(rec), "--format", "json")
    assert replayed.code == 0, replayed.stderr
    pending = replayed.json()["requests"][-1]["warnings"][0]
    assert pending.startswith("pending: the recording stopped here with an error:")
    assert "HTTP 400" in pending and "context window exceeded" in pending
    plain = run_cli("simulate", "--replay", str(rec))
    assert "context window exceeded" in plain.stdout


@pytest.mark.parametrize("body", [None, {"error": {"message": "template error"}}])
def test_the_same_500_twice_stops_retrying(live, server, body):
    server.add(*[Status(500, body)] * 4)
    result = live("--prompt", "hello", "--catalog", DEMO, "--retries", "3")
    assert result.code == 2
    assert len(server.requests) == 2
    assert "HTTP 500" in result.stderr and "twice with the same" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_changing_500_and_a_repeated_503_are_still_retried(live, server):
    server.add(Status(500, {"error": {"message": "a"}}), Status(500, {"error": {"message": "b"}}), say("ok"))
    assert live("--prompt", "hello", "--catalog", DEMO).code == 0
    assert len(server.requests) == 3
    server.add(Status(503), Status(503), say("ok"))
    assert live("--prompt", "hello", "--catalog", DEMO).code == 0
    assert len(server.requests) == 6


# -- scripted mode: default results -------------------------------------------------------------------


def test_scripted_calls_without_a_result_use_the_script_mocks_then_the_catalog_mock(run_cli, write):
    rates = "  - name: getRates\n    description: Interest rates of a central bank.\n"
    catalog = write("cat.yaml", MOCKED_CATALOG + rates)
    script = write(
        "m.sim.yaml",
        f"catalog: {catalog}\npolicy: cumulative\nmocks: {{getNews: [headline one]}}\nturns:\n"
        "  - user: stock and news\n    steps:\n"
        "      - calls: [{name: toolSearch, arguments: {query: stock price}},"
        " {name: toolSearch, arguments: {query: news headlines}}, {name: toolSearch, arguments: {query: rates}}]\n"
        "      - calls: [{name: getStock, arguments: {symbol: ACME}}, {name: getNews, arguments: {company: ACME}},"
        " {name: getRates, arguments: {}}]\n"
        "      - say: done\n",
    )
    result = run_cli("simulate", str(script), "--format", "json")
    assert result.code == 0, result.stderr
    request = result.json()["requests"][1]
    got = [(c["name"], c["result"], c["result_source"]) for c in request["reply"]["tool_calls"]]
    assert got == [
        ("getStock", '{"price":42}', "mock"),
        ("getNews", '["headline one"]', "mock"),
        ("getRates", "null", "none"),
    ]
    assert request["warnings"] == ["no result scripted or mocked for getRates; sent null"]


def test_python_tool_mock_is_the_scripted_default(run_cli, write):
    module = write(
        "mock_tools.py",
        "from toolsearch_cli import tool\n\n"
        "@tool(mock={'status': 'restarted'})\n"
        "def restartThing(name: str) -> str:\n"
        '    """Restart a thing by name."""\n'
        "    return 'ran ' + name\n",
    )
    script = write(
        "p.sim.yaml",
        f"catalog: {module}\nturns:\n  - user: restart it\n    steps:\n"
        "      - call: {name: toolSearch, arguments: {query: restart a thing}}\n"
        "      - call: {name: restartThing, arguments: {name: api}}\n"
        "      - say: done\n",
    )
    plain = run_cli("simulate", str(script), "--catalog", str(module), "--format", "json").json()
    call_ = plain["requests"][1]["reply"]["tool_calls"][0]
    assert (json.loads(call_["result"]), call_["result_source"]) == ({"status": "restarted"}, "mock")
    executed = run_cli("simulate", str(script), "--catalog", str(module), "--format", "json", "--execute").json()
    call_ = executed["requests"][1]["reply"]["tool_calls"][0]
    assert (call_["result"], call_["result_source"]) == ("ran api", "function")


# -- small catalogs: when all tools are cheaper ---------------------------------------------------------

TWO_TOOLS = (
    "tools:\n"
    "  - {name: getWeather, description: Get the weather for a city., parameters: {city: {type: string}}}\n"
    "  - {name: sendEmail, description: Send an email., parameters: {to: {type: string}}}\n"
)
WEATHER_SCRIPT = (
    "turns:\n  - user: weather in Paris\n    steps:\n"
    "      - call: {name: toolSearch, arguments: {query: weather}}\n"
    "      - call: {name: getWeather, arguments: {city: Paris}, result: sunny}\n"
    "      - say: sunny\n"
)


def test_a_two_tool_catalog_says_all_tools_are_cheaper_and_where_disclosure_pays_off(run_cli, write):
    catalog = write("two.yaml", TWO_TOOLS)
    script = write("two.sim.yaml", f"catalog: {catalog}\n" + WEATHER_SCRIPT)
    summary = run_cli("simulate", str(script), "--format", "json").json()["summary"]
    assert summary["saving_percent"] < 0 and summary["all_tools_cheaper"] is True
    assert summary["baseline_tool_count"] == 2
    # the requests send on average as many tokens as about break_even_tools tools of this catalog
    per_tool = summary["baseline_tool_tokens"] / 3 / 2
    assert summary["break_even_tools"] - 1 < summary["tool_tokens"] / 3 / per_tool <= summary["break_even_tools"]
    shown = run_cli("simulate", str(script)).stdout
    assert "sending all 2 tools is cheaper than disclosure" in shown
    assert f"disclosure pays off from about {summary['break_even_tools']} tools" in shown


def test_a_large_catalog_does_not_say_all_tools_are_cheaper(run_cli):
    result = run_cli("simulate", str(EN))
    assert result.code == 0 and "cheaper than disclosure" not in result.stdout
    summary = run_cli("simulate", str(EN), "--format", "json").json()["summary"]
    assert summary["all_tools_cheaper"] is False and summary["break_even_tools"] < summary["baseline_tool_count"]


# -- --timeout is a total deadline per request (issue 11.18) ----------------------------------------------


@pytest.mark.parametrize("forever", [False, True], ids=["trickle", "stream-forever"])
def test_timeout_is_a_total_deadline_not_a_per_read_one(live, server, forever):
    import threading
    import time

    # a whole completion, one byte every 50 ms: about 15 s in all, each read well under --timeout
    body = json.dumps(say("It is cloudy and 18°C in Shanghai, with light rain expected tomorrow." * 2))
    server.add(Trickle(body, 0.05, forever=forever))
    result = live("--prompt", "hello", "--catalog", DEMO, "--timeout", "0.5", "--retries", "0")
    assert result.code == 2
    assert "did not answer within 0.5s (--timeout)" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    # the abandoned request's worker ends once its connection is dropped (no thread left reading)
    deadline = time.monotonic() + 30  # a hang's bound: on a loaded machine the worker may take a while
    while time.monotonic() < deadline:
        if not any(t.name == "toolsearch-live-request" for t in threading.enumerate()):
            break
        time.sleep(0.1)
    assert not any(t.name == "toolsearch-live-request" for t in threading.enumerate())


# -- a silent model is a finding, and every request's diagnoses are shown (issue 24) --------------


def test_an_empty_reply_with_dropped_tools_is_two_findings_not_an_error(live, server, tmp_path):
    """What llama.cpp's server did with a 270M model and a Chinese prompt: 38 prompt tokens against
    hundreds of tokens of tools, then nothing. Both are said; the run completes (exit 0, 1 under --check)."""
    empty = say("", usage=_usage(38, 6))
    server.add(empty)
    rec = tmp_path / "zh.json"
    shown = live("--prompt", "查询上海的天气", "--catalog", DEMO, "--record", str(rec))
    assert shown.code == 0 and shown.stderr == ""
    assert "✗ empty-reply: the model sent an empty reply (no text, no tool calls; finish_reason stop)" in shown.stdout
    assert "✗ tools-dropped: the server counted 38 prompt tokens" in shown.stdout and "--system" in shown.stdout
    assert "recorded to" in shown.stdout
    recorded = json.loads(rec.read_text(encoding="utf-8"))
    assert kinds(recorded) == [["empty-reply", "tools-dropped"]] and "error" not in recorded
    assert recorded["summary"]["diagnostics"] == 2 and recorded["ok"] is False
    server.add(empty)
    checked = live("--prompt", "查询上海的天气", "--catalog", DEMO, "--check", "--format", "json")
    assert checked.code == 1 and checked.stderr == ""
    assert kinds(checked.json()) == [["empty-reply", "tools-dropped"]]


def test_every_request_shows_its_diagnoses_up_to_the_one_where_the_run_stops(live, server):
    cut_call = call("toolSearch", {"query": "weather"}, usage=_usage(20, 64))
    cut_call["choices"][0]["finish_reason"] = "length"
    server.add(call("toolSearch", {"query": "weather"}, usage=_usage(20, 5)), cut_call)
    args = ("--prompt", "weather?", "--catalog", DEMO, "--max-iterations", "2")
    shown = live(*args)
    assert shown.code == 0, shown.stderr
    second = shown.stdout[shown.stdout.index("request 2") :]
    first = shown.stdout[shown.stdout.index("request 1") : shown.stdout.index("request 2")]
    assert "✗ tools-dropped" in first and "✗ truncated-reply" not in first
    # the last request: the run stops there (--max-iterations), its two diagnoses are shown all the same
    assert "✗ truncated-reply" in second and "✗ tools-dropped" in second and "--max-iterations" in second
    server.add(call("toolSearch", {"query": "weather"}, usage=_usage(20, 5)), cut_call)
    assert kinds(live(*args, "--format", "json").json()) == [["tools-dropped"], ["truncated-reply", "tools-dropped"]]


def test_the_diagnoses_before_a_server_error_are_shown_and_kept(live, server, tmp_path):
    server.add(call("toolSearch", {"query": "weather"}, usage=_usage(20, 5)), Status(500, {"error": "down"}))
    rec = tmp_path / "stopped.json"
    result = live("--prompt", "weather?", "--catalog", DEMO, "--retries", "0", "--record", str(rec))
    assert result.code == 2 and "HTTP 500" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert "✗ tools-dropped: the server counted 20 prompt tokens" in result.stdout
    assert "kept what was recorded" in result.stdout
    assert kinds(json.loads(rec.read_text(encoding="utf-8"))) == [["tools-dropped"]]


def test_a_recording_that_stopped_on_an_empty_reply_shows_the_stopping_requests_diagnoses(
    live, run_cli, server, tmp_path
):
    """Recordings of earlier versions stopped at an empty reply, an error on a pending request: its
    recorded figures still say why (here: the server dropped the tools)."""
    server.add(say("", usage=_usage(38, 6)))
    rec = tmp_path / "old.json"
    live("--prompt", "weather?", "--catalog", DEMO, "--record", str(rec))
    data = json.loads(rec.read_text(encoding="utf-8"))
    assert data["messages"][-1]["role"] == "assistant"
    del data["messages"][-1]  # as such a version wrote it: the reply never reached the history
    data["error"] = "the model sent an empty reply (no text, no tool calls) to request 1 (finish_reason stop)"
    rec.write_text(json.dumps(data), encoding="utf-8")
    table = run_cli("simulate", "--replay", str(rec))
    assert table.code == 0, table.stderr
    assert "pending: the recording stopped here with an error: the model sent an empty reply" in table.stdout
    assert "✗ tools-dropped: the server counted 38 prompt tokens" in table.stdout
    replayed = run_cli("simulate", "--replay", str(rec), "--format", "json", "--check")
    assert replayed.code == 1 and kinds(replayed.json()) == [["tools-dropped"]]
