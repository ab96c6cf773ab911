"""A push of a JSON catalog file reads only the tools whose bytes changed since its last push
(:mod:`toolsearch_cli.registry.push_memo`), and writes exactly what a push that reads every tool
writes, against a real PostgreSQL (tests/pg_cluster.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolsearch_cli import load_catalog
from toolsearch_cli.errors import CatalogError
from toolsearch_cli.registry import codec, store
from toolsearch_cli.registry.push import PushSettings, push_catalog
from toolsearch_cli.registry.push_memo import scan


def catalog_doc(n: int) -> dict:
    """``n`` tools with what a row can depend on: a default category and requires, resident names
    (listed and flagged), groups, parameters, text outside ASCII."""
    tools = []
    for i in range(n):
        tool = {
            "name": f"tool{i:04d}",
            "description": f"déjà vu task {i}: fetch the “report” number {i}",
            "parameters": {"type": "object", "properties": {"id": {"type": "integer", "description": f"id {i}"}}},
        }
        if i % 7 == 0:
            tool["category"] = "seventh"
        if i == 3:
            tool["resident"] = True
        if i == 5:
            tool["requires"] = {"plan": ["pro"]}
        tools.append(tool)
    return {
        "category": "general",
        "requires": {"region": ["eu"]},
        "resident": ["tool0001"],
        "groups": [{"name": "pair", "tools": ["tool0002", "tool0004"]}],
        "tools": tools,
    }


def write(path: Path, doc: dict) -> None:
    path.write_text(json.dumps(doc, ensure_ascii=False, indent=1), encoding="utf-8")


@pytest.fixture
def encodes(monkeypatch):
    """How many tools were encoded (each tool read and encoded costs one)."""
    count = [0]
    real = codec.encode_tool

    def counted(tool):
        count[0] += 1
        return real(tool)

    monkeypatch.setattr(codec, "encode_tool", counted)
    return count


def rows_of(url: str, namespace: str) -> dict:
    import psycopg

    with psycopg.connect(url) as conn:
        tools = conn.execute(
            "SELECT name, position, hash, body FROM toolsearch_tools WHERE namespace = %s ORDER BY name", (namespace,)
        ).fetchall()
        head = conn.execute(
            "SELECT digest, resident, groups FROM toolsearch_namespaces WHERE name = %s", (namespace,)
        ).fetchone()
    return {"tools": tools, "head": head}


def reference(url: str, path: Path, namespace: str) -> dict:
    """What a push that reads and encodes every tool of the file writes (the ordinary path)."""
    store.push(url, load_catalog(str(path)), namespace)
    return rows_of(url, namespace)


def push(url: str, path: Path, namespace: str = "memo", **settings):
    return push_catalog(PushSettings(to=url, namespace=namespace, sources=[str(path)], **settings))


def test_a_push_after_editing_n_tools_reads_and_writes_exactly_those(pg_url, tmp_path, encodes):
    path = tmp_path / "catalog.json"
    doc = catalog_doc(300)
    write(path, doc)
    assert len(push(pg_url, path).plan.added) == 300 and encodes[0] == 300
    edited = [8, 3, 150, 299]  # 3 is flagged resident, 0 / 7 of a category of their own
    for i in edited:
        doc["tools"][i]["description"] += " (revised)"
    write(path, doc)
    encodes[0] = 0
    result = push(pg_url, path)
    assert encodes[0] == len(edited)  # only the edited tools were read and encoded
    assert sorted(result.plan.changed) == sorted(f"tool{i:04d}" for i in edited)
    assert (result.plan.added, result.plan.removed, result.plan.unchanged) == ([], [], 296)
    assert not result.plan.resident_changed and not result.plan.groups_changed
    import psycopg

    with psycopg.connect(pg_url) as conn:
        changes = conn.execute(
            "SELECT name, kind FROM toolsearch_changes WHERE namespace = 'memo' AND version = 2 ORDER BY name"
        ).fetchall()
    assert changes == sorted((f"tool{i:04d}", "changed") for i in edited)
    # byte for byte what a push reading every tool writes: rows, positions, hashes, digest, resident, groups
    assert rows_of(pg_url, "memo") == reference(pg_url, path, "full")
    encodes[0] = 0
    again = push(pg_url, path)
    assert again.plan.version is None and again.plan.unchanged == 300 and encodes[0] == 0


def test_added_removed_and_moved_tools_and_an_edited_head(pg_url, tmp_path, encodes):
    path = tmp_path / "catalog.json"
    doc = catalog_doc(120)
    write(path, doc)
    push(pg_url, path)
    tools = doc["tools"]
    extra = {"name": "extra", "description": "a tool added in the middle", "resident": True}
    doc["tools"] = [tools[1], tools[0], *tools[2:50], extra, *tools[51:]]  # moved, added, removed
    write(path, doc)
    encodes[0] = 0
    result = push(pg_url, path)
    assert encodes[0] == 1 and result.plan.added == ["extra"] and result.plan.removed == ["tool0050"]
    assert result.plan.resident_changed and rows_of(pg_url, "memo") == reference(pg_url, path, "full1")
    doc["category"] = "renamed"  # outside the tools: every row may depend on it, so every tool is read
    write(path, doc)
    encodes[0] = 0
    result = push(pg_url, path)
    own = sum("category" in t for t in doc["tools"])  # those with a category of their own stay
    assert encodes[0] == 120 and len(result.plan.changed) == 120 - own and own == 18
    assert rows_of(pg_url, "memo") == reference(pg_url, path, "full2")


def test_a_tampered_or_foreign_memo_never_leads_to_a_wrong_push(pg_url, tmp_path, encodes):
    from toolsearch_cli import cachedir
    from toolsearch_cli.catalog import cache

    path = tmp_path / "catalog.json"
    doc = catalog_doc(60)
    write(path, doc)
    push(pg_url, path)
    folder = cachedir.trusted_folder(create=False)
    (memo,) = [p for p in folder.glob("push-*.memo") if _memo_of(p, doc)]
    data = memo.read_bytes()
    body = json.loads(data[len(b"toolsearch-push-memo/1\n") + 32 :])
    doc["tools"][10]["description"] = "edited after the memo was written"
    write(path, doc)
    new_digest = scan(path.read_text(encoding="utf-8")).span_digests()[10]

    # 1. an entry that claims the edited bytes are the old row, without the user's key: not used
    old_hash = next(h for n, h, _ in body["tools"].values() if n == "tool0010")
    forged = {**body, "tools": {**body["tools"], new_digest: ["tool0010", old_hash, False]}}
    memo.write_bytes(data[: len(b"toolsearch-push-memo/1\n") + 32] + json.dumps(forged).encode())
    encodes[0] = 0
    result = push(pg_url, path)
    assert encodes[0] == 60 and result.plan.changed == ["tool0010"]  # the whole file was read
    assert rows_of(pg_url, "memo") == reference(pg_url, path, "full1")

    # 2. entries signed with the user's key that name another tool, or a hash the registry does not
    #    hold: the tool is read, never taken on the memo's word
    import hashlib
    import hmac

    doc["tools"][20]["description"] = "edited again"
    doc["tools"][30]["description"] = "and this one"
    write(path, doc)
    digests = scan(path.read_text(encoding="utf-8")).span_digests()
    entries = dict(json.loads(memo.read_bytes()[len(b"toolsearch-push-memo/1\n") + 32 :])["tools"])
    entries[digests[20]] = ["tool0021", entries[digests[21]][1], False]  # another tool's name and row
    entries[digests[30]] = ["tool0030", "0" * 64, False]  # a hash nobody wrote
    signed = json.dumps({**json.loads(memo.read_bytes()[55:]), "tools": entries}).encode()
    secret = cache._secret(folder)
    memo.write_bytes(b"toolsearch-push-memo/1\n" + hmac.new(secret, signed, hashlib.sha256).digest() + signed)
    encodes[0] = 0
    result = push(pg_url, path)
    # tool0020 read as unknown; then, the registry holding another tool0030, both read again
    assert sorted(result.plan.changed) == ["tool0020", "tool0030"] and encodes[0] == 3
    assert rows_of(pg_url, "memo") == reference(pg_url, path, "full2")


def _memo_of(path: Path, doc: dict) -> bool:
    body = json.loads(path.read_bytes()[len(b"toolsearch-push-memo/1\n") + 32 :])
    return {n for n, _, _ in body["tools"].values()} == {t["name"] for t in doc["tools"]}


def test_a_namespace_pushed_from_elsewhere_meanwhile_gets_the_file_s_rows(pg_url, tmp_path, encodes):
    """The memo says what the file's tools are, not what the registry holds: a push from elsewhere
    between two pushes of the file makes the second read (only) the tools the registry holds otherwise."""
    path = tmp_path / "catalog.json"
    doc = catalog_doc(80)
    write(path, doc)
    push(pg_url, path)
    other = load_catalog(str(path))
    changed = [t.copy_with(description="pushed from elsewhere") if t.name in ("tool0007", "tool0040") else t
               for t in other.tools]  # fmt: skip
    store.push(pg_url, type(other)(tools=changed, resident=other.resident, groups=other.groups), "memo")
    encodes[0] = 0
    result = push(pg_url, path)
    assert sorted(result.plan.changed) == ["tool0007", "tool0040"] and encodes[0] == 2
    assert rows_of(pg_url, "memo") == reference(pg_url, path, "full")


def test_an_edited_tool_a_reader_would_refuse_is_reported_as_without_the_memo(pg_url, tmp_path, monkeypatch):
    path = tmp_path / "catalog.json"
    doc = catalog_doc(40)
    write(path, doc)
    push(pg_url, path)
    doc["tools"][12]["parameters"] = "not a schema"
    write(path, doc)
    with pytest.raises(CatalogError) as with_memo:
        push(pg_url, path)
    monkeypatch.setenv("TOOLSEARCH_NO_CACHE", "1")
    with pytest.raises(CatalogError) as without:
        push(pg_url, path)
    assert str(with_memo.value) == str(without.value) and "tool0012" in str(with_memo.value)
    doc["tools"][12]["parameters"] = {"type": "object"}
    doc["tools"][13]["name"] = "tool0014"  # a duplicate name spans tools: the ordinary load says so
    write(path, doc)
    monkeypatch.delenv("TOOLSEARCH_NO_CACHE")
    with pytest.raises(CatalogError) as with_memo:
        push(pg_url, path)
    monkeypatch.setenv("TOOLSEARCH_NO_CACHE", "1")
    with pytest.raises(CatalogError) as without:
        push(pg_url, path)
    assert str(with_memo.value) == str(without.value) and "duplicate tool name" in str(with_memo.value)


@pytest.mark.parametrize(
    "text",
    [
        '{"tools": [{"name": "a"}], "tools": []}',  # a key twice: the strict loader refuses it
        '{"tools": [{"name": "a"}]} trailing',
        '[{"name": "a"}]',
        '{"tools": {"name": "a"}}',
        '{"tools": [{"name": "a"},]}',
        '{"tools": [{"name": "a"}',
        "{}",
    ],
)
def test_the_scan_leaves_any_other_shape_to_the_loader(text):
    assert scan(text) is None


def test_the_scan_finds_each_tool_s_bytes():
    text = '{"category": "c", "tools" : [ {"name": "a", "x": [1, {"y": "]"}]} ,\n{"name": "b"}], "resident": []}'
    found = scan(text)
    assert found is not None and found.names == ["a", "b"] and found.head == {"category": "c", "resident": []}
    assert [text[a:b] for a, b in found.spans] == ['{"name": "a", "x": [1, {"y": "]"}]}', '{"name": "b"}']
