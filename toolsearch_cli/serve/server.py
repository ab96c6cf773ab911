"""The gateway as an MCP server: the official SDK's low-level ``Server`` over stdio or streamable HTTP.

:func:`run_gateway` loads the static sources, starts every upstream concurrently, waits for
their first listing (bounded by the timeout), then serves until the client goes away (stdio:
end of input) or the process is interrupted; leaving it stops every upstream (and so every
upstream process group) whatever the exit path.

Sessions: over stdio the process serves one client, its one session. Over streamable HTTP, on
the handshake protocol (every MCP client in use today) a connection (``Mcp-Session-Id``) is one
session; its disclosed names live in the SDK's per-connection state. The 2026-07-28 HTTP wire
has no session: there each request stands alone, so list-changed disclosure has nothing to
remember and ``callTool`` is the way to run a found tool.
"""

from __future__ import annotations

import contextvars
import hashlib
import json
import sys
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..catalog.sources import LiveSource, Source
from ..errors import CatalogError, ToolsearchError, UsageError
from ..model import Catalog, Tool
from ..registry.http_source import HttpRegistrySource
from ..registry.kind import RegistryCatalogSource
from .gateway import CALL_TOOL_NAME, CallResult, Gateway, Refused, SessionState, Settings, python_result
from .upstream import ResultTooLarge, UpstreamUnavailable, describe_error

_STATE_KEY = "toolsearch.session"
#: Distinct request contexts whose ``tools/list`` is checked after a re-index for the 2026-07-28
#: protocol's change notice (:meth:`GatewayServer.listed_changed`): one listing each per re-index;
#: a client naming ever new context headers pushes out only the oldest.
MAX_LISTED_CONTEXTS = 64
#: Seconds one ``list_changed`` may take to reach a client before it is given up.
NOTIFY_SECONDS = 5.0
_RESERVED_META = "io.modelcontextprotocol/"


@dataclass(frozen=True)
class GatewaySources:
    """The gateway's sources by what it does with them, each once, in the order given: live MCP
    servers (started, their tools callable), registry namespaces (followed live) and the rest
    (loaded once: files searchable, Python modules callable)."""

    live: list[LiveSource]
    registries: list[RegistryCatalogSource | HttpRegistrySource]
    static: list[Source]
    all: list[Source]

    @property
    def not_live(self) -> list[Source]:
        """The registries and the static sources, in the order given (a dry run without a
        lockfile loads a registry's namespace once, as a file)."""
        return [s for s in self.all if not isinstance(s, LiveSource)]

    @classmethod
    def of(cls, sources: list[Source]) -> GatewaySources:
        live: list[LiveSource] = []
        registries: list[RegistryCatalogSource | HttpRegistrySource] = []
        static: list[Source] = []
        for source in sources:
            if isinstance(source, LiveSource):
                live.append(source)
            elif isinstance(source, RegistryCatalogSource | HttpRegistrySource):
                registries.append(source)
            else:
                static.append(source)
        return cls(live, registries, static, list(sources))


def load_static(sources: list[Source], catalog_format: str | None = None) -> Catalog:
    """``sources`` loaded and merged (none: an empty catalog)."""
    if not sources:
        return Catalog(tools=[])
    from ..catalog.loading import load_catalog

    return load_catalog(sources, catalog_format)


def wire_tool(tool: Tool) -> Any:
    """A gateway tool as an MCP ``Tool`` of ``tools/list``."""
    import mcp_types as types

    data: dict[str, Any] = {"name": tool.name, "description": tool.description, "inputSchema": tool.parameters}
    if tool.title:
        data["title"] = tool.title
    mcp = tool.metadata.get("mcp")
    if isinstance(mcp, dict) and isinstance(mcp.get("annotations"), dict):
        data["annotations"] = mcp["annotations"]
    try:
        return types.Tool.model_validate(data)
    except Exception:  # noqa: BLE001 - odd annotations from an upstream: list the tool without them
        data.pop("annotations", None)
        return types.Tool.model_validate(data)


