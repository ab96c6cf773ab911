"""Every live option reaches each provider API in the form that API takes, through the installed
official SDK, as the loopback server receives it; an option the installed SDK's API has no
parameter for is refused in one line (exit 2) before any request. (``simulate --live --api
anthropic --temperature 0`` was ``internal error: TypeError: Messages.create() got an unexpected
keyword argument 'temperature'`` with anthropic 2.17, whose Messages API takes no temperature.)"""

from __future__ import annotations

import inspect

import pytest

from ..chat_server import ChatServer, live_runner, say
from .test_simulate_live import EN, FAKE_KEY

pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")

DEMO = str(EN.parent.parent / "demo")
#: whether the installed anthropic SDK's Messages API takes a temperature (0.x did; 2.17 does not)
ANTHROPIC_TEMPERATURE = "temperature" in inspect.signature(anthropic.Anthropic(api_key="x").messages.create).parameters


@pytest.fixture
def live(run_cli, server, monkeypatch, api):
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    run = live_runner(run_cli, monkeypatch, server, FAKE_KEY, model="m")

    def go(*args):
        server.add(say("done"))
        return run("--api", api, "--prompt", "hi", "--catalog", DEMO, "--format", "json", *args)

    return go


def _sent(live, server, *args):
    result = live(*args)
    assert result.code == 0, result.stderr
    assert len(server.requests) == 1
    return server.requests[0].body


def _refused(result, server, *said):
    assert result.code == 2, (result.code, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and all(s in lines[0] for s in said), lines
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr
    assert server.requests == []  # refused before the run


def test_temperature(live, server, api):
    if api == "anthropic" and not ANTHROPIC_TEMPERATURE:
        _refused(live("--temperature", "0"), server, "--temperature cannot be sent with --api anthropic",
                 f"anthropic SDK ({anthropic.__version__})", "leave --temperature out")  # fmt: skip
        return
    assert _sent(live, server, "--temperature", "0")["temperature"] == 0
    server.requests.clear()
    assert _sent(live, server, "--temperature", "0.7")["temperature"] == 0.7


def test_no_temperature_is_sent_unless_asked(live, server):
    assert "temperature" not in _sent(live, server)


@pytest.mark.skipif(not ANTHROPIC_TEMPERATURE, reason="this anthropic SDK takes no temperature at all")
def test_anthropic_s_temperature_range_is_checked_before_the_run(run_cli, monkeypatch):
    srv = ChatServer(protocol="anthropic")
    try:
        monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
        run = live_runner(run_cli, monkeypatch, srv, FAKE_KEY)
        result = run("--api", "anthropic", "--prompt", "hi", "--catalog", DEMO, "--temperature", "1.5")
        _refused(result, srv, "--temperature must be between 0 and 1 with --api anthropic, not 1.5")
    finally:
        srv.close()


def test_max_tokens(live, server, api):
    body = _sent(live, server, "--max-tokens", "77")
    key = {"openai-chat": "max_tokens", "openai-responses": "max_output_tokens", "anthropic": "max_tokens"}[api]
    assert body[key] == 77
    assert {"max_tokens", "max_output_tokens", "max_completion_tokens"} & set(body) == {key}


@pytest.mark.parametrize(
    ("url", "key"),
    [
        ("https://api.openai.com/v1", "max_completion_tokens"),
        ("https://API.OpenAI.com/v1/", "max_completion_tokens"),
        ("https://res.openai.azure.com/openai/v1", "max_completion_tokens"),
        ("http://127.0.0.1:8080/v1", "max_tokens"),
        ("https://api.openai.com.example/v1", "max_tokens"),
    ],
)
def test_openai_s_own_endpoints_get_max_completion_tokens(url, key):
    """OpenAI deprecated ``max_tokens`` for Chat Completions (its reasoning models refuse it); the
    compatible servers (llama.cpp, Ollama) read only ``max_tokens``. No request is made here: the
    keywords are those the create call would get, checked against the installed SDK already."""
    from toolsearch_cli.providers import OpenAIChatClient

    client = OpenAIChatClient(base_url=url, model="m", api_key=None, max_tokens=77)
    kwargs = client._request_kwargs([{"role": "user", "content": "hi"}], [])
    assert kwargs[key] == 77
    assert {"max_tokens", "max_completion_tokens"} & set(kwargs) == {key}


def test_max_tokens_unset(live, server, api):
    body = _sent(live, server)
    if api == "anthropic":  # the Messages API requires it: its default is sent
        assert body["max_tokens"] == 1024
    else:
        assert not {"max_tokens", "max_output_tokens", "max_completion_tokens"} & set(body)


@pytest.mark.parametrize("choice", ["auto", "required", "none", "omit"])
def test_tool_choice(live, server, api, choice):
    body = _sent(live, server, "--tool-choice", choice)
    assert body["tools"]  # the resident tools travel with every request
    if choice == "omit":
        assert "tool_choice" not in body
        return
    wanted = {"auto": {"type": "auto"}, "required": {"type": "any"}, "none": {"type": "none"}}
    assert body["tool_choice"] == (wanted[choice] if api == "anthropic" else choice)


def test_system(live, server, api):
    body = _sent(live, server, "--system", "Answer in one word.")
    if api == "anthropic":
        assert body["system"] == "Answer in one word."
        assert all(m["role"] != "system" for m in body["messages"])
    elif api == "openai-responses":
        assert body["input"][0] == {"role": "system", "content": "Answer in one word."}
    else:
        assert body["messages"][0] == {"role": "system", "content": "Answer in one word."}


def test_model(live, server):
    assert _sent(live, server)["model"] == "m"


def test_an_sdk_without_the_api_is_one_line_before_the_run(monkeypatch):
    """openai before 1.66 has no Responses API: --api openai-responses said so as an internal
    AttributeError; now in one line naming the installed release."""
    from types import SimpleNamespace

    import openai

    from toolsearch_cli.providers.client import LiveError
    from toolsearch_cli.providers.openai_responses import OpenAIResponsesClient

    def older(**kwargs):  # a client with chat completions only
        return SimpleNamespace(chat=openai.OpenAI(**kwargs).chat)

    stub = SimpleNamespace(
        __name__="openai", __version__="1.55.3", OpenAI=older, DefaultHttpxClient=openai.DefaultHttpxClient
    )
    monkeypatch.setattr(OpenAIResponsesClient, "_load_sdk", lambda self: stub)
    with pytest.raises(LiveError) as caught:
        OpenAIResponsesClient(base_url="http://127.0.0.1:9/v1", model="m", api_key=None)
    assert str(caught.value) == (
        "--api openai-responses needs an openai SDK with this API; the installed one (1.55.3) does not: "
        "pip install -U openai"
    )
