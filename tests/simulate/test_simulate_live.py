"""``toolsearch simulate --live`` against a real Chat Completions server on 127.0.0.1 (scripted replies).

The ``openai`` SDK talks over a socket to :mod:`tests.chat_server`: the full loop, mocks and
``--execute``, protocol errors, every failure status, retries, timeouts, recording and replay.
"""

from __future__ import annotations

import json
import socket
import sys

import pytest

from toolsearch_cli.agent import tool_entry

from ..chat_server import ChatServer, Raw, Sleep, Status, call, calls, live_runner, prompt_tokens, say
from ..conftest import ROOT

pytest.importorskip("openai")

EN = ROOT / "catalogs" / "scenarios" / "weather-email.en.sim.yaml"
DEMO = str(ROOT / "catalogs" / "demo")
FAKE_KEY = "sk-test-FAKE-0123456789abcdef"
RESIDENT = ["currentTime", "askUser", "toolSearch"]
SNAPSHOT_KEYS = ("tools", "active", "disclosed", "groups", "search_status", "tokens")

SEARCH_WEATHER = call("toolSearch", {"query": "current weather for a city", "maxResults": 3})
SEARCH_EMAIL = call("toolSearch", {"query": "send an email", "maxResults": 3})
GET_WEATHER = call("getWeather", {"city": "Shanghai"})
SEND_EMAIL = call(
    "sendEmail", {"address": "li.lei@example.com", "subject": "Weather in Shanghai", "content": "Cloudy, 18°C."}
)
FINAL = say("It's cloudy and 18°C in Shanghai; I emailed you the details.")
SCENARIO = [SEARCH_WEATHER, GET_WEATHER, SEARCH_EMAIL, SEND_EMAIL, FINAL]


@pytest.fixture
def server():
    srv = ChatServer()
    yield srv
    srv.close()


@pytest.fixture
def live(run_cli, server, monkeypatch):
    """``toolsearch simulate --live`` against ``server`` with a fake key and a tiny retry backoff."""
    return live_runner(run_cli, monkeypatch, server, FAKE_KEY, model="scripted-model")


def tool_message_contents(messages):
    return [m["content"] for m in messages if m["role"] == "tool"]


def test_full_loop_sends_exactly_each_snapshots_tools(live, server):
    server.add(*SCENARIO)
    result = live(str(EN), "--format", "json")
    assert result.code == 0, result.stderr
    data = result.json()
    assert data["kind"] == "live" and data["ok"] is True
    assert len(server.requests) == 5 == len(data["requests"])
    for seen, record in zip(server.requests, data["requests"], strict=True):
        assert seen.path == "/v1/chat/completions"
        assert seen.body["model"] == "scripted-model"
        assert seen.tool_names == [t["name"] for t in record["tools"]]
    assert server.requests[0].tool_names == RESIDENT
    assert "getWeather" in server.requests[1].tool_names and "sendEmail" not in server.requests[1].tool_names
    # latest policy: the email search replaces the weather hits
    assert "sendEmail" in server.requests[3].tool_names and "getWeather" not in server.requests[3].tool_names
    # toolSearch ran for real; business tools answered with the script's canned results
    sent = tool_message_contents(server.requests[-1].messages)
    assert "getWeather" in json.loads(sent[0])
    assert json.loads(sent[1])["now"]["condition"] == "cloudy"
    assert json.loads(sent[3]) == {"messageId": "msg-20260130-002", "status": "queued"}
    sources = [c["result_source"] for r in data["requests"] for c in r["reply"]["tool_calls"]]
    assert sources == ["search", "mock", "search", "mock"]
    assert server.requests[0].messages[0]["role"] == "system"  # the script's system prompt
    assistant = server.requests[1].messages[-2]
    assert assistant["role"] == "assistant" and assistant["content"] == ""  # not null: llama.cpp rejects null
    assert data["requests"][-1]["reply"]["content"].startswith("It's cloudy")
    live_info = data["requests"][0]["live"]
    sent = [prompt_tokens(seen.body) for seen in server.requests]
    assert live_info["usage"] == {"prompt_tokens": sent[0], "completion_tokens": 20, "total_tokens": sent[0] + 20}
    assert live_info["our_request_tokens"] == data["requests"][0]["tokens"]["request"]
    assert live_info["latency_ms"] >= 0 and live_info["attempts"] == 1
    assert data["live"]["model"] == "scripted-model" and data["live"]["api_key_env"] == "OPENAI_API_KEY"
    totals = data["summary"]["live"]
    assert totals["provider_usage"] == {
        "prompt_tokens": sum(sent),
        "completion_tokens": 90,
        "total_tokens": sum(sent) + 90,
    }
    assert totals["requests_with_usage"] == 5


