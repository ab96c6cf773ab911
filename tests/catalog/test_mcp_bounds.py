"""What a live MCP server sends is bounded (issue 20 item 5): a long stdio line, a huge or endless
HTTP body, an endless event, a compressed body nobody asked for, endless pages, too many tools.
Each is one line naming the source, exit 2, read no further than the bound."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import time

import pytest

from toolsearch_cli.errors import CatalogError

from ..conftest import ROOT
from ..serve_helpers import free_port, wait_for_port

pytest.importorskip("mcp", reason="the MCP SDK (extra toolsearch-cli[mcp]) is not installed")

SERVER = ROOT / "tests" / "servers" / "hostile_server.py"
PYTHON = shlex.quote(sys.executable)
MB = 1024 * 1024


def stdio(*args: str) -> str:
    return f"mcp+stdio:{PYTHON} {shlex.quote(str(SERVER))} {' '.join(args)}"


@pytest.fixture
def http_server():
    """``start(MODE, SIZE)``: the hostile server over HTTP; its ``mcp+http://`` source."""
    started: list[subprocess.Popen] = []

    def start(*args: str) -> str:
        port = free_port()
        process = subprocess.Popen([sys.executable, str(SERVER), *args, "--http", str(port)])
        started.append(process)
        wait_for_port(port, process, "the hostile HTTP server")
        return f"mcp+http://127.0.0.1:{port}/mcp"

    yield start
    for process in started:
        process.kill()
        process.wait()


def refused(result, source: str, what: str) -> None:
    """One error line naming the source and saying ``what``; exit 2; no traceback."""
    assert result.code == 2, result.stdout
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {source}: the MCP server "), result.stderr
    assert what in lines[0], lines[0]
    assert "Traceback" not in result.stderr


TOO_BIG = "sent a message larger than the 1 MB a message may be ($TOOLSEARCH_MCP_MAX_MESSAGE_SIZE)"


@pytest.fixture
def one_mb(monkeypatch):
    monkeypatch.setenv("TOOLSEARCH_MCP_MAX_MESSAGE_SIZE", "1MB")
    monkeypatch.setenv("TOOLSEARCH_MCP_TIMEOUT", "120")  # a bound reached is an error long before this


@pytest.mark.parametrize("size", [str(40 * MB), "0"], ids=["40MB-line", "endless-line"])
def test_a_stdio_line_over_the_bound_is_refused_as_it_arrives(run_cli, one_mb, size):
    source = stdio("longline", size)
    refused(run_cli("catalog", "-c", source), source, TOO_BIG)


@pytest.mark.parametrize("size", [str(40 * MB), "0"], ids=["40MB-body", "endless-body"])
def test_an_http_body_over_the_bound_is_refused_as_it_arrives(run_cli, one_mb, http_server, size):
    source = http_server("longline", size)
    refused(run_cli("catalog", "-c", source), source, TOO_BIG)


def test_an_endless_server_sent_event_is_refused_at_the_same_bound(run_cli, one_mb, http_server):
    source = http_server("sse", "0")
    refused(run_cli("catalog", "-c", source), source, TOO_BIG)


def test_a_compressed_body_nobody_asked_for_is_refused(run_cli, http_server):
    source = http_server("gzip")  # a gzip bomb's 16 MB could be 16 GB once decoded
    refused(run_cli("catalog", "-c", source), source, "sent a compressed body though none was asked for")


def test_a_listing_within_the_bound_loads_and_the_bound_is_configurable(run_cli, monkeypatch):
    source = stdio("many", "3000")  # a 280 KB page
    monkeypatch.setenv("TOOLSEARCH_MCP_MAX_MESSAGE_SIZE", "200KB")
    refused(run_cli("catalog", "-c", source), source, "larger than the 200 KB a message may be")
    monkeypatch.setenv("TOOLSEARCH_MCP_MAX_MESSAGE_SIZE", "300KB")
    result = run_cli("catalog", "-c", source, "-f", "json")
    assert result.code == 0, result.stderr
    assert "tool_2999" in result.stdout


def test_too_many_tools_is_an_error_naming_the_setting(run_cli, monkeypatch):
    source = stdio("many", "5000")
    monkeypatch.setenv("TOOLSEARCH_MCP_MAX_TOOLS", "1000")
    refused(
        run_cli("catalog", "-c", source),
        source,
        "listed more than 1,000 tools in tools/list (set $TOOLSEARCH_MCP_MAX_TOOLS to allow more)",
    )


def test_endless_pages_with_new_cursors_end_at_the_tool_bound(run_cli, monkeypatch):
    source = stdio("pages")  # one tool and a new cursor per page, forever
    monkeypatch.setenv("TOOLSEARCH_MCP_MAX_TOOLS", "50")
    refused(run_cli("catalog", "-c", source), source, "listed more than 50 tools")