def wire_result(result: CallResult) -> Any:
    """A call's result as the client gets it: its text cleaned of escape codes and invisible
    characters (:mod:`.safety`), an upstream's own protocol stamps dropped."""
    import mcp_types as types

    from .safety import clean_content, clean_result

    if result.raw is not None:
        raw = clean_result(result.raw)
        meta = getattr(raw, "meta", None)
        if isinstance(meta, dict) and any(k.startswith(_RESERVED_META) for k in meta):
            # the upstream's own protocol stamps (its serverInfo...) are not the gateway's to forward
            kept = {k: v for k, v in meta.items() if not k.startswith(_RESERVED_META)}
            return raw.model_copy(update={"meta": kept or None})
        return raw
    data: dict[str, Any] = {"content": clean_content(result.content), "isError": result.is_error}
    if result.structured is not None:
        data["structuredContent"] = result.structured
    return types.CallToolResult.model_validate(data)


def listing_digest(wired: list[Any]) -> str:
    """A digest of a ``tools/list`` answer as the client gets it (names, descriptions, schemas)."""
    digest = hashlib.sha256()
    for tool in wired:
        dumped = tool.model_dump(mode="json", by_alias=True, exclude_none=True)
        digest.update(json.dumps(dumped, sort_keys=True, ensure_ascii=False).encode("utf-8", "replace"))
        digest.update(b"\0")
    return digest.hexdigest()


@dataclass
class _Watch:
    """A list-changed session the gateway can notify: its connection (handshake protocol), the
    context of its latest request, and the digest of the tool list it was last shown or told of."""

    session: SessionState
    connection: Any
    context: dict[str, str]
    digest: str


