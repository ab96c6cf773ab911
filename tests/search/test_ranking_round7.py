"""Issue 32, round 7: the default ranker on MCP servers (benchmarks/notes/ranking-round7.md).

Round 6 weighed the action a request asks for against the action a tool does. On MCP servers many
requests got no action, and many tools none either:

* a question that opens with a contraction (*what's WEB-87 about?*) was not read as a question;
  *make the variation use ...* asks to change a thing, not to make one; *file a bug* creates one;
* a request of another language asks for the action of its English gloss (:func:`.lexicon.gloss`);
* a tool whose name has no verb first (``env_var_set``, ``kv_namespace_get``) does the action of its
  name's last word, else of its description's first verb (*Add a secret to a Worker*, *This tool
  will create ...*), else reads when its MCP annotations say ``readOnlyHint``.

And the label bonus (LABEL_SHARE) of a tool whose label is its two-word name is weighed down in a
long request, which says such a name by chance (LABEL_LONG_TERMS).
"""

from __future__ import annotations

import pytest

from toolsearch_cli.model import Catalog
from toolsearch_cli.search import bm25f
from toolsearch_cli.search.actions import CREATE, DELETE, READ, UPDATE, description_action, request_action
from toolsearch_cli.search.base import SearchRequest

from .tools import string_tool

tool = string_tool


@pytest.fixture(autouse=True)
def _fresh_actions():
    bm25f._PACKED_ACTIONS.clear()
    yield
    bm25f._PACKED_ACTIONS.clear()


def ranked(catalog: Catalog, query: str, top_k: int = 10) -> list[str]:
    hits = bm25f.BM25FRanker().search(catalog, SearchRequest(query=query, max_results=top_k, explain=False))
    return [h.tool.name for h in hits if h.score > 0]


@pytest.mark.parametrize(
    ("query", "action"),
    [
        # a question word's contraction is a question word
        ("what's WEB-87 about?", READ),
        ("who's on call this weekend", READ),
        ("where's the invoice for October", READ),
        ("it's Friday, time for the weekly note", None),
        # make + a thing that exists: change it; make + a new thing: create it
        ("make the 'concise' variation use claude-sonnet instead", UPDATE),
        ("make everyone's passwords at least 14 characters long", UPDATE),
        ("make a folder called Invoices 2027 under /Finance", CREATE),
        ("make a new voice agent called Order Desk", CREATE),
        # a person, a pronoun: make them something
        ("make Priya an admin on the billing project", UPDATE),
        ("make me the owner of the repo", UPDATE),
        ("file a bug: the checkout button does nothing on Safari", CREATE),
        ("roll out new-checkout to 20% of users", UPDATE),
        ("leave a comment on the planning doc", CREATE),
        ("leave the other colours alone", None),
        ("done with the grocery shopping, tick it off", UPDATE),
        ("load our old translation memory export into the Legal memory", CREATE),
    ],
)
def test_the_action_of_a_request(query: str, action: str | None) -> None:
    assert request_action(query) == action


@pytest.mark.parametrize(
    ("query", "action"),
    [
        ("Zeig mir alle Feature-Flags im Projekt mobile-app", READ),
        # German puts the verb last: the gloss's action word anywhere
        ("Neues Produkt „Team-Lizenz“ für 49 € im Monat anlegen", CREATE),
        ("crea un tablero nuevo llamado Eventos en el espacio de trabajo de Ventas", CREATE),
    ],
)
def test_a_request_of_another_language_asks_for_the_action_of_its_gloss(monkeypatch, query: str, action: str) -> None:
    assert request_action(query) is None  # no English word opens it
    assert bm25f.asked_action(query) == action
    monkeypatch.setattr(bm25f, "ACTION_GLOSS", False)
    assert bm25f.asked_action(query) is None