def test_table_output_shows_tables_reply_latency_and_both_token_counts(live, server):
    server.add(*SCENARIO)
    result = live(str(EN))
    assert result.code == 0, result.stderr
    out = result.stdout
    for n in range(1, 6):
        assert f"request {n}" in out
    assert "of the all-tools baseline" in out
    sent = [prompt_tokens(seen.body) for seen in server.requests]
    assert f"provider usage: prompt {sent[0]} + completion 20 tok" in out
    assert "ours: request" in out and " ms" in out
    assert "→ says: It's cloudy" in out
    assert "key from $OPENAI_API_KEY" in out
    assert f"provider-reported usage prompt {sum(sent)} + completion 90 tok" in out  # 5 requests


def test_the_api_key_is_sent_but_never_printed_or_recorded(live, server, tmp_path):
    server.add(*SCENARIO)
    rec = tmp_path / "rec.json"
    result = live(str(EN), "--record", str(rec))
    assert result.code == 0, result.stderr
    assert server.requests[0].headers["authorization"] == f"Bearer {FAKE_KEY}"
    assert FAKE_KEY not in result.stdout + result.stderr
    text = rec.read_text(encoding="utf-8")
    assert FAKE_KEY not in text and "authorization" not in text.lower() and "Bearer" not in text
    json_run = ChatServer(SCENARIO)
    try:
        data = live(str(EN), "--format", "json", base_url=json_run.url)
    finally:
        json_run.close()
    assert FAKE_KEY not in data.stdout + data.stderr


def test_a_key_echoed_by_the_server_is_masked(live, server):
    server.add(lambda body: Status(401, {"error": {"message": f"Incorrect API key provided: {FAKE_KEY}"}}))
    result = live("--prompt", "hello", "--catalog", DEMO)
    assert result.code == 2
    assert FAKE_KEY not in result.stdout + result.stderr
    assert "Incorrect API key provided: ***" in result.stderr


def test_recording_then_replay_yields_identical_snapshots(live, run_cli, server, tmp_path):
    server.add(*SCENARIO)
    rec = tmp_path / "live.json"
    recorded = live(str(EN), "--record", str(rec), "--format", "json")
    assert recorded.code == 0, recorded.stderr
    on_disk = json.loads(rec.read_text(encoding="utf-8"))
    assert on_disk["requests"] == recorded.json()["requests"]
    replayed = run_cli("simulate", "--replay", str(rec), "--format", "json")
    assert replayed.code == 0, replayed.stderr
    replay = replayed.json()
    assert replay["kind"] == "replay" and len(replay["requests"]) == 5
    for live_request, replay_request in zip(on_disk["requests"], replay["requests"], strict=True):
        for key in SNAPSHOT_KEYS:
            assert live_request[key] == replay_request[key], key
    assert replay["ok"] is True


def test_replay_of_a_recording_reuses_its_context_and_policy(live, run_cli, server, tmp_path, write):
    catalog = write(
        "cat.yaml",
        "tools:\n"
        "  - {name: currentTime, description: Current date and time., resident: true}\n"
        "  - {name: dropTable, description: Drop a database table for good., requires: {role: [admin]},\n"
        "     parameters: {table: {type: string, required: true}}}\n"
        "  - {name: listTables, description: List the tables of the database.}\n",
    )
    server.add(call("toolSearch", {"query": "drop a database table"}), say("done"))
    rec = tmp_path / "admin.json"
    args = ("--prompt", "drop the logs table", "--catalog", str(catalog), "--context", "role=admin")
    result = live(*args, "--policy", "cumulative", "--max-active", "2", "--record", str(rec), "--format", "json")
    assert result.code == 0, result.stderr
    assert "dropTable" in server.requests[1].tool_names
    replay = run_cli("simulate", "--replay", str(rec), "--format", "json").json()
    assert replay["policy"] == "cumulative" and replay["context"] == {"role": "admin"}
    assert replay["requests"][1]["disclosed"] == result.json()["requests"][1]["disclosed"]
    assert "dropTable" in replay["requests"][1]["disclosed"]


