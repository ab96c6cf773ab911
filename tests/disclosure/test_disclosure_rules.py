"""One test per rule of seed-behaviour §4 (chat mode), §5 (agent mode) and §6 (tool groups).

Each test is named after the rule it checks; the docstring quotes the rule in short.
"""

from __future__ import annotations

import copy
import json

from toolsearch_cli import Catalog
from toolsearch_cli.disclosure import (
    ACTIVE_TOOL_NAMES_KEY,
    DISCLOSED,
    GROUP,
    RESIDENT,
    SEARCH,
    DisclosureEngine,
    RunState,
)
from toolsearch_cli.model import GroupMatcher, ToolGroup
from toolsearch_cli.tokens import CharEstimateCounter

from ..conftest import make

COUNTER = CharEstimateCounter()


def catalog(groups=(), resident=("currentTime",)) -> Catalog:
    tools = [
        make("currentTime", "Return the current time"),
        make("getWeather", "Get the weather forecast for a city", "weather", ["weather"]),
        make("getForecast", "Hourly forecast", "weather", ["forecast"]),
        make("sendEmail", "Send an email to an address", "email", ["email", "mail"]),
        make("listAuditLogs", "List admin audit logs", "admin", ["audit"]),
    ]
    return Catalog(tools=tools, resident=list(resident), groups=list(groups))


def engine(cat=None, **options) -> DisclosureEngine:
    return DisclosureEngine(cat or catalog(), counter=COUNTER, **options)


def user(text="hi"):
    return {"role": "user", "content": text}


def search_call(*calls):
    """An assistant message with tool calls given as (id, name, arguments) triples."""
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
            for cid, name, args in calls
        ],
    }


def result(call_id, content):
    return {
        "role": "tool",
        "tool_call_id": call_id,
        "content": content if isinstance(content, str) else json.dumps(content),
    }


# -- §4 chat mode ------------------------------------------------------------------------------------


def test_rule_4_1_latest_search_is_last_call_of_newest_assistant_message_with_a_search():
    """Scan newest to oldest; the first assistant message holding a search call; inside it the last call wins."""
    messages = [
        user(),
        search_call(("a", "toolSearch", {"query": "weather"})),
        result("a", ["getWeather"]),
        search_call(("b", "toolSearch", {"query": "email"}), ("c", "toolSearch", {"query": "forecast"})),
        result("b", ["sendEmail"]),
        result("c", ["getForecast"]),
        search_call(("d", "getForecast", {})),  # a newer assistant message without a search call
        result("d", "{}"),
    ]
    snap = engine().snapshot(messages)
    assert snap.disclosed == ["getForecast"]
    assert snap.search_status == "ok"


def test_rule_4_2_result_paired_by_call_id_or_tool_name_when_id_blank_first_later_message_wins():
    """Call id = the id, or the tool name when blank; the first later tool message with that id is the result."""
    by_id = [
        user(),
        search_call(("x1", "toolSearch", {"query": "q"})),
        result("other", ["sendEmail"]),
        result("x1", ["getWeather"]),
        result("x1", ["sendEmail"]),
    ]
    assert engine().snapshot(by_id).disclosed == ["getWeather"]
    blank = [user(), search_call(("", "toolSearch", {"query": "q"})), result("toolSearch", ["sendEmail"])]
    assert engine().snapshot(blank).disclosed == ["sendEmail"]
    # a result that comes before the call is not its result
    before = [user(), result("x1", ["sendEmail"]), search_call(("x1", "toolSearch", {"query": "q"}))]
    snap = engine().snapshot(before)
    assert snap.disclosed == [] and snap.search_status == "unfinished"


def test_rule_4_3_unfinished_invalid_error_or_null_results_clear_and_never_fall_back():
    """No result yet, invalid JSON, an error text or null -> empty active set; never an earlier search's hits."""
    earlier = [user(), search_call(("a", "toolSearch", {"query": "weather"})), result("a", ["getWeather"])]
    cases = {
        "unfinished": [search_call(("b", "toolSearch", {"query": "email"}))],
        "invalid": [search_call(("b", "toolSearch", {"query": "email"})), result("b", "not json [")],
        "error": [search_call(("b", "toolSearch", {"query": "email"})), result("b", {"error": "boom"})],
        "null": [search_call(("b", "toolSearch", {"query": "email"})), result("b", "null")],
        "empty": [search_call(("b", "toolSearch", {"query": "email"})), result("b", [])],
    }
    assert engine().snapshot(earlier).disclosed == ["getWeather"]
    for status, tail in cases.items():
        snap = engine().snapshot(earlier + tail)
        assert snap.disclosed == [], status
        assert snap.search_status == status


