"""A hostile (or broken) MCP server, written on raw JSON-RPC so that it can send what no SDK would.

python tests/servers/hostile_server.py MODE [SIZE] [--http PORT]

Modes (what ``tools/list`` or ``tools/call`` answers):
  longline SIZE   tools/list answer is one line (one HTTP body) of SIZE bytes; 0: it never ends
  sse SIZE        (HTTP) tools/list answers with an event stream whose one event is SIZE bytes; 0: endless
  pages           tools/list answers one tool and a new cursor, forever
  many COUNT      tools/list answers COUNT tools in one page
  bigresult SIZE  tools/list answers one tool, ``dump``; calling it answers a text of SIZE bytes
  gzip            (HTTP) every answer is gzip-compressed (Content-Encoding: gzip), asked for or not
  chatter COUNT   tools/list answers after COUNT small messages (0: never), tools/call never, its
                  small messages endless: progress and log notifications, a ping request; over
                  stdio an answer to an id nobody sent, over HTTP a comment event after each
  tricklecall     tools/list answers one tool, ``dump``; calling it answers a byte every 50 ms, forever
  getstream       (HTTP) a session whose server-to-client stream (GET) sends small notifications forever
  trickle SIZE    tools/list answer (SIZE bytes; 0: it never ends) is written a byte every 50 ms
Over stdio by default; ``--http PORT`` serves the same over plain HTTP (JSON bodies) on loopback.
The big answers are written in pieces, so the server itself stays small.
"""

from __future__ import annotations

import itertools
import json
import sys
import time
from collections.abc import Iterator

ARGS = [a for a in sys.argv[1:] if not a.startswith("--")]
MODE = ARGS[0]
SIZE = int(ARGS[1]) if len(ARGS) > 1 else 0
HTTP_PORT = int(sys.argv[sys.argv.index("--http") + 1]) if "--http" in sys.argv else None
CHUNK = 64 * 1024

TOOL = {"name": "dump", "description": "Dump a lot of text.", "inputSchema": {"type": "object"}}


def padded(head: str, tail: str, size: int) -> Iterator[bytes]:
    """``head`` + spaces + ``tail`` (valid JSON whitespace) of ``size`` bytes in all; endless for 0."""
    yield head.encode()
    left = size - len(head) - len(tail)
    block = b" " * CHUNK
    while size == 0 or left > 0:
        piece = block if size == 0 or left >= CHUNK else block[:left]
        yield piece
        left -= len(piece)
    yield tail.encode()


def answer(message: dict) -> Iterator[bytes] | None:
    """The pieces of the reply to ``message`` (``None``: no reply, a notification)."""
    if "id" not in message or "method" not in message:
        return None  # a notification, or the client's answer to the server's ping
    ident = json.dumps(message["id"])
    method = message.get("method")
    if method == "initialize":
        result = {
            "protocolVersion": message["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "hostile", "version": "1"},
        }
    elif method == "tools/list" and MODE in ("longline", "sse"):
        return padded(f'{{"jsonrpc":"2.0","id":{ident},"result":{{"tools":[]', "}}", SIZE)
    elif method in ("tools/list", "tools/call") and MODE == "chatter":
        return chatter(message["id"], method)
    elif method == "tools/call" and MODE == "tricklecall":
        return trickle(padded(f'{{"jsonrpc":"2.0","id":{ident},"result":{{"content":[]', "}}", 0))
    elif method == "tools/list" and MODE == "trickle":
        return trickle(padded(f'{{"jsonrpc":"2.0","id":{ident},"result":{{"tools":[]', "}}", SIZE))
    elif method == "tools/list" and MODE == "pages":
        cursor = int((message.get("params") or {}).get("cursor") or 0) + 1
        result = {"tools": [{**TOOL, "name": f"tool_{cursor}"}], "nextCursor": str(cursor)}
    elif method == "tools/list" and MODE == "many":

        def many() -> Iterator[bytes]:
            yield f'{{"jsonrpc":"2.0","id":{ident},"result":{{"tools":['.encode()
            batch: list[str] = []
            for number in range(SIZE):
                batch.append(json.dumps({**TOOL, "name": f"tool_{number}"}))
                if len(batch) == 1000 or number == SIZE - 1:
                    yield ((",", "")[number < 1000] + ",".join(batch)).encode()
                    batch = []
            yield b"]}}"

        return many()
    elif method == "tools/list":
        result = {"tools": [TOOL]}
    elif method == "tools/call":
        return padded(f'{{"jsonrpc":"2.0","id":{ident},"result":{{"content":[{{"type":"text","text":"', '"}]}}', SIZE)
    elif method == "ping":
        result = {}
    else:
        return iter(
            [json.dumps({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "no"}}).encode()]
        )
    return iter([json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}).encode()])