def test_calling_a_tool_not_sent_in_the_request_is_a_protocol_error_with_an_error_result(live, server):
    server.add(GET_WEATHER, say("sorry"))
    result = live(str(EN), "--format", "json", "--check")
    assert result.code == 1
    data = result.json()
    first = data["requests"][0]
    assert [f["kind"] for f in first["findings"]] == ["not-visible"]
    assert first["reply"]["tool_calls"][0]["error"] == "not-visible"
    error = json.loads(tool_message_contents(server.requests[1].messages)[0])
    assert "not available in this request" in error["error"]
    assert data["summary"]["protocol_errors"] == 1
    table = ChatServer([GET_WEATHER, say("sorry")])
    try:
        shown = live(str(EN), base_url=table.url)
    finally:
        table.close()
    assert shown.code == 0 and "protocol error not-visible" in shown.stdout


def test_unknown_tool_is_a_protocol_error(live, server):
    server.add(call("launchRocket", {}), say("cannot"))
    data = live("--prompt", "launch", "--catalog", DEMO, "--format", "json").json()
    assert data["requests"][0]["findings"][0]["kind"] == "unknown-tool"


@pytest.mark.parametrize(
    "replies, at",
    [
        ([SEARCH_WEATHER, call("getWeather", '{"city": "Shang')], 1),
        ([call("toolSearch", '{"query": "weath')], 0),
    ],
)
def test_malformed_tool_call_arguments_get_an_error_result_and_the_loop_goes_on(live, server, replies, at):
    server.add(*replies, say("I could not do it."))
    result = live("--prompt", "weather in Shanghai", "--catalog", DEMO, "--format", "json")
    assert result.code == 0, result.stderr
    data = result.json()
    assert [f["kind"] for f in data["requests"][at]["findings"]] == ["malformed-arguments"]
    error = json.loads(tool_message_contents(server.requests[at + 1].messages)[-1])
    assert "not valid JSON" in error["error"]
    assert len(server.requests) == at + 2 and data["requests"][-1]["reply"]["content"] == "I could not do it."


def test_a_tool_call_without_a_name_is_reported(live, server):
    bad = say(None)
    bad["choices"][0]["message"]["tool_calls"] = [{"id": "x", "type": "function", "function": {"arguments": "{}"}}]
    server.add(bad)
    data = live("--prompt", "hi", "--catalog", DEMO, "--format", "json").json()
    assert data["requests"][0]["findings"][0]["kind"] == "malformed-tool-call"


def test_blank_call_ids_get_ids_and_results_pair_with_them(live, server):
    server.add(calls(("toolSearch", {"query": "current weather for a city"}, "")), say("ok"))
    data = live("--prompt", "weather?", "--catalog", DEMO, "--format", "json").json()
    assistant = server.requests[1].messages[-2]
    tool = server.requests[1].messages[-1]
    assert assistant["tool_calls"][0]["id"] == tool["tool_call_id"] != ""
    assert "getWeather" in data["requests"][1]["disclosed"]


@pytest.mark.parametrize(
    "status, words",
    [
        (401, ["HTTP 401", "$OPENAI_API_KEY"]),
        (403, ["HTTP 403", "'scripted-model'"]),
        (404, ["HTTP 404", "--base-url"]),
        (400, ["HTTP 400", "bad tools"]),
        (429, ["HTTP 429", "after 3 attempts"]),
        (500, ["HTTP 500", "twice with the same answer"]),  # deterministic: not retried a third time
        (503, ["HTTP 503", "after 3 attempts"]),
    ],
)
def test_error_statuses_are_one_line_errors(live, server, status, words):
    server.add(*[Status(status, {"error": {"message": "bad tools" if status == 400 else "nope"}})] * 3)
    result = live("--prompt", "hello", "--catalog", DEMO, "--retries", "2")
    assert result.code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), result.stderr
    assert "Traceback" not in result.stderr
    for word in words:
        assert word in lines[0]
    retried = status == 429 or status >= 500
    assert len(server.requests) == (2 if status == 500 else 3 if retried else 1)


