"""What embedding costs, made visible (issue 19, item 5): progress of long runs, the time and cache
counts that ``search`` and ``eval`` report, and a cached search that loads no model.

The models are real: the static test model (tests/data/minilm-static, model2vec) and a tiny ONNX
transformer stand-in written by the test (tests/tiny_models.py), run by onnxruntime.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from toolsearch_cli import Catalog, Tool
from toolsearch_cli.search import embed as embed_mod
from toolsearch_cli.search import embed_settings, search
from toolsearch_cli.search import hybrid as hybrid_mod
from toolsearch_cli.search import vectors as vectors_mod
from toolsearch_cli.search.embed_settings import EmbedSettings, embed_cost, reset_embed_cost, set_progress
from toolsearch_cli.search.vectors import VectorStore

from ..conftest import ROOT, TOOLSEARCH
from .conftest import STATIC

pytest.importorskip("numpy")
pytest.importorskip("model2vec", reason="the static test model needs the embed extra (model2vec)")

WORDS = ["weather", "city", "send", "email", "a", "the", "text", "number", "get", "tool"]


@pytest.fixture(autouse=True)
def _clean(monkeypatch, tmp_path):
    monkeypatch.setenv("TOOLSEARCH_CACHE_DIR", str(tmp_path / "cache"))  # vectors of this test alone
    for name in (embed_settings.MODEL_VAR, embed_settings.BASE_URL_VAR):
        monkeypatch.delenv(name, raising=False)
    previous = set_progress(None)
    reset_embed_cost()
    yield
    set_progress(previous)


class Recorder:
    """An EmbedProgress that writes down every call."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, object]] = []

    def start(self, total: int, label: str) -> None:
        self.calls.append(("start", total))

    def advance(self, count: int) -> None:
        self.calls.append(("advance", count))

    def stop(self) -> None:
        self.calls.append(("stop", None))

    def advanced(self) -> list[object]:
        return [n for what, n in self.calls if what == "advance"]


def _texts(n: int) -> list[str]:
    return [f"tool number {i} gets the weather of city {i % 17} and sends text {i * 7}" for i in range(n)]


def _onnx(folder: Path) -> Path:
    pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx", reason="writing the test's ONNX graph needs the onnx package (test extra)")
    from ..tiny_models import one_hot_model

    one_hot_model(folder, WORDS)
    return folder


def _catalog_file(folder: Path, count: int) -> Path:
    lines = ["tools:"]
    for i in range(count):
        lines += [f"  - name: tool_{i}", f"    description: Tool number {i} sends text {i * 7} about city {i % 17}."]
    path = folder / "many.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("kind", ["static", "onnx"])
def test_a_long_run_reports_every_text_once_and_stops(tmp_path, kind):
    """An embedder that batches itself (ONNX: by length) reports its batches; one that does not
    (model2vec) is fed in chunks; either way the counts add up to the texts embedded."""
    model = embed_mod.load_local(str(STATIC if kind == "static" else _onnx(tmp_path / "m")))
    recorder = Recorder()
    set_progress(recorder)
    texts = _texts(embed_mod.PROGRESS_AT + 57)
    vectors = VectorStore(model.model_id, folder=tmp_path / "v").vectors(model, texts)
    assert vectors.shape[0] == len(texts)
    assert recorder.calls[0] == ("start", len(texts)) and recorder.calls[-1] == ("stop", None)
    steps = recorder.advanced()
    assert sum(steps) == len(texts) and len(steps) > 1  # batch by batch, not once at the end
    expected = embed_mod.LOCAL_BATCH if kind == "onnx" else embed_mod.PROGRESS_CHUNK
    assert max(steps) == expected
    # the same texts again: all cached, nothing embedded, nothing reported
    recorder.calls.clear()
    VectorStore(model.model_id, folder=tmp_path / "v").vectors(model, texts)
    assert recorder.calls == []


def test_a_short_run_reports_nothing_and_a_failing_one_still_stops(tmp_path):
    model = embed_mod.load_local(str(STATIC))
    recorder = Recorder()
    set_progress(recorder)
    VectorStore(model.model_id, folder=tmp_path / "v").vectors(model, _texts(embed_mod.PROGRESS_AT - 1))
    assert recorder.calls == []

    class Failing:
        model_id = "failing"
        label = "failing"
        multilingual = False
        query_prefix = document_prefix = ""

        def embed(self, texts):
            raise embed_mod.EmbedError("the model broke", field="embed-model")

    with pytest.raises(embed_mod.EmbedError):
        VectorStore("failing", folder=tmp_path / "f").vectors(Failing(), _texts(embed_mod.PROGRESS_AT))
    assert recorder.calls == [("start", embed_mod.PROGRESS_AT), ("stop", None)]