def test_rule_4_3_unregistered_names_dropped_duplicates_removed_order_kept():
    """Names not registered in the catalog are dropped; duplicates removed; result order kept."""
    messages = [
        user(),
        search_call(("a", "toolSearch", {"query": "q"})),
        result("a", ["sendEmail", "ghostTool", "getWeather", "sendEmail", "getForecast"]),
    ]
    assert engine().snapshot(messages).disclosed == ["sendEmail", "getWeather", "getForecast"]


def test_rule_4_4_resident_tools_and_search_tool_first_in_prompt_order_then_hits_in_result_order():
    """Visible: resident tools and the search tool in prompt order, then active catalog tools in result order."""
    cat = catalog()
    eng = engine(cat)
    messages = [user(), search_call(("a", "toolSearch", {"query": "q"})), result("a", ["sendEmail", "getWeather"])]
    snap = eng.snapshot(messages)
    assert snap.names == ["currentTime", "toolSearch", "sendEmail", "getWeather"]
    assert [t.role for t in snap.tools] == [RESIDENT, SEARCH, DISCLOSED, DISCLOSED]
    # an explicit prompt order with the search tool first is kept
    eng2 = DisclosureEngine(cat, counter=COUNTER, prompt_tools=[eng.search_tool, cat.get("currentTime")])
    assert eng2.snapshot(messages).names == ["toolSearch", "currentTime", "sendEmail", "getWeather"]


def test_rule_4_4_resident_tool_wins_a_name_clash_with_an_active_catalog_tool():
    """Keyed by name: a resident tool with the same name as an active catalog tool wins."""
    cat = catalog()
    own_email = make("sendEmail", "The application's own email tool")
    eng = DisclosureEngine(cat, counter=COUNTER, prompt_tools=[own_email])
    messages = [user(), search_call(("a", "toolSearch", {"query": "q"})), result("a", ["sendEmail", "getWeather"])]
    snap = eng.snapshot(messages)
    assert snap.names == ["sendEmail", "toolSearch", "getWeather"]
    assert snap.get("sendEmail").tool is own_email and snap.get("sendEmail").role == RESIDENT


def test_rule_4_4_prompt_tool_that_is_the_catalog_tool_itself_stays_hidden_until_searched():
    """A prompt tool that is the very same object as a catalog tool is treated as a catalog tool."""
    cat = catalog()
    eng = DisclosureEngine(cat, counter=COUNTER)
    same = eng.manager.resolve("getWeather")
    eng = DisclosureEngine(cat, counter=COUNTER, prompt_tools=[same], manager=eng.manager)
    assert "getWeather" not in eng.snapshot([user()]).names
    messages = [user(), search_call(("a", "toolSearch", {"query": "q"})), result("a", ["getWeather"])]
    assert eng.snapshot(messages).get("getWeather").role == DISCLOSED


def test_rule_4_5_each_new_search_replaces_previous_hits_resident_unaffected():
    """Latest only: a new search replaces the earlier hits completely; resident tools stay."""
    messages = [
        user(),
        search_call(("a", "toolSearch", {"query": "weather"})),
        result("a", ["getWeather", "getForecast"]),
    ]
    eng = engine()
    assert eng.snapshot(messages).names == ["currentTime", "toolSearch", "getWeather", "getForecast"]
    messages += [search_call(("b", "toolSearch", {"query": "email"})), result("b", ["sendEmail"])]
    assert eng.snapshot(messages).names == ["currentTime", "toolSearch", "sendEmail"]


def test_rule_4_original_conversation_is_never_mutated():
    """A snapshot is built per request; the original prompt (messages) is never changed."""
    group = ToolGroup(name="g", system_prompt="Be careful.", tools=["sendEmail"])
    messages = [
        {"role": "system", "content": "You help."},
        user(),
        search_call(("a", "toolSearch", {"query": "q"})),
        result("a", ["getWeather"]),
    ]
    before = copy.deepcopy(messages)
    snap = engine(catalog(groups=[group])).snapshot(messages)
    assert messages == before
    assert snap.messages[0]["content"] == "You help.\n\nBe careful."


# -- §5 agent mode -----------------------------------------------------------------------------------


