"""``toolsearch serve`` in front of a PostgreSQL registry namespace (issues 22 and 23), followed
live: the official ``mcp`` client over stdio against a real throwaway cluster (tests/pg_cluster.py);
pushes with ``toolsearch catalog push`` reach the running gateway without a restart, and a
gateway that loses the registry keeps answering from its last good catalog and says so.

Only callable tools are shown (issue 34): the namespace's tools are served by the registry's text
and run by an upstream that lists them (``--catalog-via reg``: tests/servers/scripted_server.py,
whose own descriptions differ, so a test tells which text a hit came from)."""

from __future__ import annotations

import json
import tempfile
import time

import anyio
import pytest

from ..serve_helpers import json_of, scripted_source, stdio_params, text_of

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

FIRST = """
tools:
  - name: get_weather
    description: Current weather and forecast for a city.
    parameters:
      city: {type: string, description: City name, required: true}
  - name: stock_quote
    description: Latest stock quote (price, change) for a ticker symbol.
    parameters:
      ticker: {type: string, description: Ticker symbol, required: true}
"""

SECOND = """
tools:
  - name: get_weather
    description: Current weather and forecast for a city.
    parameters:
      city: {type: string, description: City name, required: true}
  - name: translate_text
    description: Translate text from one language into another.
    parameters:
      text: {type: string, description: The text, required: true}
      target: {type: string, description: Target language code, required: true}
"""


#: The upstream that runs the namespace's tools, in its own words (never the registry's).
RUNNER = [
    {"name": name, "description": f"Runner entry {i}.", "inputSchema": {"type": "object"}}
    for i, name in enumerate(["get_weather", "stock_quote", "translate_text"])
]
VIA = ("--catalog-via", "reg")


def sources(registry: str, folder) -> list[str]:
    """The registry source and the upstream that runs its tools."""
    return [registry, scripted_source("reg", RUNNER, folder)]


def described(result, name: str) -> str | None:
    """The description a search hit ``name`` came with (``None``: not a hit)."""
    if not text_of(result).startswith('{"tools"'):
        return None
    return next((t.get("description") for t in json_of(result)["tools"] if t["name"] == name), None)


def client(params, errlog, **options):
    from mcp import Client
    from mcp.client.stdio import stdio_client

    pytest.importorskip("mcp", reason="the MCP SDK (extra toolsearch-cli[mcp]) is not installed")
    return Client(stdio_client(params, errlog=errlog), read_timeout_seconds=60, **options)


def hits(result) -> list[str]:
    return [t["name"] for t in json_of(result)["tools"]] if text_of(result).startswith('{"tools"') else []


def push(run_cli, url: str, path) -> None:
    done = run_cli("catalog", "push", "--to", url, "--namespace", "live", "-c", str(path))
    assert done.code == 0, done.stderr


def test_a_push_reaches_the_running_gateway_in_place_and_tells_list_changed_sessions(run_cli, pg_url, write, tmp_path):
    import mcp_types as types

    push(run_cli, pg_url, write("first.yaml", FIRST))
    errlog = tempfile.TemporaryFile(mode="w+", encoding="utf-8")
    source = f"{pg_url}?namespace=live"

    async def scenario() -> None:
        changes: list[float] = []

        async def on_message(message) -> None:
            if isinstance(message, types.ToolListChangedNotification):
                changes.append(time.monotonic())

        async with client(
            stdio_params(sources(source, tmp_path), *VIA, "--disclose", "list-changed"),
            errlog,
            mode="legacy",
            message_handler=on_message,
        ) as gateway:
            found = await gateway.call_tool("toolSearch", {"query": "stock price for a ticker", "maxResults": 1})
            assert hits(found) == ["stock_quote"]
            assert described(found, "stock_quote") == "Latest stock quote (price, change) for a ticker symbol."
            assert "callable" not in json_of(found)["tools"][0]  # only callable tools are shown
            ran = await gateway.call_tool("callTool", {"name": "stock_quote", "arguments": {"ticker": "ACME"}})
            assert not ran.is_error and json_of(ran) == {"tool": "stock_quote", "arguments": {"ticker": "ACME"}}
            assert "stock_quote" in [t.name for t in (await gateway.list_tools()).tools]
            deadline = time.monotonic() + 60  # the search's own notice (it disclosed stock_quote), then none
            while not changes and time.monotonic() < deadline:
                await anyio.sleep(0.05)
            assert changes, "no notifications/tools/list_changed after the search disclosed a tool"
            changes.clear()

            await anyio.to_thread.run_sync(lambda: push(run_cli, pg_url, write("second.yaml", SECOND)))
            pushed = time.monotonic()  # committed: the push command's own run (a loaded CI machine) not counted
            seen = None
            # the latency is printed, not asserted (a loaded CI machine took over 2 s); the bound is a hang's
            pushed_text = "Translate text from one language into another."
            while time.monotonic() - pushed < 60:
                result = await gateway.call_tool("toolSearch", {"query": "translate text into another language"})
                if described(result, "translate_text") == pushed_text:  # the registry's text, not the runner's
                    seen = time.monotonic() - pushed
                    break
                await anyio.sleep(0.05)
            assert seen is not None, "the new tool was not found within 60 s of the push's commit"
            print(f"pushed tool found {seen * 1000:.0f} ms after the push committed")  # shown with -s
            gone = await gateway.call_tool("toolSearch", {"query": "stock quote for a ticker"})
            # out of the registry: only the upstream's own entry is left, in its own words
            assert described(gone, "stock_quote") in (None, "Runner entry 1.")
            # the session had the registry's stock_quote in its list: it was told, and the list changed
            deadline = time.monotonic() + 60  # the notice is sent by a task of its own
            while not changes and time.monotonic() < deadline:
                await anyio.sleep(0.05)
            assert changes, "no notifications/tools/list_changed after the push"
            listed = {t.name: t.description for t in (await gateway.list_tools()).tools}
            assert listed.get("stock_quote") in (None, "Runner entry 1.")
            arguments = {"text": "hi", "target": "fr"}
            ran = await gateway.call_tool("callTool", {"name": "translate_text", "arguments": arguments})
            assert not ran.is_error and json_of(ran)["tool"] == "translate_text"

    anyio.run(scenario)
    errlog.seek(0)
    assert errlog.read() == ""  # nothing to say while the registry is followed


