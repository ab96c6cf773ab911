"""Multiplexed tools (round 8): one tool, several operations chosen by an enum parameter.

n8n-mcp's ``n8n_executions`` (``action``: get / list / delete) and monday.com's
``form_questions_editor`` (``action``: delete / update / create) are read from the committed
snapshots of those real servers (blind sets 7 and 5, tuning sets): the action agreement of the
default ranker sees every operation the tool does, not only its name's or description's first verb.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolsearch_cli import load_catalog
from toolsearch_cli.model import Catalog, Tool, pack_tools
from toolsearch_cli.search import bm25f
from toolsearch_cli.search.actions import CREATE, DELETE, READ, UPDATE, multiplexed_actions
from toolsearch_cli.search.base import SearchRequest

SNAPSHOTS = Path(__file__).resolve().parents[2] / "benchmarks" / "real_catalogs"
N8N = SNAPSHOTS / "snapshots-blind7" / "mcp-n8n.json"
MONDAY = SNAPSHOTS / "snapshots-blind5" / "mcp-monday.json"


@pytest.fixture(autouse=True)
def _fresh_memos():
    bm25f._PACKED_ACTIONS.clear()
    bm25f._PACKED_MULTIPLEXED.clear()
    bm25f._MULTIPLEXED.clear()
    yield
    bm25f._PACKED_ACTIONS.clear()
    bm25f._PACKED_MULTIPLEXED.clear()
    bm25f._MULTIPLEXED.clear()


def _schema(path: Path, name: str) -> dict:
    tools = json.loads(path.read_text(encoding="utf-8"))["tools"]
    schema: dict = next(t for t in tools if t["name"] == name)["inputSchema"]
    return schema


def _catalog(path: Path) -> Catalog:
    return load_catalog([str(path)])


def test_a_real_multiplexed_tool_does_each_of_its_operations() -> None:
    classes, values = multiplexed_actions(_schema(N8N, "n8n_executions"))
    assert classes == {READ, DELETE}
    assert values == ("get", "list", "delete")
    # verb_noun values: createTable, listTables, deleteRows, ...
    classes, values = multiplexed_actions(_schema(N8N, "n8n_manage_datatable"))
    assert classes == {CREATE, READ, UPDATE, DELETE}
    assert values[:3] == ("createTable", "listTables", "getTable")


def test_a_tool_with_one_operation_or_a_kind_enum_is_not_multiplexed() -> None:
    # n8n_get_workflow's ``mode`` (full / details / structure / ...) says how much, not which operation
    assert multiplexed_actions(_schema(N8N, "n8n_get_workflow")) == (frozenset(), ())
    # an enum of kinds under ``type`` is no operation parameter, verbs or not
    typed = {"properties": {"type": {"type": "string", "enum": ["create", "delete"]}}}
    assert multiplexed_actions(typed) == (frozenset(), ())
    # HTTP methods (a webhook's method) are no operation of the tool
    webhook = {"properties": {"method": {"type": "string", "enum": ["GET", "POST", "DELETE"]}}}
    assert multiplexed_actions(webhook) == (frozenset(), ())


def test_the_explanation_names_the_operations() -> None:
    catalog = _catalog(N8N)
    hits = bm25f.BM25FRanker().search(
        catalog, SearchRequest(query="delete the failed execution 812", max_results=5, explain=True)
    )
    assert hits[0].tool.name == "n8n_executions"
    rows = [c.detail for c in hits[0].contributions if c.term == "(the query)"]
    assert rows and "action: delete, one of the tool's actions get/list/delete" in rows[0]


def test_a_multiplexed_tool_without_the_asked_action_earns_no_action_bonus() -> None:
    catalog = _catalog(N8N)
    plan = bm25f.query_plan("add a Postgres credential for prod-db so the workflows can use it")
    assert plan.action == CREATE
    _, bonuses, _ = bm25f.rank_index(bm25f.default_index(catalog), plan, 10)
    assert "one of the tool's actions list/get/create/update/delete/getSchema" in bonuses["n8n_manage_credentials"][1]
    # before: n8n_executions's action was not known, and an unknown action earns the bonus
    assert "n8n_executions" not in bonuses or "action" not in bonuses["n8n_executions"][1]


def test_an_operation_of_a_real_tool_whose_description_says_another_action_first(monkeypatch) -> None:
    # "Create, update, or delete a question in a monday.com form": its description says create
    catalog = _catalog(MONDAY)
    query = "delete the shoe size question from the signup form"

    def first() -> str:
        hits = bm25f.BM25FRanker().search(catalog, SearchRequest(query=query, max_results=5))
        return hits[0].tool.name

    assert first() == "form_questions_editor"
    monkeypatch.setattr(bm25f, "MULTIPLEX_ACTIONS", False)
    assert first() == "update_form"


def test_a_tool_whose_name_says_its_action_keeps_it() -> None:
    # update_form's ``action`` enum (createTag, deleteTag, setFormPassword, ...) lists kinds of update
    tool = next(t for t in _catalog(MONDAY).tools if t.name == "update_form")
    assert multiplexed_actions(tool.parameters)[0] >= {CREATE, DELETE}
    assert bm25f._multiplexed_share(tool, CREATE, bm25f.action_of(tool)) is None


def test_one_level_under_an_object_parameter() -> None:
    schema = {"properties": {"params": {"type": "object", "properties": {"Op": {"enum": ["list", "remove"]}}}}}
    assert multiplexed_actions(schema) == (frozenset({READ, DELETE}), ("list", "remove"))
    deeper = {"properties": {"a": {"properties": {"b": {"properties": {"op": {"enum": ["list", "remove"]}}}}}}}
    assert multiplexed_actions(deeper) == (frozenset(), ())


@pytest.mark.parametrize(
    "schema",
    [
        None,
        [],
        "action",
        {"properties": ["action"]},
        {"properties": {"action": "get"}},
        {"properties": {"action": {"enum": "get list delete"}}},
        {"properties": {"action": {"enum": [1, 2.5, None, {"get": 1}, ["list"], True]}}},
        {"properties": {"action": {"enum": ["get", {"nested": "delete"}]}}},
        {"properties": {7: {"enum": ["get", "delete"]}}},
        {"properties": {"action": {"enum": ["delete " * 20, "get " * 20]}}},
    ],
)
def test_a_hostile_schema_is_not_multiplexed(schema: object) -> None:
    assert multiplexed_actions(schema) == (frozenset(), ())


def test_a_huge_enum_is_read_only_to_its_bound() -> None:
    values = ["frobnicate"] * 1_000_000 + ["get", "delete"]
    assert multiplexed_actions({"properties": {"action": {"enum": values}}}) == (frozenset(), ())
    many = {
        "properties": {f"p{i}": {"type": "string"} for i in range(10_000)} | {"action": {"enum": ["get", "delete"]}}
    }
    assert multiplexed_actions(many) == (frozenset(), ())
    # non-string values among verbs are skipped
    mixed = {"properties": {"action": {"enum": [None, "get", 3, "delete", ["create"]]}}}
    assert multiplexed_actions(mixed) == (frozenset({READ, DELETE}), ("get", "delete"))


def test_a_tool_built_in_code_is_read_too() -> None:
    tool = Tool(
        name="manage_tags",
        description="Manage tags.",
        parameters={"type": "object", "properties": {"action": {"type": "string", "enum": ["list", "add", "remove"]}}},
    )
    assert bm25f.multiplexed_of(tool) == (frozenset({READ, CREATE, DELETE}), ("list", "add", "remove"))


def test_a_tool_given_new_parameters_is_read_anew() -> None:
    tool = Tool(name="manage_tags", description="Manage tags.", parameters={"type": "object", "properties": {}})
    assert bm25f.multiplexed_of(tool) == (frozenset(), ())
    tool.parameters = {"type": "object", "properties": {"action": {"type": "string", "enum": ["list", "remove"]}}}
    assert bm25f.multiplexed_of(tool) == (frozenset({READ, DELETE}), ("list", "remove"))


def test_a_packed_tool_is_read_and_stays_packed() -> None:
    tool = Tool(
        name="manage_tags",
        description="Manage tags.",
        parameters={"type": "object", "properties": {"action": {"type": "string", "enum": ["list", "add", "remove"]}}},
    )
    pack_tools([tool])
    assert "_packed" in tool.__dict__
    assert bm25f.multiplexed_of(tool) == (frozenset({READ, CREATE, DELETE}), ("list", "add", "remove"))
    assert "_packed" in tool.__dict__
