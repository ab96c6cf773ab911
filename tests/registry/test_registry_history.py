"""Issue 35 items 3 and 5 against a real PostgreSQL (tests/pg_cluster.py): the schema is created
and upgraded by ``registry migrate`` alone (numbered migrations, recorded); push and read run as
least-privilege roles with the exact GRANTs of docs/how-to/registry.md; old versions read back
exactly, diff, roll back (followers apply it in place), and the retention bounds what is kept."""

from __future__ import annotations

import re
import time

import pytest

from tests import pg_cluster as pg
from toolsearch_cli.errors import CatalogError
from toolsearch_cli.model import Catalog, ToolGroup
from toolsearch_cli.registry import history, store
from toolsearch_cli.registry.store import RegistryError
from toolsearch_cli.registry.testing import sample

from ..conftest import ROOT
from .test_registry import ns, numbered, same_tools

GRANTS_DOC = ROOT / "docs" / "how-to" / "registry.md"


def versions_of_a_namespace() -> list[Catalog]:
    """Five catalogs pushed in turn: adds, changes, removals, a new order, resident and group
    changes, and a tool removed then added back with another body."""
    one = numbered(6)
    tools = list(one.tools)
    two = Catalog(tools=[tools[1], tools[0], *tools[3:], sample("extra", "an extra tool for the second version")])
    changed = [t.copy_with(description=t.description + " (revised)") if t.name == "tool0004" else t for t in two.tools]
    three = Catalog(tools=changed, resident=["tool0000"], groups=[ToolGroup(name="pair", tools=["tool0001", "extra"])])
    back = tools[2].copy_with(description="tool two is back, reworded")
    four = Catalog(tools=[*changed, back], resident=["tool0001"])
    five = Catalog(tools=[t for t in four.tools if t.name != "extra"])
    return [one, two, three, four, five]


def same_catalog(snap, catalog: Catalog) -> bool:
    return (
        same_tools(snap.tools, catalog)
        and snap.resident == list(catalog.resident)
        and [(g.name, list(g.tools)) for g in snap.groups] == [(g.name, list(g.tools)) for g in catalog.groups]
    )


def test_every_kept_version_reads_back_exactly_and_diffs(pg_url):
    pushed = versions_of_a_namespace()
    for catalog in pushed:
        store.push(pg_url, catalog, "hist")
    source = ns(pg_url, "hist")
    for version, catalog in enumerate(pushed, start=1):
        assert same_catalog(history.read_version(source, version), catalog), version
    d = history.diff(source, 1, 3)
    assert d.added == ["extra"] and d.removed == ["tool0002"] and d.changed == ["tool0004"]
    assert d.moved and d.resident_changed and d.groups_changed
    d = history.diff(source, 3)  # to the current version (5)
    assert d.new == 5 and d.added == ["tool0002"] and d.removed == ["extra"] and d.changed == []
    assert history.diff(source, 4, 4).empty
    entries = history.log(source)
    assert [e.version for e in entries] == [5, 4, 3, 2, 1] and all(e.kept for e in entries)
    assert (entries[-1].added, entries[0].removed) == (6, 1)
    with pytest.raises(RegistryError, match="has no version 9"):
        history.read_version(source, 9)


