"""``toolsearch serve --config``: client configs read as they are, checked with one-line errors
naming file:line and the field, substitutions, secrets never printed; and the operator's policy
(hide, allow-list, rename, describe, aliases, pinned, requires) applied to an upstream's tools."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from toolsearch_cli.errors import UsageError
from toolsearch_cli.model import Tool
from toolsearch_cli.serve.config import input_variable, merge_options, read_config, strip_jsonc
from toolsearch_cli.serve.gateway import Route
from toolsearch_cli.serve.policy import merged_requires

SECRET = "sk-live-abcdef123456"


def write(tmp_path: Path, text: str, name: str = "config.json") -> str:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return str(path)


def error_of(path: str, environ: dict[str, str] | None = None) -> str:
    with pytest.raises(UsageError) as caught:
        read_config(path, environ=environ if environ is not None else {})
    text = str(caught.value)
    assert "\n" not in text
    return text


CLAUDE = f"""{{
  "globalShortcut": "Ctrl+Space",
  "mcpServers": {{
    "time": {{"command": "uvx", "args": ["mcp-server-time", "--local-timezone=UTC"]}},
    "github.com/acme": {{"command": "npx", "args": ["-y", "@acme/server"], "env": {{"ACME_TOKEN": "{SECRET}"}}}},
    "remote": {{"url": "https://mcp.example.com/mcp", "headers": {{"Authorization": "Bearer {SECRET}"}}}},
    "off": {{"command": "nothing", "disabled": true}}
  }}
}}
"""


def test_claude_desktop_config_as_it_is(tmp_path):
    config = read_config(write(tmp_path, CLAUDE), environ={})
    assert [s.name for s in config.servers] == ["time", "github.com/acme", "remote"]
    assert config.disabled == ["off"]
    time_server, acme, remote = config.servers
    assert time_server.source == "time=mcp+stdio:uvx mcp-server-time --local-timezone=UTC"
    assert acme.alias == "github_com_acme" and acme.env == {"ACME_TOKEN": SECRET}
    assert acme.source == "github_com_acme=mcp+stdio:npx -y @acme/server"  # no env value in the source text
    assert remote.transport == "http" and remote.source == "remote=mcp+https://mcp.example.com/mcp"
    assert remote.headers == {"Authorization": f"Bearer {SECRET}"}
    assert SECRET not in repr(config.servers)  # env and headers are left out of every repr
    assert config.required_aliases == ["time", "github_com_acme", "remote"]


def test_vscode_servers_with_type_inputs_comments_and_trailing_commas(tmp_path):
    text = """{
  // VS Code writes JSON with comments
  "inputs": [
    {"type": "promptString", "id": "api-key", "description": "API key", "password": true},
  ],
  "servers": {
    "fetch": {"type": "stdio", "command": "uvx", "args": ["mcp-server-fetch"], "env": {"KEY": "${input:api-key}"}},
    /* an HTTP one */
    "docs": {"type": "http", "url": "https://docs.example.com/mcp", "headers": {"X-Home": "${userHome}"},},
  },
}
"""
    path = write(tmp_path, text)
    config = read_config(path, environ={input_variable("api-key"): SECRET})
    fetch, docs = config.servers
    assert fetch.env == {"KEY": SECRET} and docs.headers == {"X-Home": str(Path.home())}
    assert input_variable("api-key") == "TOOLSEARCH_INPUT_API_KEY"
    # without the variable: one line saying how to give it (the gateway cannot prompt)
    message = error_of(path)
    assert message.startswith(f"{path}:7: field '/servers/fetch/env/KEY': ${{input:api-key}} has no value")
    assert "TOOLSEARCH_INPUT_API_KEY" in message


def test_strip_jsonc_keeps_strings_and_lines():
    text = '{"a": "// not a comment, /* nor this */", // gone\n "b": [1, 2,], /* x\n y */ "c": 3,}'
    cleaned = strip_jsonc(text)
    assert json.loads(cleaned) == {"a": "// not a comment, /* nor this */", "b": [1, 2], "c": 3}
    assert cleaned.count("\n") == text.count("\n")
    assert strip_jsonc('{"a": "x\\"//y"}') == '{"a": "x\\"//y"}'


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("${env:HOME_DIR}/x", "/home/me/x"),
        ("a${/}b", f"a{os.sep}b"),
        ("${pathSeparator}", os.sep),
        ("$HOME and ${", "$HOME and ${"),  # not a substitution: left alone
    ],
)
def test_substitutions(tmp_path, value, expected):
    path = write(tmp_path, json.dumps({"mcpServers": {"s": {"command": "run", "args": [value]}}}))
    config = read_config(path, environ={"HOME_DIR": "/home/me"})
    assert config.servers[0].source.endswith(f"run {expected}" if " " not in expected else f"run '{expected}'")


def test_workspace_folder_only_in_a_workspace_config(tmp_path):
    text = json.dumps({"servers": {"s": {"command": "run", "args": ["${workspaceFolder}/x"]}}})
    inside = write(tmp_path, text, ".vscode/mcp.json")
    assert read_config(inside, environ={}).servers[0].source == f"s=mcp+stdio:run {tmp_path.resolve()}/x"
    outside = write(tmp_path, text, "mcp.json")
    assert "${workspaceFolder} has a meaning only in a workspace" in error_of(outside)


@pytest.mark.parametrize(
    ("text", "where", "said"),
    [
        # unsupported substitutions are refused, never passed on as text
        (
            '{"mcpServers": {\n "s": {"command": "run",\n "args": ["${command:pick}"]}}}',
            ":3: field '/mcpServers/s/args/0'",
            "unsupported substitution ${command:pick}",
        ),
        ('{"mcpServers": {\n "s": {"command": "run",\n "env": {"K": "${env:NOPE}"}}}}', ":3:", "NOPE is not set"),
        # types, strictly: no coercion
        ('{"mcpServers": {\n "s": {"command": "run",\n "args": [1]}}}', ":3: field '/mcpServers/s/args/0'", "string"),
        ('{"mcpServers": {\n "s": {"command": "run", "env": {"K": 5}}}}', ":2: field '/mcpServers/s/env/K'", "string"),
        # an unknown key, with a suggestion
        ('{"mcpServers": {\n "s": {"comand": "run"}}}', ":2: field '/mcpServers/s/comand'", "did you mean 'command'"),
        ('{"mcpServers": {\n "s": {"args": []}}}', ":2: field '/mcpServers/s/command'", "needs 'command'"),
        ('{"mcpServers": {"s": {\n"type": "sse", "url": "http://x/sse"}}}', ":2: field '/mcpServers/s/type'", "sse"),
        ('{"mcpServers": {"s": {\n"url": "ftp://x"}}}', ":2: field '/mcpServers/s/url'", "http:// or https://"),
        ('{"mcpServers": {}}', ":1: field 'mcpServers'", "no servers"),
        ('{"mcpServers": {"s": {"command": "x"}},\n"servers": {}}', ":2:", "both 'mcpServers'"),
        ('{"mcpServers": {"s": {"command": "x"}, "s": {"command": "y"}}}', ":1:", "duplicate key 's'"),
        ('{"mcpServers": {"s": {"command": "x"}}', ":1:", "malformed JSON"),
        ("[1, 2]", ":1:", "JSON object"),
        # the toolsearch section
        (
            '{"mcpServers": {"time": {"command": "x"}},\n "toolsearch": {"servers": {"tme": {}}}}',
            ":2: field '/toolsearch/servers/tme'",
            "no server 'tme' in mcpServers (did you mean 'time'?)",
        ),
        (
            '{"mcpServers": {"s": {"command": "x"}},\n "toolsearch": {\n "limits": {"maxResults": 0}}}',
            ":3: field '/toolsearch/limits/maxResults'",
            "greater than or equal to 1",
        ),
        (
            '{"mcpServers": {"s": {"command": "x"}},\n "toolsearch": {\n "ranker": "nope"}}',
            ":3: field '/toolsearch/ranker'",
            "unknown ranker",
        ),
        (
            '{"mcpServers": {"s": {"command": "x"}},\n "toolsearch": {\n\n "policy": "nope"}}',
            ":4: field '/toolsearch/policy'",
            "nope",
        ),
        (
            '{"mcpServers": {"s": {"command": "x"}}, "toolsearch": {"servers": {"s": {"tools": {\n'
            ' "a": {"rename": "bad name!"}}}}}}',
            ":2: tool 'a', field '/toolsearch/servers/s/tools/a/rename'",
            "not a name a client accepts",
        ),
        (
            '{"mcpServers": {"s": {"command": "x"}}, "toolsearch": {"servers": {"s": {"tools": {\n'
            ' "a": {"hide": "yes"}}}}}}',
            ":2: tool 'a', field '/toolsearch/servers/s/tools/a/hide'",
            "valid boolean",
        ),
        (
            '{"mcpServers": {"s": {"command": "x"}}, "toolsearch": {"servers": {"s": {"tools": {\n'
            ' "a": {"rename": "b"}, "c": {"rename": "b"}}}}}}',
            "tool 'c', field '/toolsearch/servers/s/tools/c/rename'",
            "already the new name of 'a'",
        ),
        (
            '{"mcpServers": {"s": {"command": "x"}}, "toolsearch": {\n "disclose": "sometimes"}}',
            ":2: field '/toolsearch/disclose'",
            "'call-through' or 'list-changed'",
        ),
        # required: a boolean, in the server's entry or its policy (not two different answers)
        (
            '{"mcpServers": {"s": {"command": "x",\n "required": "no"}}}',
            ":2: field '/mcpServers/s/required'",
            "boolean",
        ),
        ('{"servers": {"s": {"command": "x",\n "required": 0}}}', ":2: field '/servers/s/required'", "boolean"),
        (
            '{"mcpServers": {"a/b": {"command": "x", "required": false}},\n'
            ' "toolsearch": {"servers": {"a/b": {\n"required": true}}}}',
            ":3: field '/toolsearch/servers/a~1b/required'",
            "'required' is true here and false in /mcpServers/a~1b; give it once",
        ),
    ],
)
def test_every_bad_input_is_one_line_naming_file_line_and_field(tmp_path, text, where, said):
    path = write(tmp_path, text)
    message = error_of(path)
    assert message.startswith(path + (where if where.startswith(":") else "")), message
    assert where in message and said in message, message


def test_required_false_in_the_clients_own_server_entry(tmp_path):
    """``"required": false`` where the operator keeps the server (its ``mcpServers`` or VS Code
    ``servers`` entry) works as it does under ``toolsearch.servers``; both may say it if they agree."""
    claude = {
        "mcpServers": {
            "time": {"command": "uvx", "args": ["mcp-server-time"]},
            "docs": {"url": "https://docs.example.com/mcp", "required": False},
            "git": {"command": "uvx", "args": ["mcp-server-git"], "required": True},
            "fetch": {"command": "uvx", "args": ["mcp-server-fetch"], "required": False},
        },
        "toolsearch": {"servers": {"fetch": {"required": False}, "git": {"hide": ["git_reset"]}}},
    }
    config = read_config(write(tmp_path, json.dumps(claude)), environ={})
    assert config.required_aliases == ["time", "git"]
    vscode = {
        "servers": {"a": {"type": "stdio", "command": "x", "required": False}, "b": {"type": "stdio", "command": "y"}}
    }
    assert read_config(write(tmp_path, json.dumps(vscode), "vscode.json"), environ={}).required_aliases == ["b"]


def test_a_bad_value_next_to_a_secret_never_prints_the_secret(tmp_path):
    text = json.dumps({"mcpServers": {"s": {"command": "x", "env": {"TOKEN": SECRET, "N": 1}}}})
    assert SECRET not in error_of(write(tmp_path, text))


def test_merge_options_the_command_line_wins(tmp_path):
    text = json.dumps(
        {
            "mcpServers": {"s": {"command": "x"}},
            "toolsearch": {
                "ranker": "classic",
                "limits": {"maxResults": 7, "timeout": 12},
                "context": {"role": "member", "team": "a"},
            },
        }
    )
    config = read_config(write(tmp_path, text), environ={})
    options = {"ranker": "default", "default_max_results": 5, "timeout": 30.0, "context": {"role": "admin"}}
    merged = merge_options(config, options, explicit={"ranker"})
    assert merged["ranker"] == "default"  # given on the command line
    assert merged["default_max_results"] == 7 and merged["timeout"] == 12
    assert merged["context"] == {"role": "admin", "team": "a"}  # --context wins key by key
    assert merged["sources"] == ["s=mcp+stdio:x"]
    assert "embed" not in merged  # no model in the file: the command's own embedding settings
    with_model = json.dumps({"mcpServers": {"s": {"command": "x"}}, "toolsearch": {"model": "models/minilm"}})
    config = read_config(write(tmp_path, with_model, "model.json"), environ={})
    assert merge_options(config, {}, explicit=set())["embed"].model == "models/minilm"
    assert "embed" not in merge_options(config, {}, explicit={"embed_model"})  # --embed-model given: it wins


def test_merged_requires_is_every_part_at_once():
    assert merged_requires({"role": ["admin", "member"]}, {"role": ["admin"]}) == {"role": ["admin"]}
    assert merged_requires({"role": ["*"]}, {"role": ["admin"]}) == {"role": ["admin"]}
    assert merged_requires({}, {"team": ["a"]}, {"role": ["x"]}) == {"team": ["a"], "role": ["x"]}


def _entry(name: str, alias: str = "git") -> tuple[Tool, Route, str]:
    tool = Tool(name=name, description=f"{name} does things", metadata={"mcp_server": {"name": alias, "tool": name}})
    return tool, Route("mcp", f"{alias}=mcp+stdio:x", name), alias


def test_policy_hide_allow_rename_describe_aliases_pinned_requires(tmp_path):
    text = json.dumps(
        {
            "mcpServers": {"git": {"command": "x"}, "time": {"command": "y"}},
            "toolsearch": {
                "servers": {
                    "git": {
                        "hide": ["git_reset"],
                        "requires": {"team": "dev"},
                        "tools": {
                            "git_status": {
                                "rename": "repo_status",
                                "description": "What changed in the working tree.",
                                "aliases": ["uncommitted changes"],
                                "pinned": True,
                            },
                            "git_commit": {"requires": {"role": ["admin"]}},
                            "git_gone": {"hide": True},
                        },
                    },
                    "time": {"allow": ["get_current_time"]},
                }
            },
        }
    )
    config = read_config(write(tmp_path, text), environ={})
    policy = config.tool_policy()
    entries = [_entry(n) for n in ("git_status", "git_reset", "git_commit", "git_log")]
    entries += [_entry(n, "time") for n in ("get_current_time", "convert_time")]
    said: list[str] = []
    kept, pinned = policy.apply(entries, said.append)
    by_name = {tool.name: (tool, route) for tool, route, _ in kept}
    assert list(by_name) == ["repo_status", "git_commit", "git_log", "get_current_time"]
    status, route = by_name["repo_status"]
    assert route.original == "git_status"  # the call reaches the server under its own name
    assert status.description == "What changed in the working tree." and "uncommitted changes" in status.tags
    assert pinned == ["repo_status"]
    assert by_name["git_commit"][0].requires == {"team": ["dev"], "role": ["admin"]}
    assert by_name["git_log"][0].requires == {"team": ["dev"]}
    assert by_name["get_current_time"][0].requires == {}
    assert policy.hidden == {"git": ["git_reset"], "time": ["convert_time"]}
    assert said == ["warning: config: server 'git' lists no tool 'git_gone'; its rule does nothing"]
    policy.apply(entries, said.append)
    assert len(said) == 1  # said once


def test_import_client_claude_desktop(tmp_path, run_cli):
    client = write(tmp_path, CLAUDE, "Claude/claude_desktop_config.json")
    before = Path(client).read_text()
    target = tmp_path / "out" / "gateway.json"
    result = run_cli("serve", "--import-client", "claude-desktop", "--client-config", client, "--config", str(target))
    assert result.code == 0, result.stderr
    assert SECRET not in result.stdout and SECRET not in result.stderr
    printed = json.loads(result.stdout)
    assert printed["globalShortcut"] == "Ctrl+Space"  # the client's own keys are kept
    (entry,) = printed["mcpServers"].values()
    assert entry["args"][-3:] == ["serve", "--config", str(target.resolve())]
    assert Path(entry["command"]).is_absolute()  # a GUI client has not the shell's PATH
    assert "github.com/acme (stdio); env: ACME_TOKEN=***" in result.stderr
    assert Path(client).read_text() == before  # never rewritten without --apply
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    written = json.loads(target.read_text())
    assert written["mcpServers"]["github.com/acme"]["env"]["ACME_TOKEN"] == SECRET  # kept, for the gateway
    assert [s.name for s in read_config(str(target), environ={}).servers] == ["time", "github.com/acme", "remote"]
    # never over an existing file
    again = run_cli("serve", "--import-client", "claude-desktop", "--client-config", client, "--config", str(target))
    assert again.code == 2 and "exists already" in again.stderr and len(again.stderr.strip().splitlines()) == 1
    # --apply: rewritten, with a backup; a second import sees the gateway already there
    other = tmp_path / "out" / "second.json"
    applied = run_cli(
        "serve", "--import-client", "claude-desktop", "--client-config", client, "--config", str(other), "--apply"
    )
    assert applied.code == 0, applied.stderr
    assert json.loads(Path(client).read_text()) == json.loads(applied.stdout)
    (backup,) = Path(client).parent.glob("claude_desktop_config.json.*.bak")
    assert backup.read_text() == before
    third = run_cli(
        "serve", "--import-client", "claude-desktop", "--client-config", client, "--config", str(tmp_path / "3.json")
    )
    assert third.code == 2 and "already toolsearch serve" in third.stderr


def test_import_client_vscode_passes_inputs_through_the_gateway_entry(tmp_path, run_cli):
    text = json.dumps(
        {
            "inputs": [{"type": "promptString", "id": "api-key", "password": True}],
            "servers": {"s": {"type": "stdio", "command": "run", "env": {"K": "${input:api-key}"}}},
        }
    )
    client = write(tmp_path, text, ".vscode/mcp.json")
    target = tmp_path / "gw.json"
    result = run_cli("serve", "--import-client", "vscode", "--client-config", client, "--config", str(target))
    assert result.code == 0, result.stderr
    printed = json.loads(result.stdout)
    assert printed["inputs"] == [{"type": "promptString", "id": "api-key", "password": True}]
    entry = printed["servers"]["toolsearch"]
    assert entry["type"] == "stdio" and entry["env"] == {"TOOLSEARCH_INPUT_API_KEY": "${input:api-key}"}
    assert json.loads(target.read_text())["servers"]["s"]["env"]["K"] == "${input:api-key}"  # kept as written
    # a Cursor config where VS Code's is expected: said in one line
    wrong = write(tmp_path, CLAUDE, "cursor.json")
    bad = run_cli("serve", "--import-client", "vscode", "--client-config", wrong, "--config", str(tmp_path / "x.json"))
    assert bad.code == 2 and "no servers under 'servers' (it has 'mcpServers'" in bad.stderr


def test_import_client_default_locations():
    from toolsearch_cli.serve.clients import client_config_path, gateway_config_path

    home = Path("/h")
    assert client_config_path("claude-desktop", "darwin", {}, home) == Path(
        "/h/Library/Application Support/Claude/claude_desktop_config.json"
    )
    assert client_config_path("claude-desktop", "win32", {"APPDATA": "C:/AppData"}, home) == Path(
        "C:/AppData/Claude/claude_desktop_config.json"
    )
    assert client_config_path("claude-desktop", "linux", {}, home) == Path(
        "/h/.config/Claude/claude_desktop_config.json"
    )
    assert client_config_path("cursor", "linux", {}, home) == Path("/h/.cursor/mcp.json")
    assert client_config_path("vscode", "linux", {"XDG_CONFIG_HOME": "/x"}, home) == Path("/x/Code/User/mcp.json")
    assert gateway_config_path("cursor", "linux", {}, home) == Path("/h/.config/toolsearch/gateway-cursor.json")


def test_cli_config_errors_exit_2_in_one_line(tmp_path, run_cli):
    path = write(tmp_path, '{"mcpServers": {\n "s": {"command": "x", "args": "not a list"}}}')
    result = run_cli("serve", "--config", path, "--dry-run")
    assert result.code == 2
    assert result.stderr.strip() == f"error: {path}:2: field '/mcpServers/s/args': input should be a valid list"
    missing = run_cli("serve", "--config", str(tmp_path / "nope.json"), "--dry-run")
    assert missing.code == 2 and "nope.json" in missing.stderr and "Traceback" not in missing.stderr
    assert run_cli("serve", "--apply").code == 2
    assert run_cli("serve", "--import-client", "zed").code == 2
    assert run_cli("serve", "--log-format", "xml", "--config", path).code == 2


def test_a_file_holding_secrets_readable_by_others_is_said(tmp_path, run_cli):
    path = write(tmp_path, CLAUDE)
    os.chmod(path, 0o644)
    config = read_config(path, environ={})
    assert config.warnings == [
        f"warning: {path} holds env or header values and other users can read it (mode 0644); chmod 600 {path}"
    ]
    os.chmod(path, 0o600)
    assert read_config(path, environ={}).warnings == []
    only_references = write(tmp_path, json.dumps({"mcpServers": {"s": {"command": "x", "env": {"K": "${env:K}"}}}}))
    os.chmod(only_references, 0o644)
    assert read_config(only_references, environ={"K": "v"}).warnings == []


def test_import_client_prints_invisible_characters_escaped(tmp_path, run_cli):
    """Found by the hostile-input target: a soft hyphen in a key the client config keeps (printed
    back with the gateway's entry) came out raw."""
    text = json.dumps({"globalShortcut": "soft\u00adhyphen \u202eevil", "mcpServers": {"s": {"command": "run"}}})
    client = write(tmp_path, text, "claude.json")
    out = str(tmp_path / "o.json")
    result = run_cli("serve", "--import-client", "cursor", "--client-config", client, "--config", out)
    assert result.code == 0, result.stderr
    assert "\u00ad" not in result.stdout and "\u202e" not in result.stdout
    assert json.loads(result.stdout)["globalShortcut"] == "soft\u00adhyphen \u202eevil"  # the same JSON
