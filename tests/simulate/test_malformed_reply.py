"""A live model's reply that breaks its API's shape is the finding ``malformed-reply``, named for
what it is, not ``empty-reply`` (issue 37: a ``message`` that was a string was reported as "the
model sent an empty reply"). Each comes with the request's diagnoses, is recorded, and is found
again by the replay; the run goes on (exit 0, 1 under ``--check``)."""

from __future__ import annotations

import json

import pytest

from ..chat_server import ChatServer, Raw, live_runner, say
from .test_simulate_live import EN, FAKE_KEY

pytest.importorskip("openai")

DEMO = str(EN.parent.parent / "demo")


def chat(message, usage=None):
    body = {
        "id": "chatcmpl-x",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
    }
    if usage is not None:
        body["usage"] = usage
    return Raw(200, json.dumps(body))


def kinds(data):
    return [[f["kind"] for f in r["findings"]] for r in data["requests"]]


@pytest.fixture
def server():
    srv = ChatServer()
    yield srv
    srv.close()


@pytest.fixture
def live(run_cli, server, monkeypatch):
    return live_runner(run_cli, monkeypatch, server, FAKE_KEY)


@pytest.mark.parametrize(
    ("message", "said"),
    [
        ("I would call getWeather", "'message' is a string, not an object: \"I would call getWeather\""),
        (None, "the choice has no 'message'"),
        ({"role": "assistant", "content": None, "tool_calls": {"id": "c1"}}, "'tool_calls' is an object, not a list"),
        ({"role": "assistant", "content": None, "tool_calls": "getWeather"}, "'tool_calls' is a string, not a list"),
        ({"role": "assistant", "content": 42}, "'content' is a number, not a string: 42"),
        ({"role": "assistant", "content": ["hi"]}, "'content' is a list, not a string"),
    ],
    ids=["message-string", "no-message", "tool-calls-object", "tool-calls-string", "content-number", "content-list"],
)
def test_a_malformed_reply_is_named_so(live, server, message, said):
    server.add(chat(message, usage={"prompt_tokens": 30, "completion_tokens": 5, "total_tokens": 35}))
    result = live("--prompt", "weather in Paris?", "--catalog", DEMO, "--format", "json", "--check")
    assert result.code == 1 and result.stderr == "", result.stderr
    data = result.json()
    found = data["requests"][0]["findings"]
    assert [f["kind"] for f in found] == ["malformed-reply", "tools-dropped"]  # with the request's diagnosis
    assert found[0]["message"].startswith("the model sent a malformed reply: ") and said in found[0]["message"]
    assert data["summary"]["diagnostics"] == 2


def test_an_empty_reply_is_still_empty(live, server):
    server.add(chat({"role": "assistant", "content": ""}))
    result = live("--prompt", "hi", "--catalog", DEMO, "--format", "json")
    assert result.code == 0 and kinds(result.json()) == [["empty-reply"]]


def test_a_malformed_reply_is_recorded_and_replayed_as_such(live, server, run_cli, tmp_path):
    server.add(chat("not an object"))
    rec = tmp_path / "run.json"
    shown = live("--prompt", "hi", "--catalog", DEMO, "--record", str(rec))
    assert shown.code == 0 and shown.stderr == ""
    assert "✗ malformed-reply: the model sent a malformed reply: 'message' is a string" in shown.stdout
    assert "empty-reply" not in shown.stdout
    recorded = json.loads(rec.read_text(encoding="utf-8"))
    assert kinds(recorded) == [["malformed-reply"]]
    replay = run_cli("simulate", "--replay", str(rec), "--format", "json", "--check")
    assert replay.code == 1 and kinds(replay.json()) == [["malformed-reply"]]


@pytest.mark.parametrize(
    ("api", "body", "said"),
    [
        ("anthropic", {"content": ["hello"]}, "'content' item 0 is a string, not an object"),
        ("anthropic", {"content": [{"type": "text", "text": 7}]}, "a text block's 'text' is a number"),
        ("openai-responses", {"output": ["hello"]}, "'output' item 0 is a string, not an object"),
        (
            "openai-responses",
            {"output": [{"type": "message", "role": "assistant", "content": "hello"}]},
            "a message's 'content' is a string, not a list",
        ),
    ],
)
def test_other_apis_malformed_replies_are_named_so(run_cli, monkeypatch, api, body, said):
    pytest.importorskip("anthropic")
    server = ChatServer(protocol=api)
    try:
        base = {"id": "x", "type": "message", "role": "assistant", "model": "m", "stop_reason": "end_turn"}
        if api == "openai-responses":
            base = {"id": "x", "object": "response", "status": "completed", "model": "m"}
        server.add(Raw(200, json.dumps({**base, **body})))
        monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
        run = live_runner(run_cli, monkeypatch, server, FAKE_KEY)
        result = run("--api", api, "--prompt", "hi", "--catalog", DEMO, "--format", "json")
    finally:
        server.close()
    assert result.code == 0, result.stderr
    found = result.json()["requests"][0]["findings"]
    assert [f["kind"] for f in found] == ["malformed-reply"] and said in found[0]["message"], found


def test_a_well_formed_reply_has_no_such_finding(live, server):
    server.add(say("Sunny."))
    result = live("--prompt", "hi", "--catalog", DEMO, "--format", "json")
    assert result.code == 0 and kinds(result.json()) == [[]]
