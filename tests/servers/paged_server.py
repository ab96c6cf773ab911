"""A low-level MCP server whose ``tools/list`` answers in pages of 3 (cursor = offset).

python tests/servers/paged_server.py [COUNT]      # stdio; COUNT tools (default 8)
"""

from __future__ import annotations

import sys

import anyio
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

PAGE = 3
COUNT = int(sys.argv[1]) if len(sys.argv) > 1 else 8
LOOP = "--loop" in sys.argv
TOOLS = [
    types.Tool(
        name=f"inventory_tool_{i}",
        description=f"Inventory tool number {i}: count the stock of warehouse shelf {i}.",
        input_schema={"type": "object", "properties": {"shelf": {"type": "integer"}}, "required": ["shelf"]},
    )
    for i in range(COUNT)
]


async def list_tools(ctx, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
    if LOOP:
        return types.ListToolsResult(tools=TOOLS[:PAGE], next_cursor="again")
    start = int(params.cursor) if params is not None and params.cursor else 0
    end = start + PAGE
    return types.ListToolsResult(tools=TOOLS[start:end], next_cursor=str(end) if end < len(TOOLS) else None)


server = Server("paged", on_list_tools=list_tools)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
