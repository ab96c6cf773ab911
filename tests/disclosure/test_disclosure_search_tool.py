"""The toolSearch tool (seed §3 and the flaws of §7): definition, validated arguments, error results, slots."""

from __future__ import annotations

import json

import pytest

from toolsearch_cli import Catalog, CatalogError
from toolsearch_cli.agent import tool_entry
from toolsearch_cli.disclosure import (
    CatalogManager,
    CumulativePolicy,
    DisclosureEngine,
    LatestPolicy,
    parse_arguments,
    search_tool_definition,
)
from toolsearch_cli.disclosure.search_tool import ArgumentError
from toolsearch_cli.search.base import MAX_RESULTS_LIMIT
from toolsearch_cli.tokens import CharEstimateCounter

from ..conftest import make

COUNTER = CharEstimateCounter()


def demo_engine(**options):
    tools = [
        make("weatherLookup", "Fetch a forecast", "weather", ["integration", "weather"], {"city": {"type": "string"}}),
        make("travelPlanner", "Plan travel using weather forecasts", "travel", ["integration", "travel"]),
        make("calendar", "Create an event", "office", ["integration", "office"]),
        make("sendEmail", "Send an email", "email", ["email"]),
        make("currentTime", "Return the current time"),
    ]
    return DisclosureEngine(Catalog(tools=tools, resident=["currentTime"]), counter=COUNTER, **options)


def test_definition_has_query_max_results_and_category_as_json_schema():
    tool = search_tool_definition()
    params = tool_entry(tool)["function"]["parameters"]
    assert tool.name == "toolSearch"
    assert params["required"] == ["query"]
    assert set(params["properties"]) == {"query", "maxResults", "category"}
    assert params["properties"]["maxResults"]["type"] == "integer"
    assert "next" in tool.description and "does not run" in tool.description


def test_result_is_compact_json_array_of_names_in_rank_order():
    outcome = demo_engine().execute_search({"query": "weather"})
    assert outcome.content() == '["weatherLookup","travelPlanner"]'


@pytest.mark.parametrize(
    "arguments, field",
    [
        ({"query": "   "}, "query"),
        ({"query": "?!… —"}, "query"),  # punctuation-only: the reference dumps the first N tools
        ({}, "query"),
        ({"query": 3}, "query"),
        ({"query": "weather", "maxResults": 0}, "maxResults"),
        ({"query": "weather", "maxResults": -2}, "maxResults"),
        ({"query": "weather", "maxResults": 2.5}, "maxResults"),
        ({"query": "weather", "maxResults": True}, "maxResults"),
        ({"query": "weather", "maxResults": "three"}, "maxResults"),
        ({"query": "weather", "limit": 3}, "limit"),
        ({"query": "weather", "category": "!!!"}, "category"),
        ({"query": "weather", "category": "nope"}, "category"),
    ],
)
def test_bad_arguments_give_a_structured_error_result_not_an_exception(arguments, field):
    outcome = demo_engine().execute_search(arguments)
    assert not outcome.ok
    body = json.loads(outcome.content())
    assert body["field"] == field and body["error"]


def test_arguments_that_are_not_json_give_an_error_result():
    outcome = demo_engine().execute_search('{"query": "weather"')
    assert not outcome.ok and "not valid JSON" in outcome.error


@pytest.mark.parametrize(
    "raw, expected", [(" 3 ", 3), ("3.0", 3), (3.0, 3), (2, 2), (None, 5), (10_000, MAX_RESULTS_LIMIT)]
)
def test_max_results_accepts_numbers_and_numeric_text_and_is_capped(raw, expected):
    arguments = {"query": "weather"} if raw is None else {"query": "weather", "maxResults": raw}
    assert parse_arguments(arguments).max_results == expected


def test_empty_category_means_no_filter_and_category_is_normalised():
    assert parse_arguments({"query": "x y", "category": ""}).category is None
    assert demo_engine().execute_search({"query": "weather", "category": "WEATHER"}).names == ["weatherLookup"]


def test_parse_arguments_raises_argument_error_for_the_engine_to_turn_into_a_result():
    with pytest.raises(ArgumentError):
        parse_arguments("[1, 2]")


