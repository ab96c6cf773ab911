"""Many live MCP servers (issue 13.2, 13.6): started concurrently, one failing server is a
warning, the live-catalog cache (TTL, --refresh, JSON, no secrets), sanitised names."""

from __future__ import annotations

import json
import os
import shlex
import stat
import sys
import time

import pytest

from toolsearch_cli.catalog import live_cache, load_catalog_result
from toolsearch_cli.catalog.lenient import LoadSettings, loading
from toolsearch_cli.catalog.mcp_client import fetch_live_sources, tools_from_live
from toolsearch_cli.errors import CatalogError

from ..conftest import ROOT

pytest.importorskip("mcp", reason="the MCP SDK (extra toolsearch-cli[mcp]) is not installed")

WEATHER = ROOT / "tests" / "servers" / "weather_server.py"
PYTHON = shlex.quote(sys.executable)


@pytest.fixture
def counted(tmp_path):
    """A real server (tests/servers/weather_server.py) behind a wrapper that counts its starts."""
    counter = tmp_path / "starts.txt"
    wrapper = tmp_path / "counted_server.py"
    wrapper.write_text(
        "import runpy, sys\n"
        f"open({str(counter)!r}, 'a').write('start\\n')\n"
        f"sys.argv = [{str(WEATHER)!r}]\n"
        f"runpy.run_path({str(WEATHER)!r}, run_name='__main__')\n",
        encoding="utf-8",
    )

    def source(alias: str) -> str:
        return f"{alias}=mcp+stdio:{PYTHON} {shlex.quote(str(wrapper))}"

    def starts() -> int:
        return len(counter.read_text().splitlines()) if counter.exists() else 0

    return source, starts


@pytest.fixture(autouse=True)
def _own_cache_and_default_settings(tmp_path, monkeypatch):
    monkeypatch.setenv("TOOLSEARCH_CACHE_DIR", str(tmp_path / "cache"))
    yield


def test_several_servers_start_concurrently_and_one_failing_server_is_a_warning(run_cli, counted):
    source, starts = counted
    broken = f"down=mcp+stdio:{PYTHON} -c 'import sys; sys.exit(3)'"
    args = ["catalog", "-f", "json", "-c", source("a"), "-c", broken, "-c", source("b"), "-c", source("c")]
    result = run_cli(*args)
    assert result.code == 0, result.stderr
    names = [t["name"] for t in result.json()["tools"]]
    assert names[:4] == ["a__get_current_weather", "a__get_forecast", "a__create_weather_alert", "a__get_air_quality"]
    assert len(names) == 12 and not any(n.startswith("down__") for n in names)  # source order is kept
    assert starts() == 3
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 2 and lines[0].startswith("warning: mcp+stdio:") and "sys.exit(3)" in lines[0]
    assert lines[1].startswith("1 load warning: 1 MCP server that failed;")
    strict = run_cli("--strict", *args)
    assert strict.code == 2 and strict.stdout == "" and len(strict.stderr.strip().splitlines()) == 1
    # when every server fails, nothing is left: an error, as with one server
    alone = run_cli("catalog", "-c", broken, "-c", broken.replace("down=", "down2="))
    assert alone.code == 2 and "error:" in alone.stderr


