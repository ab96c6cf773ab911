"""One module per provider API (``toolsearch_cli.providers``): chat-mode disclosure reads a
history written for any of them, built here from the official SDKs' own types (``openai``,
``anthropic``), and each API gets its system prompt where it takes it."""

from __future__ import annotations

import json

import pytest

from toolsearch_cli import ToolSearch, load_catalog
from toolsearch_cli.disclosure.engine import DisclosureEngine
from toolsearch_cli.model import Catalog, GroupMatcher, Tool, ToolGroup
from toolsearch_cli.providers import PROVIDER_BY_NAME, get_provider

from ..conftest import ROOT

openai_types = pytest.importorskip("openai.types")
anthropic_types = pytest.importorskip("anthropic.types")

from anthropic.types import TextBlock, ToolUseBlock  # noqa: E402
from openai.types.chat import ChatCompletionMessage, ChatCompletionMessageFunctionToolCall  # noqa: E402
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage  # noqa: E402

DEMO = str(ROOT / "catalogs" / "demo")
QUESTION = "weather in Paris"
QUERY = json.dumps({"query": "current weather for a city", "maxResults": 2})


@pytest.fixture(scope="module")
def demo():
    return load_catalog([DEMO])


def chat_round_trip(result: str) -> list[dict]:
    call = ChatCompletionMessageFunctionToolCall(
        id="call_1", type="function", function={"name": "toolSearch", "arguments": QUERY}
    )
    assistant = ChatCompletionMessage(role="assistant", content=None, tool_calls=[call])
    return [
        {"role": "user", "content": QUESTION},
        assistant.model_dump(exclude_none=True),
        {"role": "tool", "tool_call_id": "call_1", "content": result},
    ]


def responses_round_trip(result: str) -> list[dict]:
    call = ResponseFunctionToolCall(
        type="function_call", id="fc_1", call_id="call_1", name="toolSearch", arguments=QUERY, status="completed"
    )
    return [
        {"role": "user", "content": QUESTION},
        call.model_dump(exclude_none=True),
        {"type": "function_call_output", "call_id": "call_1", "output": result},
    ]


def anthropic_round_trip(result: object, is_error: bool = False) -> list[dict]:
    blocks = [
        TextBlock(type="text", text="Let me find a weather tool."),
        ToolUseBlock(type="tool_use", id="toolu_1", name="toolSearch", input=json.loads(QUERY)),
    ]
    tool_result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": result}
    if is_error:
        tool_result["is_error"] = True
    return [
        {"role": "user", "content": QUESTION},
        {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in blocks]},
        {"role": "user", "content": [tool_result]},
    ]


def gemini_round_trip(result: str) -> list[dict]:
    return [
        {"role": "user", "parts": [{"text": QUESTION}]},
        {"role": "model", "parts": [{"functionCall": {"name": "toolSearch", "args": json.loads(QUERY)}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "toolSearch", "response": {"output": result}}}]},
    ]


ROUND_TRIPS = {
    "openai": chat_round_trip,
    "openai-responses": responses_round_trip,
    "anthropic": anthropic_round_trip,
    "gemini": gemini_round_trip,
}


@pytest.mark.parametrize("policy", ["latest", "cumulative"])
@pytest.mark.parametrize("api", list(ROUND_TRIPS))
def test_the_same_search_round_trip_discloses_alike_whichever_api_wrote_it(demo, api, policy):
    ts = ToolSearch(demo, policy=policy, api=api)
    handled = ts.handle("toolSearch", QUERY, ts.request([{"role": "user", "content": QUESTION}]))
    hits = json.loads(handled.content)
    assert hits[0] == "getWeather" and len(hits) == 2
    history = ROUND_TRIPS[api](handled.content)
    request = ts.request(history)
    assert request.snapshot.disclosed == hits and request.snapshot.search_status == "ok"
    # the engine on a plain list (not the library's incremental log) reads it alike
    engine = DisclosureEngine(demo, policy=policy)
    assert engine.snapshot(history).disclosed == hits
    # a disclosed tool may now be called; before the round trip it could not
    assert ts.handle("getWeather", {"city": "Paris"}, request).ok


def test_a_search_result_of_tool_reference_blocks_discloses_its_tools(demo):
    references = [{"type": "tool_reference", "tool_name": n} for n in ("getWeather", "getForecast")]
    request = ToolSearch(demo, api="anthropic").request(anthropic_round_trip(references))
    assert request.snapshot.disclosed == ["getWeather", "getForecast"]