def test_a_rollback_is_a_new_version_equal_to_the_old_one_and_followers_apply_it_in_place(pg_url):
    from toolsearch_cli.registry.sync import LiveToolSearch

    first = numbered(12)
    second = Catalog(tools=[t.copy_with(description="changed " + t.description) for t in first.tools[:8]])
    store.push(pg_url, first, "roll")
    store.push(pg_url, second, "roll")
    with LiveToolSearch(ns(pg_url, "roll"), poll_interval=0.1) as node:
        plan = history.rollback(ns(pg_url, "roll"), 1)
        assert plan.version == 3 and len(plan.added) == 4 and len(plan.changed) == 8
        assert node.wait_for(3, 60)
        assert node.applied == 1 and node.rebuilt == 0  # in place
        by_name = {t.name: t.copy_with(source=None) for t in node.engine.catalog.tools}  # in place: order aside
        assert by_name == {t.name: t for t in first.tools}
    assert same_catalog(store.read_snapshot(ns(pg_url, "roll")), first)
    assert same_catalog(history.read_version(ns(pg_url, "roll"), 3), first)
    assert history.diff(ns(pg_url, "roll"), 1, 3).empty
    # nothing to do when the namespace already equals that version; a stale --expect-version is refused
    assert history.rollback(ns(pg_url, "roll"), 1).version is None
    with pytest.raises(store.PushConflict):
        history.rollback(ns(pg_url, "roll"), 2, expect_version=1)


def test_the_retention_bounds_what_is_kept(pg_url):
    history.migrate(pg_url, retention=2)
    for i in range(5):
        store.push(pg_url, numbered(4, f"word{i}"), "ret")
    source = ns(pg_url, "ret")
    assert [e.kept for e in history.log(source)] == [True, True, False, False, False]
    assert same_catalog(history.read_version(source, 4), numbered(4, "word3"))
    with pytest.raises(RegistryError, match="past the registry's retention"):
        history.read_version(source, 3)
    import psycopg  # the history table holds only what versions 4 and 5 need

    with psycopg.connect(pg_url) as conn:
        rows = conn.execute("SELECT min(valid_to) FROM toolsearch_history WHERE namespace = 'ret'").fetchone()
    assert rows[0] is None or rows[0] > 4


def test_provider_edits_are_kept_as_history_too(pg_url):
    from toolsearch_cli.registry.provider import PostgresToolProvider

    with PostgresToolProvider(pg_url, "prov") as provider:
        provider.save(sample("a", "first a"))
        provider.save(sample("b", "first b"))
        provider.save(sample("a", "second a"))
        assert provider.remove("b")
    source = ns(pg_url, "prov")
    assert [t.description for t in history.read_version(source, 2).tools] == ["first a", "first b"]
    assert [t.description for t in history.read_version(source, 3).tools] == ["second a", "first b"]
    assert [t.name for t in history.read_version(source, 4).tools] == ["a"]


def test_a_provider_refuses_what_readers_would_refuse(pg_url):
    from toolsearch_cli.registry.codec import MAX_ROW_BYTES
    from toolsearch_cli.registry.provider import PostgresToolProvider

    with PostgresToolProvider(pg_url, "prov") as provider:
        with pytest.raises(CatalogError, match="tool 'big'.*over the limit"):
            provider.save(sample("big", "z" * (MAX_ROW_BYTES + 1)))
        assert provider.all() == []


# -- migrations ------------------------------------------------------------------------------


@pytest.mark.usefixtures("pg_empty")
def test_push_and_read_never_create_the_schema_migrate_does(pg_url, run_cli):
    done = run_cli("catalog", "push", "--to", pg_url, "--namespace", "p", "-c", str(ROOT / "catalogs"))
    assert done.code == 2 and "no toolsearch registry" in done.stderr and "registry migrate" in done.stderr
    assert pg.PASSWORD not in done.stderr + done.stdout
    import psycopg

    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT to_regclass('toolsearch_meta')").fetchone()[0] is None  # no DDL ran
    done = run_cli("registry", "migrate", pg_url)
    assert done.code == 0 and "created the registry (schema version 3)" in done.stdout, done.stderr
    assert pg.PASSWORD not in done.stdout + done.stderr
    done = run_cli("registry", "migrate", pg_url)
    assert done.code == 0 and "up to date" in done.stdout