def test_429_and_5xx_are_retried_with_backoff_then_succeed(live, server):
    server.add(Status(429, {"error": {"message": "slow down"}}), Status(502), say("hi there"))
    result = live("--prompt", "hello", "--catalog", DEMO, "--format", "json")
    assert result.code == 0, result.stderr
    info = result.json()["requests"][0]["live"]
    assert info["attempts"] == 3
    assert [r["status"] for r in info["retried"]] == [429, 502]
    assert [r["waited_s"] for r in info["retried"]] == [0.001, 0.002]  # exponential from --retry-backoff
    assert len(server.requests) == 3


def test_retry_after_is_honoured(live, server):
    server.add(Status(429, {}, {"Retry-After": "0"}), say("hi"))
    result = live("--prompt", "hello", "--catalog", DEMO)
    assert result.code == 0, result.stderr
    assert "request 1: HTTP 429, retry 1/3 in 0s" in result.stdout


def test_no_retries_when_asked(live, server):
    server.add(Status(503), say("never"))
    assert live("--prompt", "hello", "--catalog", DEMO, "--retries", "0").code == 2
    assert len(server.requests) == 1


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_connection_refused_is_a_one_line_error(live):
    result = live("--prompt", "hello", "--catalog", DEMO, base_url=f"http://127.0.0.1:{free_port()}/v1")
    assert result.code == 2
    assert "connection refused" in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_timeout_is_a_one_line_error(live, server):
    server.add(Sleep(1.5))
    result = live("--prompt", "hello", "--catalog", DEMO, "--timeout", "0.2")
    assert result.code == 2
    assert "did not answer within 0.2s" in result.stderr


def test_a_reply_that_is_not_a_completion_is_a_one_line_error(live, server):
    server.add(Raw(200, "<html>proxy login</html>", "text/html"))
    result = live("--prompt", "hello", "--catalog", DEMO)
    assert result.code == 2 and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_an_empty_reply_is_a_finding_of_the_run_recorded_and_replayed(live, run_cli, server, tmp_path):
    server.add(SEARCH_WEATHER, say(""))
    rec = tmp_path / "run.json"
    result = live(str(EN), "--record", str(rec))
    assert result.code == 0 and result.stderr == ""  # what the model did is not an error of toolsearch
    assert "request 2" in result.stdout
    assert "✗ empty-reply: the model sent an empty reply (no text, no tool calls; finish_reason stop)" in result.stdout
    assert "recorded to" in result.stdout
    data = json.loads(rec.read_text(encoding="utf-8"))
    assert "error" not in data and data["ok"] is False
    assert len(data["requests"]) == 2 and [f["kind"] for f in data["requests"][1]["findings"]][0] == "empty-reply"
    assert data["messages"][-1] == {"role": "assistant", "content": ""}  # kept, sendable to the next turn
    server.add(SEARCH_WEATHER, say(""))
    assert live(str(EN), "--check").code == 1  # the same run under --check
    replay = run_cli("simulate", "--replay", str(rec), "--format", "json", "--check")
    assert replay.code == 1
    assert replay.json()["requests"][1]["disclosed"] == data["requests"][1]["disclosed"]
    assert [f["kind"] for f in replay.json()["requests"][1]["findings"]][0] == "empty-reply"


def test_a_whitespace_reply_is_empty_too_and_the_next_turn_still_runs(live, server, write):
    script = write(
        "two.sim.yaml",
        f"catalog: {DEMO}\nturns:\n"
        "  - user: hello\n    steps: [{say: hi}]\n"
        "  - user: again\n    steps: [{say: hi}]\n",
    )
    server.add(say(" \n "), say("Hello again."))
    result = live(str(script), "--format", "json", "--check")
    assert result.code == 1 and result.stderr == ""
    data = result.json()
    assert [[f["kind"] for f in r["findings"]] for r in data["requests"]] == [["empty-reply"], []]
    assert data["summary"]["diagnostics"] == 1 and data["summary"]["protocol_errors"] == 0
    # the second turn was sent with the empty answer in its history
    assert server.requests[1].messages[-2:] == [
        {"role": "assistant", "content": " \n "},
        {"role": "user", "content": "again"},
    ]


