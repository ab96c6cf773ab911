"""``toolsearch serve``: resources and prompts of the upstreams, and the 2026-07-28 protocol beside
the handshake era, with the official ``mcp`` client (default ``Client()``: 2026-07-28; and
``mode="legacy"``) over stdio and streamable HTTP, against real servers: a server that speaks
only the handshake era (``--era legacy``), one that speaks only 2026-07-28 (``--era modern``),
both built on the SDK (tests/servers/features_server.py), and npm's server-everything."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any

import anyio
import pytest

from ..serve_helpers import PYTHON, HttpGateway, json_of, real_sources, stdio_params

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

FEATURES = Path(__file__).resolve().parents[1] / "servers" / "features_server.py"
HIDDEN = ("\x1b", "\u200b", "\u202e", "\U000e0049", "\x07")


def features_sources() -> list[str]:
    pytest.importorskip("mcp", reason="the MCP SDK (extra toolsearch-cli[mcp]) is not installed")
    return [
        f"a=mcp+stdio:{PYTHON} {FEATURES} --era legacy --name a",
        f"b=mcp+stdio:{PYTHON} {FEATURES} --era modern --name b",
    ]


def _client(target: Any, mode: str, **kw: Any) -> Any:
    from mcp import Client

    warnings.simplefilter("ignore")
    if mode == "modern":
        return Client(target, read_timeout_seconds=60, **kw)  # the SDK's default: 2026-07-28
    return Client(target, read_timeout_seconds=60, mode="legacy", **kw)


def _no_hidden(value: Any) -> None:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value
    for ch in HIDDEN:
        assert ch not in text, (ch, text[:200])


async def _check_features(gateway: Any, mode: str) -> None:
    from mcp.shared.exceptions import MCPError

    expected = "2026-07-28" if mode == "modern" else "2025-11-25"
    assert gateway.protocol_version == expected
    caps = gateway.server_capabilities
    assert caps.resources is not None and caps.resources.subscribe
    assert caps.prompts is not None
    resources = (await gateway.list_resources()).resources
    # both upstreams have the same URIs: each prefixed with its alias, as a URI scheme
    assert [r.uri for r in resources] == ["a+note://readme", "a+note://notes", "b+note://readme", "b+note://notes"]
    notes = [r for r in resources if r.name == "notes"][0]
    assert "\\x1b[31m" in (notes.description or "") and "\\u200b" in (notes.description or "")
    _no_hidden([r.model_dump(mode="json") for r in resources])
    templates = (await gateway.list_resource_templates()).resource_templates
    assert [t.uri_template for t in templates] == ["a+note://pages/{number}", "b+note://pages/{number}"]
    prompts = (await gateway.list_prompts()).prompts
    assert [p.name for p in prompts] == ["a__summarize", "a__greet", "b__summarize", "b__greet"]
    # reads go to the upstream the prefix names, the contents' URIs in the client's terms, text printable
    read = (await gateway.read_resource("b+note://readme")).contents
    assert [(c.uri, c.text) for c in read] == [("b+note://readme", "readme of b")]
    read = (await gateway.read_resource("a+note://notes")).contents
    assert read[0].uri == "a+note://notes" and "\\x1b]0;title\\x07" in read[0].text and "\\U000e0049" in read[0].text
    _no_hidden(read[0].text)
    page = (await gateway.read_resource("a+note://pages/7")).contents  # through a template
    assert [(c.uri, c.text) for c in page] == [("a+note://pages/7", "page 7 of a")]
    got = await gateway.get_prompt("b__greet", {"who": "Ann"})
    assert got.messages[0].content.text == "Say hello to Ann."
    assert got.description == "greet from b\\u202e"
    with pytest.raises(MCPError, match="no server has the resource"):
        await gateway.read_resource("nowhere://x")
    with pytest.raises(MCPError, match="no prompt named"):
        await gateway.get_prompt("greet", {"who": "Ann"})  # ambiguous: only the prefixed names exist
    # searchable beside tools when asked, and only then
    plain = json_of(await gateway.call_tool("toolSearch", {"query": "meeting notes"}))
    assert "resources" not in plain and "prompts" not in plain
    both = json_of(
        await gateway.call_tool("toolSearch", {"query": "meeting notes", "include": ["resources", "prompts"]})
    )
    assert both["resources"][0]["uri"] in ("a+note://notes", "b+note://notes")
    asked = json_of(await gateway.call_tool("toolSearch", {"query": "say hello greet", "include": ["prompts"]}))
    assert asked["prompts"][0]["name"] in ("a__greet", "b__greet") and "resources" not in asked
    bad = await gateway.call_tool("toolSearch", {"query": "x", "include": ["files"]})
    assert bad.is_error and "'include' takes" in bad.content[0].text
    listed = (await gateway.list_tools()).tools
    search = [t for t in listed if t.name == "toolSearch"][0]
    assert "include" not in search.input_schema["properties"]  # for the client: no tokens of a model's


@pytest.mark.parametrize("mode", ["modern", "legacy"])
def test_resources_and_prompts_of_a_legacy_only_and_a_modern_only_upstream_over_stdio(mode):
    sources = features_sources()

    async def main() -> None:
        async with _client(stdio_params(sources), mode) as gateway:
            await _check_features(gateway, mode)

    anyio.run(main)


def test_resources_and_prompts_over_streamable_http_on_both_protocols():
    sources = features_sources()
    with HttpGateway(sources) as server:
        for mode in ("modern", "legacy"):

            async def main(mode: str = mode) -> None:
                async with _client(server.url, mode) as gateway:
                    await _check_features(gateway, mode)

            anyio.run(main)


def test_server_everything_resources_and_prompts_unprefixed_and_absent_without_them():
    """npm's server-everything (a handshake-era TypeScript server): its resources, templates and
    prompts as it names them (no collision); with only mcp-server-time behind the gateway, no
    resources or prompts capability and -32601 for their methods."""
    from mcp.shared.exceptions import MCPError

    everything = real_sources("everything", "time")

    async def main() -> None:
        async with _client(stdio_params(everything), "modern") as gateway:
            resources = (await gateway.list_resources()).resources
            assert "demo://resource/static/document/architecture.md" in [r.uri for r in resources]
            templates = (await gateway.list_resource_templates()).resource_templates
            assert "demo://resource/dynamic/text/{resourceId}" in [t.uri_template for t in templates]
            read = (await gateway.read_resource("demo://resource/dynamic/text/3")).contents
            assert read[0].uri == "demo://resource/dynamic/text/3" and read[0].text
            prompts = [p.name for p in (await gateway.list_prompts()).prompts]
            assert "simple-prompt" in prompts and "args-prompt" in prompts
            got = await gateway.get_prompt("args-prompt", {"city": "Paris"})
            assert "Paris" in json.dumps(got.model_dump(mode="json"))
            # completion/complete of a prompt argument, asked of the upstream that has the prompt
            import mcp_types as types

            assert gateway.server_capabilities.completions is not None
            done = await gateway.complete(
                types.PromptReference(name="completable-prompt"), {"name": "department", "value": "E"}
            )
            assert done.completion.values == ["Engineering"]
        async with _client(stdio_params(real_sources("time")), "modern") as gateway:
            assert gateway.server_capabilities.resources is None and gateway.server_capabilities.prompts is None
            assert gateway.server_capabilities.completions is None
            with pytest.raises(MCPError, match="Method not found"):
                await gateway.list_resources()
            with pytest.raises(MCPError, match="Method not found"):
                await gateway.list_prompts()

    anyio.run(main)


def _names(result: Any) -> list[str]:
    return [t.name for t in result.tools]


def test_list_changed_is_call_through_on_2026_07_28_and_disclosure_on_the_handshake_era():
    """On 2026-07-28 a search never changes tools/list (the protocol forbids a per-connection
    list); the result says so in one line and stderr once; the same gateway still discloses to a
    handshake-era client. tools/list is in a deterministic order, with ttlMs/cacheScope."""
    sources = real_sources("time")
    stderr = tempfile.TemporaryFile()

    async def modern() -> None:
        from mcp.client.stdio import stdio_client

        params = stdio_params(sources, "--disclose", "list-changed", "--resident", "get_current_time")
        async with _client(stdio_client(params, errlog=stderr), "modern") as gateway:
            first = await gateway.list_tools()
            assert _names(first) == ["get_current_time", "toolSearch", "callTool"]
            assert (first.ttl_ms, first.cache_scope) == (5000, "public")
            found = json_of(await gateway.call_tool("toolSearch", {"query": "convert a time between timezones"}))
            assert found["tools"][0]["name"] == "convert_time"
            assert "2026-07-28" in found["note"] and "callTool" in found["note"]
            assert "callTool" in found["how"] and "now in your tool list" not in found["how"]
            assert _names(await gateway.list_tools()) == _names(first)  # unchanged by the search
            direct = await gateway.call_tool(
                "convert_time", {"source_timezone": "UTC", "time": "12:00", "target_timezone": "UTC"}
            )
            assert direct.is_error and "run it with callTool" in direct.content[0].text
            ran = await gateway.call_tool(
                "callTool",
                {
                    "name": "convert_time",
                    "arguments": {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"},
                },
            )
            assert not ran.is_error

    async def legacy() -> None:
        async with _client(stdio_params(sources, "--disclose", "list-changed"), "legacy") as gateway:
            assert _names(await gateway.list_tools()) == ["toolSearch", "callTool"]
            await gateway.call_tool("toolSearch", {"query": "convert a time between timezones"})
            assert "convert_time" in _names(await gateway.list_tools())  # disclosed to this session

    anyio.run(modern)
    anyio.run(legacy)
    # the gateway's one line on stderr (once, whatever the number of 2026-07-28 requests)
    stderr.seek(0)
    said = [line for line in stderr.read().decode().splitlines() if "list-changed is not applied" in line]
    assert len(said) == 1, said


def test_context_header_makes_the_tool_list_private_and_uncached():
    sources = real_sources("time")
    with HttpGateway(sources, "--context-header", "X-Toolsearch-Context") as server:

        async def main() -> None:
            async with _client(server.url, "modern") as gateway:
                listed = await gateway.list_tools()
                assert (listed.ttl_ms, listed.cache_scope) == (0, "private")

        anyio.run(main)


def test_bearer_tokens_alone_make_the_tool_list_private_and_uncached(tmp_path):
    """``--tokens`` without ``--context-header``: each token has its context, so what tools/list
    holds differs by caller (here an admin-only resident tool); a ``public`` list could be served
    from a shared cache to another caller (it was, with ttlMs 5000)."""
    from toolsearch_cli.serve.edge import hash_token

    from ..serve_helpers import admin_only_ops

    tokens = tmp_path / "tokens.txt"
    tokens.write_text(
        f"{hash_token('member-secret-1')} role=member\n{hash_token('admin-secret-2')} role=admin\n", encoding="utf-8"
    )
    extra = ("--catalog-via", "ops", "--resident", "drop_database", "--tokens", str(tokens))

    async def listed(url: str, token: str) -> tuple[list[str], int, str]:
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as http:
            async with _client(streamable_http_client(url, http_client=http), "modern") as gateway:
                answer = await gateway.list_tools()
                return _names(answer), answer.ttl_ms, answer.cache_scope

    with HttpGateway(admin_only_ops(tmp_path), *extra) as server:
        assert anyio.run(listed, server.url, "admin-secret-2") == (
            ["drop_database", "toolSearch", "callTool"],
            0,
            "private",
        )
        assert anyio.run(listed, server.url, "member-secret-1") == (["toolSearch", "callTool"], 0, "private")


async def _subscriptions_legacy(target: Any) -> list[tuple[str, Any]]:
    import mcp_types as types

    got: list[tuple[str, Any]] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ResourceUpdatedNotification | types.PromptListChangedNotification):
            got.append((message.method, getattr(message.params, "uri", None)))

    async with _client(target, "legacy", message_handler=on_message) as gateway:
        await gateway.session.subscribe_resource("a+note://readme")
        await gateway.session.subscribe_resource("b+note://notes")
        await gateway.call_tool("callTool", {"name": "a__touch", "arguments": {"uri": "note://readme"}})
        await gateway.call_tool("callTool", {"name": "b__touch", "arguments": {"uri": "note://notes"}})
        await gateway.call_tool(
            "callTool", {"name": "a__touch", "arguments": {"uri": "note://notes"}}
        )  # not subscribed
        await gateway.call_tool("callTool", {"name": "b__add_prompt", "arguments": {"name": "fresh"}})
        with anyio.move_on_after(20):
            while len({g for g in got}) < 3:
                await anyio.sleep(0.2)
        await anyio.sleep(0.5)
        assert "fresh" in [p.name for p in (await gateway.list_prompts()).prompts]
    return got


async def _subscriptions_modern(target: Any) -> list[Any]:
    events: list[Any] = []
    async with _client(target, "modern") as gateway:
        async with gateway.listen(
            prompts_list_changed=True, resource_subscriptions=["a+note://readme", "b+note://notes"]
        ) as subscription:

            async def read() -> None:
                async for event in subscription:
                    events.append(event)

            async with anyio.create_task_group() as group:
                group.start_soon(read)
                await anyio.sleep(0.5)
                await gateway.call_tool("callTool", {"name": "a__touch", "arguments": {"uri": "note://readme"}})
                await gateway.call_tool("callTool", {"name": "b__touch", "arguments": {"uri": "note://notes"}})
                await gateway.call_tool("callTool", {"name": "b__touch", "arguments": {"uri": "note://readme"}})
                await gateway.call_tool("callTool", {"name": "a__add_prompt", "arguments": {"name": "fresh2"}})
                with anyio.move_on_after(20):
                    while len(set(map(repr, events))) < 3:
                        await anyio.sleep(0.2)
                await anyio.sleep(0.5)
                group.cancel_scope.cancel()
    return events


def _check_legacy_events(got: list[tuple[str, Any]]) -> None:
    assert set(got) == {
        ("notifications/resources/updated", "a+note://readme"),
        ("notifications/resources/updated", "b+note://notes"),
        ("notifications/prompts/list_changed", None),
    }, got


def _check_modern_events(events: list[Any]) -> None:
    from mcp.client.subscriptions import PromptsListChanged, ResourceUpdated

    assert set(events) == {ResourceUpdated("a+note://readme"), ResourceUpdated("b+note://notes"), PromptsListChanged()}


def test_subscriptions_forwarded_from_legacy_and_modern_upstreams_over_stdio():
    """resources/subscribe (handshake era) and subscriptions/listen (2026-07-28): a change of a
    subscribed resource of either upstream reaches the client by the URI it subscribed to, an
    unsubscribed one does not, and a new prompt upstream is a prompts list change."""
    sources = features_sources()
    _check_legacy_events(anyio.run(_subscriptions_legacy, stdio_params(sources)))
    _check_modern_events(anyio.run(_subscriptions_modern, stdio_params(sources)))


def test_subscriptions_over_streamable_http():
    sources = features_sources()
    with HttpGateway(sources) as server:
        _check_legacy_events(anyio.run(_subscriptions_legacy, server.url))
        _check_modern_events(anyio.run(_subscriptions_modern, server.url))


def test_tool_list_change_reaches_a_2026_07_28_listener():
    """A resident tool changed upstream changes the gateway's tools/list: a 2026-07-28 listener
    is told through subscriptions/listen (from a handshake-era and from a 2026-07-28 upstream)."""
    from mcp.client.subscriptions import ToolsListChanged

    sources = features_sources()

    async def main() -> None:
        params = stdio_params(sources, "--resident", "a__touch", "--resident", "b__touch")
        async with _client(params, "modern") as gateway:
            assert gateway.server_capabilities.tools.list_changed
            before = [t.description for t in (await gateway.list_tools()).tools]
            for alias in ("a", "b"):
                events: list[Any] = []
                async with gateway.listen(tools_list_changed=True) as subscription:

                    async def read(subscription: Any = subscription, events: list[Any] = events) -> None:
                        async for event in subscription:
                            events.append(event)

                    async with anyio.create_task_group() as group:
                        group.start_soon(read)
                        await anyio.sleep(0.3)
                        await gateway.call_tool("callTool", {"name": f"{alias}__retitle", "arguments": {}})
                        with anyio.move_on_after(20):
                            while not events:
                                await anyio.sleep(0.2)
                        group.cancel_scope.cancel()
                assert ToolsListChanged() in events, alias
            after = [t.description for t in (await gateway.list_tools()).tools]
            assert after != before and after.count("Mark a note resource as changed (retitled).") == 2

    anyio.run(main)


def test_a_failing_prompt_list_costs_only_the_prompts_and_is_said_once():
    """An upstream whose prompts/list fails: its tools and resources are served, no prompts
    capability, and one warning line at start naming what was left out."""
    from mcp.client.stdio import stdio_client

    pytest.importorskip("mcp", reason="the MCP SDK (extra toolsearch-cli[mcp]) is not installed")
    sources = [f"a=mcp+stdio:{PYTHON} {FEATURES} --broken-prompts"]
    stderr = tempfile.TemporaryFile()

    async def main() -> None:
        async with _client(stdio_client(stdio_params(sources), errlog=stderr), "modern") as gateway:
            assert gateway.server_capabilities.prompts is None
            assert [r.uri for r in (await gateway.list_resources()).resources] == ["note://readme", "note://notes"]
            found = json_of(await gateway.call_tool("toolSearch", {"query": "mark a note resource changed"}))
            assert found["tools"][0]["name"] == "touch"

    anyio.run(main)
    stderr.seek(0)
    said = [line for line in stderr.read().decode().splitlines() if "not served" in line]
    assert len(said) == 1 and "prompts: " in said[0] and "the prompt store is down" in said[0], said


def test_a_2026_07_28_only_upstream_over_streamable_http():
    """The gateway as a client of an upstream that speaks only 2026-07-28 over streamable HTTP:
    its tools run, its resources are read, and its resource updates reach a listener."""

    from ..serve_helpers import free_port, wait_for_port

    pytest.importorskip("mcp", reason="the MCP SDK (extra toolsearch-cli[mcp]) is not installed")
    port = free_port()
    upstream = subprocess.Popen(
        [sys.executable, str(FEATURES), "--era", "modern", "--name", "h", "--http", str(port)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, upstream, "the upstream")
        events = anyio.run(_http_upstream, stdio_params([f"h=mcp+http://127.0.0.1:{port}/mcp"]))
        from mcp.client.subscriptions import ResourceUpdated

        assert ResourceUpdated("note://readme") in events
    finally:
        upstream.terminate()
        upstream.wait(timeout=20)


async def _http_upstream(params: Any) -> list[Any]:
    events: list[Any] = []
    async with _client(params, "legacy") as gateway:  # a handshake-era client of a 2026-07-28-only upstream
        assert (await gateway.read_resource("note://readme")).contents[0].text == "readme of h"
        ran = await gateway.call_tool("callTool", {"name": "touch", "arguments": {"uri": "note://x"}})
        assert ran.content[0].text == "touched note://x"
    async with _client(params, "modern") as gateway:
        async with gateway.listen(resource_subscriptions=["note://readme"]) as subscription:

            async def read() -> None:
                async for event in subscription:
                    events.append(event)

            async with anyio.create_task_group() as group:
                group.start_soon(read)
                await anyio.sleep(0.5)
                await gateway.call_tool("callTool", {"name": "touch", "arguments": {"uri": "note://readme"}})
                with anyio.move_on_after(20):
                    while not events:
                        await anyio.sleep(0.2)
                group.cancel_scope.cancel()
    return events


def test_reads_and_prompts_in_the_traffic_log_without_values(tmp_path):
    """``--log``: one record per read and prompt, naming listed URIs and prompt names, never a
    templated URI or a prompt argument (they may carry the user's data)."""
    sources = features_sources()
    log = tmp_path / "traffic.jsonl"

    async def main() -> None:
        async with _client(stdio_params(sources, "--log", str(log)), "legacy") as gateway:
            await gateway.read_resource("a+note://readme")
            await gateway.read_resource("b+note://pages/4242")
            await gateway.get_prompt("b__greet", {"who": "Secret Person"})

    anyio.run(main)
    text = log.read_text()
    assert "4242" not in text and "Secret Person" not in text
    records = [json.loads(line) for line in text.splitlines() if '"feature"' in line]
    assert [(r["method"], r["server"], r.get("uri"), r.get("prompt"), r["ok"]) for r in records] == [
        ("resources/read", "a", "a+note://readme", None, True),
        ("resources/read", "b", None, None, True),
        ("prompts/get", "b", None, "b__greet", True),
    ]


def test_list_changed_over_streamable_http_per_protocol():
    """Over streamable HTTP: a 2026-07-28 client of a list-changed gateway gets one cacheable
    tool list and the note; a handshake-era session of the same gateway gets its disclosed list."""
    sources = real_sources("time")
    with HttpGateway(sources, "--disclose", "list-changed") as server:

        async def main() -> None:
            async with _client(server.url, "modern") as gateway:
                first = await gateway.list_tools()
                assert (first.ttl_ms, first.cache_scope) == (5000, "public")
                found = json_of(await gateway.call_tool("toolSearch", {"query": "convert a time between timezones"}))
                assert "2026-07-28" in found["note"]
                assert _names(await gateway.list_tools()) == _names(first) == ["toolSearch", "callTool"]
            async with _client(server.url, "legacy") as gateway:
                found = json_of(await gateway.call_tool("toolSearch", {"query": "convert a time between timezones"}))
                assert "note" not in found and "now in your tool list" in found["how"]
                assert "convert_time" in _names(await gateway.list_tools())

        anyio.run(main)
