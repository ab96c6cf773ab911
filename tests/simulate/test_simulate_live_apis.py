"""``simulate --live --api openai-responses|anthropic``: the same scripted conversation through each
official SDK (``openai``'s Responses client, ``anthropic``) against a loopback server speaking that
protocol (tests/chat_server.py); recorded and replayed like a Chat Completions run."""

from __future__ import annotations

import json

import pytest

from ..chat_server import ChatServer, Status, live_runner
from .test_simulate_live import EN, FAKE_KEY, RESIDENT, SCENARIO, SNAPSHOT_KEYS

pytest.importorskip("openai")
pytest.importorskip("anthropic")

APIS = {"anthropic": "/messages", "openai-responses": "/responses"}


@pytest.fixture(params=list(APIS))
def api(request):
    return request.param


@pytest.fixture
def server(api):
    srv = ChatServer(protocol=api)
    yield srv
    srv.close()


@pytest.fixture
def live(run_cli, server, monkeypatch, api):
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)  # --api anthropic reads its own variable
    run = live_runner(run_cli, monkeypatch, server, FAKE_KEY, model="scripted-model")
    return lambda *args: run("--api", api, *args)


def results_sent(api, seen):
    """The tool results a request carried, in order, as text."""
    if api == "anthropic":
        return [b["content"] for m in seen.messages if isinstance(m["content"], list)
                for b in m["content"] if b["type"] == "tool_result"]  # fmt: skip
    return [i["output"] for i in seen.messages if i.get("type") == "function_call_output"]


def test_the_scripted_conversation_discloses_alike_through_each_sdk(live, server, api, tmp_path, run_cli):
    server.add(*SCENARIO)
    record = tmp_path / "live.json"
    result = live(str(EN), "--format", "json", "--record", str(record))
    assert result.code == 0, result.stderr
    data = result.json()
    assert data["kind"] == "live" and data["ok"] is True and data["live"]["api"] == api
    assert len(server.requests) == 5 == len(data["requests"])
    for seen, snapshot in zip(server.requests, data["requests"], strict=True):
        assert seen.path.endswith(APIS[api]) and seen.body["model"] == "scripted-model"
        assert seen.tool_names == [t["name"] for t in snapshot["tools"]]
    assert server.requests[0].tool_names == RESIDENT
    assert "getWeather" in server.requests[1].tool_names and "sendEmail" not in server.requests[1].tool_names
    assert "sendEmail" in server.requests[3].tool_names and "getWeather" not in server.requests[3].tool_names
    first, last = server.requests[0].body, server.requests[-1]
    if api == "anthropic":
        # the system prompt travels apart; tools in the Messages shape; max_tokens is required
        assert isinstance(first["system"], str) and first["system"]
        assert all(m["role"] != "system" for m in first["messages"]) and first["max_tokens"] == 1024
        assert all("input_schema" in t for t in first["tools"]) and first["tool_choice"] == {"type": "auto"}
        headers = server.requests[0].headers  # from ANTHROPIC_API_KEY (this SDK sends it as a bearer token)
        assert FAKE_KEY in (headers.get("x-api-key") or headers.get("authorization") or "")
    else:
        assert first["input"][0]["role"] == "system" and all(t["strict"] is False for t in first["tools"])
        assert first["tool_choice"] == "auto"
        assert server.requests[0].headers["authorization"] == f"Bearer {FAKE_KEY}"
    sent = results_sent(api, last)
    assert "getWeather" in json.loads(sent[0]) and json.loads(sent[1])["now"]["condition"] == "cloudy"
    usage = data["requests"][0]["live"]["usage"]
    assert usage["completion_tokens"] == 20 and usage["total_tokens"] == usage["prompt_tokens"] + 20
    assert data["requests"][-1]["reply"]["content"].startswith("It's cloudy")
    # the recording is in the OpenAI Chat form, and replays to the same snapshots
    replayed = run_cli("simulate", "--replay", str(record), "--format", "json")
    assert replayed.code == 0, replayed.stderr
    on_disk = json.loads(record.read_text(encoding="utf-8"))
    for live_request, replay_request in zip(on_disk["requests"], replayed.json()["requests"], strict=True):
        for key in SNAPSHOT_KEYS:
            assert live_request[key] == replay_request[key], key


def test_a_refusal_is_one_line_naming_the_api_s_endpoint(live, server, api):
    server.add(Status(404, {"error": {"message": "no such model"}}))
    result = live(str(EN), "--format", "json")
    assert result.code == 2 and result.json()["error"] in result.stderr  # what was done is still printed
    assert result.stderr.count("\n") == 1 and "HTTP 404" in result.stderr and APIS[api] in result.stderr
    assert FAKE_KEY not in result.stderr


def test_a_reply_of_another_protocol_is_refused_in_one_line(live, server, api):
    server.answer_as = "openai"  # answers with a Chat completion whatever was asked
    server.add(*SCENARIO)
    result = live(str(EN), "--format", "json")
    assert result.code == 2 and "is not a" in result.stderr and result.stderr.count("\n") == 1


def test_an_unknown_api_is_a_usage_error(run_cli, monkeypatch):
    server = ChatServer()
    try:
        run = live_runner(run_cli, monkeypatch, server, FAKE_KEY)
        result = run(str(EN), "--api", "antropic")
    finally:
        server.close()
    assert result.code == 2 and "unknown API 'antropic'" in result.stderr
    assert "did you mean 'anthropic'" in result.stderr
    assert len(server.requests) == 0


def test_api_is_for_live_runs(run_cli):
    result = run_cli("simulate", str(EN), "--api", "anthropic")
    assert result.code == 2 and "--api is for live runs: add --live" in result.stderr


def test_a_reply_over_the_bound_is_refused_through_each_sdk(live, server, tmp_path):
    """--max-reply-size holds for every SDK's client, not only Chat Completions': the body is read
    as it arrives and the run ends in one line (the two branches met at merge: a test per API)."""
    from ..chat_server import Raw

    server.add(Raw(200, json.dumps({"padding": "x" * 300_000}), chunked=True))
    result = live("--prompt", "hi", "--catalog", str(EN.parent.parent / "demo"), "--max-reply-size", "100KB")
    assert result.code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "more than the 100 KB a reply may be (--max-reply-size)" in lines[0], lines
