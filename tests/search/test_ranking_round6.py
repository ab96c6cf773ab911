"""Issue 32, round 6: the action a request asks for against the action a tool does.

The commonest failure of the default ranker on real catalogs is the right object with the wrong
action: *remind me to call the dentist* ranked ``find-reminders`` above ``add-reminders``, because
the verbs that tell them apart are in a third of the catalog and weigh almost nothing. The request's
action (:func:`toolsearch_cli.search.actions.request_action`) and each tool's
(:func:`toolsearch_cli.search.bm25f.action_of`) now agree or not, and the best tools that do
another action than the one asked for lose ACTION_SHARE of the best score to the others
(benchmarks/notes/ranking-round6.md has the measurements).
"""

from __future__ import annotations

import pytest

from toolsearch_cli.model import Catalog, Tool
from toolsearch_cli.search import bm25f
from toolsearch_cli.search.actions import CREATE, DELETE, READ, UPDATE, request_action
from toolsearch_cli.search.base import SearchRequest

from .tools import string_tool

tool = string_tool


def ranked(catalog: Catalog, query: str, top_k: int = 10) -> list[str]:
    hits = bm25f.BM25FRanker().search(catalog, SearchRequest(query=query, max_results=top_k))
    return [h.tool.name for h in hits if h.score > 0]


#: A to-do server's reminder and task tools, modelled on blind set 4's Todoist server: the tool that
#: finds reminders says "reminder" more often than the one that adds them.
REMINDERS = Catalog(
    tools=[
        tool(
            "find-reminders",
            "Find reminders: list the reminders of a task, or every reminder due in a date range.",
            {"task_id": "The task whose reminders to find", "due_after": "Reminders due after this date"},
            metadata={"mcp": {"title": "Todoist: Find Reminders"}},
        ),
        tool(
            "add-reminders",
            "Add one or more reminders to tasks.",
            {"items": "The reminders, each with its task and due date"},
            metadata={"mcp": {"title": "Todoist: Add Reminders"}},
        ),
        tool(
            "delete-reminder",
            "Delete a reminder of a task.",
            {"reminder_id": "The reminder"},
            metadata={"mcp": {"title": "Todoist: Delete Reminder"}},
        ),
        tool(
            "add-tasks",
            "Add tasks to a project.",
            {"content": "What the task says"},
            metadata={"mcp": {"title": "Todoist: Add Tasks"}},
        ),
        tool(
            "find-tasks",
            "Find tasks by text or date.",
            {"query": "Text to look for"},
            metadata={"mcp": {"title": "Todoist: Find Tasks"}},
        ),
        tool(
            "get-overview",
            "An overview of the account's projects.",
            {},
            metadata={"mcp": {"title": "Todoist: Get Overview"}},
        ),
    ]
)


def test_remind_me_ranks_the_tool_that_adds_reminders_first(monkeypatch) -> None:
    query = "remind me to call the dentist tomorrow at 9"
    assert ranked(REMINDERS, query)[0] == "add-reminders"
    # without the action bonus a tool that does another action with reminders wins on the word
    monkeypatch.setattr(bm25f, "ACTION_SHARE", 0.0)
    assert ranked(REMINDERS, query)[0] in ("find-reminders", "delete-reminder")


@pytest.mark.parametrize(
    ("query", "action"),
    [
        ("remind me to call the dentist", CREATE),
        ('add "Prepare Q3 deck" to the Marketing board', CREATE),
        ("who changed the deadlines on the Roadmap board last week?", READ),
        ("how many items per status on board 4412", READ),
        ("Mr. Chen called, he can't make tomorrow's 3pm visit, cancel it", DELETE),
        ("get rid of the spam comment under my video", DELETE),
        ("can you please show me the log", READ),
        # a yes/no question asks to read too
        ("did the lipid panel results come back for lab order 9921?", READ),
        ("is anything on fire? which monitors are alerting", READ),
        ("turn on live captions for the all-hands meeting", UPDATE),
        ("log a new lead: Hannah Berg from Nordwind GmbH", CREATE),
        ("the bank bounced yesterday's direct debit, mark the payment as rejected", UPDATE),
        # quoted text is a name, not what the request asks
        ('add "Delete old files" to my list', CREATE),
        # no clause opens with an action: no action (mid-clause "get" is not what it asks)
        ("We get purchase orders from suppliers in the Dropoff folder", None),
        ("errors from checkout-service in the last 15 minutes", None),
    ],
)
def test_the_action_of_a_request(query: str, action: str | None) -> None:
    assert request_action(query) == action