def test_the_cost_counts_texts_embedded_and_texts_cached(tmp_path):
    settings = EmbedSettings(model=str(STATIC))
    tools = [
        Tool(name="get_weather", description="Current weather for a city"),
        Tool(name="send_mail", description="Send an email"),
    ]
    # as a new process: other tests' requests may share its plain view ("rain in") in memory
    hybrid_mod._query_vectors.clear()
    with hybrid_mod.searches_kept_on_disk():
        search(Catalog(tools=list(tools)), "rain in Paris tomorrow", ranker="hybrid", embed=settings)
    first = embed_cost()
    # two tools, the query and (hybrid's plain view) the query without its place and day
    assert (first.texts, first.cached) == (4, 0) and first.seconds > 0
    reset_embed_cost()
    hybrid_mod._query_vectors.clear()  # as a new process: tools and the request from the disk cache
    with hybrid_mod.searches_kept_on_disk():
        search(Catalog(tools=list(tools)), "rain in Paris tomorrow", ranker="hybrid", embed=settings)
    again = embed_cost()
    assert (again.texts, again.cached, again.seconds) == (0, 4, 0.0)


def test_a_search_whose_vectors_are_cached_loads_no_model(tmp_path):
    folder = _onnx(tmp_path / "m")
    settings = EmbedSettings(model=str(folder))
    tools = [
        Tool(name="get_weather", description="get the weather of a city"),
        Tool(name="send", description="send email"),
    ]
    with hybrid_mod.searches_kept_on_disk():  # as the CLI's search runs
        hits = search(Catalog(tools=list(tools)), "the weather city", ranker="hybrid", embed=settings)
    assert hits[0].tool.name == "get_weather"
    assert embed_mod.embedder_for(settings)._session is not None  # the first search embedded
    embed_mod._embedders.clear()  # a new process: a new embedder, nothing in memory
    hybrid_mod._query_vectors.clear()
    with hybrid_mod.searches_kept_on_disk():
        again = search(Catalog(tools=list(tools)), "the weather city", ranker="hybrid", embed=settings)
    assert [h.tool.name for h in again] == [h.tool.name for h in hits]
    assert embed_mod.embedder_for(settings)._session is None  # vectors from disk; no session made
    search(Catalog(tools=list(tools)), "send email", ranker="hybrid", embed=settings)  # a new request
    assert embed_mod.embedder_for(settings)._session is not None
    # outside the CLI's search (an app's loop), requests are not written to the disk
    model = embed_mod.embedder_for(settings)
    keys, _ = VectorStore(model.model_id, "searches")._read()
    assert {bytes(k) for k in keys} == {embed_mod.text_key("the weather city")}


def test_search_and_eval_report_the_embedding_cost_in_json_and_table(run_cli, tmp_path):
    catalog = _catalog_file(tmp_path, 5)
    args = ("--catalog", str(catalog), "--ranker", "hybrid", "--embed-model", str(STATIC))
    shown = run_cli("search", "sends text about a city", *args, "--format", "json")
    assert shown.code == 0, shown.stderr
    payload = json.loads(shown.stdout)
    assert payload["embedding"]["texts"] == 6 and payload["embedding"]["cached"] == 0  # 5 tools + the request
    assert payload["embedding"]["seconds"] > 0 and payload["hits"] and "embed_model" in payload
    hybrid_mod._query_vectors.clear()
    table = run_cli("search", "sends text about a city", *args)
    assert table.code == 0 and table.stdout.rstrip().splitlines()[-1].startswith(
        "embedding: 0 texts in 0.00 s (6 cached)"
    )
    plain = run_cli("search", "sends text about a city", "--catalog", str(catalog), "--format", "json")
    assert "embedding" not in json.loads(plain.stdout)  # no model, no embedding figures
    queries = tmp_path / "q.yaml"
    queries.write_text("- {id: a, query: sends text about city 3, relevant: [tool_3]}\n", encoding="utf-8")
    evaluated = run_cli("eval", "--queries", str(queries), *args, "--format", "json")
    assert evaluated.code == 0, evaluated.stderr
    cost = json.loads(evaluated.stdout)["embedding"]
    # the new query and its plain view ("city 3" without the 3); the tools from the disk cache
    assert cost["texts"] == 2 and cost["cached"] == 5
    hybrid_mod._query_vectors.clear()  # as a new process would: the query from the disk cache
    table = run_cli("eval", "--queries", str(queries), *args)
    assert "embedding: 0 texts in 0.00 s (7 cached)" in table.stdout


def test_no_progress_bar_when_stderr_is_not_a_terminal(run_cli, tmp_path):
    catalog = _catalog_file(tmp_path, embed_mod.PROGRESS_AT + 10)
    result = run_cli("search", "sends text", "--catalog", str(catalog), "-r", "hybrid", "--embed-model", str(STATIC))
    assert result.code == 0
    assert result.stderr == ""  # no bar, no note: stderr is captured, not a terminal
    assert f"embedding: {embed_mod.PROGRESS_AT + 11} texts" in result.stdout


