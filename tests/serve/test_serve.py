"""``toolsearch serve`` over stdio, driven by the official ``mcp`` client, in front of real servers
(mcp-server-time from PyPI, @modelcontextprotocol/server-memory and -everything from npm)."""

from __future__ import annotations

import json
import os
import signal
import sys
import textwrap
import time
import uuid
from pathlib import Path

import anyio
import pytest

from ..serve_helpers import json_of, pids_with, real_sources, scripted_source, stdio_params, text_of

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def client(params, **options):
    """The official client on a gateway started over stdio; the gateway's stderr goes to a file of
    its own (pytest's captured stderr may have no file descriptor for a child to inherit)."""
    import tempfile

    from mcp import Client
    from mcp.client.stdio import stdio_client

    errlog = tempfile.TemporaryFile(mode="w+", encoding="utf-8")  # closed with the test's process
    options.setdefault("read_timeout_seconds", 60)
    return Client(stdio_client(params, errlog=errlog), **options)


def test_call_through_real_servers_search_call_and_refuse_bad_arguments(tmp_path):
    sources = real_sources("time", "memory", "everything")
    log = tmp_path / "traffic.jsonl"

    async def scenario() -> None:
        async with client(stdio_params(sources, "--log", str(log))) as gateway:
            listed = [t.name for t in (await gateway.list_tools()).tools]
            assert listed == ["toolSearch", "callTool"]

            found = json_of(await gateway.call_tool("toolSearch", {"query": "current time in Tokyo"}))
            assert found["tools"][0]["name"] == "get_current_time"
            assert found["tools"][0]["inputSchema"]["required"] == ["timezone"]  # the full schema comes back
            assert "callTool" in found["how"]

            ran = await gateway.call_tool(
                "callTool", {"name": "get_current_time", "arguments": {"timezone": "Asia/Tokyo"}}
            )
            assert not ran.is_error
            answer = json_of(ran)
            assert answer["timezone"] == "Asia/Tokyo" and answer["datetime"].endswith("+09:00")

            # memory: a real write then a real read through the gateway
            found = json_of(await gateway.call_tool("toolSearch", {"query": "create entities in the knowledge graph"}))
            assert "create_entities" in [t["name"] for t in found["tools"]]
            entity = {"name": "Ada", "entityType": "person", "observations": ["wrote the first program"]}
            made = await gateway.call_tool("callTool", {"name": "create_entities", "arguments": {"entities": [entity]}})
            assert not made.is_error, text_of(made)

            # bad arguments are refused before anything runs: a nested field the top level hides
            bad = {"entities": [{"name": "Bob", "observations": []}]}  # no entityType
            refused = await gateway.call_tool("callTool", {"name": "create_entities", "arguments": bad})
            assert refused.is_error
            assert "invalid arguments for create_entities" in json_of(refused)["error"]
            assert "entityType" in json_of(refused)["error"]
            wrong_type = await gateway.call_tool("callTool", {"name": "get_current_time", "arguments": {"timezone": 9}})
            assert wrong_type.is_error and "must be string" in json_of(wrong_type)["error"]
            graph = json_of(await gateway.call_tool("callTool", {"name": "read_graph", "arguments": {}}))
            assert [e["name"] for e in graph["entities"]] == ["Ada"]  # Bob never reached the server

            echoed = await gateway.call_tool("callTool", {"name": "echo", "arguments": {"message": "héllo"}})
            assert text_of(echoed) == "Echo: héllo"

            unknown = await gateway.call_tool("callTool", {"name": "no_such_tool", "arguments": {}})
            assert unknown.is_error and "no tool named 'no_such_tool'" in json_of(unknown)["error"]
            direct = await gateway.call_tool("get_current_time", {"timezone": "UTC"})
            assert direct.is_error and "callTool" in json_of(direct)["error"]  # call-through: not in the list

            blank = await gateway.call_tool("toolSearch", {"query": "  "})
            assert blank.is_error and json_of(blank)["field"] == "query"

            assert [t.name for t in (await gateway.list_tools()).tools] == listed  # the list never changed

    anyio.run(scenario)
    import json

    records = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    searches = [r for r in records if r["event"] == "search"]
    calls = [r for r in records if r["event"] == "call"]
    assert searches[0]["query"] == "current time in Tokyo" and searches[0]["hits"][0] == "get_current_time"
    assert calls[0]["tool"] == "get_current_time" and calls[0]["rank"] == 1 and calls[0]["ok"]
    assert calls[0]["upstream_ms"] > 0
    refused = [c for c in calls if c["refused"] == "invalid-arguments"]
    assert len(refused) == 2 and all(c["upstream_ms"] is None for c in refused)
    text = log.read_text(encoding="utf-8")
    assert "Asia/Tokyo" not in text and "Ada" not in text  # never argument values


