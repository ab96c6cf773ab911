"""A stdio MCP server that starts a helper process (as servers run through ``npx``, ``uv`` or a
shell script do) and exits normally when its stdin closes, leaving the helper running.

python tests/servers/forking_server.py PIDFILE [--stall]   # PIDFILE receives the helper's pid

With ``--stall`` it never answers ``tools/list`` (to stop toolsearch while it waits).

The helper is a sleeper in the server's process group with its standard streams closed, so it
holds no pipe of the client's: only stopping the group ends it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import anyio
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

helper = subprocess.Popen(
    [sys.executable, "-c", "import time; time.sleep(600)"],
    stdin=subprocess.DEVNULL,
    stdout=subprocess.DEVNULL,
    stderr=subprocess.DEVNULL,
)
Path(sys.argv[1]).write_text(str(helper.pid), encoding="utf-8")

TOOL = types.Tool(
    name="getForecast",
    description="Get the weather forecast for a city for the next days.",
    input_schema={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


async def list_tools(ctx, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
    if "--stall" in sys.argv:
        await anyio.sleep_forever()
    return types.ListToolsResult(tools=[TOOL])


server = Server("forking", on_list_tools=list_tools)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
