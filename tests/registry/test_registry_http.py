"""The registry's HTTP API (issue 35 item 6) against a real PostgreSQL cluster (tests/pg_cluster.py),
served by uvicorn on loopback, asked by a real HTTP client (httpx) and by the https://…/namespaces/N
catalog source itself."""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
import time

import httpx
import pytest

from tests import pg_cluster as pg
from toolsearch_cli.model import Catalog
from toolsearch_cli.registry import store, tokens
from toolsearch_cli.registry.source import parse_registry_source
from toolsearch_cli.registry.testing import sample

from ..conftest import DEMO, run_toolsearch


def numbered(n: int, word: str = "alpha") -> Catalog:
    return Catalog(tools=[sample(f"tool{i:04d}", f"{word} task number {i} of the {word} family") for i in range(n)])


def stamped(n: int, stamp: str) -> Catalog:
    """``n`` tools whose every description carries ``stamp`` (a reader can tell one push from another)."""
    return Catalog(tools=[sample(f"tool{i:04d}", f"stamp {stamp} task {i}") for i in range(n)])


class Server:
    """``registry serve``'s application run by uvicorn on a thread of this process."""

    def __init__(self, db: str, **settings) -> None:
        import uvicorn

        from toolsearch_cli.registry.http_api import ApiSettings, RegistryApi

        self.api = RegistryApi(ApiSettings(db=db, **settings))
        self.api.check()
        port = pg.free_port()
        config = uvicorn.Config(
            self.api.app(), host="127.0.0.1", port=port, log_level="warning", lifespan="on", timeout_graceful_shutdown=5
        )
        self.server = uvicorn.Server(config)
        self.api.stopping = lambda: self.server.should_exit
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.02)
        self.root = f"http://127.0.0.1:{port}"

    def url(self, namespace: str, action: str = "") -> str:
        return f"{self.root}/v1/namespaces/{namespace}" + (f"/-/{action}" if action else "")

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(20)


def mint(url: str, namespace: str, scope: str) -> str:
    with store.connect(parse_registry_source(url)) as conn:
        token, _ = tokens.create(conn, namespace, scope, note="test")
    return token


@pytest.fixture
def api(pg_url):
    """Two namespaces (``demo``: the demo catalog; ``other``: 20 tools), tokens, and a running server."""
    from toolsearch_cli import load_catalog

    store.push(pg_url, load_catalog(str(DEMO)), "demo")
    store.push(pg_url, numbered(20), "other")
    keys = {
        "demo_read": mint(pg_url, "demo", "read"),
        "demo_push": mint(pg_url, "demo", "push"),
        "other_read": mint(pg_url, "other", "read"),
    }
    server = Server(pg_url)
    server.keys = keys
    server.db = pg_url
    try:
        yield server
    finally:
        server.stop()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def put(server, namespace, catalog_doc, token, **kw):
    headers = {**bearer(token), "Content-Type": "application/json", **kw.pop("headers", {})}
    return httpx.put(server.url(namespace), content=json.dumps(catalog_doc), headers=headers, timeout=30, **kw)


def doc_of(catalog: Catalog) -> dict:
    from toolsearch_cli.registry.codec import tool_row

    return {"tools": [tool_row(t) for t in catalog.tools]}


# -- read ---------------------------------------------------------------------------------------


def test_read_gives_the_catalog_with_its_version_and_etag_and_304_while_unchanged(api):
    reply = httpx.get(api.url("demo"), headers=bearer(api.keys["demo_read"]))
    assert reply.status_code == 200 and reply.headers["content-type"] == "application/json"
    assert reply.headers["x-toolsearch-version"] == "1"
    etag = reply.headers["etag"]
    assert etag.startswith('"1-')
    snap = store.read_snapshot(f"{api.db}?namespace=demo")
    assert [t["name"] for t in reply.json()["tools"]] == [t.name for t in snap.tools]
    assert set(reply.json()) == {"tools", "resident", "groups"}  # a catalog file toolsearch reads as it is
    again = httpx.get(api.url("demo"), headers={**bearer(api.keys["demo_read"]), "If-None-Match": etag})
    assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == etag
    head = httpx.head(api.url("demo"), headers=bearer(api.keys["demo_read"]))
    assert head.status_code == 200 and head.content == b"" and head.headers["etag"] == etag


def test_the_read_body_is_a_catalog_file_that_searches_as_the_registry_does(api, tmp_path, run_cli):
    body = httpx.get(api.url("demo"), headers=bearer(api.keys["demo_read"])).content
    (tmp_path / "demo.json").write_bytes(body)
    from_file = run_cli("search", "查询城市天气", "-c", str(tmp_path / "demo.json"), "-f", "json")
    from_registry = run_cli("search", "查询城市天气", "-c", f"{api.db}?namespace=demo", "-f", "json")
    assert from_file.code == from_registry.code == 0, from_file.stderr
    assert from_file.json()["hits"] and from_file.json()["hits"] == from_registry.json()["hits"]