class GatewayServer:
    """Binds a :class:`Gateway` to the SDK: ``tools/list`` and ``tools/call`` handlers."""

    def __init__(
        self,
        gateway: Gateway,
        upstreams: dict[str, Any],
        *,
        stdio: bool = True,
        notice: Callable[[str], None] | None = None,
    ) -> None:
        from .protocol import ProtocolHub

        self.gateway = gateway
        self.upstreams = upstreams
        #: Resources, prompts, subscriptions and the 2026-07-28 rules (:mod:`.protocol`).
        self.protocol = ProtocolHub(self, notice)
        #: Over stdio the process serves one client: one session, whatever the protocol era.
        self.stdio_session = SessionState(id=uuid.uuid4().hex[:12]) if stdio else None
        #: list-changed: the sessions to tell when a re-index changes their list (by session id).
        self._watches: dict[str, _Watch] = {}
        #: The contexts (``--tokens``, ``--context-header``) 2026-07-28 requests were listed tools
        #: with, each with the digest of the list it was shown, most recent last (at most
        #: :data:`MAX_LISTED_CONTEXTS`): a change any of them sees is told to every listener.
        self._listed_contexts: OrderedDict[tuple[tuple[str, str], ...], tuple[dict[str, str], str]] = OrderedDict()
        #: Starts a task in the serving task group (set once serving); without it nothing is sent.
        self.spawn: Callable[..., Any] | None = None
        if gateway.settings.disclose == "list-changed":
            gateway.on_rebuild.append(self._after_rebuild)
        #: The serving event loop (set once serving): registry watchers' threads reach it through it.
        self.loop: Any = None
        #: The serving task's context variables (set once serving). A callback scheduled from
        #: another thread runs in that thread's context, where anyio cannot tell which async
        #: library runs the loop, so ``spawn`` would fail there; it runs in a copy of this one.
        self.loop_context: contextvars.Context | None = None

    def bind(self, spawn: Callable[..., Any]) -> None:
        """Serve from the running event loop: tasks start through ``spawn`` (a task group's
        ``start_soon``); call from the serving task."""
        import asyncio

        self.spawn = spawn
        self.loop = asyncio.get_running_loop()
        self.loop_context = contextvars.copy_context()

    def build(self) -> Any:
        from mcp.server.lowlevel.server import NotificationOptions, Server

        from .._version import __version__

        list_changed = self.gateway.settings.disclose == "list-changed"
        hub = self.protocol

        class GatewayMCPServer(Server):  # type: ignore[type-arg]
            """Advertises ``tools.listChanged`` exactly when list-changed disclosure is on (stdio
            and every streamable HTTP session build their options here), and resources and
            prompts only while some upstream has them."""

            def create_initialization_options(self, notification_options: Any = None, *args: Any, **kw: Any) -> Any:
                options = notification_options or NotificationOptions(tools_changed=list_changed)
                return super().create_initialization_options(options, *args, **kw)

            def get_capabilities(self, *args: Any, **kw: Any) -> Any:
                return hub.capabilities(super().get_capabilities(*args, **kw), kw.get("protocol_version"))

        server = GatewayMCPServer(
            "toolsearch",
            version=__version__,
            instructions=(
                "Most tools are not listed up front: find them with toolSearch (plain-language query), "
                "then run one with callTool {name, arguments}."
            ),
            on_list_tools=self.list_tools,
            on_call_tool=self.call_tool,
        )
        hub.register(server)
        return server

    # -- request helpers --------------------------------------------------------------------------

    def _context(self, ctx: Any) -> dict[str, str]:
        from .edge import token_context

        header = None
        name = self.gateway.settings.context_header
        request = getattr(ctx, "request", None)
        if name and request is not None:
            headers = getattr(request, "headers", None)
            if headers is not None:  # given twice: refused at the edge (EdgeMiddleware)
                header = headers.get(name)
        token = token_context(request) if request is not None else None
        return self.gateway.context_for(header, token)

    def _session(self, ctx: Any) -> SessionState | None:
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        if self.stdio_session is not None:
            return self.stdio_session
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return None  # no HTTP session on this protocol: each request stands alone
        connection = getattr(ctx.session, "_connection", None)  # the SDK's per-connection state
        state = getattr(connection, "state", None)
        if not isinstance(state, dict):
            return None
        session = state.get(_STATE_KEY)
        if session is None:
            session = state[_STATE_KEY] = SessionState(id=uuid.uuid4().hex[:12])
        return session  # type: ignore[no-any-return]

    # -- list_changed after a re-index -----------------------------------------------------------

    def _digest_now(self, context: dict[str, str], session: SessionState) -> str:
        return listing_digest(self._wired(context, session, None))

    def public_digest(self) -> str:
        """The digest of ``tools/list`` as every 2026-07-28 request (no context header) gets it."""
        return listing_digest(self._wired(self.gateway.context_for(None), None, "call-through"))

    def note_listed(self, context: dict[str, str], digest: str) -> None:
        """A 2026-07-28 request was listed tools with ``context`` (a token's or a header's) and
        shown the list of ``digest``; the most recent :data:`MAX_LISTED_CONTEXTS` are kept."""
        key = tuple(sorted(context.items()))
        self._listed_contexts[key] = (context, digest)
        self._listed_contexts.move_to_end(key)
        while len(self._listed_contexts) > MAX_LISTED_CONTEXTS:
            self._listed_contexts.popitem(last=False)

    def listed_changed(self) -> bool:
        """Whether the list of some context a 2026-07-28 request was listed tools with differs now
        from what it was shown (each then noted as shown the new list). Such a listener is told
        through the one subscription every listener shares, so a change only an admin's token
        sees (an admin-only resident tool) must be told too; the others list again and find
        their list as it was."""
        changed = False
        for key, (context, shown) in list(self._listed_contexts.items()):
            now = listing_digest(self._wired(context, None, "call-through"))
            if now != shown:
                self._listed_contexts[key] = (context, now)
                changed = True
        return changed

    def _wired(self, context: dict[str, str], session: SessionState | None, disclose: Any) -> list[Any]:
        """``tools/list`` as the client gets it (``disclose``: this request's disclosure)."""
        return [wire_tool(t) for t in self.gateway.listed_tools(context, session, disclose)]

    def _watch(self, ctx: Any, session: SessionState | None, context: dict[str, str]) -> _Watch | None:
        """The session's watch (made on its first request), or ``None`` when it cannot be told:
        call-through (its list never changes), or no session, or the 2026-07-28 protocol (where a
        change notification reaches a client only through a subscription it opened)."""
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        if session is None or self.gateway.settings.disclose != "list-changed":
            return None
        connection = getattr(ctx.session, "_connection", None)
        if connection is None or getattr(connection, "protocol_version", None) in MODERN_PROTOCOL_VERSIONS:
            return None
        watch = self._watches.get(session.id)
        if watch is None or watch.connection is not connection:
            watch = _Watch(session, connection, context, self._digest_now(context, session))
            self._watches[session.id] = watch
            stack = getattr(connection, "exit_stack", None)
            if stack is not None:  # forgotten when the connection closes (HTTP sessions come and go)
                stack.callback(self._forget, session.id, connection)
        watch.context = context
        return watch

    def _forget(self, session_id: str, connection: Any) -> None:
        watch = self._watches.get(session_id)
        if watch is not None and watch.connection is connection:
            del self._watches[session_id]

    def _after_rebuild(self) -> None:
        """After a re-index or a registry change (from any thread): notify each watched session
        whose list differs from the one it was last shown or told of (a disclosed tool removed or
        changed, a resident tool changed). The check runs on the serving loop."""
        self.on_loop(self._check_watches)

    def on_loop(self, check: Callable[[], None]) -> None:
        """Run ``check`` on the serving loop, from any thread: now when called on it, else soon
        (with the loop's context variables); nothing before the loop runs or once it is closing."""
        import asyncio

        loop = self.loop
        if loop is None:
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            check()
            return
        context = self.loop_context.copy() if self.loop_context is not None else None
        try:
            loop.call_soon_threadsafe(check, context=context)
        except RuntimeError:  # the loop is closing: nobody to tell
            pass

    catalog_changed = _after_rebuild

    def _check_watches(self) -> None:
        spawn = self.spawn
        if spawn is None:
            return
        with self.gateway.lock:  # a registry watcher's thread changes the catalog under it
            for watch in list(self._watches.values()):
                try:
                    digest = self._digest_now(watch.context, watch.session)
                except Exception:  # noqa: BLE001 - never let one session break the re-index
                    continue
                if digest != watch.digest:
                    watch.digest = digest
                    spawn(self._notify, watch.connection)

    @staticmethod
    async def _notify(connection: Any) -> None:
        import anyio

        with anyio.move_on_after(NOTIFY_SECONDS):  # a client that does not read costs no more
            try:
                await connection.send_tool_list_changed()
            except Exception:  # noqa: BLE001 - the client re-lists on its next search or list anyway
                pass

    # -- handlers ---------------------------------------------------------------------------------

    def _recheck_lockfile(self) -> None:
        """``serve --locked``: an updated lockfile takes effect at the next request."""
        if self.gateway.lockfile is not None:
            with self.gateway.lock:
                self.gateway.refresh_lockfile()

    async def list_tools(self, ctx: Any, params: Any) -> Any:
        import mcp_types as types

        self._recheck_lockfile()
        from .protocol import is_modern, list_cache_hint

        context, session = self._context(ctx), self._session(ctx)
        disclose = self.protocol.disclose_for(ctx)  # call-through on 2026-07-28: one list for all
        wired = self._wired(context, session, disclose)
        if self.gateway.settings.context_per_caller and is_modern(ctx):
            with self.gateway.lock:
                self.note_listed(context, listing_digest(wired))
        watch = self._watch(ctx, session, context)
        if watch is not None:
            watch.digest = listing_digest(wired)
        ttl, scope = list_cache_hint(
            per_request=self.gateway.settings.context_per_caller, per_session=disclose == "list-changed"
        )
        return types.ListToolsResult(tools=wired, ttl_ms=ttl, cache_scope=scope)

    async def call_tool(self, ctx: Any, params: Any) -> Any:
        started = time.perf_counter()
        self._recheck_lockfile()
        gateway = self.gateway
        context = self._context(ctx)
        session = self._session(ctx)
        name = params.name
        arguments = params.arguments
        watch = self._watch(ctx, session, context)
        disclose = self.protocol.disclose_for(ctx)
        if name == gateway.search_tool_name:
            arguments, kinds, problem = self.protocol.split_include(arguments or {})
            if problem is not None:
                return wire_result(CallResult.error("invalid-arguments", problem))
            with gateway.lock:
                result, changed = gateway.search(arguments, context, session, disclose)
            result = self.protocol.modern_note(ctx, self.protocol.add_features(result, kinds, arguments, ctx))
            if changed:
                if watch is not None and session is not None:
                    watch.digest = self._digest_now(context, session)
                try:
                    await ctx.session.send_tool_list_changed()
                except Exception:  # noqa: BLE001 - a client that cannot take it still has callTool
                    pass
            return wire_result(result)
        if name == CALL_TOOL_NAME:
            args = arguments or {}
            unknown = [k for k in args if k not in ("name", "arguments")]
            if unknown:
                result = CallResult.error(
                    "invalid-arguments",
                    f"unknown argument {unknown[0]!r} of {CALL_TOOL_NAME}; accepted: name, arguments",
                )
                gateway.record_call(str(args.get("name")), "callTool", session, result, started)
                return wire_result(result)
            target, target_args, via = args.get("name"), args.get("arguments"), "callTool"
        else:
            with gateway.lock:
                refusal = gateway.check_direct(name, context, session, disclose)
            if refusal is not None:
                kind = "unknown-tool" if "no tool named" in refusal else "not-listed"
                result = CallResult.error("quarantined" if " is quarantined: " in refusal else kind, refusal)
                gateway.record_call(name, "direct", session, result, started)
                return wire_result(result)
            target, target_args, via = name, arguments, "direct"
        result = await self.run(target, target_args, context, session)
        gateway.record_call(str(target), via, session, result, started)
        return wire_result(result)

    async def run(self, name: Any, arguments: Any, context: dict[str, str], session: SessionState | None) -> CallResult:
        """Validate and run one call; every failure becomes an error result (``isError``)."""
        import anyio

        gateway = self.gateway
        try:
            with gateway.lock:
                tool, route, value = gateway.prepare_call(name, arguments, context)
        except Refused as exc:
            return CallResult.error(exc.kind, exc.message)
        gateway.note_call(tool.name, session)
        if route.kind == "python":
            function = tool.function
            assert function is not None
            limit = gateway.settings.timeout
            try:
                with anyio.fail_after(limit):
                    # a thread cannot be stopped: past the timeout the caller gets its answer and the
                    # thread is left to finish on its own
                    output = await anyio.to_thread.run_sync(lambda: function(**value), abandon_on_cancel=True)
                    if hasattr(output, "__await__"):
                        output = await output
            except TimeoutError:
                return CallResult.error("tool-failed", f"{tool.name} did not finish within {limit:g} s")
            except Exception as exc:  # noqa: BLE001 - the tool's failure is the model's to read
                return CallResult.error("tool-failed", f"{tool.name} failed: {describe_error(exc)}")
            return python_result(output)
        upstream = self.upstreams[route.source]
        began = time.perf_counter()
        try:
            raw = await upstream.call(route.original, value, gateway.settings.timeout)
        except UpstreamUnavailable:  # its last error names commands and paths: the operator's to read
            said = getattr(upstream.live, "alias", None) or upstream.server_name or "its server"
            return CallResult.error("upstream", f"{tool.name} cannot run now: server {said!r} is unavailable; retrying")
        except ResultTooLarge as exc:  # $TOOLSEARCH_MCP_MAX_MESSAGE_SIZE: the reason, as is
            return CallResult.error("upstream", f"{tool.name}: {exc}")
        except TimeoutError as exc:  # what the server was doing meanwhile, when the upstream knows
            said = str(exc) or f"the server did not answer within {gateway.settings.timeout:g} s"
            return CallResult.error("upstream", f"{tool.name}: {said}")
        except Exception as exc:  # noqa: BLE001 - an upstream failure is an error result, never a crash
            return CallResult.error("upstream", f"{tool.name}: the server failed: {describe_error(exc)}")
        result = CallResult([], is_error=bool(getattr(raw, "is_error", False)), raw=raw)
        result.upstream_ms = (time.perf_counter() - began) * 1000
        return result