#: The small messages of ``chatter``, in turn (a JSON-RPC message each).
CHATTER = [
    {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 1, "progress": 1}},
    {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "working"}},
    {"jsonrpc": "2.0", "id": "srv-ping", "method": "ping"},
]
if HTTP_PORT is None:  # (on an HTTP answer's stream the SDK takes any answer for the awaited one)
    CHATTER.append({"jsonrpc": "2.0", "id": 999_999, "result": {}})  # the answer to a request nobody sent


def chatter(ident: object, method: str) -> Iterator[bytes]:
    """SIZE small messages (endless for 0), then the answer: each piece one message (a line, or
    over HTTP an event followed by a comment event)."""
    for number in itertools.count() if SIZE == 0 or method == "tools/call" else range(SIZE):
        yield json.dumps(CHATTER[number % len(CHATTER)]).encode()
    result = {"tools": [TOOL]} if method == "tools/list" else {"content": [{"type": "text", "text": "done"}]}
    yield json.dumps({"jsonrpc": "2.0", "id": ident, "result": result}).encode()


def trickle(pieces: Iterator[bytes]) -> Iterator[bytes]:
    """``pieces`` one byte at a time, every 50 ms."""
    for piece in pieces:
        for byte in piece:
            time.sleep(0.05)
            yield bytes([byte])


def stdio() -> None:
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        reply = answer(json.loads(line))
        if reply is None:
            continue
        try:
            for piece in reply:
                out.write(piece)
                if MODE == "chatter":  # one message a line
                    out.write(b"\n")
                if MODE in ("chatter", "trickle", "tricklecall"):
                    out.flush()
            if MODE != "chatter":
                out.write(b"\n")
            out.flush()
        except BrokenPipeError:
            return


def http(port: int) -> None:
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:  # no server-to-client stream, but in mode getstream an endless one
            if MODE != "getstream" or self.command != "GET":
                self.send_response(405)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            print("GET opened", file=sys.stderr, flush=True)
            event = b"event: message\ndata: %s\n\n" % json.dumps(CHATTER[1]).encode()
            try:
                while True:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True
                print("GET ended by the client", file=sys.stderr, flush=True)

        def do_DELETE(self) -> None:
            self.do_GET()

        def do_POST(self) -> None:
            message = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            reply = answer(message)
            if reply is None:
                self.send_response(202)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            streaming = MODE == "sse" and message.get("method") == "tools/list"
            if MODE == "chatter":  # each message an event, each followed by a comment (a keep-alive)
                reply = (b"event: message\ndata: %s\n\n: tick\n\n" % piece for piece in reply)
            if MODE == "gzip":
                import gzip

                body = gzip.compress(b"".join(reply))
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Encoding", "gzip")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            self.send_response(200)
            if (
                MODE == "getstream" and message.get("method") == "initialize"
            ):  # a session: the client opens a GET stream
                self.send_header("Mcp-Session-Id", "hostile-session")
            self.send_header(
                "Content-Type", "text/event-stream" if streaming or MODE == "chatter" else "application/json"
            )
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            pieces = itertools.chain([b"event: message\ndata: "], reply, [b"\n\n"]) if streaming else reply
            try:
                for piece in pieces:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                self.wfile.write(b"0\r\n\r\n")
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True

    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


if __name__ == "__main__":
    if HTTP_PORT is not None:
        http(HTTP_PORT)
    else:
        stdio()