# -- search -------------------------------------------------------------------------------------


@pytest.mark.parametrize("query", ["查询城市天气", "send an email", "weather forecast"])
def test_search_ranks_as_toolsearch_search_does(api, run_cli, query):
    reply = httpx.get(
        api.url("demo", "search"), params={"q": query, "max_results": 7}, headers=bearer(api.keys["demo_read"])
    )
    assert reply.status_code == 200, reply.text
    local = run_cli("search", query, "-c", str(DEMO), "-n", "7", "-f", "json")
    got = reply.json()
    assert got["namespace"] == "demo" and got["version"] == 1
    assert [(h["name"], h["score"]) for h in got["hits"]] == [(h["name"], h["score"]) for h in local.json()["hits"]]
    assert got["hits"] and got["unmatched"] == local.json()["unmatched"]


def test_search_parameters_are_checked(api):
    auth = bearer(api.keys["demo_read"])
    for params, words in (
        ({}, "q (the query) is required"),
        ({"q": "x", "max_results": "0"}, "max_results"),
        ({"q": "x", "ranker": "nope"}, "unknown ranker"),
        ({"q": "x", "ranker": "hybrid"}, "needs an embedding model"),
        ({"q": "x", "category": "no-such-category"}, "no tool has category"),
        ({"q": "x" * 3000}, "over 2000"),
    ):
        reply = httpx.get(api.url("demo", "search"), params=params, headers=auth)
        assert reply.status_code == 400 and words in reply.json()["error"], (params, reply.text)
        assert "\n" not in reply.json()["error"]


# -- tokens -------------------------------------------------------------------------------------


def test_tokens_are_enforced_per_namespace_and_scope(api):
    keys = api.keys
    cases = [
        ("GET", "demo", None, 401),
        ("GET", "demo", "tsr_000000000000_" + "A" * 43, 403),  # well formed, unknown
        ("GET", "demo", "not-a-token", 403),
        ("GET", "demo", keys["other_read"], 403),  # namespace A's token cannot read B
        ("GET", "other", keys["other_read"], 200),
        ("GET", "demo", keys["demo_push"], 200),  # push implies read
        ("PUT", "demo", keys["demo_read"], 403),  # a read token cannot push
        ("PUT", "other", keys["demo_push"], 403),  # nor can a push token of another namespace
        ("GET", "absent", keys["demo_read"], 403),  # no oracle: another namespace is refused, present or not
    ]
    for method, namespace, token, status in cases:
        headers = bearer(token) if token else {}
        if method == "PUT":
            reply = put(api, namespace, doc_of(numbered(3)), token)
        else:
            reply = httpx.get(api.url(namespace), headers=headers)
        assert reply.status_code == status, (method, namespace, token, reply.text)
        if status == 401:
            assert reply.headers["www-authenticate"].startswith("Bearer")
    for action in ("search", "changes", "events"):
        assert httpx.get(api.url("demo", action), params={"q": "x", "wait": 0}).status_code == 401
        assert (
            httpx.get(
                api.url("demo", action), params={"q": "x", "wait": 0}, headers=bearer(keys["other_read"])
            ).status_code
            == 403
        )
    assert store.read_snapshot(f"{api.db}?namespace=demo").version == 1  # nothing refused was written


def test_tokens_are_kept_hashed_and_revoking_one_locks_it_out(api, run_cli):
    token = api.keys["demo_read"]
    rows = pg_cluster_rows(api.db, f"SELECT id, hash, namespace, scope FROM {tokens.TABLE}")
    assert all(token not in json.dumps(row) for row in rows)
    assert hashlib.sha256(token.encode()).hexdigest() in {row[1] for row in rows}
    token_id = token.split("_")[1]
    listed = run_cli("registry", "token", "list", "--db", api.db, "-f", "json")
    assert listed.code == 0 and token not in listed.stdout and pg.PASSWORD not in listed.stdout
    assert {t["id"] for t in listed.json()} == {row[0] for row in rows}
    assert httpx.get(api.url("demo"), headers=bearer(token)).status_code == 200
    revoked = run_cli("registry", "token", "revoke", token_id, "--db", api.db)
    assert revoked.code == 0 and f"revoked token {token_id}" in revoked.stdout
    assert httpx.get(api.url("demo"), headers=bearer(token)).status_code == 403
    unknown = run_cli("registry", "token", "revoke", "0123456789ab", "--db", api.db)
    assert unknown.code == 2 and "no token 0123456789ab" in unknown.stderr


