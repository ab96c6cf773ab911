"""``toolsearch serve --http``: the official ``mcp`` client over streamable HTTP, 20 concurrent
sessions without cross-talk, and context attributes passed per request in a header."""

from __future__ import annotations

import random
import signal
import time
import uuid
from pathlib import Path

import anyio
import pytest

from ..serve_helpers import HttpGateway, json_of, pids_with, real_sources, scripted_source, text_of

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

#: One query per session, each with a different best hit among the three servers' 24 tools.
QUERIES = [
    "current time in a timezone",
    "convert a time between two timezones",
    "echo a message back",
    "add two numbers together",
    "return a tiny image",
    "create entities in the knowledge graph",
    "delete relations between entities",
    "search nodes of the knowledge graph",
    "open specific nodes by name",
    "read the whole knowledge graph",
    "add observations to existing entities",
    "trigger a long running operation",
    "structured content output",
    "print the environment variables",
    "annotated message",
    "resource links",
    "gzip a file as a resource",
    "simulate a research query",
    "delete entities and their relations",
    "delete observations from entities",
]


def test_http_call_through_and_twenty_sessions_without_cross_talk():
    sources = real_sources("time", "memory", "everything")
    from mcp import Client

    with HttpGateway(sources, "--disclose", "list-changed", "--max-results", "1") as server:

        async def stateless() -> None:
            # the default client speaks the 2026-07-28 protocol: no session, call-through still works
            async with Client(server.url, read_timeout_seconds=60) as gateway:
                assert [t.name for t in (await gateway.list_tools()).tools] == ["toolSearch", "callTool"]
                found = json_of(await gateway.call_tool("toolSearch", {"query": "current time in Tokyo"}))
                assert found["tools"][0]["name"] == "get_current_time"
                ran = await gateway.call_tool(
                    "callTool", {"name": "get_current_time", "arguments": {"timezone": "Asia/Tokyo"}}
                )
                assert json_of(ran)["timezone"] == "Asia/Tokyo"

        anyio.run(stateless)

        expected: dict[int, str] = {}
        seen: dict[int, list[list[str]]] = {}

        notified: dict[int, int] = {}

        async def one_session(i: int) -> None:
            import mcp_types as types

            rng = random.Random(i)

            async def on_message(message) -> None:
                if isinstance(message, types.ToolListChangedNotification):
                    notified[i] = notified.get(i, 0) + 1

            async with Client(
                server.url, read_timeout_seconds=120, mode="legacy", message_handler=on_message
            ) as gateway:
                await anyio.sleep(rng.random() * 0.5)
                found = json_of(await gateway.call_tool("toolSearch", {"query": QUERIES[i]}))
                expected[i] = found["tools"][0]["name"]
                for _ in range(3):
                    await anyio.sleep(rng.random() * 0.3)
                    if rng.random() < 0.5:
                        ran = await gateway.call_tool("callTool", {"name": "echo", "arguments": {"message": f"s{i}"}})
                        assert text_of(ran) == f"Echo: s{i}"
                    else:
                        ran = await gateway.call_tool(
                            "callTool", {"name": "get_current_time", "arguments": {"timezone": "UTC"}}
                        )
                        assert not ran.is_error
                    seen.setdefault(i, []).append([t.name for t in (await gateway.list_tools()).tools])

        async def all_sessions() -> None:
            async with anyio.create_task_group() as group:
                for i in range(len(QUERIES)):
                    group.start_soon(one_session, i)

        anyio.run(all_sessions)
        assert len(set(expected.values())) >= 15  # the sessions really disclosed different tools
        assert notified == {i: 1 for i in range(len(QUERIES))}  # each told once, on its own stream
        for i, lists in seen.items():
            for listed in lists:
                assert listed == ["toolSearch", "callTool", expected[i]], (i, listed)


TEAM_ONLY = """\
requires: {team: ops}
tools:
  - name: restart_production_service
    description: Restart a production service of the platform.
    parameters:
      service: {type: string, description: The service to restart., required: true}
"""


