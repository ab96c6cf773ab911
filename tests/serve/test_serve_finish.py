"""Issue 34's last gaps: a ``required: false`` upstream that fails does not fail ``--dry-run``,
start-up warnings name an upstream by its alias (never its command line, which may carry a token),
registry tools are shown only when an upstream runs them (``--catalog-via``), and resources and
prompts obey the same context permissions as tools. The official ``mcp`` client against real
upstream servers (tests/servers)."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import anyio
import pytest

from ..serve_helpers import PYTHON, gateway_env, json_of

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

SECRET = "s3cr3t-token-in-an-argument"
SERVERS = Path(__file__).resolve().parents[1] / "servers"


def _config(tmp_path: Path, *, required: bool) -> Path:
    """A Claude Desktop config: a scripted server that lists, and one whose command (carrying a
    token in an argument) exits before listing; ``required`` is the failing one's."""
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps([{"name": "ping", "description": "Ping a host.", "inputSchema": {"type": "object"}}]))
    document = {
        "mcpServers": {
            "good": {"command": sys.executable, "args": [str(SERVERS / "scripted_server.py"), str(tools)]},
            "flaky": {"command": sys.executable, "args": ["-c", "import sys; sys.exit(3)", f"--token={SECRET}"]},
        },
        "toolsearch": {"servers": {"flaky": {"required": required}}},
    }
    path = tmp_path / "claude_desktop_config.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def test_dry_run_fails_only_for_a_required_upstream_and_names_it_by_alias(run_cli, tmp_path):
    pytest.importorskip("mcp", reason="the MCP SDK (extra toolsearch-cli[mcp]) is not installed")
    optional = run_cli("serve", "--config", str(_config(tmp_path, required=False)), "--dry-run", "--timeout", "20")
    assert optional.code == 0, optional.stdout + optional.stderr
    assert "warning: flaky: " in optional.stdout and "(not required)" in optional.stdout
    assert SECRET not in optional.stdout + optional.stderr and "sys.exit" not in optional.stdout
    required = run_cli("serve", "--config", str(_config(tmp_path, required=True)), "--dry-run", "--timeout", "20")
    assert required.code == 1 and "failed: flaky: " in required.stdout
    assert SECRET not in required.stdout + required.stderr
    report = run_cli("serve", "--config", str(_config(tmp_path, required=False)), "--dry-run", "-f", "json")
    assert report.code == 0 and report.json()["required_failed"] == [] and len(report.json()["failed"]) == 1


def test_start_up_warnings_name_an_upstream_by_its_alias_never_its_command(tmp_path):
    """The gateway started by the official client over stdio: the failing upstream's line says
    ``flaky``, and neither its command nor the token in its arguments."""
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    config = _config(tmp_path, required=False)
    errlog = tempfile.TemporaryFile(mode="w+", encoding="utf-8")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "toolsearch_cli", "serve", "--config", str(config), "--timeout", "20"],
        env=gateway_env(),
    )

    async def scenario() -> None:
        async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=60) as gateway:
            found = await gateway.call_tool("toolSearch", {"query": "ping a host"})
            assert [t["name"] for t in json_of(found)["tools"]] == ["ping"]

    anyio.run(scenario)
    errlog.seek(0)
    said = errlog.read()
    assert "warning: flaky: not ready" in said, said
    assert SECRET not in said and "sys.exit" not in said and PYTHON not in said, said