def test_a_gateway_that_loses_the_registry_keeps_answering_and_says_so(run_cli, pg_url, pg_cluster, write, tmp_path):
    push(run_cli, pg_url, write("first.yaml", FIRST))
    errlog = tempfile.TemporaryFile(mode="w+", encoding="utf-8")
    source = f"{pg_url}?namespace=live"

    def said() -> str:
        errlog.seek(0)
        return errlog.read()

    async def scenario() -> None:
        async with client(stdio_params(sources(source, tmp_path), *VIA), errlog) as gateway:
            before = await gateway.call_tool("toolSearch", {"query": "weather in a city"})
            assert hits(before)[0] == "get_weather" and "registry" not in json_of(before)
            await anyio.to_thread.run_sync(pg_cluster.stop)
            try:
                deadline = time.monotonic() + 60
                while "disconnected" not in said() and time.monotonic() < deadline:
                    await anyio.sleep(0.1)
                notice = said()
                assert "warning: registry" in notice and "serving version 1" in notice, notice
                assert len(notice.strip().splitlines()) == 1
                assert "secret" not in notice.lower() and pg_url.split("@")[0].split(":")[-1] not in notice
                after = await gateway.call_tool("toolSearch", {"query": "weather in a city"})
                assert hits(after) == hits(before)  # the last good catalog still answers
                assert "not following the registry" in json_of(after)["registry"]
            finally:
                await anyio.to_thread.run_sync(pg_cluster.start)
            deadline = time.monotonic() + 60
            while "following again" not in said() and time.monotonic() < deadline:
                await anyio.sleep(0.1)
            assert "following again at version 1" in said()
            back = await gateway.call_tool("toolSearch", {"query": "weather in a city"})
            assert "registry" not in json_of(back)

    anyio.run(scenario)


class _Feed:
    """A registry feed without a server (RegistryFeed's absorb on a plain list), for the gateway's
    in-place-or-rebuild decision."""

    display = "reg=postgresql://***@db/tools?namespace=live"
    status = "live"
    resident: list = []
    groups: list = []

    def __init__(self, tools):
        self.tools = list(tools)

    def absorb(self, changes):
        from toolsearch_cli.serve.registry_feed import RegistryFeed

        RegistryFeed.absorb(self, changes)  # type: ignore[arg-type]

    def _own(self, tool):
        return tool


