"""The gateway's core without a transport (names, contexts, argument checks, search parity with
``toolsearch search``), ``serve --dry-run`` and bad options through the CLI, and
``eval --from-log`` on a log the gateway wrote."""

from __future__ import annotations

import json

import pytest

from toolsearch_cli.arguments import check_arguments
from toolsearch_cli.catalog import load_catalog
from toolsearch_cli.model import Tool
from toolsearch_cli.search import search as rank
from toolsearch_cli.serve.gateway import (
    CALL_TOOL_NAME,
    Gateway,
    Refused,
    SessionState,
    Settings,
    assign_names,
    parse_context_header,
)

from ..conftest import ROOT
from ..serve_helpers import raw_tools_of, real_sources, runner_of, scripted_source

DEMO = str(ROOT / "catalogs" / "demo")


def test_names_are_prefixed_only_on_collision_and_stay_within_64_characters():
    long = "x" * 70
    names = assign_names(
        [("get_time", "a"), ("get_time", "b"), ("echo", "a"), ("toolSearch", "c"), (long, "d"), (long + "y", "d")],
        reserved={"toolSearch", CALL_TOOL_NAME},
    )
    assert names[:4] == ["a__get_time", "b__get_time", "echo", "c__toolSearch"]
    assert all(len(n) <= 64 for n in names) and len(set(names)) == len(names)
    # a prefixed name never takes a name that stays as it is
    assert assign_names([("a__x", "z"), ("x", "a"), ("x", "b")], reserved=set()) == ["a__x", "a__x_2", "b__x"]


def test_context_header_pairs():
    assert parse_context_header("role=admin; team=ops, tier = gold") == {"role": "admin", "team": "ops", "tier": "gold"}
    assert parse_context_header("junk; =x; role=a; role=b") == {"role": "a"}  # first value wins, junk dropped
    assert parse_context_header("k=v;" * 2000) == {}  # oversized: ignored, not cut


def test_call_arguments_are_checked_against_the_whole_schema():
    schema = {
        "type": "object",
        "properties": {"items": {"type": "array", "items": {"type": "object", "required": ["id"]}}},
    }
    tool = Tool(name="t", description="d", parameters=schema)
    assert check_arguments(tool, '{"items": [{"id": 1}]}') == ({"items": [{"id": 1}]}, None)
    assert check_arguments(tool, '{"items": [{}]}') == (None, "missing required argument 'id' in 'items[0]'")
    broken = Tool(name="b", description="d", parameters={"type": "object", "properties": {"x": {"type": "nonsense"}}})
    assert check_arguments(broken, '{"x": 1}') == ({"x": 1}, None)  # a broken upstream schema does not block its tool


def test_upstream_tools_that_load_with_a_warning_are_served_as_catalog_lists_them():
    """An upstream tool that loads with a warning (a schema without 'type', as GitLab's server
    publishes; a non-standard type; a $ref outside its schema) was left out of the gateway, since
    the warning was raised with no collector around it, while `catalog` and `search` list it. It
    is served now; an invalid tool is still left out, with its reason."""
    from types import SimpleNamespace

    from toolsearch_cli.serve.gateway import upstream_tools

    raw = [
        {"name": "fork_repository", "description": "Fork a project.", "inputSchema": {"$schema": "x"}},
        {"name": "book", "description": "Book a day.", "inputSchema": {"properties": {"day": {"type": "date"}}}},
        {"name": "fetch", "description": "Fetch a thing.",
         "inputSchema": {"type": "object", "properties": {"t": {"$ref": "https://x.invalid/t.json"}}}},
        {"name": "broken", "description": 42, "inputSchema": {"type": "object"}},
    ]  # fmt: skip
    upstream = SimpleNamespace(source="up=mcp+stdio:x", server_name="up", raw_tools=raw)
    tools, resident, left_out = upstream_tools(upstream)
    assert [t.name for t in tools] == ["fork_repository", "book", "fetch"] and resident == []
    assert left_out == ["tool 'broken', field '/tools/3/description': the description must be a string, not a number"]
    gateway = Gateway(Settings(sources=[]), upstreams=[SimpleNamespace(**vars(upstream), live=None)])
    context = gateway.context_for(None)
    assert gateway.prepare_call("fetch", {"t": 5}, context)[2] == {"t": 5}  # the outside $ref: any value
    with pytest.raises(Refused):
        gateway.prepare_call("book", {"day": 5}, context)


