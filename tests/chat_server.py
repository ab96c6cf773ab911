"""A real HTTP server on 127.0.0.1 that speaks the Chat Completions protocol with scripted replies
(or, with ``protocol=``, Anthropic's Messages API or OpenAI's Responses API: the same scripted
completions are written as those APIs' replies, here, independently of the code under test).

Not a mocked client: the ``openai`` SDK talks to it over a socket. Each POST to
``/v1/chat/completions`` takes the next scripted reply; a reply is a completion built by
:func:`say` / :func:`calls`, an :class:`Status` (any HTTP status, body and headers), a
:class:`Sleep` (answer late, for timeouts), a :class:`Trickle` (a body one byte at a time), a
:class:`Raw` body, or a function of the request body returning one of those. Every request
(path, headers, JSON body) is kept for assertions.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Status:
    code: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Sleep:
    seconds: float
    then: Any = None


@dataclass
class Trickle:
    """A 200 whose body comes one byte every ``interval`` seconds; ``forever`` never ends it
    (chunked, repeating the text) — for a client's total deadline, which per-read timeouts miss."""

    text: str
    interval: float = 0.05
    forever: bool = False


@dataclass
class Raw:
    code: int
    text: str | bytes
    content_type: str = "application/json"
    #: sent in 64 KB chunks without a Content-Length (as a streaming proxy would)
    chunked: bool = False
    headers: dict[str, str] = field(default_factory=dict)


def completion(message: dict[str, Any], finish_reason: str, usage: dict[str, int] | None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 1767225600,
        "model": "scripted-model",
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
    }
    if usage is not None:
        body["usage"] = usage
    return body


#: ``prompt_tokens`` of a default usage: filled in per request from what was sent (see :func:`prompt_tokens`).
COUNTED = -1


def _usage(prompt: int, completion_tokens: int) -> dict[str, int]:
    return {"prompt_tokens": prompt, "completion_tokens": completion_tokens, "total_tokens": prompt + completion_tokens}


def prompt_tokens(body: dict[str, Any]) -> int:
    """What a real server would report as prompt tokens, estimated: a token per 4 characters of the
    messages and tools it was sent (the default usage of :func:`say` and :func:`calls`)."""
    sent = json.dumps([body.get("messages", body.get("input")), body.get("tools")], ensure_ascii=False,
                      separators=(",", ":"))  # fmt: skip
    return len(sent) // 4


def say(text: str | None, *, usage: dict[str, int] | None = None) -> dict[str, Any]:
    """A final text answer."""
    return completion({"role": "assistant", "content": text}, "stop", usage or _usage(COUNTED, 10))


def calls(*items: tuple[str, Any] | tuple[str, Any, str], usage: dict[str, int] | None = None) -> dict[str, Any]:
    """Tool calls: ``(name, arguments)`` or ``(name, arguments, id)``; non-string arguments become JSON."""
    tool_calls = []
    for i, item in enumerate(items):
        name, arguments = item[0], item[1]
        call_id = item[2] if len(item) > 2 else f"call_{name}_{i}_{time.monotonic_ns()}"
        text = arguments if isinstance(arguments, str) else json.dumps(arguments)
        tool_calls.append({"id": call_id, "type": "function", "function": {"name": name, "arguments": text}})
    message = {"role": "assistant", "content": None, "tool_calls": tool_calls}
    return completion(message, "tool_calls", usage or _usage(COUNTED, 20))


def call(name: str, arguments: Any, **kwargs: Any) -> dict[str, Any]:
    return calls((name, arguments), **kwargs)


@dataclass
class Seen:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def tool_names(self) -> list[str]:
        return [t["function"]["name"] if "function" in t else t["name"] for t in self.body.get("tools") or []]

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self.body["messages"] if "messages" in self.body else self.body["input"]


#: The path each protocol answers on, and how a scripted completion is written for it.
ROUTES = {"openai": "/chat/completions", "anthropic": "/messages", "openai-responses": "/responses"}


