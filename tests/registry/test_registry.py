"""The shared PostgreSQL registry (issue 23) against a real throwaway cluster (tests/pg_cluster.py):
push and read through the CLI, identical rankings, concurrency, atomicity and live sync."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from tests import pg_cluster as pg
from toolsearch_cli import load_catalog
from toolsearch_cli.errors import CatalogError
from toolsearch_cli.model import Catalog
from toolsearch_cli.registry import store
from toolsearch_cli.registry.source import parse_registry_source
from toolsearch_cli.registry.testing import sample

from ..conftest import DEMO, ROOT, SHARED, clean_env


def ns(url: str, namespace: str) -> str:
    return f"{url}?namespace={namespace}"


def same_tools(a: Catalog | list, b: Catalog | list) -> bool:
    """Equal tools, in order, apart from where each was read (file:line or the registry)."""
    tools_a = a.tools if isinstance(a, Catalog) else a
    tools_b = b.tools if isinstance(b, Catalog) else b
    return [t.copy_with(source=None) for t in tools_a] == [t.copy_with(source=None) for t in tools_b]


def numbered(n: int, word: str = "alpha") -> Catalog:
    return Catalog(tools=[sample(f"tool{i:04d}", f"{word} task number {i} of the {word} family") for i in range(n)])


# -- push and read through the CLI ------------------------------------------------------------


def test_push_then_search_reads_the_registry_like_the_files(run_cli, pg_url):
    first = run_cli("catalog", "push", "--to", pg_url, "--namespace", "demo")
    assert (first.code, first.stderr) == (0, "")
    assert "version 1 (64 added, 0 changed, 0 removed, 0 unchanged)" in first.stdout
    assert pg.PASSWORD not in first.stdout and "***@127.0.0.1" in first.stdout
    again = run_cli("catalog", "push", "--to", pg_url, "-n", "demo")
    assert again.code == 0 and "unchanged at version 1 (64 tools)" in again.stdout
    from_registry = run_cli("search", "查询城市天气", "-c", ns(pg_url, "demo"), "--format", "json")
    from_files = run_cli("search", "查询城市天气", "--format", "json")
    assert from_registry.code == from_files.code == 0, from_registry.stderr
    assert [h["name"] for h in from_registry.json()["hits"]] == [h["name"] for h in from_files.json()["hits"]]
    assert [h["score"] for h in from_registry.json()["hits"]] == [h["score"] for h in from_files.json()["hits"]]
    assert pg.PASSWORD not in from_registry.stdout + from_registry.stderr


def test_dry_run_shows_the_diff_and_writes_nothing(run_cli, pg_url, write):
    assert run_cli("catalog", "push", "--to", pg_url, "-n", "d", "-c", str(DEMO / "weather.yaml")).code == 0
    changed = write(
        "w.yaml",
        "tools:\n  - name: getWeather\n    description: Tide tables\n  - name: newTool\n    description: New one\n",
    )
    result = run_cli("catalog", "push", "--to", pg_url, "-n", "d", "-c", str(changed), "--dry-run")
    assert result.code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert "is at version 1; pushing would change: 1 added, 1 changed," in lines[0]
    assert "  + newTool" in lines and "  ~ getWeather" in lines
    assert any(line.startswith("  - ") for line in lines)
    snap = store.read_snapshot(ns(pg_url, "d"))
    assert snap.version == 1 and same_tools(snap.tools, load_catalog(str(DEMO / "weather.yaml")))
    as_json = run_cli("catalog", "push", "--to", pg_url, "-n", "d", "-c", str(changed), "--dry-run", "-f", "json")
    assert as_json.json()["added"] == ["newTool"] and as_json.json()["version"] is None


def test_a_push_writes_only_what_changed(pg_url):
    catalog = numbered(50)
    store.push(pg_url, catalog, "n")
    tools = list(catalog.tools)
    tools[3] = tools[3].copy_with(description="changed words entirely")
    del tools[7]
    tools.append(sample("extra", "an extra tool"))
    plan = store.push(pg_url, Catalog(tools=tools), "n")
    assert (plan.version, plan.added, plan.changed, plan.removed, plan.unchanged) == (
        2, ["extra"], ["tool0003"], ["tool0007"], 48
    )  # fmt: skip
    psycopg = pytest.importorskip("psycopg")
    with psycopg.connect(pg_url) as conn:
        versions = dict(conn.execute("SELECT name, version FROM toolsearch_tools WHERE namespace = 'n'").fetchall())
        log = conn.execute(
            "SELECT version, name, kind FROM toolsearch_changes WHERE version = 2 ORDER BY name"
        ).fetchall()
    assert versions["tool0000"] == 1 and versions["tool0003"] == 2 and versions["extra"] == 2  # untouched rows keep v1
    assert log == [(2, "extra", "added"), (2, "tool0003", "changed"), (2, "tool0007", "removed")]
    assert same_tools(store.read_snapshot(ns(pg_url, "n")).tools, tools)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("postgresql://127.0.0.1:1/db?namespace=x", "cannot connect to the registry postgresql://127.0.0.1:1/db"),
        ("postgresql://127.0.0.1:1/db", "names no namespace: add ?namespace=NAME"),
        ("postgresql://127.0.0.1:1/db?namespace=bad%20name", "invalid namespace 'bad name'"),
    ],
)
def test_bad_registry_sources_are_one_line_errors(run_cli, source, expected):
    result = run_cli("search", "weather", "-c", source)
    assert result.code == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and expected in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def test_missing_namespace_and_wrong_password_mask_the_password(run_cli, pg_url, pg_cluster):
    store.push(pg_url, numbered(2), "present")
    missing = run_cli("lint", ns(pg_url, "absent"))
    assert (
        missing.code == 2 and "no namespace 'absent'" in missing.stderr and "did you mean 'present'" in missing.stderr
    )
    wrong = pg_url.replace(pg.PASSWORD, "Wrong-Passw0rd-1234")
    denied = run_cli("search", "alpha", "-c", ns(wrong, "present"))
    assert denied.code == 2 and "password authentication failed" in denied.stderr
    for text in (missing.stdout + missing.stderr, denied.stdout + denied.stderr):
        assert pg.PASSWORD not in text and "Wrong-Passw0rd-1234" not in text
    assert denied.stderr.count("\n") == 1


def test_password_from_pgpassword_only(run_cli, pg_url, monkeypatch):
    bare = pg_url.replace(f":{pg.PASSWORD}@", "@")
    store.push(pg_url, numbered(3), "env")
    refused = run_cli("search", "alpha", "-c", ns(bare, "env"))
    assert refused.code == 2 and "no password supplied" in refused.stderr
    monkeypatch.setenv("PGPASSWORD", pg.PASSWORD)
    found = run_cli("search", "alpha family", "-c", ns(bare, "env"), "-f", "json")
    assert found.code == 0, found.stderr
    assert len(found.json()["hits"]) == 3


def test_registry_source_with_alias_and_env_variable(run_cli, pg_url, monkeypatch):
    store.push(pg_url, numbered(3), "a")
    monkeypatch.setenv("TOOLSEARCH_CATALOG", f"{DEMO / 'weather.yaml'}:reg={ns(pg_url, 'a')}")
    result = run_cli("catalog", "-f", "json")
    assert result.code == 0, result.stderr
    payload = result.json()
    assert any(s.startswith("reg=postgresql://***@127.0.0.1") for s in payload["sources"])
    assert {t["category"] for t in payload["tools"] if t["name"].startswith("tool")} == {"reg"}
    assert pg.PASSWORD not in result.stdout


def test_expect_version_refuses_a_stale_push(run_cli, pg_url):
    assert run_cli("catalog", "push", "--to", pg_url, "-n", "e", "--expect-version", "0").code == 0
    stale = run_cli("catalog", "push", "--to", pg_url, "-n", "e", "--expect-version", "0")
    assert stale.code == 2 and "is at version 1, not 0: someone pushed first" in stale.stderr


def test_rows_are_validated_like_files(pg_url):
    """A row edited behind toolsearch's back is input like any file: a one-line error, not a crash."""
    store.push(pg_url, numbered(2), "h")
    psycopg = pytest.importorskip("psycopg")
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(
            """UPDATE toolsearch_tools SET body = '{"name":"tool0001","parameters":7}' WHERE name = 'tool0001'"""
        )
    with pytest.raises(CatalogError) as info:
        store.read_snapshot(ns(pg_url, "h"))
    assert "tool0001" in str(info.value) and "parameters" in str(info.value)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("""UPDATE toolsearch_tools SET body = '{"name": "other"}' WHERE name = 'tool0001'""")
    with pytest.raises(CatalogError, match="does not hold the tool its name says"):
        store.read_snapshot(ns(pg_url, "h"))


