"""The public library API for an app's own agent loop (``toolsearch_cli.agent``), and the example
loop in ``examples/agent_loop.py`` run against the real loopback Chat Completions server."""

from __future__ import annotations

import importlib.util
import json

import pytest

from toolsearch_cli import ToolSearch, validate_arguments
from toolsearch_cli.agent import tool_entry
from toolsearch_cli.errors import ToolArgumentsError, UsageError

from ..chat_server import ChatServer, Status, call, say
from ..conftest import ROOT

DEMO = str(ROOT / "catalogs" / "demo")
RESIDENT = ["currentTime", "askUser", "toolSearch"]


@pytest.fixture(scope="module")
def demo():
    from toolsearch_cli import load_catalog

    return load_catalog([DEMO])


def searched(messages, query, result, call_id="c1"):
    """The history after a toolSearch call and its result."""
    arguments = json.dumps({"query": query})
    return [
        *messages,
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"id": call_id, "type": "function", "function": {"name": "toolSearch", "arguments": arguments}}
            ],
        },
        {"role": "tool", "tool_call_id": call_id, "content": result},
    ]


def test_each_request_s_tools_in_the_three_api_formats(demo):
    ts = ToolSearch(demo)
    request = ts.request([{"role": "user", "content": "weather in Paris"}])
    assert request.names == RESIDENT
    chat = request.tools("openai")
    responses = request.tools("openai-responses")
    anthropic = request.tools("anthropic")
    assert [t["function"]["name"] for t in chat] == RESIDENT
    assert [t["name"] for t in responses] == RESIDENT and all(t["type"] == "function" for t in responses)
    assert [t["name"] for t in anthropic] == RESIDENT and all("input_schema" in t for t in anthropic)
    search = demo.get("getWeather")
    assert tool_entry(search, "anthropic")["input_schema"] == search.parameters
    assert tool_entry(search, "openai-responses")["parameters"] == search.parameters
    assert all(t["strict"] is False for t in responses)  # FunctionToolParam: strict is required
    assert not any("strict" in t["function"] for t in chat)  # optional in Chat Completions: default false
    gemini = request.tools("gemini")
    assert [d["name"] for d in gemini[0]["functionDeclarations"]] == RESIDENT
    with pytest.raises(UsageError, match="unknown API 'openai-chats'.*did you mean 'openai-chat'"):
        request.tools("openai-chats")  # type: ignore[arg-type]


def test_handling_a_search_in_chat_mode_discloses_its_hits_on_the_next_request(demo):
    ts = ToolSearch(demo)
    messages = [{"role": "user", "content": "weather in Paris"}]
    request = ts.request(messages)
    handled = ts.handle("toolSearch", '{"query": "current weather for a city", "maxResults": 2}', request)
    assert handled.ok and handled.is_search and handled.error is None
    names = json.loads(handled.content)
    assert names[0] == "getWeather" and len(names) == 2
    after = ts.request(searched(messages, "current weather", handled.content))
    assert after.names == [*RESIDENT, *names]
    assert after.get("getWeather") is demo.get("getWeather")


def test_a_bad_search_is_a_result_the_model_can_read(demo):
    ts = ToolSearch(demo)
    ts.request([{"role": "user", "content": "hi"}])
    blank = ts.handle("toolSearch", {"query": "  "})
    assert not blank.ok and blank.error == "search-failed" and "'query' is blank" in json.loads(blank.content)["error"]
    broken = ts.handle("toolSearch", '{"query": "wea')
    assert broken.error == "malformed-arguments" and "not valid JSON" in broken.message


@pytest.mark.parametrize(
    "name, arguments, kind",
    [
        ("getWeather", {"city": "Paris"}, "not-visible"),  # in the catalog, not disclosed yet
        ("launchRocket", {}, "unknown-tool"),
    ],
)
def test_calls_the_request_did_not_carry_are_refused_with_a_readable_result(demo, name, arguments, kind):
    ts = ToolSearch(demo)
    request = ts.request([{"role": "user", "content": "weather"}])
    handled = ts.handle(name, arguments, request)
    assert not handled.ok and handled.error == kind
    assert json.loads(handled.content) == {"error": f"tool {name!r} is not available in this request"}