def test_rule_5_active_names_written_to_run_state_key_after_every_search_and_empty_result_clears():
    """Key agentsflex.toolsearch.activeToolNames holds the names after every search; an empty result clears it."""
    eng = engine()
    state = RunState()
    eng.run_search(state, {"query": "weather forecast"})
    assert state.metadata[ACTIVE_TOOL_NAMES_KEY] and "getWeather" in state.metadata[ACTIVE_TOOL_NAMES_KEY]
    assert eng.snapshot([user()], state=state).disclosed == state.active_names
    eng.run_search(state, {"query": "zebra xylophone"})  # matches nothing
    assert state.metadata[ACTIVE_TOOL_NAMES_KEY] == []
    assert eng.snapshot([user()], state=state).disclosed == []


def test_rule_5_state_saved_and_restored_through_a_file_rediscloses_the_same_tools(tmp_path):
    """Only names are persisted with the run; a restored run re-discloses the same tools."""
    eng = engine()
    state = RunState()
    eng.run_search(state, {"query": "send email"})
    path = tmp_path / "run.json"
    state.save(path)
    on_disk = json.loads(path.read_text(encoding="utf-8"))
    assert on_disk["metadata"][ACTIVE_TOOL_NAMES_KEY] == state.active_names  # names only
    restored = RunState.load(path)
    fresh = engine()  # a new process: same catalog, new engine
    assert fresh.snapshot([user()], state=restored).names == engine().snapshot([user()], state=state).names
    assert "sendEmail" in fresh.snapshot([user()], state=restored).disclosed


def test_rule_5_failed_search_follows_the_same_rule_as_chat_mode():
    """The reference keeps the old list in agent mode but clears it in chat mode; here both clear (latest)."""
    eng = engine()
    state = RunState()
    eng.run_search(state, {"query": "weather"})
    assert state.active_names
    outcome = eng.run_search(state, {"query": "   "})  # a failed search: structured error result
    assert not outcome.ok and json.loads(outcome.content())["field"] == "query"
    assert state.active_names == []
    chat = [
        user(),
        search_call(("a", "toolSearch", {"query": "weather"})),
        result("a", ["getWeather"]),
        search_call(("b", "toolSearch", {"query": "   "})),
        result("b", outcome.content()),
    ]
    assert eng.snapshot(chat).disclosed == eng.snapshot([user()], state=state).disclosed == []


def test_rule_5_hidden_catalog_tool_cannot_be_executed_until_activated_in_this_run():
    """A catalog tool that was not disclosed in this run is not executable."""
    eng = engine()
    state = RunState()
    before = eng.snapshot([user()], state=state)
    check = eng.check_call("sendEmail", before)
    assert not check.ok and check.kind == "not-visible"
    eng.run_search(state, {"query": "send email"})
    assert eng.check_call("sendEmail", eng.snapshot([user()], state=state)).ok
    assert eng.check_call("noSuchTool", before).kind == "unknown-tool"


# -- §6 tool groups ----------------------------------------------------------------------------------


def test_rule_6_group_has_name_description_system_prompt_tools_and_default_matcher_always():
    """A group: name (required), description, system prompt, tools, matcher (default: always)."""
    group = ToolGroup(name="base", tools=["getWeather"])
    assert group.matcher.kind == "always" and group.system_prompt == "" and group.description == ""
    snap = engine(catalog(groups=[group])).snapshot([user("anything")])
    assert snap.groups == ["base"] and snap.get("getWeather").role == GROUP


def test_rule_6_keyword_matcher_is_case_sensitive():
    """Last user message contains any keyword, case-sensitive."""
    group = ToolGroup(name="w", tools=["getWeather"], matcher=GroupMatcher(kind="keywords", keywords=["Weather"]))
    eng = engine(catalog(groups=[group]))
    assert eng.snapshot([user("Weather in Paris?")]).groups == ["w"]
    assert eng.snapshot([user("weather in Paris?")]).groups == []


def test_rule_6_keyword_matcher_ignore_case_variant():
    """The ignore-case variant of the keyword matcher."""
    group = ToolGroup(
        name="w", tools=["getWeather"], matcher=GroupMatcher(kind="keywords", keywords=["WEATHER"], ignore_case=True)
    )
    assert engine(catalog(groups=[group])).snapshot([user("weather in Paris?")]).groups == ["w"]


def test_rule_6_matchers_look_at_the_last_user_message_only():
    """Matching uses the last user message, not earlier ones."""
    group = ToolGroup(name="w", tools=["getWeather"], matcher=GroupMatcher(kind="keywords", keywords=["天气"]))
    eng = engine(catalog(groups=[group]))
    assert eng.snapshot([user("上海天气"), {"role": "assistant", "content": "多云"}, user("谢谢")]).groups == []
    assert eng.snapshot([user("谢谢"), user("上海天气")]).groups == ["w"]


