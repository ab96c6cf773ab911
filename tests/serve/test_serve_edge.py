"""The gateway's edge: duplicate context headers, slow headers and bodies, argument size, deep
nesting, client disconnects, signals in every mode, and bearer tokens, against ``toolsearch
serve`` as a real process, with the official ``mcp`` client where a client can say it."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

import anyio
import pytest

from ..serve_helpers import (
    HttpGateway,
    admin_only_ops,
    gateway_args,
    gateway_env,
    json_of,
    real_sources,
    scripted_source,
    text_of,
)

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
LEGACY = {**HEADERS, "MCP-Protocol-Version": "2025-06-18"}
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}
ECHO = [{"name": "echo_text", "description": "Echo a text back.", "inputSchema": {"type": "object"}}]


def session(url: str, headers: dict | None = None) -> dict[str, str]:
    """A handshake-protocol session opened with plain HTTP: the headers of its next requests."""
    import httpx

    opened = httpx.post(url, json=INIT, headers={**LEGACY, **(headers or {})}, timeout=30)
    assert opened.status_code == 200, opened.text
    ready = {**LEGACY, **(headers or {}), "Mcp-Session-Id": opened.headers["mcp-session-id"]}
    httpx.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=ready, timeout=30)
    return ready


def rpc(url: str, headers, body: str | bytes, timeout: float = 30):
    import httpx

    return httpx.post(url, content=body, headers=headers, timeout=timeout)


def test_a_duplicated_context_header_is_refused_and_one_header_still_counts(tmp_path):
    """With two X-Toolsearch-Context headers the first won: where a proxy appends its header, a
    client-sent role=admin beat the proxy's role=member."""
    sources = admin_only_ops(tmp_path)
    with HttpGateway(sources, "--catalog-via", "ops", "--context-header", "X-Toolsearch-Context") as server:
        ready = session(server.url)
        call = json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 5,
                "method": "tools/call",
                "params": {"name": "callTool", "arguments": {"name": "drop_database", "arguments": {}}},
            }
        )
        both = [*ready.items(), ("X-Toolsearch-Context", "role=admin"), ("X-Toolsearch-Context", "role=member")]
        refused = rpc(server.url, both, call)
        assert refused.status_code == 400
        assert refused.json()["error"]["message"] == "the context header is given more than once: refused"
        member = rpc(server.url, [*ready.items(), ("X-Toolsearch-Context", "role=member")], call)
        assert member.status_code == 200 and "no tool named 'drop_database'" in member.text
        admin = rpc(server.url, [*ready.items(), ("X-Toolsearch-Context", "role=admin")], call)
        assert admin.status_code == 200 and '\\"tool\\": \\"drop_database\\"' in admin.text  # it ran


def wait_closed(sock: socket.socket, seconds: float) -> tuple[float, bytes]:
    """Seconds until the gateway answered or closed the connection, and what it sent."""
    started = time.monotonic()
    sock.settimeout(seconds)
    got = b""
    try:
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            got += chunk
    except (TimeoutError, ConnectionResetError):
        pass
    return time.monotonic() - started, got


def test_slow_headers_and_a_slow_body_are_cut():
    """A client sending a byte every 3 s was never cut (slowloris)."""
    (time_source,) = real_sources("time")
    with HttpGateway([time_source], "--header-timeout", "2", "--body-timeout", "2") as server:
        # headers: a byte every 3 s
        with socket.create_connection(("127.0.0.1", server.port)) as sock:
            started = time.monotonic()
            request = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            closed = False
            for byte in request:
                try:
                    sock.sendall(bytes([byte]))
                except OSError:
                    closed = True
                    break
                sock.settimeout(3)
                try:
                    if sock.recv(1) == b"":
                        closed = True
                        break
                except TimeoutError:
                    pass
                if time.monotonic() - started > 20:
                    break
            assert closed, "a trickle of header bytes was never cut"
            assert time.monotonic() - started < 10
        # body: headers at once, then a byte every 3 s
        with socket.create_connection(("127.0.0.1", server.port)) as sock:
            sock.sendall(
                b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                b"Accept: application/json, text/event-stream\r\nContent-Length: 200\r\n\r\n{"
            )
            took, got = wait_closed(sock, 15)
            assert took < 10 and got.startswith(b"HTTP/1.1 408"), got[:200]
            assert b"did not arrive within 2 s" in got