def test_a_disclosed_tool_call_is_validated_and_handed_back_to_run(demo):
    ts = ToolSearch(demo)
    messages = searched([{"role": "user", "content": "weather"}], "weather", '["getWeather"]')
    request = ts.request(messages)
    ok = ts.handle("getWeather", '{"city": "Paris"}', request)
    assert ok.ok and ok.content is None and ok.arguments == {"city": "Paris"} and ok.tool is demo.get("getWeather")
    bad = ts.handle("getWeather", {"city": 3}, request)
    assert bad.error == "malformed-arguments" and "'city' must be string" in json.loads(bad.content)["error"]


def test_validate_arguments(demo):
    weather = demo.get("getWeather")
    assert validate_arguments(weather, '{"city": "Paris"}') == {"city": "Paris"}
    assert validate_arguments(weather, {"city": "Paris"}) == {"city": "Paris"}
    for arguments, problem in [
        ("{}", "missing required argument 'city'"),
        ('{"city": 1}', "must be string"),
        ("[1]", "must be a JSON object"),
        ('{"city": "Par', "not valid JSON"),
    ]:
        with pytest.raises(ToolArgumentsError, match=problem) as info:
            validate_arguments(weather, arguments)
        assert info.value.tool == "getWeather" and info.value.field == "arguments"


def test_agent_mode_state_is_saved_and_restored(demo, tmp_path):
    path = tmp_path / "run.json"
    ts = ToolSearch(demo, mode="agent")
    messages = [{"role": "user", "content": "weather"}]
    ts.handle("toolSearch", {"query": "current weather for a city", "maxResults": 1}, ts.request(messages))
    assert ts.active == ["getWeather"]
    assert ts.request(messages).names == [*RESIDENT, "getWeather"]  # the messages hold no search
    ts.save_state(path)
    resumed = ToolSearch.resume(path, demo)
    assert resumed.mode == "agent" and resumed.active == ["getWeather"]
    assert resumed.request(messages).names == [*RESIDENT, "getWeather"]
    fresh = ToolSearch.resume(tmp_path / "none.json", demo)
    assert fresh.active == []


def test_misuse_is_a_clear_error(demo):
    with pytest.raises(UsageError, match="before handle"):
        ToolSearch(demo).handle("toolSearch", {"query": "x"})
    with pytest.raises(UsageError, match="chat mode keeps no state"):
        ToolSearch(demo).save_state("x.json")
    with pytest.raises(UsageError, match="unknown mode"):
        ToolSearch(demo, mode="batch")


def test_the_catalog_may_be_given_as_paths():
    assert ToolSearch(DEMO).request([{"role": "user", "content": "x"}]).names == RESIDENT


# -- the example agent loop against the real loopback server --------------------------------------------


