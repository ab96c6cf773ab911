"""Embedding settings per instance: each ToolSearch / search() / ranker carries its own model.

Two real models live in one process: the shipped static MiniLM model and a second one derived
from it in the test (its token vectors in reverse order: a different model, same format). A
third instance reaches a real loopback embeddings server. Nothing here calls ``configure()``:
the library does not need the process default.
"""

from __future__ import annotations

import json
import shutil

import pytest

from toolsearch_cli import EmbedSettings, ToolSearch, load_catalog, search
from toolsearch_cli.search import embed_settings, get_ranker

from ..conftest import DEMO
from .conftest import STATIC

pytest.importorskip("numpy")
pytest.importorskip("model2vec", reason="the static test model needs the embed extra (model2vec)")

QUERIES = ["remember that Alice works at Acme", "what is the weather in Paris", "send a note to a colleague"]


@pytest.fixture(autouse=True)
def _no_default(monkeypatch):
    """No process default: every model below is one an instance names itself."""
    for name in (embed_settings.MODEL_VAR, embed_settings.BASE_URL_VAR):
        monkeypatch.delenv(name, raising=False)
    yield


@pytest.fixture(scope="module")
def reversed_model(tmp_path_factory):
    """A second real static model: the shipped one's token vectors, row order reversed."""
    from safetensors.numpy import load_file, save_file

    folder = tmp_path_factory.mktemp("reversed-static")
    for name in ("tokenizer.json", "config.json", "modules.json"):
        shutil.copy(STATIC / name, folder / name)
    weights = load_file(str(STATIC / "model.safetensors"))
    save_file({"embeddings": weights["embeddings"][::-1].copy()}, str(folder / "model.safetensors"))
    return folder


def _names(hits):
    return [h.tool.name for h in hits]


def _search_tool_hits(ts: ToolSearch, query: str) -> list[str]:
    """The tools a ToolSearch's own ``toolSearch`` call answers with, through its public API."""
    request = ts.request([{"role": "user", "content": query}])
    handled = ts.handle(ts.search_tool_name, json.dumps({"query": query, "maxResults": 5}), request)
    assert handled.ok, handled.message
    return json.loads(handled.content)


def test_two_instances_with_different_models_keep_their_own_rankings(reversed_model):
    catalog = load_catalog([str(DEMO)])
    one = EmbedSettings(model=str(STATIC))
    two = EmbedSettings(model=str(reversed_model))
    # each model alone, through search(embed=...)
    alone_one, alone_two = (
        {q: _names(search(catalog, q, ranker="embedding", embed=settings, max_results=5, context={})) for q in QUERIES}
        for settings in (one, two)
    )
    assert alone_one != alone_two  # two models, two rankings
    # the real model finds by meaning (with the request without "Paris" as a view, the static model
    # puts the current and the historical weather level: 0.592 / 0.594)
    assert "getWeather" in alone_one["what is the weather in Paris"][:2]

    a = ToolSearch(str(DEMO), ranker="embedding", embed=one)
    b = ToolSearch(str(DEMO), ranker="embedding", embed=str(reversed_model))  # a path is a model too
    for query in QUERIES:  # interleaved in one process: neither instance sees the other's model
        assert _search_tool_hits(a, query) == alone_one[query]
        assert _search_tool_hits(b, query) == alone_two[query]
    assert a.embed == one and b.embed == two
    assert embed_settings.default_settings().model is None  # the process default was never touched


def test_the_registered_ranker_is_left_as_it_is():
    registered = get_ranker("hybrid")
    bound = get_ranker("hybrid", EmbedSettings(model=str(STATIC)))
    assert bound is not registered and type(bound) is type(registered)
    assert registered.embed is None and bound.embed.model == str(STATIC)
    assert get_ranker("default", EmbedSettings(model=str(STATIC))) is get_ranker("default")  # no model needed


def test_one_model_is_loaded_once_for_equal_settings():
    first = get_ranker("hybrid", EmbedSettings(model=str(STATIC))).embedder()
    second = get_ranker("embedding", EmbedSettings(model=str(STATIC))).embedder()
    assert first is second


def test_an_endpoint_instance_beside_a_local_one(monkeypatch):
    pytest.importorskip("openai")
    from toolsearch_cli.search.embed import load_local

    from ..embed_server import EmbeddingServer

    catalog = load_catalog([str(DEMO)])
    local = EmbedSettings(model=str(STATIC))
    query = "send a note to a colleague on slack"
    expected = _names(search(catalog, query, ranker="hybrid", embed=local))
    with EmbeddingServer(load_local(str(STATIC))) as server:
        remote = EmbedSettings(model="served-minilm", base_url=server.base_url)
        hits = _names(search(load_catalog([str(DEMO)]), query, ranker="hybrid", embed=remote))
        assert server.requests and all(r["body"]["model"] == "served-minilm" for r in server.requests)
        sent = len(server.requests)
        assert _names(search(catalog, query, ranker="hybrid", embed=local)) == expected
        assert len(server.requests) == sent  # the local instance never asks the server
    assert hits == expected  # the same model behind the endpoint: the same ranking


def test_without_any_model_the_error_names_what_to_set():
    from toolsearch_cli.search.embed import EmbedError

    with pytest.raises(EmbedError) as caught:
        search(load_catalog([str(DEMO)]), "weather", ranker="hybrid")
    assert caught.value.field == "embed-model"


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"model": "m", "timeout": 0}, "embed.timeout"),
        ({"model": "m", "timeout": "soon"}, "embed.timeout"),
        ({"model": "m", "base_url": "ftp://host/v1"}, "embed.base_url"),
        ({"base_url": "http://localhost:1/v1"}, "embed.model"),
        ({"model": "m", "key_env": " "}, "embed.key_env"),
        ({"model": 3}, "embed.model"),
        ({"model": "m", "multilingual": "yes"}, "embed.multilingual"),
    ],
)
def test_bad_settings_are_one_error_naming_the_field(kwargs, field):
    from toolsearch_cli.search.embed import EmbedError

    with pytest.raises(EmbedError) as caught:
        EmbedSettings(**kwargs)
    assert caught.value.field == field and "\n" not in str(caught.value)


def test_embed_of_the_wrong_type_is_refused_by_name():
    from toolsearch_cli.search.embed import EmbedError

    with pytest.raises(EmbedError) as caught:
        ToolSearch(str(DEMO), ranker="hybrid", embed=42)
    assert caught.value.field == "embed"
