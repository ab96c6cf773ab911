"""Issue 34's last gaps: a ``required: false`` upstream that fails does not fail ``--dry-run``,
start-up warnings name an upstream by its alias (never its command line, which may carry a token),
registry tools are shown only when an upstream runs them (``--catalog-via``), and resources and
prompts obey the same context permissions as tools. The official ``mcp`` client against real
upstream servers (tests/servers)."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio
import pytest

from ..serve_helpers import PYTHON, gateway_env, json_of, text_of

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

try:  # imported now: the SDK binds sys.stderr as stdio_client's default errlog at import, and an
    # in-process run_cli (capsys) importing it first would leave later tests a stream without fileno
    import mcp.client.stdio  # noqa: F401
except ImportError:
    pass

SECRET = "s3cr3t-token-in-an-argument"
SERVERS = Path(__file__).resolve().parents[1] / "servers"


def _config(tmp_path: Path, *, required: bool) -> Path:
    """A Claude Desktop config: a scripted server that lists, and one whose command (carrying a
    token in an argument) exits before listing; ``required`` is the failing one's."""
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps([{"name": "ping", "description": "Ping a host.", "inputSchema": {"type": "object"}}]))
    document = {
        "mcpServers": {
            "good": {"command": sys.executable, "args": [str(SERVERS / "scripted_server.py"), str(tools)]},
            "flaky": {"command": sys.executable, "args": ["-c", "import sys; sys.exit(3)", f"--token={SECRET}"]},
        },
        "toolsearch": {"servers": {"flaky": {"required": required}}},
    }
    path = tmp_path / "claude_desktop_config.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def test_dry_run_fails_only_for_a_required_upstream_and_names_it_by_alias(run_cli, tmp_path):
    pytest.importorskip("mcp", reason="the MCP SDK (extra toolsearch-cli[mcp]) is not installed")
    optional = run_cli("serve", "--config", str(_config(tmp_path, required=False)), "--dry-run", "--timeout", "20")
    assert optional.code == 0, optional.stdout + optional.stderr
    assert "warning: flaky: " in optional.stdout and "(not required)" in optional.stdout
    assert SECRET not in optional.stdout + optional.stderr and "sys.exit" not in optional.stdout
    required = run_cli("serve", "--config", str(_config(tmp_path, required=True)), "--dry-run", "--timeout", "20")
    assert required.code == 1 and "failed: flaky: " in required.stdout
    assert SECRET not in required.stdout + required.stderr
    report = run_cli("serve", "--config", str(_config(tmp_path, required=False)), "--dry-run", "-f", "json")
    assert report.code == 0 and report.json()["required_failed"] == [] and len(report.json()["failed"]) == 1


def test_start_up_warnings_name_an_upstream_by_its_alias_never_its_command(tmp_path):
    """The gateway started by the official client over stdio: the failing upstream's line says
    ``flaky``, and neither its command nor the token in its arguments."""
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    config = _config(tmp_path, required=False)
    errlog = tempfile.TemporaryFile(mode="w+", encoding="utf-8")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "toolsearch_cli", "serve", "--config", str(config), "--timeout", "20"],
        env=gateway_env(),
    )

    async def scenario() -> None:
        async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=60) as gateway:
            found = await gateway.call_tool("toolSearch", {"query": "ping a host"})
            assert [t["name"] for t in json_of(found)["tools"]] == ["ping"]

    anyio.run(scenario)
    errlog.seek(0)
    said = errlog.read()
    assert "warning: flaky: not ready" in said, said
    assert SECRET not in said and "sys.exit" not in said and PYTHON not in said, said


def test_a_registry_namespace_no_upstream_runs_is_left_out_with_one_line(run_cli, pg_url, write, tmp_path):
    """A PostgreSQL namespace beside a live upstream, without ``--catalog-via``: its tools were
    searchable with ``callable: false`` and every call failed; now none is found or run, and one
    start-up line says why. The official client over stdio."""
    from mcp import Client
    from mcp.client.stdio import stdio_client

    from ..serve_helpers import scripted_source, stdio_params

    catalog = write("ns.yaml", "tools:\n  - name: stock_quote\n    description: Latest stock quote for a ticker.\n")
    pushed = run_cli("catalog", "push", "--to", pg_url, "--namespace", "live", "-c", str(catalog))
    assert pushed.code == 0, pushed.stderr
    alone = run_cli("serve", "-c", f"{pg_url}?namespace=live")  # nothing any server runs: refused in one line
    assert alone.code == 2 and alone.stderr.startswith("error: nothing to serve") and "Traceback" not in alone.stderr
    ping = [{"name": "ping", "description": "Ping a host.", "inputSchema": {"type": "object"}}]
    sources = [f"{pg_url}?namespace=live", scripted_source("net", ping, tmp_path)]
    errlog = tempfile.TemporaryFile(mode="w+", encoding="utf-8")

    async def scenario() -> None:
        async with Client(stdio_client(stdio_params(sources), errlog=errlog), read_timeout_seconds=60) as gateway:
            found = await gateway.call_tool("toolSearch", {"query": "stock quote for a ticker"})
            assert "stock_quote" not in text_of(found) and "callable" not in text_of(found)
            ran = await gateway.call_tool("callTool", {"name": "stock_quote", "arguments": {}})
            assert ran.is_error and "no tool named 'stock_quote'" in text_of(ran)
            assert not (await gateway.call_tool("callTool", {"name": "ping", "arguments": {}})).is_error

    anyio.run(scenario)
    errlog.seek(0)
    lines = [line for line in errlog.read().splitlines() if line.strip()]
    assert lines == [
        "warning: 1 tool of registry sources left out: they name no server that runs them (a client sees "
        "only tools it can call; --catalog-via ALIAS names the upstream that runs them)"
    ], lines