def test_gateway_search_ranks_as_search_does_and_hides_by_context():
    catalog = load_catalog([DEMO])
    gateway = Gateway(
        Settings(sources=[DEMO], context={"role": "member"}, catalog_via="demo"),
        static=catalog,
        upstreams=[runner_of(catalog, "demo")],
    )
    context = gateway.context_for(None)
    for query in ("refund an order", "weather forecast for tomorrow", "send an email to a colleague"):
        result, _ = gateway.search({"query": query, "maxResults": 3}, context, None)
        served = [t["name"] for t in json.loads(result.content[0]["text"])["tools"]]
        expected = [h.name for h in rank(catalog, query, max_results=3, context=context)]
        assert served == expected
    result, _ = gateway.search({"query": "create a user account"}, context, None)
    assert "createUser" not in result.content[0]["text"]
    with pytest.raises(Refused) as refused:
        gateway.prepare_call("createUser", {"email": "a@b.c"}, context)
    assert refused.value.kind == "unknown-tool"
    admin = gateway.context_for(None) | {"role": "admin"}
    wanted = {"email": "a@b.c", "fullName": "A B"}
    tool, route, value = gateway.prepare_call("createUser", wanted, admin)  # the upstream runs it
    assert (route.kind, route.original, value) == ("mcp", "createUser", wanted)
    assert tool.description == catalog.get("createUser").description  # searched and shown by the file's text


def test_catalog_file_tools_no_server_runs_are_never_shown_searched_or_called(tmp_path):
    """A catalog file's tools were searchable, resident and listed, and every call failed naming the
    file's path; now a tool no upstream runs is left out (said once), and a file tool the named
    upstream does not list is left out too."""
    catalog = load_catalog([DEMO])
    assert catalog.resident
    alone = Gateway(Settings(sources=[DEMO]), static=catalog)
    assert [t.name for t in alone.listed_tools({}, None)] == ["toolSearch", "callTool"]
    assert list(alone.catalog.tools) == [] and alone.left_out == len(catalog.tools)
    assert "--catalog-via" in (alone.left_out_line() or "")
    found, _ = alone.search({"query": "send an email to a colleague"}, {}, None)
    assert "sendEmail" not in found.content[0]["text"]
    with pytest.raises(Refused) as refused:
        alone.prepare_call("sendEmail", {"to": "a@b.c"}, {})
    assert refused.value.kind == "unknown-tool" and "/" not in refused.value.message
    # the upstream lists only two of the file's tools: only they are served, by the file's text
    two = runner_of(catalog, "demo")
    two.raw_tools = [t for t in two.raw_tools if t["name"] in ("sendEmail", "getWeather")]
    via = Gateway(Settings(sources=[DEMO], catalog_via="demo"), static=catalog, upstreams=[two])
    assert sorted(t.name for t in via.catalog.tools) == ["getWeather", "sendEmail"]
    assert via.left_out == len(catalog.tools) - 2
    assert via.catalog.get("sendEmail").description == catalog.get("sendEmail").description


def test_list_changed_state_is_per_session():
    catalog = load_catalog([DEMO])
    gateway = Gateway(
        Settings(sources=[DEMO], disclose="list-changed", max_active=2, catalog_via="demo"),
        static=catalog,
        upstreams=[runner_of(catalog, "demo")],
    )
    one, two = SessionState(id="one"), SessionState(id="two")
    _, changed = gateway.search({"query": "refund an order", "maxResults": 2}, {}, one)
    assert changed
    assert [t.name for t in gateway.listed_tools({}, two)] == [t.name for t in gateway.listed_tools({}, None)]
    assert len(gateway.listed_tools({}, one)) == len(gateway.listed_tools({}, two)) + 2
    assert gateway.check_direct(one.active[0], {}, one) is None
    assert "callTool" in (gateway.check_direct(one.active[0], {}, two) or "")


