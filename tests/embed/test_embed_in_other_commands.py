"""A user's edges of the embedding options outside search: a bad endpoint URL, ``simulate`` and the
agent API with a dense ranker whose model cannot be had, and ``eval`` naming the model it measured.

A misconfigured embedding model stops the run with one line and exit 2 (it is the developer's to
fix, not a search result for the model to read); an evaluation says which model its dense rankers
used, and a baseline measured with another model says so rather than passing off the model's
difference as a ranking change.
"""

from __future__ import annotations

import json

import pytest

from toolsearch_cli import ToolSearch, load_catalog
from toolsearch_cli.search.embed import EmbedError, load_local
from toolsearch_cli.search.embed_settings import MODEL_VAR

from ..conftest import DEMO
from .conftest import STATIC

pytest.importorskip("numpy")
pytest.importorskip("model2vec", reason="the static test model needs the embed extra (model2vec)")

SCRIPT = (
    "turns:\n  - user: is it raining in Paris\n    steps:\n"
    "      - call: {name: toolSearch, arguments: {query: rain in Paris today, maxResults: 1}}\n"
    "      - say: done\n"
)


@pytest.fixture(autouse=True)
def _no_embed_settings(monkeypatch):
    for var in ("TOOLSEARCH_EMBED_MODEL", "TOOLSEARCH_EMBED_BASE_URL", "TOOLSEARCH_EMBED_API_KEY_ENV"):
        monkeypatch.delenv(var, raising=False)
    yield


@pytest.mark.parametrize("url", ["localhost:11434/v1", "notaurl", "ftp://user:sk-url-secret-42@host/v1"])
def test_an_embed_base_url_that_is_not_http_is_one_line_before_anything_runs(run_cli, url):
    result = run_cli(
        "search", "weather", "-c", str(DEMO), "-r", "hybrid", "--embed-base-url", url, "--embed-model", "m"
    )  # fmt: skip
    assert result.code == 2
    [line] = result.stderr.strip().splitlines()
    assert "--embed-base-url must start with http:// or https://" in line
    assert "sk-url-secret-42" not in result.stdout + result.stderr


def test_simulate_with_a_dense_ranker_and_no_model_stops_with_one_line(run_cli, write):
    script = write("s.sim.yaml", SCRIPT)
    result = run_cli("simulate", str(script), "-c", str(DEMO), "--ranker", "hybrid")
    assert result.code == 2, result.stdout
    [line] = result.stderr.strip().splitlines()
    assert "--embed-model" in line and "Traceback" not in result.stderr


def test_simulate_with_a_failing_embeddings_endpoint_stops_with_one_line_and_no_key(run_cli, write, monkeypatch):
    pytest.importorskip("openai")
    from ..embed_server import EmbeddingServer

    secret = "sk-sim-very-secret-5150"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    script = write("s.sim.yaml", SCRIPT)
    with EmbeddingServer(load_local(str(STATIC))) as server:
        server.fail_with = (401, {"error": {"message": f"Incorrect API key provided: {secret}"}})
        result = run_cli(
            "simulate", str(script), "-c", str(DEMO), "--ranker", "embedding",
            "--embed-base-url", server.base_url, "--embed-model", "m", "--format", "json",
        )  # fmt: skip
    assert result.code == 2
    [line] = result.stderr.strip().splitlines()
    assert "401" in line and "OPENAI_API_KEY" in line
    assert secret not in result.stdout + result.stderr


def test_the_agent_api_raises_a_missing_model_to_the_app_instead_of_telling_the_llm(monkeypatch):
    search = ToolSearch(load_catalog([str(DEMO)]), ranker="hybrid")
    search.request([{"role": "user", "content": "is it raining in Paris"}])
    with pytest.raises(EmbedError):
        search.handle(search.search_tool_name, {"query": "rain in Paris today"})
    monkeypatch.setenv(MODEL_VAR, str(STATIC))  # configured (the library default), the same call answers
    handled = search.handle(search.search_tool_name, {"query": "rain in Paris today"})
    assert handled.ok and "getWeather" in handled.content