def test_arguments_over_the_bound_are_refused_before_the_upstream(tmp_path):
    """A 10 MB argument string was forwarded to the upstream."""
    sources = [scripted_source("echo", ECHO, tmp_path)]
    from mcp import Client

    with HttpGateway(sources, "--max-argument-bytes", "100000") as server:

        async def scenario() -> None:
            async with Client(server.url, read_timeout_seconds=60) as gateway:
                small = await gateway.call_tool("callTool", {"name": "echo_text", "arguments": {"text": "x" * 1000}})
                assert json_of(small)["arguments"]["text"] == "x" * 1000
                # over the bound, under the body's: the gateway refuses it, nothing is forwarded
                big = await gateway.call_tool("callTool", {"name": "echo_text", "arguments": {"text": "x" * 120_000}})
                assert big.is_error and "larger than this gateway passes on (100,000 bytes" in text_of(big)
                assert "xxxx" not in text_of(big)

        async def huge() -> None:  # 10 MB: refused at the edge (413) before it is read to the end
            async with Client(server.url, read_timeout_seconds=60) as gateway:
                await gateway.call_tool("callTool", {"name": "echo_text", "arguments": {"text": "x" * 10_000_000}})

        anyio.run(scenario)
        with pytest.raises(BaseException) as refused:  # noqa: B017 - the client's own error for the 413
            anyio.run(huge)
        assert not isinstance(refused.value, KeyboardInterrupt)
        ready = session(server.url)
        body = json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"pad": "x" * 10_000_000}})
        answer = rpc(server.url, ready, body)
        assert answer.status_code == 413 and "larger than 165,536 bytes" in answer.json()["error"]["message"]