@pytest.fixture(scope="module")
def example():
    pytest.importorskip("openai")
    spec = importlib.util.spec_from_file_location("agent_loop_example", ROOT / "examples" / "agent_loop.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def server(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    srv = ChatServer()
    yield srv
    srv.close()


def test_the_example_loop_searches_runs_the_disclosed_tool_and_answers(example, server, capsys):
    server.add(
        call("toolSearch", {"query": "current weather for a city", "maxResults": 3}),
        call("getWeather", {"city": "Shanghai"}),
        say("Cloudy, 18°C in Shanghai."),
    )
    assert example.main(["Weather in Shanghai?", "--base-url", server.url, "--model", "m"]) == 0
    assert capsys.readouterr().out.strip() == "Cloudy, 18°C in Shanghai."
    first, second, third = server.requests
    assert first.tool_names == RESIDENT
    assert "getWeather" in second.tool_names and second.tool_names[:3] == RESIDENT
    result = json.loads(third.messages[-1]["content"])
    assert result == {"city": "Shanghai", "temperature": 18, "condition": "cloudy"}  # the app's implementation


def test_the_example_loop_refuses_an_undisclosed_call_and_keeps_state_in_agent_mode(example, server, tmp_path):
    state = tmp_path / "state.json"
    server.add(
        call("getWeather", {"city": "Shanghai"}),  # not disclosed yet: refused, the model reads why
        call("toolSearch", {"query": "current weather for a city"}),
        say("ok"),
    )
    agent = ["--mode", "agent", "--state", str(state)]
    assert example.main(["Weather?", "--base-url", server.url, "--model", "m", *agent]) == 0
    refusal = json.loads(server.requests[1].messages[-1]["content"])
    assert refusal == {"error": "tool 'getWeather' is not available in this request"}
    assert "getWeather" in server.requests[2].tool_names
    saved = json.loads(state.read_text(encoding="utf-8"))
    assert "getWeather" in saved["metadata"]["agentsflex.toolsearch.activeToolNames"]
    server.add(say("still here"))
    assert example.main(["again", "--base-url", server.url, "--model", "m", *agent]) == 0
    assert "getWeather" in server.requests[3].tool_names  # restored from the state file


def test_the_example_loop_refuses_state_without_agent_mode(example, server, tmp_path, capsys):
    """--state used to switch to agent mode silently; it is an agent-mode option, said so in one line."""
    state = tmp_path / "state.json"
    with pytest.raises(SystemExit) as exit_:
        example.main(["Weather?", "--base-url", server.url, "--model", "m", "--state", str(state)])
    assert exit_.value.code == 2
    assert "--state keeps agent-mode run state; use it with --mode agent" in capsys.readouterr().err
    assert not server.requests and not state.exists()  # nothing asked, nothing written


def _stopped(capsys) -> str:
    """The one line the example printed on stderr about why it stopped (nothing on stdout)."""
    out, err = capsys.readouterr()
    assert out == ""  # no empty answer line
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("agent_loop: stopped: "), lines
    return lines[0]


def test_the_example_loop_says_why_it_stopped_on_an_empty_reply(example, server, capsys):
    """What a small local model did: an empty reply. It printed an empty line and exited 1 unsaid."""
    server.add(say(""))
    assert example.main(["Weather?", "--base-url", server.url, "--model", "m"]) == 1
    said = _stopped(capsys)
    assert "the model sent an empty reply: no text, no tool calls (finish_reason stop)" in said


def test_the_example_loop_says_it_hit_the_step_limit_and_the_calls_refused(example, server, capsys):
    server.add(call("getWeather", {"city": "Paris"}), call("getWeather", {"city": "Paris"}))
    assert example.main(["Weather?", "--base-url", server.url, "--model", "m", "--max-requests", "2"]) == 1
    said = _stopped(capsys)
    assert "no answer after 2 requests (the step limit)" in said
    assert "2 calls refused, the last getWeather: not-visible" in said
    assert len(server.requests) == 2


def test_the_example_loop_says_the_server_failed(example, server, capsys):
    server.add(Status(404, {"error": {"message": "no such model"}}))
    assert example.main(["Weather?", "--base-url", server.url, "--model", "m"]) == 1
    said = _stopped(capsys)
    assert "the model server failed" in said and "no such model" in said


def test_the_example_run_as_a_script_says_why_it_stopped(server):
    """As the issue ran it: ``python examples/agent_loop.py ...`` against a model that says nothing."""
    import subprocess
    import sys

    server.add(say("   "))
    example_file = str(ROOT / "examples" / "agent_loop.py")
    done = subprocess.run(
        [sys.executable, example_file, "Weather?", "--base-url", server.url, "--model", "m"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.strip().startswith("agent_loop: stopped: the model sent an empty reply"), done.stderr


def test_agent_mode_counts_a_handled_call_as_a_use_under_cumulative(demo):
    """The tool the app just ran outlives the better-ranked hit nobody called (--max-active)."""
    ts = ToolSearch(demo, mode="agent", policy="cumulative", max_active=2)
    messages = [{"role": "user", "content": "weather, then email"}]
    found = json.loads(
        ts.handle(
            "toolSearch", '{"query": "current weather for a city", "maxResults": 2}', ts.request(messages)
        ).content
    )
    assert ts.state is not None and ts.state.active_names == found
    second = found[1]
    args = {name: "x" for name in demo.get(second).parameters.get("required", [])}
    assert ts.handle(second, json.dumps(args), ts.request(messages)).ok
    emailed = json.loads(
        ts.handle("toolSearch", '{"query": "send an email", "maxResults": 1}', ts.request(messages)).content
    )
    assert ts.state.active_names == [*emailed, second]  # found[0], never called, was evicted


QUERIES = ["weather in Paris", "send an email", "reset a password", "exchange rates", "zzz-nothing-matches"]


def _long_loop(ts, exchanges, check, trim=True, edit=False):
    """An app's agent loop of ``exchanges`` user turns (search, call the first hit, answer), with
    ``check(messages)`` at every request; half-way the app trims its history (a new, shorter list);
    with ``edit`` it edits its system message and its latest message in place now and then."""
    messages = [{"role": "system", "content": "Use toolSearch to find tools."}]
    for n in range(exchanges):
        if trim and n == exchanges // 2:
            messages = [messages[0], *messages[-6:]]  # trimmed: the kept log cannot be extended
        if edit and n % 7 == 3:
            messages[0]["content"] = f"Use toolSearch to find tools. Today is day {n}."  # edited in place
        messages.append({"role": "user", "content": f"question {n}: {QUERIES[n % len(QUERIES)]}"})
        request = check(messages)
        if edit and n % 5 == 2:
            messages[-1]["content"] += " (and in Celsius, please)"  # the last-seen message, edited in place
            request = check(messages)
        handled = ts.handle("toolSearch", {"query": QUERIES[n % len(QUERIES)], "maxResults": 2}, request)
        messages.append(
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {
                        "id": f"s{n}",
                        "type": "function",
                        "function": {
                            "name": "toolSearch",
                            "arguments": json.dumps({"query": QUERIES[n % len(QUERIES)]}),
                        },
                    }
                ],
            }  # fmt: skip
        )
        messages.append({"role": "tool", "tool_call_id": f"s{n}", "content": handled.content})
        request = check(messages)
        name = request.snapshot.disclosed[0] if request.snapshot.disclosed else "getWeather"
        outcome = ts.handle(name, "{}", request)
        messages.append(
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"id": f"t{n}", "type": "function", "function": {"name": name, "arguments": "{}"}}],
            }  # fmt: skip
        )
        messages.append({"role": "tool", "tool_call_id": f"t{n}", "content": outcome.content or '"done"'})
        check(list(messages))  # a fresh list of the same messages extends the log too
        messages.append({"role": "assistant", "content": f"answer {n}"})
    return messages