class TrafficLog:
    """``--log FILE``: one JSON object per line, appended and flushed as it happens."""

    def __init__(self, path: str) -> None:
        from ..bounded import path_problem

        problem = path_problem(path)
        if problem is not None and problem != "no such file":
            raise UsageError(f"cannot write the traffic log: {problem}", file=path, field="log")
        try:
            self._file = open(path, "a", encoding="utf-8")  # noqa: SIM115 - open for the whole run
        except OSError as exc:
            raise UsageError(f"cannot write the traffic log: {exc.strerror or exc}", file=path, field="log") from None

    def __call__(self, record: dict[str, Any]) -> None:
        stamped = {"t": round(time.time(), 3), **record}
        self._file.write(json.dumps(stamped, ensure_ascii=False, separators=(",", ":")) + "\n")
        self._file.flush()

    def close(self) -> None:
        self._file.close()


async def run_gateway(
    settings: Settings,
    *,
    http: tuple[str, int] | None = None,
    notice: Callable[[str], None] | None = None,
    on_ready: Callable[[Gateway], None] | None = None,
    on_signal: Callable[[int], None] | None = None,
) -> None:
    """Serve until the client leaves (stdio) or the process is stopped; upstreams stop with it.

    ``on_signal`` (stdio and HTTP): on SIGTERM, SIGINT or SIGHUP the upstreams are stopped first,
    then it is called with the signal number, and it must end the process. Cancelling is not
    enough over stdio: the SDK reads stdin in a worker thread blocked in ``read()``, which a client
    that keeps stdin open never releases, so the loop would never finish unwinding. Over HTTP the
    web server's own signal handling is off (it re-raised the signal after its shutdown, which
    under an ignored SIGINT, a ``cmd &`` job, ended in a traceback and exit 1). A signal the
    process ignores (SIGINT in a background job, SIGHUP under nohup) stays ignored."""

    from .upstream import Upstream

    say = notice or (lambda text: print(text, file=sys.stderr))
    if settings.tokens is not None:
        if http is None:
            raise UsageError("--tokens needs --http: over stdio the client is the process that started the gateway")
        from .edge import read_tokens

        read_tokens(settings.tokens)  # a bad tokens file stops the gateway before anything starts
    if settings.forwarded_allow_ips is not None and http is None:
        raise UsageError("--forwarded-allow-ips needs --http", field="forwarded-allow-ips")
    if http is not None:
        check_listen(*http)  # before any upstream starts
    from .registry_feed import RegistryFeed

    lockfile = None
    if settings.locked is not None:  # a bad lockfile stops the gateway before anything starts
        from ..lock import Lockfile

        lockfile = Lockfile.read(settings.locked)
    sources = GatewaySources.of(settings.sources)
    check_catalog_via(settings, sources)
    static = load_static(sources.static, settings.catalog_format)
    if not sources.live and not any(t.function is not None for t in static.tools):
        raise UsageError(
            "nothing to serve: the catalog files' and registries' tools name no server that runs them; add the MCP "
            "servers as --catalog ALIAS=mcp+stdio:CMD or mcp+http(s)://URL (and --catalog-via ALIAS to search their "
            "tools by the files' text) or a Python module of tools"
        )
    feeds = [RegistryFeed(s) for s in sources.registries]
    log = TrafficLog(settings.log) if settings.log else None
    from .ops import Ops

    ops = Ops(settings.log_format, settings.required)  # metrics, JSON log, traces
    upstreams: dict[str, Upstream] = {}
    ops.watch(upstreams)
    gateway_box: list[Gateway] = []

    def reindex(_: Upstream) -> None:
        if gateway_box:
            with gateway_box[0].lock:
                gateway_box[0].rebuild()

    for source in sources.live:
        launch = settings.launch.get(source.text, {})  # env, headers, cwd from --config
        upstreams[source.text] = Upstream(source.text, timeout=settings.timeout, on_tools=reindex, **launch)
    try:
        gateway = Gateway(
            settings,
            static=static,
            upstreams=list(upstreams.values()),
            registries=feeds,
            log=ops.observer(log),
            lockfile=lockfile,
            notice=say,
        )
        gateway_box.append(gateway)
        await _serve_all(gateway, settings, upstreams, http, say, on_ready, on_signal, ops)
    except BaseExceptionGroup as problem:  # the task group wraps a user error: say it as one line
        raise _user_error(problem) or problem from None
    finally:
        for feed in feeds:
            feed.stop()
        if log is not None:
            log.close()


