"""Issue 35 item 1: sync that survives bad data, against a real PostgreSQL (tests/pg_cluster.py).

A push refuses, in one line naming the tool, anything a reader would refuse (the readers' own
check, :func:`toolsearch_cli.registry.codec.decode`). A follower that meets a version it cannot
read (a row written directly with SQL, plus a version bump) keeps serving its last good catalog,
says so once (status ``stale`` with the version and the reason), and follows the next good push;
nothing escapes its thread."""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time

import pytest

from toolsearch_cli.errors import CatalogError
from toolsearch_cli.model import Catalog, Tool
from toolsearch_cli.registry import codec, store
from toolsearch_cli.registry.testing import sample

from .test_registry import ns, numbered, same_tools

BIG = "x" * (codec.MAX_ROW_BYTES + 10)


def deep(levels: int) -> dict:
    node: dict = {"type": "string"}
    for _ in range(levels):
        node = {"type": "object", "properties": {"a": node}}
    return node


# -- push refuses what a reader would refuse -----------------------------------------------------


@pytest.mark.parametrize(
    "tool, expected",
    [
        (sample("huge", BIG), "over the limit"),
        (Tool(name="deep", description="d", parameters=deep(60)), "deep"),
    ],
    ids=["oversize", "too-deep"],
)
def test_push_refuses_a_tool_readers_would_refuse_in_one_line(pg_url, tool, expected):
    good = numbered(3)
    store.push(pg_url, good, "bounds")
    with pytest.raises(CatalogError) as caught:
        store.push(pg_url, Catalog(tools=[*good.tools, tool]), "bounds")
    text = str(caught.value)
    assert "\n" not in text and f"tool {tool.name!r}" in text and expected in text, text
    assert "readers of the registry would refuse it" in text
    assert store.read_snapshot(ns(pg_url, "bounds")).version == 1  # nothing written
    with pytest.raises(CatalogError):  # a dry run says the same
        store.push(pg_url, Catalog(tools=[*good.tools, tool]), "bounds", dry_run=True)


def test_catalog_push_of_an_oversize_description_is_one_line_naming_file_and_tool(run_cli, pg_url, write):
    path = write("big.yaml", "tools:\n  - name: huge\n    description: " + "y" * (codec.MAX_ROW_BYTES + 10) + "\n")
    done = run_cli("catalog", "push", "--to", pg_url, "--namespace", "big", "-c", str(path))
    assert done.code == 2, done.stderr
    line = done.stderr.strip()
    assert "\n" not in line and "big.yaml:2" in line and "tool 'huge'" in line and "over the limit" in line, line
    assert "Traceback" not in done.stderr and pg_url.split("@")[0].split(":")[-1] not in done.stderr


# -- followers survive every hostile row -------------------------------------------------------


def _bump(conn, namespace: str, *, tool: str | None = None) -> int:
    """Record a new version as a (careless) writer would: the version row, the change, NOTIFY."""
    version = conn.execute(
        "UPDATE toolsearch_namespaces SET version = version + 1 WHERE name = %s RETURNING version", (namespace,)
    ).fetchone()[0]
    conn.execute(
        "INSERT INTO toolsearch_versions (namespace, version, added, changed, removed, digest) "
        "VALUES (%s, %s, 0, 1, 0, 'hand-edited')",
        (namespace, version),
    )
    if tool is not None:
        conn.execute(
            "INSERT INTO toolsearch_changes (namespace, version, name, kind) VALUES (%s, %s, %s, 'changed')",
            (namespace, version, tool),
        )
    conn.execute("SELECT pg_notify('toolsearch_registry', %s)", (namespace,))
    return int(version)


HOSTILE_BODIES = {
    "oversize": json.dumps({"name": "tool0001", "description": BIG}),
    "not-a-tool": "[1,2,3]",
    "invalid-json": '{"name": "tool0001", "description": ',
    "too-deep": '{"name":"tool0001","description":"d","parameters":' + "[" * 150 + "]" * 150 + "}",
    "other-name": '{"name": "somethingElse", "description": "d"}',
}
HOSTILE_NAMESPACE_COLUMNS = {
    "bad-resident": ("resident", '[1, {"a": 2}]'),
    "resident-not-a-list": ("resident", '{"a": 1}'),
    "bad-group": ("groups", '[{"name": 5, "tools": "x"}]'),
}


