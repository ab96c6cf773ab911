"""One settings object per run (issue 33): each command builds its settings from its options (then the
``TOOLSEARCH_*`` variables) and passes them down; nothing is set process-wide, so a command run
in-process leaves the library's defaults as they were, and two runs in one process do not meet."""

from __future__ import annotations

import pytest

from toolsearch_cli import load_catalog
from toolsearch_cli.errors import EmbedError
from toolsearch_cli.search import embed_settings, search
from toolsearch_cli.search.embed_settings import EmbedSettings
from toolsearch_cli.search_report import SearchSettings, run_search

from ..conftest import DATA, DEMO

STATIC = DATA / "minilm-static"


def test_a_command_leaves_the_library_default_as_it_was(run_cli):
    assert embed_settings.default_settings() == EmbedSettings()
    result = run_cli("search", "weather", "-c", str(DEMO), "--embed-weight", "0.3", "--embed-multilingual")
    assert result.code == 0, result.stderr
    # the old CLI called a process-wide configure(): the weight stayed set after the command
    assert embed_settings.default_settings() == EmbedSettings()


def test_the_options_reach_the_ranker_as_the_runs_own_settings(run_cli):
    pytest.importorskip("model2vec", reason="the static test model needs the embed extra (model2vec)")
    result = run_cli(
        "search", "weather", "-c", str(DEMO), "-r", "embedding", "--embed-model", str(STATIC), "-f", "json"
    )
    assert result.code == 0, result.stderr
    assert result.json()["embed_model"] == str(STATIC)
    # the command's model is its own: a library call afterwards has none
    with pytest.raises(EmbedError):
        search(load_catalog([str(DEMO)]), "weather", ranker="embedding")


def test_search_settings_carry_the_embedding_model():
    pytest.importorskip("model2vec", reason="the static test model needs the embed extra (model2vec)")
    one = EmbedSettings(model=str(STATIC), weight=0.25)
    report = run_search(SearchSettings("weather", [str(DEMO)], ranker="hybrid", embed=one))
    assert report.embed_model == f"{STATIC}, weight 0.25"
    assert report.hits and report.hits[0].tool.name == "getWeather"
    # the same query without settings: the library default, which names no model
    with pytest.raises(EmbedError):
        run_search(SearchSettings("weather", [str(DEMO)], ranker="hybrid"))


def test_a_variable_still_gives_an_option_its_default(run_cli, monkeypatch):
    monkeypatch.setenv("TOOLSEARCH_EMBED_WEIGHT", "heavy")
    result = run_cli("search", "weather", "-c", str(DEMO))
    assert result.code == 2
    assert "$TOOLSEARCH_EMBED_WEIGHT must be a number from 0 to 1" in result.stderr
    result = run_cli("search", "weather", "-c", str(DEMO), "--embed-weight", "2")
    assert result.code == 2 and "--embed-weight must be a number from 0 to 1" in result.stderr


def test_load_settings_hold_for_their_block_only():
    import threading

    from toolsearch_cli.catalog import lenient

    seen = {}

    def other_thread():
        seen["other"] = lenient.settings()

    with lenient.loading(lenient.LoadSettings(strict=True, live_ttl=60)) as chosen:
        assert lenient.settings() is chosen
        with lenient.loading(lenient.LoadSettings(sanitize_names=True)):
            assert lenient.settings().sanitize_names and not lenient.settings().strict
        assert lenient.settings() is chosen
        thread = threading.Thread(target=other_thread)
        thread.start()
        thread.join()
    # another thread (a library user's, a server's) never saw this block's settings: nothing was process-wide
    assert seen["other"] == lenient.LoadSettings()
    assert lenient.settings() == lenient.LoadSettings()


def test_the_global_options_hold_for_one_command(run_cli, tmp_path):
    from toolsearch_cli.catalog import lenient

    odd = tmp_path / "odd.yaml"
    odd.write_text("tools:\n  - name: when\n    description: A date.\n    parameters:\n      day: date\n")
    assert run_cli("--strict", "search", "date", "-c", str(odd)).code == 2  # the warning is an error
    assert lenient.settings() == lenient.LoadSettings()  # and the command's settings are gone with it
    result = run_cli("search", "date", "-c", str(odd))
    assert result.code == 0 and "warning" in result.stderr


def test_a_catalog_tells_its_own_listeners_only():
    import pickle

    from toolsearch_cli import Catalog, search

    from ..conftest import make

    one = Catalog(tools=[make("alpha", "first tool")])
    two = Catalog(tools=[make("beta", "second tool")])
    heard = []
    one.on_change(lambda catalog, added, removed: heard.append((catalog, [t.name for t in added])))
    two.add_tool(make("gamma", "third tool"))
    assert heard == []  # the old listeners were process-wide: every catalog's change reached them
    one.add_tool(make("delta", "fourth tool"))
    assert heard == [(one, ["delta"])]
    # the search indexes still follow a change made after they were built, and a pickled copy
    # carries no listener
    assert [h.tool.name for h in search(two, "third")] == ["gamma"]
    two.add_tool(make("epsilon", "fifth tool"))
    assert [h.tool.name for h in search(two, "fifth")] == ["epsilon"]
    assert pickle.loads(pickle.dumps(one)).__dict__["_listeners"] == []


def test_the_progress_reporter_and_the_search_store_are_the_runs_own():
    import threading

    from toolsearch_cli.search import hybrid

    seen = {}

    def other_thread():
        seen["reporter"] = embed_settings.progress_reporter()
        seen["store"] = hybrid._search_store()

    reporter = object()
    previous = embed_settings.set_progress(reporter)  # type: ignore[arg-type]
    try:
        with hybrid.searches_kept_on_disk():
            assert embed_settings.progress_reporter() is reporter and hybrid._search_store() == "searches"
            thread = threading.Thread(target=other_thread)
            thread.start()
            thread.join()
    finally:
        embed_settings.set_progress(previous)
    # a server's or an app's other thread searches as it would without the CLI's bar and store
    assert seen == {"reporter": None, "store": False}
    assert embed_settings.progress_reporter() is None and hybrid._search_store() is False


def test_a_command_reads_the_mcp_variables_once_and_only_when_it_asks_a_server(run_cli, monkeypatch):
    # the TOOLSEARCH_MCP_* variables become the command's McpSettings (LoadSettings.mcp) the first
    # time a live server is asked: a command without one is not stopped by a bad value, and a
    # command with several live servers reads the variables once, not once per server
    from toolsearch_cli import environment

    calls: list[int] = []
    real = environment.mcp_settings

    def counted() -> environment.McpSettings:
        calls.append(1)
        return real()

    monkeypatch.setattr(environment, "mcp_settings", counted)
    monkeypatch.setenv("TOOLSEARCH_MCP_TIMEOUT", "abc")
    assert run_cli("search", "weather", "-c", str(DEMO)).code == 0
    assert calls == []
    result = run_cli("catalog", "-c", "mcp+stdio:true", "-c", "mcp+stdio:false")
    assert (
        result.code == 2
        and result.stderr.strip() == "error: $TOOLSEARCH_MCP_TIMEOUT must be a number of seconds, not 'abc'"
    )
    monkeypatch.setenv("TOOLSEARCH_MCP_TIMEOUT", "5")
    calls.clear()
    result = run_cli("catalog", "-c", "mcp+stdio:true", "-c", "mcp+stdio:false")
    assert result.code == 2, result.stderr  # neither is an MCP server
    assert calls == [1]
