"""A third-party client: ``@modelcontextprotocol/inspector`` in its CLI mode lists and calls tools
through ``toolsearch serve`` (over stdio, and over streamable HTTP)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from ..conftest import NODE_MODULES
from ..serve_helpers import HttpGateway, gateway_args, gateway_env, real_sources

INSPECTOR = NODE_MODULES / ".bin" / "mcp-inspector"


def inspector(*args: str, code: int = 0) -> dict:
    """The inspector's JSON answer; ``code``: its exit code (5 when the tool result has isError).
    Its own 15 s connect timeout is raised: a loaded CI machine starts the gateway slower than that."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    if not INSPECTOR.exists():
        pytest.skip("@modelcontextprotocol/inspector is not installed: npm install --prefix tests/servers/npm")
    done = subprocess.run(
        [str(INSPECTOR), "--cli", "--connect-timeout", "120000", *args],
        env=gateway_env(),
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == code, done.stderr[-2000:]
    return json.loads(done.stdout)


def test_inspector_cli_lists_and_calls_through_the_gateway_over_stdio():
    # each inspector run over stdio starts the gateway and its upstream anew (8 s a run on a loaded
    # machine): a listing and a call here; searching and a refused call go over HTTP, below
    sources = real_sources("time")
    command = ["--", sys.executable, *gateway_args(sources)]
    listed = inspector("--method", "tools/list", *command)
    assert [t["name"] for t in listed["tools"]] == ["toolSearch", "callTool"]
    assert listed["tools"][0]["inputSchema"]["required"] == ["query"]

    ran = inspector(
        "--method", "tools/call", "--tool-name", "callTool",
        "--tool-arg", "name=get_current_time", 'arguments={"timezone": "Asia/Tokyo"}', *command,
    )  # fmt: skip
    assert ran["isError"] is False and ran["structuredContent"]["timezone"] == "Asia/Tokyo"
    assert "io.modelcontextprotocol/serverInfo" not in (ran.get("_meta") or {})  # not the upstream's stamp


def test_inspector_cli_lists_searches_and_calls_over_streamable_http():
    sources = real_sources("time")
    with HttpGateway(sources) as server:
        listed = inspector("--method", "tools/list", server.url)
        assert [t["name"] for t in listed["tools"]] == ["toolSearch", "callTool"]
        found = inspector(
            server.url, "--method", "tools/call", "--tool-name", "toolSearch",
            "--tool-arg", "query=current time in Tokyo",
        )  # fmt: skip
        hits = json.loads(found["content"][0]["text"])["tools"]
        assert hits[0]["name"] == "get_current_time"
        refused = inspector(
            server.url, "--method", "tools/call", "--tool-name", "callTool",
            "--tool-arg", "name=get_current_time", 'arguments={"zone": "Asia/Tokyo"}', code=5,
        )  # fmt: skip
        assert refused["isError"] is True
        assert "missing required argument 'timezone'" in json.loads(refused["content"][0]["text"])["error"]
        ran = inspector(
            server.url, "--method", "tools/call", "--tool-name", "callTool",
            "--tool-arg", "name=convert_time",
            'arguments={"source_timezone": "Europe/Paris", "time": "09:00", "target_timezone": "Asia/Tokyo"}',
        )  # fmt: skip
        assert ran["isError"] is False
        assert ran["structuredContent"]["target"]["datetime"].startswith(
            ran["structuredContent"]["source"]["datetime"][:10]
        )


def test_inspector_cli_reads_resources_and_gets_prompts_through_the_gateway():
    """Resources, templates and prompts of server-everything, through the gateway over streamable
    HTTP, as the MCP Inspector (a TypeScript client) lists, reads and gets them."""
    sources = real_sources("everything", "time")
    with HttpGateway(sources) as server:
        listed = inspector("--method", "resources/list", server.url)
        uris = [r["uri"] for r in listed["resources"]]
        assert "demo://resource/static/document/architecture.md" in uris
        templates = inspector("--method", "resources/templates/list", server.url)
        assert "demo://resource/dynamic/text/{resourceId}" in [t["uriTemplate"] for t in templates["resourceTemplates"]]
        read = inspector("--method", "resources/read", "--uri", "demo://resource/dynamic/text/5", server.url)
        assert read["contents"][0]["uri"] == "demo://resource/dynamic/text/5" and read["contents"][0]["text"]
        prompts = inspector("--method", "prompts/list", server.url)
        assert "args-prompt" in [p["name"] for p in prompts["prompts"]]
        got = inspector(  # the URL first: --prompt-args takes every word after it
            server.url, "--method", "prompts/get", "--prompt-name", "args-prompt", "--prompt-args", "city=Lyon"
        )  # fmt: skip
        assert "Lyon" in json.dumps(got["messages"])