def test_a_request_without_a_clause_opening_with_an_action_can_take_its_first_action_word() -> None:
    assert request_action("We get purchase orders from suppliers", anywhere=True) == READ


def openapi(name: str, method: str, path: str, summary: str) -> Tool:
    return Tool(
        name=name,
        description=summary,
        parameters={"type": "object", "properties": {}},
        metadata={"openapi": {"method": method, "path": path}},
    )


@pytest.mark.parametrize(
    ("operation", "action"),
    [
        (openapi("meetingCreate", "post", "/users/{userId}/meetings", "Create a meeting"), CREATE),
        (openapi("meetingUpdate", "patch", "/meetings/{meetingId}", "Update a meeting"), UPDATE),
        (openapi("meetings", "get", "/users/{userId}/meetings", "List meetings"), READ),
        (openapi("meetingDelete", "delete", "/meetings/{meetingId}", "Delete a meeting"), DELETE),
        # a POST to an action: the path's last word says it
        (openapi("PostPaymentIntentsIntentCancel", "post", "/payment_intents/{intent}/cancel", "Cancel"), DELETE),
        (openapi("PostPaymentIntentsIntentCapture", "post", "/payment_intents/{intent}/capture", "Capture"), None),
        # ... else the name's first verb (its method word dropped: "post" says nothing here)
        (openapi("createOpportunityEntity", "post", "/opportunity", "Create opportunity"), CREATE),
        (openapi("post_api_v1_accounts_id_mute", "post", "/api/v1/accounts/{id}/mute", "Mute account"), None),
    ],
)
def test_the_action_of_an_openapi_operation_is_its_methods_meaning(operation: Tool, action: str | None) -> None:
    assert bm25f.action_of(operation) == action


@pytest.mark.parametrize(
    ("name", "action"),
    [
        ("create_item", CREATE),
        ("discord_send", CREATE),
        ("list-calendars", READ),
        ("board_insights", None),
        # an HTTP method before another verb: the second says what the tool does
        ("API-post-search", READ),
        ("post_message", CREATE),
    ],
)
def test_the_action_of_a_tool_is_the_first_verb_of_its_name(name: str, action: str | None) -> None:
    # a server prefix ("discord_") is passed over
    assert bm25f.action_of(tool(name, "Something.")) == action


def test_a_tool_whose_action_is_unknown_is_not_put_behind_one_that_agrees() -> None:
    plan = bm25f.query_plan("remind me to call the dentist tomorrow at 9")
    assert plan.action == CREATE
    best, bonuses, _ = bm25f.rank_index(bm25f.default_index(REMINDERS), plan, 6)
    # find-reminders and find-tasks do another action: no bonus; the others have one
    assert "find-reminders" not in bonuses and "find-tasks" not in bonuses
    assert "add-reminders" in bonuses and "action:" in bonuses["add-reminders"][1]


def test_a_long_request_asks_for_several_things_and_gets_no_action() -> None:
    long = (
        "I want to plan a surprise party for my friend, can you help me create a short URL for the "
        "invitation and also give me a list of the domains I could use for it"
    )
    assert len(long.split()) > bm25f.ACTION_MAX_WORDS
    assert bm25f.query_plan(long).action is None
    assert bm25f.query_plan("create a short URL for the invitation").action == CREATE


def test_the_explanation_says_the_action_bonus() -> None:
    hits = bm25f.BM25FRanker().search(
        REMINDERS, SearchRequest(query="remind me to call the dentist tomorrow at 9", max_results=3, explain=True)
    )
    first = hits[0]
    assert first.tool.name == "add-reminders"
    rows = [c for c in first.contributions if "action" in c.detail]
    assert rows and "action: create, as the request asks" in rows[0].detail
    assert sum(c.points for c in first.contributions) == pytest.approx(first.score, rel=1e-6)