def test_an_anthropic_tool_result_marked_as_error_discloses_nothing(demo):
    request = ToolSearch(demo).request(anthropic_round_trip('["getWeather"]', is_error=True))
    assert request.snapshot.disclosed == [] and request.snapshot.search_status == "error"


def test_a_responses_output_message_is_not_taken_for_a_call(demo):
    said = ResponseOutputMessage(
        id="msg_1",
        type="message",
        role="assistant",
        status="completed",
        content=[{"type": "output_text", "text": "toolSearch", "annotations": []}],
    )
    history = [{"role": "user", "content": QUESTION}, said.model_dump(exclude_none=True)]
    assert ToolSearch(demo).request(history).snapshot.search_status is None


def grouped_catalog() -> Catalog:
    tools = [
        Tool(name="getWeather", description="Current weather for a city."),
        Tool(name="bookFlight", description="Book a flight between two airports."),
    ]
    group = ToolGroup(
        name="travel",
        system_prompt="Confirm dates before booking.",
        tools=["bookFlight"],
        matcher=GroupMatcher(kind="keywords", keywords=["flight"]),
    )
    return Catalog(tools=tools, groups=[group])


def test_a_message_of_tool_results_is_not_the_user_turn_groups_match(demo):
    """An Anthropic ``tool_result`` message has role ``user``; the group still follows the user's words."""
    ts = ToolSearch(grouped_catalog(), api="anthropic")
    history = [
        {"role": "user", "content": "a flight to Oslo please"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "toolSearch", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "[]"}]},
    ]
    request = ts.request(history)
    assert "bookFlight" in request.names and request.snapshot.groups == ["travel"]


def test_anthropic_takes_the_system_prompt_apart_from_the_messages():
    ts = ToolSearch(grouped_catalog(), api="anthropic")
    history = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "a flight to Oslo"}]
    request = ts.request(history)
    assert request.messages == [{"role": "user", "content": "a flight to Oslo"}]
    assert request.system == "Be brief.\n\nConfirm dates before booking."
    params = request.params()
    assert params["system"] == request.system and params["messages"] == request.messages
    assert [t["name"] for t in params["tools"]] == request.names
    assert history[0] == {"role": "system", "content": "Be brief."}  # the caller's list is not changed
    # OpenAI's APIs take it in the messages, as before
    chat = request.params("openai")
    assert "system" not in chat and chat["messages"][0] == {
        "role": "system",
        "content": "Be brief.\n\nConfirm dates before booking.",
    }
    assert request.params("openai-responses")["input"] == chat["messages"]
    assert ToolSearch(grouped_catalog()).request(history).system == ""


def test_request_params_pass_the_official_sdks_own_request_types():
    """The params are what the SDKs' typed create calls accept (checked by their pydantic validators)."""
    from anthropic.types import MessageParam, ToolParam
    from openai.types.responses import FunctionToolParam
    from pydantic import TypeAdapter

    request = ToolSearch(grouped_catalog(), api="anthropic").request([{"role": "user", "content": "a flight"}])
    params = request.params()
    TypeAdapter(list[MessageParam]).validate_python(params["messages"])
    TypeAdapter(list[ToolParam]).validate_python(params["tools"])
    TypeAdapter(list[FunctionToolParam]).validate_python(request.tools("openai-responses"))
    assert_responses_tools(request.tools("openai-responses"))
    for entry in params["tools"]:
        assert_only_known_keys(entry, ToolParam)


def test_every_api_name_has_its_provider_and_unknown_ones_are_usage_errors():
    from toolsearch_cli.errors import UsageError

    assert get_provider("openai-chat") is get_provider("openai")
    assert set(PROVIDER_BY_NAME) >= {"openai", "openai-responses", "anthropic", "gemini"}
    with pytest.raises(UsageError, match="unknown API 'antropic'.*did you mean 'anthropic'"):
        get_provider("antropic")
    with pytest.raises(UsageError, match="unknown API"):
        ToolSearch(grouped_catalog(), api="claude")  # type: ignore[arg-type]


# -- native deferred loading (Anthropic defer_loading + tool_reference, Responses tool_search) -----