# -- identical rankings ---------------------------------------------------------------------------


def _queries_of(catalog: Catalog, limit: int = 40) -> list[str]:
    queries = []
    for tool in catalog.tools[:limit]:
        queries.append(" ".join(tool.description.split()[:6]) or tool.name)
        queries.extend(tool.examples[:1])
    return [q for q in queries if q.strip()]


def _rankings(catalog: Catalog, queries: list[str]) -> list[list[tuple[str, float]]]:
    from toolsearch_cli.errors import SearchError
    from toolsearch_cli.search import get_ranker
    from toolsearch_cli.search.base import SearchRequest

    ranker = get_ranker("default")
    out = []
    for query in queries:
        try:
            hits = ranker.search(catalog, SearchRequest(query=query, max_results=10, explain=False))
        except SearchError:
            out.append([])
            continue
        out.append([(h.name, round(h.score, 9)) for h in hits])
    return out


def _assert_same_rankings(pg_url: str, source: str, namespace: str, queries: list[str] | None = None) -> None:
    from_file = load_catalog(source)
    store.push(pg_url, from_file, namespace)
    from_registry = load_catalog(ns(pg_url, namespace))
    assert same_tools(from_file, from_registry)
    assert from_registry.resident == from_file.resident
    queries = queries or _queries_of(from_file)
    assert _rankings(from_file, queries) == _rankings(from_registry, queries)