def test_endless_pages_end_at_the_byte_bound_of_a_whole_listing(run_cli, monkeypatch):
    from toolsearch_cli.catalog import mcp_transport

    # the real bound is what a catalog file may be (64 MB): the same code path, smaller
    monkeypatch.setattr(mcp_transport, "MAX_INPUT_BYTES", 4000)
    monkeypatch.setenv("TOOLSEARCH_MCP_MAX_MESSAGE_SIZE", "1KB")
    source = stdio("pages")
    refused(run_cli("catalog", "-c", source), source, "sent more than 4,000 bytes of tools/list pages")


@pytest.mark.parametrize(
    ("variable", "value", "said"),
    [
        ("TOOLSEARCH_MCP_MAX_MESSAGE_SIZE", "lots", "$TOOLSEARCH_MCP_MAX_MESSAGE_SIZE takes a size such as 4MB"),
        ("TOOLSEARCH_MCP_MAX_MESSAGE_SIZE", "0", "$TOOLSEARCH_MCP_MAX_MESSAGE_SIZE takes a size such as 4MB"),
        ("TOOLSEARCH_MCP_MAX_TOOLS", "-3", "$TOOLSEARCH_MCP_MAX_TOOLS must be a whole number of at least 1"),
    ],
)
def test_a_bad_bound_setting_is_one_line(run_cli, monkeypatch, variable, value, said):
    monkeypatch.setenv(variable, value)
    result = run_cli("catalog", "-c", stdio("many", "3"))
    assert result.code == 2 and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert said in result.stderr


MEASURE = """
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)
print(done.stderr.strip())
"""


def test_an_endless_http_body_stays_within_memory_at_the_default_bound(http_server):
    # before the bound: 2.2 GB read in 60 s, then a timeout; now the default 16 MB ends it
    source = http_server("longline", "0")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TOOLSEARCH_MCP_TIMEOUT": "600"}
    env.pop("TOOLSEARCH_MCP_MAX_MESSAGE_SIZE", None)
    command = [sys.executable, "-m", "toolsearch_cli", "catalog", "-c", source]
    out = subprocess.run(
        [sys.executable, "-c", MEASURE, *command], capture_output=True, text=True, env=env, cwd=ROOT, check=True
    ).stdout.splitlines()
    code, peak_mb = map(int, out[0].split())
    assert code == 2 and "larger than the 16 MB a message may be" in out[1], out
    assert peak_mb < 400, f"peak {peak_mb} MB"


# ---- endless small messages and trickles: bounded per exchange, and by time


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_endless_small_messages_end_at_the_message_bound(run_cli, monkeypatch, http_server, transport):
    # progress and log notifications, pings, (stdio) answers to ids nobody sent, (HTTP) comments:
    # before the bound, only the timeout ended them, and over stdio memory grew to 1 GB in 60 s
    monkeypatch.setenv("TOOLSEARCH_MCP_MAX_MESSAGES", "200")
    monkeypatch.setenv("TOOLSEARCH_MCP_TIMEOUT", "120")
    source = stdio("chatter", "0") if transport == "stdio" else http_server("chatter", "0")
    what = "messages" if transport == "stdio" else "events"
    said = f"sent more than 200 {what} ($TOOLSEARCH_MCP_MAX_MESSAGES) without the answer a request waited for"
    started = time.monotonic()
    refused(run_cli("catalog", "-c", source), source, said)
    assert time.monotonic() - started < 100  # the bound, not the timeout


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_endless_small_messages_end_at_the_byte_bound_of_an_exchange(run_cli, monkeypatch, http_server, transport):
    monkeypatch.setenv("TOOLSEARCH_MCP_MAX_EXCHANGE_SIZE", "20KB")
    monkeypatch.setenv("TOOLSEARCH_MCP_TIMEOUT", "120")
    source = stdio("chatter", "0") if transport == "stdio" else http_server("chatter", "0")
    said = "sent more than 20 KB ($TOOLSEARCH_MCP_MAX_EXCHANGE_SIZE) without the answer a request waited for"
    refused(run_cli("catalog", "-c", source), source, said)


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_small_messages_within_the_bound_then_the_answer_load(run_cli, monkeypatch, http_server, transport):
    source = stdio("chatter", "60") if transport == "stdio" else http_server("chatter", "60")
    monkeypatch.setenv("TOOLSEARCH_MCP_MAX_MESSAGES", "150")  # 60 messages (HTTP: and 60 comments)
    result = run_cli("catalog", "-c", source, "-f", "json")
    assert result.code == 0, result.stderr
    assert '"dump"' in result.stdout
    monkeypatch.setenv("TOOLSEARCH_MCP_MAX_MESSAGES", "40")  # the same answer, under a tighter bound
    refused(run_cli("catalog", "-c", source), source, "sent more than 40 ")


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_trickled_answer_ends_at_the_timeout_saying_how_much_came(run_cli, monkeypatch, http_server, transport):
    # a byte every 50 ms never reaches a size bound: the total deadline ends it, and says so
    # (4 s: starting the server, stdlib-only, and the handshake must fit before it, even on a loaded
    # machine; the whole suite waits for it twice)
    monkeypatch.setenv("TOOLSEARCH_MCP_TIMEOUT", "4")
    source = stdio("trickle", "0") if transport == "stdio" else http_server("trickle", "0")
    started = time.monotonic()
    result = run_cli("catalog", "-c", source)
    refused(result, source, "did not list its tools within 4 s (set $TOOLSEARCH_MCP_TIMEOUT to wait longer)")
    assert "; it was still sending a message, " in result.stderr and " bytes of it so far" in result.stderr
    assert time.monotonic() - started < 60


