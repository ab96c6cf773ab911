"""A small real MCP server with resources, a resource template, prompts and one tool, built on
the official SDK's low-level ``Server``, for the gateway's resource/prompt and protocol tests.

    python tests/servers/features_server.py [--era both|legacy|modern] [--name NAME] [--http PORT]

``--era legacy`` answers only the ``initialize`` handshake (``server/discover`` is unknown, as
on a server written before 2026-07-28); ``--era modern`` refuses ``initialize`` (a server that
speaks only 2026-07-28). ``--name`` changes the server's name and the text of what it serves,
so two copies behind one gateway collide on every prompt name and resource URI.

The tool ``retitle`` changes the description of ``touch`` (a tools list_changed);
``touch(uri)`` marks a resource changed: subscribers get ``notifications/resources/updated``
(handshake clients that called ``resources/subscribe``; 2026-07-28 clients through
``subscriptions/listen``), and ``add_prompt(name)`` adds a prompt (a prompts list_changed).
One resource's description holds an ANSI escape and a zero-width space (hostile text).
``--broken-prompts`` makes ``prompts/list`` fail.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel.server import NotificationOptions, Server
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ListenHandler,
    PromptsListChanged,
    ResourceUpdated,
    ToolsListChanged,
)
from mcp.shared.exceptions import MCPError

parser = argparse.ArgumentParser()
parser.add_argument("--era", choices=("both", "legacy", "modern"), default="both")
parser.add_argument("--name", default="features")
parser.add_argument("--http", type=int, default=None)
parser.add_argument("--broken-prompts", action="store_true", help="prompts/list fails (-32603)")
options = parser.parse_args()
NAME = options.name

bus = InMemorySubscriptionBus()
#: handshake-era sessions subscribed per URI (the gateway holds one connection per upstream)
subscribed: dict[str, list[Any]] = {}
touch_description = ["Mark a note resource as changed."]
prompts: dict[str, str] = {"summarize": "Summarize {topic} in three sentences.", "greet": "Say hello to {who}."}


async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
    return types.ListResourcesResult(
        resources=[
            types.Resource(
                name="readme", uri="note://readme", description=f"The {NAME} readme.", mime_type="text/plain"
            ),
            types.Resource(
                name="notes",
                uri="note://notes",
                description="Meeting notes\x1b[31m in red\u200b hidden",
                mime_type="text/plain",
            ),
        ]
    )


async def list_templates(ctx: Any, params: Any) -> types.ListResourceTemplatesResult:
    return types.ListResourceTemplatesResult(
        resource_templates=[
            types.ResourceTemplate(name="page", uri_template="note://pages/{number}", description=f"A page of {NAME}.")
        ]
    )


async def read_resource(ctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
    uri = str(params.uri)
    if uri == "note://readme":
        text = f"readme of {NAME}"
    elif uri == "note://notes":
        text = "notes\x1b]0;title\x07 with an OSC and a tag \U000e0049\U000e0047"
    elif uri.startswith("note://pages/"):
        text = f"page {uri.rsplit('/', 1)[1]} of {NAME}"
    else:
        raise MCPError(types.INVALID_PARAMS, f"no resource {uri}")
    return types.ReadResourceResult(contents=[types.TextResourceContents(uri=uri, text=text, mime_type="text/plain")])


async def subscribe(ctx: Any, params: types.SubscribeRequestParams) -> types.EmptyResult:
    subscribed.setdefault(str(params.uri), []).append(ctx.session)
    return types.EmptyResult()


async def unsubscribe(ctx: Any, params: types.UnsubscribeRequestParams) -> types.EmptyResult:
    sessions = subscribed.get(str(params.uri), [])
    if sessions:
        sessions.pop()
    return types.EmptyResult()


async def list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
    if options.broken_prompts:
        raise MCPError(types.INTERNAL_ERROR, "the prompt store is down")
    return types.ListPromptsResult(
        prompts=[
            types.Prompt(
                name=name,
                description=f"{name} ({NAME})",
                arguments=[types.PromptArgument(name=text.split("{")[1].split("}")[0], required=True)],
            )
            for name, text in prompts.items()
        ]
    )


async def get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
    text = prompts.get(params.name)
    if text is None:
        raise MCPError(types.INVALID_PARAMS, f"no prompt {params.name}")
    filled = text.format(**(params.arguments or {}))
    return types.GetPromptResult(
        description=f"{params.name} from {NAME}\u202e",
        messages=[types.PromptMessage(role="user", content=types.TextContent(type="text", text=filled))],
    )


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    schema = {"type": "object", "properties": {"uri": {"type": "string"}}, "required": ["uri"]}
    return types.ListToolsResult(
        tools=[
            types.Tool(name="touch", description=touch_description[0], input_schema=schema),
            types.Tool(
                name="retitle",
                description="Change the description of the touch tool (a tools list change).",
                input_schema={"type": "object", "properties": {}},
            ),
            types.Tool(
                name="add_prompt",
                description="Add a prompt to the server's prompt list.",
                input_schema={"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
            ),
        ]
    )


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    args = params.arguments or {}
    if params.name == "touch":
        uri = str(args.get("uri"))
        await bus.publish(ResourceUpdated(uri=uri))
        for session in list(subscribed.get(uri, [])):
            try:
                await session.send_resource_updated(uri)
            except Exception:  # noqa: BLE001 - a gone subscriber
                pass
        return types.CallToolResult(content=[types.TextContent(type="text", text=f"touched {uri}")])
    if params.name == "retitle":
        touch_description[0] = "Mark a note resource as changed (retitled)."
        await bus.publish(ToolsListChanged())
        try:
            await ctx.session.send_tool_list_changed()
        except Exception:  # noqa: BLE001 - a 2026-07-28 request has no standing stream
            pass
        return types.CallToolResult(content=[types.TextContent(type="text", text="retitled")])
    if params.name == "add_prompt":
        prompts[str(args.get("name"))] = "A new prompt about {thing}."
        await bus.publish(PromptsListChanged())
        try:
            await ctx.session.send_prompt_list_changed()
        except Exception:  # noqa: BLE001 - a 2026-07-28 request has no standing stream
            pass
        return types.CallToolResult(content=[types.TextContent(type="text", text="added")])
    raise MCPError(types.INVALID_PARAMS, f"no tool {params.name}")


class FeaturesServer(Server):  # type: ignore[type-arg]
    def create_initialization_options(self, notification_options: Any = None, *args: Any, **kw: Any) -> Any:
        options = notification_options or NotificationOptions(
            prompts_changed=True, resources_changed=True, tools_changed=True
        )
        return super().create_initialization_options(options, *args, **kw)


server = FeaturesServer(
    NAME,
    version="1.0",
    on_list_resources=list_resources,
    on_list_resource_templates=list_templates,
    on_read_resource=read_resource,
    on_subscribe_resource=subscribe,
    on_unsubscribe_resource=unsubscribe,
    on_list_prompts=list_prompts,
    on_get_prompt=get_prompt,
    on_list_tools=list_tools,
    on_call_tool=call_tool,
    on_subscriptions_listen=ListenHandler(bus),
)


async def era_guard(ctx: Any, call_next: Any) -> Any:
    if options.era == "modern" and ctx.method == "initialize":
        raise MCPError(types.INVALID_REQUEST, "this server speaks only the 2026-07-28 protocol")
    return await call_next(ctx)


server.middleware.append(era_guard)
if options.era == "legacy":
    server._request_handlers.pop("subscriptions/listen", None)


async def legacy_only(read: Any, write: Any) -> Any:
    """The client's messages with ``server/discover`` answered -32601 here, as a server written
    before 2026-07-28 does (the SDK's loop would otherwise settle the connection's era on it)."""
    from mcp.shared.message import SessionMessage
    from mcp_types.jsonrpc import ErrorData, JSONRPCError, JSONRPCRequest

    send, receive = anyio.create_memory_object_stream[Any](16)

    async def pump() -> None:
        async with send:
            async for item in read:
                message = getattr(item, "message", None)
                if isinstance(message, JSONRPCRequest) and message.method == "server/discover":
                    error = ErrorData(code=types.METHOD_NOT_FOUND, message="Method not found")
                    await write.send(SessionMessage(JSONRPCError(jsonrpc="2.0", id=message.id, error=error)))
                    continue
                await send.send(item)

    return pump, receive


async def main() -> None:
    if options.http is not None:
        import uvicorn

        app = server.streamable_http_app(host="127.0.0.1")
        config = uvicorn.Config(app, host="127.0.0.1", port=options.http, log_level="warning")
        await uvicorn.Server(config).serve()
        return
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        if options.era != "legacy":
            await server.run(read, write, server.create_initialization_options())
            return
        pump, filtered = await legacy_only(read, write)
        async with anyio.create_task_group() as group:
            group.start_soon(pump)
            await server.run(filtered, write, server.create_initialization_options())
            group.cancel_scope.cancel()


if __name__ == "__main__":
    try:
        anyio.run(main)
    except KeyboardInterrupt:
        sys.exit(130)