def pg_cluster_rows(url: str, statement: str) -> list[tuple]:
    import psycopg

    with psycopg.connect(url) as conn:
        return conn.execute(statement).fetchall()


def test_token_create_prints_the_token_once_and_it_works(api, run_cli):
    made = run_cli("registry", "token", "create", "--db", api.db, "-n", "other", "--scope", "push", "--note", "ci")
    assert made.code == 0, made.stderr
    token = made.stdout.strip()
    assert tokens.looks_like_token(token) and token not in made.stderr
    assert "shown once" in made.stderr and pg.PASSWORD not in made.stdout + made.stderr
    assert put(api, "other", doc_of(numbered(5)), token).status_code == 200
    bad = run_cli("registry", "token", "create", "--db", api.db, "-n", "x", "--scope", "admin")
    assert bad.code == 2 and "--scope must be read or push" in bad.stderr


# -- push ---------------------------------------------------------------------------------------


def test_push_with_if_match_and_expect_version(api):
    key = api.keys["demo_push"]
    etag = httpx.get(api.url("demo"), headers=bearer(key)).headers["etag"]
    first = put(api, "demo", doc_of(numbered(4)), key, headers={"If-Match": etag})
    assert first.status_code == 200, first.text
    assert first.json()["version"] == 2 and first.headers["x-toolsearch-version"] == "2"
    assert first.headers["etag"].startswith('"2-')
    stale = put(api, "demo", doc_of(numbered(5)), key, headers={"If-Match": etag})
    assert stale.status_code == 412 and "not" in stale.json()["error"]
    conflict = put(api, "demo", doc_of(numbered(5)), key, params={"expect_version": 1})
    assert conflict.status_code == 409 and "someone pushed first" in conflict.json()["error"]
    exists = put(api, "demo", doc_of(numbered(5)), key, headers={"If-None-Match": "*"})
    assert exists.status_code == 412
    plan = put(api, "demo", doc_of(numbered(5)), key, params={"dry_run": "true", "expect_version": 2})
    assert plan.status_code == 200 and plan.json()["dry_run"] is True and plan.json()["added"] == ["tool0004"]
    assert store.read_snapshot(f"{api.db}?namespace=demo").version == 2
    same = put(api, "demo", doc_of(numbered(4)), key)
    assert same.status_code == 200 and same.json()["version"] is None and same.headers["x-toolsearch-version"] == "2"


def test_a_new_namespace_is_pushed_with_if_none_match_star(api, pg_url):
    key = mint(pg_url, "fresh", "push")
    made = put(api, "fresh", doc_of(numbered(3)), key, headers={"If-None-Match": "*"})
    assert made.status_code == 200 and made.json()["version"] == 1
    again = put(api, "fresh", doc_of(numbered(3)), key, headers={"If-None-Match": "*"})
    assert again.status_code == 412


def test_bad_pushes_are_one_line_refusals(api):
    key = api.keys["demo_push"]
    bad_tool = {"tools": [{"name": "x", "description": "d", "parameters": {"type": "object", "properties": 5}}]}
    cases = [
        (put(api, "demo", bad_tool, key), 400, "tool 'x'"),
        (put(api, "demo", {"tools": []}, key), 422, "allow_empty"),
        (put(api, "demo", {"tools": [], "extra": 1}, key), 400, "unknown top-level key"),
        (
            httpx.put(api.url("demo"), content=b"{", headers={**bearer(key), "Content-Type": "application/json"}),
            400,
            "malformed",
        ),
        (
            httpx.put(api.url("demo"), content=b"{}", headers={**bearer(key), "Content-Type": "text/yaml"}),
            415,
            "application/json",
        ),
        (
            httpx.put(
                api.url("demo"), content=b"\xff\xfe", headers={**bearer(key), "Content-Type": "application/json"}
            ),
            400,
            "UTF-8",
        ),
        (httpx.put(api.url("demo/-/nope"), headers=bearer(key)), 405, "PUT"),
        (httpx.get(api.url("a/-/b/-/search"), headers=bearer(key)), 404, "no such resource"),
        (httpx.get(api.url("bad name"), headers=bearer(key)), 400, "invalid namespace"),
    ]
    for reply, status, words in cases:
        assert reply.status_code == status, (reply.status_code, reply.text)
        error = reply.json()["error"]
        assert words in error and "\n" not in error, error
    assert store.read_snapshot(f"{api.db}?namespace=demo").version == 1