def assert_only_known_keys(entry, typed_dict):
    """Pydantic lets a TypedDict's unknown keys through; the SDK type's own key set does not."""
    from typing import Required, get_origin

    from typing_extensions import get_type_hints

    hints = get_type_hints(typed_dict, include_extras=True)
    required = {key for key, hint in hints.items() if get_origin(hint) is Required}
    assert required and set(entry) <= set(hints), f"{sorted(set(entry) - set(hints))} not in {typed_dict.__name__}"
    assert required <= set(entry), f"{typed_dict.__name__} needs {sorted(required - set(entry))}"


def assert_responses_tools(tools):
    from openai.types.responses import FunctionToolParam, NamespaceToolParam, ToolSearchToolParam
    from openai.types.responses.namespace_tool_param import ToolFunction

    for entry in tools:
        kind = {"function": FunctionToolParam, "namespace": NamespaceToolParam, "tool_search": ToolSearchToolParam}
        assert_only_known_keys(entry, kind[entry["type"]])
        for inner in entry.get("tools", []) if entry["type"] == "namespace" else []:
            assert_only_known_keys(inner, ToolFunction)


def test_anthropic_native_form_fits_the_sdk_schema_and_its_tool_references_disclose(demo):
    from anthropic.types import MessageParam, ToolParam
    from pydantic import TypeAdapter

    ts = ToolSearch(demo, api="anthropic")
    opening = [{"role": "user", "content": QUESTION}]
    first = ts.request(opening)
    tools = first.native_tools()
    TypeAdapter(list[ToolParam]).validate_python(tools)
    for entry in tools:
        assert_only_known_keys(entry, ToolParam)
    loaded = [t["name"] for t in tools if not t.get("defer_loading")]
    assert loaded == first.names  # resident tools and toolSearch in the prompt
    deferred = {t["name"] for t in tools if t.get("defer_loading")}
    assert "getWeather" in deferred and not deferred & set(loaded)
    handled = ts.handle("toolSearch", QUERY, first)
    answer = ts.native_result(handled, "toolu_1")
    TypeAdapter(MessageParam).validate_python(answer)
    call = ToolUseBlock(type="tool_use", id="toolu_1", name="toolSearch", input=json.loads(QUERY))
    history = [*opening, {"role": "assistant", "content": [call.model_dump(exclude_none=True)]}, answer]
    after = ts.request(history)
    assert after.snapshot.disclosed == handled.names and ts.handle("getWeather", {"city": "Oslo"}, after).ok
    assert json.dumps(after.native_tools()) == json.dumps(tools)  # the same bytes: the prompt cache holds


def test_responses_native_form_fits_the_sdk_schema_and_its_tool_search_output_discloses(demo):
    from openai.types.responses import ResponseToolSearchCall, ToolParam
    from openai.types.responses.response_tool_search_output_item_param_param import (
        ResponseToolSearchOutputItemParamParam,
    )
    from pydantic import TypeAdapter

    ts = ToolSearch(demo, api="openai-responses")
    opening = [{"role": "user", "content": QUESTION}]
    first = ts.request(opening)
    for namespaces in (False, True):
        tools = first.native_tools(namespaces=namespaces)
        TypeAdapter(list[ToolParam]).validate_python(tools)
        assert_responses_tools(tools)
    kinds = [t["type"] for t in tools]
    assert kinds.count("tool_search") == 1 and "namespace" in kinds
    weather = next(t for t in tools if t["type"] == "namespace" and t["name"] == "weather")
    assert all(f["defer_loading"] is True and f["strict"] is False for f in weather["tools"])
    handled = ts.handle("toolSearch", QUERY, first)
    output = ts.native_result(handled, "call_9")
    TypeAdapter(ResponseToolSearchOutputItemParamParam).validate_python(output)
    assert_only_known_keys(output, ResponseToolSearchOutputItemParamParam)
    assert_responses_tools(output["tools"])
    assert [t["name"] for t in output["tools"]] == handled.names
    call = ResponseToolSearchCall(
        id="ts_1", type="tool_search_call", call_id="call_9", arguments=json.loads(QUERY),
        execution="client", status="completed",
    )  # fmt: skip
    after = ts.request([*opening, call.model_dump(exclude_none=True), output])
    assert after.snapshot.disclosed == handled.names


def test_apis_without_deferred_loading_say_so(demo):
    from toolsearch_cli.errors import UsageError

    request = ToolSearch(demo).request([{"role": "user", "content": QUESTION}])
    for api in ("openai", "gemini"):
        with pytest.raises(UsageError, match="has no deferred loading"):
            request.native_tools(api)


