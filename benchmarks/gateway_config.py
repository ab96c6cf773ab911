"""A Claude Desktop config fronted by `toolsearch serve --config` (issue 34's target): does the
client get the same callable tools as it would directly (minus policy), and in how many tokens?

Usage:
    python -m benchmarks gateway-config                       # the real servers this checkout has
    python -m benchmarks gateway-config --config ~/Library/Application\\ Support/Claude/claude_desktop_config.json

Direct: every server of the config is started as the client would start it (command, args, env)
and listed with the official `mcp` client. Through the gateway: one `toolsearch serve --config`
entry, listed with the same client. Both lists are counted the same way (cl100k_base tokens of
the tools/list entries, name + description + inputSchema, as a client puts them in a request).
Then, for every direct tool not hidden by the config's policy, `toolSearch` is asked for it by
its name and description: it must come back under its name (or ALIAS__name on a collision) with
the same input schema and not marked callable:false; one read-only tool per server that has one is
called through `callTool`. Every figure is measured in this run.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

from benchmarks import options

ROOT = options.ROOT
NPM = ROOT / "tests" / "servers" / "npm" / "node_modules" / "@modelcontextprotocol"
#: Harmless calls, one per server when it has the tool: (tool, arguments).
READ_ONLY = {
    "get_current_time": {"timezone": "UTC"},
    "git_status": {"repo_path": str(ROOT)},
    "read_graph": {},
    "echo": {"message": "hi"},
}


def default_config(folder: Path) -> Path:
    """A Claude Desktop config of the real servers installed here (time and git from PyPI,
    memory and everything from npm)."""
    servers: dict[str, Any] = {}
    python = sys.executable
    servers["time"] = {"command": python, "args": ["-m", "mcp_server_time", "--local-timezone=UTC"]}
    servers["git"] = {"command": python, "args": ["-m", "mcp_server_git", "--repository", str(ROOT)]}
    node = shutil.which("node")
    for name in ("memory", "everything"):
        script = NPM / f"server-{name}" / "dist" / "index.js"
        if node and script.is_file():
            entry: dict[str, Any] = {"command": node, "args": [str(script)]}
            if name == "memory":
                entry["env"] = {"MEMORY_FILE_PATH": str(folder / "memory.jsonl")}
            servers[name] = entry
    path = folder / "claude_desktop_config.json"
    path.write_text(json.dumps({"mcpServers": servers}, indent=2), encoding="utf-8")
    return path


def wire(tool: Any) -> dict[str, Any]:
    entry = {"name": tool.name, "description": tool.description or "", "inputSchema": tool.input_schema}
    return entry


async def list_direct(config: Any) -> dict[str, list[dict[str, Any]]]:
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    out: dict[str, list[dict[str, Any]]] = {}
    for server in config.servers:
        if server.transport != "stdio":
            continue
        from toolsearch_cli.catalog.sources.live_syntax import parse_live_source

        command = parse_live_source(server.source).command
        params = StdioServerParameters(
            command=command[0], args=command[1:], env={**os.environ, **server.env}, cwd=server.cwd
        )
        with open(os.devnull, "w") as errlog:
            async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=60) as client:
                out[server.alias] = [wire(t) for t in (await client.list_tools()).tools]
    return out


async def through_gateway(path: Path, wanted: dict[str, list[dict[str, Any]]], hidden: set[str]) -> dict[str, Any]:
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "toolsearch_cli", "serve", "--config", str(path)], env=env
    )
    report: dict[str, Any] = {"missing": [], "schema_differs": [], "not_callable": [], "calls": {}}
    with open(os.devnull, "w") as errlog:
        started = time.perf_counter()
        async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=120) as client:
            listed = [wire(t) for t in (await client.list_tools()).tools]
            report["start_s"] = time.perf_counter() - started
            report["listed"] = listed
            for alias, tools in wanted.items():
                for tool in tools:
                    if tool["name"] in hidden:
                        continue
                    query = f"{tool['name']} {tool['description'][:200]}"
                    found = await client.call_tool("toolSearch", {"query": query, "maxResults": 10})
                    hits = json.loads("".join(getattr(b, "text", "") for b in found.content)).get("tools", [])
                    names = {tool["name"], f"{alias}__{tool['name']}"}
                    hit = next((h for h in hits if h["name"] in names), None)
                    if hit is None:
                        report["missing"].append(f"{alias}/{tool['name']}")
                        continue
                    if hit.get("inputSchema") != tool["inputSchema"]:
                        report["schema_differs"].append(f"{alias}/{tool['name']}")
                    if hit.get("callable") is False:
                        report["not_callable"].append(f"{alias}/{tool['name']}")
                    if tool["name"] in READ_ONLY and tool["name"] not in report["calls"]:
                        ran = await client.call_tool(
                            "callTool", {"name": hit["name"], "arguments": READ_ONLY[tool["name"]]}
                        )
                        report["calls"][tool["name"]] = "ok" if not ran.is_error else "error"
    return report


def main() -> None:
    parser = options.parser(__doc__)
    parser.add_argument("--config", help="a Claude Desktop / Cursor config (default: the real servers here)")
    args = parser.parse_args()
    from toolsearch_cli.serve.config import read_config
    from toolsearch_cli.tokens import get_counter, tools_tokens

    folder = Path(tempfile.mkdtemp(prefix="toolsearch-gwconfig-"))
    path = Path(args.config).expanduser() if args.config else default_config(folder)
    config = read_config(str(path))
    hidden: set[str] = set()
    for rules in config.section.servers.values():
        hidden.update(rules.hide)
        hidden.update(name for name, rule in rules.tools.items() if rule.hide)
    direct = anyio.run(list_direct, config)
    counter = get_counter()
    all_direct = [t for tools in direct.values() for t in tools]
    report = anyio.run(through_gateway, path, direct, hidden)
    direct_tokens = tools_tokens(all_direct, counter)
    gateway_tokens = tools_tokens(report["listed"], counter)
    print(f"config: {path if args.config else 'the real servers installed here'}")
    for alias, tools in direct.items():
        print(f"  {alias}: {len(tools)} tools, {tools_tokens(tools, counter):,} tokens listed directly")
    print(f"direct: {len(all_direct)} tools, {direct_tokens:,} tokens ({counter.name})")
    print(
        f"through the gateway: {len(report['listed'])} tools ({', '.join(t['name'] for t in report['listed'])}), "
        f"{gateway_tokens:,} tokens = {100 * gateway_tokens / direct_tokens:.1f}% of direct "
        f"(target <= 10%); gateway up and listed in {report['start_s']:.1f} s"
    )
    checked = len(all_direct) - len([t for t in all_direct if t["name"] in hidden])
    print(
        f"found by toolSearch with the same schema and callable: "
        f"{checked - len(report['missing']) - len(report['schema_differs']) - len(report['not_callable'])}"
        f"/{checked} (missing {report['missing'] or 'none'}, schema differs {report['schema_differs'] or 'none'}, "
        f"not callable {report['not_callable'] or 'none'})"
    )
    print(f"calls through callTool: {report['calls']}")


if __name__ == "__main__":
    main()
