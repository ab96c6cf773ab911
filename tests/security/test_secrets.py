"""Issue 11.1-2: the API key and URL credentials never reach any output, whatever echoes them.

Live runs talk to a real loopback HTTP server (tests/chat_server.py) through the openai SDK.
"""

from __future__ import annotations

import base64
import json

import pytest

from ..chat_server import ChatServer, calls, live_runner, say
from ..conftest import DEMO

KEY = "sk-test-SECRET-0123456789abcdef"
PASSWORD = "PASS-w0rd-xyz"
QUERY_TOKEN = "QTOKEN-5f4dcc3b5aa765d61d8327deb882cf99"  # a token in a query string


@pytest.fixture
def server():
    srv = ChatServer()
    yield srv
    srv.close()


@pytest.fixture
def live(run_cli, server, monkeypatch):
    return live_runner(run_cli, monkeypatch, server, KEY, backoff="0")


def _everything(result, *files) -> str:
    return result.stdout + result.stderr + "".join(f.read_text(encoding="utf-8") for f in files if f.exists())


def test_a_key_the_model_echoes_in_its_reply_arguments_or_a_tool_name_is_masked_in_every_format(live, server, tmp_path):
    pytest.importorskip("openai")
    echo = [
        calls((KEY, {}), ("getWeather", {"city": KEY})),
        say(f"Your key is {KEY}, and JSON-escaped {json.dumps(KEY)}."),
    ]
    for output_format in ("table", "json"):
        server.add(*echo)
        record = tmp_path / f"{output_format}.json"
        result = live("--prompt", "hi", "-c", str(DEMO), "--format", output_format, "--record", str(record))
        assert result.code in (0, 1), result.stderr
        assert KEY not in _everything(result, record)
        assert "***" in result.stdout
    assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"  # the key itself was sent


def test_an_internal_error_traceback_under_debug_masks_the_key(live, server, monkeypatch):
    pytest.importorskip("openai")
    from toolsearch_cli.providers import openai_chat

    def broken(self, response, *args):
        raise RuntimeError(f"cannot read {response!r} sent with {KEY}")

    monkeypatch.setattr(openai_chat.OpenAIChatClient, "_completion", broken)
    server.add(say("hello"))
    result = live("--debug", "--prompt", "hi", "-c", str(DEMO))
    assert result.code == 2 and "Traceback" in result.stderr
    assert KEY not in result.stdout + result.stderr
    assert "sent with ***" in result.stderr


def test_base_url_credentials_with_an_at_sign_in_the_user_are_masked_also_when_echoed(live, server, tmp_path):
    pytest.importorskip("openai")
    host = server.url.split("://", 1)[1]
    url = f"http://us@er:{PASSWORD}@{host}"
    basic = base64.b64encode(f"us@er:{PASSWORD}".encode()).decode()
    record = tmp_path / "rec.json"
    for output_format in ("table", "json"):
        # the server echoes the Authorization header it got (HTTP Basic, from the URL), and the password
        server.add(lambda body: say(f"you sent {server.requests[-1].headers.get('authorization')} and {PASSWORD}"))
        result = live(
            "--prompt", "hi", "-c", str(DEMO), "--format", output_format, "--record", str(record), base_url=url
        )
        assert result.code == 0, result.stderr
        text = _everything(result, record)
        for secret in (PASSWORD, "er:" + PASSWORD, basic):
            assert secret not in text, secret
        assert "http://***@" in text
    assert server.requests[-1].headers["authorization"] == f"Basic {basic}"  # what the echo would have shown


def test_api_key_env_given_a_key_is_refused_without_echoing_it(run_cli):
    result = run_cli("simulate", "--live", "--model", "m", "--prompt", "hi", "--api-key-env", KEY, "-c", str(DEMO))
    assert result.code == 2
    assert KEY not in result.stdout + result.stderr
    assert "--api-key-env takes the name of an environment variable" in result.stderr


def test_mcp_http_credentials_are_masked_in_errors(run_cli):
    pytest.importorskip("mcp")
    import socket

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    source = f"mcp+http://us@er:{PASSWORD}@127.0.0.1:{port}/mcp?token={QUERY_TOKEN}"
    result = run_cli("search", "weather", "-c", source)
    assert result.code == 2 and result.stderr.count("\n") == 1
    assert PASSWORD not in result.stderr and QUERY_TOKEN not in result.stderr
    assert f"mcp+http://***@127.0.0.1:{port}/mcp?…" in result.stderr


def test_a_basic_auth_header_an_mcp_server_echoes_in_its_tools_is_masked(monkeypatch):
    from toolsearch_cli import redaction
    from toolsearch_cli.catalog.mcp_client import tools_from_live

    redaction.forget_all()
    source = f"mcp+http://user:{PASSWORD}@127.0.0.1:9/mcp"
    basic = base64.b64encode(f"user:{PASSWORD}".encode()).decode()
    tools = tools_from_live(
        source, "s", [{"name": "echo", "description": f"got Basic {basic}", "inputSchema": {"type": "object"}}]
    ).tools
    assert tools[0].description == "got Basic ***"


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("http://us@er:PASS@host/v1", "http://***@host/v1"),
        ("https://u:p/w@host:8/v1?key=k#x", "https://***@host:8/v1?…"),
        ("http://host/v1", "http://host/v1"),
        ("http://host/v1?token=abc", "http://host/v1?…"),
    ],
)
def test_shown_url_masks_everything_up_to_the_last_at_and_the_query(url, shown):
    from toolsearch_cli import redaction

    assert redaction.shown_url(url) == shown


def test_the_redacting_stream_masks_a_secret_written_in_pieces():
    import io

    from toolsearch_cli import redaction

    redaction.forget_all()
    redaction.register(KEY)
    sink = io.StringIO()
    stream = redaction.RedactingStream(sink)
    for piece in (KEY[:5], KEY[5:12], KEY[12:] + " end\n", "tail " + KEY):
        stream.write(piece)
    stream.flush()
    redaction.forget_all()
    assert sink.getvalue() == "*** end\ntail ***"
