"""A ``search`` request embedded in a background thread while the CLI loads (cli/ahead.py,
``search.hybrid.embedded_ahead``): the search uses those very vectors (embedded once), its
results are the same, a model failing in the thread fails the search with the usual one line and
exit 2, and no thread outlives the command (Ctrl-C included). Real onnxruntime on a tiny ONNX
model written by the test (tests/tiny_models.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx", reason="writing the test's ONNX graph needs the onnx package (test extra)")

from toolsearch_cli.cli import ahead  # noqa: E402
from toolsearch_cli.search import RANKER_BY_NAME, hybrid  # noqa: E402
from toolsearch_cli.search import embed as embed_mod  # noqa: E402
from toolsearch_cli.search.embed import EmbedSettings, configure  # noqa: E402

from ..conftest import DEMO, TOOLSEARCH  # noqa: E402
from ..tiny_models import one_hot_model  # noqa: E402

WORDS = ["send", "mail", "email", "message", "file", "list", "weather", "forecast", "alice", "acme", "order"]
THREAD = "toolsearch-embed-ahead"


@pytest.fixture(autouse=True)
def _clean(tmp_path, monkeypatch):
    """A cache of the test's own, no model configured, no vector of another test in memory."""
    monkeypatch.setenv("TOOLSEARCH_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("TOOLSEARCH_NO_CACHE", raising=False)
    for name in list(os.environ):
        if name.startswith("TOOLSEARCH_EMBED"):
            monkeypatch.delenv(name)
    configure(None)
    hybrid._query_vectors.clear()
    yield
    configure(None)
    hybrid._query_vectors.clear()
    assert not _threads()


@pytest.fixture
def model(tmp_path):
    folder = tmp_path / "model"
    one_hot_model(folder, WORDS)
    return folder


def _threads():
    return [t for t in threading.enumerate() if t.name == THREAD and t.is_alive()]


def _search_args(model, query, *more):
    return ["search", "--catalog", str(DEMO), "--ranker", "hybrid", "--embed-model", str(model), *more, query]


@pytest.fixture
def embedded(monkeypatch):
    """Each embed call of an ONNX model: (thread name, texts)."""
    calls: list[tuple[str, list[str]]] = []
    real = embed_mod.OnnxEmbedder.embed

    def spy(self, texts, progress=None):
        calls.append((threading.current_thread().name, list(texts)))
        return real(self, texts, progress)

    monkeypatch.setattr(embed_mod.OnnxEmbedder, "embed", spy)
    return calls


def test_the_value_options_read_ahead_are_the_search_command_s():
    """The entry point tells options with a value from flags as the command's parser does."""
    import typer.main

    from toolsearch_cli.cli.app import app

    command = typer.main.get_command(app).commands["search"]  # type: ignore[attr-defined]
    options = [p for p in command.params if p.param_type_name == "option"]
    valued = {name for p in options if not p.is_flag for name in (*p.opts, *p.secondary_opts)}
    assert valued | {"--live-ttl"} == ahead.VALUE_OPTIONS  # --live-ttl: the global option search accepts after it
    assert [p.name for p in command.params if p.param_type_name == "argument"] == ["query"]


@pytest.mark.parametrize(
    ("args", "read"),
    [
        (["search", "send mail"], ("default", "send mail", {})),
        (
            ["--debug", "search", "-r", "hybrid", "send mail", "--embed-model", "m", "-e", "-n", "3"],
            ("hybrid", "send mail", {"--embed-model": "m"}),
        ),
        (["search", "--ranker=embedding", "--explain", "--", "-x is a word"], ("embedding", "-x is a word", {})),
        (
            ["search", "q", "--embed-multilingual", "--embed-query-prefix", ""],
            ("default", "q", {"--embed-multilingual": True, "--embed-query-prefix": ""}),
        ),
    ],
)
def test_a_search_command_line_is_read_ahead(args, read):
    assert ahead.read_search(args) == read


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["lint", "weather"],
        ["search"],
        ["search", "two", "words"],  # the parser will say what is wrong
        ["search", "-n5", "q"],  # short options with their value attached: not read here
        ["search", "--not-an-option=1", "q"],
        ["search", "q", "--catalog"],
        ["--refresh", "search", "q"],  # global options before the command: not read here
    ],
)
def test_what_is_not_read_ahead_starts_nothing(args):
    assert ahead.read_search(args) is None


def test_the_settings_read_ahead_are_the_ones_the_options_configure(model, monkeypatch):
    from toolsearch_cli.cli.options import apply_embed_options

    monkeypatch.setenv("TOOLSEARCH_EMBED_QUERY_PREFIX", "query: ")
    for embed, applied in (
        ({"--embed-model": f" {model} "}, (f" {model} ", None, "OPENAI_API_KEY", False, None, "query: ", None)),
        (
            {"--embed-model": str(model), "--embed-multilingual": True, "--embed-timeout": "5"},
            (str(model), None, "OPENAI_API_KEY", True, "5", "query: ", None),
        ),
        (
            {"--embed-model": str(model), "--embed-query-prefix": ""},
            (str(model), None, "OPENAI_API_KEY", False, None, "", None),
        ),
    ):
        apply_embed_options(*applied)
        assert ahead._settings(embed) == embed_mod.current_settings()