HIDDEN = """\
requires: {role: admin}
tools:
  - name: delete_user_account
    description: Delete a user account from the directory for good.
    parameters:
      user_id: {type: string, description: The account to delete., required: true}
"""

FILE_ONLY = """\
tools:
  - name: book_meeting_room
    description: Book a meeting room in the office for a time slot.
    parameters:
      room: {type: string, description: The room name., required: true}
"""

MODULE = '''\
from toolsearch_cli import tool

@tool
def add_numbers(a: int, b: int) -> int:
    """Add two whole numbers and return the sum.

    Args:
        a: The first number.
        b: The second number.
    """
    return a + b

@tool
def explode(reason: str) -> str:
    """Raise an error on purpose, to test failure handling.

    Args:
        reason: Why it fails.
    """
    raise RuntimeError(reason)
'''


def _catalog_files(tmp_path: Path) -> list[str]:
    """Two catalog files and a Python module; the upstream ``admin`` runs the first file's tool
    (``--catalog-via admin``), no server runs the second's."""
    (tmp_path / "admin.yaml").write_text(HIDDEN, encoding="utf-8")
    (tmp_path / "rooms.yaml").write_text(FILE_ONLY, encoding="utf-8")
    (tmp_path / "mathtools.py").write_text(textwrap.dedent(MODULE), encoding="utf-8")
    runner = scripted_source("admin", [{"name": "delete_user_account", "inputSchema": {"type": "object"}}], tmp_path)
    files = [str(tmp_path / "admin.yaml"), str(tmp_path / "rooms.yaml"), str(tmp_path / "mathtools.py")]
    return [*files, runner]


