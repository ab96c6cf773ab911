"""A real HTTP server on 127.0.0.1 that serves OpenAI-style ``/v1/embeddings`` from a real local model.

The ``openai`` SDK talks to it over a socket, as it would to Ollama, vLLM, llama.cpp or TEI.
Vectors come from the small static MiniLM model of tests/data (or any embedder passed in).
Every request (path, headers, JSON body) is kept for assertions; ``fail_with`` makes the next
requests answer with an HTTP error status and body instead.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class EmbeddingServer:
    def __init__(self, embedder: Any) -> None:
        self.embedder = embedder
        self.requests: list[dict[str, Any]] = []
        self.fail_with: tuple[int, Any] | None = None
        #: seconds each answer waits (a hanging endpoint); cut short when the server stops
        self.delay = 0.0
        self.stopping = threading.Event()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_POST(self) -> None:  # noqa: N802 - the http.server API
                if owner.delay and owner.stopping.wait(owner.delay):
                    return  # stopped while hanging: the client has long given up
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                headers = {k.lower(): v for k, v in self.headers.items()}
                owner.requests.append({"path": self.path, "headers": headers, "body": body})
                if owner.fail_with is not None:
                    status, payload = owner.fail_with
                    return self._send(status, payload)
                if self.path != "/v1/embeddings":
                    return self._send(404, {"error": {"message": f"no route {self.path}"}})
                texts = body.get("input")
                if isinstance(texts, str):
                    texts = [texts]
                vectors = owner.embedder.embed(texts)
                rows = [row.tolist() if hasattr(row, "tolist") else list(row) for row in vectors]
                data = [{"object": "embedding", "index": i, "embedding": row} for i, row in enumerate(rows)]
                self._send(
                    200,
                    {
                        "object": "list",
                        "data": data,
                        "model": body.get("model"),
                        "usage": {"prompt_tokens": 0, "total_tokens": 0},
                    },
                )

            def _send(self, status: int, payload: Any) -> None:
                raw = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        class Quiet(ThreadingHTTPServer):
            def handle_error(self, request: Any, client_address: Any) -> None:
                pass  # a client that gave up (timeouts are tested): not a traceback in another test's output

        self.httpd = Quiet(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> EmbeddingServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)
