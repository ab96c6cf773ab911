"""The dense rankers (``embedding``, ``hybrid``) with a real small model, offline.

The model is tests/data/minilm-static: a model2vec static model distilled from
all-MiniLM-L6-v2 by benchmarks/derive_static.py (64 dimensions, int8, ~2 MB). The endpoint
tests serve the same model from a real HTTP server on 127.0.0.1 (tests/embed_server.py) and go
through the ``openai`` SDK. An ONNX transformer is exercised when $TOOLSEARCH_TEST_ONNX_MODEL
names one (benchmarks/export_onnx.py makes it).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from toolsearch_cli import Catalog, Tool, load_catalog
from toolsearch_cli.search import SearchRequest, embed_settings, get_ranker, search
from toolsearch_cli.search import embed as embed_mod
from toolsearch_cli.search.embed import load_local, tool_text
from toolsearch_cli.search.embed_settings import EmbedSettings

from ..conftest import DEMO, TOOLSEARCH, make
from .conftest import STATIC, Axes, use_default

pytest.importorskip("numpy")
pytest.importorskip("model2vec", reason="the static test model needs the embed extra (model2vec)")


@pytest.fixture
def static_model(monkeypatch):
    use_default(monkeypatch, EmbedSettings(model=str(STATIC)))
    return embed_mod.default_embedder()


class Counting:
    """The real embedder, counting the texts it is asked to embed."""

    def __init__(self, inner):
        self.inner = inner
        self.model_id = inner.model_id
        self.label = inner.label
        self.multilingual = inner.multilingual
        self.texts: list[str] = []

    def embed(self, texts):
        self.texts.extend(texts)
        return self.inner.embed(texts)


def _names(hits):
    return [h.tool.name for h in hits]


def test_the_static_model_embeds_meaning():
    model = load_local(str(STATIC))
    a, b, c = model.embed(["what is the weather forecast", "get the weather for a city", "delete a user account"])
    assert abs(float(a @ a) - 1.0) < 1e-4  # normalised
    assert float(a @ b) > float(a @ c) + 0.1


def test_embedding_ranker_finds_by_meaning_on_the_demo_catalog(static_model):
    catalog = load_catalog([str(DEMO)])
    hits = search(catalog, "send a note to a colleague on slack", ranker="embedding", max_results=5)
    assert "sendSlackMessage" in _names(hits)
    assert all(0 < h.score <= 1.0001 for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_hybrid_explain_splits_each_score_into_lexical_and_semantic(static_model):
    catalog = load_catalog([str(DEMO)])
    hits = search(catalog, "send a slack message", ranker="hybrid", max_results=5)
    assert hits[0].tool.name == "sendSlackMessage"
    for hit in hits:
        semantic = [c for c in hit.contributions if c.field == "semantic"]
        assert len(semantic) == 1 and semantic[0].detail.startswith("cosine ")
        assert abs(sum(c.points for c in hit.contributions) - hit.score) < 1e-6
    assert any(c.field == "name" for c in hits[0].contributions)  # the lexical terms are kept


def test_hybrid_with_the_real_model_explains_which_sentence_matched(static_model):
    catalog = load_catalog([str(DEMO)])
    request = "Book a meeting with Anna on Friday. Then email her the agenda."
    hits = search(catalog, request, ranker="hybrid", max_results=8)  # sendEmail 6th with the static model
    details = {h.tool.name: c.detail for h in hits for c in h.contributions if c.field == "semantic"}
    assert len(details) == len(hits)
    views = ("of 2)", "(whole request)", "(request without its values)")
    assert all(d.startswith("cosine ") and any(v in d for v in views) for d in details.values())
    assert details["sendEmail"].split("; ")[0].endswith("(sentence 2 of 2)")  # then the request's share
    for hit in hits:
        assert abs(sum(c.points for c in hit.contributions) - hit.score) < 1e-6


def test_without_a_model_the_dense_rankers_say_what_to_configure(run_cli, monkeypatch):
    monkeypatch.delenv(embed_settings.MODEL_VAR, raising=False)
    result = run_cli("search", "weather", "--ranker", "hybrid")
    assert result.code == 2
    assert "--embed-model" in result.stderr and "Traceback" not in result.stderr
    assert "`toolsearch model pull NAME`" in result.stderr  # how a new user gets one (issue 19 audit)
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("bad", ["missing-folder", "file"])
def test_a_model_path_that_is_not_a_model_folder_is_one_line(run_cli, tmp_path, bad):
    path = tmp_path / "x"
    if bad == "file":
        path.write_text("not a model")
    result = run_cli("search", "weather", "--ranker", "embedding", "--embed-model", str(path))
    assert result.code == 2
    assert str(path) in result.stderr and "Traceback" not in result.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "tokenizer.json").write_text("{}")
    result = run_cli("search", "weather", "--ranker", "embedding", "--embed-model", str(empty))
    assert result.code == 2 and "model.onnx" in result.stderr


def test_tool_vectors_are_cached_on_disk_and_changed_tools_alone_are_embedded_again(
    static_model, tmp_path, monkeypatch
):
    counting = Counting(static_model)
    settings = EmbedSettings(model="counting-test")
    embed_mod._embedders[settings] = counting
    use_default(monkeypatch, settings)
    tools = [make("get_weather", "Current weather for a city"), make("send_mail", "Send an email to someone")]
    from toolsearch_cli.model import Catalog

    search(Catalog(tools=list(tools)), "rain tomorrow", ranker="hybrid")
    assert len(counting.texts) == 2 + 2  # two tools, the query and the query without its day ("rain")
    counting.texts.clear()
    search(Catalog(tools=list(tools)), "rain tomorrow", ranker="hybrid")  # a new process would do the same
    assert counting.texts == []  # tools from the on-disk cache, the query from memory
    changed = [tools[0], make("send_mail", "Send an email message to someone")]
    search(Catalog(tools=changed), "rain tomorrow", ranker="embedding")
    assert counting.texts == [tool_text(changed[1])]


def test_add_and_remove_update_the_vectors_in_place(static_model, monkeypatch):
    counting = Counting(static_model)
    settings = EmbedSettings(model="counting-add-remove")
    embed_mod._embedders[settings] = counting
    use_default(monkeypatch, settings)
    catalog = load_catalog([str(DEMO)])
    ranker = get_ranker("embedding")
    ranker.search(catalog, SearchRequest(query="weather"))
    counting.texts.clear()
    catalog.add_tool(Tool(name="forecastSurf", description="Wave height and surf forecast for a beach"))
    catalog.remove_tool("sendSlackMessage")
    hits = ranker.search(catalog, SearchRequest(query="surf waves at the beach", max_results=50))
    assert counting.texts == [tool_text(catalog.get("forecastSurf")), "surf waves at the beach"]
    assert hits[0].tool.name == "forecastSurf"
    assert "sendSlackMessage" not in _names(ranker.search(catalog, SearchRequest(query="slack", max_results=50)))


@pytest.mark.parametrize("ranker", ["embedding", "hybrid", "hybrid-rrf"])
def test_the_dense_rankers_on_an_empty_catalog_find_nothing(static_model, ranker):
    # hybrid multiplied a missing matrix (ValueError) when the catalog had no tools
    assert search(Catalog(tools=[]), "weather", ranker=ranker) == []


def test_cjk_queries_rank_lexically_with_an_english_only_model(static_model, monkeypatch):
    catalog = load_catalog([str(DEMO)])
    query = "查询城市天气"
    lexical = search(catalog, query, ranker="default", max_results=5)
    hybrid = search(catalog, query, ranker="hybrid", max_results=5)
    assert _names(hybrid) == _names(lexical) and lexical
    assert [h.score for h in hybrid] == [h.score for h in lexical]
    assert any("CJK" in c.detail for c in hybrid[0].contributions)
    use_default(monkeypatch, EmbedSettings(model=str(STATIC), multilingual=True))  # declared multilingual: fused
    fused = search(catalog, query, ranker="hybrid", max_results=5)
    assert any(c.field == "semantic" and c.detail.startswith("cosine") for c in fused[0].contributions)


def test_eval_shows_default_hybrid_and_embedding_side_by_side(run_cli, write):
    queries = write(
        "q.yaml",
        "- {id: a, query: send a slack message to a colleague, relevant: [sendSlackMessage]}\n"
        "- {id: b, query: what will the weather be tomorrow, relevant: [getForecast]}\n",
    )
    result = run_cli(
        "eval", "-c", str(DEMO), "--queries", str(queries), "--ranker", "default,hybrid,embedding",
        "--embed-model", str(STATIC), "--format", "json",
    )  # fmt: skip
    assert result.code == 0, result.stderr
    assert set(result.json()["rankers"]) == {"default", "hybrid", "embedding"}


def test_lint_findability_and_simulate_accept_the_hybrid_ranker(run_cli, write):
    catalog = write(
        "tools.yaml",
        "- name: get_weather\n  description: Current weather conditions for a city.\n"
        "  examples: [is it raining in Paris]\n"
        "- name: send_email\n  description: Send an email message to a recipient.\n"
        "  examples: [mail my boss]\n",
    )
    result = run_cli(
        "lint", str(catalog), "--select", "TS601", "--ranker", "hybrid", "--embed-model", str(STATIC),
        "--format", "json", "--isolated", "--exit-zero",
    )  # fmt: skip
    assert result.code == 0, result.stderr
    result = run_cli("lint", str(catalog), "--select", "TS601", "--ranker", "hybrid", "--isolated")
    assert result.code == 2 and "--embed-model" in result.stderr  # the ranker really is hybrid
    script = write(
        "s.yaml",
        "turns:\n  - user: is it raining in Paris\n    steps:\n"
        "      - call: {name: toolSearch, arguments: {query: rain in Paris today, maxResults: 1}}\n"
        "      - say: done\n",
    )
    result = run_cli(
        "simulate", str(script), "-c", str(catalog), "--ranker", "hybrid", "--embed-model", str(STATIC),
        "--format", "json",
    )  # fmt: skip
    assert result.code == 0, result.stdout + result.stderr
    assert "get_weather" in result.stdout


# -- a real embeddings endpoint on loopback ----------------------------------------------------


def test_hybrid_through_a_real_loopback_embeddings_server(run_cli, monkeypatch):
    pytest.importorskip("openai")
    from ..embed_server import EmbeddingServer

    local = load_local(str(STATIC))
    monkeypatch.setenv("MY_EMBED_KEY", "sk-test-secret-1234")
    with EmbeddingServer(local) as server:
        result = run_cli(
            "search", "send a note to a colleague on slack", "-c", str(DEMO), "--ranker", "embedding",
            "--embed-base-url", server.base_url, "--embed-model", "minilm-static",
            "--embed-api-key-env", "MY_EMBED_KEY", "--format", "json",
        )  # fmt: skip
        assert result.code == 0, result.stderr
        assert server.requests and all(r["path"] == "/v1/embeddings" for r in server.requests)
        assert server.requests[0]["headers"]["authorization"] == "Bearer sk-test-secret-1234"
        assert server.requests[0]["body"]["model"] == "minilm-static"
        use_default(monkeypatch, EmbedSettings(model=str(STATIC)))
        expected = search(load_catalog([str(DEMO)]), "send a note to a colleague on slack", ranker="embedding")
        assert [h["name"] for h in result.json()["hits"]] == _names(expected)


def test_an_endpoint_error_is_one_line_and_never_shows_the_key(run_cli, monkeypatch):
    pytest.importorskip("openai")
    from ..embed_server import EmbeddingServer

    secret = "sk-live-very-secret-9876"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    with EmbeddingServer(load_local(str(STATIC))) as server:
        server.fail_with = (401, {"error": {"message": f"Incorrect API key provided: {secret}"}})
        result = run_cli(
            "search", "weather", "-c", str(DEMO), "--ranker", "hybrid",
            "--embed-base-url", server.base_url, "--embed-model", "m",
        )  # fmt: skip
    assert result.code == 2
    assert secret not in result.stdout + result.stderr
    assert "401" in result.stderr and "OPENAI_API_KEY" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_an_endpoint_that_sends_no_numbers_is_one_line(run_cli):
    pytest.importorskip("openai")
    from ..embed_server import EmbeddingServer

    class Broken:
        def embed(self, texts):
            return [["x", "y"] for _ in texts]

    with EmbeddingServer(Broken()) as server:
        result = run_cli(
            "search", "weather", "-c", str(DEMO), "--ranker", "embedding",
            "--embed-base-url", server.base_url, "--embed-model", "m",
        )  # fmt: skip
    assert result.code == 2 and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_nothing_heavy_is_imported_without_an_embedding_model():
    code = (
        "import sys\n"
        "from toolsearch_cli.cli.app import main\n"
        "try:\n    main(['search', 'weather'])\nexcept SystemExit:\n    pass\n"
        "heavy = ('onnxruntime', 'model2vec', 'tokenizers', 'openai', 'safetensors')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLSEARCH_EMBED")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert out.stdout.strip().splitlines()[-1] == "[]"


EMBEDDING_CODE = ("toolsearch_cli.search.embed", "toolsearch_cli.search.vectors", "numpy")


@pytest.mark.parametrize(
    "argv",
    [
        [],  # import toolsearch_cli (and ToolSearch) alone
        ["search", "weather"],
        ["search", "weather", "--explain", "-f", "json"],
        ["eval", "-c", str(DEMO)],
        ["lint", str(DEMO)],
    ],
    ids=["import", "search", "search-json", "eval", "lint"],
)
def test_no_embedding_code_is_imported_without_a_model(argv, tmp_path):
    # issue 19: "without a model configured nothing changes: no import, no start-up cost" -- not
    # even toolsearch's own embedding modules (the settings live in search/embed_settings.py).
    # A cache of its own, so what ran before cannot matter here; a default search after a hybrid
    # one in the same cache is tests/embed/test_vector_side.py's first test
    code = (
        "import sys, json\n"
        "import toolsearch_cli\n"
        "toolsearch_cli.ToolSearch\n"
        f"argv = {argv!r}\n"
        "if argv:\n"
        "    from toolsearch_cli.cli.app import main\n"
        "    try:\n        main(argv)\n    except SystemExit:\n        pass\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] == 'numpy' or m in {EMBEDDING_CODE!r})))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLSEARCH_EMBED")}
    env["TOOLSEARCH_CACHE_DIR"] = str(tmp_path / "cache")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []


@pytest.mark.skipif(not os.environ.get("TOOLSEARCH_TEST_ONNX_MODEL"), reason="set $TOOLSEARCH_TEST_ONNX_MODEL")
def test_an_onnx_transformer_model(monkeypatch):
    pytest.importorskip("onnxruntime")
    model = load_local(os.environ["TOOLSEARCH_TEST_ONNX_MODEL"])
    a, b, c = model.embed(["what is the weather forecast", "get the weather for a city", "delete a user account"])
    assert float(a @ b) > float(a @ c) + 0.2
    # batches are formed by length: the vectors still come back in the texts' order, as alone
    texts = ["weather " * 300, "rain", "delete a user account and every file they own", "x"] * 20
    together = model.embed(texts)
    for i in (0, 1, 2, 3, 77):
        assert abs(together[i] - model.embed([texts[i]])[0]).max() < 1e-4
    use_default(monkeypatch, EmbedSettings(model=os.environ["TOOLSEARCH_TEST_ONNX_MODEL"]))
    hits = search(load_catalog([str(DEMO)]), "remember to call mum tomorrow at 5", ranker="hybrid")
    assert hits


def test_the_vector_cache_keeps_what_another_process_added_meanwhile(tmp_path):
    from toolsearch_cli.search.vectors import VectorStore

    model = load_local(str(STATIC))
    other = VectorStore(model.model_id, folder=tmp_path)

    class WhileEmbedding:  # another process writes between this one's read and its write
        model_id = model.model_id

        def embed(self, texts):
            other.vectors(model, ["send an email"])
            return model.embed(texts)

    VectorStore(model.model_id, folder=tmp_path).vectors(WhileEmbedding(), ["get the weather"])
    check = VectorStore(model.model_id, folder=tmp_path)
    check.vectors(model, ["get the weather", "send an email"])
    assert check.embedded == 0


def test_a_damaged_vector_cache_is_a_miss_not_an_error(tmp_path):
    from toolsearch_cli.search.vectors import VectorStore

    model = load_local(str(STATIC))
    store = VectorStore(model.model_id, folder=tmp_path)
    store.path.parent.mkdir(parents=True, exist_ok=True)
    store.path.write_bytes(b"PK\x03\x04 not really a zip")
    vectors = store.vectors(model, ["get the weather"])
    assert store.embedded == 1 and vectors.shape == (1, 64)
    again = VectorStore(model.model_id, folder=tmp_path)
    again.vectors(model, ["get the weather"])
    assert again.embedded == 0  # rewritten whole


def test_a_request_of_several_sentences_is_embedded_whole_and_sentence_by_sentence():
    from toolsearch_cli.search.bm25f import MAX_CLAUSES
    from toolsearch_cli.search.hybrid import query_views

    assert query_views("find a recipe with yeast") == ["find a recipe with yeast"]
    two = "Search Vimeo for horror films. Then give me a YouTube stream link!"
    assert query_views(two) == [two, "Search Vimeo for horror films.", "Then give me a YouTube stream link!"]
    assert query_views("Weather in Paris. ... !") == ["Weather in Paris. ... !"]  # punctuation is no sentence
    many = " ".join(f"Do thing {i}." for i in range(MAX_CLAUSES + 1))
    assert query_views(many) == [many]  # bounded work per query, as default bounds it


def test_each_sentence_brings_its_own_best_tool_to_the_top(monkeypatch, tmp_path):
    from toolsearch_cli.search import hybrid

    monkeypatch.setenv("TOOLSEARCH_CACHE_DIR", str(tmp_path))
    tools = [make("alpha", "zz"), make("beta", "zz"), make("gamma", "zz"), make("delta", "zz")]
    texts = {
        tool_text(t): v for t, v in zip(tools, ([1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]), strict=True)
    }
    first, second = "Qqq one.", "Qqq two."
    request = f"{first} {second}"
    # the whole request's vector sits between gamma and delta; each sentence points at alpha, beta
    axes = Axes({**texts, request: [0.3, 0.3, 1, 1], first: [1, 0, 0.2, 0], second: [0, 1, 0, 0.2]})
    monkeypatch.setattr(embed_mod, "default_embedder", lambda: axes)
    hits = hybrid.HybridRanker().search(Catalog(tools=tools), SearchRequest(query=request, max_results=4, explain=True))
    assert _names(hits)[:2] == ["alpha", "beta"]  # the whole vector alone would rank gamma, delta first
    details = {h.tool.name: h.contributions[-1].detail.split("; ")[0] for h in hits}  # then the request's share
    assert details["alpha"].endswith("(sentence 1 of 2)") and details["beta"].endswith("(sentence 2 of 2)")
    assert details["gamma"].endswith("(whole request)")
    # no word matches: the semantic side alone, with the share of a request without lexical evidence
    share = hybrid.fusion_share(0.5, hybrid.NO_EVIDENCE).semantic
    assert all(0 < h.score <= share + 1e-6 for h in hits)
    assert set(axes.texts) >= {request, first, second}


def test_an_evaluation_embeds_every_sentence_once_ahead_of_its_searches(monkeypatch, tmp_path):
    from toolsearch_cli.search import hybrid

    monkeypatch.setenv("TOOLSEARCH_CACHE_DIR", str(tmp_path))
    tools = [make("alpha", "zz"), make("beta", "zz")]
    request = "Qqq one. Qqq two."
    axes = Axes({tool_text(tools[0]): [1, 0], tool_text(tools[1]): [0, 1], request: [1, 1]})
    axes.vectors.update({"Qqq one.": [1, 0.1], "Qqq two.": [0.1, 1]})
    monkeypatch.setattr(embed_mod, "default_embedder", lambda: axes)
    ranker = hybrid.HybridRanker()
    ranker.prepare(Catalog(tools=tools), [request])
    assert sorted(axes.texts) == sorted([request, "Qqq one.", "Qqq two."])
    ranker.search(Catalog(tools=tools), SearchRequest(query=request, max_results=2))
    assert sorted(axes.texts).count("Qqq one.") == 1  # the search reused the prepared vectors


def test_a_titled_tool_scores_the_better_of_its_full_text_and_its_title(monkeypatch):
    import pickle

    from toolsearch_cli.search import hybrid
    from toolsearch_cli.search.embed import title_text

    titled = Tool(name="issues_create", description="Boilerplate.", metadata={"mcp": {"title": "Open an issue"}})
    plain = make("pulls_list", "Lists pull requests.")
    late = Tool(name="gists_create", description="More boilerplate.", metadata={"mcp": {"title": "New gist"}})
    assert title_text(plain) is None and title_text(titled).endswith("create. Open an issue")
    axes = Axes(
        {
            tool_text(titled): [1, 0, 0],  # the long text says little ...
            title_text(titled): [0, 1, 0],  # ... the title says what it is for
            tool_text(plain): [0.6, 0.8, 0],
            tool_text(late): [1, 0, 0],
            title_text(late): [0, 0, 1],
            "open an issue": [0, 1, 0],
            "new gist": [0, 0.1, 1],
        }
    )
    monkeypatch.setattr(embed_mod, "default_embedder", lambda: axes)
    catalog = Catalog(tools=[titled, plain])
    ranker = hybrid.EmbeddingRanker()
    hits = ranker.search(catalog, SearchRequest(query="open an issue", max_results=2))
    assert _names(hits) == ["issues_create", "pulls_list"] and hits[0].score == pytest.approx(1.0, abs=1e-3)
    catalog.add_tool(late)  # the new tool's title is embedded with it
    assert _names(ranker.search(catalog, SearchRequest(query="new gist", max_results=1))) == ["gists_create"]
    catalog.remove_tool("gists_create")
    assert "gists_create" not in _names(ranker.search(catalog, SearchRequest(query="new gist", max_results=3)))
    index = hybrid.vector_index(catalog, axes)
    again = pickle.loads(pickle.dumps(index))  # the catalog cache keeps no vectors: they come back
    again.ensure(axes)
    assert again.title_slots.tolist() == [0] and index.title_slots.tolist() == [0, 2]  # the removed one is not
    assert (again.scores([0, 1, 0]) == index.scores([0, 1, 0])).all()


def test_the_title_vector_finds_an_operation_its_long_description_hides(static_model):
    boilerplate = " ".join(["This endpoint may result in secondary rate limiting for the API."] * 12)
    tools = [
        Tool(
            name="op_1",
            description="Create an issue. " + boilerplate,
            metadata={"openapi": {"summary": "Create an issue"}},
        ),
        make("op_2", "Delete a repository and everything in it."),
        make("op_3", "List the issues of a repository."),
        make("op_4", "Update the rate limit settings of the API."),
    ]
    hits = search(Catalog(tools=tools), "open a new issue", ranker="embedding", max_results=4)
    assert _names(hits)[0] == "op_1"


def test_tool_text_embeds_the_mcp_title_and_the_openapi_summary():
    mcp_tool = Tool(name="issues_create", description="Long text.", metadata={"mcp": {"title": "Create an issue"}})
    summary = {"openapi": {"summary": "List pull requests"}}
    api_tool = Tool(name="pulls_list", description="Long text.", metadata=summary)
    assert "Create an issue" in tool_text(mcp_tool)
    assert "List pull requests" in tool_text(api_tool)
    assert tool_text(Tool(name="plain", description="Only text.")).count("Only text.") == 1


def test_the_cli_embed_options_read_the_variables_the_library_reads():
    import typing

    from toolsearch_cli import environment
    from toolsearch_cli.cli import options

    declared = [
        options.EmbedModel,
        options.EmbedBaseUrl,
        options.EmbedApiKeyEnv,
        options.EmbedMultilingual,
        options.EmbedTimeout,
        options.EmbedQueryPrefix,
        options.EmbedDocumentPrefix,
        options.EmbedWeight,
    ]
    assert [typing.get_args(alias)[1].envvar for alias in declared] == list(environment.EMBED_VARIABLES.values())
    assert embed_settings.MODEL_VAR == environment.EMBED_MODEL


class _Wide:
    """A real model's vectors, padded to ``width`` numbers (an endpoint serving another model)."""

    def __init__(self, inner, width):
        self.inner, self.width = inner, width

    def embed(self, texts):
        import numpy as np

        vectors = self.inner.embed(texts)
        return np.pad(vectors, ((0, 0), (0, self.width - vectors.shape[1])))