def test_dry_run_prints_the_client_list_and_both_costs(run_cli, tmp_path):
    runner = scripted_source("demo", raw_tools_of(load_catalog([DEMO])), tmp_path)
    result = run_cli("serve", "--dry-run", "-c", DEMO, "-c", runner, "--catalog-via", "demo", "-f", "json")
    assert result.code == 0 and result.stderr == ""
    report = result.json()
    resident = load_catalog([DEMO]).resident
    assert resident and [t["name"] for t in report["tools"]] == [*resident, "toolSearch", "callTool"]
    tokens = report["tokens"]
    assert 0 < tokens["listed"] < tokens["all_upstream_tools"]
    assert [(s["source"].split("=")[0], s["callable"]) for s in report["sources"]] == [("demo", True)]
    assert report["left_out"] is None
    table = run_cli("serve", "--dry-run", "-c", DEMO, "-c", runner, "--catalog-via", "demo")
    assert table.code == 0 and table.stderr == ""
    assert f"{tokens['listed']:,} tokens" in table.stdout and f"{tokens['all_upstream_tools']:,} tokens" in table.stdout
    served = report["sources"][0]["tools"]  # how the source's tools run (the line said ", callable")
    assert served > 1 and f": {served} tools, called on its MCP server" in " ".join(table.stdout.split())
    module = run_cli("serve", "--dry-run", "-c", str(ROOT / "catalogs" / "python" / "ops_tools.py"))
    assert module.code == 0 and "ops_tools.py: 4 tools, run in the gateway's process" in " ".join(module.stdout.split())
    # the files alone: nothing runs them, so the client would see no tool of theirs, and the report says why
    alone = run_cli("serve", "--dry-run", "-c", DEMO, "-f", "json")
    assert alone.code == 0 and [t["name"] for t in alone.json()["tools"]] == ["toolSearch", "callTool"]
    assert alone.json()["searchable"] == [] and "--catalog-via ALIAS" in alone.json()["left_out"]


def test_serve_without_a_catalog_refuses_the_demo_in_one_line(run_cli, tmp_path, monkeypatch):
    """`serve` with no --catalog fell back to the bundled demo, whose tools no server runs."""
    monkeypatch.chdir(tmp_path)  # no ./catalogs here
    monkeypatch.delenv("TOOLSEARCH_CATALOG", raising=False)
    for args in ([], ["--dry-run"]):
        result = run_cli("serve", *args)
        assert result.code == 2 and result.stdout == ""
        assert result.stderr.startswith("error: serve needs --catalog") and result.stderr.count("\n") == 1
    files_only = run_cli("serve", "-c", DEMO)  # nothing callable: refused before anything starts
    assert files_only.code == 2 and files_only.stderr.startswith("error: nothing to serve")
    bad_via = run_cli("serve", "-c", DEMO, "--catalog-via", "nope", "--dry-run")
    assert bad_via.code == 2 and "--catalog-via 'nope' names no live source" in bad_via.stderr


def test_dry_run_of_two_servers_with_the_same_tools_prefixes_them(run_cli):
    (time_source,) = real_sources("time")
    command = time_source.partition("=")[2]
    result = run_cli("serve", "--dry-run", "-c", f"t1={command}", "-c", f"t2={command}", "-f", "json")
    assert result.code == 0, result.stderr
    report = result.json()
    assert sorted(report["searchable"]) == [
        "t1__convert_time",
        "t1__get_current_time",
        "t2__convert_time",
        "t2__get_current_time",
    ]
    assert [(s["source"].split("=")[0], s["tools"], s["callable"]) for s in report["sources"]] == [
        ("t1", 2, True),
        ("t2", 2, True),
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--disclose", "sometimes"], "unknown disclosure 'sometimes'"),
        (["--http", "localhost:http"], "--http takes HOST:PORT"),
        (["--policy", "newest"], "unknown policy 'newest'"),
        (["--max-active", "0"], "--max-active must be at least 1"),
        (["--resident", "noSuchTool", "--dry-run"], "resident tool 'noSuchTool' is not in the catalog"),
    ],
)
def test_bad_options_are_one_line_and_exit_2(run_cli, args, message):
    result = run_cli("serve", "-c", DEMO, *args)
    assert result.code == 2 and result.stdout == ""
    assert result.stderr.startswith("error: ") and message in result.stderr and result.stderr.count("\n") == 1