def test_a_body_over_the_limit_is_refused_before_it_is_read(pg_url):
    store.push(pg_url, numbered(2), "small")
    key = mint(pg_url, "small", "push")
    server = Server(pg_url, max_body_bytes=2000)
    try:
        big = doc_of(numbered(100))
        assert put(server, "small", big, key).status_code == 413

        def chunks():  # no Content-Length: the server counts what arrives
            text = json.dumps(big).encode()
            for i in range(0, len(text), 500):
                yield text[i : i + 500]

        streamed = httpx.put(
            server.url("small"), content=chunks(), headers={**bearer(key), "Content-Type": "application/json"}
        )
        assert streamed.status_code == 413 and "over the limit" in streamed.json()["error"]
        empty = put(server, "small", {"tools": []}, key, params={"allow_empty": "true"})
        assert empty.status_code == 200 and empty.json()["removed"] == ["tool0000", "tool0001"]
    finally:
        server.stop()


# -- concurrency --------------------------------------------------------------------------------


def test_fifty_concurrent_readers_during_pushes_never_see_a_mixed_version(api, pg_url):
    """50 readers (httpx, one connection each) read and search in a loop while pushes replace every
    tool's description; each reply must be one version: all its tools carry that version's stamp."""
    key = mint(pg_url, "race", "push")
    store.push(pg_url, stamped(300, "v1"), "race")
    read_key = mint(pg_url, "race", "read")
    seen: dict[int, set[str]] = {}
    problems: list[str] = []
    replies = [0]
    stop = asyncio.Event()

    async def reader(i: int) -> None:
        async with httpx.AsyncClient(headers=bearer(read_key), timeout=60) as client:
            while not stop.is_set():
                if i % 5 == 0:
                    reply = await client.get(api.url("race", "search"), params={"q": "stamp task", "max_results": 50})
                    stamps = {h["description"].split()[1] for h in reply.json()["hits"]}
                else:
                    reply = await client.get(api.url("race"))
                    stamps = {t["description"].split()[1] for t in reply.json()["tools"]}
                version = int(reply.headers["x-toolsearch-version"])
                if len(stamps) != 1 or stamps != {f"v{version}"}:
                    problems.append(f"version {version}: stamps {sorted(stamps)[:5]}")
                seen.setdefault(version, set()).update(stamps)
                replies[0] += 1

    def pusher() -> None:
        for n in range(2, 8):
            deadline = time.monotonic() + 30
            while n - 1 not in seen:  # each version is read before the next one replaces it
                assert time.monotonic() < deadline, sorted(seen)
                time.sleep(0.01)
            reply = put(api, "race", doc_of(stamped(300, f"v{n}")), key, params={"expect_version": n - 1})
            assert reply.status_code == 200 and reply.json()["version"] == n, reply.text
        time.sleep(0.3)

    async def main() -> None:
        readers = [asyncio.create_task(reader(i)) for i in range(50)]
        await asyncio.to_thread(pusher)
        stop.set()
        await asyncio.gather(*readers)

    asyncio.run(main())
    assert problems == [] and replies[0] >= 100
    assert sorted(seen) == [1, 2, 3, 4, 5, 6, 7]  # the readers saw every push land


# -- following ----------------------------------------------------------------------------------


def test_long_poll_wakes_on_a_push_and_returns_only_what_changed(api, pg_url):
    key = api.keys["other_read"]
    result: dict = {}

    def poll() -> None:
        began = time.monotonic()
        reply = httpx.get(api.url("other", "changes"), params={"since": 1, "wait": 20}, headers=bearer(key), timeout=30)
        result["seconds"] = time.monotonic() - began
        result["reply"] = reply

    waiter = threading.Thread(target=poll)
    waiter.start()
    time.sleep(0.5)
    tools = list(numbered(20).tools)
    tools[3] = sample("tool0003", "a changed description")
    catalog = Catalog(tools=[t for i, t in enumerate(tools) if i != 7])
    pushed_at = time.monotonic()
    store.push(pg_url, catalog, "other")
    waiter.join(30)
    reply = result["reply"]
    body = reply.json()
    assert reply.status_code == 200 and body["changed"] is True and body["full"] is False
    assert body["version"] == 2 and body["removed"] == ["tool0007"]
    assert [t["name"] for t in body["catalog"]["tools"]] == ["tool0003"]
    assert time.monotonic() - pushed_at < 2.0 and result["seconds"] < 10  # woken by NOTIFY, not the 20 s wait
    idle = httpx.get(api.url("other", "changes"), params={"since": 2, "wait": 0.2}, headers=bearer(key))
    assert idle.json()["changed"] is False and idle.json()["version"] == 2
    full = httpx.get(api.url("other", "changes"), params={"since": 0, "wait": 0}, headers=bearer(key)).json()
    assert full["full"] is True and len(full["catalog"]["tools"]) == 19