def test_rule_6_regex_matcher():
    """Last user message matches a regex."""
    group = ToolGroup(name="mail", tools=["sendEmail"], matcher=GroupMatcher(kind="regex", pattern=r"\b\S+@\S+\.\w+"))
    eng = engine(catalog(groups=[group]))
    assert eng.snapshot([user("mail it to li@example.com")]).groups == ["mail"]
    assert eng.snapshot([user("mail it to me")]).groups == []


def test_rule_6_context_attribute_matcher():
    """A predicate on context attributes, e.g. role == admin."""
    group = ToolGroup(
        name="admin", tools=["listAuditLogs"], matcher=GroupMatcher(kind="context", attributes={"role": ["admin"]})
    )
    cat = catalog(groups=[group])
    assert engine(cat, context={"role": "admin"}).snapshot([user()]).groups == ["admin"]
    assert engine(cat, context={"role": "user"}).snapshot([user()]).groups == []
    assert engine(cat).snapshot([user()]).groups == []


def test_rule_6_groups_resolve_before_the_first_model_call_without_a_round_trip():
    """Group tools are in the very first request: no search, no extra model call."""
    group = ToolGroup(name="w", tools=["getWeather"], matcher=GroupMatcher(kind="keywords", keywords=["weather"]))
    snap = engine(catalog(groups=[group])).snapshot([user("weather please")])
    assert snap.search_status is None and "getWeather" in snap.names


def test_rule_6_group_tools_merged_after_prompt_tools_and_replace_same_named_prompt_tool_in_place():
    """Group tools come after prompt tools; a group tool replaces a same-named prompt tool, keeping its position."""
    cat = catalog()
    own_weather = make("getWeather", "The application's resident weather tool")
    group_cat = catalog(groups=[ToolGroup(name="g", tools=["sendEmail", "getWeather"])])
    eng = DisclosureEngine(group_cat, counter=COUNTER, prompt_tools=[own_weather, cat.get("currentTime")])
    snap = eng.snapshot([user()])
    assert snap.names == ["getWeather", "currentTime", "toolSearch", "sendEmail"]
    assert snap.get("getWeather").role == GROUP and snap.get("getWeather").tool is group_cat.get("getWeather")
    # search hits never displace a group tool: it stays a group tool, no duplicate
    messages = [user(), search_call(("a", "toolSearch", {"query": "q"})), result("a", ["sendEmail", "getForecast"])]
    snap = eng.snapshot(messages)
    assert snap.names == ["getWeather", "currentTime", "toolSearch", "sendEmail", "getForecast"]
    assert snap.get("sendEmail").role == GROUP and snap.get("getForecast").role == DISCLOSED


def test_rule_6_system_prompts_joined_with_blank_line_and_appended_to_first_system_message():
    """Matched groups' prompts are joined with a blank line and appended to the first system message."""
    groups = [ToolGroup(name="a", system_prompt="Log admin actions."), ToolGroup(name="b", system_prompt="Be brief.")]
    messages = [{"role": "system", "content": "You help."}, user(), {"role": "system", "content": "second"}]
    snap = engine(catalog(groups=groups)).snapshot(messages)
    assert snap.messages[0]["content"] == "You help.\n\nLog admin actions.\n\nBe brief."
    assert snap.messages[2]["content"] == "second"


def test_rule_6_system_prompt_inserted_as_new_system_message_when_there_is_none():
    """Without a system message, the joined prompts become a new first system message."""
    snap = engine(catalog(groups=[ToolGroup(name="a", system_prompt="Log admin actions.")])).snapshot([user()])
    assert snap.messages[0] == {"role": "system", "content": "Log admin actions."}
    assert snap.messages[1] == user()


def test_rule_6_permissions_belong_to_checks_not_to_search_tags():
    """Search answers what exists; what a request may have is decided by context checks, never by tags."""
    tools = [make("deleteUser", "Delete a user account", "admin", ["admin", "user"]), make("currentTime", "time")]
    tools[0].requires = {"role": ["admin"]}
    cat = Catalog(tools=tools, resident=["currentTime"])
    as_user = engine(cat, context={"role": "user"})
    assert as_user.execute_search({"query": "delete user admin"}).names == []
    assert engine(cat, context={"role": "admin"}).execute_search({"query": "delete user admin"}).names == ["deleteUser"]