def test_the_live_cache_serves_named_servers_within_the_ttl_and_refresh_asks_again(run_cli, counted):
    source, starts = counted
    args = ["-c", source("a"), "-c", source("b")]
    first = run_cli("--live-ttl", "10m", "search", "forecast", *args)
    assert first.code == 0 and "a__get_forecast" in first.stdout and starts() == 2
    warm = run_cli("search", "forecast", "--live-ttl", "10m", *args)  # also after the sub-command
    assert warm.stdout == first.stdout and starts() == 2  # no server started
    run_cli("search", "forecast", *args)  # no TTL: the cache is not used
    assert starts() == 4
    run_cli("search", "forecast", "--live-ttl=10m", "--refresh", *args)
    assert starts() == 6
    # another alias is another source: its server is started, never served another's entry
    run_cli("--live-ttl", "10m", "search", "forecast", "-c", source("c"), "-c", source("a"))
    assert starts() == 7
    # an entry older than the TTL is a miss
    entries = list(live_cache.folder().glob("*.json"))
    old = time.time() - 3600
    for entry in entries:
        data = json.loads(entry.read_text())
        data["fetched_at"] = old
        entry.write_text(json.dumps(data))
        os.utime(entry, (old, old))
    run_cli("--live-ttl", "30m", "search", "forecast", *args)
    assert starts() == 9
    os.environ["TOOLSEARCH_LIVE_TTL"] = "2h"
    try:
        run_cli("search", "forecast", *args)
    finally:
        del os.environ["TOOLSEARCH_LIVE_TTL"]
    assert starts() == 9


def test_live_cache_entries_are_private_json_without_credentials(tmp_path):
    source = "w=mcp+http://user:s3cret@127.0.0.1:1/mcp?token=t0ken"
    assert live_cache.store(source, "weather", [{"name": "a", "inputSchema": {"type": "object"}}])
    [entry] = live_cache.folder().glob("*.json")
    text = entry.read_text()
    assert "s3cret" not in text and "t0ken" not in text
    assert json.loads(text)["source"] == "w=mcp+http://***@127.0.0.1:1/mcp?…"
    assert stat.S_IMODE(entry.stat().st_mode) == 0o600
    assert stat.S_IMODE(live_cache.folder().stat().st_mode) == 0o700
    assert live_cache.load(source, 60) == ("weather", [{"name": "a", "inputSchema": {"type": "object"}}])
    entry.write_text("{damaged")
    assert live_cache.load(source, 60) is None


@pytest.mark.parametrize("text", ["10x", "-5", "nan", "inf", "", "m"])
def test_bad_ttl_is_a_usage_error(run_cli, text):
    result = run_cli("--live-ttl", text, "catalog")
    assert result.code == 2 and "live-catalog TTL" in result.stderr and len(result.stderr.splitlines()) == 1
    missing = run_cli("catalog", "--live-ttl")
    assert missing.code == 2 and "--live-ttl" in missing.stderr and len(missing.stderr.splitlines()) == 1


def test_ttl_units():
    assert [live_cache.parse_ttl(t) for t in ("90", "90s", "10m", "2h", "1d", "0")] == [90, 90, 600, 7200, 86400, 0]


def test_fetch_reports_each_server_on_its_own():
    good = f"mcp+stdio:{PYTHON} {shlex.quote(str(WEATHER))}"
    bad = "mcp+stdio:no-such-mcp-server-command-here"
    out = fetch_live_sources([good, bad], ttl=0, workers=2)
    assert isinstance(out[bad], CatalogError) and "cannot be started" in str(out[bad])
    server, tools = out[good]
    assert server == "weather" and len(tools) == 4


def test_sanitised_names_for_dots_and_long_prefixed_names():
    raw = [
        {"name": "admin.tools.list", "inputSchema": {"type": "object"}},
        {"name": "admin_tools_list", "inputSchema": {"type": "object"}},
        {"name": "x" * 60, "inputSchema": {"type": "object"}},
    ]
    source = "github-enterprise-server=mcp+stdio:server"
    plain = tools_from_live(source, None, raw, prefix=True).tools
    assert [t.name for t in plain][0] == "github-enterprise-server__admin.tools.list"
    with loading(LoadSettings(sanitize_names=True)):
        tools = tools_from_live(source, None, raw, prefix=True).tools
    names = [t.name for t in tools]
    assert names[0] == "github-enterprise-server__admin_tools_list"
    assert names[1] == "github-enterprise-server__admin_tools_list_2"  # made unique
    assert len(names[2]) == 64 and names[2].startswith("github-enterprise-server__xxx")
    assert all(len(n) <= 64 for n in names)
    # the server's own names stay known, to call the tools
    assert [t.metadata["mcp_server"]["tool"] for t in tools] == [r["name"] for r in raw]


