"""Models used as trained: pooling, normalisation and prompts read from the model folder's own files.

The folders are written here: a word-level tokenizer, a real ONNX graph whose token ``i`` has
the one-hot vector ``e_i`` (so a pooled vector shows which tokens the model saw and how they
were pooled), and sentence-transformers' ``modules.json``, ``1_Pooling/config.json`` and
``config_sentence_transformers.json``. Endpoint prompts are checked on the texts a real
loopback embeddings server was sent.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from toolsearch_cli import Catalog, EmbedSettings, Tool, load_catalog, search
from toolsearch_cli.search import embed as embed_mod
from toolsearch_cli.search import embed_settings
from toolsearch_cli.search.embed import EmbedError, ModelConfig, load_local, pool, read_model_config

from ..conftest import DEMO
from .conftest import STATIC

np = pytest.importorskip("numpy")

WORDS = ["query", ":", "passage", "search_query", "weather", "city", "send", "email", "a", "the"]


@pytest.fixture(autouse=True)
def _no_default(monkeypatch):
    s = embed_settings
    names = (s.MODEL_VAR, s.BASE_URL_VAR, s.QUERY_PREFIX_VAR, s.DOCUMENT_PREFIX_VAR)
    for name in names:
        monkeypatch.delenv(name, raising=False)
    yield


def _onnx_model(folder, **kwargs):
    pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx", reason="writing the test's ONNX graph needs the onnx package (test extra)")
    from ..tiny_models import one_hot_model

    return one_hot_model(folder, WORDS, **kwargs)


# -- pooling, on numbers chosen by hand ------------------------------------------------------


def test_each_pooling_mode_on_known_token_vectors():
    hidden = np.array(
        [
            [[1.0, 0.0], [3.0, 2.0], [5.0, 4.0], [100.0, 100.0]],  # 3 real tokens, then padding
            [[2.0, 6.0], [9.0, 9.0], [9.0, 9.0], [9.0, 9.0]],  # 1 real token
        ]
    )
    mask = np.array([[1, 1, 1, 0], [1, 0, 0, 0]])
    assert pool(hidden, mask, ["mean"]).tolist() == [[3.0, 2.0], [2.0, 6.0]]
    assert pool(hidden, mask, ["cls"]).tolist() == [[1.0, 0.0], [2.0, 6.0]]
    assert pool(hidden, mask, ["lasttoken"]).tolist() == [[5.0, 4.0], [2.0, 6.0]]  # the padding is not "last"
    assert pool(hidden, mask, ["max"]).tolist() == [[5.0, 4.0], [2.0, 6.0]]  # nor the largest
    assert np.allclose(pool(hidden, mask, ["mean_sqrt_len"]), [[9 / 3**0.5, 6 / 3**0.5], [2.0, 6.0]])
    # positions 1, 2, 3 weigh the tokens: (1*1 + 2*3 + 3*5) / 6, (0 + 4 + 12) / 6
    assert np.allclose(pool(hidden, mask, ["weightedmean"]), [[22 / 6, 16 / 6], [2.0, 6.0]])
    assert pool(hidden, mask, ["cls", "mean"]).tolist() == [[1.0, 0.0, 3.0, 2.0], [2.0, 6.0, 2.0, 6.0]]


# -- what the folder's files say ----------------------------------------------------------


def _write(folder: Path, name: str, value) -> None:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(value if isinstance(value, str) else json.dumps(value), encoding="utf-8")


def test_a_folder_without_sentence_transformers_files_gets_the_defaults(tmp_path):
    assert read_model_config(tmp_path) == ModelConfig()
    assert ModelConfig() == ModelConfig(pooling=("mean",), normalize=True, query_prefix="", document_prefix="")


def test_e5_style_prompts_and_bge_style_cls_pooling_are_read(tmp_path):
    _write(tmp_path, "modules.json", [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"},
    ])  # fmt: skip
    _write(tmp_path, "1_Pooling/config.json", {"pooling_mode_cls_token": True, "pooling_mode_mean_tokens": False})
    _write(tmp_path, "config_sentence_transformers.json", {"prompts": {"query": "query: ", "passage": "passage: "}})
    _write(tmp_path, "sentence_bert_config.json", {"max_seq_length": 512, "do_lower_case": False})
    config = read_model_config(tmp_path)
    assert config.pooling == ("cls",) and config.normalize is True
    assert (config.query_prefix, config.document_prefix, config.max_tokens) == ("query: ", "passage: ", 512)


def test_a_dot_product_model_without_normalize_keeps_raw_vectors_and_a_default_prompt_applies(tmp_path):
    _write(tmp_path, "modules.json", [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "pool", "type": "sentence_transformers.models.Pooling"},
    ])  # fmt: skip
    _write(tmp_path, "pool/config.json", {"pooling_mode": "lasttoken"})
    _write(tmp_path, "config_sentence_transformers.json", {
        "prompts": {"retrieval": "Instruct: find a tool\nQuery: "},
        "default_prompt_name": "retrieval",
        "similarity_fn_name": "dot",
    })  # fmt: skip
    config = read_model_config(tmp_path)
    assert config.pooling == ("lasttoken",) and config.normalize is False
    assert config.query_prefix == config.document_prefix == "Instruct: find a tool\nQuery: "


@pytest.mark.parametrize(
    ("name", "text", "said"),
    [
        ("modules.json", "{not json", "modules.json is not readable JSON"),
        ("modules.json", {"a": 1}, "modules.json: not a list of modules"),
        ("1_Pooling/config.json", {"pooling_mode": "median"}, "pooling 'median' is none of"),
        ("config_sentence_transformers.json", {"prompts": {"query": 3}}, "prompts is not an object of texts"),
    ],
)
def test_a_broken_model_file_is_one_line_naming_it(tmp_path, name, text, said):
    if name.startswith("1_Pooling"):
        _write(tmp_path, "modules.json", [{"path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}])
    _write(tmp_path, name, text)
    with pytest.raises(EmbedError) as caught:
        read_model_config(tmp_path)
    assert said in str(caught.value) and "\n" not in str(caught.value) and caught.value.field == "embed-model"


def test_e5_models_get_their_prompts_by_name_when_their_files_declare_none(tmp_path):
    assert embed_mod.known_prompts("intfloat/multilingual-e5-small") == ("query: ", "passage: ")
    assert embed_mod.known_prompts("/models/e5-base-v2") == ("query: ", "passage: ")
    assert embed_mod.known_prompts("intfloat/multilingual-e5-large-instruct") is None
    assert embed_mod.known_prompts("sentence-transformers/all-MiniLM-L6-v2") is None
    folder = tmp_path / "multilingual-e5-small"
    folder.mkdir()
    assert read_model_config(folder).query_prefix == "query: "
    _write(folder, "config_sentence_transformers.json", {"prompts": {"query": "q> "}})
    assert read_model_config(folder).query_prefix == "q> "  # the files win


# -- the prompts and pooling really reach the model -------------------------------------------


def test_an_onnx_model_reads_queries_and_tools_with_its_own_prompts(tmp_path):
    vocab = _onnx_model(tmp_path / "m", pooling="cls", prompts={"query": "query: ", "passage": "passage: "})
    settings = EmbedSettings(model=str(tmp_path / "m"))
    embedder = embed_mod.embedder_for(settings)
    from toolsearch_cli.search.hybrid import query_vectors, query_views, vector_index

    [vector] = query_vectors(embedder, ["weather city"])
    assert int(np.argmax(vector)) == vocab["query"]  # CLS pooling saw "query:" first: the prompt was sent
    tools = [Tool(name="get_weather", description="weather city"), Tool(name="send", description="send email")]
    catalog = Catalog(tools=tools)
    index = vector_index(catalog, embedder)
    assert {int(np.argmax(row)) for row in index.matrix} == {vocab["passage"]}  # every tool text as a "passage: "
    assert query_views("weather city") == ["weather city"]


def test_prompts_given_in_the_settings_override_the_model_s_own(tmp_path):
    vocab = _onnx_model(tmp_path / "m", pooling="cls", prompts={"query": "query: ", "passage": "passage: "})
    mine = embed_mod.embedder_for(EmbedSettings(model=str(tmp_path / "m"), query_prefix="search_query: "))
    none = embed_mod.embedder_for(EmbedSettings(model=str(tmp_path / "m"), query_prefix=""))
    from toolsearch_cli.search.hybrid import query_vectors

    assert int(np.argmax(query_vectors(mine, ["weather"])[0])) == vocab["search_query"]
    assert int(np.argmax(query_vectors(none, ["weather"])[0])) == vocab["weather"]  # no prompt at all
    assert mine.document_prefix == "passage: "  # only what was given is overridden
    own = embed_mod.embedder_for(EmbedSettings(model=str(tmp_path / "m")))
    assert len({mine.model_id, none.model_id, own.model_id}) == 3  # vectors of one are never another's


@pytest.mark.parametrize(
    ("pooling", "normalize", "expected"),
    [
        ("mean", True, [0.0, 0.0, 0.0, 0.0, 0.0, 2 / 5**0.5, 1 / 5**0.5]),  # weather x2, city x1
        ("cls", True, [0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0]),
        ("lasttoken", False, [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]),
        ("mean_sqrt_len", False, [0.0, 0.0, 0.0, 0.0, 0.0, 2 / 3**0.5, 1 / 3**0.5]),  # raw: not normalised
    ],
)
def test_the_onnx_model_pools_and_normalises_as_its_files_say(tmp_path, pooling, normalize, expected):
    _onnx_model(tmp_path / "m", pooling=pooling, normalize=normalize, similarity=None if normalize else "dot")
    model = load_local(str(tmp_path / "m"))
    got = model.embed(["weather weather city"])[0]
    assert np.allclose(got[:7], expected, atol=1e-6) and not got[7:].any()


def test_a_static_model_reads_its_prompts_too(tmp_path):
    pytest.importorskip("model2vec")
    folder = tmp_path / "static"
    shutil.copytree(STATIC, folder)
    _write(folder, "config_sentence_transformers.json", {"prompts": {"query": "query: ", "document": "passage: "}})
    model = load_local(str(folder))
    assert (model.query_prefix, model.document_prefix) == ("query: ", "passage: ")
    assert model.model_id != load_local(str(STATIC)).model_id


# -- endpoints: prompts from the settings (or a known family), on the texts the server got -------


def _served_texts(server) -> list[str]:
    return [t for r in server.requests for t in r["body"]["input"]]


def test_an_endpoint_gets_the_prompts_of_the_settings(run_cli):
    pytest.importorskip("openai")
    pytest.importorskip("model2vec")
    from ..embed_server import EmbeddingServer

    with EmbeddingServer(load_local(str(STATIC))) as server:
        result = run_cli(
            "search", "send a note to a colleague", "-c", str(DEMO), "-r", "hybrid", "--embed-base-url",
            server.base_url, "--embed-model", "my-embedder", "--embed-query-prefix", "query: ",
            "--embed-document-prefix", "passage: ", "--format", "json",
        )  # fmt: skip
        assert result.code == 0, result.stderr
        texts = _served_texts(server)
    assert "query: send a note to a colleague" in texts
    others = [t for t in texts if not t.startswith("query: ")]
    assert len(others) >= len(load_catalog([str(DEMO)]).searchable()) and all(t.startswith("passage: ") for t in others)


def test_an_e5_model_at_an_endpoint_gets_its_prompts_unless_told_otherwise():
    pytest.importorskip("openai")
    pytest.importorskip("model2vec")
    from toolsearch_cli.search.embed import tool_text

    from ..embed_server import EmbeddingServer

    tool = Tool(name="get_weather", description="Weather for a city")
    name = "intfloat/multilingual-e5-small"
    with EmbeddingServer(load_local(str(STATIC))) as server:
        e5 = EmbedSettings(model=name, base_url=server.base_url)
        search(Catalog(tools=[tool]), "rain tomorrow", ranker="embedding", embed=e5)
        # the request and its plain view (without "tomorrow"), both read as queries
        assert sorted(_served_texts(server)) == [f"passage: {tool_text(tool)}", "query: rain", "query: rain tomorrow"]
        server.requests.clear()
        bare = EmbedSettings(model=name, base_url=server.base_url, query_prefix="", document_prefix="")
        search(Catalog(tools=[tool]), "rain tomorrow", ranker="embedding", embed=bare)
        assert sorted(_served_texts(server)) == sorted([tool_text(tool), "rain", "rain tomorrow"])


@pytest.mark.parametrize("option", ["--embed-query-prefix", "--embed-document-prefix"])
def test_a_bad_prefix_is_a_usage_error_naming_the_option(run_cli, option):
    result = run_cli(
        "search", "weather", "-c", str(DEMO), "-r", "hybrid", "--embed-model", str(STATIC), option, "x" * 1001
    )  # fmt: skip
    assert result.code == 2 and option in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_bad_prefix_settings_name_the_field():
    with pytest.raises(EmbedError) as caught:
        EmbedSettings(model="m", document_prefix=7)
    assert caught.value.field == "embed.document_prefix"


def test_the_prefix_options_read_the_variables_the_library_reads(monkeypatch):
    import typing

    from toolsearch_cli.cli import options

    assert typing.get_args(options.EmbedQueryPrefix)[1].envvar == embed_settings.QUERY_PREFIX_VAR
    assert typing.get_args(options.EmbedDocumentPrefix)[1].envvar == embed_settings.DOCUMENT_PREFIX_VAR
    monkeypatch.setenv(embed_settings.MODEL_VAR, "some-model")
    monkeypatch.setenv(embed_settings.QUERY_PREFIX_VAR, "")  # set but empty: no prompt at all
    monkeypatch.setenv(embed_settings.DOCUMENT_PREFIX_VAR, "passage: ")
    settings = embed_settings.settings_from_env()
    assert (settings.query_prefix, settings.document_prefix) == ("", "passage: ")
