"""Upstream MCP servers of the gateway: one long-lived client connection each.

Each :class:`Upstream` runs as a task of the gateway's event loop: it starts (or connects to) its
server with the official ``mcp`` SDK client, lists every tool page, then keeps the connection,
pinging it while idle. When the server dies or stops answering, it is started again after a
backoff (doubling up to a cap, reset after a healthy spell); its last known tools stay searchable
meanwhile, and calls get an error result saying it is restarting. A ``notifications/tools/
list_changed`` from the server makes it list its tools again. A stdio server is started in a new
session (its own process group); when the connection closes, on every exit path of the gateway
that unwinds (end of input, Ctrl-C, SIGTERM, errors) and on each restart, the whole group is
stopped (:mod:`..catalog.process_group`): the SDK alone stops the server but not the helpers of
a server that exits promptly.

It also lists the server's resources, resource templates and prompts (when it advertises them;
a failure there costs only those lists), forwards reads, prompts, completions and resource
subscriptions, and reports resource updates (:mod:`.features`, :mod:`.protocol`). The client
probes ``server/discover`` and falls back to ``initialize``: a server of either protocol era
works. A 2026-07-28 server has no standing notifications, so its changes and updates come
through one ``subscriptions/listen`` stream, reopened when the subscribed URIs change.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..catalog.mcp_client import http_headers
from ..catalog.sources import LiveSource, parse_live_source
from .features import UpstreamFeatures

#: Seconds between pings of an idle upstream (a dead stdio server is noticed within this).
PING_INTERVAL = 5.0
#: First and longest wait before an upstream is started again.
BACKOFF_FIRST = 0.5
BACKOFF_MAX = 30.0
#: Connected this long without failing: the next failure starts the backoff over.
HEALTHY_AFTER = 60.0


class ResultTooLarge(Exception):
    """A call's answer was larger than a message may be (``$TOOLSEARCH_MCP_MAX_MESSAGE_SIZE``)."""


class UpstreamUnavailable(Exception):
    """The upstream cannot take a call now (starting, restarting, or gave up)."""


@dataclass
class UpstreamStatus:
    """What the gateway knows about one upstream (for messages and ``--dry-run``)."""

    state: str = "starting"  # starting | ready | restarting
    starts: int = 0
    last_error: str | None = None
    listed_at: float | None = None
    #: Why its resources, templates or prompts could not be listed (its tools are served anyway).
    features_error: str | None = None


