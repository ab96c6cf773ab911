"""``toolsearch serve --config`` in front of real servers, driven by the official ``mcp`` client:
the operator's policy as a client sees it, env from the config reaching the server, and the ops
side (``/healthz``, ``/readyz``, ``/metrics``, ``--log-format json``, OpenTelemetry traces)."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import anyio
import pytest

from ..conftest import npm_mcp_server
from ..serve_helpers import HttpGateway, gateway_env, json_of, text_of

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

SERVERS = Path(__file__).resolve().parents[1] / "servers"
SECRET = "sk-config-secret-4242"
TRACE_ID = "0af7651916cd43dd8448eb211c80319c"
TRACEPARENT = f"00-{TRACE_ID}-b7ad6b7169203331-01"


def need_time() -> None:
    pytest.importorskip("mcp", reason="the MCP SDK (extra toolsearch-cli[mcp]) is not installed")
    if importlib.util.find_spec("mcp_server_time") is None:
        pytest.skip("mcp-server-time is not installed (pip install -e '.[test]')")


def write_config(tmp_path: Path, data: dict[str, Any], name: str = "gateway.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return str(path)


def stdio_client(*args: str, env: dict[str, str] | None = None) -> tuple[Any, Any]:
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client as open_stdio

    errlog = tempfile.TemporaryFile(mode="w+", encoding="utf-8")
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "toolsearch_cli", "serve", *args], env=env or gateway_env()
    )
    return Client(open_stdio(params, errlog=errlog), read_timeout_seconds=60), errlog


def policy_config(tmp_path: Path) -> str:
    need_time()
    node, memory_script = npm_mcp_server("memory")
    memory_file = tmp_path / "graph.jsonl"
    return write_config(
        tmp_path,
        {
            "globalShortcut": "",  # a Claude Desktop key: the client's, left alone
            "mcpServers": {
                "time": {"command": sys.executable, "args": ["-m", "mcp_server_time", "--local-timezone=UTC"]},
                "memory": {
                    "command": node,
                    "args": [str(memory_script)],
                    "env": {"MEMORY_FILE_PATH": str(memory_file)},
                },
                "meta": {"command": sys.executable, "args": [str(SERVERS / "meta_server.py")], "env": {"KEY": SECRET}},
            },
            "toolsearch": {
                "limits": {"maxResults": 3},
                "servers": {
                    "time": {
                        "tools": {
                            "get_current_time": {
                                "rename": "now",
                                "description": "The current time in a timezone (IANA name).",
                            },
                            "convert_time": {"aliases": ["jet lag calculator"]},
                        }
                    },
                    "memory": {
                        "hide": ["delete_observations"],
                        "tools": {
                            "read_graph": {"pinned": True},
                            "delete_entities": {"requires": {"role": "admin"}},
                        },
                    },
                    "meta": {"allow": ["show_env"]},
                },
            },
        },
    )


def test_policy_as_the_official_client_sees_it(tmp_path):
    config = policy_config(tmp_path)

    async def scenario() -> None:
        client, _ = stdio_client("--config", config)
        async with client as gateway:
            listed = (await gateway.list_tools()).tools
            assert [t.name for t in listed] == ["read_graph", "toolSearch", "callTool"]  # pinned, up front

            found = json_of(await gateway.call_tool("toolSearch", {"query": "current time in a timezone"}))
            first = found["tools"][0]
            assert first["name"] == "now" and first["description"] == "The current time in a timezone (IANA name)."
            ran = await gateway.call_tool("callTool", {"name": "now", "arguments": {"timezone": "Asia/Tokyo"}})
            assert json_of(ran)["timezone"] == "Asia/Tokyo"  # reached the server as get_current_time
            old = await gateway.call_tool("callTool", {"name": "get_current_time", "arguments": {"timezone": "UTC"}})
            assert old.is_error and "no tool named 'get_current_time'" in text_of(old)

            # an alias is searched (never shown)
            found = json_of(await gateway.call_tool("toolSearch", {"query": "jet lag calculator"}))
            assert found["tools"][0]["name"] == "convert_time"
            assert "jet lag" not in json.dumps(found["tools"][0])

            # hidden, allow-listed out, and permission-gated tools: neither found nor run
            for query, gone in [
                ("delete observations from entities", "delete_observations"),
                ("delete entities and their relations", "delete_entities"),
                ("return the _meta of this request", "show_meta"),
            ]:
                names = [t["name"] for t in json_of(await gateway.call_tool("toolSearch", {"query": query}))["tools"]]
                assert gone not in names, (query, names)
                refused = await gateway.call_tool("callTool", {"name": gone, "arguments": {}})
                assert refused.is_error and f"no tool named {gone!r}" in text_of(refused)

            # env from the config reaches its server (the memory server writes where it is told)
            entity = {"name": "Ada", "entityType": "person", "observations": ["x"]}
            made = await gateway.call_tool("callTool", {"name": "create_entities", "arguments": {"entities": [entity]}})
            assert not made.is_error, text_of(made)
            assert "Ada" in (tmp_path / "graph.jsonl").read_text()
            shown = await gateway.call_tool("callTool", {"name": "show_env", "arguments": {"name": "KEY"}})
            assert text_of(shown) == SECRET

        # the same config, with the admin context: the gated tool is there
        client, _ = stdio_client("--config", config, "--context", "role=admin")
        async with client as gateway:
            found = json_of(await gateway.call_tool("toolSearch", {"query": "delete entities and their relations"}))
            assert "delete_entities" in [t["name"] for t in found["tools"]]

    anyio.run(scenario)


def test_dry_run_with_a_config_counts_tokens_and_prints_no_secret(tmp_path, run_cli):
    config = policy_config(tmp_path)
    result = run_cli("serve", "--config", config, "--dry-run", "--format", "json")
    assert result.code == 0, result.stderr
    report = json.loads(result.stdout)
    assert [t["name"] for t in report["tools"]] == ["read_graph", "toolSearch", "callTool"]
    assert "now" in report["searchable"] and "delete_observations" not in report["searchable"]
    assert SECRET not in result.stdout + result.stderr


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as failed:
        return failed.code, failed.read().decode()


def ops_config(tmp_path: Path, broken_required: bool) -> str:
    need_time()
    return write_config(
        tmp_path,
        {
            "mcpServers": {
                "time": {"command": sys.executable, "args": ["-m", "mcp_server_time"]},
                "broken": {"command": sys.executable, "args": ["-c", "import sys; sys.exit(3)"]},
            },
            "toolsearch": {"servers": {"broken": {"required": broken_required}}, "limits": {"timeout": 5}},
        },
        f"ops-{broken_required}.json",
    )


def test_http_health_readiness_metrics_and_json_logs(tmp_path):
    from mcp import Client

    stderr = tmp_path / "stderr.txt"
    with (
        stderr.open("w") as err,
        HttpGateway([], "--config", ops_config(tmp_path, True), "--log-format", "json", stderr=err) as server,
    ):
        base = server.url.removesuffix("/mcp")
        assert get(base + "/healthz") == (200, '{"status":"ok"}')
        status, body = get(base + "/readyz")
        assert status == 503
        assert json.loads(body) == {"ready": False, "missing": [{"upstream": "broken", "state": "restarting"}]}

        async def traffic() -> None:
            async with Client(server.url, read_timeout_seconds=60) as gateway:
                await gateway.call_tool("toolSearch", {"query": "convert a time between timezones"})
                for zone in ("Pacific/Chatham", "Nowhere/Atlantis"):
                    await gateway.call_tool("callTool", {"name": "get_current_time", "arguments": {"timezone": zone}})
                await gateway.call_tool("callTool", {"name": "no_such_tool", "arguments": {}})

        anyio.run(traffic)
        status, metrics = get(base + "/metrics")
        assert status == 200
        samples = parse_metrics(metrics)
        assert samples[("toolsearch_searches_total", (("status", "ok"),))] == 1
        assert samples[("toolsearch_calls_total", (("outcome", "ok"), ("upstream", "time")))] == 1
        assert samples[("toolsearch_calls_total", (("outcome", "tool_error"), ("upstream", "time")))] == 1
        assert samples[("toolsearch_calls_total", (("outcome", "unknown-tool"), ("upstream", "none")))] == 1
        assert samples[("toolsearch_call_errors_total", (("kind", "tool_error"), ("upstream", "time")))] == 1
        assert samples[("toolsearch_call_duration_seconds_count", (("upstream", "time"),))] == 2
        assert samples[("toolsearch_upstream_duration_seconds_count", (("upstream", "time"),))] == 2
        assert samples[("toolsearch_upstream_up", (("upstream", "time"),))] == 1
        assert samples[("toolsearch_upstream_up", (("upstream", "broken"),))] == 0
        assert samples[("toolsearch_upstream_tools", (("upstream", "time"),))] == 2
        assert samples[("toolsearch_upstream_starts_total", (("upstream", "broken"),))] >= 1
        assert get(base + "/mcp")[0] != 200  # the MCP endpoint is still the SDK's
    log = stderr.read_text()
    raw = [line for line in log.splitlines() if line.strip()]
    assert raw[-1] == "error: terminated"  # the CLI's own exit line on SIGTERM stays as every command has it
    lines = [json.loads(line) for line in raw[:-1]]
    assert all("ts" in line and "level" in line and "event" in line for line in lines)
    warned = [line["message"] for line in lines if line["event"] == "notice" and line["level"] == "warning"]
    # named by its alias, never by its command line (an argument may be a token)
    assert any(message.startswith("broken: not ready") for message in warned), warned
    assert not any("sys.exit(3)" in message for message in warned), warned
    calls = [line for line in lines if line["event"] == "call"]
    assert [c.get("refused") for c in calls] == [None, None, "unknown-tool"]
    assert {c.get("server") for c in calls[:2]} == {"time"}
    searches = [line for line in lines if line["event"] == "search"]
    assert searches and searches[0]["hits"] >= 1
    # never an argument value nor the query
    for secret_text in ("Pacific/Chatham", "Atlantis", "convert a time"):
        assert secret_text not in log


def test_readyz_without_optional_upstreams(tmp_path):
    with HttpGateway([], "--config", ops_config(tmp_path, False)) as server:
        assert get(server.url.removesuffix("/mcp") + "/readyz") == (200, '{"ready":true}')


def parse_metrics(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """The exposition parsed by the Prometheus client's own parser when it is installed (else a
    strict reading of the text format's sample lines)."""
    out: dict[tuple[str, tuple[tuple[str, str], ...]], float] = {}
    try:
        from prometheus_client.parser import text_string_to_metric_families
    except ImportError:
        import re

        sample = re.compile(
            r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{((?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*",?)*)\})? (\S+)$'
        )
        for line in text.splitlines():
            if line.startswith("#") or not line:
                continue
            match = sample.match(line)
            assert match, line
            labels = tuple(sorted(re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"', match.group(2) or "")))
            out[(match.group(1), labels)] = float(match.group(3))
        return out
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def test_traces_carry_the_request_traceparent_to_the_upstream(tmp_path):
    """With the OpenTelemetry SDK: the client's traceparent parents the gateway's spans, and the
    upstream gets the trace in its own request's _meta."""
    pytest.importorskip("opentelemetry.sdk.trace", reason="the OpenTelemetry SDK is not installed")
    config = write_config(
        tmp_path, {"mcpServers": {"meta": {"command": sys.executable, "args": [str(SERVERS / "meta_server.py")]}}}
    )
    env = {**gateway_env(), "OTEL_TRACES_EXPORTER": "console"}

    async def scenario() -> tuple[dict[str, Any], str]:
        client, errlog = stdio_client("--config", config, env=env)
        async with client as gateway:
            shown = await gateway.call_tool(
                "callTool", {"name": "show_meta", "arguments": {}}, meta={"traceparent": TRACEPARENT}
            )
            seen = json.loads(text_of(shown))
        time.sleep(0.5)
        errlog.seek(0)
        return seen, errlog.read()

    seen, stderr = anyio.run(scenario)
    spans = console_spans(stderr)
    traced = {s["name"]: s for s in spans if s["context"]["trace_id"] == "0x" + TRACE_ID}
    assert {"tools/call callTool", "toolsearch call show_meta", "MCP send tools/call show_meta"} <= set(traced)
    ours = traced["toolsearch call show_meta"]
    assert ours["parent_id"] == traced["tools/call callTool"]["context"]["span_id"]
    assert traced["MCP send tools/call show_meta"]["parent_id"] == ours["context"]["span_id"]
    assert ours["attributes"]["toolsearch.server"] == "meta" and ours["attributes"]["toolsearch.ok"] is True
    assert traced["tools/call callTool"]["parent_id"] == "0xb7ad6b7169203331"
    # the upstream's request carries the same trace, parented by the gateway's client span
    upstream_span = traced["MCP send tools/call show_meta"]["context"]["span_id"][2:]
    assert seen["traceparent"] == f"00-{TRACE_ID}-{upstream_span}-01"


def console_spans(text: str) -> list[dict[str, Any]]:
    """The JSON objects the SDK's console exporter wrote (one pretty-printed object per span)."""
    decoder = json.JSONDecoder()
    spans, at = [], 0
    while (start := text.find("{", at)) >= 0:
        try:
            value, at = decoder.raw_decode(text, start)
        except ValueError:
            at = start + 1
            continue
        if isinstance(value, dict) and "context" in value and "name" in value:
            spans.append(value)
    return spans


def test_trace_context_passes_through_without_the_sdk(tmp_path):
    """Without the SDK (no spans made) the client's trace context still reaches the upstream."""
    need_time()
    config = write_config(
        tmp_path, {"mcpServers": {"meta": {"command": sys.executable, "args": [str(SERVERS / "meta_server.py")]}}}
    )
    env = {**gateway_env(), "OTEL_TRACES_EXPORTER": ""}
    code = "import importlib.util, sys; sys.exit(importlib.util.find_spec('opentelemetry.sdk') is not None)"
    import subprocess

    if subprocess.run([sys.executable, "-c", code], env=env).returncode:
        pytest.skip("the OpenTelemetry SDK is installed here")

    async def scenario() -> dict[str, Any]:
        client, _ = stdio_client("--config", config, env=env)
        async with client as gateway:
            shown = await gateway.call_tool(
                "callTool", {"name": "show_meta", "arguments": {}}, meta={"traceparent": TRACEPARENT}
            )
            return json.loads(text_of(shown))

    assert anyio.run(scenario)["traceparent"] == TRACEPARENT


def test_a_client_config_fronted_serves_every_tool_the_servers_list(tmp_path):
    """Issue 34's target, functionally: every tool the config's servers list directly (to the same
    official client) is found through the gateway under its own name, with the same input schema,
    and is callable; the client's list is two tools. (Tokens: python -m benchmarks gateway-config.)"""
    need_time()
    node, everything = npm_mcp_server("everything")
    servers = {
        "time": {"command": sys.executable, "args": ["-m", "mcp_server_time"]},
        "everything": {"command": node, "args": [str(everything)]},
    }
    config = write_config(tmp_path, {"mcpServers": servers})
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client as open_stdio

    async def scenario() -> None:
        direct: dict[str, Any] = {}
        for entry in servers.values():
            params = StdioServerParameters(command=entry["command"], args=entry["args"], env=dict(os.environ))
            with open(os.devnull, "w") as errlog:
                async with Client(open_stdio(params, errlog=errlog), read_timeout_seconds=60) as server:
                    direct.update({t.name: t.input_schema for t in (await server.list_tools()).tools})
        assert len(direct) >= 10
        client, _ = stdio_client("--config", config)
        async with client as gateway:
            assert [t.name for t in (await gateway.list_tools()).tools] == ["toolSearch", "callTool"]
            for name, schema in direct.items():
                found = json_of(await gateway.call_tool("toolSearch", {"query": name, "maxResults": 10}))
                hit = next((h for h in found["tools"] if h["name"] == name), None)
                assert hit is not None, (name, [h["name"] for h in found["tools"]])
                assert hit["inputSchema"] == schema and hit.get("callable", True) is True
            ran = await gateway.call_tool("callTool", {"name": "echo", "arguments": {"message": "through"}})
            assert text_of(ran) == "Echo: through"

    anyio.run(scenario)


def test_ops_paths_answer_without_a_bearer_token_while_mcp_needs_one(tmp_path):
    """With --tokens the SDK's bearer auth guards /mcp; the probes and the scrape stay open (what a
    load balancer and Prometheus reach), and carry no tool argument."""
    import hashlib

    need_time()
    config = write_config(
        tmp_path, {"mcpServers": {"time": {"command": sys.executable, "args": ["-m", "mcp_server_time"]}}}
    )
    tokens = tmp_path / "tokens.txt"
    tokens.write_text(f"sha256:{hashlib.sha256(b'team-token-123').hexdigest()} role=member\n")
    with HttpGateway([], "--config", config, "--tokens", str(tokens)) as server:
        base = server.url.removesuffix("/mcp")
        assert get(base + "/healthz")[0] == 200
        assert get(base + "/readyz") == (200, '{"ready":true}')
        assert get(base + "/metrics")[0] == 200
        request = urllib.request.Request(
            server.url, data=b"{}", headers={"Content-Type": "application/json", "Accept": "application/json"}
        )
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        assert refused.value.code == 401
