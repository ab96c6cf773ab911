"""``toolsearch serve --dry-run``: what the client would see, what it costs, and what listing every
upstream tool instead would cost (tokens counted as :mod:`toolsearch_cli.tokens` counts them)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..catalog.sources import LiveSource, parse_live_source
from ..errors import CatalogError
from ..tokens import get_counter, tool_tokens, tools_tokens
from .gateway import Gateway, Settings


@dataclass
class Listed:
    """An upstream's answer as the dry run read it (the gateway reads these fields)."""

    source: str
    server_name: str | None
    raw_tools: list[dict[str, Any]]
    live: LiveSource = field(init=False)

    def __post_init__(self) -> None:
        self.live = parse_live_source(self.source)


@dataclass
class DryRun:
    """The dry run's findings (``to_dict`` is the JSON output)."""

    listed: list[dict[str, Any]]
    listed_tokens: int
    all_tools: int
    all_tokens: int
    sources: list[dict[str, Any]]
    disclose: str
    counter: str
    failed: list[str]
    #: The gateway names of every tool the context may see (what toolSearch can return).
    names: list[str] = field(default_factory=list)
    #: ``--locked``: the tools the lockfile keeps out, each as one line saying why (and the tools
    #: the injection rule holds back).
    quarantined: list[str] = field(default_factory=list)
    #: The one line about catalog-file tools no upstream runs (``None``: none left out).
    left_out: str | None = None
    #: The lines of ``failed`` that are of required upstreams (a ``--config``'s ``required: false``
    #: ones are not): only these make the dry run fail.
    required_failed: list[str] = field(default_factory=list)

    @property
    def saving_percent(self) -> float:
        return 100.0 * (self.all_tokens - self.listed_tokens) / self.all_tokens if self.all_tokens else 0.0

    @property
    def break_even_tools(self) -> int | None:
        """When the gateway's list costs more than listing every upstream tool: the count of tools
        of today's average size from which listing them would cost more (``None`` when it already does)."""
        if self.listed_tokens <= self.all_tokens or not self.all_tools or not self.all_tokens:
            return None
        return self.listed_tokens * self.all_tools // self.all_tokens + 1

    def to_dict(self) -> dict[str, Any]:
        return {
            "disclose": self.disclose,
            "tools": self.listed,
            "tokens": {
                "counter": self.counter,
                "listed": self.listed_tokens,
                "all_upstream_tools": self.all_tokens,
                "all_upstream_tool_count": self.all_tools,
                "saving_percent": round(self.saving_percent, 2),
                "break_even_tools": self.break_even_tools,
            },
            "sources": self.sources,
            "failed": self.failed,
            "required_failed": self.required_failed,
            "searchable": self.names,
            "quarantined": self.quarantined,
            "left_out": self.left_out,
        }


def dry_run(settings: Settings, counter: str = "cl100k_base") -> DryRun:
    """List every source once (live servers concurrently, then stopped) and measure both tool lists."""
    from ..catalog.mcp_client import fetch_live_sources
    from .registry_feed import RegistryFeed
    from .server import GatewaySources, check_catalog_via, load_static

    lockfile = None
    if settings.locked is not None:
        from ..lock import Lockfile

        lockfile = Lockfile.read(settings.locked)
    by_use = GatewaySources.of(settings.sources)
    check_catalog_via(settings, by_use)
    static = load_static(by_use.not_live if lockfile is None else by_use.static, settings.catalog_format)
    # with a lockfile, registry tools are keyed as the running gateway keys them (registry:NAMESPACE)
    feeds = [RegistryFeed(s) for s in by_use.registries] if lockfile is not None else []
    live = [s.text for s in by_use.live]
    fetched = fetch_live_sources(live, ttl=0, launch=settings.launch) if live else {}
    listed: list[Listed] = []
    failed: list[str] = []
    required_failed: list[str] = []
    for source in live:
        answer = fetched[source]
        if isinstance(answer, CatalogError):
            alias = parse_live_source(source).alias
            if alias:  # named by its alias, never its command line (an argument may be a token)
                answer.file = alias
            if len(live) == 1 and not any(t.function is not None for t in static.tools):
                raise answer
            failed.append(str(answer))
            if settings.required is None or alias in settings.required:
                required_failed.append(failed[-1])
            continue
        listed.append(Listed(source, *answer))
    quarantined: list[str] = []
    gateway = Gateway(
        settings, static=static, upstreams=listed, registries=feeds, lockfile=lockfile, notice=quarantined.append
    )
    gateway.check_resident()
    count = get_counter(counter)
    context = gateway.context_for(None)
    tools = gateway.listed_tools(context, None)
    visible = [t for t in gateway.catalog.tools if t.visible_to(context)]
    sources: dict[str, dict[str, Any]] = {}
    shown_upstream = {upstream.source: upstream.live.shown for upstream in listed}  # no credentials
    for tool in visible:
        route = gateway.routes[tool.name]
        shown = shown_upstream.get(route.source, route.source)
        # every tool served runs (an upstream's, a Python module's): "callable" stays for readers of the JSON
        entry = sources.setdefault(shown, {"source": shown, "kind": route.kind, "tools": 0, "callable": True})
        entry["tools"] += 1
    return DryRun(
        listed=[{"name": t.name, "tokens": tool_tokens(t, count)} for t in tools],
        listed_tokens=tools_tokens(tools, count),
        all_tools=len(visible),
        all_tokens=tools_tokens(visible, count),
        sources=list(sources.values()),
        disclose=settings.disclose,
        counter=count.name,
        failed=failed,
        names=[t.name for t in visible],
        quarantined=[line.removeprefix("warning: ") for line in quarantined],
        left_out=(gateway.left_out_line() or "").removeprefix("warning: ") or None,
        required_failed=required_failed,
    )