@pytest.mark.parametrize(
    ("name", "description", "action"),
    [
        # the verb after the object
        ("env_var_set", "Set an environment variable for a Worker", UPDATE),
        ("kv_namespace_get", "Get a KV namespace", READ),
        ("workers_analytics_search", "Search Workers analytics data", READ),
        # no verb in the name: the description's first verb, after a lead
        ("secret_put", "Add a secret to a Worker", CREATE),
        ("ai_image_generation", "Generate images using an AI model", CREATE),
        ("create_report_tool", "Anything", CREATE),
        ("report_tool", "\nThis tool will create a new report in Paddle.", CREATE),
        ("file_issues", "Use this tool to list the issues of a file.", READ),
        ("area_tool", "Calculate the area of a polygon.", READ),
        ("board_insights", "Insights about a board.", None),
        ("pause_subscription", "This tool will pause a subscription.", None),
    ],
)
def test_the_action_of_an_mcp_tool_without_a_verb_first(name: str, description: str, action: str | None) -> None:
    assert bm25f.action_of(tool(name, description)) == action


def test_the_description_action_reads_only_the_first_verb() -> None:
    assert description_action("Delete a reminder of a task.") == DELETE
    assert description_action("A reminder that can be deleted.") is None


def test_a_read_only_hint_says_read_when_name_and_description_do_not(monkeypatch) -> None:
    hinted = {"mcp": {"annotations": {"readOnlyHint": True, "destructiveHint": False}}}
    assert bm25f.action_of(tool("isochrone_tool", "Areas reachable from a point.", metadata=hinted)) == READ
    # a hint does not overrule the name
    assert bm25f.action_of(tool("create_map", "Computes a map.", metadata=hinted)) == CREATE
    # a destructive hint alone says nothing: it may delete or update
    destructive = {"mcp": {"annotations": {"readOnlyHint": False, "destructiveHint": True}}}
    assert bm25f.action_of(tool("complete_tasks", "Complete tasks.", metadata=destructive)) is None
    # a hint that is not a boolean true is not read
    odd = {"mcp": {"annotations": {"readOnlyHint": "yes"}}}
    assert bm25f.action_of(tool("isochrone_tool", "Areas reachable from a point.", metadata=odd)) is None
    monkeypatch.setattr(bm25f, "ACTION_READ_ONLY", False)
    bm25f._PACKED_ACTIONS.clear()
    assert bm25f.action_of(tool("isochrone_tool", "Areas reachable from a point.", metadata=hinted)) is None


#: A terse key-value server: short names, one-line descriptions.
VALUES = Catalog(
    tools=[
        tool("kv_get", "Get a value from a KV namespace.", {"namespace_id": "The namespace", "key": "The key"}),
        tool(
            "namespace_value_set",
            "Set the value of a key in a namespace.",
            {"namespace_id": "The namespace", "key": "The key", "value": "The new value"},
        ),
        tool("kv_namespace_list", "List KV namespaces.", {}),
    ]
)


def test_a_tool_whose_name_ends_with_another_action_earns_no_action_bonus(monkeypatch) -> None:
    query = "show the value of beta in the CONFIG namespace"
    plan = bm25f.query_plan(query)
    assert plan.action == READ
    _, bonuses, _ = bm25f.rank_index(bm25f.default_index(VALUES), plan, 3)
    assert "action: read, as the request asks" in bonuses["kv_get"][1]
    assert "action" not in bonuses.get("namespace_value_set", (0.0, ""))[1]
    # before: its action was not known, and an unknown action earns the bonus
    monkeypatch.setattr(bm25f, "ACTION_NAME_LAST", False)
    monkeypatch.setattr(bm25f, "ACTION_DESCRIPTION", False)  # "Set the value ...": update too
    bm25f._PACKED_ACTIONS.clear()
    _, bonuses, _ = bm25f.rank_index(bm25f.default_index(VALUES), bm25f.query_plan(query), 3)
    assert "the tool's action is not known" in bonuses["namespace_value_set"][1]


#: A terse worker server (names of two words, one-line descriptions), written for this test.
WORKERS = Catalog(
    tools=[
        tool("worker_put", "Create or update a Worker script.", {"script_name": "The Worker", "content": "The script"}),
        tool("worker_deploy", "Deploy a Worker script from a file.", {"script_name": "The Worker", "path": "The file"}),
        tool("worker_delete", "Delete a Worker script.", {"script_name": "The Worker"}),
        tool(
            "version_rollback",
            "Roll back to an earlier version.",
            {"script_name": "The Worker", "version_id": "The version to go back to"},
        ),
        tool("version_list", "List the versions of a Worker.", {"script_name": "The Worker"}),
    ]
)
LONG = (
    "since this morning's release of the checkout worker half of the payments fail, "
    "put the checkout worker back to the version that was live yesterday"
)