@pytest.mark.usefixtures("pg_empty")
def test_a_schema_1_registry_is_read_as_it_is_and_upgraded_by_migrate(pg_url):
    """A registry created by the toolsearch before history (schema 1): readers read it, a push says
    to migrate, and ``migrate`` applies migration 2 (recorded), after which the current version is
    kept and history starts."""
    import psycopg

    with psycopg.connect(pg_url, autocommit=True) as conn, conn.transaction():
        conn.execute("CREATE TABLE toolsearch_meta (key text PRIMARY KEY, value text NOT NULL)")
        for statement in store.MIGRATIONS[1]:
            conn.execute(statement)
        conn.execute("INSERT INTO toolsearch_meta VALUES ('schema_version', '1')")
        conn.execute("INSERT INTO toolsearch_namespaces (name, version, digest) VALUES ('old', 1, 'd')")
        conn.execute("INSERT INTO toolsearch_versions VALUES ('old', 1, now(), 1, 0, 0, 'd')")
        body = '{"name":"legacy","description":"a tool pushed by schema 1"}'
        conn.execute("INSERT INTO toolsearch_tools VALUES ('old', 'legacy', 0, 'h', %s, 1)", (body,))
    assert [t.name for t in store.read_snapshot(ns(pg_url, "old")).tools] == ["legacy"]
    with pytest.raises(RegistryError, match="older than this toolsearch writes .* registry migrate"):
        store.push(pg_url, numbered(2), "old")
    assert history.migrate(pg_url) == (1, 3)
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT value FROM toolsearch_meta WHERE key = 'schema_version'").fetchone()[0] == "3"
    assert [t.name for t in history.read_version(ns(pg_url, "old"), 1).tools] == ["legacy"]
    store.push(pg_url, numbered(2), "old")
    assert [t.name for t in history.read_version(ns(pg_url, "old"), 1).tools] == ["legacy"]
    assert history.diff(ns(pg_url, "old"), 1).removed == ["legacy"]


def _schema_2_registry(url: str) -> None:
    """A registry as the toolsearch before schema 3 created it (migrations 1 and 2, recorded)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn, conn.transaction():
        conn.execute("CREATE TABLE toolsearch_meta (key text PRIMARY KEY, value text NOT NULL)")
        for version in (1, 2):
            for statement in store.MIGRATIONS[version]:
                conn.execute(statement)
        conn.execute("INSERT INTO toolsearch_meta VALUES ('schema_version', '2'), ('retention', '50')")


@pytest.mark.usefixtures("pg_empty")
def test_token_create_on_schema_2_says_to_migrate(pg_url, run_cli):
    """The HTTP API's token table is migration 3: ``registry token create`` never makes it (no DDL
    outside ``migrate``); on a schema-2 registry it says, in one line, to run ``migrate``, while
    pushes and reads go on; ``migrate`` then adds the table and tokens can be made."""
    import psycopg

    _schema_2_registry(pg_url)
    store.push(pg_url, numbered(2), "two")  # a schema-2 registry takes pushes (it has history)
    assert [t.name for t in store.read_snapshot(ns(pg_url, "two")).tools] == ["tool0000", "tool0001"]
    done = run_cli("registry", "token", "create", "--db", pg_url, "-n", "two")
    assert done.code == 2 and "schema version 2" in done.stderr and "registry migrate" in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert pg.PASSWORD not in done.stderr + done.stdout and not done.stdout.strip()
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT to_regclass('toolsearch_http_tokens')").fetchone()[0] is None  # no DDL ran
    served = run_cli("registry", "serve", "--db", pg_url, "--http", f"127.0.0.1:{pg.free_port()}")
    assert served.code == 2 and "schema version 2" in served.stderr and "registry migrate" in served.stderr
    done = run_cli("registry", "migrate", pg_url)
    assert done.code == 0 and "upgraded the schema from version 2 to 3" in done.stdout, done.stdout + done.stderr
    made = run_cli("registry", "token", "create", "--db", pg_url, "-n", "two", "-f", "json")
    assert made.code == 0 and made.stdout.count("tsr_") == 1, made.stderr


@pytest.mark.usefixtures("pg_empty")
def test_migration_3_keeps_an_older_token_table(pg_url):
    """A toolsearch before schema 3 made the token table on the first ``token create`` (schema 2):
    migration 3 adopts it with its tokens, which still open the API."""
    import psycopg

    from toolsearch_cli.registry import tokens

    _schema_2_registry(pg_url)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(store.MIGRATIONS[3][0])  # the very table (and statement) the old token create ran
        token = "tsr_0123456789ab_" + "A" * 43
        conn.execute(
            "INSERT INTO toolsearch_http_tokens (id, namespace, scope, hash) VALUES ('0123456789ab', 'n', 'read', %s)",
            (tokens.token_hash(token),),
        )
    assert history.migrate(pg_url) == (2, 3)
    with psycopg.connect(pg_url) as conn:
        assert tokens.lookup(conn, token) == tokens.Grant("0123456789ab", "n", "read")
        assert conn.execute("SELECT value FROM toolsearch_meta WHERE key = 'schema_version'").fetchone()[0] == "3"


# -- least-privilege roles -------------------------------------------------------------------


def grants_sql(database: str, marker: str = "registry-grants") -> list[str]:
    """The statements of docs/how-to/registry.md's grants block (``marker``), for ``database``."""
    text = GRANTS_DOC.read_text(encoding="utf-8")
    block = text.split(f"<!-- {marker} -->", 1)[1].split("```sql", 1)[1].split("```", 1)[0]
    block = re.sub(r"--[^\n]*", "", block).replace("DATABASE tools", f'DATABASE "{database}"')
    return [s.strip() for s in block.split(";") if s.strip()]


