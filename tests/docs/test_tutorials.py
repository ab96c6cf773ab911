"""The agent-loop tutorial's loops (docs/tutorials/agent-loop.md), run unchanged with each
provider's official SDK against the loopback server of tests/chat_server.py answering as that API
does: the model searches, calls ``getWeather`` (which only that search disclosed), and answers.

Issue 36 found the README's loop a fragment (``NameError: messages``) that, filled in, never
appended the assistant's ``tool_calls`` message: nothing was disclosed and ``getWeather`` was
refused as ``not-visible``. Here the second request must carry ``getWeather`` and the tool's
result (run by the loop's own implementation, not a refusal) must reach the model."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from ..chat_server import ChatServer, call, say
from ..conftest import ROOT, clean_env
from . import examples

PAGE = ROOT / "docs" / "tutorials" / "agent-loop.md"
WEATHER = {"city": "Shanghai", "temperature": 18, "condition": "cloudy"}


def loop_of(test_name: str) -> str:
    found = [b.body for b in examples.blocks(PAGE) if b.directives.get("tested-by", "").endswith(f"::{test_name}")]
    assert len(found) == 1, test_name
    return found[0]


def run_loop(
    tmp_path, test_name: str, protocol: str, env: dict[str, str]
) -> tuple[subprocess.CompletedProcess, ChatServer]:
    script = tmp_path / "loop.py"
    script.write_text(loop_of(test_name), encoding="utf-8")
    server = ChatServer(protocol=protocol)
    server.add(
        call("toolSearch", {"query": "current weather for a city", "maxResults": 3}),
        call("getWeather", {"city": "Shanghai"}),
        say("Cloudy, 18°C in Shanghai."),
    )
    try:
        done = subprocess.run(
            [sys.executable, str(script)],
            capture_output=True,
            text=True,
            encoding="utf-8",
            cwd=ROOT,
            timeout=120,
            env=clean_env(**{k: v.format(url=server.url) for k, v in env.items()}),
        )
    finally:
        server.close()
    return done, server


def test_the_chat_completions_loop(tmp_path):
    pytest.importorskip("openai")
    done, server = run_loop(
        tmp_path, "test_the_chat_completions_loop", "openai", {"OPENAI_BASE_URL": "{url}", "OPENAI_API_KEY": "sk-test"}
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Cloudy, 18°C in Shanghai."
    first, second, third = server.requests
    assert "getWeather" not in first.tool_names and "toolSearch" in first.tool_names
    assert "getWeather" in second.tool_names  # disclosed by the search the history carries
    assert json.loads(third.messages[-1]["content"]) == WEATHER  # run, not refused
    assert third.messages[-2]["tool_calls"][0]["function"]["name"] == "getWeather"


def test_the_responses_loop(tmp_path):
    pytest.importorskip("openai")
    done, server = run_loop(
        tmp_path,
        "test_the_responses_loop",
        "openai-responses",
        {"OPENAI_BASE_URL": "{url}", "OPENAI_API_KEY": "sk-test"},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Cloudy, 18°C in Shanghai."
    first, second, third = server.requests
    assert "getWeather" not in first.tool_names and "toolSearch" in first.tool_names
    assert "getWeather" in second.tool_names
    output = third.messages[-1]
    assert output["type"] == "function_call_output" and json.loads(output["output"]) == WEATHER


def test_the_anthropic_loop(tmp_path):
    pytest.importorskip("anthropic")
    done, server = run_loop(
        tmp_path,
        "test_the_anthropic_loop",
        "anthropic",
        {"ANTHROPIC_BASE_URL": "{url}", "ANTHROPIC_API_KEY": "sk-test"},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Cloudy, 18°C in Shanghai."
    first, second, third = server.requests
    assert "getWeather" not in first.tool_names and "toolSearch" in first.tool_names
    assert "getWeather" in second.tool_names
    result = third.messages[-1]["content"][0]
    assert result["type"] == "tool_result" and json.loads(result["content"]) == WEATHER
    assert result["is_error"] is False
