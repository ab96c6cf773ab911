"""A low-level MCP server (the official SDK's ``mcp.server.lowlevel.Server``) whose ``tools/list``
publishes raw tool dicts, some of them malformed the way real servers publish them: input
schemas without ``type`` (GitLab's MCP server), a schema that is a list, a tool without a name,
a description that is a number. The SDK's client refuses such a listing as a whole.

python tests/servers/untyped_server.py [--not-a-list]   # stdio; --not-a-list: 'tools' is a string
"""

from __future__ import annotations

import sys
from typing import Any

import anyio
from mcp import types
from mcp.server import runner as server_runner
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

TOOLS: list[dict[str, Any]] = [
    {
        "name": "get_issue",
        "description": "Get one issue of a project by its number.",
        "inputSchema": {"type": "object", "properties": {"issue": {"type": "integer"}}, "required": ["issue"]},
    },
    {  # GitLab's MCP server: no top-level type
        "name": "create_merge_request",
        "description": "Open a merge request from a source branch into a target branch.",
        "inputSchema": {"properties": {"source_branch": {"type": "string"}, "target_branch": {"type": "string"}}},
    },
    {"name": "list_pipelines", "description": "List the CI pipelines of a project.", "inputSchema": ["project"]},
    {"description": "A tool without a name.", "inputSchema": {"type": "object"}},
    {"name": "get_issue", "description": "The same name twice.", "inputSchema": {"type": "object"}},
    {"name": "search_code", "description": 42, "inputSchema": {"type": "object", "properties": {}}},
    {
        "name": "list_branches",
        "description": "List the branches of a repository.",
        "inputSchema": {"type": "object", "properties": {"search": {"type": "string"}}},
    },
    {  # GitLab's server again: a schema of nothing but "$schema"
        "name": "fork_repository",
        "description": "Fork a project into a namespace.",
        "inputSchema": {"$schema": "http://json-schema.org/draft-07/schema#"},
    },
    {"name": "bad_type", "description": "A schema whose type is not object.", "inputSchema": {"type": "string"}},
]


# This SDK checks the results a server sends; the TypeScript SDK GitLab's server was built with
# did not. The handler answers a valid (empty) page and the check is bypassed for the tools of
# tools/list alone, which are put in as written above: what such servers publish.
_serialize = server_runner._methods.serialize_server_result
PAGE = 4  # two pages: the second page's bad tools must not sink the first page's good ones
_sending: list[dict[str, Any]] = []
NOT_A_LIST = "--not-a-list" in sys.argv


def _unchecked(method: str, version: str, data: Any, **kwargs: Any) -> Any:
    out = _serialize(method, version, data, **kwargs)
    if method == "tools/list":
        return {**out, "tools": "not a list" if NOT_A_LIST else list(_sending)}
    return out


server_runner._methods.serialize_server_result = _unchecked


async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
    start = int(params.cursor) if params is not None and params.cursor else 0
    end = start + PAGE
    _sending[:] = TOOLS[start:end]
    return types.ListToolsResult(tools=[], next_cursor=str(end) if end < len(TOOLS) else None)


server = Server("untyped", on_list_tools=list_tools)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