def role_url(cluster, role: str, database: str, password: str) -> str:
    return f"postgresql://{role}:{password}@127.0.0.1:{cluster.port}/{database}"


@pytest.mark.usefixtures("pg_empty")
def test_push_and_read_as_least_privilege_roles_with_the_documented_grants(pg_url, pg_cluster, run_cli):
    from toolsearch_cli.registry.sync import LiveToolSearch

    database = pg_url.rsplit("/", 1)[1]
    for role in ("toolsearch_http", "toolsearch_reader", "toolsearch_pusher", "toolsearch_owner"):
        pg_cluster.sql(f"DROP OWNED BY {role}", db=database) if pg_cluster.sql(
            f"SELECT 1 FROM pg_roles WHERE rolname = '{role}'"
        ) else None
        pg_cluster.sql(f"DROP ROLE IF EXISTS {role}")
    for statement in grants_sql(database):
        pg_cluster.sql(statement, db=database)
    owner = role_url(pg_cluster, "toolsearch_owner", database, "owner-password")
    pusher = role_url(pg_cluster, "toolsearch_pusher", database, "pusher-password")
    reader = role_url(pg_cluster, "toolsearch_reader", database, "reader-password")
    catalogs = str(ROOT / "catalogs")

    done = run_cli("registry", "migrate", pusher)  # only the owner may create the schema
    assert done.code == 2 and "permission denied" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert run_cli("registry", "migrate", owner).code == 0
    import psycopg

    with psycopg.connect(owner, autocommit=True) as conn:  # the token table's grants, as its owner
        for statement in grants_sql(database, "registry-token-grants"):
            conn.execute(statement)

    done = run_cli("catalog", "push", "--to", pusher, "--namespace", "prod", "-c", catalogs)
    assert done.code == 0 and "version 1" in done.stdout, done.stderr
    done = run_cli("catalog", "push", "--to", reader, "--namespace", "prod", "-c", catalogs, "--yes")
    assert done.code == 2 and "permission denied" in done.stderr, done.stderr  # a reader cannot write
    assert "reader-password" not in done.stderr

    query = "weather forecast for a city"
    as_reader = run_cli("search", query, "-c", f"{reader}?namespace=prod", "-f", "json")
    from_files = run_cli("search", query, "-c", catalogs, "-f", "json")
    assert as_reader.code == 0, as_reader.stderr
    assert [h["name"] for h in _hits(as_reader.stdout)] == [h["name"] for h in _hits(from_files.stdout)]
    assert run_cli("registry", "log", reader, "-n", "prod").code == 0
    assert run_cli("registry", "namespaces", reader).code == 0

    with LiveToolSearch(f"{reader}?namespace=prod", poll_interval=0.1) as node:  # a reader follows
        store.push(pusher, numbered(3), "prod", expect_version=1)
        assert node.wait_for(2, 60) and node.status == "live"
        assert run_cli("registry", "rollback", pusher, "1", "-n", "prod").code == 0
        assert node.wait_for(3, 60)
    _http_server_role(run_cli, pg_cluster, database, owner, pusher, reader)
    assert run_cli("registry", "drop", reader, "-n", "prod", "--yes").code == 2
    assert run_cli("registry", "drop", pusher, "-n", "prod", "--yes").code == 0


