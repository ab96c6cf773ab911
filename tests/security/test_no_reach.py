"""Data never makes toolsearch reach the network or read a file (issue 37).

Catalogs whose schemas and descriptions carry references and URLs of every kind (``http:`` and
``https:`` to a loopback sink, an unresolvable host, ``file:`` URLs, a bare path and a relative
``canary.json#/x`` pointing at a canary file holding a random secret, ``ftp:``, ``data:``, ``urn:``,
scheme-relative ``//host/x``, a remote or ``file:`` ``$id`` base, a remote ``$schema``,
``$dynamicRef``, a draft-07 subschema, ``allOf`` with ``unevaluatedProperties``, ``format: uri``
with a URL default; one tool per kind, so that a check stopping at its first failing reference
hides none; OpenAPI documents with an outside ``$ref`` each) go through every command and library
entry point that touches a tool: search, catalog (list), catalog convert (each ``--to``), lint,
eval, simulate (scripted and replayed), ``ToolSearch.request``/``handle``,
``validate_arguments``, the gateway's search and call (in-process, and over stdio through the
official ``mcp`` client), and registry push and read (PostgreSQL; skips where it is absent, as
tests/registry does).

After each: the sink saw no connection, the canary's secret (and the sink's) is in no output and
no file written, and, in this process, an audit hook saw no ``urllib`` request, no DNS look-up
of the data's hosts, no connection to the sink and no ``open`` of the canary. A read canary or a
fetched reference would show: both answer ``{"const": <secret>}``, which a checked argument
then fails with the secret in the message.
"""

from __future__ import annotations

import base64
import json
import os
import secrets
import sys
import textwrap
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from toolsearch_cli import Catalog, ToolSearch, load_catalog, validate_arguments
from toolsearch_cli.errors import ToolArgumentsError

from ..conftest import TOOLSEARCH

# --- the sink and the canary ---------------------------------------------------------------------