def test_a_server_that_cannot_start_is_one_line_and_exit_2(run_cli):
    pytest.importorskip("mcp", reason="the MCP SDK (extra toolsearch-cli[mcp]) is not installed")
    result = run_cli("serve", "-c", "mcp+stdio:/nonexistent/server --flag", "--timeout", "5")
    assert result.code == 2 and result.stdout == ""
    assert result.stderr.startswith("error: mcp+stdio:/nonexistent/server --flag: the MCP server could not be started")
    assert result.stderr.count("\n") == 1


def test_eval_from_log_labels_searches_by_the_call_that_followed(run_cli, tmp_path):
    from toolsearch_cli.serve.server import TrafficLog

    path = tmp_path / "traffic.jsonl"
    log = TrafficLog(str(path))
    catalog = load_catalog([DEMO])
    gateway = Gateway(
        Settings(sources=[DEMO], catalog_via="demo"), static=catalog, upstreams=[runner_of(catalog, "demo")], log=log
    )
    from toolsearch_cli.serve.gateway import CallResult

    session = SessionState(id="s1")
    traffic = [
        ("refund an order", "cancelOrder"),
        ("what's the weather tomorrow in Paris", "getForecast"),
        ("tell the team on chat", None),  # a search nothing followed: no label
    ]
    for query, called in traffic:
        gateway.search({"query": query}, {}, session)
        if called is not None:
            gateway.record_call(called, "callTool", session, CallResult.text("ok"), 0.0)
    gateway.record_call("noSuchTool", "callTool", session, CallResult.error("unknown-tool", "no"), 0.0)
    log.close()
    assert "Paris" in path.read_text(encoding="utf-8")  # the query (not an argument) is what is learned from

    result = run_cli("eval", "-c", DEMO, "--from-log", str(path), "-f", "json", "--k", "1,5")
    assert result.code == 0, result.stderr
    assert result.stderr == ""
    metrics = result.json()["rankers"]["default"]
    assert metrics["queries"] == 2 and metrics["recall@5"] == 1.0

    path.write_text('{"event":"search","query":"x"}\nnot json\n', encoding="utf-8")
    bad = run_cli("eval", "-c", DEMO, "--from-log", str(path))
    assert bad.code == 2 and bad.stderr.startswith(f"error: {path}:2: ")
    both = run_cli("eval", "-c", DEMO, "--from-log", str(path), "--queries", str(path))
    assert both.code == 2 and "not both" in both.stderr


def test_http_on_a_port_in_use_is_one_line_and_exit_2(run_cli):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run_cli("serve", "-c", DEMO, "--http", f"127.0.0.1:{port}")
    assert result.code == 2 and result.stdout == ""
    assert result.stderr.startswith(f"error: field 'http': --http: cannot listen on 127.0.0.1:{port}: ")
    assert result.stderr.count("\n") == 1


def test_resident_tools_are_listed_up_front_also_when_renamed():
    from toolsearch_cli.serve.dry_run import Listed

    tools = [
        {"name": "get_current_time", "inputSchema": {"type": "object"}},
        {"name": "convert_time", "inputSchema": {"type": "object"}},
    ]
    listed = [Listed(f"t{i}=mcp+stdio:server-{i}", "time", tools) for i in (1, 2)]
    gateway = Gateway(Settings(sources=[], resident=["get_current_time"]), upstreams=listed)
    gateway.check_resident()
    shown = [t.name for t in gateway.listed_tools({}, None)]
    assert shown == ["t1__get_current_time", "toolSearch", "callTool"]
    assert gateway.check_direct("t1__get_current_time", {}, None) is None  # callable by its listed name
    with pytest.raises(Exception, match="resident tool 'get_time' is not in the catalog"):
        Gateway(Settings(sources=[], resident=["get_time"]), upstreams=listed).check_resident()