def test_replies_read_back_into_the_chat_form_from_the_sdks_own_types():
    from anthropic.types import Message, Usage
    from openai.types.chat import ChatCompletion

    from toolsearch_cli.providers import ANTHROPIC, OPENAI_CHAT

    message = Message(
        id="msg_1", type="message", role="assistant", model="claude-x", stop_reason="tool_use",
        content=[TextBlock(type="text", text="Searching."),
                 ToolUseBlock(type="tool_use", id="toolu_1", name="toolSearch", input={"query": "weather"})],
        usage=Usage(input_tokens=120, output_tokens=30),
    )  # fmt: skip
    reply = ANTHROPIC.chat_reply(message.model_dump())
    assert reply.content == "Searching." and reply.finish_reason == "tool_calls" and reply.model == "claude-x"
    assert reply.tool_calls == [
        {"id": "toolu_1", "type": "function", "function": {"name": "toolSearch", "arguments": '{"query": "weather"}'}}
    ]
    assert reply.usage == {"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150}
    completion = ChatCompletion(
        id="c1", object="chat.completion", created=1, model="gpt-x",
        choices=[{"index": 0, "finish_reason": "length", "message": {"role": "assistant", "content": "cut"}}],
        usage={"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12},
    )  # fmt: skip
    chat = OPENAI_CHAT.chat_reply(completion.model_dump())
    assert (chat.content, chat.finish_reason, chat.tool_calls) == ("cut", "length", [])
    assert chat.usage is not None and chat.usage["total_tokens"] == 12


def test_a_chat_history_written_out_for_anthropic_keeps_each_call_with_its_result():
    from anthropic.types import MessageParam
    from pydantic import TypeAdapter

    from toolsearch_cli.providers import ANTHROPIC

    history = [
        {"role": "system", "content": "Be brief."},
        *chat_round_trip('["getWeather"]'),
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c2", "type": "function", "function": {"name": "getWeather", "arguments": "not json"}}]},
        {"role": "tool", "tool_call_id": "c2", "content": '{"error": "arguments are not valid JSON"}'},
    ]  # fmt: skip
    params = ANTHROPIC.chat_request(history)
    TypeAdapter(list[MessageParam]).validate_python(params["messages"])
    assert params["system"] == "Be brief." and [m["role"] for m in params["messages"]] == [
        "user", "assistant", "user", "assistant", "user"]  # fmt: skip
    use = params["messages"][1]["content"][0]
    assert use["type"] == "tool_use" and use["input"] == json.loads(QUERY)
    assert params["messages"][3]["content"][0]["input"] == {}  # arguments that were not an object
    assert params["messages"][4]["content"][0]["tool_use_id"] == "c2"
    # and read back, the round trip discloses as the Chat form did
    assert ToolSearch(load_catalog([DEMO])).request(params["messages"]).snapshot.disclosed == ["getWeather"]


HOSTILE_HISTORY = [
    {"role": "assistant", "content": [None, 3, "x", {"type": "tool_use"}, {"type": "tool_use", "name": 5}]},
    {"role": "assistant", "content": [{"type": "tool_use", "id": 7, "name": "toolSearch", "input": [1]}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": ["x"], "content": {"a": 1}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "", "content": [{"type": "tool_reference"}]}]},
    {"type": "function_call", "name": None, "call_id": 3},
    {"type": "function_call_output", "call_id": None, "output": [1, 2]},
    {"type": "tool_search_output", "call_id": "c", "tools": [{"type": "namespace", "tools": "nope"}, 5]},
    {"role": "model", "parts": [{"functionCall": "x"}, {"functionCall": {"name": "toolSearch", "args": "?"}}]},
    {"role": "user", "parts": [{"functionResponse": {"name": "toolSearch", "response": float("inf")}}]},
    {"role": "tool", "tool_call_id": {"x": 1}, "content": None},
    {"role": "user", "content": [{"type": "tool_result"}] * 10_000},
]


@pytest.mark.parametrize("policy", ["latest", "cumulative"])
def test_hostile_history_shapes_are_read_without_raising(demo, policy):
    ts = ToolSearch(demo, policy=policy)
    history = [{"role": "user", "content": QUESTION}, *HOSTILE_HISTORY]
    request = ts.request(history)
    assert request.snapshot.disclosed == [] and request.names == ts.request(history[:1]).names
    assert DisclosureEngine(demo, policy=policy).snapshot(history).disclosed == []
    for api in PROVIDER_BY_NAME:
        request.params(api)  # written out for each API without raising
