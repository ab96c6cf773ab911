"""Opt-in: the demo catalog against a real model endpoint (marker ``live``).

Skipped unless ``TOOLSEARCH_LIVE_BASE_URL`` is set, e.g. to a local llama.cpp server (see
docs/how-to/live-runs.md). Optional: ``TOOLSEARCH_LIVE_MODEL`` (default ``local``),
``TOOLSEARCH_LIVE_API_KEY_ENV`` (default ``OPENAI_API_KEY``), ``TOOLSEARCH_LIVE_TIMEOUT``
(seconds, default 600).

Two tests. ``test_smoke_*`` (for tiny models too): whatever the model does, the protocol
invariants hold — the first request carries only the resident tools and toolSearch, every other
tool a request carries was returned by an earlier toolSearch call, and the recording replays to
identical snapshots. ``test_a_capable_model_*``: what a model that can use tools must do —
search, call the tool the search disclosed, and answer in full (``-k smoke`` skips it for tiny
models).
"""

from __future__ import annotations

import json
import os

import pytest

from toolsearch_cli.catalog import load_catalog
from toolsearch_cli.disclosure.history import tool_calls

from ..conftest import ROOT

pytestmark = pytest.mark.live

BASE_URL = os.environ.get("TOOLSEARCH_LIVE_BASE_URL")
SCENARIO = ROOT / "catalogs" / "scenarios" / "weather-email.en.sim.yaml"
DEMO = ROOT / "catalogs" / "demo"
SNAPSHOT_KEYS = ("tools", "active", "disclosed", "groups", "search_status", "tokens")


CASES = {
    # the shipped scenario, as a user would run it
    "scenario": (str(SCENARIO),),
    # a blunt prompt small models follow more readily: exercises search and disclosure for real
    "prompt": ("--prompt", "toolSearch weather", "--catalog", str(DEMO), "--max-iterations", "3"),
}


def run_live(run_cli, *args: str):
    return run_cli(
        "simulate",
        *args,
        "--live",
        "--base-url",
        BASE_URL or "",
        "--model",
        os.environ.get("TOOLSEARCH_LIVE_MODEL", "local"),
        "--api-key-env",
        os.environ.get("TOOLSEARCH_LIVE_API_KEY_ENV", "OPENAI_API_KEY"),
        "--timeout",
        os.environ.get("TOOLSEARCH_LIVE_TIMEOUT", "600"),
        "--temperature",
        "0",
        "--format",
        "json",
    )


needs_endpoint = pytest.mark.skipif(not BASE_URL, reason="set TOOLSEARCH_LIVE_BASE_URL to run against a live model")


@needs_endpoint
@pytest.mark.parametrize("case", list(CASES))
def test_smoke_demo_against_a_live_endpoint_keeps_the_protocol_invariants(run_cli, tmp_path, capsys, case):
    pytest.importorskip("openai")
    rec = tmp_path / "live.json"
    result = run_live(run_cli, *CASES[case], "--record", str(rec))
    # a tiny model may misbehave (e.g. answer with nothing): that is a finding of the run (empty-reply),
    # not an error; the endpoint must have answered and the invariants below must hold for what was done
    assert result.code == 0, result.stderr
    data = json.loads(rec.read_text(encoding="utf-8"))
    requests, messages = data["requests"], data["messages"]
    assert requests, "the endpoint answered no request"

    catalog = load_catalog([str(DEMO)])
    first_allowed = [*catalog.resident, "toolSearch"]
    assert [t["name"] for t in requests[0]["tools"]] == first_allowed

    # the k-th request was answered by the k-th assistant message: its history is what came before
    answers = [i for i, m in enumerate(messages) if m["role"] == "assistant"]
    for k, request in enumerate(requests):
        history = messages[: answers[k]] if k < len(answers) else messages
        found: set[str] = set()
        for i, message in enumerate(history):
            if message["role"] != "assistant":
                continue
            for call in tool_calls(message):
                if call.name != "toolSearch":
                    continue
                for later in history[i + 1 :]:
                    if later["role"] == "tool" and later.get("tool_call_id") == call.pairing_id:
                        value = json.loads(later["content"])
                        if isinstance(value, list):
                            found.update(value)
                        break
        for tool in request["tools"]:
            if tool["name"] not in first_allowed:
                assert tool["name"] in found, f"request {k + 1} carries {tool['name']} that no search returned"

    replayed = run_cli("simulate", "--replay", str(rec), "--format", "json")
    assert replayed.code == 0, replayed.stderr
    replay_requests = replayed.json()["requests"]
    # a run stopped by --max-iterations ends with tool results: the replay adds that pending request
    pending = 1 if messages[-1]["role"] == "tool" else 0
    assert len(replay_requests) == len(requests) + pending
    for live_request, replay_request in zip(requests, replay_requests[: len(requests)], strict=True):
        for key in SNAPSHOT_KEYS:
            assert live_request[key] == replay_request[key], key

    calls = [f"{c['name']}({c['arguments']})" for r in requests for c in r["reply"]["tool_calls"]]
    with capsys.disabled():
        print(
            f"\nlive ({case}): {len(requests)} requests, tool calls: {', '.join(calls) or 'none'}, "
            f"final reply: {(requests[-1]['reply']['content'] or '')[:120]!r}, "
            f"protocol errors: {data['summary']['protocol_errors']}, error: {data.get('error')}"
        )


@needs_endpoint
def test_a_capable_model_searches_then_calls_the_disclosed_tool_and_answers(run_cli):
    pytest.importorskip("openai")
    result = run_live(
        run_cli,
        "--prompt",
        "What is the weather in Shanghai right now?",
        "--catalog",
        str(DEMO),
        "--system",
        "Use toolSearch to find a tool for the task, then call the tool it finds.",
        "--max-iterations",
        "5",
    )
    assert result.code == 0, result.stderr
    data = result.json()
    requests = data["requests"]
    calls = [(r["index"], c["name"]) for r in requests for c in r["reply"]["tool_calls"]]
    searched = [i for i, name in calls if name == "toolSearch"]
    assert searched, f"the model never called toolSearch: {calls}"
    weather = [r for r in requests if any(c["name"] == "getWeather" for c in r["reply"]["tool_calls"])]
    assert weather, f"the model never called getWeather after searching: {calls}"
    assert weather[0]["index"] > searched[0] and "getWeather" in weather[0]["disclosed"]
    assert data["summary"]["protocol_errors"] == 0 and data["summary"]["diagnostics"] == 0, data["summary"]
    final = requests[-1]
    assert not final["reply"]["tool_calls"] and (final["reply"]["content"] or "").strip(), final["reply"]