def test_shipped_catalogs_rank_identically_from_the_registry(pg_url):
    _assert_same_rankings(pg_url, str(ROOT / "catalogs"), "shipped")


@pytest.mark.shared
@pytest.mark.parametrize(
    "name", ["bfcl_static", "metatool", "seal_tools", "toolbench_g3", "ultratool_en", "ultratool_zh"]
)
def test_dev_sets_rank_identically_from_the_registry(pg_url, name):
    from toolsearch_cli.evaluate import load_queries

    root = SHARED / "eval" / name
    queries = [q.query for q in load_queries(str(root / "queries.yaml"))][:150]
    _assert_same_rankings(pg_url, str(root / "catalog.yaml"), name, queries)


# -- concurrency and atomicity --------------------------------------------------------------------


def test_concurrent_pushes_one_wins_the_other_fails_clearly(pg_url):
    store.push(pg_url, numbered(20), "c")
    results: list[object] = []
    barrier = threading.Barrier(2)

    def pusher(word: str) -> None:
        barrier.wait()
        try:
            results.append(store.push(pg_url, numbered(20, word), "c", expect_version=1))
        except store.PushConflict as exc:
            results.append(exc)

    threads = [threading.Thread(target=pusher, args=(w,)) for w in ("beta", "gamma")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    wins = [r for r in results if isinstance(r, store.PushPlan)]
    losses = [r for r in results if isinstance(r, store.PushConflict)]
    assert len(wins) == 1 and len(losses) == 1
    assert "is at version 2, not 1: someone pushed first" in str(losses[0])
    snap = store.read_snapshot(ns(pg_url, "c"))
    assert snap.version == 2 and len(snap.tools) == 20


def test_concurrent_pushes_without_a_version_are_serialised(pg_url):
    """Without --expect-version the later push waits for the row lock and diffs against the winner."""
    store.push(pg_url, numbered(20), "s")
    plans: list[store.PushPlan] = []
    threads = [
        threading.Thread(target=lambda w=w: plans.append(store.push(pg_url, numbered(20, w), "s")))
        for w in ("beta", "gamma")
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(p.version for p in plans) == [2, 3]
    assert all(len(p.changed) == 20 for p in plans)
    last = max(plans, key=lambda p: p.version or 0)
    word = "beta" if "beta" in store.read_snapshot(ns(pg_url, "s")).tools[0].description else "gamma"
    assert same_tools(store.read_snapshot(ns(pg_url, "s")).tools, numbered(20, word)) and last.version == 3


def test_32_readers_during_a_push_see_old_or_new_never_a_mix(pg_url):
    old, new = numbered(300, "alpha"), numbered(300, "omega")
    new = Catalog(tools=[*new.tools[:250], *(sample(f"fresh{i}", "fresh tool") for i in range(40))])
    store.push(pg_url, old, "r")
    expected = {
        1: [(t.name, t.description) for t in old.tools],
        2: [(t.name, t.description) for t in new.tools],
    }
    stop = threading.Event()
    seen: list[tuple[int, bool]] = []
    errors: list[BaseException] = []
    source = parse_registry_source(ns(pg_url, "r"))

    def reader() -> None:
        try:
            with store.connect(source) as conn:
                while not stop.is_set():
                    snap = store.read_snapshot_on(conn, source)
                    seen.append((snap.version, [(t.name, t.description) for t in snap.tools] == expected[snap.version]))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    readers = [threading.Thread(target=reader) for _ in range(32)]
    for t in readers:
        t.start()

    def until_read(version: int) -> None:  # a reader saw it (not a fixed sleep: a loaded machine is slow)
        deadline = time.monotonic() + 60
        while not any(v == version for v, _ in seen) and not errors and time.monotonic() < deadline:
            time.sleep(0.01)

    until_read(1)
    store.push(pg_url, new, "r", before_commit=lambda conn: time.sleep(0.5))  # a wide window before the commit
    until_read(2)
    stop.set()
    for t in readers:
        t.join(60)
    assert not errors, errors[:3]
    assert all(ok for _, ok in seen)
    versions = {v for v, _ in seen}
    assert versions == {1, 2}, versions


KILLED_PUSH = """
import sys, time
from toolsearch_cli.model import Catalog
from toolsearch_cli.registry import store
from toolsearch_cli.registry.testing import sample
tools = [sample(f"tool{i:04d}", f"omega task {i}") for i in range(100)]
def hold(conn):
    print("in-transaction", flush=True)
    time.sleep(60)
store.push(sys.argv[1], Catalog(tools=tools), "k", before_commit=hold)
"""


def test_a_push_killed_mid_transaction_leaves_the_registry_unchanged(pg_url):
    store.push(pg_url, numbered(100), "k")
    before = store.read_snapshot(ns(pg_url, "k"))
    child = subprocess.Popen(
        [sys.executable, "-c", KILLED_PUSH, pg_url],
        stdout=subprocess.PIPE,
        text=True,
        env=clean_env(PYTHONPATH=str(ROOT)),
        cwd=ROOT,
    )
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "in-transaction"
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.wait(30)
    after = store.read_snapshot(ns(pg_url, "k"))
    assert (after.version, after.digest) == (before.version, before.digest)
    assert same_tools(after.tools, before.tools)
    assert store.push(pg_url, numbered(100, "omega"), "k").version == 2  # no lock was left behind


# -- live sync --------------------------------------------------------------------------------------


def _names(ts, query: str) -> list[str]:
    request = ts.request([{"role": "user", "content": query}])
    handled = ts.handle("toolSearch", {"query": query, "maxResults": 5}, request)
    content = json.loads(handled.content)
    return content if isinstance(content, list) else content["names"]


def test_two_nodes_converge_on_a_push_in_place(pg_url):
    from toolsearch_cli.registry.sync import LiveToolSearch

    store.push(pg_url, load_catalog(str(DEMO)), "live")
    with LiveToolSearch(ns(pg_url, "live")) as a, LiveToolSearch(ns(pg_url, "live"), poll_interval=0.2) as b:
        assert _names(a, "tide tables for a harbour") == []
        catalog = load_catalog(str(DEMO))
        tools = [t for t in catalog.tools if t.name != "getAirQuality"]
        tools = [t.copy_with(description="Tide tables for a harbour") if t.name == "getWeather" else t for t in tools]
        tools.append(sample("getSunrise", "Sunrise and sunset times for a harbour"))
        started = time.monotonic()
        plan = store.push(pg_url, Catalog(tools=tools, resident=catalog.resident, groups=catalog.groups), "live")
        assert a.wait_for(plan.version, 60) and b.wait_for(plan.version, 60)  # a hang's bound; the time is printed
        print(f"two nodes converged in {time.monotonic() - started:.3f} s")
        for node in (a, b):
            assert node.applied == 1 and node.rebuilt == 0  # in place, no rebuild
            assert _names(node, "tide tables for a harbour")[:2] == ["getWeather", "getSunrise"]
            assert "getAirQuality" not in node.engine.catalog and node.engine.manager.resolve("getAirQuality") is None
        fresh = LiveToolSearch(ns(pg_url, "live"), start=False)  # rankings equal to a fresh load
        for query in ("tide harbour", "air quality index", "weather forecast city", "sunrise"):
            assert _names(a, query) == _names(fresh, query)
        # the all-tools baseline follows: the same tools; tokens adjusted per tool, not re-counted
        assert sorted(t.name for t in a.engine.baseline_tools) == sorted(t.name for t in fresh.engine.baseline_tools)
        assert abs(a.engine.baseline_tool_tokens - fresh.engine.baseline_tool_tokens) <= 6


def test_a_node_that_loses_the_registry_keeps_serving_and_says_so(pg_url, pg_cluster):
    from toolsearch_cli.registry.sync import LiveToolSearch

    store.push(pg_url, load_catalog(str(DEMO)), "lost")
    statuses: list[str] = []
    with LiveToolSearch(ns(pg_url, "lost"), poll_interval=0.1, on_status=statuses.append) as node:
        deadline = time.monotonic() + 60
        while node.status != "live" and time.monotonic() < deadline:
            time.sleep(0.02)
        before = _names(node, "weather forecast")
        pg_cluster.sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'toolsearch'")
        deadline = time.monotonic() + 60
        while not any(s.startswith("disconnected") for s in statuses) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert any(s.startswith("disconnected") and "serving version 1" in s for s in statuses), statuses
        assert _names(node, "weather forecast") == before  # the last good catalog still answers
        plan = store.push(pg_url, numbered(3), "lost")  # it reconnects and catches up
        assert node.wait_for(plan.version, 60)
        assert node.status == "live" and statuses[-1] == "live"
        assert _names(node, "alpha family task") != []


def test_a_replica_node_follows_the_primary(pg_cluster, pg_url):
    """CI publishes to the primary; a node reads a streaming replica (no NOTIFY there: the poll)."""
    from toolsearch_cli.registry.sync import LiveToolSearch

    store.push(pg_url, numbered(10), "rep")
    replica = pg_cluster.replica()
    replica_url = replica.url(pg_url.rsplit("/", 1)[1])
    deadline = time.monotonic() + 60
    while True:
        try:
            node = LiveToolSearch(ns(replica_url, "rep"), poll_interval=0.2)
            break
        except store.RegistryError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
    with node:
        plan = store.push(pg_url, numbered(12, "omega"), "rep")
        assert node.wait_for(plan.version, 60)  # replication, then the poll: a hang's bound
        assert node.watcher.listening is False
        assert _names(node, "omega family task 11")[0] == "tool0011"
        psycopg = pytest.importorskip("psycopg")
        with psycopg.connect(replica_url, autocommit=True) as conn:
            assert conn.execute("SELECT pg_is_in_recovery()").fetchone() == (True,)
        with pytest.raises(store.RegistryError, match="read-only"):
            store.push(replica_url, numbered(1), "rep")


# -- every command and the library read it ---------------------------------------------------------


def test_eval_simulate_and_the_library_read_the_registry(run_cli, pg_url, write):
    from toolsearch_cli.agent import ToolSearch

    store.push(pg_url, load_catalog(str(DEMO)), "demo")
    source = ns(pg_url, "demo")
    queries = write(
        "q.yaml",
        "- {id: a, query: weather forecast for Paris, relevant: [getWeather]}\n"
        "- {id: b, query: send an email to my boss, relevant: [sendEmail]}\n",
    )
    from_registry = run_cli("eval", "-c", source, "-q", str(queries), "-f", "json")
    from_files = run_cli("eval", "-c", str(DEMO), "-q", str(queries), "-f", "json")
    assert from_registry.code == from_files.code == 0, from_registry.stderr
    metrics = [
        {k: v for k, v in result.json()["rankers"]["default"].items() if k != "ms_per_query"}
        for result in (from_registry, from_files)
    ]
    assert metrics[0] == metrics[1] and metrics[0]["queries"] == 2
    script = ROOT / "catalogs" / "scenarios" / "weather-email.en.sim.yaml"
    simulated = run_cli("simulate", str(script), "--check", "-c", source)
    assert simulated.code == 0, simulated.stdout + simulated.stderr
    assert pg.PASSWORD not in simulated.stdout + simulated.stderr
    library = ToolSearch(source)
    files = ToolSearch(str(DEMO))
    for query in ("weather in Shanghai", "refund an order", "reset a user's password"):
        assert _names(library, query) == _names(files, query)


def test_a_namespace_too_big_to_read_is_refused(pg_url, monkeypatch):
    store.push(pg_url, numbered(20), "big")
    monkeypatch.setattr(store, "MAX_NAMESPACE_BYTES", 1000)
    with pytest.raises(store.RegistryError, match="more than toolsearch reads at once"):
        store.read_snapshot(ns(pg_url, "big"))


def test_a_node_reads_an_unchanged_namespace_from_its_cache(pg_url, monkeypatch):
    """The namespace's digest keys the user's catalog cache: an unchanged namespace is not fetched
    and validated again; any push that changes it changes the digest, so it never reads stale."""
    from toolsearch_cli.registry import codec

    store.push(pg_url, numbered(30), "cached")
    first = load_catalog(ns(pg_url, "cached"))
    calls = []
    real = codec.decode
    monkeypatch.setattr(codec, "decode", lambda *a, **k: calls.append(1) or real(*a, **k))
    again = load_catalog(ns(pg_url, "cached"))
    assert calls == [] and same_tools(first, again)
    store.push(pg_url, numbered(30, "omega"), "cached")
    calls.clear()  # the push checks its rows with the readers' own decode (issue 35): reads counted from here
    changed = load_catalog(ns(pg_url, "cached"))
    assert calls == [1] and same_tools(changed, numbered(30, "omega"))
    monkeypatch.setenv("TOOLSEARCH_NO_CACHE", "1")
    load_catalog(ns(pg_url, "cached"))
    assert calls == [1, 1]


def test_credentials_from_a_service_file(run_cli, pg_url, pg_cluster, tmp_path, monkeypatch):
    """libpq's service file holds host, database, user and password: the URL names the service only."""
    store.push(pg_url, numbered(4), "svc")
    services = tmp_path / "pg_service.conf"
    database = pg_url.rsplit("/", 1)[1]
    services.write_text(
        f"[tools]\nhost=127.0.0.1\nport={pg_cluster.port}\ndbname={database}\nuser=postgres\npassword={pg.PASSWORD}\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("PGSERVICEFILE", str(services))
    result = run_cli("search", "alpha family task", "-c", "postgresql://?service=tools&namespace=svc", "-f", "json")
    assert result.code == 0, result.stderr
    assert len(result.json()["hits"]) == 4 and pg.PASSWORD not in result.stdout + result.stderr


def test_stored_resident_names_that_are_not_a_list_are_an_error_not_a_crash(pg_url):
    store.push(pg_url, numbered(3), "bad")
    psycopg = pytest.importorskip("psycopg")
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("UPDATE toolsearch_namespaces SET resident = '{\"x\": 1' WHERE name = 'bad'")
    with pytest.raises(CatalogError, match="malformed registry row"):
        store.read_snapshot(ns(pg_url, "bad"))
    from toolsearch_cli.registry.provider import PostgresToolProvider

    with PostgresToolProvider(pg_url, "bad") as provider, pytest.raises(CatalogError, match="malformed"):
        provider.remove("tool0001")