class StaleProvider:
    """A provider whose index still holds names the manager no longer resolves."""

    def __init__(self, names):
        self.names = names
        self.limits = []

    def search(self, query, category, limit):
        self.limits.append(limit)
        return self.names[:limit]


def test_stale_provider_entries_do_not_eat_result_slots():
    tools = [make(n, n) for n in ("a1", "a2", "a3")]
    stale = [f"gone{i}" for i in range(20)] + ["a1", "a1", "a2", "a3"]
    manager = CatalogManager(tools, provider=StaleProvider(stale))
    assert manager.search("q", max_results=2) == ["a1", "a2"]
    assert manager.provider.limits[-1] > 20  # it asked again for more


def test_failing_provider_becomes_an_error_result():
    class Broken:
        def search(self, query, category, limit):
            raise RuntimeError("index offline")

    manager = CatalogManager([make("a1", "x")], provider=Broken())
    eng = DisclosureEngine(Catalog(tools=[make("a1", "x")]), counter=COUNTER, manager=manager)
    outcome = eng.execute_search({"query": "anything"})
    assert not outcome.ok and "index offline" in outcome.error


def test_manager_duplicate_policy_rejects_unless_replace_and_reserved_name_is_refused():
    first, second = make("getWeather", "one"), make("getWeather", "two")
    manager = CatalogManager([first, make("b", "b")])
    with pytest.raises(CatalogError, match="already registered"):
        manager.register(second)
    assert manager.resolve("getWeather") is first
    manager.register(second, replace=True)
    assert manager.resolve("getWeather") is second
    assert [t.name for t in manager.tools()] == ["getWeather", "b"]  # replaced in place
    with pytest.raises(CatalogError, match="reserved"):
        manager.register(make("toolSearch", "x"))


def test_manager_unregister_and_resolve_and_search_reindexes():
    manager = CatalogManager([make("sendEmail", "Send an email"), make("readEmail", "Read an email")])
    assert sorted(manager.search("email", max_results=5)) == ["readEmail", "sendEmail"]
    assert manager.unregister("sendEmail") is True
    assert manager.unregister("sendEmail") is False
    assert manager.resolve("sendEmail") is None
    assert manager.search("email", max_results=5) == ["readEmail"]


def test_latest_policy_replaces_and_caps():
    policy = LatestPolicy()
    assert policy.apply(["a"], ["b", "c", "b"], None) == ["b", "c"]
    assert policy.apply(["a"], ["b", "c", "d"], 2) == ["b", "c"]
    assert policy.apply(["a"], None, None) == []


def test_cumulative_policy_evicts_least_recently_used_then_lowest_ranked():
    policy = CumulativePolicy()
    active = policy.apply([], ["a", "b"], 3)
    assert active == ["a", "b"]  # most recent first; within a search, in rank order
    active = policy.apply(active, ["c"], 3)
    assert active == ["c", "a", "b"]
    active = policy.apply(active, ["d"], 3)  # a and b were found together: b, ranked lower, goes
    assert active == ["d", "c", "a"]
    active = policy.apply(active, ["a"], 3)  # found again: refreshed, so c goes next
    assert active == ["a", "d", "c"]
    active = policy.apply(active, ["e"], 3)
    assert active == ["e", "a", "d"]
    assert policy.apply(active, None, 3) == active  # a failed search adds and removes nothing
    assert policy.apply(active, ["x", "y", "z", "w"], 3) == ["x", "y", "z"]  # best-ranked kept
    assert policy.apply(["a"], ["b"], None) == ["b", "a"]


def test_cumulative_policy_counts_a_call_as_a_use():
    """The issue's case: the top hit, just called, outlives the lower hits of the same search."""
    policy = CumulativePolicy()
    weather = policy.apply([], ["getWeather", "getWeatherAlerts", "getAirQuality"], 4)
    without_call = policy.apply(weather, ["sendEmail", "createEmailDraft"], 4)
    assert without_call == ["sendEmail", "createEmailDraft", "getWeather", "getWeatherAlerts"]  # by rank
    called = policy.apply(weather, ["sendEmail", "createEmailDraft", "sendPaymentReminder"], 4, used=["getAirQuality"])
    assert called == ["sendEmail", "createEmailDraft", "sendPaymentReminder", "getAirQuality"]
    issue = policy.apply(weather, ["sendEmail", "createEmailDraft", "sendPaymentReminder"], 4, used=["getWeather"])
    assert issue == ["sendEmail", "createEmailDraft", "sendPaymentReminder", "getWeather"]
    used_twice = policy.apply(weather, ["sendEmail", "createEmailDraft"], 4, used=["getAirQuality", "getWeatherAlerts"])
    assert used_twice == ["sendEmail", "createEmailDraft", "getWeatherAlerts", "getAirQuality"]
    assert LatestPolicy().apply(weather, ["sendEmail"], 4, used=["getWeather"]) == ["sendEmail"]