def test_deep_nesting_gets_an_error_over_http_and_stdio(tmp_path):
    """Nesting of ~200 levels got no reply at all over stdio (the SDK's reader drops the line)."""
    sources = [scripted_source("echo", ECHO, tmp_path)]
    deep = "[" * 250 + "]" * 250
    message = json.dumps(
        {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "callTool", "arguments": "@"}}
    ).replace('"@"', '{"name":"echo_text","arguments":{"x":' + deep + "}}")
    with HttpGateway(sources) as server:
        answer = rpc(server.url, session(server.url), message)
        assert answer.status_code == 400 and answer.json()["error"]["code"] == -32700

    process = subprocess.Popen(
        [sys.executable, *gateway_args(sources)],
        env=gateway_env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write((json.dumps(INIT) + "\n").encode())
        process.stdin.flush()
        assert json.loads(process.stdout.readline())["id"] == 1
        process.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n' + message.encode() + b"\n")
        process.stdin.write(b'{"jsonrpc":"2.0","id":8,"method":"tools/list"}\n')
        process.stdin.flush()
        first = json.loads(process.stdout.readline())
        assert first["error"]["code"] == -32700 and first["id"] is None
        assert json.loads(process.stdout.readline())["id"] == 8  # and it serves on
    finally:
        process.kill()
        process.wait()


def test_a_client_that_goes_away_mid_call_leaves_no_traceback(tmp_path):
    (time_source,) = real_sources("time")
    module = tmp_path / "slowtools.py"
    marks = tmp_path / "marks"  # the tool writes here when a call starts and when it returns
    marks.mkdir()
    module.write_text(
        "import os, time\nfrom toolsearch_cli import tool\n\n@tool\ndef wait_a_while(seconds: float) -> str:\n"
        '    """Wait some seconds.\n\n    Args:\n        seconds: How long.\n    """\n'
        f"    mark = os.path.join({str(marks)!r}, str(time.monotonic_ns()))\n"
        "    open(mark + '.started', 'w').close()\n"
        "    time.sleep(seconds)\n    open(mark + '.returned', 'w').close()\n    return 'waited'\n",
        encoding="utf-8",
    )

    def wait_for(suffix: str, count: int) -> None:
        deadline = time.monotonic() + 60
        while len(list(marks.glob(f"*.{suffix}"))) < count:
            assert time.monotonic() < deadline, f"{count} call(s) not {suffix} within 60 s"
            time.sleep(0.05)

    errlog = tempfile.TemporaryFile(mode="w+", encoding="utf-8")
    with HttpGateway([str(module), time_source], "--disclose", "list-changed", stderr=errlog) as server:
        client = (
            "import anyio, sys\nfrom mcp import Client\n"
            "async def main():\n"
            f"    async with Client({server.url!r}, read_timeout_seconds=30, **({{'mode': 'legacy'}} "
            "if sys.argv[1] == 'legacy' else {})) as c:\n"
            "        print('ready', flush=True)\n"
            "        await c.call_tool('callTool', {'name': 'wait_a_while', 'arguments': {'seconds': 2}})\n"
            "anyio.run(main)\n"
        )
        for count, mode in enumerate(("legacy", "modern"), start=1):
            child = subprocess.Popen(
                [sys.executable, "-c", client, mode], env=gateway_env(), stdout=subprocess.PIPE, text=True
            )
            assert child.stdout is not None and child.stdout.readline().strip() == "ready"
            wait_for("started", count)  # the call is running in the gateway: the client goes away mid-call
            child.kill()
            child.wait()
        wait_for("returned", 2)  # the abandoned calls finish...
        time.sleep(2)  # ...and their answers find no one
        assert server.process.poll() is None
    errlog.seek(0)
    said = errlog.read()
    assert "Traceback" not in said and "Error" not in said, said


@pytest.mark.parametrize("mode", ["http", "stdio"])
@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_signals_end_every_mode_with_the_usual_code_also_with_sigint_ignored(tmp_path, mode, signum, code):
    """Under HTTP with SIGINT ignored (a `cmd &` job), SIGTERM exited 1 with a 76-line traceback."""
    sources = [scripted_source("echo", ECHO, tmp_path)]
    runs = [(False, signum, code)]
    if signum == signal.SIGTERM:
        runs.append((True, signum, code))  # SIGINT ignored as in a background job: SIGTERM still ends it
    for ignore_sigint, sent, expected in runs:
        port = None
        args = gateway_args(sources)
        if mode == "http":
            from ..serve_helpers import free_port

            port = free_port()
            args = [*args, "--http", f"127.0.0.1:{port}"]
        errlog = tempfile.TemporaryFile(mode="w+", encoding="utf-8")

        def child_setup(ignore: bool = ignore_sigint) -> None:
            os.setsid()
            if ignore:
                signal.signal(signal.SIGINT, signal.SIG_IGN)

        process = subprocess.Popen(
            [sys.executable, *args],
            env=gateway_env(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errlog,
            preexec_fn=child_setup,  # noqa: PLW1509 - the test's own child
        )
        try:
            if port is None:  # stdio: serving once it answers the handshake
                assert process.stdin is not None and process.stdout is not None
                process.stdin.write((json.dumps(INIT) + "\n").encode())
                process.stdin.flush()
                assert json.loads(process.stdout.readline())["id"] == 1
            else:
                deadline = time.monotonic() + 60
                while time.monotonic() < deadline:
                    errlog.seek(0)
                    if "streamable HTTP on" in errlog.read():
                        break
                    time.sleep(0.2)
                session(f"http://127.0.0.1:{port}/mcp")  # serving
            process.send_signal(sent)
            assert process.wait(timeout=30) == expected
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
        errlog.seek(0)
        said = errlog.read()
        assert "Traceback" not in said and "ExceptionGroup" not in said, said
        assert said.rstrip().endswith({143: "error: terminated", 130: "error: interrupted"}[expected])


def test_bearer_tokens_hashed_at_rest_each_with_its_context(tmp_path):
    from toolsearch_cli.serve.edge import hash_token

    sources = admin_only_ops(tmp_path)
    tokens = tmp_path / "tokens.txt"
    tokens.write_text(
        "# the gateway's clients\n"
        f"{hash_token('member-secret-1')}  role=member  # alice\n"
        f"{hash_token('admin-secret-2', 'scrypt')}  role=admin  # bob\n",
        encoding="utf-8",
    )
    assert "secret" not in tokens.read_text(encoding="utf-8")
    extra = ("--catalog-via", "ops", "--tokens", str(tokens), "--context-header", "X-Toolsearch-Context")

    async def found(url: str, token: str | None, header: str | None = None) -> list[str]:
        import httpx2
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client

        headers = {"Authorization": f"Bearer {token}"} if token else {}
        if header:
            headers["X-Toolsearch-Context"] = header
        async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
            async with Client(streamable_http_client(url, http_client=http), read_timeout_seconds=60) as gateway:
                hits = json_of(await gateway.call_tool("toolSearch", {"query": "drop a production database"}))
                return [t["name"] for t in hits.get("tools", [])]

    import httpx

    with HttpGateway(sources, *extra) as server:
        assert httpx.post(server.url, json=INIT, headers=LEGACY, timeout=30).status_code == 401
        wrong = {**LEGACY, "Authorization": "Bearer admin-secret-3"}
        assert httpx.post(server.url, json=INIT, headers=wrong, timeout=30).status_code == 401
        assert anyio.run(found, server.url, "member-secret-1") == []
        assert anyio.run(found, server.url, "member-secret-1", "role=admin") == []  # the token's role wins
        assert anyio.run(found, server.url, "admin-secret-2") == ["drop_database"]
        with pytest.raises(Exception):  # noqa: B017 - no token: the client's error for a 401
            anyio.run(found, server.url, None)


def test_a_bad_tokens_file_is_one_line_and_exit_2(run_cli, tmp_path):
    tokens = tmp_path / "tokens.txt"
    tokens.write_text("sha256:abc role=admin\n", encoding="utf-8")
    (time_source,) = real_sources("time")
    result = run_cli("serve", "-c", time_source, "--http", "127.0.0.1:1", "--tokens", str(tokens))
    assert result.code == 2 and result.stderr.count("\n") == 1
    assert f"{tokens}:1" in result.stderr and "malformed sha256 hash" in result.stderr
    stdio = run_cli("serve", "-c", time_source, "--tokens", str(tokens))
    assert stdio.code == 2 and "--tokens needs --http" in stdio.stderr


def test_nesting_depth_skips_strings_and_stays_fast():
    from toolsearch_cli.serve.edge import nesting_depth

    assert nesting_depth(b'{"a": [1, {"b": "[[[[{{{"}]}', 10) == 3  # brackets inside strings do not count
    assert nesting_depth(b'["\\"[[[", [["x"]]]', 10) == 3  # an escaped quote does not end the string
    assert nesting_depth(b"[" * 1_000_000, 128) == 129  # counted up to the limit, then it stops
    started = time.perf_counter()
    body = json.dumps({"a": "x" * 1_000_000, "b": 'q\\"' * 200_000}).encode()
    assert nesting_depth(body, 128) == 1
    assert time.perf_counter() - started < 5  # linear (~30 ms); a backtracking pattern took seconds


def test_tokens_are_checked_by_hash_and_remembered_by_hash():
    from toolsearch_cli.serve.edge import HashedTokens, TokenEntry, hash_token

    entries = []
    for i, (token, scheme) in enumerate([("t-one", "sha256"), ("t-two", "scrypt")]):
        spec = hash_token(token, scheme).split(":")
        digest, salt = bytes.fromhex(spec[-1]), bytes.fromhex(spec[1]) if scheme == "scrypt" else b""
        entries.append(TokenEntry(scheme, digest, salt, {"role": f"r{i}"}, f"line {i}"))
    tokens = HashedTokens(entries)
    assert tokens.check("t-one").context == {"role": "r0"}
    assert tokens.check("t-two").context == {"role": "r1"}
    assert tokens.check("t-three") is None
    assert all(b"t-" not in key for key in tokens._known)  # remembered by SHA-256, never as sent
    assert hash_token("x", "scrypt") != hash_token("x", "scrypt")  # salted


class _SeenBy:
    """An ASGI app in place of the SDK's: answers each GET with the client address and scheme
    the web server put in the request's scope."""

    def streamable_http_app(self, **_: object) -> object:
        async def app(scope, receive, send) -> None:
            if scope["type"] == "lifespan":
                while True:
                    message = await receive()
                    kind = message["type"].removeprefix("lifespan.")
                    await send({"type": f"lifespan.{kind}.complete"})
                    if kind == "shutdown":
                        return
            seen = json.dumps({"client": scope["client"][0], "scheme": scope["scheme"]}).encode()
            await send(
                {"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]}
            )
            await send({"type": "http.response.body", "body": seen})

        return app


@pytest.mark.parametrize(
    ("allowed", "expected"),
    [
        (None, {"client": "127.0.0.1", "scheme": "http"}),  # uvicorn's default trusted loopback: 203.0.113.7, https
        (["10.0.0.0/8"], {"client": "127.0.0.1", "scheme": "http"}),  # not a listed proxy
        (["127.0.0.1"], {"client": "203.0.113.7", "scheme": "https"}),  # the operator named this proxy
    ],
)
def test_forwarded_headers_count_only_from_the_proxies_the_operator_names(monkeypatch, allowed, expected):
    """``serve --http``'s web server (the same uvicorn options as ``registry serve``'s): a local
    process sending X-Forwarded-For/-Proto does not choose the client address and scheme the
    server sees, unless --forwarded-allow-ips lists it; $FORWARDED_ALLOW_IPS is not read."""
    import httpx

    from toolsearch_cli.serve.gateway import Settings
    from toolsearch_cli.serve.server import _serve_http

    from ..serve_helpers import free_port

    monkeypatch.setenv("FORWARDED_ALLOW_IPS", "*")
    port = free_port()
    settings = Settings(sources=[], forwarded_allow_ips=allowed)
    forwarded = {"X-Forwarded-For": "203.0.113.7", "X-Forwarded-Proto": "https"}

    async def main() -> dict:
        async with anyio.create_task_group() as group:
            group.start_soon(_serve_http, _SeenBy(), settings, ("127.0.0.1", port), lambda line: None)
            async with httpx.AsyncClient(timeout=10) as client:
                for _ in range(200):
                    try:
                        reply = await client.get(f"http://127.0.0.1:{port}/", headers=forwarded)
                        break
                    except httpx.TransportError:
                        await anyio.sleep(0.05)
            group.cancel_scope.cancel()
        return reply.json()

    assert anyio.run(main) == expected


def test_forwarded_allow_ips_is_checked_in_one_line(run_cli):
    (time_source,) = real_sources("time")
    bad = run_cli("serve", "-c", time_source, "--http", "127.0.0.1:1", "--forwarded-allow-ips", "127.0.0.1,proxy")
    assert bad.code == 2 and bad.stderr.count("\n") == 1 and "not 'proxy'" in bad.stderr, bad.stderr
    stdio = run_cli("serve", "-c", time_source, "--forwarded-allow-ips", "127.0.0.1")
    assert stdio.code == 2 and "--forwarded-allow-ips needs --http" in stdio.stderr
    registry = run_cli("registry", "serve", "--db", "postgresql://h/d", "--forwarded-allow-ips", "10.0.0.0/33")
    assert registry.code == 2 and registry.stderr.count("\n") == 1 and "not '10.0.0.0/33'" in registry.stderr