def check_catalog_via(settings: Settings, sources: GatewaySources) -> None:
    """``--catalog-via`` must name the alias of a live source."""
    alias = settings.catalog_via
    if alias is None:
        return
    aliases = [s.alias for s in sources.live if s.alias]
    if alias not in aliases:
        from ..errors import did_you_mean

        known = f"; the live sources' aliases: {', '.join(aliases)}" if aliases else " (no live source has an alias)"
        raise UsageError(
            f"--catalog-via {alias!r} names no live source (ALIAS=mcp+stdio:CMD){did_you_mean(alias, aliases)}{known}"
        )


def follow_registries(gateway: Gateway, binding: GatewayServer, say: Callable[[str], None]) -> None:
    """Start each registry source's watcher: changes applied to the gateway under its lock, the
    sessions whose list changed told (list-changed), a lost or regained connection said once."""

    def on_change(feed: Any, changes: Any) -> None:
        with gateway.lock:
            gateway.apply_registry(feed, changes)
        binding.catalog_changed()  # the sessions whose list changed are told (list-changed)

    def on_status(feed: Any, status: str) -> None:
        # said once per outage (the retries' own reasons change while it lasts), and its end
        from ..registry.sync import in_outage

        if in_outage(status) and not feed.said_down:
            feed.said_down = True
            say(f"warning: registry {feed.display}: {status} (the last good catalog)")
        elif status == "live" and feed.said_down:
            feed.said_down = False
            say(f"registry {feed.display}: following again at version {feed.version}")

    import logging

    # the watcher's own log warnings would repeat the notice (Python's last-resort handler prints them)
    logging.getLogger("toolsearch.registry").addHandler(logging.NullHandler())
    for feed in gateway.registries:
        feed.said_down = False
        feed.start(on_change, on_status)