def test_a_long_request_that_says_a_two_word_name_by_chance_does_not_rank_it_first(monkeypatch) -> None:
    assert ranked(WORKERS, LONG)[0] == "version_rollback"
    monkeypatch.setattr(bm25f, "LABEL_LONG_TERMS", None)
    assert ranked(WORKERS, LONG)[0] == "worker_put"


def test_a_short_request_keeps_the_whole_label_bonus() -> None:
    plan = bm25f.query_plan("put the worker")
    _, bonuses, _ = bm25f.rank_index(bm25f.default_index(WORKERS), plan, 5)
    assert "x0." not in bonuses["worker_put"][1]


def test_the_explanation_says_the_label_bonus_was_weighed_down() -> None:
    hits = bm25f.BM25FRanker().search(WORKERS, SearchRequest(query=LONG, max_results=5, explain=True))
    put = next(h for h in hits if h.tool.name == "worker_put")
    rows = [c.detail for c in put.contributions if c.term == "(the query)"]
    assert rows and "its name, in a request of" in rows[0]
    assert sum(c.points for c in put.contributions) == pytest.approx(put.score, rel=1e-6)


def test_a_long_chinese_request_asks_for_several_things_and_gets_no_action() -> None:
    # one white-space token, but many words: each CJK character counts (CJK_WORD_CHARS)
    long = "我想下周去东京出差，请帮我创建一个日程提醒，然后查询一下那几天的天气，再帮我预订一家离会场近的酒店"
    assert len(long.split()) == 1
    assert bm25f.request_words(long) > bm25f.ACTION_MAX_WORDS
    assert bm25f.asked_action(long) is None
    assert bm25f.asked_action("创建一个日程提醒") == CREATE


def test_everyday_words_for_a_distance_and_for_muting() -> None:
    from toolsearch_cli.search.related import expansions
    from toolsearch_cli.search.text import analyze

    query = "how far is Oslo from Bergen as the crow flies"
    assert set(analyze("distance")) <= set(expansions(query, analyze(query)))
    query = "silence db-replica-3 for the next 2 hours"
    assert set(analyze("mute")) <= set(expansions(query, analyze(query)))


#: A map server's measuring tools, written for this test.
MAPS = Catalog(
    tools=[
        tool("distance_tool", "Calculate the distance between two coordinates.", {"from": "Start", "to": "End"}),
        tool("isochrone_tool", "Areas reachable within a time.", {"location": "Where", "minutes": "How long"}),
        tool("area_tool", "Calculate the area of a polygon.", {"polygon": "The shape"}),
    ]
)


def test_how_far_finds_the_distance_tool() -> None:
    assert ranked(MAPS, "how far is Oslo from Bergen as the crow flies")[:1] == ["distance_tool"]


@pytest.mark.parametrize(
    ("query", "words"),
    [
        ("帮我在“装修”项目里加一个“厨房”分区", {"project", "section"}),
        ("把 ENG-620 放到下一个迭代里", {"move", "cycle"}),
        ("把这些产品说明存进 Pinecone 的 products 索引里", {"index"}),
        ("在论坛频道发一个帖子", {"post"}),
        ("Stummschalten für den Host web-07", {"mute"}),
    ],
)
def test_the_lexicon_has_sections_sprints_indexes_mutes_and_posts(query: str, words: set[str]) -> None:
    from toolsearch_cli.search.lexicon import gloss

    assert words <= set((gloss(query) or "").split())


def test_latency_is_a_metric() -> None:
    from toolsearch_cli.search.related import expansions
    from toolsearch_cli.search.text import analyze

    query = "p99 latency of the payments API over the last day"
    assert set(analyze("metrics")) <= set(expansions(query, analyze(query)))