@pytest.mark.parametrize(
    ("variable", "value", "said"),
    [
        ("TOOLSEARCH_MCP_MAX_MESSAGES", "0", "$TOOLSEARCH_MCP_MAX_MESSAGES must be a whole number of at least 1"),
        ("TOOLSEARCH_MCP_MAX_EXCHANGE_SIZE", "x", "$TOOLSEARCH_MCP_MAX_EXCHANGE_SIZE takes a size such as 4MB"),
    ],
)
def test_a_bad_exchange_bound_setting_is_one_line(run_cli, monkeypatch, variable, value, said):
    monkeypatch.setenv(variable, value)
    result = run_cli("catalog", "-c", stdio("many", "3"))
    assert result.code == 2 and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert said in result.stderr


def test_endless_small_messages_stay_within_memory_at_the_default_bound():
    # before the bound: 60 s, then a timeout, 1,070 MB peak; now the default 10,000 messages end it
    source = stdio("chatter", "0")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TOOLSEARCH_MCP_TIMEOUT": "600"}
    for name in ("TOOLSEARCH_MCP_MAX_MESSAGES", "TOOLSEARCH_MCP_MAX_EXCHANGE_SIZE"):
        env.pop(name, None)
    command = [sys.executable, "-m", "toolsearch_cli", "catalog", "-c", source]
    out = subprocess.run(
        [sys.executable, "-c", MEASURE, *command], capture_output=True, text=True, env=env, cwd=ROOT, check=True
    ).stdout.splitlines()
    code, peak_mb = map(int, out[0].split())
    assert code == 2 and "sent more than 10,000 messages ($TOOLSEARCH_MCP_MAX_MESSAGES)" in out[1], out
    assert peak_mb < 400, f"peak {peak_mb} MB"


def test_each_run_reads_its_own_mcp_settings_not_the_environment(monkeypatch):
    # issue 33 item 2: the MCP client reads the run's settings object (the CLI builds it once from
    # the variables); two runs in one process with different objects each keep their own bound,
    # and the environment, set to something else, is not read by either
    from toolsearch_cli.catalog.lenient import LoadSettings, loading
    from toolsearch_cli.catalog.mcp_client import fetch_live_sources
    from toolsearch_cli.environment import McpSettings

    monkeypatch.setenv("TOOLSEARCH_MCP_MAX_TOOLS", "not a number")  # read: an error
    monkeypatch.setenv("TOOLSEARCH_MCP_TIMEOUT", "not a number")
    source = stdio("many", "30")
    with loading(LoadSettings(mcp=McpSettings(max_tools=10))):
        tight = fetch_live_sources([source])[source]
    with loading(LoadSettings(mcp=McpSettings(max_tools=100))):
        roomy = fetch_live_sources([source])[source]
    assert isinstance(tight, CatalogError) and "listed more than 10 tools" in str(tight), tight
    assert not isinstance(roomy, CatalogError), roomy
    assert len(roomy[1]) == 30


def test_outside_a_run_the_library_reads_the_variables_when_asked(monkeypatch):
    from toolsearch_cli.catalog.lenient import mcp_settings

    monkeypatch.setenv("TOOLSEARCH_MCP_TIMEOUT", "7.5")
    monkeypatch.setenv("TOOLSEARCH_MCP_CONCURRENCY", "3")
    chosen = mcp_settings()
    assert (chosen.timeout, chosen.concurrency) == (7.5, 3)
    monkeypatch.setenv("TOOLSEARCH_MCP_TIMEOUT", "-1")
    with pytest.raises(CatalogError, match=r"^\$TOOLSEARCH_MCP_TIMEOUT must be positive"):
        mcp_settings()
