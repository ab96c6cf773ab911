"""The https://…/namespaces/N source against a hostile server (a loopback http.server of this test):
every bad reply is a one-line error (exit 2), bounded in size and time, never a traceback, never
an escape code; the watcher survives each and follows again at the next good reply. No PostgreSQL."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from toolsearch_cli.registry import http_source

GOOD = {"tools": [{"name": "getWeather", "description": "Weather of a city"}], "resident": [], "groups": []}


class Hostile(BaseHTTPRequestHandler):
    """Answers by the first path segment (what the test named the 'API root')."""

    protocol_version = "HTTP/1.1"
    changes: list[dict] = []
    #: Where ``tosink`` redirects (another loopback server: :class:`Sink`).
    sink = ""

    def log_message(self, *args) -> None:  # quiet
        pass

    def send(self, status: int, body: bytes, headers: dict[str, str] | None = None, length: bool = True) -> None:
        self.send_response(status)
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        if length:
            self.send_header("Content-Length", str(len(body)))
        else:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802 - the http.server name
        kind = self.path.split("/")[1]
        version = {"X-Toolsearch-Version": "1", "Content-Type": "application/json"}
        if kind == "good":
            if "/-/changes" in self.path:
                reply = Hostile.changes.pop(0) if Hostile.changes else {"changed": False, "version": 1}
                self.send(200, json.dumps(reply).encode(), version)
            else:
                self.send(200, json.dumps(GOOD).encode(), version)
        elif kind == "big":
            self.send(200, b'{"tools": [' + b" " * 5000 + b"]}", version, length=False)
        elif kind == "declared":
            self.send_response(200)
            self.send_header("Content-Length", str(10**12))
            self.end_headers()
        elif kind == "redirect":
            self.send(302, b"", {"Location": "file:///etc/passwd"})
        elif kind == "tosink":  # to a server that would answer well: the request must not reach it
            self.send(302, b"", {"Location": Hostile.sink + self.path.replace("/tosink/", "/good/", 1)})
        elif kind == "html":
            self.send(200, b"<html>hello</html>", version)
        elif kind == "escape":
            message = "\x1b[31mred\x1b]0;title\x07 and\nsecond line " + "x" * 500
            self.send(500, json.dumps({"error": message}).encode(), {"Content-Type": "application/json"})
        elif kind == "noversion":
            self.send(200, json.dumps(GOOD).encode(), {"Content-Type": "application/json"})
        elif kind == "deep":
            self.send(200, b'{"tools": ' + b"[" * 1500 + b"]" * 1500 + b"}", version)
        elif kind == "badtool":
            self.send(200, json.dumps({"tools": [{"name": "x", "parameters": 5}]}).encode(), version)
        elif kind == "slow":
            self.send_response(200)
            self.send_header("X-Toolsearch-Version", "1")
            self.send_header("Content-Length", "1000")
            self.end_headers()
            for _ in range(100):
                self.wfile.write(b" ")
                self.wfile.flush()
                time.sleep(0.1)
        elif kind == "stall":  # the status line and headers, then nothing: the body's read times out
            self.send_response(200)
            self.send_header("X-Toolsearch-Version", "1")
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.flush()
            time.sleep(3)
        elif kind == "binary":
            self.send(200, b"\xff\xfe\x00garbage", version)


class Quiet(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:  # a client that hung up: nothing to say
        pass


@pytest.fixture
def hostile():
    server = Quiet(("127.0.0.1", 0), Hostile)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    Hostile.changes = []
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize(
    ("kind", "words"),
    [
        ("big", "over the limit"),
        ("declared", "over the limit"),
        ("redirect", "redirect (HTTP 302), not followed"),
        ("html", "malformed reply"),
        ("escape", "answered HTTP 500: \\x1b[31mred"),
        ("noversion", "names no version"),
        ("deep", "nested"),
        ("badtool", "tool 'x'"),
        ("slow", "took too long"),
        ("stall", "took too long"),
        ("binary", "not UTF-8"),
    ],
)
def test_a_hostile_reply_is_a_one_line_error(run_cli, hostile, monkeypatch, kind, words):
    monkeypatch.setattr(http_source, "MAX_BYTES", 4000)
    monkeypatch.setattr(http_source, "REQUEST_TIMEOUT", 1.0)
    monkeypatch.setenv("TOOLSEARCH_REGISTRY_TOKEN", "tsr_0123456789ab_" + "S" * 43)
    began = time.monotonic()
    result = run_cli("search", "weather", "-c", f"{hostile}/{kind}/v1/namespaces/ns")
    assert time.monotonic() - began < 10
    assert result.code == 2, (result.stdout, result.stderr)
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert words in result.stderr, result.stderr
    assert "\x1b" not in result.stderr and "\x07" not in result.stderr and "Traceback" not in result.stderr
    assert "S" * 43 not in result.stderr


class Sink(Hostile):
    """A good registry that notes every request reaching it (the target of ``tosink``'s redirect)."""

    seen: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 - the http.server name
        Sink.seen.append(self.path)
        super().do_GET()


def test_a_redirect_to_another_server_is_not_followed_and_said_in_one_line(run_cli, hostile, monkeypatch):
    """A registry answering 302 towards another loopback server (one that would answer well): no
    request reaches that server, neither from a load nor from the watcher's long poll, and the error
    says why in one line. (http.client never follows redirects; this keeps it so if the client changes.)"""
    import urllib.request

    from toolsearch_cli.catalog.sources import parse_source

    sink = Quiet(("127.0.0.1", 0), Sink)
    threading.Thread(target=sink.serve_forever, daemon=True).start()
    Sink.seen = []
    Hostile.sink = f"http://127.0.0.1:{sink.server_address[1]}"
    monkeypatch.setenv("TOOLSEARCH_REGISTRY_TOKEN", "tsr_0123456789ab_" + "S" * 43)
    try:
        result = run_cli("search", "weather", "-c", f"{hostile}/tosink/v1/namespaces/ns")
        assert result.code == 2 and len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert "answered with a redirect (HTTP 302), not followed" in result.stderr, result.stderr
        assert "S" * 43 not in result.stderr

        statuses: list[str] = []
        watcher = http_source.HttpWatcher(
            parse_source(f"{hostile}/tosink/v1/namespaces/ns"), print, version=1, wait=0.2
        )
        watcher.on_status = statuses.append
        watcher.start()
        try:
            deadline = time.monotonic() + 30
            while not any("redirect" in s for s in statuses):
                assert time.monotonic() < deadline, statuses
                time.sleep(0.02)
        finally:
            watcher.stop()
        said = next(s for s in statuses if "redirect" in s)
        assert "\n" not in said and "not followed" in said and "serving version 1" in said, said
        assert Sink.seen == []
        # a client that follows redirects (urllib) gets there: so the check above means something
        with urllib.request.urlopen(f"{hostile}/tosink/v1/namespaces/ns", timeout=10) as followed:
            assert followed.status == 200
        assert Sink.seen == ["/good/v1/namespaces/ns"]
    finally:
        sink.shutdown()
        sink.server_close()


def test_the_good_server_works_so_the_hostile_cases_mean_something(run_cli, hostile):
    result = run_cli("search", "weather", "-c", f"{hostile}/good/v1/namespaces/ns", "-f", "json")
    assert result.code == 0 and [h["name"] for h in result.json()["hits"]] == ["getWeather"]


def test_the_watcher_survives_bad_replies_and_follows_the_next_good_one(hostile):
    from toolsearch_cli.catalog.sources import parse_source

    source = parse_source(f"{hostile}/good/v1/namespaces/ns")
    statuses: list[str] = []
    got: list = []
    good_change = {
        "changed": True,
        "full": False,
        "version": 2,
        "removed": [],
        "catalog": {"tools": [{"name": "getWeather", "description": "changed"}], "resident": [], "groups": []},
    }
    Hostile.changes = [
        {"changed": "yes"},
        {"changed": True, "version": -1, "catalog": {}},
        {"changed": True, "version": 2, "removed": [1], "catalog": {}},
        {"changed": True, "version": 2, "removed": [], "catalog": {"tools": [{"name": "x", "parameters": 5}]}},
        good_change,
    ]
    watcher = http_source.HttpWatcher(source, got.append, version=1, wait=0.2)
    watcher.on_status = statuses.append
    watcher.start()
    try:
        deadline = time.monotonic() + 30
        while not got:
            assert time.monotonic() < deadline, statuses
            time.sleep(0.02)
    finally:
        watcher.stop()
    assert got[0].version == 2 and [t.description for t in got[0].upsert] == ["changed"]
    down = [s for s in statuses if s.startswith("disconnected")]
    assert len(down) >= 2 and all("serving version 1" in s for s in down)
    assert all("\n" not in s for s in statuses) and statuses[-1] == "live"
    assert watcher._thread is not None and not watcher._thread.is_alive()


def test_the_https_kind_is_known_and_its_url_survives_the_catalog_variable():
    from toolsearch_cli.catalog.sources import source_kinds, split_env_sources

    value = "catalogs/demo:https://reg.example:8443/v1/namespaces/t:w=http://127.0.0.1:9/api/namespaces/x"
    assert split_env_sources(value, ":") == [
        "catalogs/demo",
        "https://reg.example:8443/v1/namespaces/t",
        "w=http://127.0.0.1:9/api/namespaces/x",
    ]
    assert [k.name for k in source_kinds()][:3] == ["live", "registry", "registry-http"]


def test_a_lockfile_keys_https_tools_by_namespace_as_the_gateway_does(run_cli, hostile, tmp_path):
    """``toolsearch lock`` over an https source keys its tools ``registry:NAMESPACE`` (the key the
    running gateway checks a registry feed's tools by), not by the URL as if it were a file."""
    out = tmp_path / "toolsearch.lock"
    result = run_cli("lock", f"{hostile}/good/v1/namespaces/team/ns", "-o", str(out))
    assert result.code == 0, result.stderr
    text = out.read_text(encoding="utf-8")
    assert "registry:team/ns" in text and "127.0.0.1" not in text
