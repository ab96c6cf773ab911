"""Live MCP servers as catalogs: real servers from tests/servers/, over stdio and streamable HTTP."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import time

import pytest

from toolsearch_cli.catalog import load_catalog
from toolsearch_cli.catalog.sources import is_live_source, parse_live_source, shown_source, split_env_sources

from ..conftest import ROOT
from ..security.test_process_safety import _alive
from ..serve_helpers import free_port, wait_for_port

pytest.importorskip("mcp", reason="the MCP SDK (extra toolsearch-cli[mcp]) is not installed")

SERVERS = ROOT / "tests" / "servers"
PYTHON = shlex.quote(sys.executable)


def stdio(script: str, *args: str, alias: str | None = None) -> str:
    command = " ".join([PYTHON, shlex.quote(str(SERVERS / script)), *args])
    return f"{alias}=mcp+stdio:{command}" if alias else f"mcp+stdio:{command}"


def start_http_server(*extra: str):
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, str(SERVERS / "weather_server.py"), "--http", str(port), *extra],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, process, "the HTTP MCP test server")
        yield f"mcp+http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture(scope="module")
def http_url():
    yield from start_http_server()


@pytest.fixture(scope="module")
def guarded_url():
    yield from start_http_server("--token", "s3cret-t0ken")


def test_source_syntax():
    assert is_live_source("mcp+stdio:python server.py") and is_live_source("w=mcp+http://h/mcp")
    assert not is_live_source("catalogs/demo") and not is_live_source("mcp.yaml")
    live = parse_live_source("weather=mcp+stdio:python 'my server.py' --flag")
    assert (live.alias, live.command, live.display) == (
        "weather",
        ["python", "my server.py", "--flag"],
        "mcp+stdio:python 'my server.py' --flag",
    )


def test_env_var_sources_keep_mcp_sources_whole():
    value = "catalogs/demo:w=mcp+stdio:python x.py --a:mcp+http://127.0.0.1:8000/mcp:b.yaml:mcp+https://h.example/mcp"
    assert split_env_sources(value, ":") == [
        "catalogs/demo",
        "w=mcp+stdio:python x.py --a",
        "mcp+http://127.0.0.1:8000/mcp",
        "b.yaml",
        "mcp+https://h.example/mcp",
    ]


def test_credentials_in_urls_are_never_shown():
    assert shown_source("s=mcp+https://user:pw@h.example/mcp?api_key=k") == "s=mcp+https://***@h.example/mcp?…"
    assert shown_source("catalogs/demo") == "catalogs/demo"


def test_search_a_stdio_server(run_cli):
    result = run_cli(
        "search", "weather forecast for the next days", "--catalog", stdio("weather_server.py"), "-f", "json"
    )
    assert result.code == 0, result.stderr
    hits = result.json()["hits"]
    assert hits[0]["name"] == "get_forecast" and hits[0]["category"] == "forecast"
    assert {h["name"] for h in hits} >= {"get_current_weather", "get_forecast"}
    assert result.stderr == ""  # the server's own logging stays out of our output


@pytest.fixture
def listed_once(tmp_path, monkeypatch):
    """The server is started once: the test's next commands read its listing from the live-catalog
    cache (a folder of the test) and do with it what they do with a fresh one."""
    monkeypatch.setenv("TOOLSEARCH_CACHE_DIR", str(tmp_path / "catalog-cache"))
    monkeypatch.setenv("TOOLSEARCH_LIVE_TTL", "1h")


def test_catalog_of_a_stdio_server_keeps_categories_nested_schemas_and_mcp_fields(run_cli, tmp_path, listed_once):
    source = stdio("weather_server.py")
    listing = run_cli("catalog", "-c", source, "-f", "json")
    assert listing.code == 0, listing.stderr
    tools = {t["name"]: t for t in listing.json()["tools"]}
    assert set(tools) == {"get_current_weather", "get_forecast", "create_weather_alert", "get_air_quality"}
    assert tools["create_weather_alert"]["category"] == "alerts"
    assert tools["get_air_quality"]["category"] == "weather"  # no category of its own: the server's name
    assert tools["get_current_weather"]["tags"] == ["weather", "temperature", "天气"]
    assert tools["create_weather_alert"]["parameters"] >= 6  # location.* and thresholds[].* counted

    out = tmp_path / "weather.json"
    assert run_cli("catalog", "convert", "--to", "mcp", "-c", source, "-o", str(out)).code == 0
    saved = load_catalog(str(out))
    current = saved.get("get_current_weather")
    assert current.metadata["mcp"]["title"] == "Current weather"
    assert current.metadata["mcp"]["annotations"] == {"readOnlyHint": True, "openWorldHint": True}
    assert current.examples == ["what's the weather in Paris"]
    alert = saved.get("create_weather_alert").parameters
    assert alert["properties"]["thresholds"]["items"] == {"$ref": "#/$defs/Threshold"}
    assert alert["$defs"]["Threshold"]["properties"]["metric"]["enum"] == ["temperature", "wind", "rain"]
    assert alert["required"] == ["location", "thresholds", "notify_email"]


def test_streamable_http_server(run_cli, http_url):
    result = run_cli("search", "storm alert", "-c", http_url, "-f", "json", "-n", "1")
    assert result.code == 0, result.stderr
    assert result.json()["hits"][0]["name"] == "create_weather_alert"
    assert run_cli("catalog", "-c", http_url, "-f", "json").json()["sources"] == [http_url]


def test_several_servers_get_alias_prefixes_and_alias_categories(http_url):
    catalog = load_catalog([f"sky={http_url}", stdio("paged_server.py", "4", alias="stock")])
    assert sorted(catalog.names) == sorted(
        ["sky__get_current_weather", "sky__get_forecast", "sky__create_weather_alert", "sky__get_air_quality"]
        + [f"stock__inventory_tool_{i}" for i in range(4)]
    )
    air = catalog.get("sky__get_air_quality")
    assert air.category == "sky" and air.metadata["mcp_server"] == {"name": "sky", "tool": "get_air_quality"}
    assert catalog.get("sky__get_forecast").category == "forecast"  # its own category wins
    assert catalog.get("stock__inventory_tool_0").category == "stock"


def test_tools_list_pagination_is_followed(run_cli, monkeypatch):
    # through $TOOLSEARCH_CATALOG, whose ':' separator must not cut the source apart
    monkeypatch.setenv("TOOLSEARCH_CATALOG", stdio("paged_server.py", "8") + ":" + str(ROOT / "catalogs" / "demo"))
    from toolsearch_cli.catalog import default_sources

    assert len(default_sources()) == 2
    catalog = load_catalog()
    assert [n for n in catalog.names if n.startswith("inventory")] == [f"inventory_tool_{i}" for i in range(8)]
    assert len(catalog) == 8 + 64


def test_a_cursor_that_repeats_is_invalid_data(run_cli):
    result = run_cli("catalog", "-c", stdio("paged_server.py", "8", "--loop"))
    assert result.code == 2 and "returned invalid data: tools/list returned the cursor 'again' twice" in result.stderr


def test_http_headers_from_the_environment_and_secrets_stay_hidden(run_cli, guarded_url, monkeypatch):
    refused = run_cli("catalog", "-c", guarded_url)
    assert refused.code == 2 and "TOOLSEARCH_MCP_HEADERS" in refused.stderr
    monkeypatch.setenv("TOOLSEARCH_MCP_HEADERS", "Authorization: Bearer wrong-t0ken")
    wrong = run_cli("catalog", "-c", guarded_url + "?key=k3y")
    assert wrong.code == 2 and "wrong-t0ken" not in wrong.stderr and "k3y" not in wrong.stderr
    monkeypatch.setenv("TOOLSEARCH_MCP_HEADERS", "Authorization: Bearer s3cret-t0ken")
    allowed = run_cli("search", "storm alert", "-c", guarded_url, "-n", "1")
    assert allowed.code == 0 and "create_weather_alert" in allowed.stdout
    assert "s3cret" not in allowed.stdout + allowed.stderr
    monkeypatch.setenv("TOOLSEARCH_MCP_HEADERS", "not a header line")
    bad = run_cli("catalog", "-c", guarded_url)
    assert bad.code == 2 and "line 1 is not 'Name: value'" in bad.stderr


def test_a_server_that_crashes_on_start_is_one_line_naming_the_command(run_cli):
    source = stdio("crashing_server.py")
    result = run_cli("search", "weather", "-c", source)
    assert result.code == 2 and result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"error: {source}: the MCP server exited")
    assert "RuntimeError: cannot open /etc/weather.toml" in lines[0]


def test_missing_command_and_timeout(run_cli, monkeypatch, tmp_path):
    missing = run_cli("catalog", "-c", "mcp+stdio:no-such-mcp-server-command --port 1")
    assert (
        missing.code == 2 and "cannot be started" in missing.stderr and "no-such-mcp-server-command" in missing.stderr
    )
    monkeypatch.setenv("TOOLSEARCH_MCP_TIMEOUT", "1")
    # a server that never says a word and never exits by itself (an hour), even when its stdin closes
    pidfile = tmp_path / "silent.pid"
    script = tmp_path / "silent.py"
    script.write_text(f"import os, time\nopen({str(pidfile)!r}, 'w').write(str(os.getpid()))\ntime.sleep(3600)\n")
    result = run_cli("catalog", "-c", f"mcp+stdio:{PYTHON} {shlex.quote(str(script))}")
    assert result.code == 2 and "did not list its tools within 1 s" in result.stderr
    # the run came back (it did not wait out the hour) and the server is gone: stopped, not waited for
    # (how long stopping takes is measured by benchmarks/timeouts.py, not asserted here)
    written = pidfile.read_text() if pidfile.exists() else ""
    if written:  # else it was stopped before its first line ran (or between its open and its write)
        pid = int(written)
        # stopped: SIGTERM, and SIGKILL 1 s later if need be; a loaded machine may take a moment to
        # carry the kill out, so it is given one (a server left running fails: it sleeps an hour)
        deadline = time.monotonic() + 30
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(pid), f"the silent server {pid} is still running"


def test_a_server_writing_garbage_returns_invalid_data(run_cli):
    result = run_cli("catalog", "-c", f"mcp+stdio:{PYTHON} -c 'print(\"hello\")'")
    assert result.code == 2 and len(result.stderr.strip().splitlines()) == 1
    assert "returned invalid data" in result.stderr and "Traceback" not in result.stderr


def test_unreachable_http_server(run_cli):
    url = f"mcp+http://127.0.0.1:{free_port()}/mcp"
    result = run_cli("catalog", "-c", url)
    assert result.code == 2 and f"error: {url}: the MCP server cannot be reached" in result.stderr


def test_without_the_extra_the_error_says_what_to_install(run_cli, monkeypatch):
    monkeypatch.setitem(sys.modules, "mcp", None)
    result = run_cli("catalog", "-c", "mcp+stdio:python server.py")
    assert result.code == 2 and "pip install 'toolsearch-cli[mcp]'" in result.stderr


def test_the_catalog_commands_do_not_import_the_sdk_for_files():
    code = (
        "import sys; from toolsearch_cli.catalog import load_catalog; "
        "load_catalog('catalogs/demo'); print('mcp' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert json.loads(out.stdout.strip().lower()) is False


def test_lint_reads_a_live_server_too(run_cli):
    source = stdio("weather_server.py")
    result = run_cli("lint", source, "--extend-select", "TS301")  # opt-in since the precision judgements
    assert result.code in (0, 1), result.stderr
    assert "checked 4 tools in 1 file" in result.stdout
    assert "tool 'get_air_quality': parameter 'city' has no description" in result.stdout


# --- a server whose listing has bad tools (issue 20): the good ones load -------------------------


def test_bad_tools_of_a_live_server_are_one_line_warnings_and_the_rest_loads(run_cli, listed_once):
    """The SDK refuses a listing as a whole when one tool is invalid (GitLab's server has no
    'type' in its schemas): toolsearch checks each tool, keeps the good ones, and says which
    tool and field each bad one failed on, on one short line."""
    source = stdio("untyped_server.py")
    result = run_cli("catalog", "-c", source, "-f", "json")
    assert result.code == 0
    listed = json.loads(result.stdout)
    # tools of both pages; the unnamed one, the list schema, the number description, the
    # string-typed schema and the second 'get_issue' are left out
    assert [t["name"] for t in listed["tools"]] == [
        "get_issue",
        "create_merge_request",
        "list_branches",
        "fork_repository",
    ]
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 6 and all(len(line) <= 300 for line in warnings)
    expected = [
        "tool 'list_pipelines', field '/tools/2/inputSchema': the parameters must be a JSON Schema mapping",
        "field '/tools/3/name': a tool needs a non-empty string name",
        "tool 'get_issue', field '/tools/4/name': duplicate tool name (first at /tools/0)",
        "tool 'search_code', field '/tools/5/description': the description must be a string",
        "tool 'fork_repository', field '/tools/7/inputSchema': the parameters schema has no 'type'; read as type",
        "tool 'bad_type', field '/tools/8/inputSchema/type': the parameters schema must have type 'object'",
    ]
    for line, text in zip(warnings, expected, strict=True):
        assert text in line, line
    assert "5 invalid tools of live MCP servers left out, 1 parameters schema without a type" in result.stderr
    assert {w["kind"] for w in listed["warnings"]} == {"invalid", "schema"}
    # the tools that load search as any other
    found = run_cli("search", "open a merge request", "-c", source, "-n", "1", "-f", "json")
    assert found.code == 0 and '"create_merge_request"' in found.stdout


def test_strict_refuses_a_live_server_with_a_bad_tool_on_one_line(run_cli):
    result = run_cli("--strict", "catalog", "-c", stdio("untyped_server.py"))
    assert result.code == 2 and result.stdout == ""
    assert result.stderr.strip().splitlines() == [
        f"error: mcp+stdio:{stdio('untyped_server.py')[len('mcp+stdio:') :]}: tool 'list_pipelines', "
        "field '/tools/2/inputSchema': the parameters must be a JSON Schema mapping, not a list"
    ]


def test_a_listing_the_sdk_refuses_whole_is_one_short_line(run_cli):
    """'tools' that is not a list: the SDK's pydantic error (2 KB for GitLab's listing before) is
    cut to its first problem."""
    result = run_cli("catalog", "-c", stdio("untyped_server.py", "--not-a-list"))
    assert result.code == 2 and result.stdout == ""
    [line] = result.stderr.strip().splitlines()
    assert len(line) <= 300 + len(str(SERVERS))
    assert line.endswith("the MCP server failed: invalid answer at tools: Input should be a valid list")


def test_bad_tools_read_from_the_live_cache_are_warned_about_again(run_cli, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("TOOLSEARCH_CACHE_DIR", str(tmp_path / "cache"))
    first = run_cli("--live-ttl", "10m", "catalog", "-c", stdio("untyped_server.py"), "-f", "json")
    assert [p for p in (tmp_path / "cache").rglob("*") if p.is_file()]  # the listing as sent, cached
    again = run_cli("--live-ttl", "10m", "catalog", "-c", stdio("untyped_server.py"), "-f", "json")
    assert first.code == again.code == 0
    assert json.loads(first.stdout)["tools"] == json.loads(again.stdout)["tools"]
    assert first.stderr == again.stderr and first.stderr.count("warning:") == 6
