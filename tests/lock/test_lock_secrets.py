"""A lockfile never holds a secret: not a URL's password or query token, not an HTTP header's value."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("mcp", reason="the MCP SDK (extra toolsearch-cli[mcp]) is not installed")

from ..catalog.test_mcp_live import start_http_server  # noqa: E402

HEADER_TOKEN = "s3cret-t0ken"
PASSWORD = "pa55-w0rd-secret"
QUERY_TOKEN = "qu3ry-t0ken-secret-value"


@pytest.fixture(scope="module")
def guarded():
    yield from start_http_server("--token", HEADER_TOKEN)


@pytest.fixture(scope="module")
def open_server():
    yield from start_http_server()


def test_the_lockfile_of_an_http_server_holds_no_header_token_or_query_token(run_cli, guarded, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TOOLSEARCH_MCP_HEADERS", f"Authorization: Bearer {HEADER_TOKEN}")
    source = f"{guarded}?token={QUERY_TOKEN}"
    result = run_cli("lock", source, "-o", "http.lock")
    assert result.code == 0, result.stderr
    text = (tmp_path / "http.lock").read_text(encoding="utf-8")
    assert list(json.loads(text)["tools"]) == ["mcp:weather"]
    for secret in (HEADER_TOKEN, QUERY_TOKEN, "127.0.0.1"):  # no URL at all, so no credential in one
        assert secret not in text
        assert secret not in result.stdout + result.stderr or secret == "127.0.0.1"
    checked = run_cli("lint", source, "--locked", "http.lock", "--select", "TS8")
    assert checked.code == 0 and HEADER_TOKEN not in checked.stdout + checked.stderr


def test_the_lockfile_of_an_http_server_holds_no_password(run_cli, open_server, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    source = open_server.replace("mcp+http://", f"mcp+http://user:{PASSWORD}@")
    result = run_cli("lock", source)
    assert result.code == 0, result.stderr
    text = (tmp_path / "toolsearch.lock").read_text(encoding="utf-8")
    assert "get_current_weather" in text and PASSWORD not in text and "user:" not in text
    assert PASSWORD not in result.stdout + result.stderr