def test_an_endpoint_sending_vectors_too_wide_is_one_line(run_cli):
    pytest.importorskip("openai")
    from toolsearch_cli.search.embed import MAX_DIMENSIONS

    from ..embed_server import EmbeddingServer

    with EmbeddingServer(_Wide(load_local(str(STATIC)), MAX_DIMENSIONS + 1)) as server:
        result = run_cli(
            "search", "weather", "-c", str(DEMO), "-r", "embedding",
            "--embed-base-url", server.base_url, "--embed-model", "m",
        )  # fmt: skip
    assert result.code == 2 and "Traceback" not in result.stderr
    assert f"at most {MAX_DIMENSIONS}" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_a_model_whose_vector_size_changed_under_the_same_name_is_one_line(run_cli, monkeypatch, tmp_path):
    pytest.importorskip("openai")
    from ..embed_server import EmbeddingServer

    monkeypatch.setenv("TOOLSEARCH_CACHE_DIR", str(tmp_path))
    local = load_local(str(STATIC))
    args = ("search", "weather", "-c", str(DEMO), "-r", "hybrid", "--embed-model", "m")
    with EmbeddingServer(local) as server:
        assert run_cli(*args, "--embed-base-url", server.base_url).code == 0  # tool vectors cached, 64 numbers
        server.embedder = _Wide(local, 96)  # the same name now gives 96 numbers
        result = run_cli(
            "search", "rain tomorrow", "-c", str(DEMO), "-r", "hybrid", "--embed-model", "m",
            "--embed-base-url", server.base_url,
        )  # fmt: skip
    assert result.code == 2 and "Traceback" not in result.stderr and "internal error" not in result.stderr
    assert "changed" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_the_vector_size_check_also_guards_the_library(monkeypatch, tmp_path):
    from toolsearch_cli.search import hybrid
    from toolsearch_cli.search.embed import EmbedError

    monkeypatch.setenv("TOOLSEARCH_CACHE_DIR", str(tmp_path))
    tools = [make("alpha", "zz"), make("beta", "zz")]
    axes = Axes({tool_text(tools[0]): [1, 0, 0], tool_text(tools[1]): [0, 1, 0], "qqq": [1, 0]})
    monkeypatch.setattr(embed_mod, "default_embedder", lambda: axes)
    with pytest.raises(EmbedError, match="vector of 2 numbers but the tools 3"):
        hybrid.HybridRanker().search(Catalog(tools=tools), SearchRequest(query="qqq", max_results=2))