def test_a_hostile_tool_list_costs_only_its_bad_tools():
    from toolsearch_cli.catalog.names import PROVIDER_NAME
    from toolsearch_cli.serve.dry_run import Listed

    schema = {"type": "object", "properties": {}}
    names = ["\x1b[31mred", "x" * 100, "dup", "dup", "toolSearch", "callTool", "ok.tool/name", "日本語"]
    raw = [{"name": n, "inputSchema": schema, "description": "d"} for n in names]
    raw += [{"name": "noschema"}, {"name": "string_schema", "inputSchema": {"type": "string"}}]
    good = Listed("good=mcp+stdio:good", "good", [{"name": "fine", "inputSchema": schema}])
    gateway = Gateway(Settings(sources=[]), upstreams=[Listed("evil=mcp+stdio:evil", "evil", raw), good])
    served = gateway.catalog.names
    assert "fine" in served and "dup" in served  # the other server, and the first of the duplicates
    assert {"evil__toolSearch", "evil__callTool"} <= set(served)  # the gateway's own names stay its own
    assert all(PROVIDER_NAME.match(n) for n in served) and len(set(served)) == len(served)
    originals = {gateway.routes[n].original for n in served}
    assert "\x1b[31mred" in originals and "ok.tool/name" in originals  # forwarded under the server's name
    problems = gateway.problems["evil=mcp+stdio:evil"]
    # (the loader's own words, as `catalog` prints them: the list loads in one go with its warnings)
    assert len(problems) == 3
    assert problems[0] == "tool 'dup', field '/tools/3/name': duplicate tool name (first at /tools/2)"
    assert "noschema" in problems[1] and "string_schema" in problems[2]


def test_call_arguments_nested_too_deeply_are_refused():
    from toolsearch_cli.serve.dry_run import Listed

    listed = Listed("s=mcp+stdio:s", "s", [{"name": "take", "inputSchema": {"type": "object"}}])
    gateway = Gateway(Settings(sources=[]), upstreams=[listed])
    past_python: dict = {}  # deeper than json.dumps can go
    node = past_python
    for _ in range(100_000):
        node["a"] = {}
        node = node["a"]
    past_limit: list = [1]  # deeper than the JSON depth toolsearch reads (bounded.MAX_DEPTH)
    for _ in range(150):
        past_limit = [past_limit]
    for arguments in (past_python, {"a": past_limit}, "x" * 10, ["list"]):
        with pytest.raises(Refused) as refused:
            gateway.prepare_call("take", arguments, {})
        assert refused.value.kind == "invalid-arguments"
    assert gateway.prepare_call("take", {"a": 1}, {})[2] == {"a": 1}


def test_a_re_index_from_another_thread_notifies_watched_sessions_without_a_loop_error():
    """A registry watcher's thread re-indexes: the check it schedules on the serving loop must be
    able to start the notice task (it once ran in the thread's context, where anyio found no async
    library: ``NoEventLoopError`` printed by the loop, and no notice sent)."""
    import asyncio
    import threading

    import anyio

    from toolsearch_cli.serve.server import GatewayServer, _Watch

    catalog = load_catalog([DEMO])
    gateway = Gateway(Settings(sources=[DEMO], disclose="list-changed", max_active=2), static=catalog)
    binding = GatewayServer(gateway, {}, stdio=False)
    sent: list[str] = []
    loop_errors: list[dict] = []

    class Connection:
        async def send_tool_list_changed(self) -> None:
            sent.append("list_changed")

    async def scenario() -> None:
        asyncio.get_running_loop().set_exception_handler(lambda loop, context: loop_errors.append(context))
        async with anyio.create_task_group() as group:
            binding.bind(group.start_soon)
            session = SessionState(id="watched")
            binding._watches[session.id] = _Watch(session, Connection(), {}, digest="stale")
            thread = threading.Thread(target=binding._after_rebuild)
            thread.start()
            thread.join()
            with anyio.fail_after(30):  # a hang's bound
                while not sent and not loop_errors:
                    await anyio.sleep(0.01)
            group.cancel_scope.cancel()

    anyio.run(scenario)
    assert loop_errors == []
    assert sent == ["list_changed"]


def test_dry_run_says_when_the_gateway_costs_more_than_listing_the_tools(run_cli, tmp_path):
    """Issue 36: one small upstream tool printed "listing all 1 upstream tool instead: 35 tokens
    (-722.9% saved)". A negative saving reads as a cost, with the count of tools from which the
    gateway pays for itself."""
    one = [t for t in raw_tools_of(load_catalog([DEMO])) if t["name"] == "getWeather"]
    runner = scripted_source("one", one, tmp_path)
    report = run_cli("serve", "--dry-run", "-c", runner, "-f", "json").json()["tokens"]
    listed, direct = report["listed"], report["all_upstream_tools"]
    assert report["all_upstream_tool_count"] == 1 and listed > direct
    worth_it_from = listed // direct + 1  # the smallest count of such tools that costs more than the gateway
    assert report["break_even_tools"] == worth_it_from
    table = run_cli("serve", "--dry-run", "-c", runner)
    assert table.code == 0, table.stderr
    text = " ".join(table.stdout.split())
    assert "saved" not in text and "-" not in text.split("instead:")[1].split("·")[0]
    assert (
        f"listing all 1 upstream tool instead: {direct:,} tokens; the gateway's {listed:,} tokens cost more "
        f"than listing them directly (worth it from about {worth_it_from} tools)" in text
    )
    # many tools: the saving is printed as before
    many = run_cli("serve", "--dry-run", "-c", scripted_source("demo", raw_tools_of(load_catalog([DEMO])), tmp_path))
    assert "% saved" in many.stdout