def test_server_sent_events_announce_each_version(api, pg_url):
    events: list[dict] = []

    def listen() -> None:
        with httpx.stream("GET", api.url("other", "events"), headers=bearer(api.keys["other_read"]), timeout=30) as s:
            assert s.headers["content-type"].startswith("text/event-stream")
            for line in s.iter_lines():
                if line.startswith("data: "):
                    events.append(json.loads(line[6:]))
                    if len(events) == 2:
                        return

    listener = threading.Thread(target=listen)
    listener.start()
    deadline = time.monotonic() + 10
    while not events and time.monotonic() < deadline:
        time.sleep(0.05)
    store.push(pg_url, numbered(21), "other")
    listener.join(15)
    assert [e["version"] for e in events] == [1, 2] and events[1]["etag"].startswith('"2-')


def test_the_https_source_loads_and_follows_the_namespace(api, pg_url, monkeypatch):
    from toolsearch_cli.catalog.sources import parse_source
    from toolsearch_cli.registry.http_source import HttpRegistrySource

    monkeypatch.setenv("TOOLSEARCH_REGISTRY_TOKEN", f"other={api.keys['other_read']},demo={api.keys['demo_read']}")
    source = parse_source(f"team={api.url('other')}")
    assert isinstance(source, HttpRegistrySource) and source.namespace == "other" and source.alias == "team"
    snap = source.snapshot()
    assert snap.version == 1 and [t.name for t in snap.tools] == [f"tool{i:04d}" for i in range(20)]
    assert {t.category for t in snap.tools} == {"team"}
    got: list = []
    watcher = source.follow(
        got.append, version=snap.version, resident_json=snap.resident_json, groups_json=snap.groups_json
    )
    try:
        deadline = time.monotonic() + 10
        while watcher.status != "live":
            assert time.monotonic() < deadline, watcher.status
            time.sleep(0.02)
        catalog = Catalog(tools=[sample("tool0000", "changed over http"), *numbered(20).tools[1:]])
        pushed = time.monotonic()
        store.push(pg_url, catalog, "other")
        while not got:
            assert time.monotonic() - pushed < 5, watcher.status
            time.sleep(0.01)
        latency = time.monotonic() - pushed
        change = got[0]
        assert change.version == 2 and [t.description for t in change.upsert] == ["changed over http"]
        assert change.full is None and change.removed == [] and watcher.version == 2
        assert latency < 1.0, latency
        store.push(pg_url, Catalog(tools=numbered(20).tools, resident=["tool0001"]), "other")  # resident: whole
        while len(got) < 2:
            assert time.monotonic() - pushed < 10, watcher.status
            time.sleep(0.01)
        assert got[1].full is not None and got[1].full.resident == ["tool0001"] and got[1].version == 3
    finally:
        watcher.stop()
    assert not watcher._thread.is_alive()


def test_search_through_the_https_source_matches_the_file(api):
    token = api.keys["demo_read"]
    via_http = run_toolsearch(
        "search", "查询城市天气", "-c", api.url("demo"), "-f", "json", TOOLSEARCH_REGISTRY_TOKEN=token
    )
    via_file = run_toolsearch("search", "查询城市天气", "-c", str(DEMO), "-f", "json")
    assert via_http.code == 0, via_http.stderr
    ranked = [(h["name"], h["score"]) for h in via_http.json()["hits"]]
    assert ranked and ranked == [(h["name"], h["score"]) for h in via_file.json()["hits"]]
    assert token not in via_http.stdout + via_http.stderr
    no_token = run_toolsearch("search", "x", "-c", api.url("demo"))
    assert no_token.code == 2 and "needs a token" in no_token.stderr and len(no_token.stderr.splitlines()) == 1
    wrong = run_toolsearch("search", "x", "-c", api.url("other"), TOOLSEARCH_REGISTRY_TOKEN=token)
    assert wrong.code == 2 and "refused the token" in wrong.stderr and token not in wrong.stderr


@pytest.mark.parametrize(
    ("source", "words"),
    [
        ("http://registry.example.com/v1/namespaces/a", "plain http:// to another machine"),
        ("https://ci:S3cr3tTok@registry.example.com/v1/namespaces/a", "carries credentials"),
        ("https://registry.example.com/v1/namespaces/a?x=1", "query or fragment"),
        ("https://registry.example.com/v1/namespaces/bad name", "blank"),
        ("https://registry.example.com:99999/v1/namespaces/a", "bad host or port"),
        ("https://registry.example.com/v1/namespaces/", "invalid namespace"),
    ],
)
def test_bad_https_sources_are_one_line_errors_that_mask_credentials(run_cli, source, words):
    result = run_cli("search", "x", "-c", source)
    assert result.code == 2 and words in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert "S3cr3tTok" not in result.stderr + result.stdout