@dataclass
class Upstream:
    """One live MCP source (``[alias=]mcp+stdio:...`` or ``mcp+http(s)://...``) behind the gateway."""

    source: str
    timeout: float = 30.0
    #: Called (in the event loop) whenever the tool list is (re)read: the gateway re-indexes.
    on_tools: Callable[[Upstream], None] | None = None
    #: Called (in the event loop) when its resources, templates or prompts changed (:mod:`.features`).
    on_features: Callable[[Upstream], None] | None = None
    #: Called (in the event loop) with the server's own URI of a subscribed resource that changed.
    on_updated: Callable[[Upstream, str], None] | None = None
    ping_interval: float = PING_INTERVAL
    backoff_first: float = BACKOFF_FIRST
    backoff_max: float = BACKOFF_MAX
    #: Where the server's stderr goes (``None``: discarded).
    errlog: Any = None
    #: From ``serve --config``: variables added to a stdio server's environment, its working
    #: folder, and headers sent to an HTTP server (beside ``$TOOLSEARCH_MCP_HEADERS``'s).
    env: dict[str, str] = field(default_factory=dict, repr=False)
    cwd: str | None = None
    headers: dict[str, str] = field(default_factory=dict, repr=False)
    live: LiveSource = field(init=False)
    server_name: str | None = field(init=False, default=None)
    raw_tools: list[dict[str, Any]] = field(init=False, default_factory=list)
    status: UpstreamStatus = field(init=False, default_factory=UpstreamStatus)
    features: UpstreamFeatures = field(init=False, default_factory=UpstreamFeatures)
    #: Resource URIs (the server's own) the gateway's clients are subscribed to, with how many.
    subscriptions: dict[str, int] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        import anyio

        from ..catalog.lenient import mcp_settings
        from ..catalog.mcp_transport import (
            max_exchange_bytes,
        )

        self.live = parse_live_source(self.source)
        #: The bounds of what the server sends ($TOOLSEARCH_MCP_MAX_MESSAGE_SIZE, _MAX_TOOLS,
        #: _MAX_EXCHANGE_SIZE, _MAX_MESSAGES) and its headers: the run's MCP settings, read once.
        self._mcp = mcp_settings()
        self.max_message_bytes = self._mcp.max_message_bytes
        self.max_tools = self._mcp.max_tools
        self.max_exchange_bytes = max_exchange_bytes(self.max_message_bytes, self._mcp)
        self.max_exchange_messages = self._mcp.max_messages
        self._meter = self._new_meter()
        self._client: Any = None
        self._changed = anyio.Event()
        self._broken = anyio.Event()
        #: Set when the set of subscribed URIs changed (a 2026-07-28 server's listen stream reopens).
        self._resubscribe = anyio.Event()
        #: A 2026-07-28 server's listen stream: whether one is kept, the URIs of the one the server
        #: acknowledged, and an event set (and replaced) at each acknowledgment.
        self._listen_kept = False
        self._listening: frozenset[str] = frozenset()
        self._listen_ready = anyio.Event()
        #: Set once the first attempt finished (listed its tools, or failed).
        self.first_attempt = anyio.Event()

    def _new_meter(self) -> Any:
        from ..catalog.mcp_transport import Meter

        return Meter(self.max_message_bytes, self.max_exchange_bytes, self.max_exchange_messages)

    @property
    def ready(self) -> bool:
        return self._client is not None

    async def run(self) -> None:
        """Connect, list, keep alive; on failure wait and start again. Runs until cancelled."""
        import anyio

        delay = self.backoff_first
        while True:
            self.status.starts += 1
            connected_at: list[float] = []
            try:
                await self._connect_and_serve(connected_at)
                problem = "closed the connection"
            except anyio.get_cancelled_exc_class():
                raise
            except Exception as exc:  # noqa: BLE001 - any failure of the server restarts it
                meter = self._meter  # a stdio line over the bound ended the connection: say that
                if meter.ended:
                    problem = f"the server {meter.refused}"
                elif isinstance(_leaf(exc), TimeoutError):
                    problem = f"the server did not answer within {self.timeout:g} s{meter.still_sending()}"
                else:
                    problem = _describe(exc)
            finally:
                self._client = None
                self.first_attempt.set()
            self.status.state = "restarting"
            self.status.last_error = problem
            if connected_at and time.monotonic() - connected_at[0] > HEALTHY_AFTER:
                delay = self.backoff_first
            await anyio.sleep(delay)
            delay = min(delay * 2, self.backoff_max)

    async def _connect_and_serve(self, connected_at: list[float]) -> None:
        import anyio
        import mcp_types as types
        from mcp import Client, StdioServerParameters
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        from ..catalog.mcp_transport import bounded_stdio_client, mcp_http_client, streamable_http
        from ..catalog.process_group import group_stopped_async, own_group_command

        meter = self._meter = self._new_meter()  # one per connection

        async def on_message(message: Any) -> None:
            if isinstance(
                message,
                types.ToolListChangedNotification
                | types.PromptListChangedNotification
                | types.ResourceListChangedNotification,
            ):
                self._changed.set()
            elif isinstance(message, types.ResourceUpdatedNotification) and self.on_updated is not None:
                self.on_updated(self, str(message.params.uri))
            await anyio.lowlevel.checkpoint()

        async with contextlib.AsyncExitStack() as stack:
            if self.live.transport == "stdio":
                errlog = self.errlog
                if errlog is None:
                    errlog = stack.enter_context(open(os.devnull, "w", encoding="utf-8"))  # noqa: SIM115
                # the server and every process it starts are stopped when the connection ends
                pidfile = await stack.enter_async_context(group_stopped_async(self.live))
                command = own_group_command(self.live.command, pidfile)
                params = StdioServerParameters(
                    command=command[0], args=command[1:], env={**os.environ, **self.env}, cwd=self.cwd
                )
                server: Any = bounded_stdio_client(params, errlog, meter)
            else:
                headers = {**http_headers(self._mcp.headers), **self.headers}
                http = await stack.enter_async_context(
                    mcp_http_client(meter, headers, self.timeout if headers else None)
                )
                server = streamable_http(self.live.url, meter, http)
            # (the handshake is bounded by the read timeout: a cancel scope may not span the
            # entry of a context that stays open)
            client = await stack.enter_async_context(
                Client(server, read_timeout_seconds=self.timeout, cache=None, message_handler=on_message)
            )
            with anyio.fail_after(self.timeout):
                await self._list(client)
                await self._list_features(client)
                await self._subscribe_again(client)
            self._client = client
            self._broken = anyio.Event()
            self.status.state = "ready"
            self.status.last_error = None
            self.first_attempt.set()
            connected_at.append(time.monotonic())
            # a handshake-era server pushes list_changed and answers ping; a 2026-07-28 server has
            # neither on this connection, so listing again is both its health check and its re-index
            modern = client.protocol_version in MODERN_PROTOCOL_VERSIONS
            if not modern:
                await self._keep_alive(client, modern)
                return
            async with anyio.create_task_group() as listening:
                # its change notices (and resource updates) come only through a listen stream
                listening.start_soon(self._listen, client)
                await self._keep_alive(client, modern)

    async def _keep_alive(self, client: Any, modern: bool) -> None:
        import anyio

        while True:
            with anyio.move_on_after(self.ping_interval):
                async with anyio.create_task_group() as wait:

                    async def changed() -> None:
                        await self._changed.wait()
                        wait.cancel_scope.cancel()

                    async def broken() -> None:
                        await self._broken.wait()
                        wait.cancel_scope.cancel()

                    wait.start_soon(changed)
                    wait.start_soon(broken)
            if self._broken.is_set():
                raise ConnectionError("a call found the connection broken")
            with anyio.fail_after(self.timeout):
                if self._changed.is_set() or modern:
                    self._changed = anyio.Event()
                    await self._list(client)
                    await self._list_features(client)
                else:
                    await client.send_ping()

    async def _list(self, client: Any) -> None:
        from ..catalog.mcp_transport import ListingGuard, ListingTooLarge

        tools: list[dict[str, Any]] = []
        cursor: str | None = None
        guard = ListingGuard(self._meter, self.max_tools)  # tools, pages, bytes; no cursor twice
        while True:
            mark = self._meter.refusals
            try:
                page = await client.list_tools(cursor=cursor)
            except Exception:
                refused = self._meter.refused_since(mark)
                if refused is not None:  # the answer was too big: the reason, not the SDK's wording of it
                    raise ConnectionError(f"the server {refused}") from None
                raise
            tools.extend(t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in page.tools)
            try:
                cursor = guard.next_page(len(tools), page.next_cursor)
            except ListingTooLarge as exc:
                raise ConnectionError(f"the server {exc}") from None
            if cursor is None:
                break
        info = client.server_info
        name = info.name if info else None
        changed = tools != self.raw_tools or name != self.server_name
        self.server_name = name
        self.raw_tools = tools
        self.status.listed_at = time.time()
        if changed and self.on_tools is not None:
            self.on_tools(self)

    async def _list_features(self, client: Any) -> None:
        """Read its resources, resource templates and prompts (each only when the server
        advertises it). A list the server fails to give is left empty and said in
        :attr:`UpstreamStatus.last_error` style on the status: its tools stay served."""
        from ..catalog.mcp_transport import ListingGuard, ListingTooLarge

        caps = client.server_capabilities
        resources_cap = getattr(caps, "resources", None)
        prompts_cap = getattr(caps, "prompts", None)
        found = UpstreamFeatures(
            has_resources=resources_cap is not None,
            has_prompts=prompts_cap is not None,
            can_subscribe=bool(getattr(resources_cap, "subscribe", False)),
            has_completions=getattr(caps, "completions", None) is not None,
        )
        wanted: list[tuple[str, str, str]] = []
        if found.has_resources:
            wanted += [
                ("resources", "list_resources", "resources"),
                ("templates", "list_resource_templates", "resource_templates"),
            ]
        if found.has_prompts:
            wanted.append(("prompts", "list_prompts", "prompts"))
        for target, method, attribute in wanted:
            items: list[dict[str, Any]] = []
            cursor: str | None = None
            guard = ListingGuard(self._meter, self.max_tools)
            try:
                while True:
                    page = await getattr(client, method)(cursor=cursor, cache_mode="bypass")
                    items.extend(
                        i.model_dump(by_alias=True, exclude_none=True, mode="json") for i in getattr(page, attribute)
                    )
                    cursor = guard.next_page(len(items), page.next_cursor)
                    if cursor is None:
                        break
            except ListingTooLarge as exc:
                self.status.features_error = f"{target}: {str(exc).replace('tools/list', method)}"
                items = []
            except Exception as exc:  # noqa: BLE001 - a broken list of resources never takes the tools down
                from mcp.shared.exceptions import MCPError

                if not isinstance(exc, MCPError):
                    raise  # the connection itself failed: restart as for tools
                self.status.features_error = f"{target}: {_describe(exc)}"
                items = []
            setattr(found, target, items)
        changed = found != self.features
        self.features = found
        if changed and self.on_features is not None:
            self.on_features(self)

    async def _subscribe_again(self, client: Any) -> None:
        """After a (re)connection of a handshake-era server: its subscriptions made again."""
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        if client.protocol_version in MODERN_PROTOCOL_VERSIONS or not self.features.can_subscribe:
            return
        for uri in list(self.subscriptions):
            try:
                await client.session.subscribe_resource(uri)
            except Exception:  # noqa: BLE001 - a resource gone since: its subscribers hear nothing more
                continue

    async def _listen(self, client: Any) -> None:
        """A 2026-07-28 server's change notices and resource updates, through one
        ``subscriptions/listen`` stream (opened again when the subscribed URIs change, or after a
        drop). A server that does not serve it is listed again every ping interval instead."""
        caps = client.server_capabilities
        tools_cap = getattr(caps, "tools", None)
        if not (
            getattr(tools_cap, "list_changed", False) or getattr(getattr(caps, "resources", None), "subscribe", False)
        ):
            return  # the server does not serve subscriptions/listen
        import anyio

        if self._listen_ready.is_set():  # set when a former connection's stream ended
            self._listen_ready = anyio.Event()
        self._listen_kept = True
        try:
            await self._listen_loop(client)
        finally:
            self._listen_kept = False
            self._listening = frozenset()
            self._listen_ready.set()  # nobody waits for a stream that will not come

    async def _listen_loop(self, client: Any) -> None:
        import anyio
        from mcp.client.subscriptions import ResourceUpdated

        failures = 0
        while failures < 3:
            self._resubscribe = anyio.Event()
            uris = sorted(self.subscriptions) if self.features.can_subscribe else []
            try:
                async with anyio.create_task_group() as stream:

                    async def reopen() -> None:
                        await self._resubscribe.wait()
                        stream.cancel_scope.cancel()

                    stream.start_soon(reopen)
                    async with client.listen(
                        tools_list_changed=True,
                        prompts_list_changed=self.features.has_prompts,
                        resources_list_changed=self.features.has_resources,
                        resource_subscriptions=uris,
                    ) as subscription:
                        failures = 0
                        self._listening = frozenset(uris)  # acknowledged: a subscriber may rely on it
                        ready, self._listen_ready = self._listen_ready, anyio.Event()
                        ready.set()
                        async for event in subscription:
                            if isinstance(event, ResourceUpdated):
                                if self.on_updated is not None:
                                    self.on_updated(self, event.uri)
                            else:
                                self._changed.set()
                    stream.cancel_scope.cancel()
                if not self._resubscribe.is_set():  # the server ended the stream: not in a tight loop
                    await anyio.sleep(1.0)
            except anyio.get_cancelled_exc_class():
                raise
            except Exception:  # noqa: BLE001 - no stream: listing every ping interval still sees changes
                failures += 1
                await anyio.sleep(self.ping_interval)

    async def subscribe(self, uri: str) -> None:
        """Count one more client subscription of the server's ``uri`` (the first subscribes upstream)."""
        count = self.subscriptions.get(uri, 0)
        self.subscriptions[uri] = count + 1
        if count:
            return
        await self._resubscribe_upstream(uri, True)

    async def unsubscribe(self, uri: str) -> None:
        """Count one client subscription of ``uri`` less (the last unsubscribes upstream)."""
        count = self.subscriptions.get(uri, 0)
        if count <= 1:
            self.subscriptions.pop(uri, None)
            if count == 1:
                await self._resubscribe_upstream(uri, False)
        else:
            self.subscriptions[uri] = count - 1

    async def _resubscribe_upstream(self, uri: str, on: bool) -> None:
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        client = self._client
        if client is None:
            return  # made again when it is back (_subscribe_again)
        if client.protocol_version in MODERN_PROTOCOL_VERSIONS:
            import anyio

            self._resubscribe.set()  # the listen stream reopens with the new set of URIs
            # a subscription holds once the server acknowledged a stream with the URI (an update
            # published before that would be lost)
            with anyio.move_on_after(self.timeout):
                while on and self._listen_kept and uri not in self._listening:
                    await self._listen_ready.wait()
            return
        session = client.session
        await self._forward(lambda: session.subscribe_resource(uri) if on else session.unsubscribe_resource(uri))

    async def read_resource(self, uri: str) -> Any:
        """Forward ``resources/read`` (the server's own URI); its ``ReadResourceResult``."""
        client = self._client
        return await self._forward(lambda: client.read_resource(uri, cache_mode="bypass"))

    async def complete(self, ref: Any, argument: dict[str, str], context: dict[str, str] | None) -> Any:
        """Forward ``completion/complete`` (``ref`` in the server's own names); its ``CompleteResult``."""
        client = self._client
        return await self._forward(lambda: client.complete(ref, argument, context))

    async def get_prompt(self, name: str, arguments: dict[str, str] | None) -> Any:
        """Forward ``prompts/get``; its ``GetPromptResult``."""
        client = self._client
        return await self._forward(lambda: client.get_prompt(name, arguments))

    async def call(self, name: str, arguments: dict[str, Any], timeout: float | None = None) -> Any:
        """Forward a call; the server's ``CallToolResult``. Raises :class:`UpstreamUnavailable`
        when the server is down, and whatever the connection raised when it broke mid-call (the
        upstream is then restarted)."""
        client = self._client
        return await self._forward(lambda: client.call_tool(name, arguments), timeout)

    async def _forward(self, request: Callable[[], Any], timeout: float | None = None) -> Any:
        """Send one request on the live connection, bounded by the timeout; the errors as
        :meth:`call` documents them."""
        import anyio

        client = self._client
        if client is None or self._broken.is_set():  # down, or broken and about to be restarted
            state = "starting" if self.status.state == "starting" else "restarting"
            said = f" (last error: {self.status.last_error})" if self.status.last_error else ""
            raise UpstreamUnavailable(f"the server is {state}{said}; try again shortly")
        meter = self._meter
        mark = meter.refusals
        try:
            with anyio.fail_after(timeout or self.timeout):
                return await request()
        except anyio.get_cancelled_exc_class():
            raise
        except TimeoutError:
            said = f"the server did not answer within {timeout or self.timeout:g} s{meter.still_sending()}"
            raise TimeoutError(said) from None
        except Exception as exc:
            from mcp.shared.exceptions import MCPError

            if not isinstance(exc, MCPError) or "closed" in exc.message.lower():
                self._broken.set()  # a broken connection: restart now, not at the next ping
            refused = meter.refused_since(mark)
            if refused is not None:  # this call's answer was too big (or, on stdio, one while it ran)
                raise ResultTooLarge(f"the server {refused}") from None
            if "Server-sent event exceeded" in str(exc):  # the SDK's bound on an event, set to ours
                raise ResultTooLarge(f"the server {meter.refuse()}") from None
            raise


def _leaf(exc: BaseException) -> BaseException:
    """The first leaf of (possibly nested) exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _describe(exc: BaseException) -> str:
    exc = _leaf(exc)
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def describe_error(exc: BaseException) -> str:
    """One line for an upstream failure (the first leaf of exception groups)."""
    return _describe(exc)