def test_eval_names_the_embedding_model_and_warns_when_the_baseline_used_another(run_cli, tmp_path):
    saved = tmp_path / "run.json"
    result = run_cli(
        "eval", "-c", str(DEMO), "-r", "default,hybrid", "--embed-model", str(STATIC), "--save", str(saved)
    )  # fmt: skip
    assert result.code == 0, result.stderr
    assert f"embeddings {STATIC}" in result.stdout
    doc = json.loads(saved.read_text(encoding="utf-8"))
    assert doc["embed_model"] == str(STATIC)
    same = run_cli("eval", "-c", str(DEMO), "-r", "hybrid", "--embed-model", str(STATIC), "--baseline", str(saved))
    assert same.code == 0 and "another embedding model" not in same.stderr
    doc["embed_model"] = "text-embedding-3-small @ https://api.example.com/v1"
    saved.write_text(json.dumps(doc), encoding="utf-8")
    other = run_cli("eval", "-c", str(DEMO), "-r", "hybrid", "--embed-model", str(STATIC), "--baseline", str(saved))
    assert other.code == 0, other.stderr
    assert "another embedding model" in other.stderr and "text-embedding-3-small" in other.stderr
    data = run_cli(
        "eval", "-c", str(DEMO), "-r", "hybrid", "--embed-model", str(STATIC), "--format", "json"
    ).json()  # fmt: skip
    assert data["embed_model"] == str(STATIC)


def test_eval_of_lexical_rankers_names_no_embedding_model(run_cli, tmp_path):
    saved = tmp_path / "run.json"
    result = run_cli("eval", "-c", str(DEMO), "-r", "default", "--embed-model", str(STATIC), "--save", str(saved))
    assert result.code == 0, result.stderr
    assert "embeddings" not in result.stdout
    assert "embed_model" not in json.loads(saved.read_text(encoding="utf-8"))


def test_search_names_the_embedding_model_of_a_dense_ranker_and_no_other(run_cli):
    table = run_cli("search", "weather in Paris", "-c", str(DEMO), "-r", "hybrid", "--embed-model", str(STATIC))
    assert table.code == 0, table.stderr
    assert f"ranker hybrid · embeddings {STATIC}" in table.stdout
    data = run_cli(
        "search", "weather in Paris", "-c", str(DEMO), "-r", "embedding", "--embed-model", str(STATIC), "-f", "json"
    ).json()  # fmt: skip
    assert data["embed_model"] == str(STATIC)
    lexical = run_cli("search", "weather in Paris", "-c", str(DEMO), "--embed-model", str(STATIC), "-f", "json")
    assert "embed_model" not in lexical.json()


def test_serve_dry_run_with_a_model_it_cannot_load_stops_with_one_line(run_cli, tmp_path):
    """`serve --dry-run -r hybrid --embed-model MISSING` said all was well (issue 19 audit)."""
    missing = tmp_path / "no-model"
    result = run_cli("serve", "-c", str(DEMO), "-r", "hybrid", "--embed-model", str(missing), "--dry-run")
    assert (result.code, result.stdout) == (2, "")
    [line] = result.stderr.strip().splitlines()
    assert line.startswith("error: field 'embed-model': ") and str(missing) in line


def test_serve_with_a_model_it_cannot_load_stops_before_serving(tmp_path):
    """It served, and every toolSearch came back as a JSON-RPC error; search and simulate stop at once."""
    import subprocess

    from ..conftest import TOOLSEARCH, clean_env

    missing = tmp_path / "no-model"
    done = subprocess.run(
        [*TOOLSEARCH, "serve", "-c", str(DEMO), "-r", "embedding", "--embed-model", str(missing)],
        stdin=subprocess.DEVNULL,  # a client that sends nothing: the server would end at EOF
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=60,
    )
    assert (done.returncode, done.stdout) == (2, "")
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("error: field 'embed-model': ") and str(missing) in line


def test_serve_dry_run_with_a_working_model_lists_as_before(run_cli):
    result = run_cli("serve", "-c", str(DEMO), "-r", "hybrid", "--embed-model", str(STATIC), "--dry-run")
    assert result.code == 0, result.stderr
    assert "toolSearch" in result.stdout


def test_eval_all_without_a_model_says_which_rankers_it_left_out(run_cli, write, monkeypatch):
    """`eval -r all` without a model ran default and classic and said nothing of the dense rankers, so a
    user comparing rankers never learnt that hybrid exists (issue 19 audit)."""
    monkeypatch.delenv(MODEL_VAR, raising=False)
    queries = write("q.yaml", "- id: a\n  query: will it rain in Paris tomorrow\n  relevant: [getWeather]\n")
    result = run_cli("eval", "-c", str(DEMO), "--queries", str(queries), "-r", "all")
    assert result.code == 0, result.stderr
    assert "hybrid" not in result.stdout  # left out, as before
    [line] = [x for x in result.stderr.splitlines() if "left out" in x]
    assert "hybrid, embedding, hybrid-rrf" in line and "--embed-model" in line
    with_model = run_cli("eval", "-c", str(DEMO), "--queries", str(queries), "-r", "all", "--embed-model", str(STATIC))
    assert with_model.code == 0, with_model.stderr
    assert "left out" not in with_model.stderr and "hybrid-rrf" in with_model.stdout