def test_changes_apply_in_place_unless_a_name_collides():
    """Registry tools are served only through the ``--catalog-via`` upstream that lists them (issue
    34: only callable tools are shown). A change to the text of a tool the feed serves is applied in
    place; a new tool, a removed one (its name goes back to the upstream's own entry) or a name
    another source has go through a rebuild."""
    from toolsearch_cli.model import Catalog
    from toolsearch_cli.registry.store import Changes
    from toolsearch_cli.registry.testing import sample
    from toolsearch_cli.serve.gateway import Gateway, Settings

    from ..serve_helpers import runner_of

    # a tool that runs in process (a catalog file's tool no server runs would not be served at all)
    static = Catalog(tools=[sample("get_weather", "Current weather for a city").copy_with(function=lambda: "sunny")])
    runs = Catalog(tools=[sample(n, f"Runner entry for {n}") for n in ("stock_quote", "translate_text", "get_weather")])
    feed = _Feed([sample("stock_quote", "Latest stock quote for a ticker")])
    runner = runner_of(runs, "reg")
    gateway = Gateway(Settings(sources=[], catalog_via="reg"), static=static, upstreams=[runner], registries=[feed])
    engine = gateway.engine({})
    baseline = engine.baseline_tool_tokens
    route = gateway.routes["stock_quote"]
    assert (route.kind, route.source, route.original) == ("mcp", runner.source, "stock_quote")
    assert gateway.catalog.get("stock_quote").description == "Latest stock quote for a ticker"  # the registry's text

    changed = Changes("live", 1, 2, upsert=[sample("stock_quote", "Latest stock quote and daily change for a ticker")])
    assert gateway.apply_registry(feed, changed) is True  # in place: same catalog object, same engine
    assert gateway.engine({}) is engine and engine.baseline_tool_tokens > baseline
    assert gateway.routes["stock_quote"].kind == "mcp"
    found, _ = gateway.search({"query": "daily change of a stock"}, {}, None)
    assert json.loads(found.content[0]["text"])["tools"][0]["name"] == "stock_quote"

    added = Changes("live", 2, 3, upsert=[sample("translate_text", "Translate text into another language")])
    assert gateway.apply_registry(feed, added) is False  # it replaces the upstream's own entry: rebuilt
    assert gateway.catalog.get("translate_text").description == "Translate text into another language"
    assert gateway.routes["translate_text"].kind == "mcp"

    removed = Changes("live", 3, 4, removed=["stock_quote"])
    assert gateway.apply_registry(feed, removed) is False  # the upstream's own entry comes back
    assert gateway.catalog.get("stock_quote").description == "Runner entry for stock_quote"

    clash = Changes("live", 4, 5, upsert=[sample("get_weather", "Weather from the registry")])
    assert gateway.apply_registry(feed, clash) is False  # another source has the name: rebuilt
    assert sorted(n for n in gateway.catalog.names if n.endswith("get_weather")) == [
        "catalog__get_weather",
        "reg__get_weather",
    ]
    assert gateway.catalog.get("reg__get_weather").description == "Weather from the registry"
    assert [t.name for t in feed.tools] == ["translate_text", "get_weather"] and feed.version == 5


def test_registry_tools_no_upstream_runs_are_never_shown_searched_or_called():
    """Without ``--catalog-via`` a registry namespace's tools were searchable (``callable: false``)
    and every call failed; now they are left out, said in the one start-up line, and a push keeps
    them out."""
    from toolsearch_cli.model import Catalog
    from toolsearch_cli.registry.store import Changes
    from toolsearch_cli.registry.testing import sample
    from toolsearch_cli.serve.gateway import Gateway, Refused, Settings

    static = Catalog(tools=[sample("get_weather", "Current weather for a city").copy_with(function=lambda: "sunny")])
    feed = _Feed([sample("stock_quote", "Latest stock quote for a ticker")])
    gateway = Gateway(Settings(sources=[]), static=static, registries=[feed])
    assert gateway.catalog.names == ["get_weather"] and gateway.left_out == 1
    line = gateway.left_out_line() or ""
    assert "1 tool of registry sources left out" in line and "--catalog-via ALIAS" in line, line
    found, _ = gateway.search({"query": "stock quote for a ticker"}, {}, None)
    assert "stock_quote" not in found.content[0]["text"]
    with pytest.raises(Refused) as refused:
        gateway.prepare_call("stock_quote", {}, {})
    assert refused.value.kind == "unknown-tool"
    added = Changes("live", 1, 2, upsert=[sample("translate_text", "Translate text into another language")])
    gateway.apply_registry(feed, added)
    assert gateway.catalog.names == ["get_weather"] and gateway.left_out == 2


