"""A small real MCP server for the gateway's trace test: ``show_meta`` answers with the ``_meta``
of the request that called it (so a test sees the ``traceparent`` the gateway passed on), and
``show_env`` with the value of one environment variable (so a test sees what ``env`` reached it)."""

from __future__ import annotations

import json
import os

from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("meta")


@server.tool()
def show_meta(ctx: Context) -> str:
    """Return the _meta object of this request as JSON."""
    meta = ctx.request_context.meta or {}
    return json.dumps({k: v for k, v in dict(meta).items() if not k.startswith("io.modelcontextprotocol/")})


@server.tool()
def show_env(name: str) -> str:
    """Return the value of one environment variable of this server process ('' when unset)."""
    return os.environ.get(name, "")


if __name__ == "__main__":
    server.run()