def test_context_header_adds_attributes_per_request_and_the_command_line_wins(tmp_path):
    pytest.importorskip("mcp", reason="the MCP SDK (extra toolsearch-cli[mcp]) is not installed")
    catalog = tmp_path / "ops.yaml"
    catalog.write_text(TEAM_ONLY, encoding="utf-8")
    from mcp import Client

    async def names(url: str, header: str | None) -> list[str]:
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        headers = {"X-Toolsearch-Context": header} if header is not None else {}
        async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
            async with Client(streamable_http_client(url, http_client=http), read_timeout_seconds=60) as gateway:
                found = json_of(await gateway.call_tool("toolSearch", {"query": "restart a production service"}))
                return [t["name"] for t in found.get("tools", [])]

    restart = {"name": "restart_production_service", "inputSchema": {"type": "object"}}
    runner = scripted_source("ops", [restart], tmp_path)  # the server that runs the file's tool
    sources = [str(catalog), runner]
    via = ("--catalog-via", "ops")
    with HttpGateway(sources, *via, "--context-header", "X-Toolsearch-Context") as server:
        assert anyio.run(names, server.url, None) == []
        assert anyio.run(names, server.url, "team=ops") == ["restart_production_service"]
        assert anyio.run(names, server.url, "team=dev; role=admin") == []
    with HttpGateway(sources, *via, "--context", "team=dev", "--context-header", "X-Toolsearch-Context") as server:
        assert anyio.run(names, server.url, "team=ops") == []  # --context fixed team: the header cannot change it
    with HttpGateway(sources, *via) as server:
        assert anyio.run(names, server.url, "team=ops") == []  # without --context-header it is not read


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="finds the upstream process through /proc")
def test_sigterm_stops_the_gateway_and_its_upstream_process_groups():
    (everything,) = real_sources("everything")
    marker = uuid.uuid4().hex
    alias, _, command = everything.partition("=mcp+stdio:")
    source = f"{alias}=mcp+stdio:env TS_SERVE_MARK={marker} {command}"
    with HttpGateway([source]) as server:
        deadline = time.monotonic() + 30
        while not pids_with(marker) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(pids_with(marker)) == 1
        server.process.send_signal(signal.SIGTERM)
        assert server.process.wait(timeout=20) is not None
    deadline = time.monotonic() + 30
    while pids_with(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert pids_with(marker) == []


def test_http_an_upstream_change_notifies_only_the_session_that_disclosed_the_tool():
    pytest.importorskip("mcp", reason="the MCP SDK (extra toolsearch-cli[mcp]) is not installed")
    import sys

    import mcp_types as types
    from mcp import Client

    from ..conftest import ROOT

    script = ROOT / "tests" / "servers" / "growing_server.py"
    source = f"garden=mcp+stdio:{sys.executable} {script} --legacy"
    changes = {"a": 0, "b": 0}

    def counter(key: str):
        async def on_message(message) -> None:
            if isinstance(message, types.ToolListChangedNotification):
                changes[key] += 1

        return on_message

    async def grown_tool_runs(gateway) -> bool:
        ran = await gateway.call_tool("callTool", {"name": "water_seedlings_1", "arguments": {"litres": 1}})
        return not ran.is_error

    async def until(check, want: bool) -> None:
        deadline = time.monotonic() + 60
        while await check() != want:
            assert time.monotonic() < deadline, "the gateway did not re-index in time"
            await anyio.sleep(0.2)

    async def told(a: int, b: int) -> None:
        deadline = time.monotonic() + 60
        while (changes["a"], changes["b"]) != (a, b) and time.monotonic() < deadline:
            await anyio.sleep(0.1)
        await anyio.sleep(0.5)
        assert (changes["a"], changes["b"]) == (a, b)

    async def scenario(url: str) -> None:
        opts = {"read_timeout_seconds": 60, "mode": "legacy"}
        async with (
            Client(url, message_handler=counter("a"), **opts) as a,
            Client(url, message_handler=counter("b"), **opts) as b,
        ):
            await a.call_tool("callTool", {"name": "grow", "arguments": {}})
            await until(lambda: grown_tool_runs(a), True)
            found = json_of(await a.call_tool("toolSearch", {"query": "water the seedlings", "maxResults": 1}))
            assert [t["name"] for t in found["tools"]] == ["water_seedlings_1"]
            found = json_of(await b.call_tool("toolSearch", {"query": "add one more tool", "maxResults": 1}))
            assert [t["name"] for t in found["tools"]] == ["grow"]
            await told(1, 1)  # each search disclosed its hit to its own session
            await b.call_tool("callTool", {"name": "wilt", "arguments": {}})  # b removes what only a disclosed
            await until(lambda: grown_tool_runs(b), False)
            await told(2, 1)
            assert [t.name for t in (await a.list_tools()).tools] == ["toolSearch", "callTool"]
            assert [t.name for t in (await b.list_tools()).tools] == ["toolSearch", "callTool", "grow"]

    with HttpGateway([source], "--disclose", "list-changed") as server:
        anyio.run(scenario, server.url)