def test_an_error_mid_run_keeps_what_was_recorded_and_prints_the_partial_transcript(live, server, tmp_path):
    server.add(SEARCH_WEATHER, Status(500, {"error": {"message": "overloaded"}}))
    rec = tmp_path / "partial.json"
    result = live(str(EN), "--record", str(rec), "--retries", "0", "--format", "json")
    assert result.code == 2 and "HTTP 500" in result.stderr and "overloaded" in result.stderr
    printed = result.json()
    on_disk = json.loads(rec.read_text(encoding="utf-8"))
    assert printed["requests"] == on_disk["requests"] and len(on_disk["requests"]) == 1
    assert on_disk["messages"][-1]["role"] == "tool"  # the search result was kept
    assert "HTTP 500" in on_disk["error"]


def test_max_iterations_bounds_the_loop(live, server):
    server.add(*[call("toolSearch", {"query": "weather"})] * 3)
    result = live("--prompt", "loop", "--catalog", DEMO, "--max-iterations", "3", "--format", "json")
    assert result.code == 0
    data = result.json()
    assert len(server.requests) == 3 and len(data["requests"]) == 3
    assert "no final answer after 3 requests" in data["requests"][-1]["warnings"][0]
    server.add(*[call("toolSearch", {"query": "weather"})] * 2)
    table = live("--prompt", "loop", "--catalog", DEMO, "--max-iterations", "2")
    assert "! turn 1: no final answer after 2 requests" in table.stdout


def test_every_user_turn_of_a_script_is_sent(live, server, write):
    script = write(
        "two.sim.yaml",
        f"catalog: {DEMO}\nturns:\n  - user: first question\n    steps: [{{say: a}}]\n"
        "  - user: second question\n    steps: [{say: b}]\n",
    )
    server.add(say("one"), say("two"))
    data = live(str(script), "--format", "json").json()
    assert [r["turn"] for r in data["requests"]] == [1, 2]
    users = [m["content"] for m in server.requests[1].messages if m["role"] == "user"]
    assert users == ["first question", "second question"]


#: Two tools with a catalog ``mock`` each (a mapping and a text).
MOCKED_CATALOG = (
    "tools:\n"
    "  - name: getStock\n    description: Stock price of a ticker symbol.\n"
    "    parameters: {symbol: {type: string, required: true}}\n    mock: {price: 42}\n"
    "  - name: getNews\n    description: Latest news headlines about a company.\n"
    "    parameters: {company: {type: string, required: true}}\n    mock: catalog news\n"
)


def test_mocks_from_the_script_key_and_from_the_catalog(live, server, write):
    catalog = write("cat.yaml", MOCKED_CATALOG)
    script = write(
        "m.sim.yaml",
        f"catalog: {catalog}\nmocks: {{getNews: [headline one]}}\nturns:\n  - user: stock and news\n"
        "    steps: [{say: done}]\n",
    )
    server.add(
        calls(("toolSearch", {"query": "stock price"}), ("toolSearch", {"query": "news headlines"})),
        calls(("getStock", {"symbol": "ACME"}), ("getNews", {"company": "ACME"})),
        say("done"),
    )
    data = live(str(script), "--policy", "cumulative", "--format", "json").json()
    results = [c["result"] for c in data["requests"][1]["reply"]["tool_calls"]]
    assert [c["error"] for c in data["requests"][1]["reply"]["tool_calls"]] == [None, None]
    assert results == ['{"price":42}', '["headline one"]']


def test_execute_runs_the_python_function(live, server):
    catalog = str(ROOT / "catalogs" / "python" / "ops_tools.py")
    server.add(
        call("toolSearch", {"query": "restart a service"}),
        call("restartService", {"service": "api", "environment": "staging"}),
        say("restarted"),
    )
    data = live("--prompt", "restart api", "--catalog", catalog, "--execute", "--format", "json").json()
    tool_call = data["requests"][1]["reply"]["tool_calls"][0]
    assert tool_call["result_source"] == "function" and "api" in tool_call["result"]


def test_agent_mode_keeps_disclosed_tools_in_the_state_file(live, server, tmp_path):
    state = tmp_path / "state.json"
    server.add(SEARCH_WEATHER, say("ok"))
    result = live("--prompt", "weather", "--catalog", DEMO, "--mode", "agent", "--state", str(state))
    assert result.code == 0, result.stderr
    saved = json.loads(state.read_text(encoding="utf-8"))
    assert "getWeather" in saved["metadata"]["agentsflex.toolsearch.activeToolNames"]
    assert "getWeather" in server.requests[1].tool_names


