"""The reply bound (``--max-reply-size``) is enforced in the HTTP transport every provider SDK's
client goes through (``toolsearch_cli.bounded.bounded_http_client``), not in an SDK's way of
reading a body: it held for ``openai`` but not for ``anthropic`` 2.17, which asks its client for a
streamed response and reads it itself. Each provider API the live run supports is tested against
a loopback server, whatever way the body arrives; and the client alone, on both HTTP libraries
the SDKs have been built on (``httpx`` and ``httpx2``), read as a stream or not."""

from __future__ import annotations

import gzip
import json
import zlib
from types import SimpleNamespace

import pytest

from ..chat_server import ChatServer, Raw, live_runner
from .conftest import PROTOCOLS
from .test_simulate_live import EN, FAKE_KEY

pytest.importorskip("openai")
pytest.importorskip("anthropic")

DEMO = str(EN.parent.parent / "demo")
#: --api -> the loopback server's protocol
BOUND_SAID = "more than the 100 KB a reply may be (--max-reply-size); it was not read further"


@pytest.fixture
def live(run_cli, server, monkeypatch, api):
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    run = live_runner(run_cli, monkeypatch, server, FAKE_KEY, model="scripted-model")
    return lambda *args, **kwargs: run("--api", api, "--prompt", "hi", "--catalog", DEMO, *args, **kwargs)


