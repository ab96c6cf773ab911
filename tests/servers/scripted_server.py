"""An MCP server (official SDK, stdio) whose tools and answers are read from a JSON file.

    python tests/servers/scripted_server.py TOOLS_JSON [--name NAME]

TOOLS_JSON holds a list of MCP tool definitions (``name``, ``description``, ``inputSchema``...);
a tool's optional ``_result`` key (not listed) is the text its call answers, else the call answers
``{"tool": NAME, "arguments": {...}}`` as JSON text. A test writes hostile text into the file (a
poisoned description, escape codes in a result), or the tools of a catalog file (a server that runs
them)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import mcp_types as types
from mcp.server.lowlevel.server import Server
from mcp.server.stdio import stdio_server

RAW = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
NAME = sys.argv[sys.argv.index("--name") + 1] if "--name" in sys.argv else "scripted"
RESULTS = {t["name"]: t.pop("_result") for t in RAW if "_result" in t}


async def list_tools(ctx, params) -> types.ListToolsResult:
    return types.ListToolsResult(tools=[types.Tool.model_validate(t) for t in RAW])


async def call_tool(ctx, params) -> types.CallToolResult:
    text = RESULTS.get(params.name)
    if text is None:
        text = json.dumps({"tool": params.name, "arguments": params.arguments or {}})
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


server = Server(NAME, on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


anyio.run(main)