@pytest.mark.parametrize(
    "args, words",
    [
        (("--live", "--prompt", "hi"), "--model"),
        (("--model", "x", "--prompt", "hi"), "add --live"),
        (("--live", "--model", "x"), "--prompt"),
        (("--live", "--model", "x", "--prompt", "hi", "--replay", "r.json"), "--replay"),
        (("--live", "--model", "x", "--prompt", "hi", "--policy", "latest,cumulative"), "--record FILE then --replay"),
        (("--live", "--model", "x", "--prompt", "  "), "blank"),
        (("--live", "--model", "x", "--prompt", "hi", "--base-url", "ftp://h"), "http://"),
        (("--live", "--model", "x", "--prompt", "hi", "--max-iterations", "0"), "at least 1"),
        (("--live", "--model", "x", "--prompt", "hi", "--timeout", "0"), "--timeout"),
    ],
)
def test_bad_live_options_are_one_line_errors(run_cli, args, words):
    result = run_cli("simulate", "--catalog", DEMO, *args)
    assert result.code == 2
    assert words in result.stderr and "Traceback" not in result.stderr


def test_missing_openai_extra_is_a_one_line_error(run_cli, monkeypatch, server):
    monkeypatch.setitem(sys.modules, "openai", None)  # import openai now raises ImportError
    result = run_cli("simulate", "--live", "--model", "m", "--prompt", "hi", "--base-url", server.url)
    assert result.code == 2
    assert "pip install 'toolsearch-cli[live]'" in result.stderr
    assert server.requests == []


def test_no_key_set_still_works_for_local_servers(run_cli, server, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    server.add(say("hi"))
    result = run_cli(
        "simulate", "--live", "--model", "m", "--prompt", "hi", "--catalog", DEMO, "--base-url", server.url
    )
    assert result.code == 0, result.stderr
    assert "$OPENAI_API_KEY unset" in result.stdout


def test_custom_key_variable_and_temperature_are_used(run_cli, server, monkeypatch):
    monkeypatch.setenv("MY_LLM_KEY", "sk-other-key-123456")
    server.add(say("hi"))
    result = run_cli(
        "simulate", "--live", "--model", "m", "--prompt", "hi", "--catalog", DEMO, "--base-url", server.url,
        "--api-key-env", "MY_LLM_KEY", "--temperature", "0.2",
    )  # fmt: skip
    assert result.code == 0, result.stderr
    assert server.requests[0].headers["authorization"] == "Bearer sk-other-key-123456"
    assert server.requests[0].body["temperature"] == 0.2
    assert server.requests[0].body["tool_choice"] == "auto"  # OpenAI's default, said out loud for llama.cpp
    assert "sk-other-key-123456" not in result.stdout


def test_tool_choice_can_be_required_or_omitted(live, server):
    server.add(say("a"), say("b"))
    assert live("--prompt", "hi", "--catalog", DEMO, "--tool-choice", "required").code == 0
    assert live("--prompt", "hi", "--catalog", DEMO, "--tool-choice", "omit").code == 0
    assert server.requests[0].body["tool_choice"] == "required"
    assert "tool_choice" not in server.requests[1].body
    assert live("--prompt", "hi", "--catalog", DEMO, "--tool-choice", "any").code == 2


def test_python_tools_take_a_mock_and_bad_script_mocks_are_one_line_errors(run_cli, write):
    from toolsearch_cli import tool
    from toolsearch_cli.catalog.python_loader import tool_from_function

    @tool(mock={"status": "restarted"})
    def restartThing(name: str) -> str:
        """Restart a thing."""
        return name

    assert tool_from_function(restartThing).mock == {"status": "restarted"}
    assert "mock" not in tool_entry(tool_from_function(restartThing))["function"]
    script = write("bad.sim.yaml", f"catalog: {DEMO}\nmocks: [1, 2]\nturns:\n  - user: hi\n    steps: [{{say: a}}]\n")
    result = run_cli("simulate", str(script))
    assert result.code == 2 and "bad.sim.yaml:2" in result.stderr and "'mocks' must map tool names" in result.stderr


def test_an_unwritable_recording_fails_before_any_request(live, server, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    server.add(say("hi"))
    result = live("--prompt", "hi", "--catalog", DEMO, "--record", str(blocker / "rec.json"))
    assert result.code == 2 and "cannot write the recording" in result.stderr
    assert server.requests == []