def _http_server_role(run_cli, cluster, database: str, owner: str, pusher: str, reader: str) -> None:
    """The HTTP API's token table under the documented grants: the owner mints, the server role
    reads it (and starts), no reader or pusher can read or write it, a reader cannot serve."""
    import psycopg

    from toolsearch_cli.registry.http_api import ApiSettings, RegistryApi

    server = role_url(cluster, "toolsearch_http", database, "http-password")
    made = run_cli("registry", "token", "create", "--db", owner, "-n", "prod", "--scope", "push")
    assert made.code == 0 and made.stdout.startswith("tsr_"), made.stderr
    refused = run_cli("registry", "token", "create", "--db", pusher, "-n", "prod")
    assert refused.code == 2 and "permission denied" in refused.stderr and "pusher-password" not in refused.stderr
    for url in (reader, pusher):
        with psycopg.connect(url) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SELECT hash FROM toolsearch_http_tokens")
    api = RegistryApi(ApiSettings(db=server))
    try:
        api.check()  # reads the token table: the server role may
    finally:
        api.pool.close()
    served = run_cli("registry", "serve", "--db", reader, "--http", f"127.0.0.1:{pg.free_port()}")
    assert served.code == 2 and "permission denied for table toolsearch_http_tokens" in served.stderr, served.stderr
    assert len(served.stderr.strip().splitlines()) == 1 and "reader-password" not in served.stderr


def _hits(stdout: str) -> list[dict]:
    import json

    return json.loads(stdout)["hits"]


# -- the commands ----------------------------------------------------------------------------


def test_registry_commands_log_diff_rollback_namespaces_drop(run_cli, pg_url, write):
    tool = "  - name: {}\n    description: {}\n"
    first = write("first.yaml", "tools:\n" + tool.format("a", "alpha one") + tool.format("b", "beta"))
    second = write("second.yaml", "tools:\n" + tool.format("a", "alpha two") + tool.format("c", "gamma"))
    for path in (first, second):
        assert run_cli("catalog", "push", "--to", pg_url, "-n", "cmd", "-c", str(path)).code == 0
    done = run_cli("registry", "namespaces", pg_url, "-f", "json")
    assert done.code == 0 and [(e["name"], e["version"], e["tools"]) for e in _json(done)] == [("cmd", 2, 2)]
    done = run_cli("registry", "log", f"{pg_url}?namespace=cmd", "-f", "json")
    assert [(e["version"], e["added"], e["changed"], e["removed"]) for e in _json(done)] == [(2, 1, 1, 1), (1, 2, 0, 0)]
    done = run_cli("registry", "diff", pg_url, "1", "-n", "cmd")
    assert done.code == 0 and done.stdout.split() == "cmd: version 1 -> 2 + c ~ a - b".split(), done.stdout
    done = run_cli("registry", "rollback", pg_url, "1", "-n", "cmd")
    assert done.code == 0 and "back to version 1: version 3" in done.stdout, done.stderr
    assert run_cli("registry", "diff", pg_url, "1", "3", "-n", "cmd", "-f", "json").stdout.count('"added": []') == 1
    done = run_cli("registry", "drop", pg_url, "-n", "cmd")
    assert done.code == 2 and "--yes" in done.stderr and pg.PASSWORD not in done.stderr
    assert run_cli("registry", "log", pg_url, "-n", "cmd").code == 0  # nothing was dropped
    done = run_cli("registry", "drop", pg_url, "-n", "cmd", "--yes")
    assert done.code == 0 and "dropped" in done.stdout and pg.PASSWORD not in done.stdout
    done = run_cli("registry", "log", pg_url, "-n", "cmd")
    assert done.code == 2 and "no namespace 'cmd'" in done.stderr
    done = run_cli("registry", "rollback", pg_url, "7", "-n", "nope")
    assert done.code == 2 and len(done.stderr.strip().splitlines()) == 1