def _hits_without_ahead(run_cli, monkeypatch, tmp_path, args, embedded, views):
    """The same search with nothing embedded ahead (search_report starts one too: not now), in a
    fresh cache, the request embedded by the search itself."""
    import contextlib

    monkeypatch.setattr(hybrid, "embedded_ahead", lambda ranker, query: contextlib.nullcontext())
    monkeypatch.setenv("TOOLSEARCH_CACHE_DIR", str(tmp_path / "other-cache"))
    hybrid._query_vectors.clear()
    embedded.clear()
    plain = run_cli(*args)
    assert plain.code == 0, plain.stderr
    assert [who for who, texts in embedded if set(texts) & set(views)] == ["MainThread"]
    return json.loads(plain.stdout)["hits"]


QUERY = "send an email to alice. Then list the weather forecast"


def test_the_request_is_embedded_once_in_the_background_and_ranks_as_without(
    model, run_cli, embedded, tmp_path, monkeypatch
):
    args = _search_args(model, QUERY, "--format", "json")
    assert run_cli(*_search_args(model, "order")).code == 0  # the tool vectors, cached now
    embedded.clear()
    with ahead.search_ahead(args):
        assert _threads()  # started before the command runs
        result = run_cli(*args)
    assert result.code == 0, result.stderr
    views = hybrid.query_views(QUERY)
    assert len(views) == 3  # the whole request and its two sentences
    assert embedded == [(THREAD, views)]  # once, in the background, all of the request's views
    assert json.loads(result.stdout)["hits"] == _hits_without_ahead(
        run_cli, monkeypatch, tmp_path, args, embedded, views
    )


def test_a_first_search_embeds_the_request_again_with_the_tools_session(
    model, run_cli, embedded, tmp_path, monkeypatch
):
    """With no tool vector cached, the search makes the model's full session for the tools: the
    request is embedded again with it, as the search alone would have (the light session's vectors
    may differ in the last float digits), and stored in place of the first."""
    args = _search_args(model, QUERY, "--format", "json")
    with ahead.search_ahead(args):
        result = run_cli(*args)
    assert result.code == 0, result.stderr
    views = hybrid.query_views(QUERY)
    assert [who for who, _ in embedded] == [THREAD, "MainThread", "MainThread"]
    assert embedded[0][1] == embedded[2][1] == views
    assert len(embedded[1][1]) > embed_mod.OnnxEmbedder.light_session_at  # the tools: a full session
    # the stored vectors are the second ones: a repeat embeds nothing and ranks the same
    hybrid._query_vectors.clear()
    embedded.clear()
    again = run_cli(*args)
    assert embedded == [] and json.loads(again.stdout)["hits"] == json.loads(result.stdout)["hits"]
    assert json.loads(result.stdout)["hits"] == _hits_without_ahead(
        run_cli, monkeypatch, tmp_path, args, embedded, views
    )


def test_a_new_request_reports_the_text_it_embedded_ahead(model, run_cli):
    assert run_cli(*_search_args(model, "send mail")).code == 0  # the tool vectors, now cached
    args = _search_args(model, "list the weather forecast")
    with ahead.search_ahead(args):
        result = run_cli(*args)
    assert result.code == 0, result.stderr
    # counted, though embedded before the search began (and not what the run before embedded)
    assert result.stdout.splitlines()[-1].startswith("embedding: 1 text in"), result.stdout
    assert result.stdout.splitlines()[-1].endswith(" cached)")


def test_a_model_failing_in_the_background_is_the_usual_one_line_and_exit_2(tmp_path):
    broken = tmp_path / "broken"
    one_hot_model(broken, WORDS)
    (broken / "onnx" / "model.onnx").write_bytes(b"not an onnx graph")
    env = dict(os.environ, TOOLSEARCH_CACHE_DIR=str(tmp_path / "cache"))
    done = subprocess.run(
        [*TOOLSEARCH, *_search_args(broken, "send mail to alice")],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,  # a thread left running would keep the process from ending
    )
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert f"cannot load the embedding model in {broken}" in lines[0]
    assert "Traceback" not in done.stderr


def test_a_model_failing_in_the_background_leaves_no_thread(tmp_path, run_cli, embedded):
    broken = tmp_path / "broken"
    one_hot_model(broken, WORDS)
    (broken / "onnx" / "model.onnx").write_bytes(b"not an onnx graph")
    args = _search_args(broken, "send mail to alice")
    with ahead.search_ahead(args):
        result = run_cli(*args)
    assert not _threads()
    assert result.code == 2
    assert f"cannot load the embedding model in {broken}" in result.stderr
    # tried in the background, then again by the search, which said why
    assert [who for who, _ in embedded] == [THREAD, "MainThread"]