def _one_line(result) -> str:
    assert result.code == 2, (result.code, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert FAKE_KEY not in result.stderr
    return lines[0]


BIG = json.dumps({"padding": "x" * 300_000}).encode()


@pytest.mark.parametrize(
    "reply",
    [
        pytest.param(Raw(200, BIG), id="content-length"),
        pytest.param(Raw(200, BIG, chunked=True), id="chunked"),
        pytest.param(Raw(200, gzip.compress(BIG), headers={"Content-Encoding": "gzip"}), id="gzip"),
        pytest.param(Raw(200, zlib.compress(BIG), headers={"Content-Encoding": "deflate"}), id="deflate"),
        pytest.param(Raw(500, BIG, chunked=True), id="error-status"),
    ],
)
def test_a_reply_over_the_bound_is_refused_for_every_api(live, server, reply):
    server.add(reply)
    line = _one_line(live("--max-reply-size", "100KB", "--retries", "0"))
    assert BOUND_SAID in line, line
    # the request asked for no compression: the size that arrives is the size read
    assert server.requests[0].headers.get("accept-encoding") == "identity"


def test_a_compressed_reply_under_the_bound_is_read(live, server, api):
    from ..chat_server import as_protocol, say

    body = json.dumps(as_protocol(say("compressed but fine"), PROTOCOLS[api])).encode()
    server.add(Raw(200, gzip.compress(body), headers={"Content-Encoding": "gzip"}))
    result = live("--max-reply-size", "100KB", "--format", "json")
    assert result.code == 0, result.stderr
    assert result.json()["requests"][0]["reply"]["content"] == "compressed but fine"


def test_a_compression_not_asked_for_is_refused_unread(live, server):
    server.add(Raw(200, b"\x1b\x00\x00", headers={"Content-Encoding": "br"}))
    line = _one_line(live())
    assert "sent a body compressed with 'br' though none was asked for (Accept-Encoding: identity)" in line, line


def test_a_corrupt_gzip_body_is_one_line(live, server):
    server.add(Raw(200, b"not gzip at all", headers={"Content-Encoding": "gzip"}))
    line = _one_line(live())
    assert "sent a compressed body that does not decode" in line, line


def test_the_bound_holds_through_a_proxy_from_the_environment(live, server, monkeypatch, api):
    """The SDK's client keeps its proxies from the environment; their transports are bounded too."""
    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{server.port}")
    monkeypatch.setenv("http_proxy", f"http://127.0.0.1:{server.port}")
    server.add(Raw(200, BIG, chunked=True))
    result = live("--max-reply-size", "100KB", base_url="http://model.invalid/v1")
    assert result.code == 2
    warning, line = result.stderr.strip().splitlines()  # the key over plain http://, then the error
    assert warning.startswith("warning: the API key") and BOUND_SAID in line, line
    assert server.requests and server.requests[0].path.startswith("http://model.invalid/")  # it went by the proxy


# ---------------------------------------------------------------- the client alone, on each HTTP library


@pytest.fixture(params=["httpx", "httpx2"])
def sdk(request):
    """A stand-in for an SDK module: what bounded_http_client takes of it is its DefaultHttpxClient."""
    http = pytest.importorskip(request.param)
    return SimpleNamespace(DefaultHttpxClient=http.Client, http=http)


@pytest.mark.parametrize("streamed", [False, True], ids=["read", "streamed"])
def test_the_client_refuses_a_body_over_the_bound_however_it_is_read(sdk, streamed):
    from toolsearch_cli.bounded import ReplyTooLarge, bounded_http_client, reply_refused

    server = ChatServer()
    try:
        server.add(Raw(200, BIG, chunked=True), Raw(200, b'{"small": true}', chunked=True))
        client = bounded_http_client(sdk, 100 * 1024)
        request = client.build_request("POST", f"{server.url}/chat/completions", json={})
        with pytest.raises(sdk.http.RequestError) as caught:
            response = client.send(request, stream=streamed)
            if streamed:  # as anthropic 2.17 does: a streamed response, read by the SDK itself
                response.read()
        refused = reply_refused(caught.value)
        assert isinstance(refused, ReplyTooLarge) and refused.limit == 100 * 1024
        small = client.send(client.build_request("POST", f"{server.url}/chat/completions", json={}), stream=streamed)
        assert small.read() == b'{"small": true}'
        client.close()
    finally:
        server.close()


def test_a_declared_size_over_the_bound_is_refused_unread(sdk):
    from toolsearch_cli.bounded import ReplyTooLarge, bounded_http_client, reply_refused

    server = ChatServer()
    try:
        server.add(Raw(200, BIG))
        client = bounded_http_client(sdk, 100 * 1024)
        with pytest.raises(sdk.http.RequestError) as caught:
            client.post(f"{server.url}/chat/completions", json={})
        refused = reply_refused(caught.value)
        assert isinstance(refused, ReplyTooLarge) and refused.declared == len(BIG)
        client.close()
    finally:
        server.close()


def test_a_gzip_bomb_stops_at_the_bound(sdk):
    """16 MB of zeros arrive as 16 KB; inflating stops just past the 100 KB bound."""
    from toolsearch_cli.bounded import ReplyTooLarge, bounded_http_client, reply_refused

    server = ChatServer()
    try:
        server.add(Raw(200, gzip.compress(b"0" * (16 * 1024 * 1024)), headers={"Content-Encoding": "gzip"}))
        client = bounded_http_client(sdk, 100 * 1024)
        with pytest.raises(sdk.http.RequestError) as caught:
            client.post(f"{server.url}/chat/completions", json={})
        assert isinstance(reply_refused(caught.value), ReplyTooLarge)
        client.close()
    finally:
        server.close()


def test_a_client_without_the_usual_transports_is_replaced_by_a_bounded_one(sdk):
    """A future HTTP library without ``_transport``/``_mounts``: the client given is bounded still."""
    from toolsearch_cli.bounded import ReplyTooLarge, bounded_http_client, reply_refused

    class Unusual(sdk.http.Client):
        def __init__(self) -> None:
            super().__init__()
            del self._transport

    server = ChatServer()
    try:
        server.add(Raw(200, BIG, chunked=True))
        client = bounded_http_client(SimpleNamespace(DefaultHttpxClient=Unusual), 100 * 1024)
        assert isinstance(client, sdk.http.Client)
        with pytest.raises(sdk.http.RequestError) as caught:
            client.post(f"{server.url}/chat/completions", json={})
        assert isinstance(reply_refused(caught.value), ReplyTooLarge)
        client.close()
    finally:
        server.close()
