"""An MCP server that never answers ``tools/list`` (to test that toolsearch stops it when stopped).

python tests/servers/stalling_server.py PIDFILE     # stdio; writes its process id to PIDFILE once started
"""

from __future__ import annotations

import os
import sys

import anyio
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server


async def list_tools(ctx, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
    with open(sys.argv[1], "w", encoding="utf-8") as handle:  # the client is waiting for the tools now
        handle.write(str(os.getpid()))
    await anyio.sleep_forever()
    raise AssertionError("unreachable")


server = Server("stalling", on_list_tools=list_tools)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