def test_resources_and_prompts_obey_the_context_permissions_of_their_server(tmp_path):
    """A config whose policy says server ``admin`` needs ``role=admin`` (two copies of
    tests/servers/features_server.py, so every name collides and is prefixed): a request without
    the attribute neither lists, searches, reads, completes nor gets anything of ``admin`` (the
    answers of names that do not exist), one with it (the context header, over streamable HTTP)
    does; such lists are never cached as public. The official client, both protocol versions."""
    pytest.importorskip("mcp", reason="the MCP SDK (extra toolsearch-cli[mcp]) is not installed")
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared.exceptions import MCPError

    from ..serve_helpers import HttpGateway

    features = str(SERVERS / "features_server.py")
    document = {
        "mcpServers": {
            name: {"command": sys.executable, "args": [features, "--name", name]} for name in ("docs", "admin")
        },
        "toolsearch": {"servers": {"admin": {"requires": {"role": "admin"}}}},
    }
    config = tmp_path / "config.json"
    config.write_text(json.dumps(document), encoding="utf-8")

    async def seen(url: str, header: str | None, mode: str) -> dict[str, Any]:
        headers = {"X-Toolsearch-Context": header} if header is not None else {}
        options = {"mode": "legacy"} if mode == "legacy" else {}
        async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
            async with Client(streamable_http_client(url, http_client=http), read_timeout_seconds=60, **options) as gw:
                listed = await gw.list_resources()
                out: dict[str, Any] = {
                    "resources": [r.uri for r in listed.resources],
                    "templates": [t.uri_template for t in (await gw.list_resource_templates()).resource_templates],
                    "prompts": [p.name for p in (await gw.list_prompts()).prompts],
                    "scope": (listed.cache_scope, listed.ttl_ms) if mode == "modern" else None,
                }
                found = json_of(
                    await gw.call_tool(
                        "toolSearch", {"query": "readme notes greet", "include": ["resources", "prompts"]}
                    )
                )
                out["found"] = sorted(
                    [r.get("uri") or r.get("uriTemplate") for r in found.get("resources", [])]
                    + [p["name"] for p in found.get("prompts", [])]
                )
                try:
                    out["read"] = (await gw.read_resource("admin+note://readme")).contents[0].text
                except MCPError as exc:
                    out["read"] = str(exc)
                try:
                    out["page"] = (await gw.read_resource("admin+note://pages/3")).contents[0].text
                except MCPError as exc:
                    out["page"] = str(exc)
                try:
                    got = await gw.get_prompt("admin__greet", {"who": "Ann"})
                    out["prompt"] = got.messages[0].content.text
                except MCPError as exc:
                    out["prompt"] = str(exc)
                return out

    with HttpGateway([], "--config", str(config), "--context-header", "X-Toolsearch-Context") as server:
        for mode in ("legacy", "modern"):
            member = anyio.run(seen, server.url, "role=member", mode)
            assert member["resources"] == ["docs+note://readme", "docs+note://notes"], member
            assert member["templates"] == ["docs+note://pages/{number}"], member
            assert member["prompts"] and all(str(p).startswith("docs__") for p in member["prompts"]), member
            assert member["found"] and not any("admin" in str(f) for f in member["found"]), member
            assert "no server has the resource" in str(member["read"]) and "readme of admin" not in str(member["read"])
            assert "no server has the resource" in str(member["page"]), member
            assert "no prompt named 'admin__greet'" in str(member["prompt"]), member
            admin = anyio.run(seen, server.url, "role=admin", mode)
            assert admin["resources"] == [
                "docs+note://readme",
                "docs+note://notes",
                "admin+note://readme",
                "admin+note://notes",
            ], admin
            assert "admin+note://pages/{number}" in admin["templates"]
            assert "admin__greet" in admin["prompts"] and any("admin" in str(f) for f in admin["found"])
            assert admin["read"] == "readme of admin" and "Ann" in str(admin["prompt"]), admin
            if mode == "modern":  # the list depends on the request's header: never shared
                assert member["scope"] == ("private", 0) and admin["scope"] == ("private", 0)


def test_a_gateway_that_searches_and_calls_never_loads_the_token_counter():
    """The engine counted every visible tool's tokens when made (one engine per request context),
    which loaded the counter's encoding: some 50 MB of the gateway's 132 MB idle RSS with five
    upstreams (python -m benchmarks serve-load). It counts on first read now, the same figure."""
    from toolsearch_cli.catalog import load_catalog
    from toolsearch_cli.catalog.sources import bundled_catalog_path
    from toolsearch_cli.serve.gateway import Gateway, Settings
    from toolsearch_cli.tokens import get_counter, tools_tokens

    from ..serve_helpers import runner_of

    demo = str(bundled_catalog_path())
    catalog = load_catalog([demo])
    gateway = Gateway(
        Settings(sources=[demo], catalog_via="demo"), static=catalog, upstreams=[runner_of(catalog, "demo")]
    )
    found, _ = gateway.search({"query": "send an email"}, {"role": "admin"}, None)
    assert "sendEmail" in found.content[0]["text"]
    gateway.prepare_call("sendEmail", {"address": "a@b.c", "content": "hello"}, {"role": "admin"})
    engine = gateway.engine({"role": "admin"})
    assert engine.baseline_counted is False and engine._counter is None
    counted = tools_tokens(engine.baseline_tools, get_counter())
    assert engine.baseline_tool_tokens == counted and engine.baseline_counted