def as_protocol(reply: dict[str, Any], protocol: str) -> dict[str, Any]:
    """A scripted Chat completion written as an Anthropic Message or a Responses response."""
    if protocol == "openai" or "choices" not in reply:
        return reply
    choice = reply["choices"][0]
    message, finish = choice["message"], choice["finish_reason"]
    usage = reply.get("usage") or {}
    calls = message.get("tool_calls") or []
    if protocol == "anthropic":
        content: list[dict[str, Any]] = [{"type": "text", "text": message["content"]}] if message.get("content") else []
        for c in calls:
            content.append({"type": "tool_use", "id": c["id"] or "toolu_x", "name": c["function"]["name"],
                            "input": json.loads(c["function"]["arguments"] or "{}")})  # fmt: skip
        stop = {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens"}[finish]
        return {"id": "msg_test", "type": "message", "role": "assistant", "model": reply["model"],
                "content": content, "stop_reason": stop, "stop_sequence": None,
                "usage": {"input_tokens": usage.get("prompt_tokens", 0),
                          "output_tokens": usage.get("completion_tokens", 0)}}  # fmt: skip
    output: list[dict[str, Any]] = []
    if message.get("content"):
        text = {"type": "output_text", "text": message["content"], "annotations": []}
        output.append({"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                       "content": [text]})  # fmt: skip
    for i, c in enumerate(calls):
        output.append({"type": "function_call", "id": f"fc_{i}", "call_id": c["id"], "name": c["function"]["name"],
                       "arguments": c["function"]["arguments"], "status": "completed"})  # fmt: skip
    incomplete = finish == "length"
    return {"id": "resp_test", "object": "response", "created_at": 1767225600, "model": reply["model"],
            "status": "incomplete" if incomplete else "completed",
            "incomplete_details": {"reason": "max_output_tokens"} if incomplete else None,
            "output": output, "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
            "usage": {"input_tokens": usage.get("prompt_tokens", 0), "output_tokens": usage.get("completion_tokens", 0),
                      "total_tokens": usage.get("total_tokens", 0)}}  # fmt: skip


class ChatServer:
    """Serves scripted Chat Completions replies on a free port of 127.0.0.1 until :meth:`close`."""

    def __init__(self, replies: list[Any] | None = None, protocol: str = "openai") -> None:
        self.replies: deque[Any] = deque(replies or [])
        self.protocol = protocol
        #: Write replies as this protocol instead (a server answering in another API's shape).
        self.answer_as: str | None = None
        self.requests: list[Seen] = []
        self.closed = threading.Event()  # set by close(): ends trickling replies
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                return

            def handle(self) -> None:
                try:
                    super().handle()
                except (BrokenPipeError, ConnectionResetError):  # a client that stopped reading a big reply
                    return

            def do_POST(self) -> None:  # noqa: N802 - the http.server API
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw)
                except json.JSONDecodeError:
                    body = {"_raw": raw.decode("utf-8", "replace")}
                with server._lock:
                    server.requests.append(Seen(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                    reply = server.replies.popleft() if server.replies else Status(500, {"error": "no scripted reply"})
                if callable(reply):
                    reply = reply(body)
                if isinstance(reply, Sleep):
                    time.sleep(reply.seconds)
                    reply = reply.then if reply.then is not None else say("late")
                usage = reply.get("usage") if isinstance(reply, dict) else None
                if isinstance(usage, dict) and usage.get("prompt_tokens") == COUNTED:
                    counted = prompt_tokens(body)
                    reply = {**reply, "usage": _usage(counted, usage["completion_tokens"])}
                if isinstance(reply, dict):
                    reply = as_protocol(reply, server.answer_as or server.protocol)
                if not self.path.endswith(ROUTES[server.protocol]):
                    reply = Status(404, {"error": {"message": f"no route {self.path}"}})
                try:
                    if isinstance(reply, Trickle):
                        self._trickle(reply)
                        return
                    if isinstance(reply, Status):
                        self._send(reply.code, json.dumps(reply.body or {}), "application/json", reply.headers)
                    elif isinstance(reply, Raw) and reply.chunked:
                        self._chunked(reply)
                    elif isinstance(reply, Raw):
                        self._send(reply.code, reply.text, reply.content_type, reply.headers)
                    else:
                        self._send(200, json.dumps(reply), "application/json", {})
                except (BrokenPipeError, ConnectionResetError):
                    return

            def _trickle(self, reply: Trickle) -> None:
                data = reply.text.encode("utf-8")
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                if reply.forever:
                    self.send_header("Transfer-Encoding", "chunked")
                else:
                    self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                while True:
                    for byte in data:
                        piece = bytes([byte])
                        self.wfile.write(b"1\r\n" + piece + b"\r\n" if reply.forever else piece)
                        self.wfile.flush()
                        if server.closed.wait(reply.interval):
                            return
                    if not reply.forever:
                        return

            def _chunked(self, reply: Raw) -> None:
                data = reply.text.encode("utf-8") if isinstance(reply.text, str) else reply.text
                self.send_response(reply.code)
                self.send_header("Content-Type", reply.content_type)
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                for start in range(0, len(data), 65536):
                    piece = data[start : start + 65536]
                    self.wfile.write(b"%x\r\n" % len(piece) + piece + b"\r\n")
                self.wfile.write(b"0\r\n\r\n")

            def _send(self, code: int, text: str | bytes, content_type: str, headers: dict[str, str]) -> None:
                data = text.encode("utf-8") if isinstance(text, str) else text
                self.send_response(code)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                for key, value in headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def add(self, *replies: Any) -> None:
        self.replies.extend(replies)

    def close(self) -> None:
        self.closed.set()
        self._server.shutdown()
        self._server.server_close()


def live_runner(run_cli: Any, monkeypatch: Any, server: ChatServer, key: str, *, model: str = "m",
                backoff: str = "0.001") -> Callable[..., Any]:  # fmt: skip
    """``toolsearch simulate --live ARGS`` against ``server`` (or ``base_url=``) with the fake ``key``
    in ``OPENAI_API_KEY`` and no ``OPENAI_BASE_URL`` from the environment."""
    monkeypatch.setenv("OPENAI_API_KEY", key)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)

    def run(*args: str, base_url: str | None = None) -> Any:
        url = base_url or server.url
        return run_cli("simulate", "--live", "--base-url", url, "--model", model, "--retry-backoff", backoff, *args)

    return run


Reply = dict[str, Any] | Status | Sleep | Trickle | Raw | Callable[[dict[str, Any]], Any]
