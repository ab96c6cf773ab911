"""``simulate --live --report``: the report of a real model loop (a loopback Chat Completions
server via the openai SDK), and of one the server cut short; the API key never in it."""

from __future__ import annotations

import pytest

from ..chat_server import ChatServer, Status, call, live_runner, say
from ..conftest import ROOT
from .parse import ALLOWED, parse

pytest.importorskip("openai")

EN = ROOT / "catalogs" / "scenarios" / "weather-email.en.sim.yaml"
FAKE_KEY = "sk-test-FAKE-0123456789abcdef"


@pytest.fixture
def server():
    srv = ChatServer()
    yield srv
    srv.close()


@pytest.fixture
def live(run_cli, server, monkeypatch):
    return live_runner(run_cli, monkeypatch, server, FAKE_KEY, model="scripted-model")


def test_a_live_runs_report(live, server, tmp_path):
    # the model echoes the key it should never have seen: the report masks it as every output does
    server.add(call("toolSearch", {"query": "current weather for a city"}), say(f"done, key {FAKE_KEY}"))
    out = tmp_path / "live.html"
    result = live(str(EN), "--report", str(out))
    assert result.code == 0, result.stderr
    document = out.read_text(encoding="utf-8")
    page = parse(document)
    assert page.tags() <= ALLOWED
    assert "model scripted-model" in page.text() and "· live ·" in page.text()
    points = [t for t in page.tooltips("circle") if t.startswith("weather then email")]
    assert len(points) == 2 * 2  # two requests, tool and request tokens
    assert FAKE_KEY not in document and "done, key ***" in page.text()


def test_a_run_the_server_ended_still_writes_its_report(live, server, tmp_path):
    server.add(call("toolSearch", {"query": "current weather for a city"}), *[Status(503)] * 3)
    out = tmp_path / "cut.html"
    result = live(str(EN), "--retries", "1", "--report", str(out))
    assert result.code != 0
    page = parse(out.read_text(encoding="utf-8"))
    assert "The server ended the run early" in page.text()
    assert "failed checks, protocol errors or a run cut short" in page.text()