def _run_on_a_pty(args: list[str], env: dict[str, str]) -> tuple[int, str, str]:
    """Run the CLI with stderr on a pseudo-terminal (stdout a pipe); what each side got."""
    master, slave = os.openpty()
    child = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=slave, env=env)
    os.close(slave)
    seen = b""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the child closed its end
                break
            if not chunk:
                break
            seen += chunk
        elif child.poll() is not None and not select.select([master], [], [], 0)[0]:
            break  # ended, and nothing written between the wait above and its end is left unread
    os.close(master)
    out = child.stdout.read() if child.stdout else b""
    code = child.wait(timeout=30)
    return code, out.decode(), seen.decode(errors="replace")


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
@pytest.mark.parametrize("output_format", ["table", "json"])
def test_a_terminal_sees_a_progress_bar_with_an_eta_but_never_with_json(tmp_path, output_format):
    count = embed_mod.PROGRESS_AT + 10
    catalog = _catalog_file(tmp_path, count)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLSEARCH_EMBED")}
    env.update(TERM="xterm", COLUMNS="160", PYTHONPATH=str(ROOT), TOOLSEARCH_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("NO_COLOR", None)
    args = [*TOOLSEARCH, "search", "sends text about a city", "--catalog", str(catalog)]
    args += ["--ranker", "hybrid", "--embed-model", str(STATIC), "--format", output_format]
    code, out, err = _run_on_a_pty(args, env)
    assert code == 0, err
    if output_format == "json":
        # no bar: at most the core's one-line note that a long run is under way
        assert "ETA" not in err and "\x1b[" not in err and json.loads(out)["embedding"]["texts"] == count + 1
        assert err.strip().splitlines() == [f"note: embedding {count} texts with {STATIC} (once: cached)"]
    else:
        assert f"embedding {count:,} texts with {STATIC}" in err and "ETA" in err
        assert f"embedding: {count + 1} texts in" in out


def test_the_store_of_search_requests_keeps_the_newest_alone(monkeypatch):

    monkeypatch.setattr(vectors_mod, "MAX_SEARCHES", 2)
    settings = EmbedSettings(model=str(STATIC))
    catalog = Catalog(tools=[Tool(name="get_weather", description="Current weather for a city")])
    with hybrid_mod.searches_kept_on_disk():
        for query in ("rain in the city", "snow in the hills", "sun at the beach"):  # nothing value-like: one view each
            search(catalog, query, ranker="embedding", embed=settings)
    model = embed_mod.embedder_for(settings)
    store = vectors_mod.VectorStore(model.model_id, "searches")
    keys, _ = store._read()
    assert {bytes(k) for k in keys} == {embed_mod.text_key(q) for q in ("snow in the hills", "sun at the beach")}


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_evals_bar_of_queries_gets_the_embedding_run_as_one_more_line(tmp_path):
    """Rich shows one live display at a time: the embedding run joins eval's bar instead of failing."""
    count = embed_mod.PROGRESS_AT + 10
    catalog = _catalog_file(tmp_path, count)
    queries = tmp_path / "q.yaml"
    queries.write_text("- {id: a, query: sends text 21 about city 3, relevant: [tool_3]}\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLSEARCH_EMBED")}
    env.update(TERM="xterm", COLUMNS="160", PYTHONPATH=str(ROOT), TOOLSEARCH_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("NO_COLOR", None)
    args = [*TOOLSEARCH, "eval", "--catalog", str(catalog), "--queries", str(queries)]
    args += ["--ranker", "default,hybrid", "--embed-model", str(STATIC)]
    code, out, err = _run_on_a_pty(args, env)
    assert code == 0, err
    assert "eval hybrid" in err and f"embedding {count} texts with {STATIC}" in err and "Traceback" not in err
    assert f"embedding: {count + 2} texts in" in out and "│" in out  # the tools, the query, its plain view


@pytest.mark.parametrize("width", [60, 80, 100])
def test_the_bar_count_and_eta_fit_an_ordinary_terminal_with_a_long_model_name(width):
    """A model's name is cut to fit, never the bar, the count or the ETA: at 80 columns (a
    terminal's default) a Hub id such as sentence-transformers/all-MiniLM-L6-v2 used to push
    all three off the line, so a first run of minutes showed no progress at all."""
    import io

    from rich.console import Console

    from toolsearch_cli.cli.embed_progress import RichEmbedProgress

    buffer = io.StringIO()
    console = Console(file=buffer, width=width, force_terminal=True, color_system=None)
    reporter = RichEmbedProgress(console)
    reporter.start(12_000, "sentence-transformers/all-MiniLM-L6-v2")
    reporter.advance(1_000)
    assert reporter.progress is not None
    reporter.progress.refresh()
    reporter.stop()
    drawn = [line for line in buffer.getvalue().split("\r") if "embedding" in line]
    assert drawn, buffer.getvalue()
    line = drawn[-1]
    assert "1000/12000" in line and "ETA" in line and "━" in line, line
    assert line.removeprefix("\x1b[2K").startswith("embedding 12," if width < 80 else "embedding 12,000 texts with")
    assert len(line.replace("\x1b[2K", "").rstrip()) <= width