def test_ctrl_c_stops_the_background_embedding_and_waits_for_it(model):
    ranker = RANKER_BY_NAME["hybrid"].with_embed(EmbedSettings(model=str(model)))  # type: ignore[attr-defined]
    with pytest.raises(KeyboardInterrupt):
        with hybrid.embedded_ahead(ranker, "send mail to alice"):
            assert _threads()
            raise KeyboardInterrupt
    assert not _threads()
    assert not hybrid.embedding_ahead()


def test_a_catalog_error_waits_for_the_thread_and_says_only_the_catalog_s_error(model, run_cli, tmp_path):
    args = [
        "search",
        "--catalog",
        str(tmp_path / "missing.yaml"),
        "--ranker",
        "hybrid",
        "--embed-model",
        str(model),
        "q",
    ]
    with ahead.search_ahead(args):
        result = run_cli(*args)
    assert result.code == 2
    assert result.stderr.count("\n") == 1 and "missing.yaml" in result.stderr
    # the request was embedded, but a search that never used it stores it nowhere (as before)
    assert not list((tmp_path / "cache").glob("vectors/*-searches.npz"))


def test_nothing_starts_for_the_default_ranker_an_endpoint_or_a_blank_request(model):
    for args in (
        ["search", "--embed-model", str(model), "send mail"],  # the default ranker embeds nothing
        ["search", "-r", "hybrid", "--embed-model", "m", "--embed-base-url", "http://127.0.0.1:9/v1", "send mail"],
        ["search", "-r", "hybrid", "--embed-model", str(model), "?!"],
        ["search", "-r", "hybrid", "send mail"],  # no model configured
        ["search", "-r", "hybrid", "--embed-model", str(model), "--embed-timeout", "soon", "send mail"],
    ):
        with ahead.search_ahead(args):
            assert not _threads(), args


def test_the_entry_point_loads_nothing_heavy_for_a_lexical_search():
    code = (
        "import sys\n"
        f"sys.argv = ['toolsearch', 'search', '--catalog', {str(DEMO)!r}, 'weather']\n"
        "from toolsearch_cli.cli.ahead import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "heavy = ('onnxruntime', 'model2vec', 'tokenizers', 'openai', 'numpy')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLSEARCH_EMBED")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_a_thread_that_cannot_finish_does_not_hold_ctrl_c_up(model, monkeypatch):
    """A Ctrl-C during an import can leave Python's import lock held, and a thread importing then
    waits forever: after an interrupt the thread is waited for a bounded while, not for ever."""
    import time

    release = threading.Event()
    monkeypatch.setattr(hybrid, "_embed_ahead", lambda *args: release.wait(30))
    monkeypatch.setattr(hybrid, "GIVE_UP_AFTER", 0.3)
    ranker = RANKER_BY_NAME["hybrid"].with_embed(EmbedSettings(model=str(model)))  # type: ignore[attr-defined]
    began = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            with hybrid.embedded_ahead(ranker, "send mail to alice"):
                raise KeyboardInterrupt
        assert time.monotonic() - began < 10
        assert not hybrid.embedding_ahead()
        assert all(t.daemon for t in _threads())  # left to end with the process, not waited for at exit
    finally:
        release.set()
        for thread in _threads():
            thread.join(10)


def test_a_request_embedded_ahead_is_stored_only_by_the_search_that_uses_it(model, tmp_path):
    import time

    ranker = RANKER_BY_NAME["hybrid"].with_embed(EmbedSettings(model=str(model)))  # type: ignore[attr-defined]
    stores = tmp_path / "cache" / "vectors"
    with pytest.raises(RuntimeError):
        with hybrid.searches_kept_on_disk(), hybrid.embedded_ahead(ranker, "send mail to alice"):
            began = time.monotonic()
            while not hybrid._made_ahead and time.monotonic() - began < 60:
                time.sleep(0.01)
            assert hybrid._made_ahead  # embedded in the background...
            raise RuntimeError("the catalog did not load")
    assert not list(stores.glob("*-searches.npz"))  # ...and, the search failing, stored nowhere
    assert not hybrid._made_ahead and not hybrid._query_vectors  # nor kept

    with hybrid.searches_kept_on_disk(), hybrid.embedded_ahead(ranker, "send mail to alice"):
        [vector] = hybrid.query_vectors(ranker.embedder(), ["send mail to alice"], persist="searches")
    assert len(list(stores.glob("*-searches.npz"))) == 1  # used: stored
    hybrid._query_vectors.clear()
    with hybrid.searches_kept_on_disk():
        [again] = hybrid.query_vectors(ranker.embedder(), ["send mail to alice"], persist="searches")
    assert (again == vector).all()