def test_cumulative_engine_in_chat_mode_accumulates_over_the_history():
    eng = demo_engine(policy="cumulative", max_active=2)
    call = lambda cid, q: {  # noqa: E731
        "role": "assistant",
        "tool_calls": [
            {"id": cid, "type": "function", "function": {"name": "toolSearch", "arguments": json.dumps({"query": q})}}
        ],
    }
    messages = [{"role": "user", "content": "hi"}]
    messages += [call("1", "q"), {"role": "tool", "tool_call_id": "1", "content": '["weatherLookup"]'}]
    messages += [call("2", "q"), {"role": "tool", "tool_call_id": "2", "content": '["sendEmail"]'}]
    assert eng.snapshot(messages).disclosed == ["sendEmail", "weatherLookup"]
    used = [dict(call("u", "q"), tool_calls=[{"id": "u", "type": "function", "function": {"name": "weatherLookup"}}])]
    messages += [*used, {"role": "tool", "tool_call_id": "u", "content": "{}"}]  # a call: a use
    messages += [call("3", "q"), {"role": "tool", "tool_call_id": "3", "content": '["calendar"]'}]
    assert eng.snapshot(messages).disclosed == ["calendar", "weatherLookup"]  # sendEmail was used less recently
    messages += [call("4", "q"), {"role": "tool", "tool_call_id": "4", "content": '{"error": "x"}'}]
    assert eng.snapshot(messages).disclosed == ["calendar", "weatherLookup"]


def test_snapshot_carries_tool_request_and_baseline_tokens():
    eng = demo_engine()
    snap = eng.snapshot([{"role": "user", "content": "hi"}])
    assert snap.tool_tokens == COUNTER.count(json.dumps(snap.openai_tools(), ensure_ascii=False, separators=(",", ":")))
    assert snap.request_tokens == snap.tool_tokens + snap.message_tokens > snap.tool_tokens
    every = [tool_entry(t) for t in eng.catalog.tools]
    assert snap.baseline_tool_tokens == COUNTER.count(json.dumps(every, ensure_ascii=False, separators=(",", ":")))
    assert snap.baseline_request_tokens == snap.baseline_tool_tokens + snap.message_tokens
    assert snap.tool_share == snap.tool_tokens / snap.baseline_tool_tokens
    # five tiny tools: the search tool's own definition costs more than all of them (no saving)
    assert snap.tool_share > 1 and snap.saving_percent < 0
    assert [t.tokens for t in snap.tools] == [
        COUNTER.count(json.dumps(tool_entry(t.tool), ensure_ascii=False, separators=(",", ":"))) for t in snap.tools
    ]


def test_category_errors_list_only_categories_the_context_may_see():
    tools = [make("deleteUser", "Delete a user", "admin"), make("getWeather", "Weather", "weather")]
    tools[0].requires = {"role": ["admin"]}
    eng = DisclosureEngine(Catalog(tools=tools), context={"role": "viewer"}, counter=COUNTER)
    outcome = eng.execute_search({"query": "delete user", "category": "admin"})
    assert not outcome.ok and outcome.field == "category"
    assert "admin" not in outcome.error.split("categories:")[1]
    assert DisclosureEngine(Catalog(tools=tools), context={"role": "admin"}, counter=COUNTER).execute_search(
        {"query": "delete user", "category": "admin"}
    ).names == ["deleteUser"]


def test_search_tool_name_taken_by_a_catalog_tool_is_refused():
    from toolsearch_cli import UsageError

    with pytest.raises(UsageError, match="taken"):
        DisclosureEngine(Catalog(tools=[make("find", "x")]), search_tool_name="find", counter=COUNTER)