def test_contexts_hide_tools_from_search_and_calls_and_python_tools_run_in_process(tmp_path):
    sources = _catalog_files(tmp_path)
    gone = "no tool named '{}' is available; find tools with toolSearch"

    async def as_member() -> None:
        async with client(stdio_params(sources, "--context", "role=member", "--catalog-via", "admin")) as gateway:
            found = json_of(await gateway.call_tool("toolSearch", {"query": "delete a user account"}))
            names = [t["name"] for t in found.get("tools", [])]
            assert "delete_user_account" not in names
            for call in (
                gateway.call_tool("callTool", {"name": "delete_user_account", "arguments": {"user_id": "u1"}}),
                gateway.call_tool("delete_user_account", {"user_id": "u1"}),  # its exact name, directly
            ):
                refused = await call
                assert refused.is_error
                # the same words as a name that does not exist: nothing is given away
                assert json_of(refused)["error"] == gone.format("delete_user_account")

            summed = await gateway.call_tool("callTool", {"name": "add_numbers", "arguments": {"a": 2, "b": 40}})
            assert not summed.is_error and text_of(summed) == "42"
            failed = await gateway.call_tool("callTool", {"name": "explode", "arguments": {"reason": "on purpose"}})
            assert failed.is_error and "RuntimeError: on purpose" in json_of(failed)["error"]

            # a file's tool no server runs is neither found nor run, and no answer names the file
            rooms = json_of(await gateway.call_tool("toolSearch", {"query": "book a meeting room"}))
            assert "book_meeting_room" not in [t["name"] for t in rooms.get("tools", [])]
            not_run = await gateway.call_tool("callTool", {"name": "book_meeting_room", "arguments": {"room": "A"}})
            assert not_run.is_error and json_of(not_run)["error"] == gone.format("book_meeting_room")
            assert str(tmp_path) not in text_of(not_run) + json.dumps(rooms)

    async def as_admin() -> None:
        async with client(stdio_params(sources, "--context", "role=admin", "--catalog-via", "admin")) as gateway:
            found = json_of(await gateway.call_tool("toolSearch", {"query": "delete a user account"}))
            assert found["tools"][0]["name"] == "delete_user_account"
            assert found["tools"][0]["description"] == "Delete a user account from the directory for good."
            call = {"name": "delete_user_account", "arguments": {"user_id": "u1"}}
            ran = await gateway.call_tool("callTool", call)  # run by the upstream the file's tools go through
            assert not ran.is_error and json_of(ran) == {"tool": "delete_user_account", "arguments": {"user_id": "u1"}}

    anyio.run(as_member)
    anyio.run(as_admin)


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="finds the upstream process through /proc")
def test_upstream_killed_mid_call_is_an_error_result_and_it_comes_back():
    (everything,) = real_sources("everything")
    marker = uuid.uuid4().hex
    alias, _, command = everything.partition("=mcp+stdio:")
    source = f"{alias}=mcp+stdio:env TS_SERVE_MARK={marker} {command}"

    async def scenario() -> None:
        async with client(stdio_params([source])) as gateway:
            pids = pids_with(marker)
            assert len(pids) == 1
            results = []

            async def long_call() -> None:
                results.append(
                    await gateway.call_tool(
                        "callTool",
                        {"name": "trigger-long-running-operation", "arguments": {"duration": 20, "steps": 5}},
                    )
                )

            async with anyio.create_task_group() as group:
                group.start_soon(long_call)
                await anyio.sleep(1.5)
                os.kill(pids[0], signal.SIGKILL)
            assert results[0].is_error
            assert "trigger-long-running-operation" in json_of(results[0])["error"]

            # the gateway survived: search answers at once, and the server is started again
            found = json_of(await gateway.call_tool("toolSearch", {"query": "echo a message back"}))
            assert found["tools"][0]["name"] == "echo"
            deadline = time.monotonic() + 60
            while True:
                echoed = await gateway.call_tool("callTool", {"name": "echo", "arguments": {"message": "back"}})
                if not echoed.is_error or time.monotonic() > deadline:
                    break
                said = json_of(echoed)["error"]
                # named by its alias (gwsafe: never its command), as a search names a down server
                assert "server 'everything' is unavailable; retrying" in said or "the server failed" in said, said
                await anyio.sleep(0.5)
            assert text_of(echoed) == "Echo: back"
            new = pids_with(marker)
            assert len(new) == 1 and new != pids

    anyio.run(scenario)
    deadline = time.monotonic() + 30
    while pids_with(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert pids_with(marker) == []  # the gateway's exit stopped the restarted server too


def test_list_changed_discloses_hits_into_tools_list_and_notifies():
    sources = real_sources("time", "everything")
    import mcp_types as types

    async def scenario() -> None:
        changes: list[str] = []

        async def on_message(message) -> None:
            if isinstance(message, types.ToolListChangedNotification):
                changes.append("tools")

        options = {"mode": "legacy", "message_handler": on_message}
        async with client(
            stdio_params(sources, "--disclose", "list-changed", "--policy", "cumulative", "--max-active", "3"),
            **options,
        ) as gateway:
            assert gateway.server_capabilities.tools.list_changed is True
            assert [t.name for t in (await gateway.list_tools()).tools] == ["toolSearch", "callTool"]
            found = json_of(
                await gateway.call_tool("toolSearch", {"query": "current time in a timezone", "maxResults": 2})
            )
            hits = [t["name"] for t in found["tools"]]
            assert hits[0] == "get_current_time" and "tool list" in found["how"]
            deadline = time.monotonic() + 60  # the notice is sent by a task of its own
            while not changes and time.monotonic() < deadline:
                await anyio.sleep(0.05)
            assert changes == ["tools"]
            listed = [t.name for t in (await gateway.list_tools()).tools]
            assert listed == ["toolSearch", "callTool", *hits]
            direct = await gateway.call_tool("get_current_time", {"timezone": "Europe/Paris"})
            assert not direct.is_error and json_of(direct)["timezone"] == "Europe/Paris"

            await gateway.call_tool("toolSearch", {"query": "echo a message", "maxResults": 2})
            listed = [t.name for t in (await gateway.list_tools()).tools]
            # cumulative, cap 3: the two new hits, and get_current_time (called) outlives the uncalled hit
            assert len(listed) == 5 and "get_current_time" in listed and "echo" in listed
            assert "convert_time" not in listed or hits[1] != "convert_time"

    anyio.run(scenario)


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_upstream_list_changed_is_reindexed(era):
    pytest.importorskip("mcp", reason="the MCP SDK (extra toolsearch-cli[mcp]) is not installed")
    from ..conftest import ROOT

    script = ROOT / "tests" / "servers" / "growing_server.py"
    flag = " --legacy" if era == "legacy" else ""
    source = f"garden=mcp+stdio:{sys.executable} {script}{flag}"

    async def scenario() -> None:
        async with client(stdio_params([source])) as gateway:
            first = json_of(await gateway.call_tool("toolSearch", {"query": "water the seedlings"}))
            assert [t["name"] for t in first.get("tools", [])] in ([], ["grow"])
            grown = await gateway.call_tool("callTool", {"name": "grow", "arguments": {}})
            assert text_of(grown) == "water_seedlings_1"
            deadline = time.monotonic() + 30
            while True:  # legacy: the notification re-lists at once; modern: the idle re-list does
                found = json_of(await gateway.call_tool("toolSearch", {"query": "water the seedlings"}))
                names = [t["name"] for t in found.get("tools", [])]
                if "water_seedlings_1" in names or time.monotonic() > deadline:
                    break
                await anyio.sleep(0.3)
            assert names[0] == "water_seedlings_1"
            ran = await gateway.call_tool("callTool", {"name": "water_seedlings_1", "arguments": {"litres": 2}})
            assert text_of(ran) == "watered with 2 l"

    anyio.run(scenario)


async def runs(gateway, name: str) -> bool:
    """Does ``callTool`` run this grown tool (``False``: the gateway does not know it)?"""
    ran = await gateway.call_tool("callTool", {"name": name, "arguments": {"litres": 1}})
    return not ran.is_error and text_of(ran) == "watered with 1 l"


async def until(check, want: bool = True, seconds: float = 60) -> None:
    """Wait until the gateway re-indexed (``check()`` returns ``want``)."""
    deadline = time.monotonic() + seconds
    while await check() != want:
        assert time.monotonic() < deadline, "the gateway did not re-index in time"
        await anyio.sleep(0.2)


def test_an_upstream_change_notifies_the_session_only_when_its_own_list_changed():
    pytest.importorskip("mcp", reason="the MCP SDK (extra toolsearch-cli[mcp]) is not installed")
    import mcp_types as types

    from ..conftest import ROOT

    script = ROOT / "tests" / "servers" / "growing_server.py"
    source = f"garden=mcp+stdio:{sys.executable} {script} --legacy"

    async def scenario() -> None:
        changes: list[float] = []

        async def on_message(message) -> None:
            if isinstance(message, types.ToolListChangedNotification):
                changes.append(time.monotonic())

        async def listed() -> list[str]:
            return [t.name for t in (await gateway.list_tools()).tools]

        async def told(count: int) -> None:
            deadline = time.monotonic() + 60
            while len(changes) < count and time.monotonic() < deadline:
                await anyio.sleep(0.1)
            await anyio.sleep(0.5)  # and no more than that
            assert len(changes) == count

        params = stdio_params([source], "--disclose", "list-changed")
        async with client(params, mode="legacy", message_handler=on_message) as gateway:
            assert await listed() == ["toolSearch", "callTool"]
            # a tool appears upstream that this session never disclosed: its list is the same
            assert (
                text_of(await gateway.call_tool("callTool", {"name": "grow", "arguments": {}})) == "water_seedlings_1"
            )
            await until(lambda: runs(gateway, "water_seedlings_1"))
            await told(0)

            found = json_of(await gateway.call_tool("toolSearch", {"query": "water the seedlings", "maxResults": 1}))
            assert [t["name"] for t in found["tools"]] == ["water_seedlings_1"]
            await told(1)  # the search disclosed it
            assert await listed() == ["toolSearch", "callTool", "water_seedlings_1"]

            # the disclosed tool is removed upstream: the session is told, without searching again
            assert (
                text_of(await gateway.call_tool("callTool", {"name": "wilt", "arguments": {}})) == "water_seedlings_1"
            )
            await until(lambda: runs(gateway, "water_seedlings_1"), want=False)
            await told(2)
            assert await listed() == ["toolSearch", "callTool"]

            found = json_of(await gateway.call_tool("toolSearch", {"query": "add one more tool", "maxResults": 1}))
            assert [t["name"] for t in found["tools"]] == ["grow"]
            await told(3)
            assert await listed() == ["toolSearch", "callTool", "grow"]
            # a tool this session did not disclose comes and goes: nothing is sent
            await gateway.call_tool("callTool", {"name": "grow", "arguments": {}})
            await until(lambda: runs(gateway, "water_seedlings_1"))
            await gateway.call_tool("callTool", {"name": "wilt", "arguments": {}})
            await until(lambda: runs(gateway, "water_seedlings_1"), want=False)
            await told(3)
            assert await listed() == ["toolSearch", "callTool", "grow"]

    anyio.run(scenario)


def test_call_through_sends_no_list_changed_when_upstream_tools_change():
    pytest.importorskip("mcp", reason="the MCP SDK (extra toolsearch-cli[mcp]) is not installed")
    import mcp_types as types

    from ..conftest import ROOT

    script = ROOT / "tests" / "servers" / "growing_server.py"
    source = f"garden=mcp+stdio:{sys.executable} {script} --legacy"

    async def scenario() -> None:
        changes: list[object] = []

        async def on_message(message) -> None:
            if isinstance(message, types.ToolListChangedNotification):
                changes.append(message)

        async with client(stdio_params([source]), mode="legacy", message_handler=on_message) as gateway:
            assert gateway.server_capabilities.tools.list_changed is not True
            await gateway.call_tool("toolSearch", {"query": "water the seedlings"})
            await gateway.call_tool("callTool", {"name": "grow", "arguments": {}})
            await until(lambda: runs(gateway, "water_seedlings_1"))
            await gateway.call_tool("callTool", {"name": "wilt", "arguments": {}})
            await until(lambda: runs(gateway, "water_seedlings_1"), want=False)
            await anyio.sleep(0.5)
            assert changes == []
            assert [t.name for t in (await gateway.list_tools()).tools] == ["toolSearch", "callTool"]

    anyio.run(scenario)


SLOW_MODULE = '''\
import time

from toolsearch_cli import tool

@tool
def wait_a_while(seconds: float) -> str:
    """Wait for some seconds, then answer.

    Args:
        seconds: How long to wait.
    """
    time.sleep(seconds)
    return "done"
'''


#: The gateway's --timeout where a real server must start and list within it: ``toolsearch
#: catalog`` of the time server took 12 s at a load of 8 on the 2-core test machine (the 4 s this
#: test had was too tight at 16, and a loop of retried calls hid it).
UPSTREAM_TIMEOUT = 30


def test_a_stalling_upstream_does_not_hold_the_others(tmp_path):
    (time_source,) = real_sources("time")
    from ..conftest import ROOT

    stalling = ROOT / "tests" / "servers" / "stalling_server.py"
    pidfile = tmp_path / "stalling.pid"
    sources = [time_source, f"stuck=mcp+stdio:{sys.executable} {stalling} {pidfile}"]

    async def scenario() -> None:
        started = time.monotonic()
        params = stdio_params(sources, "--timeout", str(UPSTREAM_TIMEOUT))
        async with client(params, read_timeout_seconds=UPSTREAM_TIMEOUT + 60) as gateway:
            # serving once the stuck upstream's first attempt is given up (at the timeout), not later
            assert time.monotonic() - started < UPSTREAM_TIMEOUT + 45
            call = {"name": "get_current_time", "arguments": {"timezone": "UTC"}}
            ran = await gateway.call_tool("callTool", call)  # the first call: the time server is ready
            assert not ran.is_error, text_of(ran)

    anyio.run(scenario)
    stuck_pid = int(pidfile.read_text(encoding="utf-8"))
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(stuck_pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        pytest.fail("the stalling upstream outlived the gateway")


def test_a_slow_python_tool_times_out_and_the_next_call_runs(tmp_path):
    module = tmp_path / "slow.py"
    module.write_text(SLOW_MODULE, encoding="utf-8")

    async def scenario() -> None:
        async with client(stdio_params([str(module)], "--timeout", "3")) as gateway:
            slow = await gateway.call_tool("callTool", {"name": "wait_a_while", "arguments": {"seconds": 30}})
            assert slow.is_error and json_of(slow)["error"] == "wait_a_while did not finish within 3 s"
            quick = await gateway.call_tool("callTool", {"name": "wait_a_while", "arguments": {"seconds": 0}})
            assert text_of(quick) == "done"

    anyio.run(scenario)


def test_pypi_git_and_fetch_servers_behind_the_gateway(tmp_path):
    import importlib.util
    import shutil
    import subprocess

    if importlib.util.find_spec("mcp_server_git") is None or shutil.which("git") is None:
        pytest.skip("mcp-server-git (and git) are needed")
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", "-b", "trunk", str(repo)], check=True)
    (repo / "notes.txt").write_text("hello\n", encoding="utf-8")
    sources = [
        *real_sources("time", "fetch"),
        f"git=mcp+stdio:{sys.executable} -m mcp_server_git --repository {repo}",
    ]

    async def scenario() -> None:
        async with client(stdio_params(sources)) as gateway:
            found = json_of(await gateway.call_tool("toolSearch", {"query": "show the working tree status"}))
            assert found["tools"][0]["name"] == "git_status"
            status = await gateway.call_tool("callTool", {"name": "git_status", "arguments": {"repo_path": str(repo)}})
            assert not status.is_error and "notes.txt" in text_of(status) and "trunk" in text_of(status)
            found = json_of(await gateway.call_tool("toolSearch", {"query": "fetch a web page and read it"}))
            assert found["tools"][0]["name"] == "fetch"
            bad = await gateway.call_tool("callTool", {"name": "fetch", "arguments": {"url": "x", "max_length": -5}})
            assert bad.is_error and "invalid arguments for fetch" in json_of(bad)["error"]  # refused, never fetched

    anyio.run(scenario)


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}},
}


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="finds the upstream process through /proc")
@pytest.mark.parametrize("phase", ["starting", "serving"])
@pytest.mark.parametrize(
    ("signum", "code", "said"),
    [(signal.SIGTERM, 143, "terminated"), (signal.SIGINT, 130, "interrupted"), (signal.SIGHUP, 129, "hung up")],
)
def test_a_signal_stops_the_stdio_gateway_and_its_upstreams(signum, code, said, phase, tmp_path):
    """Serving: the signal comes once the gateway answered a client's initialize. Starting: it
    comes while the gateway waits for its upstream's tools/list (a server that never answers it,
    and says when it was asked); the upstream it stops must not be taken for one that failed to
    start (the gateway said "could not be started" and exited 2, a CI failure under load)."""
    import json
    import select
    import subprocess

    from ..conftest import ROOT
    from ..serve_helpers import gateway_args, gateway_env

    marker = uuid.uuid4().hex
    pidfile = tmp_path / "stalling.pid"
    if phase == "serving":
        (time_source,) = real_sources("time")
        alias, _, command = time_source.partition("=mcp+stdio:")
    else:
        alias, command = "stuck", f"{sys.executable} {ROOT / 'tests' / 'servers' / 'stalling_server.py'} {pidfile}"
    source = f"{alias}=mcp+stdio:env TS_SERVE_MARK={marker} {command}"
    process = subprocess.Popen(
        [sys.executable, *gateway_args([source], "--timeout", "120")],
        env=gateway_env(),
        stdin=subprocess.PIPE,  # held open: the gateway waits for a client
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # SIGHUP (the terminal closed) as a shell's command gets it, even when pytest runs under nohup
        preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_DFL),
    )
    try:
        if phase == "serving":  # past start-up, however loaded the machine
            process.stdin.write(json.dumps(INITIALIZE) + "\n")
            process.stdin.flush()
            assert select.select([process.stdout], [], [], 120)[0], "the gateway did not answer initialize"
            assert json.loads(process.stdout.readline())["id"] == 1
        else:  # the upstream was asked for its tools, and will never answer
            deadline = time.monotonic() + 120
            while not (pidfile.exists() and pidfile.read_text()) and time.monotonic() < deadline:
                time.sleep(0.05)
        assert len(pids_with(marker)) == 1
        process.send_signal(signum)
        assert process.wait(timeout=30) == code
        assert process.stderr.read() == f"error: {said}\n"
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stdin.close()
        process.stdout.close()
        process.stderr.close()
    deadline = time.monotonic() + 10
    while pids_with(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert pids_with(marker) == []


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="finds the upstream process through /proc")
def test_an_error_after_the_upstreams_started_stops_them_too():
    import subprocess

    from ..serve_helpers import gateway_args, gateway_env

    (time_source,) = real_sources("time")
    marker = uuid.uuid4().hex
    alias, _, command = time_source.partition("=mcp+stdio:")
    source = f"{alias}=mcp+stdio:env TS_SERVE_MARK={marker} {command}"
    done = subprocess.run(
        [sys.executable, *gateway_args([source], "--resident", "get_current_tme")],
        env=gateway_env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        "error: field 'resident': resident tool 'get_current_tme' is not in the catalog "
        "(did you mean 'get_current_time'?)\n"
    )
    deadline = time.monotonic() + 10
    while pids_with(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert pids_with(marker) == []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_the_helpers_of_a_stdio_upstream_are_stopped_with_the_gateway(tmp_path):
    """A real stdio MCP server that starts a helper process and exits as soon as its stdin closes
    (as servers run through npx or a shell script do): the SDK stops the server, but the helper
    outlived the gateway. Now the upstream's whole process group is stopped when the gateway
    ends."""
    from ..conftest import ROOT

    forking = ROOT / "tests" / "servers" / "forking_server.py"
    pidfile = tmp_path / "helper.pid"
    sources = [f"forking=mcp+stdio:{sys.executable} {forking} {pidfile}"]

    async def scenario() -> None:
        async with client(stdio_params(sources)) as gateway:
            found = json_of(await gateway.call_tool("toolSearch", {"query": "weather forecast for a city"}))
            assert found["tools"][0]["name"] == "getForecast"

    anyio.run(scenario)
    helper = int(pidfile.read_text(encoding="utf-8"))
    deadline = time.monotonic() + 30  # the gateway has exited: only a helper left running waits this long
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{helper}/status", encoding="utf-8") as status:
                if "zombie" in status.read():
                    break
        except FileNotFoundError:
            break
        time.sleep(0.1)
    else:
        os.kill(helper, signal.SIGKILL)
        pytest.fail(f"the upstream's helper {helper} outlived the gateway")