def test_openapi_document_is_valid_and_describes_every_route(api):
    from openapi_spec_validator import validate

    reply = httpx.get(f"{api.root}/openapi.json")
    assert reply.status_code == 200
    document = reply.json()
    validate(document)
    assert set(document["paths"]) == {
        "/healthz",
        "/openapi.json",
        "/v1/namespaces/{namespace}",
        "/v1/namespaces/{namespace}/-/search",
        "/v1/namespaces/{namespace}/-/changes",
        "/v1/namespaces/{namespace}/-/events",
    }
    assert httpx.get(f"{api.root}/healthz").json() == {"status": "ok"}


def test_registry_serve_runs_from_the_command_line(pg_url):
    import subprocess
    import sys

    from ..conftest import TOOLSEARCH, clean_env

    store.push(pg_url, numbered(3), "cli")
    token = mint(pg_url, "cli", "read")
    port = pg.free_port()
    process = subprocess.Popen(
        [*TOOLSEARCH, "registry", "serve", "--db", pg_url, "--http", f"127.0.0.1:{port}", "--access-log"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=clean_env(),
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                reply = httpx.get(f"http://127.0.0.1:{port}/v1/namespaces/cli", headers=bearer(token))
                break
            except httpx.TransportError:
                assert process.poll() is None and time.monotonic() < deadline, process.stderr.read()
                time.sleep(0.1)
        assert reply.status_code == 200 and len(reply.json()["tools"]) == 3
    finally:
        process.terminate()
        out, err = process.communicate(timeout=20)
    assert pg.PASSWORD not in out + err and f"127.0.0.1:{port}" in err
    assert "Traceback" not in err and token not in err
    assert '"GET /v1/namespaces/cli HTTP/1.1" 200' in out and token not in out  # --access-log, on stdout
    del sys


@pytest.mark.parametrize(
    ("extra", "client"),
    [
        ((), "127.0.0.1"),  # uvicorn's default believed any local process: the log said 203.0.113.7
        (("--forwarded-allow-ips", "192.0.2.0/24,::1"), "127.0.0.1"),  # loopback (IPv4) is not listed
        (("--forwarded-allow-ips", "127.0.0.1"), "203.0.113.7"),  # the operator's proxy
    ],
)
def test_registry_serve_believes_forwarded_headers_only_from_the_proxies_named(pg_url, extra, client):
    """A request from loopback with X-Forwarded-For: the access log names the real peer unless
    --forwarded-allow-ips lists it as a proxy; $FORWARDED_ALLOW_IPS (uvicorn's) is not read."""
    import subprocess

    from ..conftest import TOOLSEARCH, clean_env

    store.push(pg_url, numbered(2), "fwd")
    token = mint(pg_url, "fwd", "read")
    port = pg.free_port()
    command = [*TOOLSEARCH, "registry", "serve", "--db", pg_url, "--http", f"127.0.0.1:{port}", "--access-log"]
    process = subprocess.Popen(
        [*command, *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**clean_env(), "FORWARDED_ALLOW_IPS": "*"},
    )
    headers = {**bearer(token), "X-Forwarded-For": "203.0.113.7"}
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                reply = httpx.get(f"http://127.0.0.1:{port}/v1/namespaces/fwd", headers=headers)
                break
            except httpx.TransportError:
                assert process.poll() is None and time.monotonic() < deadline, process.stderr.read()
                time.sleep(0.1)
        assert reply.status_code == 200
    finally:
        process.terminate()
        out, _ = process.communicate(timeout=20)
    (line,) = [line for line in out.splitlines() if "GET /v1/namespaces/fwd" in line]
    assert f"{client}:" in line and ("203.0.113.7" in line) == (client == "203.0.113.7"), line


def test_registry_serve_refuses_a_database_without_tokens_in_one_line(run_cli, pg_url):
    store.push(pg_url, numbered(2), "x")
    result = run_cli("registry", "serve", "--db", pg_url, "--http", f"127.0.0.1:{pg.free_port()}")
    assert (
        result.code == 2
        and "make one with `toolsearch registry token create`" in result.stderr
        and pg.PASSWORD not in result.stderr
    )
    assert len(result.stderr.strip().splitlines()) == 1


def test_toolsearch_serve_follows_an_https_source(api, pg_url, monkeypatch, tmp_path):
    """``toolsearch serve -c http://…/namespaces/other`` (a real gateway process, the official MCP
    client over stdio): a push reaches it without a restart, and it says nothing while following.
    Only callable tools are shown (issue 34): the namespace's tools run on an upstream that lists
    them (``--catalog-via run``, tests/servers/scripted_server.py)."""
    import tempfile

    import anyio
    from mcp import Client
    from mcp.client.stdio import stdio_client

    from ..serve_helpers import json_of, scripted_source, stdio_params

    runs = [*(f"tool{i:04d}" for i in range(20)), "translate_text"]
    runner = scripted_source("run", [{"name": n, "inputSchema": {"type": "object"}} for n in runs], tmp_path)

    monkeypatch.setenv("TOOLSEARCH_REGISTRY_TOKEN", api.keys["other_read"])
    errlog = tempfile.TemporaryFile(mode="w+", encoding="utf-8")

    def names(result) -> list[str]:
        return [t["name"] for t in json_of(result).get("tools", [])]

    async def scenario() -> None:
        params = stdio_params([api.url("other"), runner], "--catalog-via", "run")
        async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=60, mode="legacy") as gateway:
            first = await gateway.call_tool("toolSearch", {"query": "alpha task family", "maxResults": 3})
            assert len(names(first)) == 3 and all(n.startswith("tool00") for n in names(first))
            ran = await gateway.call_tool("callTool", {"name": names(first)[0], "arguments": {}})
            assert not ran.is_error and json_of(ran)["tool"] == names(first)[0]  # run by the upstream
            before = await gateway.call_tool("toolSearch", {"query": "translate text into a language"})
            assert "Translate text into a language" not in str(json_of(before))  # the runner's own entry only
            catalog = Catalog(tools=[*numbered(20).tools, sample("translate_text", "Translate text into a language")])
            await anyio.to_thread.run_sync(lambda: store.push(pg_url, catalog, "other"))
            pushed = time.monotonic()
            while time.monotonic() - pushed < 60:
                found = await gateway.call_tool("toolSearch", {"query": "translate text into a language"})
                if "Translate text into a language" in str(json_of(found)):  # the namespace's text
                    print(f"pushed tool found {(time.monotonic() - pushed) * 1000:.0f} ms after the push")
                    return
                await anyio.sleep(0.05)
            raise AssertionError("the pushed tool did not reach the gateway in 60 s")

    anyio.run(scenario)
    errlog.seek(0)
    said = errlog.read()
    assert said == "" and api.keys["other_read"] not in said


def test_the_memory_kept_per_namespace_is_bounded(pg_url):
    for name in ("a", "b", "c"):
        store.push(pg_url, numbered(30, name), name)
    keys = {name: mint(pg_url, name, "read") for name in ("a", "b", "c")}
    server = Server(pg_url, cache_bytes=6000)
    try:
        for name in ("a", "b", "c"):
            reply = httpx.get(server.url(name), headers=bearer(keys[name]))
            assert reply.status_code == 200 and len(reply.content) > 3000
        assert list(server.api._cache) == ["c"]  # each body is over half the budget: only the last is kept
        again = httpx.get(server.url("a"), headers=bearer(keys["a"]))
        assert again.status_code == 200 and len(again.json()["tools"]) == 30
    finally:
        server.stop()


def test_waiting_requests_answer_when_the_server_stops(pg_url, capfd):
    """A long poll pending at shutdown is answered ('changed': false) at its next check, so the
    server stops in about a poll interval, not after the grace period with a cancelled task."""
    store.push(pg_url, numbered(3), "w")
    key = mint(pg_url, "w", "read")
    server = Server(pg_url)
    replies: list = []

    def poll() -> None:
        replies.append(
            httpx.get(server.url("w", "changes"), params={"since": 1, "wait": 30}, headers=bearer(key), timeout=40)
        )

    waiter = threading.Thread(target=poll)
    waiter.start()
    time.sleep(1.0)
    began = time.monotonic()
    server.stop()
    stopped = time.monotonic() - began
    waiter.join(10)
    assert replies and replies[0].status_code == 200 and replies[0].json()["changed"] is False
    assert stopped < 4, stopped
    assert "CancelledError" not in capfd.readouterr().err


@pytest.mark.parametrize(
    "body",
    [
        '{"name":"tool0001","description":"x"}],"resident":["evil"],"groups":[{"a":[{"name":"tool0001"}',
        "not json",
        "[1,2,3]",
        '{"name":"someone_else","description":"x"}',
        "[" * 200 + "]" * 200,
    ],
)
def test_a_row_edited_by_hand_is_refused_not_spliced_into_the_document(pg_url, pg_cluster, body):
    store.push(pg_url, numbered(3), "edited")
    key = mint(pg_url, "edited", "read")
    db = pg_url.rsplit("/", 1)[1]
    literal = body.replace("'", "''")
    pg_cluster.sql(f"UPDATE toolsearch_tools SET body = '{literal}' WHERE name = 'tool0001'", db=db)
    server = Server(pg_url)
    try:
        reply = httpx.get(server.url("edited"), headers=bearer(key))
        assert reply.status_code == 500 and "tool0001" in reply.json()["error"], reply.text
        assert "\n" not in reply.json()["error"]
    finally:
        server.stop()


def test_replies_match_the_schemas_the_openapi_document_gives(api):
    """The document is not only valid: each reply's status is one it lists for the operation, and
    each JSON body validates against the schema it gives (JSON Schema 2020-12, as OAS 3.1 says)."""
    from jsonschema import Draft202012Validator
    from referencing import Registry
    from referencing.jsonschema import DRAFT202012

    from toolsearch_cli.registry.http_api import openapi_document

    document = openapi_document()
    registry = Registry().with_resource("urn:api", DRAFT202012.create_resource(document))

    def check(path: str, method: str, reply: httpx.Response) -> None:
        responses = document["paths"][path][method]["responses"]
        assert str(reply.status_code) in responses, (path, method, reply.status_code)
        content = responses[str(reply.status_code)].get("content", {})
        if "application/json" in content:
            pointer = json.dumps(content["application/json"]["schema"])
            schema = json.loads(pointer.replace('"#/components', '"urn:api#/components'))
            Draft202012Validator(schema, registry=registry).validate(reply.json())

    read, push = bearer(api.keys["demo_read"]), api.keys["demo_push"]
    ns, search, changes = (
        "/v1/namespaces/{namespace}",
        "/v1/namespaces/{namespace}/-/search",
        "/v1/namespaces/{namespace}/-/changes",
    )
    check(ns, "get", httpx.get(api.url("demo"), headers=read))
    check(ns, "get", httpx.get(api.url("demo")))
    check(ns, "get", httpx.get(api.url("other"), headers=read))
    check(ns, "put", put(api, "demo", doc_of(numbered(4)), push))
    check(ns, "put", put(api, "demo", doc_of(numbered(4)), push, params={"expect_version": 1}))
    check(ns, "put", put(api, "demo", {"tools": []}, push))
    check(search, "get", httpx.get(api.url("demo", "search"), params={"q": "alpha task"}, headers=read))
    check(search, "get", httpx.get(api.url("demo", "search"), headers=read))
    check(changes, "get", httpx.get(api.url("demo", "changes"), params={"since": 1, "wait": 0}, headers=read))
    check(changes, "get", httpx.get(api.url("demo", "changes"), params={"since": 2, "wait": 0}, headers=read))
    check("/healthz", "get", httpx.get(f"{api.root}/healthz"))


def test_a_namespace_dropped_and_pushed_again_reaches_a_follower_at_the_same_version(
    api, pg_url, pg_cluster, monkeypatch
):
    """Pushed again after a drop, a namespace starts over at version 1, the very version a follower
    holds: the follower's poll names its ETag, so the server sees other content and sends it whole."""
    from toolsearch_cli.catalog.sources import parse_source

    token = api.keys["other_read"]
    source = parse_source(api.url("other"))
    got: list = []
    monkeypatch.setenv("TOOLSEARCH_REGISTRY_TOKEN", token)
    snap = source.snapshot()
    watcher = source.follow(got.append, version=snap.version, etag=snap.digest)
    try:
        deadline = time.monotonic() + 10
        while watcher.status != "live":
            assert time.monotonic() < deadline, watcher.status
            time.sleep(0.02)
        pg_cluster.sql("DELETE FROM toolsearch_namespaces WHERE name = 'other'", db=pg_url.rsplit("/", 1)[1])
        store.push(pg_url, numbered(5, "beta"), "other")
        assert store.read_snapshot(f"{pg_url}?namespace=other").version == snap.version == 1
        deadline = time.monotonic() + 15
        while not got:
            assert time.monotonic() < deadline, ("the follower never saw the new content", watcher.status)
            time.sleep(0.02)
    finally:
        watcher.stop()
    assert got[0].full is not None and [t.name for t in got[0].full.tools] == [f"tool{i:04d}" for i in range(5)]
    assert "beta" in got[0].full.tools[0].description and watcher.etag == got[0].full.digest != snap.digest


def test_registry_serve_refuses_a_schema_it_does_not_know(run_cli, pg_url, pg_cluster):
    store.push(pg_url, numbered(2), "x")
    mint(pg_url, "x", "read")
    pg_cluster.sql("UPDATE toolsearch_meta SET value = '99' WHERE key = 'schema_version'", db=pg_url.rsplit("/", 1)[1])
    result = run_cli("registry", "serve", "--db", pg_url, "--http", f"127.0.0.1:{pg.free_port()}")
    assert result.code == 2 and "schema version 99, newer than this toolsearch knows" in result.stderr
    empty = pg_cluster.create_database("t_serve_empty_schema")
    nothing = run_cli("registry", "serve", "--db", empty, "--http", f"127.0.0.1:{pg.free_port()}")
    assert nothing.code == 2 and "no toolsearch registry" in nothing.stderr and pg.PASSWORD not in nothing.stderr