def _user_error(problem: BaseException) -> ToolsearchError | None:
    while isinstance(problem, BaseExceptionGroup):
        found = [e for e in problem.exceptions if isinstance(e, ToolsearchError | BaseExceptionGroup)]
        if not found:
            return None
        problem = found[0]
    return problem if isinstance(problem, ToolsearchError) else None


#: On a signal, how long the upstreams get to stop before the gateway ends anyway.
UPSTREAM_STOP_SECONDS = 5.0


async def _serve_all(
    gateway: Gateway,
    settings: Settings,
    upstreams: dict[str, Any],
    http: tuple[str, int] | None,
    say: Callable[[str], None],
    on_ready: Callable[[Gateway], None] | None,
    on_signal: Callable[[int], None] | None = None,
    ops: Any = None,
) -> None:
    import anyio

    from .ops import upstream_name

    static = gateway.static
    upstream_scope = anyio.CancelScope()
    upstreams_done = anyio.Event()
    #: Start-up (the first attempts waited for, the upstreams judged, the server bound). A signal
    #: cancels it: the upstreams it stops would otherwise be judged failed, and the gateway would
    #: end with "could not be started" (exit 2) instead of the signal's line and exit code.
    starting = anyio.CancelScope()

    async def run_upstreams() -> None:
        try:
            with upstream_scope:
                async with anyio.create_task_group() as running:
                    for upstream in upstreams.values():
                        running.start_soon(upstream.run)
        finally:
            upstreams_done.set()

    async def on_signals() -> None:
        import signal

        assert on_signal is not None
        wanted = [signal.SIGTERM]
        if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:  # ignored in a `cmd &` job: stays so
            wanted.append(signal.SIGINT)
        hangup = getattr(signal, "SIGHUP", None)
        if hangup is not None and signal.getsignal(hangup) is not signal.SIG_IGN:  # not under nohup
            wanted.append(hangup)  # the terminal closed
        with anyio.open_signal_receiver(*wanted) as received:
            async for signum in received:
                starting.cancel()
                upstream_scope.cancel()  # each upstream's process group is stopped as its task unwinds
                with anyio.move_on_after(UPSTREAM_STOP_SECONDS):
                    await upstreams_done.wait()
                on_signal(signum)
                return

    async with anyio.create_task_group() as group:
        group.start_soon(run_upstreams)
        if on_signal is not None:
            group.start_soon(on_signals)
        with starting:
            with anyio.move_on_after(settings.timeout):
                for upstream in upstreams.values():
                    await upstream.first_attempt.wait()
            failed = [u for u in upstreams.values() if not u.ready]
            runs_here = any(t.function is not None for t in static.tools)
            if upstreams and len(failed) == len(upstreams) and not runs_here:
                first = failed[0]
                raise CatalogError(
                    f"the MCP server could not be started or listed: {first.status.last_error or 'no answer'}",
                    file=upstream_name(first),
                )
            for upstream in failed:
                say(
                    f"warning: {upstream_name(upstream)}: not ready ({upstream.status.last_error or 'no answer yet'}); "
                    "retrying in the background"
                )
            with gateway.lock:
                gateway.rebuild()
            left_out = gateway.left_out_line()
            if left_out is not None:
                say(left_out)
            for source, skipped in gateway.problems.items():
                more = f" (and {len(skipped) - 1} more)" if len(skipped) > 1 else ""
                say(f"warning: {upstream_name(upstreams[source])}: a tool was left out: {skipped[0]}{more}")
            gateway.check_resident()
            binding = GatewayServer(gateway, upstreams, stdio=http is None, notice=say)
            if ops is not None:
                ops.instrument(binding)  # a span per call, when the OpenTelemetry SDK is there
            server = binding.build()
            binding.bind(group.start_soon)
            binding.protocol.attach()
            follow_registries(gateway, binding, say)
            if on_ready is not None:
                on_ready(gateway)
        if starting.cancel_called:  # a signal came while starting: on_signals ends the process
            return
        if http is None:
            await _serve_stdio(server, settings)
        else:
            await _serve_http(server, settings, http, say, ops)
        group.cancel_scope.cancel()


