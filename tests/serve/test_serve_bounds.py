"""The gateway bounds what its upstreams send (issue 20 item 5): a tool result over the message
bound is an error result for that call, an upstream whose listing is over a bound is marked failed
with a one-line warning, and the gateway keeps serving the other upstreams."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import tempfile
import time

import anyio
import pytest

from ..conftest import ROOT
from ..serve_helpers import free_port, gateway_args, gateway_env, json_of, real_sources, text_of, wait_for_port

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

SERVER = ROOT / "tests" / "servers" / "hostile_server.py"
TOO_BIG = "larger than the 1 MB a message may be ($TOOLSEARCH_MCP_MAX_MESSAGE_SIZE)"


def hostile(*args: str) -> str:
    return f"hostile=mcp+stdio:{sys.executable} {SERVER} {' '.join(args)}"


def gateway(sources: list[str], errlog, timeout: str = "30", **env_more: str):
    """The official client on ``toolsearch serve`` over stdio, messages bounded at 1 MB."""
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    env = {**gateway_env(), "TOOLSEARCH_MCP_MAX_MESSAGE_SIZE": "1MB", **env_more}
    params = StdioServerParameters(command=sys.executable, args=gateway_args(sources, "--timeout", timeout), env=env)
    return Client(stdio_client(params, errlog=errlog), read_timeout_seconds=60)


async def current_time(client) -> None:
    """The time server, beside the hostile one, still answers."""
    ran = await client.call_tool("callTool", {"name": "get_current_time", "arguments": {"timezone": "UTC"}})
    assert not ran.is_error, text_of(ran)
    assert json_of(ran)["timezone"] == "UTC"


def test_a_tool_result_over_the_bound_is_an_error_result_and_the_gateway_serves_on():
    (time_source,) = real_sources("time")
    sources = [time_source, hostile("bigresult", str(40 * 1024 * 1024))]

    async def scenario() -> None:
        with tempfile.TemporaryFile(mode="w+", encoding="utf-8") as errlog:
            async with gateway(sources, errlog) as client:
                dumped = await client.call_tool("callTool", {"name": "dump", "arguments": {}})
                assert dumped.is_error
                said = json_of(dumped)["error"]
                assert said == f"dump: the server sent a message {TOO_BIG}; it was not read further", said
                await current_time(client)
                found = json_of(await client.call_tool("toolSearch", {"query": "dump a lot of text"}))
                assert found["tools"][0]["name"] == "dump"  # its tools stay searchable meanwhile
                again = await client.call_tool("callTool", {"name": "dump", "arguments": {}})
                assert again.is_error  # refused again (or restarting): never a crash
                await current_time(client)

    anyio.run(scenario)


def test_an_upstream_whose_listing_is_over_the_bound_is_a_warning_and_the_rest_serve():
    (time_source,) = real_sources("time")
    sources = [time_source, hostile("longline", "0")]  # tools/list answered by an endless line

    async def scenario() -> None:
        with tempfile.TemporaryFile(mode="w+", encoding="utf-8") as errlog:
            async with gateway(sources, errlog) as client:
                await current_time(client)
                listed = await client.call_tool("callTool", {"name": "dump", "arguments": {}})
                assert listed.is_error  # never listed: not a tool of the gateway
            errlog.seek(0)
            warned = [line for line in errlog.read().splitlines() if "hostile" in line]
        assert warned and all(line.startswith("warning: ") for line in warned), warned
        assert TOO_BIG in warned[0], warned

    anyio.run(scenario)


@contextlib.contextmanager
def hostile_http(*args: str, stderr=None):
    """The hostile server over loopback HTTP; its port."""
    port = free_port()
    server = subprocess.Popen([sys.executable, str(SERVER), *args, "--http", str(port)], stderr=stderr)
    try:
        wait_for_port(port, server, "the hostile HTTP server")
        yield port
    finally:
        server.kill()
        server.wait()


def test_an_http_upstream_result_over_the_bound_is_an_error_and_the_connection_stays():
    pytest.importorskip("mcp")
    with hostile_http("bigresult", str(40 * 1024 * 1024)) as port:

        async def scenario() -> None:
            with tempfile.TemporaryFile(mode="w+", encoding="utf-8") as errlog:
                async with gateway([f"hostile=mcp+http://127.0.0.1:{port}/mcp"], errlog) as client:
                    for _ in range(2):  # the same connection refuses each one: no restart in between
                        dumped = await client.call_tool("callTool", {"name": "dump", "arguments": {}})
                        assert dumped.is_error
                        said = json_of(dumped)["error"]
                        assert said == f"dump: the server sent a message {TOO_BIG}; it was not read further", said

        anyio.run(scenario)


CHATTY = "without the answer a request waited for; it was not read further"


def test_a_call_answered_by_endless_small_messages_is_an_error_result_and_the_gateway_serves_on():
    (time_source,) = real_sources("time")
    sources = [time_source, hostile("chatter", "5")]  # lists after 5 messages; a call never answers

    async def scenario() -> None:
        with tempfile.TemporaryFile(mode="w+", encoding="utf-8") as errlog:
            async with gateway(sources, errlog, TOOLSEARCH_MCP_MAX_MESSAGES="200") as client:
                dumped = await client.call_tool("callTool", {"name": "dump", "arguments": {}})
                assert dumped.is_error
                said = json_of(dumped)["error"]
                assert said == f"dump: the server sent more than 200 messages ($TOOLSEARCH_MCP_MAX_MESSAGES) {CHATTY}"
                await current_time(client)

    anyio.run(scenario)


def test_an_http_call_answered_by_an_endless_event_stream_is_an_error_and_the_connection_stays():
    pytest.importorskip("mcp")
    with hostile_http("chatter", "5") as port:

        async def scenario() -> None:
            with tempfile.TemporaryFile(mode="w+", encoding="utf-8") as errlog:
                source = f"hostile=mcp+http://127.0.0.1:{port}/mcp"
                async with gateway([source], errlog, TOOLSEARCH_MCP_MAX_MESSAGES="200") as client:
                    for _ in range(2):  # the same connection refuses each one: no restart in between
                        dumped = await client.call_tool("callTool", {"name": "dump", "arguments": {}})
                        assert dumped.is_error
                        said = json_of(dumped)["error"]
                        assert (
                            said
                            == f"dump: the server sent more than 200 events ($TOOLSEARCH_MCP_MAX_MESSAGES) {CHATTY}"
                        )

        anyio.run(scenario)


def test_an_upstream_listing_with_endless_small_messages_is_a_warning_and_the_rest_serve():
    (time_source,) = real_sources("time")
    sources = [time_source, hostile("chatter", "0")]  # tools/list never answered

    async def scenario() -> None:
        with tempfile.TemporaryFile(mode="w+", encoding="utf-8") as errlog:
            async with gateway(sources, errlog, TOOLSEARCH_MCP_MAX_MESSAGES="200") as client:
                await current_time(client)
            errlog.seek(0)
            warned = [line for line in errlog.read().splitlines() if "hostile" in line]
        assert warned and all(line.startswith("warning: ") for line in warned), warned
        assert f"sent more than 200 messages ($TOOLSEARCH_MCP_MAX_MESSAGES) {CHATTY}" in warned[0], warned

    anyio.run(scenario)


def test_an_endless_server_to_client_stream_is_cut_at_the_bound_and_given_up(tmp_path):
    # the stream a session's server opens (GET) answers no request, so no timeout ever ended it:
    # before the bound, the gateway read its small notifications for as long as it ran
    pytest.importorskip("mcp")
    said = tmp_path / "server.err"
    with said.open("w") as stderr, hostile_http("getstream", stderr=stderr) as port:

        def count(what: str) -> int:
            return said.read_text().count(what)

        async def scenario() -> None:
            with tempfile.TemporaryFile(mode="w+", encoding="utf-8") as errlog:
                source = f"hostile=mcp+http://127.0.0.1:{port}/mcp"
                async with gateway([source], errlog, TOOLSEARCH_MCP_MAX_MESSAGES="200") as client:
                    deadline = time.monotonic() + 60
                    while not (count("GET opened") and count("GET opened") == count("GET ended by the client")):
                        assert time.monotonic() < deadline, said.read_text()
                        await anyio.sleep(0.2)
                    await anyio.sleep(4)  # the SDK reopens a broken stream after 1 s, once (2 GETs seen)
                    opened = count("GET opened")
                    assert 1 <= opened <= 3 and count("GET ended by the client") == opened, said.read_text()
                    found = json_of(await client.call_tool("toolSearch", {"query": "dump a lot of text"}))
                    assert found["tools"][0]["name"] == "dump"  # the gateway serves on

        anyio.run(scenario)


def test_a_call_answered_by_a_trickle_times_out_saying_how_much_came():
    sources = [hostile("tricklecall")]  # lists dump; calling it answers a byte every 50 ms, forever

    async def scenario() -> None:
        with tempfile.TemporaryFile(mode="w+", encoding="utf-8") as errlog:
            # 5 s: the stdlib-only server must also start and list within it, on a loaded machine
            async with gateway(sources, errlog, timeout="5") as client:
                dumped = await client.call_tool("callTool", {"name": "dump", "arguments": {}})
                assert dumped.is_error
                said = json_of(dumped)["error"]
                assert said.startswith("dump: the server did not answer within 5 s; it was still sending a message, ")
                assert said.endswith(" bytes of it so far"), said

    anyio.run(scenario)