def test_a_hanging_endpoint_fails_within_the_embed_timeout(run_cli):
    pytest.importorskip("openai")

    from ..embed_server import EmbeddingServer

    with EmbeddingServer(load_local(str(STATIC))) as server:
        # 30 s is within the default timeout (60 s): a run that ignored --embed-timeout would succeed
        server.delay = 30.0
        result = run_cli(
            "search", "weather", "-c", str(DEMO), "-r", "embedding", "--embed-timeout", "0.3",
            "--embed-base-url", server.base_url, "--embed-model", "m",
        )  # fmt: skip
    # how long the tries take against the timeout is measured by benchmarks/timeouts.py, not asserted here
    assert result.code == 2 and "Timeout" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert result.stdout == ""


@pytest.mark.parametrize("value", ["abc", "0", "-1", "nan", "99999"])
def test_a_bad_embed_timeout_is_a_usage_error(run_cli, monkeypatch, value):
    result = run_cli("search", "weather", "--embed-timeout", value)
    assert result.code == 2 and "--embed-timeout must be a number of seconds" in result.stderr
    monkeypatch.setenv("TOOLSEARCH_EMBED_TIMEOUT", "2.5")
    assert embed_settings.settings_from_env().timeout == 2.5


def test_the_vector_cache_is_not_used_in_a_folder_others_can_write(run_cli, monkeypatch, tmp_path):
    shared = tmp_path / "shared-cache"
    shared.mkdir()
    shared.chmod(0o777)
    monkeypatch.setenv("TOOLSEARCH_CACHE_DIR", str(shared))
    result = run_cli("search", "weather", "-c", str(DEMO), "-r", "hybrid", "--embed-model", str(STATIC))
    assert result.code == 0
    assert not (shared / "vectors").exists()  # nothing written where another user could plant vectors
    planted = shared / "vectors"
    planted.mkdir()
    from toolsearch_cli.search.vectors import VectorStore

    store = VectorStore(load_local(str(STATIC)).model_id)
    assert store._read() is None  # and nothing read from there either