def test_over_http_two_sessions_follow_a_push(run_cli, pg_url, write, tmp_path):
    """Streamable HTTP: the same live sync, and each list-changed session sees the change."""
    pytest.importorskip("mcp", reason="the MCP SDK (extra toolsearch-cli[mcp]) is not installed")
    from mcp import Client

    from ..serve_helpers import HttpGateway

    push(run_cli, pg_url, write("first.yaml", FIRST))
    source = f"{pg_url}?namespace=live"

    async def scenario(url: str) -> None:
        legacy = {"read_timeout_seconds": 60, "mode": "legacy"}  # a session per connection
        async with Client(url, **legacy) as one, Client(url, **legacy) as two:
            for session in (one, two):
                assert hits(await session.call_tool("toolSearch", {"query": "stock price for a ticker"})) == [
                    "stock_quote"
                ]
                assert "stock_quote" in [t.name for t in (await session.list_tools()).tools]  # disclosed
            await anyio.to_thread.run_sync(lambda: push(run_cli, pg_url, write("second.yaml", SECOND)))
            deadline = time.monotonic() + 60  # a hang's bound, not a latency target (benchmarks/ has those)
            pushed_text = "Translate text from one language into another."
            found: str | None = None
            while time.monotonic() < deadline and found != pushed_text:
                result = await one.call_tool("toolSearch", {"query": "translate text into another language"})
                found = described(result, "translate_text")
                await anyio.sleep(0.05)
            assert found == pushed_text
            for session in (one, two):  # the registry's stock_quote is gone: the upstream's own entry is left
                result = await session.call_tool("toolSearch", {"query": "stock quote"})
                assert described(result, "stock_quote") in (None, "Runner entry 1.")
                listed = {t.name: t.description for t in (await session.list_tools()).tools}
                assert listed.get("stock_quote") in (None, "Runner entry 1.")

    with HttpGateway(sources(source, tmp_path), *VIA, "--disclose", "list-changed") as server:
        anyio.run(scenario, server.url)


@pytest.mark.parametrize("kind", ["oversize", "not-a-tool", "bad-group"])
def test_a_gateway_that_meets_a_hostile_row_keeps_answering_says_so_once_and_follows_again(
    run_cli, pg_url, write, kind, tmp_path
):
    """Issue 35: a version the gateway cannot read (a row written with SQL plus a version bump) leaves
    it serving the last good catalog, says so once (``stale``, the version and why), and the next
    good push is followed again."""
    import psycopg

    from ..registry.test_registry_sync import BIG, _bump

    push(run_cli, pg_url, write("first.yaml", FIRST))
    errlog = tempfile.TemporaryFile(mode="w+", encoding="utf-8")
    source = f"{pg_url}?namespace=live"

    def said() -> str:
        errlog.seek(0)
        return errlog.read()

    def hostile() -> None:
        with psycopg.connect(pg_url, autocommit=True) as conn, conn.transaction():
            if kind in ("oversize", "not-a-tool"):
                body = json.dumps({"name": "stock_quote", "description": BIG}) if kind == "oversize" else "[1,2,3]"
                conn.execute("UPDATE toolsearch_tools SET body = %s, hash = 'h' WHERE name = 'stock_quote'", (body,))
                _bump(conn, "live", tool="stock_quote")
            else:
                conn.execute("UPDATE toolsearch_namespaces SET groups = '[{\"name\": 5}]' WHERE name = 'live'")
                _bump(conn, "live")

    async def scenario() -> None:
        async with client(stdio_params(sources(source, tmp_path), *VIA), errlog) as gateway:
            before = await gateway.call_tool("toolSearch", {"query": "stock price for a ticker"})
            assert hits(before)[0] == "stock_quote"
            await anyio.to_thread.run_sync(hostile)
            deadline = time.monotonic() + 60
            while "stale" not in said() and time.monotonic() < deadline:
                await anyio.sleep(0.05)
            await anyio.sleep(0.5)  # several polls: said once
            notice = said()
            assert "warning: registry" in notice and "version 2 cannot be read" in notice, notice
            assert "serving version 1" in notice and len(notice.strip().splitlines()) == 1, notice
            assert "Traceback" not in notice and "Exception in thread" not in notice
            after = await gateway.call_tool("toolSearch", {"query": "stock price for a ticker"})
            assert hits(after) == hits(before)  # the last good catalog still answers, and says it is stale
            assert "version 2 cannot be read" in json_of(after)["registry"]
            await anyio.to_thread.run_sync(lambda: push(run_cli, pg_url, write("second.yaml", SECOND)))
            pushed = time.monotonic()  # committed (the push command has returned)
            deadline = pushed + 60
            while "following again" not in said() and time.monotonic() < deadline:
                await anyio.sleep(0.01)
            print(f"{kind}: the gateway followed the next good push {time.monotonic() - pushed:.3f} s after it")
            assert "following again at version 3" in said(), said()
            found = await gateway.call_tool("toolSearch", {"query": "translate text into another language"})
            assert described(found, "translate_text") == "Translate text from one language into another."
            assert "registry" not in json_of(found)

    anyio.run(scenario)