async def _serve_stdio(server: Any, settings: Settings) -> None:
    import anyio
    from mcp.server.stdio import stdio_server
    from mcp.shared._context_streams import create_context_streams
    from mcp.shared.message import SessionMessage

    from .edge import answer_unreadable

    async with stdio_server() as (read_stream, write_stream):
        forward, relayed = create_context_streams[SessionMessage | Exception](0)
        async with anyio.create_task_group() as group:  # a line the SDK cannot parse gets an answer
            group.start_soon(answer_unreadable, read_stream, write_stream, forward)
            await server.run(relayed, write_stream, server.create_initialization_options())
            group.cancel_scope.cancel()


async def _serve_http(
    server: Any, settings: Settings, http: tuple[str, int], say: Callable[[str], None], ops: Any = None
) -> None:
    import contextlib

    import uvicorn

    from ..forwarded import proxy_options
    from .edge import ENVELOPE_BYTES, EdgeMiddleware, HashedTokens, guarded_protocol, read_tokens

    host, port = http
    shown_host = f"[{host}]" if ":" in host else host
    max_body = settings.max_argument_bytes + ENVELOPE_BYTES
    auth: dict[str, Any] = {}
    if settings.tokens is not None:  # the SDK's bearer auth: 401 without a listed token
        from mcp.server.auth.settings import AuthSettings

        auth = {
            # no authorization server here: the issuer is only the SDK's required field
            "auth": AuthSettings(issuer_url=f"http://{shown_host}:{port}", resource_server_url=None),  # type: ignore[arg-type]
            "token_verifier": HashedTokens(read_tokens(settings.tokens)),
        }
    app = server.streamable_http_app(host=host, max_request_body_size=max_body, **auth)
    if ops is not None:
        app = ops.mount(app)  # /healthz, /readyz, /metrics
    edge = EdgeMiddleware(
        app, context_header=settings.context_header, max_body=max_body, body_timeout=settings.body_timeout
    )

    class Web(uvicorn.Server):
        def capture_signals(self) -> Any:  # signals are the gateway's (run_gateway's on_signal)
            return contextlib.nullcontext()

    config = uvicorn.Config(
        edge,
        host=host,
        port=port,
        log_level="warning",
        lifespan="on",
        http=guarded_protocol(settings.header_timeout),
        **proxy_options(settings.forwarded_allow_ips),
    )
    web = Web(config)
    say(f"toolsearch serve: streamable HTTP on http://{shown_host}:{port}/mcp")
    if settings.tokens is not None and host not in ("127.0.0.1", "localhost", "::1"):
        say(
            f"warning: bearer tokens travel in plain HTTP on {shown_host}: serve on loopback behind a reverse "
            "proxy that terminates TLS"
        )
    await web.serve()


def check_listen(host: str, port: int) -> None:
    """Refuse, as one line, an address the gateway cannot listen on (the web server would exit
    with its own log lines instead)."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise UsageError(f"--http: cannot resolve {host!r}: {exc.strerror or exc}", field="http") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            raise UsageError(f"--http: cannot listen on {host}:{port}: {exc.strerror or exc}", field="http") from None


def parse_http(value: str) -> tuple[str, int]:
    """``HOST:PORT`` (or ``:PORT``, or ``PORT``: 127.0.0.1) for ``--http``."""
    host, sep, port = value.rpartition(":")
    if not sep:
        host, port = "", value
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise UsageError(f"--http takes HOST:PORT (e.g. 127.0.0.1:8765), not {value!r}", field="http")
    return host, int(port)
