"""The gateway's MCP surface beyond tools, and what the 2026-07-28 protocol asks of it.

:class:`ProtocolHub` is bound to one :class:`~.server.GatewayServer`:

- **Resources and prompts** of the upstreams (:mod:`.features`): ``resources/list``,
  ``resources/templates/list``, ``resources/read``, ``resources/subscribe`` and
  ``resources/unsubscribe`` (handshake era), ``prompts/list`` and ``prompts/get``, each
  forwarded to the upstream that has the name or URI. The ``resources`` and ``prompts``
  capabilities are advertised only while some upstream has them (``resources.subscribe`` only
  while one takes subscriptions); without them those methods answer -32601.
- **Change notices**: on the handshake era, every connected session is told
  ``notifications/resources/list_changed`` and ``notifications/prompts/list_changed`` when the
  merged list changes, and ``notifications/resources/updated`` for a URI it subscribed to. On
  2026-07-28 the same events, and ``notifications/tools/list_changed`` when the gateway's
  ``tools/list`` answer changes, go through ``subscriptions/listen`` streams (the SDK's
  :class:`~mcp.server.subscriptions.ListenHandler` over an in-process bus); a listen stream's
  resource URIs are subscribed upstream while it is open.
- **One tool list for every 2026-07-28 request**: that protocol forbids a ``tools/list`` that
  changes per connection as a side effect of other requests, so ``--disclose list-changed`` is
  not applied there: such requests are served call-through (found tools run through
  ``callTool``), the search result says so in one line (``note``), and the gateway's log says it
  once. ``tools/list`` carries ``ttlMs``/``cacheScope`` (:func:`list_cache_hint`).
- **Searching resources and prompts beside tools**: when some upstream has them, ``toolSearch``
  takes ``include: ["resources", "prompts"]``; its result then has ``resources`` and ``prompts``
  arrays (the best matches, at most ``maxResults`` each) beside ``tools``. Without ``include``
  a search is what it always was. ``include`` is for the client application (a model cannot
  read a resource or get a prompt itself), so it is not in the ``toolSearch`` schema a model
  is shown: the tool list costs no more tokens for it.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any, Literal

from ..printable import shown
from .features import INCLUDE_KINDS, FeatureRoute, Features, clean

if TYPE_CHECKING:
    from .gateway import CallResult

#: How long (ms) a client may keep the gateway's ``tools/list``, resource and prompt lists: the
#: upstreams are looked at again every few seconds (``PING_INTERVAL``); a listener is told at once.
LIST_TTL_MS = 5_000
#: Bounds of what one client may ask the gateway to hold: subscriptions per connection, resource
#: URIs per listen stream, concurrent listen streams.
MAX_SUBSCRIPTIONS = 256
MAX_LISTEN_STREAMS = 256
#: Items per page of the gateway's resources, templates and prompts lists.
PAGE_SIZE = 500
#: Seconds one notification may take to reach a client before it is given up.
NOTIFY_SECONDS = 5.0

MODERN_NOTE = (
    "list-changed disclosure is off on the 2026-07-28 protocol (a server's tool list may not change per "
    "connection there): run found tools with callTool {name, arguments}"
)


def is_modern(ctx: Any) -> bool:
    """Whether the request came on the 2026-07-28 (stateless) protocol."""
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    return getattr(ctx, "protocol_version", None) in MODERN_PROTOCOL_VERSIONS


def list_cache_hint(*, per_request: bool, per_session: bool) -> tuple[int, Literal["public", "private"]]:
    """``(ttlMs, cacheScope)`` of a ``tools/list`` answer: never cached when it depends on the
    session (list-changed, handshake era) or on the caller (a context header, a bearer token's
    context: the protocol lets a list differ by the caller's authorization); else kept for
    :data:`LIST_TTL_MS` and shareable (it is the same for every client: ``public``)."""
    if per_session or per_request:
        return 0, "private"
    return LIST_TTL_MS, "public"


class ProtocolHub:
    """Resources, prompts, subscriptions and the 2026-07-28 rules of one gateway server."""

    def __init__(self, binding: Any, notice: Callable[[str], None] | None = None) -> None:
        """``binding``: the :class:`~.server.GatewayServer` (its gateway, upstreams, serving loop,
        ``public_digest()``, the digest of ``tools/list`` as 2026-07-28 requests with no context
        get it, and ``listed_changed()``, whether the list of a context such requests came with changed)."""
        from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler

        self.binding = binding
        self.gateway = binding.gateway
        self.upstreams = binding.upstreams
        self.features = Features()
        self.bus = InMemorySubscriptionBus()
        self.listen_handler = ListenHandler(self.bus, max_subscriptions=MAX_LISTEN_STREAMS)
        self.notice = notice
        #: Handshake-era connections seen (by id), to tell of list changes; forgotten when closed.
        self.connections: dict[int, Any] = {}
        #: Per connection (id): the served URIs it subscribed to.
        self.subscribed: dict[int, set[str]] = {}
        #: Per upstream resource (source, its own URI): the served URIs subscribers know it by.
        self.targets: dict[tuple[str, str], set[str]] = {}
        self._said_modern = False
        self._tools_digest: str | None = None

    # -- wiring ---------------------------------------------------------------------------------

    def attach(self) -> None:
        """Follow the upstreams' resources, prompts and updates, and the gateway's re-indexes."""
        for upstream in self.upstreams.values():
            upstream.on_features = self._features_changed
            upstream.on_updated = self._updated
        self.features.rebuild(self._upstream_features())
        from .ops import upstream_name

        for upstream in self.upstreams.values():
            problem = upstream.status.features_error
            if problem is not None and self.notice is not None:
                self.notice(f"warning: {upstream_name(upstream)}: not served: its {problem} (its tools are)")
        self._tools_digest = self._public_tools_digest()
        self.gateway.on_rebuild.append(self._after_rebuild)

    def register(self, server: Any) -> None:
        """Add the handlers to the SDK server, and the middleware that notes each connection."""
        import mcp_types as types

        handlers: list[tuple[str, type[Any], Any]] = [
            ("resources/list", types.PaginatedRequestParams, self.list_resources),
            ("resources/templates/list", types.PaginatedRequestParams, self.list_templates),
            ("resources/read", types.ReadResourceRequestParams, self.read_resource),
            ("resources/subscribe", types.SubscribeRequestParams, self.subscribe),
            ("resources/unsubscribe", types.UnsubscribeRequestParams, self.unsubscribe),
            ("prompts/list", types.PaginatedRequestParams, self.list_prompts),
            ("prompts/get", types.GetPromptRequestParams, self.get_prompt),
            ("subscriptions/listen", types.SubscriptionsListenRequestParams, self.listen),
            ("completion/complete", types.CompleteRequestParams, self.complete),
        ]
        for method, params, handler in handlers:
            server.add_request_handler(method, params, handler)
        server.middleware.append(self._note_connection)

    def capabilities(self, caps: Any, protocol_version: str | None) -> Any:
        """The SDK's capabilities (derived from the handlers) cut to what the upstreams have now."""
        import mcp_types as types
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        modern = protocol_version in MODERN_PROTOCOL_VERSIONS
        features = self.features
        update: dict[str, Any] = {}
        update["resources"] = (
            types.ResourcesCapability(subscribe=bool(features.can_subscribe), list_changed=True)
            if features.has_resources
            else None
        )
        update["prompts"] = types.PromptsCapability(list_changed=True) if features.has_prompts else None
        completes = features.can_complete and (features.has_prompts or features.has_resources)
        update["completions"] = types.CompletionsCapability() if completes else None
        if modern and caps.tools is not None:
            update["tools"] = types.ToolsCapability(list_changed=True)  # told through subscriptions/listen
        return caps.model_copy(update=update)

    def _upstream_features(self) -> list[tuple[str, str, Any]]:
        out = []
        for source, upstream in self.upstreams.items():
            alias = str(upstream.live.alias or upstream.server_name or "mcp")
            out.append((source, alias, upstream.features))
        return out

    # -- permissions: a server's resources and prompts obey its tools' per-server ``requires`` --------

    def _server_requires(self) -> dict[str, dict[str, list[str]]]:
        """Per upstream alias, the context attributes the config's policy requires to see anything of it."""
        from .policy import requires_lists

        policy = self.gateway.settings.tool_policy
        rules = getattr(policy, "rules", None) or {}
        return {alias: requires_lists(rule.requires) for alias, rule in rules.items() if rule.requires}

    def _may_see(self, ctx: Any) -> Callable[[str], bool]:
        """Whether the request may see the resources and prompts of the upstream with this alias
        (what it may not see is neither listed, searched, read, completed, subscribed nor got)."""
        required = self._server_requires()
        if not required:
            return lambda alias: True
        from ..model import attributes_allow

        context = self.binding._context(ctx)
        return lambda alias: attributes_allow(required.get(alias, {}), context)

    def _upstream_alias(self, source: str) -> str:
        upstream = self.upstreams.get(source)
        if upstream is None:
            return ""
        return str(upstream.live.alias or upstream.server_name or "mcp")

    def _list_hint(self) -> tuple[int, Literal["public", "private"]]:
        """Lists that differ by the request's context (a per-server ``requires``, read from a header
        or a token) are never cached nor shared."""
        settings = self.gateway.settings
        per_request = bool(self._server_requires()) and settings.context_per_caller
        return list_cache_hint(per_request=per_request, per_session=False)

    # -- change notices ---------------------------------------------------------------------------

    def _spawn(self, function: Any, *args: Any) -> None:
        spawn = self.binding.spawn
        if spawn is not None:
            spawn(function, *args)

    def _features_changed(self, _: Any) -> None:
        """An upstream's resources, templates or prompts changed (runs on the serving loop)."""
        from mcp.server.subscriptions import PromptsListChanged, ResourcesListChanged

        changed = self.features.rebuild(self._upstream_features())
        if "resources" in changed:
            self._spawn(self.bus.publish, ResourcesListChanged())
            self._tell_connections("send_resource_list_changed")
        if "prompts" in changed:
            self._spawn(self.bus.publish, PromptsListChanged())
            self._tell_connections("send_prompt_list_changed")

    def _updated(self, upstream: Any, uri: str) -> None:
        """A subscribed resource changed upstream: its subscribers are told, by the URI they know."""
        from mcp.server.subscriptions import ResourceUpdated

        served = self.targets.get((upstream.source, uri), set())
        for outward in sorted(served):
            self._spawn(self.bus.publish, ResourceUpdated(uri=outward))
            for key, uris in list(self.subscribed.items()):
                connection = self.connections.get(key)
                if connection is not None and outward in uris:
                    self._spawn(_send, connection, "send_resource_updated", outward)

    def _tell_connections(self, method: str) -> None:
        for connection in list(self.connections.values()):
            self._spawn(_send, connection, method)

    def _after_rebuild(self) -> None:
        """After a re-index (from any thread): a 2026-07-28 listener is told when ``tools/list``
        (as every 2026-07-28 request gets it) changed."""
        self.binding.on_loop(self._check_tools)

    def _check_tools(self) -> None:
        from mcp.server.subscriptions import ToolsListChanged

        with self.gateway.lock:
            digest = self._public_tools_digest()
            seen_by_some = self.binding.listed_changed()  # a token's or a header's context
        if digest != self._tools_digest or seen_by_some:
            self._tools_digest = digest
            self._spawn(self.bus.publish, ToolsListChanged())

    def _public_tools_digest(self) -> str:
        return str(self.binding.public_digest())

    async def _note_connection(self, ctx: Any, call_next: Any) -> Any:
        """Middleware: remember each handshake-era connection (to tell it of list changes) until it closes."""
        if not is_modern(ctx):
            connection = getattr(getattr(ctx, "session", None), "_connection", None)
            if connection is not None and id(connection) not in self.connections:
                key = id(connection)
                self.connections[key] = connection
                stack = getattr(connection, "exit_stack", None)
                if stack is not None:
                    stack.push_async_callback(self._forget, key)
        return await call_next(ctx)

    async def _forget(self, key: int) -> None:
        import anyio

        self.connections.pop(key, None)
        with anyio.CancelScope(shield=True):
            for uri in self.subscribed.pop(key, set()):
                await self._release(uri)

    # -- 2026-07-28 ----------------------------------------------------------------------------------

    def disclose_for(self, ctx: Any) -> Any:
        """The disclosure of this request: call-through on 2026-07-28, else the gateway's."""
        disclose = self.gateway.settings.disclose
        if disclose == "list-changed" and is_modern(ctx):
            if not self._said_modern and self.notice is not None:
                self._said_modern = True
                self.notice(
                    "toolsearch serve: --disclose list-changed is not applied to 2026-07-28 clients (a server's "
                    "tools/list may not change per connection there); they are served call-through"
                )
            return "call-through"
        return disclose

    def modern_note(self, ctx: Any, result: CallResult) -> CallResult:
        """A search result of a 2026-07-28 request under ``--disclose list-changed``, with its one-line note."""
        if self.gateway.settings.disclose != "list-changed" or not is_modern(ctx) or result.is_error:
            return result
        return _with_body(result, lambda body: body.setdefault("note", MODERN_NOTE))

    # -- toolSearch beside resources and prompts -------------------------------------------------------

    @property
    def searchable(self) -> list[str]:
        has = (self.features.has_resources, self.features.has_prompts)
        return [kind for kind, there in zip(INCLUDE_KINDS, has, strict=True) if there]

    def split_include(self, arguments: Any) -> tuple[Any, list[str], str | None]:
        """``toolSearch`` arguments without ``include``, the kinds it asked for, and what is wrong
        with it (``None``: nothing). Left as they are when nothing beside tools is searchable."""
        if not isinstance(arguments, dict) or "include" not in arguments or not self.searchable:
            return arguments, [], None
        rest = {k: v for k, v in arguments.items() if k != "include"}
        value = arguments["include"]
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            return rest, [], f"'include' must be a list of {', '.join(map(repr, self.searchable))}"
        unknown = [v for v in value if v not in self.searchable]
        if unknown:
            return rest, [], f"'include' takes {', '.join(map(repr, self.searchable))}, not {shown(unknown[0])[:80]!r}"
        return rest, list(dict.fromkeys(value)), None

    def add_features(self, result: CallResult, kinds: list[str], arguments: Any, ctx: Any = None) -> CallResult:
        """A search result with the resources and prompts that match its query (``kinds`` asked)."""
        if not kinds or result.is_error or not isinstance(arguments, dict):
            return result
        from ..search.base import DEFAULT_MAX_RESULTS, MAX_RESULTS_LIMIT

        query = arguments.get("query")
        if not isinstance(query, str):
            return result
        limit = arguments.get("maxResults", self.gateway.settings.default_max_results or DEFAULT_MAX_RESULTS)
        limit = limit if isinstance(limit, int) and 0 < limit <= MAX_RESULTS_LIMIT else DEFAULT_MAX_RESULTS
        found = self.features.search(query, kinds, limit, visible=self._may_see(ctx))

        def add(body: dict[str, Any]) -> None:
            body.update(found)
            body["how"] = (
                str(body.get("how") or "")
                + " Resources are read with resources/read {uri}; prompts are fetched with prompts/get "
                "{name, arguments}."
            ).strip()

        return _with_body(result, add)

    # -- handlers --------------------------------------------------------------------------------

    def _need(self, has: bool, method: str) -> None:
        import mcp_types as types
        from mcp.shared.exceptions import MCPError

        if not has:
            raise MCPError(types.METHOD_NOT_FOUND, f"Method not found: {method} (no upstream server has it)")

    async def list_resources(self, ctx: Any, params: Any) -> Any:
        import mcp_types as types

        self._need(self.features.has_resources, "resources/list")
        see = self._may_see(ctx)
        items, cursor = page([r for r in self.features.resources if see(r.alias)], params)
        ttl, scope = self._list_hint()
        return types.ListResourcesResult(
            resources=_valid(types.Resource, items), next_cursor=cursor, ttl_ms=ttl, cache_scope=scope
        )

    async def list_templates(self, ctx: Any, params: Any) -> Any:
        import mcp_types as types

        self._need(self.features.has_resources, "resources/templates/list")
        see = self._may_see(ctx)
        items, cursor = page([t for t in self.features.templates if see(t.alias)], params)
        templates = _valid(types.ResourceTemplate, items)
        ttl, scope = self._list_hint()
        return types.ListResourceTemplatesResult(
            resource_templates=templates, next_cursor=cursor, ttl_ms=ttl, cache_scope=scope
        )

    async def list_prompts(self, ctx: Any, params: Any) -> Any:
        import mcp_types as types

        self._need(self.features.has_prompts, "prompts/list")
        see = self._may_see(ctx)
        items, cursor = page([p for p in self.features.prompts if see(p.alias)], params)
        ttl, scope = self._list_hint()
        return types.ListPromptsResult(
            prompts=_valid(types.Prompt, items), next_cursor=cursor, ttl_ms=ttl, cache_scope=scope
        )

    def _resource(self, uri: str, ctx: Any = None) -> tuple[FeatureRoute, Any]:
        import mcp_types as types
        from mcp.shared.exceptions import MCPError

        route = self.features.resource_route(uri)
        upstream = self.upstreams.get(route.source) if route is not None else None
        # a server the request may not see: the answer a URI no server has gets
        if route is None or upstream is None or not self._may_see(ctx)(self._upstream_alias(route.source)):
            raise MCPError(types.INVALID_PARAMS, f"no server has the resource {_short(uri)}")
        return route, upstream

    async def read_resource(self, ctx: Any, params: Any) -> Any:
        import mcp_types as types

        self._need(self.features.has_resources, "resources/read")
        uri = str(params.uri)
        route, upstream = self._resource(uri, ctx)
        listed = any(r.data["uri"] == uri for r in self.features.resources)
        # a templated URI may carry the user's data: the log names only listed ones
        async with self._logged(ctx, "resources/read", upstream, uri=uri if listed else None):
            raw = await _forwarded(upstream, f"resource {_short(uri)}", upstream.read_resource(route.original))
        data = self.features.map_result(route.source, _dump(raw), asked=uri)
        return types.ReadResourceResult.model_validate(data)

    async def get_prompt(self, ctx: Any, params: Any) -> Any:
        import mcp_types as types
        from mcp.shared.exceptions import MCPError

        self._need(self.features.has_prompts, "prompts/get")
        route = self.features.prompt_route(params.name)
        upstream = self.upstreams.get(route.source) if route is not None else None
        if route is None or upstream is None or not self._may_see(ctx)(self._upstream_alias(route.source)):
            raise MCPError(types.INVALID_PARAMS, f"no prompt named {_short(str(params.name))!r} is available")
        arguments = {str(k): str(v) for k, v in (params.arguments or {}).items()}
        what = f"prompt {_short(params.name)!r}"
        async with self._logged(ctx, "prompts/get", upstream, prompt=params.name):  # its arguments never
            raw = await _forwarded(upstream, what, upstream.get_prompt(route.original, arguments))
        data = self.features.map_result(route.source, _dump(raw))
        return types.GetPromptResult.model_validate(data)

    @contextlib.asynccontextmanager
    async def _logged(self, ctx: Any, method: str, upstream: Any, **names: Any) -> AsyncIterator[None]:
        """One ``--log`` record per forwarded read or prompt: its method, server, the names given,
        whether it worked and how long it took (never an argument value)."""
        started = time.perf_counter()
        ok = False
        try:
            yield
            ok = True
        finally:
            session = self.binding._session(ctx)
            self.gateway._record(
                {
                    "event": "feature",
                    "method": method,
                    "session": session.id if session is not None else None,
                    "server": str(upstream.live.alias or upstream.server_name or "mcp"),
                    **names,
                    "ok": ok,
                    "ms": round((time.perf_counter() - started) * 1000, 3),
                }
            )

    async def complete(self, ctx: Any, params: Any) -> Any:
        """``completion/complete`` of a prompt's or a template's argument, asked of its upstream
        in its own names; the values made printable (none from an upstream that does not complete)."""
        import mcp_types as types
        from mcp.shared.exceptions import MCPError

        features = self.features
        self._need(bool(features.can_complete), "completion/complete")
        ref = params.ref
        if isinstance(ref, types.PromptReference):
            route = features.prompt_route(ref.name)
            original: Any = types.PromptReference(name=route.original) if route is not None else None
            what = f"prompt {_short(ref.name)!r}"
        else:
            route = features.template_route(ref.uri) or features.resource_route(ref.uri)
            original = types.ResourceTemplateReference(uri=route.original) if route is not None else None
            what = f"resource {_short(ref.uri)}"
        upstream = self.upstreams.get(route.source) if route is not None else None
        if route is None or upstream is None or not self._may_see(ctx)(self._upstream_alias(route.source)):
            raise MCPError(types.INVALID_PARAMS, f"no server has the {what}")
        if route.source not in features.can_complete:
            return types.CompleteResult(completion=types.Completion(values=[]))
        argument = {"name": params.argument.name, "value": params.argument.value}
        context = dict(params.context.arguments or {}) if params.context is not None else None
        raw = await _forwarded(upstream, what, upstream.complete(original, argument, context))
        data = clean(_dump(raw), keys=("values",))
        return types.CompleteResult.model_validate(data)

    async def subscribe(self, ctx: Any, params: Any) -> Any:
        import mcp_types as types
        from mcp.shared.exceptions import MCPError

        self._need(self.features.has_resources and bool(self.features.can_subscribe), "resources/subscribe")
        uri = str(params.uri)
        connection = getattr(ctx.session, "_connection", None)
        key = id(connection)
        mine = self.subscribed.setdefault(key, set())
        if uri not in mine:
            if len(mine) >= MAX_SUBSCRIPTIONS:
                raise MCPError(types.INVALID_PARAMS, f"at most {MAX_SUBSCRIPTIONS} subscriptions per session")
            await self._hold(uri, ctx)
            mine.add(uri)
        return types.EmptyResult()

    async def unsubscribe(self, ctx: Any, params: Any) -> Any:
        import mcp_types as types

        self._need(self.features.has_resources and bool(self.features.can_subscribe), "resources/unsubscribe")
        uri = str(params.uri)
        mine = self.subscribed.get(id(getattr(ctx.session, "_connection", None)), set())
        if uri in mine:
            mine.discard(uri)
            await self._release(uri)
        return types.EmptyResult()

    async def _hold(self, uri: str, ctx: Any = None) -> None:
        import mcp_types as types
        from mcp.shared.exceptions import MCPError

        route, upstream = self._resource(uri, ctx)
        if route.source not in self.features.can_subscribe:
            raise MCPError(types.INVALID_PARAMS, f"the server of {_short(uri)} does not take subscriptions")
        self.targets.setdefault((route.source, route.original), set()).add(uri)
        await _forwarded(upstream, f"resource {_short(uri)}", upstream.subscribe(route.original))

    async def _release(self, uri: str) -> None:
        route = self.features.resource_route(uri)
        upstream = self.upstreams.get(route.source) if route is not None else None
        if route is None or upstream is None:
            return
        try:
            await upstream.unsubscribe(route.original)
        except Exception:  # noqa: BLE001 - the upstream is gone or restarting: nothing to undo there
            pass
        if not upstream.subscriptions.get(route.original):
            self.targets.pop((route.source, route.original), None)

    async def listen(self, ctx: Any, params: Any) -> Any:
        """``subscriptions/listen``: the SDK's handler, with the stream's resource URIs
        subscribed upstream while it is open."""
        import anyio
        import mcp_types as types
        from mcp.shared.exceptions import MCPError

        wanted = list(dict.fromkeys(params.notifications.resource_subscriptions or []))
        if len(wanted) > MAX_SUBSCRIPTIONS:
            raise MCPError(types.INVALID_PARAMS, f"at most {MAX_SUBSCRIPTIONS} resource subscriptions per stream")
        held: list[str] = []
        try:
            for uri in wanted:
                try:
                    await self._hold(uri, ctx)
                    held.append(uri)
                except MCPError:
                    if self.features.has_resources:
                        continue  # an unknown URI: honoured, never fires (as the SDK does)
                    raise
            return await self.listen_handler(ctx, params)
        finally:
            with anyio.CancelScope(shield=True):
                for uri in held:
                    await self._release(uri)


def page(items: list[Any], params: Any, size: int = PAGE_SIZE) -> tuple[list[Any], str | None]:
    """One page of a list and the cursor of the next (``None``: the last). A cursor is the
    offset the gateway gave; any other is refused (-32602)."""
    import mcp_types as types
    from mcp.shared.exceptions import MCPError

    cursor = getattr(params, "cursor", None)
    start = 0
    if cursor is not None:
        if not (isinstance(cursor, str) and cursor.isdigit() and len(cursor) <= 12):
            raise MCPError(types.INVALID_PARAMS, "invalid cursor")
        start = int(cursor)
    end = start + size
    return items[start:end], (str(end) if end < len(items) else None)


def _valid(model: Any, served: list[Any]) -> list[Any]:
    """The served items as SDK models (an item the model refuses is left out)."""
    out = []
    for item in served:
        try:
            out.append(model.model_validate(item.data))
        except Exception:  # noqa: BLE001 - an odd field from an upstream costs only that item
            continue
    return out


def _dump(raw: Any) -> dict[str, Any]:
    dumped = raw.model_dump(by_alias=True, exclude_none=True, mode="json")
    meta = dumped.get("_meta")
    if isinstance(meta, dict):  # the upstream's own protocol stamps are not the gateway's to forward
        kept = {k: v for k, v in meta.items() if not k.startswith("io.modelcontextprotocol/")}
        if kept:
            dumped["_meta"] = kept
        else:
            dumped.pop("_meta")
    return dumped  # type: ignore[no-any-return]


def _short(text: str) -> str:
    text = shown(text)
    return text if len(text) <= 120 else text[:117] + "..."


async def _forwarded(upstream: Any, what: str, request: Any) -> Any:
    """Await a forwarded request; an upstream failure as an MCP error the client can read."""
    import mcp_types as types
    from mcp.shared.exceptions import MCPError

    from .upstream import ResultTooLarge, UpstreamUnavailable, describe_error

    alias = shown(str(upstream.live.alias or upstream.server_name or "mcp"))  # never its command or URL
    try:
        return await request
    except MCPError as exc:  # the upstream's own answer (an unknown URI, bad arguments): passed on, printable
        raise MCPError(exc.error.code, f"{what}: {_short(exc.error.message)}") from None
    except UpstreamUnavailable as exc:
        raise MCPError(types.INTERNAL_ERROR, f"{what}: server {alias} is unavailable: {exc}") from None
    except (ResultTooLarge, TimeoutError) as exc:
        raise MCPError(types.INTERNAL_ERROR, f"{what}: {exc}") from None
    except Exception as exc:  # noqa: BLE001 - never a crash of the gateway
        raise MCPError(types.INTERNAL_ERROR, f"{what}: the server failed: {describe_error(exc)}") from None


def _with_body(result: CallResult, change: Callable[[dict[str, Any]], Any]) -> CallResult:
    """A search result whose JSON text is changed by ``change`` (an empty search becomes ``{"tools": []}``)."""
    from .gateway import CallResult

    text = "".join(block.get("text", "") for block in result.content if isinstance(block, dict))
    try:
        body = json.loads(text)
    except ValueError:
        return result
    if isinstance(body, list):
        body = {"tools": body} if body else {"tools": []}
    elif isinstance(body, dict) and "names" in body and "tools" not in body:
        body = {"tools": [], **{k: v for k, v in body.items() if k != "names"}}
    if not isinstance(body, dict):
        return result
    change(body)
    return CallResult.text(json.dumps(body, ensure_ascii=False, separators=(",", ":")))


async def _send(connection: Any, method: str, *args: Any) -> None:
    import anyio

    with anyio.move_on_after(NOTIFY_SECONDS):  # a client that does not read costs no more
        try:
            await getattr(connection, method)(*args)
        except Exception:  # noqa: BLE001 - a gone client: nothing to tell
            pass
