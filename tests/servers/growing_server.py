"""An MCP server (official SDK, stdio) whose tool list grows: each call of ``grow`` adds a tool and
sends ``notifications/tools/list_changed``; ``wilt`` removes the newest one (and sends it too).
With ``--legacy`` it serves the handshake protocol only (as the npm servers do), where the
notification reaches the client."""

from __future__ import annotations

import sys

import anyio
import mcp_types as types
from mcp.server.lowlevel.server import NotificationOptions, Server
from mcp.server.stdio import stdio_server

grown: list[str] = []


def tools() -> list[types.Tool]:
    out = [
        types.Tool(
            name="grow",
            description="Add one more tool to this server.",
            input_schema={"type": "object", "properties": {}},
        ),
        types.Tool(
            name="wilt",
            description="Remove the newest grown tool from this server.",
            input_schema={"type": "object", "properties": {}},
        ),
    ]
    for name in grown:
        out.append(
            types.Tool(
                name=name,
                description=f"A freshly grown gardening tool ({name}): water the seedlings.",
                input_schema={"type": "object", "properties": {"litres": {"type": "number"}}, "required": ["litres"]},
            )
        )
    return out


async def list_tools(ctx, params) -> types.ListToolsResult:
    return types.ListToolsResult(tools=tools())


async def call_tool(ctx, params) -> types.CallToolResult:
    if params.name in ("grow", "wilt"):
        if params.name == "grow":
            grown.append(f"water_seedlings_{len(grown) + 1}")
            said = grown[-1]
        else:
            said = grown.pop() if grown else "nothing to wilt"
        try:
            await ctx.session.send_tool_list_changed()
        except Exception:  # noqa: BLE001 - the 2026-07-28 wire has no channel for it: clients re-list
            pass
        return types.CallToolResult(content=[types.TextContent(type="text", text=said)])
    if params.name in grown:
        litres = (params.arguments or {}).get("litres")
        return types.CallToolResult(content=[types.TextContent(type="text", text=f"watered with {litres} l")])
    return types.CallToolResult(content=[types.TextContent(type="text", text="no such tool")], is_error=True)


class GrowingServer(Server):
    def create_initialization_options(self, notification_options=None, *args, **kwargs):
        options = notification_options or NotificationOptions(tools_changed=True)
        return super().create_initialization_options(options, *args, **kwargs)


server = GrowingServer("growing", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    async with stdio_server() as (read_stream, write_stream):
        if "--legacy" in sys.argv:
            from mcp.server.runner import serve_loop

            async with server.lifespan(server) as state:
                await serve_loop(server, read_stream, write_stream, lifespan_state=state)
        else:
            await server.run(read_stream, write_stream, server.create_initialization_options())


anyio.run(main)