def test_a_static_model_loads_without_library_log_noise():
    out = subprocess.run(
        [*TOOLSEARCH, "search", "weather", "-c", str(DEMO), "-r", "embedding",
         "--embed-model", str(STATIC), "-n", "1"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "Repo card" not in out.stderr


def test_a_long_first_embedding_is_announced_on_an_interactive_terminal_only(tmp_path):
    import pty

    catalog = tmp_path / "many.yaml"
    catalog.write_text(
        "tools:\n" + "".join(f"  - name: tool_{i}\n    description: Does thing number {i}.\n" for i in range(250))
    )
    env = {**os.environ, "TOOLSEARCH_CACHE_DIR": str(tmp_path / "cache")}
    command = [*TOOLSEARCH, "search", "thing", "-c", str(catalog), "-r", "embedding",
               "--embed-model", str(STATIC), "-n", "1", "-f", "json"]  # fmt: skip
    piped = subprocess.run(command, capture_output=True, text=True, timeout=120, env=env)
    assert piped.returncode == 0 and "note:" not in piped.stderr  # piped: quiet (and now cached)
    env["TOOLSEARCH_CACHE_DIR"] = str(tmp_path / "cache2")
    leader, follower = pty.openpty()
    with subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=follower, env=env) as proc:
        os.close(follower)
        seen = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the terminal closed with the process
                break
            if not chunk:
                break
            seen += chunk
        assert proc.wait(timeout=120) == 0
    os.close(leader)
    assert b"note: embedding 250 texts with" in seen


def test_an_english_only_model_embeds_a_bilingual_tool_without_its_cjk_half(monkeypatch, tmp_path):
    from toolsearch_cli.search import hybrid
    from toolsearch_cli.search.embed import without_cjk

    assert without_cjk("Send an email. 向指定邮箱发送邮件。Returns the ID.") == "Send an email. Returns the ID."
    assert (
        without_cjk("address: Recipient. 收件人邮箱; subject: Subject line.")
        == "address: Recipient. subject: Subject line."
    )
    assert without_cjk("plain English, kept  exactly.\n") == "plain English, kept  exactly.\n"
    assert without_cjk("天気を教えて") == ""
    bilingual = Tool(
        name="sendEmail", description="Send an email. 发送邮件。", metadata={"mcp": {"title": "邮件 Mail"}}
    )
    only_cjk = Tool(name="查询天气", description="查询城市天气")
    for multilingual in (False, True):
        monkeypatch.setenv("TOOLSEARCH_CACHE_DIR", str(tmp_path / str(multilingual)))  # embed afresh
        counting = Counting(load_local(str(STATIC), multilingual=multilingual))
        monkeypatch.setattr(embed_mod, "default_embedder", lambda c=counting: c)
        hybrid.EmbeddingRanker().search(
            Catalog(tools=[bilingual, only_cjk]), SearchRequest(query="mail", max_results=2)
        )
        bilingual_texts = [t for t in counting.texts if "sendEmail" in t or "send Email" in t or "Mail" in t]
        assert any("发送" in t for t in counting.texts) is multilingual
        assert bilingual_texts and all(("邮件" in t) is multilingual for t in bilingual_texts)
        assert "查询城市天气" in " ".join(counting.texts)  # all CJK: embedded as it is, never as ""


def test_an_endpoint_sending_all_zero_vectors_is_one_line_not_a_silent_lexical_ranking(run_cli):
    pytest.importorskip("openai")
    import numpy as np

    from ..embed_server import EmbeddingServer

    class Zeros:
        def embed(self, texts):
            return np.zeros((len(texts), 64), dtype=np.float32)

    with EmbeddingServer(Zeros()) as server:
        result = run_cli(
            "search", "weather", "-c", str(DEMO), "-r", "hybrid",
            "--embed-base-url", server.base_url, "--embed-model", "m",
        )  # fmt: skip
    assert result.code == 2 and "all-zero vector" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_loading_a_static_model_keeps_the_app_s_own_logging_disable_level():
    import logging

    logging.disable(logging.INFO)
    try:
        load_local(str(STATIC))
        assert logging.root.manager.disable == logging.INFO  # was reset to NOTSET
    finally:
        logging.disable(logging.NOTSET)


def test_an_untitled_tool_whose_parameters_fill_its_text_keeps_a_vector_of_its_own_words(monkeypatch, tmp_path):
    from toolsearch_cli.search import hybrid
    from toolsearch_cli.search.embed import title_text

    monkeypatch.setenv("TOOLSEARCH_CACHE_DIR", str(tmp_path))
    field = {"type": "string", "description": "A field of the object's long schema."}
    schema = {f"field_{i}": field for i in range(40)}
    create = make("createDeployment", "create a Deployment", params={"body": {"type": "object", "properties": schema}})
    read = make("readDeployment", "read the specified Deployment", params={"name": {"type": "string"}})
    wordy = make("createWidget", "Create a widget. " * 30, params=schema)  # its description is no short summary
    assert title_text(create) == "create Deployment. create a Deployment"
    assert title_text(read) is None  # its whole text is short: nothing to add
    # a long description gets its gist instead (test_an_untitled_tool_with_a_long_description_keeps_its_gist)
    assert title_text(wordy) == "create Widget. " + " ".join(["Create a widget."] * 4)
    axes = Axes(
        {
            tool_text(create): [1, 0, 0],  # the schema's words are all the full text says ...
            title_text(create): [0, 1, 0],  # ... its own words say what it does
            tool_text(read): [0, 0.8, 0.6],
            tool_text(wordy): [0, 0, 1],
            title_text(wordy): [0, 0, 1],
            "create a deployment": [0, 1, 0],
        }
    )
    monkeypatch.setattr(embed_mod, "default_embedder", lambda: axes)
    catalog = Catalog(tools=[create, read, wordy])
    hits = hybrid.EmbeddingRanker().search(catalog, SearchRequest(query="create a deployment", max_results=3))
    assert _names(hits) == ["createDeployment", "readDeployment"] and hits[0].score == pytest.approx(1.0, abs=1e-3)


def test_an_untitled_tool_with_a_long_description_keeps_its_gist(monkeypatch, tmp_path):
    """An MCP tool's description often says what the tool does in its first sentence, then instructs
    the model at length (use cases, mistakes, what to use instead): the one vector of the whole text
    is about the instructions. The tool gets a second vector of its name and first sentences."""
    from toolsearch_cli.search import hybrid
    from toolsearch_cli.search.embed import description_gist, title_text

    monkeypatch.setenv("TOOLSEARCH_CACHE_DIR", str(tmp_path))
    long = (
        "Get the issue list for a file in a repository.\n  \n  Use this tool to list the issues for specific "
        "files.\n\n  Common use cases:\n  - When the user asks for the issues of a file\n  - When the user "
        "asks what is wrong with a file\n\n  Common mistakes:\n  - Using this tool for a whole repository"
    )
    files = make("codacy_get_file_issues", long, params={"path": {"type": "string"}})
    repo = make("codacy_list_repository_issues", "Lists the issues of a repository.", params={"repo": {}})
    short = make("get_kv", "Get a value from the KV store.", params={"key": {"type": "string"}})
    first = "Get the issue list for a file in a repository."
    second = "Use this tool to list the issues for specific files."
    assert description_gist(long) == f"{first} {second}"  # whole sentences, up to the labelled list
    assert title_text(files) == "codacy_get_file_issues. " + description_gist(long)
    assert title_text(short) is None  # a short description: the whole text is short already
    clause = "creates a widget with every option that the widget service knows about, "
    assert len(description_gist("It " + clause * 4)) == 240  # one long first sentence: cut at twice the gist's size
    one = make("make_widget", "It " + (clause * 3).strip())  # 218 characters, one sentence, no parameters
    assert title_text(one) is None  # the gist is the whole text: nothing to add
    axes = Axes(
        {
            tool_text(files): [0, 0, 1],  # the instructions fill the whole text's vector ...
            title_text(files): [1, 0, 0],  # ... the first sentence says what it does
            tool_text(repo): [0.6, 0.8, 0],
            tool_text(short): [0, 1, 0],
            "issues of this file": [1, 0, 0],
        }
    )
    monkeypatch.setattr(embed_mod, "default_embedder", lambda: axes)
    catalog = Catalog(tools=[files, repo, short])
    hits = hybrid.EmbeddingRanker().search(catalog, SearchRequest(query="issues of this file", max_results=3))
    assert _names(hits)[:2] == ["codacy_get_file_issues", "codacy_list_repository_issues"]
    assert hits[0].score == pytest.approx(1.0, abs=1e-3)


def test_an_index_cached_with_older_texts_makes_its_texts_again(monkeypatch, tmp_path):
    import pickle

    from toolsearch_cli.search import hybrid, vectors

    monkeypatch.setenv("TOOLSEARCH_CACHE_DIR", str(tmp_path))
    tools = [make("alpha", "zz"), make("beta", "zz")]
    axes = Axes({tool_text(tools[0]): [1, 0], tool_text(tools[1]): [0, 1], "Renamed alpha text": [0, 1]})
    catalog = Catalog(tools=tools)
    index = hybrid.vector_index(catalog, axes)
    kept = pickle.dumps(index)
    monkeypatch.setattr(vectors, "TEXTS_VERSION", vectors.TEXTS_VERSION + 1)
    renamed = {"alpha": "Renamed alpha text"}
    monkeypatch.setattr(vectors, "tool_text", lambda t, cjk=True, **_: renamed.get(t.name) or tool_text(t))
    again = pickle.loads(kept)  # as the catalog cache gives it back: the older texts' keys with it
    again.ensure(axes)
    assert "Renamed alpha text" in axes.texts
    assert again.scores([0, 1]).tolist() == pytest.approx([1.0, 1.0], abs=1e-3)


def test_a_fused_cjk_request_explains_its_lexical_hits_once(static_model, monkeypatch):
    """A CJK request to an English catalog with an English-only model is fused (its lexical hits
    hold at most CJK_MAX_TERMS of its terms): the rows of its best lexical hits are made once, for
    the check and for the share (they were made twice)."""
    from toolsearch_cli.search import hybrid

    catalog = Catalog(
        tools=[
            Tool(name="getWeather", description="Current weather and forecast for a city such as Paris."),
            Tool(name="sendEmail", description="Send an email to an address."),
        ]
    )
    calls: list[str] = []
    real = hybrid.explained_hits

    def counting(catalog, query, hits):
        calls.append(query)
        return real(catalog, query, hits)

    monkeypatch.setattr(hybrid, "explained_hits", counting)
    ranker = get_ranker("hybrid")
    hits = ranker.search(catalog, SearchRequest(query="巴黎 Paris 的天气", max_results=2, explain=True))
    assert hits and any(c.field == "semantic" and c.detail.startswith("cosine") for c in hits[0].contributions)
    assert calls == ["巴黎 Paris 的天气"]