@pytest.mark.parametrize("era", ["2026-07-28", "2025-11-25"])
def test_a_change_only_an_admin_context_sees_is_told_to_2026_07_28_listeners(tmp_path, era):
    """With contexts per caller (--tokens, --context-header), a 2026-07-28 listener is told of a
    tools/list change through the one subscription all listeners share. A change to an admin-only
    resident tool changes only the admin's list: it was never told, because the check compared the
    list a request with no context gets (the handshake era's sessions are told by their watch)."""
    from types import SimpleNamespace

    import anyio

    from toolsearch_cli.serve.server import GatewayServer

    pytest.importorskip("mcp", reason="the MCP SDK (extra toolsearch-cli[mcp]) is not installed")
    path = tmp_path / "ops.yaml"
    path.write_text(
        "requires: {role: admin}\ntools:\n  - name: drop_database\n    description: Drop a production database.\n",
        encoding="utf-8",
    )
    catalog = load_catalog([str(path)])
    catalog.get("drop_database").function = lambda: "dropped"  # run in process (a Python tool)
    settings = Settings(sources=[str(path)], resident=["drop_database"], context_header="X-Ctx")
    gateway = Gateway(settings, static=catalog)
    binding = GatewayServer(gateway, {}, stdio=False)
    binding.protocol.attach()  # as serving does: the list as it is now, and the re-index hook
    published: list[object] = []
    binding.spawn = lambda function, *args: published.append(args[0] if args else function)
    request = SimpleNamespace(headers={"X-Ctx": "role=admin"})
    admin = SimpleNamespace(protocol_version=era, request=request, session=None)

    listed = anyio.run(binding.list_tools, admin, None)
    assert [t.name for t in listed.tools] == ["drop_database", "toolSearch", "callTool"]
    binding.protocol._check_tools()
    assert published == []  # nothing changed since that list

    gateway.static.get("drop_database").description = "Drop a production database (asks twice)."
    gateway.rebuild()  # the hook schedules the check on the serving loop (none here): run it
    binding.protocol._check_tools()
    if era == "2026-07-28":
        assert [type(event).__name__ for event in published] == ["ToolsListChanged"]
        binding.protocol._check_tools()
        assert len(published) == 1  # told once per change
    else:
        assert published == []  # not a 2026-07-28 listing: its session's watch tells it


def test_the_contexts_remembered_for_change_notices_are_bounded():
    """A client naming ever new context headers: the gateway keeps only the latest
    MAX_LISTED_CONTEXTS (each costs one listing per re-index), the most recent last."""
    from toolsearch_cli.serve import server as served

    pytest.importorskip("mcp", reason="the MCP SDK (extra toolsearch-cli[mcp]) is not installed")
    gateway = Gateway(Settings(sources=[DEMO], context_header="X-Ctx"), static=load_catalog([DEMO]))
    binding = served.GatewayServer(gateway, {}, stdio=False)
    for n in range(served.MAX_LISTED_CONTEXTS * 3):
        binding.note_listed({"team": f"t{n}"}, "digest")
    binding.note_listed({"team": "t5"}, "digest")  # pushed out long ago: comes back as the latest
    kept = [context["team"] for context, _ in binding._listed_contexts.values()]
    assert len(kept) == served.MAX_LISTED_CONTEXTS
    assert kept[-1] == "t5" and kept[-2] == f"t{served.MAX_LISTED_CONTEXTS * 3 - 1}"
    assert binding.listed_changed() is True  # every one was noted with a digest it does not have
    assert binding.listed_changed() is False  # and is now noted with the one it has