class Sink:
    """A loopback HTTP server that records every connection (HTTP or not) and answers a schema
    holding its own secret."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        self.secret = "SINK-" + secrets.token_hex(12)
        sink = self

        class Handler(BaseHTTPRequestHandler):
            timeout = 1  # an ftp client waits for a greeting: the connection ends after a second

            def setup(self) -> None:
                sink.seen.append(f"connection from {self.client_address[0]}")
                super().setup()

            def answer(self) -> None:
                sink.seen.append(f"{self.command} {self.path}")
                body = json.dumps({"const": sink.secret, "x": {"const": sink.secret}}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = do_HEAD = do_PUT = answer

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = int(self.server.server_address[1])
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


#: What the audit hook saw while armed (in this process).
_AUDIT: dict[str, Any] = {"armed": False, "port": None, "canary": None, "seen": []}


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if not _AUDIT["armed"]:
        return
    if event == "urllib.Request":
        _AUDIT["seen"].append(f"urllib request {args[0]!r}")
    elif event == "socket.getaddrinfo" and isinstance(args[0], str) and args[0].endswith(".invalid"):
        _AUDIT["seen"].append(f"DNS look-up of {args[0]!r}")
    elif event == "socket.connect" and isinstance(args[1], tuple) and len(args[1]) >= 2:
        if args[1][1] == _AUDIT["port"]:
            _AUDIT["seen"].append(f"connection to {args[1]!r}")
    elif event == "open" and isinstance(args[0], str | bytes | os.PathLike):
        path = os.fsdecode(args[0])
        canary = _AUDIT["canary"]
        if canary and os.path.basename(path) == canary.name and Path(os.path.abspath(path)) == canary:
            _AUDIT["seen"].append(f"open of the canary {path!r}")


_HOOKED: list[bool] = []


class World:
    """The sink, the canary, the catalogs and the folder the runs write into."""

    def __init__(self, root: Path, sink: Sink) -> None:
        self.root, self.sink = root, sink
        self.secret = "CANARY-" + secrets.token_hex(12)
        self.canary = root / "canary.json"
        self.canary.write_text(json.dumps({"const": self.secret, "x": {"const": self.secret}}), encoding="utf-8")
        #: What a ``data:`` reference holds (base64: its secret is not in the reference's own text).
        self.data_secret = "DATA-" + secrets.token_hex(12)
        self.data_schema = {"const": self.data_secret}
        self.out = root / "out"
        self.out.mkdir()
        s, port = sink.url, sink.port
        self.refs = {
            "http": f"{s}/ref/http.json",
            "https": f"https://127.0.0.1:{port}/ref/https.json",
            "unresolvable_host": "http://metadata.invalid/computeMetadata/v1/",
            "file_url": self.canary.as_uri(),
            "file_bare": f"file:{self.canary}",
            "file_pointer": f"{self.canary.as_uri()}#/x",
            "absolute_path": str(self.canary),
            "relative": f"{self.canary.name}#/x",
            "ftp": f"ftp://127.0.0.1:{port}/ref/ftp.json",
            "data": "data:application/json;base64," + base64.b64encode(json.dumps(self.data_schema).encode()).decode(),
            "urn": "urn:example:reach",
            "scheme_relative": f"//127.0.0.1:{port}/ref/scheme-relative.json",
        }
        links = [s + "/desc/doc", self.canary.as_uri(), f"ftp://127.0.0.1:{port}/d", f"//127.0.0.1:{port}/d"]
        self.description = (
            "Reach a remote thing by its link and report what it holds. Docs: "
            + ", ".join(links)
            + f", data:text/plain,hi, urn:x:y, ![logo]({s}/desc/logo.png)"
        )
        link = {
            "type": "string",
            "format": "uri",
            "description": f"A link such as {s}/desc/param",
            "default": f"{s}/format/default",
            "examples": [f"{s}/format/example", self.canary.as_uri()],
        }
        #: One schema per way of pointing outside it (each checked on its own: a check that stops at
        #: its first failing reference would hide the next).
        self.schemas: dict[str, dict[str, Any]] = {
            kind: {"properties": {"v": {"$ref": ref, "description": f"See {ref}"}}} for kind, ref in self.refs.items()
        }
        self.schemas["dynamic_ref"] = {"properties": {"v": {"$dynamicRef": f"{s}/ref/dynamic.json#meta"}}}
        self.schemas["remote_id_base"] = {"properties": {"v": {"$id": f"{s}/base/", "$ref": "child.json"}}}
        self.schemas["file_id_base"] = {
            "$id": self.canary.parent.as_uri() + "/",
            "properties": {"v": {"$ref": self.canary.name}, "w": {"$ref": f"{self.canary.name}#/x"}},
        }
        self.schemas["remote_schema"] = {
            "$schema": f"{s}/ref/metaschema.json",
            "properties": {"v": {"$schema": f"{s}/ref/meta.json", "type": "string"}},
        }
        self.schemas["draft7_subschema"] = {  # a subschema of another draft is checked by that draft's validator
            "properties": {"v": {"$schema": "http://json-schema.org/draft-07/schema#", "$ref": f"{s}/ref/d7.json"}}
        }
        self.schemas["all_of"] = {"allOf": [{"$ref": f"{s}/ref/allof.json"}], "unevaluatedProperties": False,
                                  "properties": {"v": {"type": "string"}, "w": {"type": "string"}}}  # fmt: skip
        for schema in self.schemas.values():
            schema.update(type="object", required=["link"])
            schema["properties"]["link"] = link
        self.names = [f"reach_{kind}" for kind in self.schemas]
        #: Arguments every one of those schemas accepts as written (its outside references unresolved).
        self.arguments = {"v": f"{s}/arg/v", "w": self.canary.as_uri(), "link": f"{s}/arg/link"}
        #: Arguments every one of them refuses, for ``link`` alone.
        self.bad_arguments = {**self.arguments, "link": 5}
        self.yaml = self._write_catalogs()

    def tools(self) -> list[dict[str, Any]]:
        reach = [
            {
                "name": f"reach_{kind}",
                "description": f"Reach a {kind.replace('_', ' ')} thing. {self.description}",
                "parameters": schema,
            }  # fmt: skip
            for kind, schema in self.schemas.items()
        ]
        weather = {"name": "getWeather", "description": "Get the current weather for a city.",
                   "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}  # fmt: skip
        return [*reach, weather]

    def _write_catalogs(self) -> Path:
        tools = self.tools()
        native = self.root / "reach.yaml"  # toolsearch's format, written as JSON (YAML's subset)
        native.write_text(
            json.dumps({"tools": [{**t, "resident": t["name"] != "getWeather"} for t in tools]}), encoding="utf-8"
        )
        mcp = self.root / "reach.mcp.json"
        mcp.write_text(
            json.dumps({"tools": [{"name": t["name"], "description": t["description"], "inputSchema": t["parameters"]}
                                  for t in tools]}),
            encoding="utf-8",
        )  # fmt: skip
        s = self.sink.url
        listing = {
            "get": {
                "operationId": "listThings",
                "summary": f"List things, see {s}/openapi/summary",
                "parameters": [{"name": "q", "in": "query", "schema": {"type": "string", "format": "uri"}}],
            }
        }
        body = {"application/json": {"schema": {"$ref": f"{s}/openapi/b.json"}}}
        outside = {  # one document per way out: the loader stops at a document's first one
            "remote": {"post": {"operationId": "postRemote", "summary": "Post.", "requestBody": {"content": body}}},
            "file": {"post": {"operationId": "postFile", "summary": "Post.", "requestBody": {"content": {
                "application/json": {"schema": {"$ref": self.canary.as_uri() + "#/x"}}}}}},
            "relative": {"get": {"operationId": "getOther", "summary": "Get.",
                                 "parameters": [{"$ref": "canary.json#/components/parameters/P"}]}},
            "remote-path": {"$ref": f"{s}/openapi/path-item.json"},
        }  # fmt: skip
        self.openapi = []
        for kind, item in outside.items():
            document = {
                "openapi": "3.0.3",
                "info": {"title": "reach", "version": "1", "description": f"{s}/openapi/info"},
                "servers": [{"url": f"{s}/api"}],
                "externalDocs": {"url": f"{s}/openapi/docs"},
                "paths": {"/things": listing, f"/{kind}": item},
            }
            path = self.root / f"reach-{kind}.openapi.json"
            path.write_text(json.dumps(document), encoding="utf-8")
            self.openapi.append(path)
        module = self.root / "reachtools.py"
        module.write_text(
            textwrap.dedent(f"""\
                import json
                from toolsearch_cli import Tool

                def reach(**arguments):
                    return "ran"

                TOOLS = [
                    Tool(name=t["name"], description=t["description"], parameters=t["parameters"], function=reach)
                    for t in json.loads({json.dumps(json.dumps(tools))})
                ]
                """),
            encoding="utf-8",
        )
        return native

    @property
    def catalogs(self) -> list[Path]:
        return [self.yaml, self.root / "reach.mcp.json", *self.openapi]

    @property
    def secrets(self) -> tuple[str, ...]:
        return (self.secret, self.sink.secret, self.data_secret)

    def assert_untouched(self, *outputs: Any) -> None:
        """Nothing reached the sink or the canary, and no output or written file holds a secret."""
        reached = list(self.sink.seen) + list(_AUDIT["seen"])
        self.sink.seen.clear()
        _AUDIT["seen"].clear()
        assert reached == [], f"data made toolsearch reach out: {reached}"
        for output in outputs:
            text = output if isinstance(output, str) else json.dumps(output, default=repr)
            for secret in self.secrets:
                assert secret not in text, (
                    f"{secret!r} is in an output: ...{text[max(0, text.find(secret) - 300) :][:600]}"
                )
        for path in self.root.rglob("*"):
            if path.is_file() and path != self.canary:
                data = path.read_bytes()
                for secret in self.secrets:
                    assert secret.encode() not in data, f"{secret!r} written to {path}"


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    if not _HOOKED:
        sys.addaudithook(_audit)
        _HOOKED.append(True)
    sink = Sink()
    built = World(tmp_path_factory.mktemp("noreach"), sink)
    _AUDIT.update(port=sink.port, canary=built.canary, seen=[])
    try:
        yield built
    finally:
        _AUDIT.update(armed=False, port=None, canary=None)
        sink.close()


@pytest.fixture
def watched(world, monkeypatch):
    """The world, with the audit hook armed and the canary's folder as the working directory (a
    relative reference resolved against it would find the canary)."""
    monkeypatch.chdir(world.root)
    monkeypatch.setenv("TOOLSEARCH_CACHE_DIR", str(world.root / "cache"))
    _AUDIT["seen"].clear()
    _AUDIT["armed"] = True
    try:
        yield world
    finally:
        _AUDIT["armed"] = False


def _run(run_cli, *args: str):
    result = run_cli(*args)
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr, result.stderr[-2000:]
    return result


# --- the commands --------------------------------------------------------------------------------


def test_search_and_catalog_list_over_every_catalog_format(watched, run_cli):
    outputs = []
    for catalog in watched.catalogs:
        for args in (
            ("search", "reach a remote thing", "-c", str(catalog), "--format", "json"),
            ("search", "reach a remote thing", "-c", str(catalog), "--explain"),
            ("catalog", "-c", str(catalog), "--format", "json", "--wide"),
            ("catalog", "-c", str(catalog)),
        )[: 1 if catalog in watched.openapi else 4]:  # an OpenAPI document here stops at its outside $ref
            result = _run(run_cli, *args)
            outputs += [result.stdout, result.stderr]
            if catalog == watched.yaml:
                assert result.code == 0, result.stderr
    yaml_list = _run(run_cli, "catalog", "-c", str(watched.yaml), "--format", "json")
    watched.assert_untouched(*outputs, yaml_list.stdout, yaml_list.stderr)
    assert all(name in yaml_list.stdout for name in watched.names)
    # each reference outside its schema is named in a one-line warning
    for kind, ref in watched.refs.items():
        assert f"tool 'reach_{kind}', field 'parameters.v': $ref {ref!r} points outside" in yaml_list.stderr


@pytest.mark.parametrize("to", ["yaml", "openai", "openai-responses", "anthropic", "mcp"])
def test_convert_to_each_format(watched, run_cli, to):
    out = watched.out / f"converted.{to}"
    result = _run(run_cli, "catalog", "convert", "--to", to, "-c", str(watched.yaml), "-o", str(out))
    strict = _run(run_cli, "catalog", "convert", "--to", to, "-c", str(watched.yaml), "--strict", "--plain")
    watched.assert_untouched(result.stdout, result.stderr, strict.stdout, strict.stderr)
    assert result.code == 0, result.stderr
    assert watched.refs["http"] in out.read_text(encoding="utf-8")  # carried as written, not resolved


def test_lint_every_format(watched, run_cli):
    outputs = []
    for catalog in watched.catalogs:
        for fmt in ("json", "sarif") if catalog == watched.yaml else ("json",):
            result = _run(run_cli, "lint", str(catalog), "--format", fmt)
            outputs += [result.stdout, result.stderr]
    strict = _run(run_cli, "lint", str(watched.yaml), "--preset", "strict", "--format", "text")
    watched.assert_untouched(*outputs, strict.stdout, strict.stderr)
    assert "TS305" in strict.stdout and strict.code == 1


def test_eval(watched, run_cli):
    queries = watched.out / "queries.yaml"
    queries.write_text(
        f"- {{id: a, query: reach a remote thing {watched.sink.url}/q, relevant: [reach_http]}}\n"
        f"- {{id: b, query: weather, relevant: [getWeather]}}\n",
        encoding="utf-8",
    )
    catalog = str(watched.root / "reach.mcp.json")  # no resident tools: each can be found
    result = _run(run_cli, "eval", "-c", catalog, "-q", str(queries), "--format", "json",
                  "--save", str(watched.out / "run.json"))  # fmt: skip
    watched.assert_untouched(result.stdout, result.stderr)
    assert result.code == 0, result.stderr


def test_simulate_scripted_and_replayed(watched, run_cli):
    steps: list[dict[str, Any]] = [
        {"call": {"name": name, "arguments": watched.arguments, "result": {"ok": True}}} for name in watched.names
    ]
    steps += [{"call": {"name": "reach_http", "arguments": watched.bad_arguments, "result": {}}}, {"say": "done"}]
    script = watched.out / "reach.sim.yaml"
    script.write_text(json.dumps({"turns": [{"user": "reach it", "steps": steps}]}), encoding="utf-8")
    scripted = _run(run_cli, "simulate", str(script), "-c", str(watched.yaml), "--format", "json",
                    "--state", str(watched.out / "state.json"), "--mode", "agent")  # fmt: skip
    calls = [
        {"id": f"c{i}", "type": "function", "function": {"name": name, "arguments": json.dumps(watched.arguments)}}
        for i, name in enumerate(watched.names)
    ]
    messages = [
        {"role": "user", "content": "reach it"},
        {"role": "assistant", "content": None, "tool_calls": calls},
        *({"role": "tool", "tool_call_id": c["id"], "content": "ok"} for c in calls),
    ]
    recording = watched.out / "conversation.json"
    recording.write_text(json.dumps(messages), encoding="utf-8")
    replayed = _run(run_cli, "simulate", "--replay", str(recording), "-c", str(watched.yaml), "--format", "json")
    watched.assert_untouched(scripted.stdout, scripted.stderr, replayed.stdout, replayed.stderr)
    assert scripted.code == 0 and replayed.code == 0, scripted.stderr + replayed.stderr
    for result, bad in ((scripted, 1), (replayed, 0)):
        findings = [json.dumps(f) for r in result.json()["requests"] for f in r.get("findings", [])]
        # the one bad call is refused for its own argument; every call of a tool with references passes
        assert [f for f in findings if "argument" in f] == [f for f in findings if "'link' must be string" in f]
        assert len([f for f in findings if "'link' must be string" in f]) == bad, findings


# --- the library ---------------------------------------------------------------------------------


def test_library_request_handle_and_validate_arguments(watched):
    catalog = load_catalog([str(watched.yaml)])
    checked: dict[tuple[str, str], Any] = {}
    for tool in catalog.tools:
        for label, arguments in (("ok", watched.arguments), ("bad", watched.bad_arguments)):
            try:
                checked[tool.name, label] = validate_arguments(tool, arguments)
            except ToolArgumentsError as exc:
                checked[tool.name, label] = str(exc)
    handled: dict[tuple[str, str, str], Any] = {}
    for api in ("openai", "anthropic"):
        ts = ToolSearch(Catalog(tools=catalog.tools, resident=watched.names), api=api)
        request = ts.request([{"role": "user", "content": f"reach {watched.sink.url}/msg"}])
        handled[api, "", "tools"] = request.tools
        for name in watched.names:
            for label, arguments in (("ok", watched.arguments), ("bad", json.dumps(watched.bad_arguments))):
                one = ts.handle(name, arguments, request)
                handled[api, name, label] = [one.ok, one.content, one.message, one.arguments]
        one = ts.handle("toolSearch", {"query": f"reach {watched.canary.as_uri()}"}, request)
        handled[api, "toolSearch", "ok"] = [one.ok, one.content, one.message, one.arguments]
    watched.assert_untouched(list(checked.values()), list(handled.values()))
    for name in watched.names:  # every unresolved reference accepts any value; the rest is checked
        assert checked[name, "ok"] == watched.arguments, (name, checked[name, "ok"])
        assert "argument 'link' must be string" in checked[name, "bad"], (name, checked[name, "bad"])
        for api in ("openai", "anthropic"):
            assert handled[api, name, "ok"][0] is True, (api, name, handled[api, name, "ok"])
            assert handled[api, name, "bad"][0] is False and "must be string" in handled[api, name, "bad"][1]
    assert handled["openai", "toolSearch", "ok"][0] is True


# --- the gateway ---------------------------------------------------------------------------------


def test_gateway_search_and_call_in_process(watched):
    from toolsearch_cli.serve.dry_run import Listed
    from toolsearch_cli.serve.gateway import Gateway, Refused, Settings

    module = str(watched.root / "reachtools.py")
    upstream = [{"name": t["name"], "description": t["description"], "inputSchema": t["parameters"]}
                for t in watched.tools()]  # fmt: skip
    answers: dict[tuple[str, str, str], Any] = {}
    found = {}
    for origin, gateway in (
        ("python module", Gateway(Settings(sources=[module]), static=load_catalog([module]))),
        ("upstream MCP server", Gateway(Settings(sources=[]), upstreams=[Listed("up=mcp+stdio:up", "up", upstream)])),
    ):
        context = gateway.context_for(None)
        found[origin] = gateway.search({"query": "reach a remote thing"}, context, None)[0].content
        for name in watched.names:
            for label, arguments in (("ok", watched.arguments), ("bad", watched.bad_arguments)):
                try:
                    answers[origin, name, label] = gateway.prepare_call(name, arguments, context)[2]
                except Refused as exc:
                    answers[origin, name, label] = f"refused: {exc}"
    watched.assert_untouched(found, list(answers.values()))
    for origin in found:
        assert "reach_" in json.dumps(found[origin])
        for name in watched.names:
            assert answers[origin, name, "ok"] == watched.arguments, (origin, name, answers[origin, name, "ok"])
            bad = answers[origin, name, "bad"]
            assert bad.startswith("refused: ") and "must be string" in bad, (origin, name, bad)


def test_gateway_over_stdio_through_the_mcp_client(watched):
    pytest.importorskip("mcp", reason="the MCP SDK (extra toolsearch-cli[mcp]) is not installed")
    import tempfile

    import anyio
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    module = str(watched.root / "reachtools.py")
    root = str(Path(__file__).resolve().parents[2])  # this checkout's package, whatever the cwd
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)}
    params = StdioServerParameters(
        command=TOOLSEARCH[0],
        args=[*TOOLSEARCH[1:], "serve", "--catalog", module, "--log", str(watched.out / "traffic.jsonl")],
        env=env,
        cwd=str(watched.root),
    )
    outputs: dict[tuple[str, str], tuple[bool, str]] = {}
    errlog = tempfile.TemporaryFile(mode="w+", encoding="utf-8")

    async def scenario() -> None:
        async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=60) as gateway:
            calls = [("toolSearch", "search", {"query": "reach a remote thing"})]
            for name in watched.names:
                calls.append(("callTool", name, {"name": name, "arguments": watched.arguments}))
            calls.append(("callTool", "bad", {"name": "reach_file_url", "arguments": watched.bad_arguments}))
            for tool, label, arguments in calls:
                result = await gateway.call_tool(tool, arguments)
                outputs[tool, label] = (result.is_error, "".join(getattr(b, "text", "") for b in result.content))

    try:
        anyio.run(scenario)
    finally:
        errlog.seek(0)
        stderr = errlog.read()
        errlog.close()
        print(stderr[-3000:])  # shown when the test fails
    watched.assert_untouched(list(outputs.values()), stderr)
    for name in watched.names:
        assert outputs["callTool", name] == (False, "ran"), (name, outputs["callTool", name])
    assert outputs["callTool", "bad"][0] and "must be string" in outputs["callTool", "bad"][1]


# --- the registry ----------------------------------------------------------------------------------


def test_registry_push_and_read(watched, run_cli, pg_url):
    _AUDIT["armed"] = True
    pushed = _run(run_cli, "catalog", "push", "--to", pg_url, "--namespace", "reach", "-c", str(watched.yaml))
    source = f"{pg_url}?namespace=reach"
    listed = _run(run_cli, "catalog", "-c", source, "--format", "json")
    found = _run(run_cli, "search", "reach a remote thing", "-c", source, "--format", "json")
    script = watched.out / "registry.sim.yaml"
    steps = [{"call": {"name": name, "arguments": watched.arguments, "result": {}}} for name in watched.names]
    steps.append({"call": {"name": "reach_http", "arguments": watched.bad_arguments, "result": {}}})
    script.write_text(json.dumps({"turns": [{"user": "reach", "steps": steps}]}), encoding="utf-8")
    simulated = _run(run_cli, "simulate", str(script), "-c", source, "--format", "json")
    watched.assert_untouched(*(r.stdout + r.stderr for r in (pushed, listed, found, simulated)))
    assert pushed.code == 0 and simulated.code == 0, pushed.stderr + simulated.stderr
    assert all(name in listed.stdout for name in watched.names), listed.stderr
    findings = [json.dumps(f) for r in simulated.json()["requests"] for f in r.get("findings", [])]
    assert len([f for f in findings if "'link' must be string" in f]) == 1, findings