def write_hostile(url: str, namespace: str, kind: str) -> int:
    """Write one hostile row directly with SQL and bump the version: the new version."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn, conn.transaction():
        if kind in HOSTILE_BODIES:
            body = HOSTILE_BODIES[kind]
            conn.execute(
                "UPDATE toolsearch_tools SET body = %s, hash = %s WHERE namespace = %s AND name = 'tool0001'",
                (body, hashlib.sha256(body.encode()).hexdigest(), namespace),
            )
            return _bump(conn, namespace, tool="tool0001")
        column, value = HOSTILE_NAMESPACE_COLUMNS[kind]
        conn.execute(f"UPDATE toolsearch_namespaces SET {column} = %s WHERE name = %s", (value, namespace))
        return _bump(conn, namespace)


@pytest.fixture
def thread_errors(monkeypatch):
    """Exceptions that escaped any thread while the test ran."""
    seen: list[str] = []
    monkeypatch.setattr(threading, "excepthook", lambda a: seen.append(f"{a.exc_type.__name__}: {a.exc_value}"))
    return seen


def _wait(predicate, timeout: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


@pytest.mark.parametrize("kind", [*HOSTILE_BODIES, *HOSTILE_NAMESPACE_COLUMNS])
def test_a_node_survives_a_hostile_row_and_follows_the_next_good_push(pg_url, kind, caplog, thread_errors):
    from toolsearch_cli.registry.sync import LiveToolSearch

    caplog.set_level(logging.INFO, logger="toolsearch.registry")
    store.push(pg_url, numbered(20), "hostile")
    statuses: list[str] = []
    with LiveToolSearch(ns(pg_url, "hostile"), poll_interval=0.1, on_status=statuses.append) as node:
        assert _wait(lambda: node.status == "live")
        before = node.engine.catalog.names
        bad = write_hostile(pg_url, "hostile", kind)
        assert _wait(lambda: node.status.startswith("stale")), (kind, statuses)
        status = node.status
        assert f"version {bad} cannot be read" in status and "serving version 1" in status, status
        assert "\n" not in status and "s3cret" not in status
        time.sleep(0.5)  # several polls: said once, the bad version not read again
        warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
        assert len(warnings) == 1 and "stale" in warnings[0].getMessage(), [r.getMessage() for r in warnings]
        assert sum(s.startswith("stale") for s in statuses) == 1, statuses
        assert node.version == 1 and node.engine.catalog.names == before  # the last good catalog answers
        assert node.request([{"role": "user", "content": "alpha family task"}]).tools
        good = numbered(21, "beta")  # the next good push rewrites what the hostile write left
        started = time.monotonic()
        plan = store.push(pg_url, good, "hostile")
        assert node.wait_for(plan.version, 60), node.status
        print(f"{kind}: followed the next good push {time.monotonic() - started:.3f} s after it committed")
        assert _wait(lambda: node.status == "live"), node.status
        assert same_tools(list(node.engine.catalog.tools), good)
    assert thread_errors == []


def test_an_error_while_applying_a_change_makes_the_watcher_stale_not_dead(pg_url, thread_errors):
    """A failing ``on_change`` (whatever it raises) leaves the watcher running: ``stale``, logged
    in one line, and the next version is applied once it can be."""
    from toolsearch_cli.registry.sync import RegistryWatcher

    store.push(pg_url, numbered(5), "apply")
    applied: list[int] = []
    fail = [True]

    def on_change(changes) -> None:
        if fail[0]:
            raise KeyError("boom\nsecond line")
        applied.append(changes.version)

    watcher = RegistryWatcher(ns(pg_url, "apply"), on_change, version=1, poll_interval=0.1).start()
    try:
        assert _wait(lambda: watcher.status == "live")
        store.push(pg_url, numbered(6), "apply")
        assert _wait(lambda: watcher.status.startswith("stale"))
        assert "KeyError" in watcher.status and "\n" not in watcher.status and watcher.version == 1
        fail[0] = False
        store.push(pg_url, numbered(7), "apply")
        assert _wait(lambda: watcher.version == 3) and _wait(lambda: watcher.status == "live")
        assert applied == [3]
    finally:
        watcher.stop()
    assert thread_errors == []


def test_a_dropped_namespace_leaves_the_node_stale_serving_its_catalog(pg_url, thread_errors):
    from toolsearch_cli.registry import history
    from toolsearch_cli.registry.sync import LiveToolSearch

    store.push(pg_url, numbered(4), "gone")
    with LiveToolSearch(ns(pg_url, "gone"), poll_interval=0.1) as node:
        assert _wait(lambda: node.status == "live")
        history.drop(ns(pg_url, "gone"))
        assert _wait(lambda: node.status.startswith("stale")), node.status
        assert "no namespace 'gone'" in node.status and len(node.engine.catalog) == 4
        plan = store.push(pg_url, numbered(2, "gamma"), "gone")  # pushed again: version 1 of a new namespace
        assert plan.version == 1 == node.version  # the same number as the node serves: read whole all the same
        assert _wait(lambda: node.status == "live"), node.status
        assert same_tools(list(node.engine.catalog.tools), numbered(2, "gamma"))
    assert thread_errors == []


def test_the_outage_warning_is_said_once_whatever_its_reasons(caplog):
    """One warning per outage: a disconnection whose reason changes while it lasts is still one
    (it was one per distinct error text); the next outage is warned again."""
    from toolsearch_cli.registry.sync import RegistryWatcher

    caplog.set_level(logging.INFO, logger="toolsearch.registry")
    watcher = RegistryWatcher("postgresql://h/db?namespace=n", lambda c: None, version=3)
    for reason in ("connection refused", "timeout expired", "connection refused", "no route to host"):
        watcher._set_status(f"disconnected: {reason}; serving version 3")
    watcher._set_status("stale: version 4 cannot be read (bad); serving version 3")
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warned) == 1 and "connection refused" in warned[0], warned
    watcher._set_status("live")
    watcher._set_status("disconnected: timeout expired; serving version 3")
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warned) == 2, warned


def test_what_a_file_load_only_warns_about_is_pushed_and_followed(pg_url, thread_errors):
    """A tool with a ``$ref`` outside its schema loads from a file with a warning; it is pushed, and
    a follower (outside any command's load block, in its own thread) reads it too, rather than
    refusing the namespace it was allowed into."""
    from toolsearch_cli.registry.sync import LiveToolSearch

    ref = Tool(
        name="withRef",
        description="a tool whose parameter points outside its schema",
        parameters={"type": "object", "properties": {"v": {"$ref": "http://example.invalid/x.json"}}},
    )
    store.push(pg_url, numbered(3), "warned")
    with LiveToolSearch(ns(pg_url, "warned"), poll_interval=0.1) as node:
        plan = store.push(pg_url, Catalog(tools=[*numbered(3).tools, ref]), "warned")
        assert node.wait_for(plan.version, 60) and node.status == "live", node.status
        assert "withRef" in node.engine.catalog
    with LiveToolSearch(ns(pg_url, "warned"), start=False) as fresh:
        assert "withRef" in fresh.engine.catalog
    assert thread_errors == []


def test_a_stale_node_that_reconnects_is_stale_again_not_live(pg_url, pg_cluster, thread_errors):
    """Stale at an unreadable version, then the connection drops: once back, the registry is still
    at that version, so the node says stale again (not 'disconnected' for ever, not 'live')."""
    from toolsearch_cli.registry.sync import LiveToolSearch

    store.push(pg_url, numbered(5), "again")
    with LiveToolSearch(ns(pg_url, "again"), poll_interval=0.1) as node:
        assert _wait(lambda: node.status == "live")
        bad = write_hostile(pg_url, "again", "not-a-tool")
        assert _wait(lambda: node.status.startswith("stale"))
        pg_cluster.sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'toolsearch'")
        assert _wait(lambda: node.status.startswith("disconnected")), node.status
        assert _wait(lambda: node.status.startswith("stale")), node.status
        assert f"version {bad} cannot be read" in node.status and node.version == 1
        plan = store.push(pg_url, numbered(5, "beta"), "again")
        assert node.wait_for(plan.version, 60) and _wait(lambda: node.status == "live")
    assert thread_errors == []