def test_sanitise_names_option_on_a_real_server(run_cli, monkeypatch):
    # each server is started once: the next two commands read its listing from the live-catalog
    # cache (this test's own), and rename what they read as they would a fresh listing
    monkeypatch.setenv("TOOLSEARCH_LIVE_TTL", "1h")
    alias = "a" * 60
    source = f"{alias}=mcp+stdio:{PYTHON} {shlex.quote(str(WEATHER))}"
    other = f"b=mcp+stdio:{PYTHON} {shlex.quote(str(WEATHER))}"
    plain = run_cli("catalog", "-f", "json", "-c", source, "-c", other)
    assert any(len(t["name"]) > 64 for t in plain.json()["tools"])
    result = run_cli("--sanitize-names", "catalog", "-f", "json", "-c", source, "-c", other)
    names = [t["name"] for t in result.json()["tools"]]
    assert len(names) == 8 and len(set(names)) == 8 and all(len(n) <= 64 for n in names)
    converted = run_cli("--sanitize-names", "catalog", "convert", "--to", "anthropic", "-c", source, "-c", other)
    assert converted.code == 0, converted.stderr


def test_library_loads_use_their_own_arguments_not_the_last_command(run_cli, counted, write):
    source, _ = counted
    run_cli("--strict", "catalog", "-c", source("a"))
    path = write("t.yaml", "tools:\n  - name: a\n    parameters:\n      x: {type: float}\n")
    assert len(load_catalog_result(str(path)).warnings) == 1  # not strict: the CLI's options were for that command


def test_the_anthropic_name_limit_is_the_same_in_lint_and_convert(write, run_cli, monkeypatch, tmp_path):
    write("long.yaml", f"tools:\n  - name: {'a' * 65}\n    description: A tool with a long name.\n")
    monkeypatch.chdir(tmp_path)
    lint = run_cli("lint", "long.yaml", "--select", "TS101", "--format", "json")
    messages = [d["message"] for d in lint.json()]
    assert len(messages) == 1 and "anthropic allows at most 64 characters" in messages[0]
    convert = run_cli("catalog", "convert", "--to", "anthropic", "-c", "long.yaml")
    assert convert.code == 2 and "[A-Za-z0-9_-]{1,64}" in convert.stderr
    write("ok.yaml", f"tools:\n  - name: {'a' * 64}\n    description: A tool with a long name.\n")
    assert run_cli("lint", "ok.yaml", "--select", "TS101", "--format", "json").json() == []
    assert run_cli("catalog", "convert", "--to", "anthropic", "-c", "ok.yaml").code == 0


def test_lint_reads_servers_concurrently_and_reports_a_failing_one(run_cli, counted):
    source, starts = counted
    broken = f"down=mcp+stdio:{PYTHON} -c 'import sys; sys.exit(3)'"
    result = run_cli("lint", source("a"), broken, source("b"), "--select", "TS001,TS102", "--format", "json")
    found = result.json()
    assert starts() == 2
    assert [d["code"] for d in found] == ["TS001"] and "sys.exit(3)" in found[0]["filename"]


def test_a_ttl_too_large_to_hold_is_refused():
    from toolsearch_cli.errors import UsageError

    with pytest.raises(UsageError):
        live_cache.parse_ttl("1e308d")


def test_a_live_cache_folder_others_can_write_is_not_used(tmp_path):
    source = "w=mcp+stdio:server"
    assert live_cache.store(source, "weather", [{"name": "a"}])
    assert live_cache.load(source, 60) is not None
    live_cache.folder().chmod(0o777)
    try:
        assert live_cache.load(source, 60) is None  # an entry anyone could have written is never read
        assert not live_cache.store(source, "weather", [{"name": "b"}])
    finally:
        live_cache.folder().chmod(0o700)