@pytest.mark.parametrize("mode", ["chat", "agent"])
@pytest.mark.parametrize("policy", ["latest", "cumulative"])
def test_requests_over_a_long_loop_equal_snapshots_of_the_whole_history(demo, mode, policy):
    """request() keeps an incremental log across calls; every request must be exactly what a
    snapshot built from scratch of the whole history gives (the behaviour before the log)."""
    ts = ToolSearch(demo, mode=mode, policy=policy, max_active=3, context={"role": "admin"})
    compared = []

    def check(messages):
        request = ts.request(messages)
        fresh = ts.engine.snapshot(list(messages), state=ts.state)
        assert request.snapshot.to_dict(include_messages=True) == fresh.to_dict(include_messages=True)
        assert request.messages == fresh.messages and request.names == fresh.names
        compared.append(len(messages))
        return request

    _long_loop(ts, 60, check, edit=True)
    assert len(compared) == 192 and max(compared) > 150  # a long history, and the trimmed one after
    assert (
        ts.request([{"role": "user", "content": "restart"}]).snapshot.to_dict()
        == ts.engine.snapshot([{"role": "user", "content": "restart"}], state=ts.state).to_dict()
    )  # a different, shorter history starts over


def test_a_long_loop_counts_each_message_s_tokens_a_few_times_not_once_per_request(demo, monkeypatch):
    """The work of request() over a loop is linear in the history: the message text given to the
    token counter adds up to a few times the final history, not (as when each request re-counted
    the whole history) about half the number of requests times it. A work count, not a timing."""
    ts = ToolSearch(demo, policy="cumulative")
    counter = ts.engine.counter
    count = type(counter).count.__get__(counter)
    counted = [0]

    def counting(text):
        if not text.lstrip('[{"').startswith('type":"function"'):  # tool definitions are cached per tool
            counted[0] += len(text)
        return count(text)

    monkeypatch.setattr(counter, "count", counting, raising=False)
    messages = _long_loop(ts, 40, ts.request, trim=False)
    whole = len(json.dumps(messages, ensure_ascii=False, separators=(",", ":")))
    assert whole * 2 < counted[0] < whole * 3, (counted[0], whole)  # each message's pieces: once, plus a few
    counted[0] = 0
    ts.request(list(messages))  # the same history again: nothing new to count
    assert counted[0] < 100
