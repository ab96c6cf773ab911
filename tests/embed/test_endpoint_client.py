"""The embeddings endpoint client (providers/openai_embeddings.py), against a real local
``/v1/embeddings`` server through the installed ``openai`` SDK: what it retries and what it never
retries. The SDK's own retries retried every transport error, so a reply refused for its size was
fetched three times (64 MB each at the default bound); now a refusal is final, while HTTP 429 and
5xx are still retried, with a backoff, and an answer such as 400 is not."""

from __future__ import annotations

import pytest

from toolsearch_cli import EmbedError

from ..conftest import DEMO
from ..embed_server import EmbeddingServer
from .conftest import STATIC

pytest.importorskip("openai")


class _Nothing:
    def embed(self, texts):
        return []


def _client(server, waits, on_wait=None, **options):
    from toolsearch_cli.providers.openai_embeddings import EmbeddingsClient

    def sleep(seconds):
        waits.append(seconds)
        if on_wait is not None:
            on_wait()

    options.setdefault("max_reply_bytes", 64 * 1024 * 1024)
    return EmbeddingsClient(
        base_url=server.base_url, model="m", api_key=None, key_env="OPENAI_API_KEY", timeout=5, sleep=sleep, **options
    )


def test_a_reply_over_the_bound_is_fetched_once(run_cli, monkeypatch):
    from toolsearch_cli.search import embed

    monkeypatch.setattr(embed, "MAX_ENDPOINT_REPLY_BYTES", 100 * 1024)
    with EmbeddingServer(_Nothing()) as server:
        server.fail_with = (200, {"object": "list", "data": [], "padding": "x" * 300_000})
        result = run_cli(
            "search", "weather", "-c", str(DEMO), "--ranker", "embedding",
            "--embed-base-url", server.base_url, "--embed-model", "m",
        )  # fmt: skip
        requests = len(server.requests)
    assert result.code == 2 and "sent a reply of more than 100 KB" in result.stderr
    assert requests == 1  # was 3: the SDK retried the refusal twice


def test_a_passing_server_error_is_retried_with_a_backoff():
    from toolsearch_cli.search.embed import load_local

    waits: list[float] = []
    with EmbeddingServer(load_local(str(STATIC))) as server:
        server.fail_with = (503, {"error": {"message": "busy"}})
        calls = iter([None, lambda: setattr(server, "fail_with", None)])

        def on_wait():
            step = next(calls)
            if step is not None:
                step()

        vectors = _client(server, waits, on_wait).embeddings(["weather", "mail"])
        requests = len(server.requests)
    assert len(vectors) == 2 and all(len(v) > 0 for v in vectors)
    assert requests == 3 and waits == [0.5, 1.0]


def test_retries_are_bounded_and_said():
    waits: list[float] = []
    with EmbeddingServer(_Nothing()) as server:
        server.fail_with = (500, {"error": {"message": "boom"}})
        with pytest.raises(EmbedError, match=r"failed \(HTTP 500\) for model 'm': .*boom"):
            _client(server, waits, retries=1).embeddings(["weather"])
        requests = len(server.requests)
    assert requests == 2 and waits == [0.5]


def test_a_refused_request_is_not_retried():
    waits: list[float] = []
    with EmbeddingServer(_Nothing()) as server:
        server.fail_with = (400, {"error": {"message": "bad input"}})
        with pytest.raises(EmbedError, match=r"HTTP 400"):
            _client(server, waits).embeddings(["weather"])
        requests = len(server.requests)
    assert requests == 1 and waits == []