def test_pushing_an_empty_catalog_needs_yes(run_cli, pg_url, write):
    full = write("full.yaml", "tools:\n  - name: a\n    description: alpha\n")
    empty = write("empty.yaml", "tools: []\n")
    assert run_cli("catalog", "push", "--to", pg_url, "-n", "e", "-c", str(full)).code == 0
    done = run_cli("catalog", "push", "--to", pg_url, "-n", "e", "-c", str(empty))
    assert done.code == 2 and "--yes" in done.stderr and "no tools" in done.stderr, done.stderr
    assert len(store.read_snapshot(ns(pg_url, "e")).tools) == 1
    assert run_cli("catalog", "push", "--to", pg_url, "-n", "e", "-c", str(empty), "--dry-run").code == 0
    done = run_cli("catalog", "push", "--to", pg_url, "-n", "e", "-c", str(empty), "--yes")
    assert done.code == 0 and store.read_snapshot(ns(pg_url, "e")).tools == []


def _json(done):
    import json

    assert done.code == 0, done.stderr
    return json.loads(done.stdout)


def test_history_reads_are_timed_not_asserted(pg_url):
    """Reading an old version back at 2,000 tools: printed (-s), as the project times things."""
    store.push(pg_url, numbered(2000), "big")
    store.push(pg_url, numbered(2000, "beta"), "big")
    started = time.perf_counter()
    snap = history.read_version(ns(pg_url, "big"), 1)
    print(f"read version 1 of 2,000 tools back in {time.perf_counter() - started:.3f} s")
    assert same_tools(snap.tools, numbered(2000))


def test_a_hostile_stored_version_is_a_one_line_error(run_cli, pg_url):
    """History rows are input like any row: a version's names, resident names or an old body
    written by hand (too deep, not JSON, not a list) is refused in one line, never a crash."""
    import psycopg

    store.push(pg_url, numbered(3), "bad")
    store.push(pg_url, numbered(3, "beta"), "bad")
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("UPDATE toolsearch_versions SET resident = %s WHERE version = 1", ("[" * 5000 + "]" * 5000,))
    with pytest.raises(CatalogError, match="deep"):
        history.diff(ns(pg_url, "bad"), 1)
    done = run_cli("registry", "diff", pg_url, "1", "-n", "bad")
    assert done.code == 2 and len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("UPDATE toolsearch_versions SET names = '{\"a\": 1}' WHERE version = 2")
        conn.execute("UPDATE toolsearch_history SET body = 'not json' WHERE valid_from = 1 AND name = 'tool0000'")
    with pytest.raises(RegistryError, match="not a list of names"):
        history.read_version(ns(pg_url, "bad"), 2)
    with pytest.raises(CatalogError, match="malformed registry row"):
        history.read_version(ns(pg_url, "bad"), 1)
    done = run_cli("registry", "rollback", pg_url, "1", "-n", "bad")
    assert done.code == 2 and "malformed registry row" in done.stderr
    assert store.read_snapshot(ns(pg_url, "bad")).version == 2  # nothing written
