"""docs/how-to/gateway-config.md: every JSON example is read as the gateway reads it; the
registration examples run the gateway with the official ``mcp`` client; the error and log line
examples are what the gateway prints."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from toolsearch_cli.errors import UsageError
from toolsearch_cli.serve.config import ConfigFile, read_config, strip_jsonc
from toolsearch_cli.serve.ops import traffic_record

from ..serve_helpers import gateway_env

PAGE = Path(__file__).resolve().parents[2] / "docs" / "how-to" / "gateway-config.md"
BLOCK = re.compile(r'^```json(?: title="([^"]*)")?\n(.*?)^```', re.S | re.M)


def blocks() -> dict[str, str]:
    found = {(title or f"untitled-{i}"): body for i, (title, body) in enumerate(BLOCK.findall(PAGE.read_text()))}
    assert len(found) == 6, list(found)
    return found


REGISTRATIONS = ["claude_desktop_config.json", ".cursor/mcp.json", ".vscode/mcp.json"]


@pytest.mark.parametrize("title", [*REGISTRATIONS, "mcp.json (VS Code, HTTP)", "gateway.json"])
def test_every_client_config_example_is_valid(title):
    data = json.loads(strip_jsonc(blocks()[title]))
    ConfigFile.model_validate(data)  # the keys and types the gateway accepts


@pytest.mark.parametrize("title", REGISTRATIONS)
def test_registration_examples_run_the_gateway(title, tmp_path):
    """The entry as written, its command made this interpreter and its config a real one: the
    official client lists the gateway's tools through it."""
    if importlib.util.find_spec("mcp_server_time") is None:
        pytest.skip("mcp-server-time is not installed")
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    data = json.loads(strip_jsonc(blocks()[title]))
    (entry,) = (data.get("mcpServers") or data["servers"]).values()
    assert Path(entry["command"]).is_absolute()  # as the page says a GUI client needs
    args = entry["args"]
    assert args[:2] == ["serve", "--config"] and len(args) == 3
    config = tmp_path / "gateway.json"
    config.write_text(
        json.dumps({"mcpServers": {"time": {"command": sys.executable, "args": ["-m", "mcp_server_time"]}}})
    )
    env = {**gateway_env(), **{k: "value-from-the-client" for k in entry.get("env", {})}}

    async def listed() -> list[str]:
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "toolsearch_cli", "serve", "--config", str(config)], env=env
        )
        with open(tmp_path / "stderr.txt", "w") as errlog:
            async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=60) as client:
                return [t.name for t in (await client.list_tools()).tools]

    assert anyio.run(listed) == ["toolSearch", "callTool"]


def test_the_vscode_example_hands_its_input_to_the_gateway(tmp_path):
    data = json.loads(blocks()[".vscode/mcp.json"])
    entry = data["servers"]["toolsearch"]
    assert entry["env"] == {"TOOLSEARCH_INPUT_API_KEY": "${input:api-key}"}
    assert [i["id"] for i in data["inputs"]] == ["api-key"]
    config = tmp_path / "gateway.json"
    config.write_text(json.dumps({"servers": {"s": {"command": "run", "env": {"KEY": "${input:api-key}"}}}}))
    assert read_config(str(config), environ={"TOOLSEARCH_INPUT_API_KEY": "k-123"}).servers[0].env == {"KEY": "k-123"}


def test_the_gateway_config_example_reads_and_its_error_example_is_what_is_said(tmp_path):
    text = blocks()["gateway.json"]
    good = tmp_path / "gateway.json"
    good.write_text(text)
    config = read_config(str(good), environ={"GITHUB_TOKEN": "ghp_example_token", "DOCS_TOKEN": "docs-token-1"})
    assert [s.alias for s in config.servers] == ["time", "git", "github", "docs"]
    assert config.required_aliases == ["time", "git", "github"]
    # the page's error example: the same file with a rename no client accepts
    bad = tmp_path / "bad" / "gateway.json"
    bad.parent.mkdir()
    bad.write_text(text.replace('"rename": "repo_status"', '"rename": "repo status"'))
    with pytest.raises(UsageError) as caught:
        read_config(str(bad), environ={"GITHUB_TOKEN": "x", "DOCS_TOKEN": "y"})
    said = re.search(r"^error: gateway\.json:(.*)$", PAGE.read_text(), re.M)
    assert said is not None
    assert str(caught.value) == f"{bad}:{said.group(1)}"


def test_the_log_line_example_has_the_fields_a_call_record_gives():
    example = json.loads(blocks()["untitled-5"])
    record: dict[str, Any] = {
        "event": "call",
        "session": "4f0c2a9e1b7d",
        "after_search": 1,
        "tool": "get_current_time",
        "server": "time",
        "server_tool": "get_current_time",
        "via": "callTool",
        "rank": 1,
        "ok": True,
        "refused": None,
        "ms": 9.1,
        "upstream_ms": 6.3,
    }
    assert list(example)[1:] == list(traffic_record(record))
    assert {k: v for k, v in example.items() if k != "ts"} == traffic_record(record)
