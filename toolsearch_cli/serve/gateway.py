"""The gateway's core, free of any transport: catalog, names, permissions, search and calls.

One :class:`Gateway` holds the merged catalog of every source (live MCP servers through
:mod:`.upstream`, Python modules whose functions run in process, and catalog files' and registry
namespaces' tools that the ``--catalog-via`` upstream runs: only callable tools), the same
:class:`~toolsearch_cli.disclosure.manager.CatalogManager` and
:class:`~toolsearch_cli.disclosure.engine.DisclosureEngine` the ``search`` and ``simulate``
commands use (one engine per request context, sharing one index), and each client session's
disclosed names. :mod:`.server` binds it to the MCP SDK.

Names: a tool keeps its own name unless another tool (of another source) or a gateway tool
(``toolSearch``, ``callTool``) has it; then it becomes ``ALIAS__name``. Every name is cut to 64
characters (with a hash of the whole, so it stays unique).

Permissions: a tool the request's context may not see is neither found, listed nor called, and
a call of it by its exact name gets the same answer as a call of a name that does not exist.
"""

from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from ..arguments import check_arguments
from ..catalog.sources import Source, parse_source
from ..disclosure.engine import DisclosureEngine
from ..disclosure.manager import CatalogManager
from ..disclosure.search_tool import SEARCH_TOOL_NAME, SearchOutcome
from ..errors import UsageError, _middle
from ..model import Catalog, Tool
from ..search.base import DEFAULT_MAX_RESULTS
from ..search.embed_settings import EmbedSettings

CALL_TOOL_NAME = "callTool"
DISCLOSE_MODES = ("call-through", "list-changed")
Disclose = Literal["call-through", "list-changed"]
#: Distinct request contexts whose engine is kept (each holds the visible tools' token counts).
ENGINE_CACHE = 64
#: The longest result text of an in-process Python tool passed back (bytes of UTF-8).
MAX_RESULT_TEXT = 1_000_000

CALL_TOOL_DESCRIPTION = (
    "Run a tool found with toolSearch: give its exact name and its arguments as a JSON object that "
    "fits the inputSchema toolSearch returned. Arguments that do not fit are refused before anything "
    "runs, with the reason."
)


GATEWAY_SEARCH_DESCRIPTION = (
    "Search the tool catalog when the tools available now cannot do the task, or when you are not sure "
    "which tool fits. The query is matched against tool names, descriptions, parameters, categories and "
    "tags. The result lists the matching tools with their input schemas; run one with callTool. "
    "Searching does not run any tool."
)


def call_tool_definition(name: str = CALL_TOOL_NAME) -> Tool:
    """The one stable call tool of call-through disclosure."""
    return Tool(
        name=name,
        description=CALL_TOOL_DESCRIPTION,
        parameters={
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "The exact tool name toolSearch returned."},
                "arguments": {
                    "type": "object",
                    "description": "The tool's arguments, fitting its inputSchema.",
                },
            },
            "required": ["name"],
            "additionalProperties": False,
        },
        category="system",
    )


@dataclass(slots=True)
class Route:
    """How a gateway tool runs: an upstream server or a Python function (only callable tools are
    served: a catalog file's or registry's tool runs through its ``--catalog-via`` upstream)."""

    kind: Literal["mcp", "python"]
    source: str
    #: The name the upstream server knows the tool by (``mcp``).
    original: str = ""


@dataclass(slots=True)
class Quarantined:
    """A tool kept out of the gateway because the lockfile does not list it as it is now."""

    tool: Tool
    #: Its lockfile key (source, the tool's own name) and the digest of its current definition.
    key: tuple[str, str]
    sha256: str
    #: ``changed`` (the lockfile has another definition) or ``unlocked`` (no entry).
    verdict: str
    #: The fields that changed (``changed`` only).
    fields: tuple[str, ...] = ()

    def reason(self, lockfile: str) -> str:
        if self.verdict == "changed":
            words = ", ".join(self.fields) or "definition"
            return f"its definition changed since {lockfile} was written ({words})"
        return f"it is not in {lockfile}"


@dataclass
class Settings:
    """Everything ``toolsearch serve`` is told (the CLI's options, typed)."""

    #: The catalog sources (text given here is parsed once, when the settings are made; a source
    #: named twice is kept once). Empty: none (the gateway is given its tools some other way).
    sources: list[Source]
    disclose: Disclose = "call-through"
    policy: str = "latest"
    max_active: int | None = None
    ranker: str = "default"
    resident: list[str] = field(default_factory=list)
    context: dict[str, str] = field(default_factory=dict)
    #: HTTP header whose ``key=value`` pairs add context attributes per request (``None``: ignored).
    context_header: str | None = None
    default_max_results: int = DEFAULT_MAX_RESULTS
    #: Seconds an upstream has to start, list, and answer one call.
    timeout: float = 30.0
    catalog_format: str | None = None
    log: str | None = None
    #: The lockfile every tool is checked against (``--locked``): a tool it does not list as it is
    #: now is quarantined (see :class:`Gateway`); ``None``: no check.
    locked: str | None = None
    #: The embedding model of a dense ``ranker`` (``None``: the library default, ``TOOLSEARCH_EMBED_*``).
    embed: EmbedSettings | None = None
    #: The alias of the live upstream that runs the catalog files' tools (``--catalog-via``): a
    #: file's tool is served (with the file's text) while that upstream lists a tool of its name,
    #: and replaces the upstream's own entry. ``None``: file tools cannot run and are left out.
    catalog_via: str | None = None
    #: Upstream tools served although the injection rule (TS206) flags them (``--allow-flagged``):
    #: a tool's own name, or ``ALIAS__name`` for one upstream's.
    allow_flagged: list[str] = field(default_factory=list)
    #: The largest call arguments passed on (bytes of JSON); larger are refused before the upstream.
    max_argument_bytes: int = 1_000_000
    #: HTTP: seconds a client has to send a request's headers, and then its body.
    header_timeout: float = 10.0
    body_timeout: float = 30.0
    #: HTTP: the bearer tokens file (hashes, each with its context); ``None``: no authentication.
    tokens: str | None = None
    #: HTTP: the reverse proxies whose forwarded headers are believed (``None``: none).
    forwarded_allow_ips: list[str] | None = None
    #: From ``--config`` (:mod:`.config`): per live source text, how to start it beyond its text
    #: (``env``, ``headers``, ``cwd``); the operator's :class:`.policy.ToolPolicy` (``None``: none);
    #: the aliases of the upstreams ``/readyz`` waits for (``None``: every upstream).
    launch: dict[str, dict[str, Any]] = field(default_factory=dict)
    tool_policy: Any = None
    required: list[str] | None = None
    #: ``json``: the gateway's notices and each search and call as JSON lines on stderr (:mod:`.ops`).
    log_format: str = "text"

    def __post_init__(self) -> None:
        if self.disclose not in DISCLOSE_MODES:
            from ..errors import did_you_mean

            raise UsageError(
                f"unknown disclosure {self.disclose!r}{did_you_mean(self.disclose, DISCLOSE_MODES)}; "
                f"choose from {', '.join(DISCLOSE_MODES)}",
                field="disclose",
            )
        if self.max_active is not None and self.max_active < 1:
            raise UsageError(f"--max-active must be at least 1, not {self.max_active}", field="max-active")
        if self.timeout <= 0:
            raise UsageError(f"--timeout must be positive, not {self.timeout:g}", field="timeout")
        if self.max_argument_bytes < 1:
            raise UsageError(
                f"--max-argument-bytes must be at least 1, not {self.max_argument_bytes}", field="max-argument-bytes"
            )
        for option, seconds in (("header-timeout", self.header_timeout), ("body-timeout", self.body_timeout)):
            if seconds <= 0:
                raise UsageError(f"--{option} must be positive, not {seconds:g}", field=option)
        kept: dict[str, Source] = {}
        for value in self.sources:
            source = parse_source(value)
            kept.setdefault(source.text, source)
        self.sources = list(kept.values())

    @property
    def context_per_caller(self) -> bool:
        """Whether a request's context, so what it may see, can differ by caller: read from a
        header (``--context-header``) or a bearer token's attributes (``--tokens``)."""
        return bool(self.context_header or self.tokens)


@dataclass
class SessionState:
    """One client session's disclosed names (list-changed) and what the traffic log links."""

    id: str
    active: list[str] = field(default_factory=list)
    used: list[str] = field(default_factory=list)
    #: The latest search: its number in this session and its hits (for "called next" in the log).
    search_count: int = 0
    last_hits: list[str] = field(default_factory=list)


@dataclass(slots=True)
class CallResult:
    """What a tool call produced, in MCP terms: content blocks (wire dicts) and whether it failed."""

    content: list[dict[str, Any]]
    is_error: bool = False
    structured: dict[str, Any] | None = None
    #: Why the gateway refused or failed the call (``unknown-tool``, ``invalid-arguments``,
    #: ``quarantined``, ``upstream``...); ``None`` when the tool ran (even if it reported an error).
    refused: str | None = None
    upstream_ms: float | None = None
    #: The upstream server's own ``CallToolResult``, passed through untouched.
    raw: Any = None

    @classmethod
    def text(cls, text: str, *, is_error: bool = False, refused: str | None = None) -> CallResult:
        return cls([{"type": "text", "text": text}], is_error=is_error, refused=refused)

    @classmethod
    def error(cls, kind: str, message: str) -> CallResult:
        return cls.text(json.dumps({"error": message}, ensure_ascii=False), is_error=True, refused=kind)


class Gateway:
    """The catalog, engines and sessions of one ``toolsearch serve`` (transport-free)."""

    def __init__(
        self,
        settings: Settings,
        *,
        static: Catalog | None = None,
        upstreams: Sequence[Any] = (),
        registries: Sequence[Any] = (),
        log: Callable[[dict[str, Any]], None] | None = None,
        lockfile: Any = None,
        notice: Callable[[str], None] | None = None,
    ) -> None:
        self.settings = settings
        #: The :class:`~toolsearch_cli.lock.Lockfile` tools are checked against (``None``: none).
        self.lockfile = lockfile
        self._lock_stamp = _file_stamp(lockfile.path) if lockfile is not None else None
        #: Tools kept out by the lockfile, by every name a client could call them by.
        self.quarantined: dict[str, Quarantined] = {}
        #: Lockfile keys already announced as quarantined, with the digest announced.
        self._said: dict[tuple[str, str], str] = {}
        self._notice = notice
        #: Upstream tools the injection rule holds back, by every name a client could call them by.
        self.flagged: dict[str, tuple[Tool, str]] = {}
        self._said_flagged: dict[tuple[str, str], str] = {}
        self._injection: Any = None
        self._cleaned: dict[int, tuple[Tool, Tool]] = {}
        self.left_out = 0
        self.left_out_registry = 0
        self._by_feed: dict[str, str] = {}
        self.static = static or Catalog(tools=[])
        self.upstreams = list(upstreams)
        #: Registry sources followed live (:class:`.registry_feed.RegistryFeed`).
        self.registries = list(registries)
        #: Held while the catalog changes (a registry change, an upstream re-index) and while a
        #: request reads it, so a request sees the catalog before a change or after it, never half.
        self.lock = threading.RLock()
        self.search_tool_name = SEARCH_TOOL_NAME
        self.call_tool = call_tool_definition()
        self._log = log
        self._search_tool: tuple[Tool, Tool] | None = None
        self.catalog = Catalog(tools=[])
        self.routes: dict[str, Route] = {}
        self.manager = CatalogManager()
        self.version = 0
        self._engines: OrderedDict[tuple[tuple[str, str], ...], DisclosureEngine] = OrderedDict()
        #: Called (no arguments) after every re-index: the server tells sessions whose list changed.
        self.on_rebuild: list[Callable[[], None]] = []
        self.rebuild()

    # -- catalog ----------------------------------------------------------------------------------

    def rebuild(self) -> None:
        """Merge the static tools and every upstream's latest tool list; re-index (names may move
        when a collision appears or goes)."""
        from ..lock import tool_key

        entries: list[tuple[Tool, Route, str]] = []
        #: The lockfile key of each entry (made only under a lockfile: keys of files cost a path each).
        keys: list[tuple[str, str]] = []
        keyed = self.lockfile is not None
        base = self.lockfile.base if self.lockfile is not None else None
        via = self._via_upstream()
        #: Catalog files' and registry namespaces' tools, served only where the ``--catalog-via``
        #: upstream runs them (only callable tools are shown): each with its lockfile key and the
        #: registry feed's display (``None``: a file's).
        by_file: list[tuple[Tool, tuple[str, str] | None, str | None]] = []
        left_out = left_out_registry = 0
        for tool in self.static.tools:
            if tool.function is None:
                if via is None:
                    left_out += 1
                else:
                    by_file.append((tool, tool_key("file", tool, base=base) if keyed else None, None))
                continue
            source = str(tool.source.file) if tool.source is not None else "catalog"
            entries.append((tool, Route("python", source), tool.category or "catalog"))
            if keyed:
                keys.append(tool_key("file", tool, base=base))
        resident = list(self.static.resident)
        groups = list(self.static.groups)
        for feed in self.registries:
            namespace = getattr(getattr(feed, "parsed", None), "namespace", None) or feed.display
            for tool in feed.tools:
                if via is None:
                    left_out_registry += 1
                else:
                    by_file.append((tool, tool_key("registry", tool, namespace) if keyed else None, feed.display))
            resident.extend(n for n in feed.resident if n not in resident)
            groups.extend(feed.groups)
        #: Gateway-facing names of the registry tools served, with their feed's display (in-place updates).
        by_feed: dict[str, str] = {}
        problems: dict[str, list[str]] = {}
        #: The entries an upstream sent (read by the injection rule): their indexes in ``entries``.
        from_upstream: set[int] = set()
        for upstream in self.upstreams:
            if not upstream.raw_tools:
                continue
            listed, more_resident, skipped = upstream_tools(upstream)
            if skipped:
                problems[upstream.source] = skipped
            described = set()
            if upstream is via:  # the files' (and registries') tools it runs, with their text
                runs = {str((t.metadata.get("mcp_server") or {}).get("tool") or t.name) for t in listed}
                for tool, key, feed_display in by_file:
                    if tool.name in runs and tool.name not in described:
                        described.add(tool.name)
                        entries.append((tool, Route("mcp", upstream.source, tool.name), via_alias(upstream)))
                        if key is not None:
                            keys.append(key)
                        if feed_display is not None:
                            by_feed[tool.name] = feed_display
                    elif feed_display is None:
                        left_out += 1
                    else:
                        left_out_registry += 1
            for tool in listed:
                server = tool.metadata.get("mcp_server") or {}
                original = str(server.get("tool") or tool.name)
                if original in described:
                    continue
                alias = str(server.get("name") or upstream.live.alias or "mcp")
                from_upstream.add(len(entries))
                entries.append((tool, Route("mcp", upstream.source, original), alias))
                if keyed:
                    keys.append(tool_key("live", tool))
            resident.extend(n for n in more_resident if n not in resident)
        if via is not None and not via.raw_tools:
            left_out += sum(1 for _, _, feed_display in by_file if feed_display is None)
            left_out_registry += sum(1 for _, _, feed_display in by_file if feed_display is not None)
        #: How many catalog-file and registry tools no upstream runs (said once at start: see
        #: :meth:`left_out_line`); the registry's part of them.
        self.left_out = left_out + left_out_registry
        self.left_out_registry = left_out_registry
        entries, keys = self._unflagged(entries, keys, from_upstream)
        if self.lockfile is not None:
            entries = self._locked_only(entries, keys)
        entries = [(self._clean(tool), route, alias) for tool, route, alias in entries]
        if self.settings.tool_policy is not None:  # the operator's rules (serve --config)
            entries, pinned = self.settings.tool_policy.apply(entries, self._say)
            resident.extend(n for n in pinned if n not in resident)
        named = assign_names([(t.name, alias) for t, _, alias in entries], reserved={SEARCH_TOOL_NAME, CALL_TOOL_NAME})
        tools: list[Tool] = []
        routes: dict[str, Route] = {}
        renamed: dict[str, str] = {}
        for (tool, route, _), name in zip(entries, named, strict=True):
            if name != tool.name:
                renamed.setdefault(tool.name, name)
                tool = tool.copy_with(name=name)
            tools.append(tool)
            routes[name] = route
        wanted_resident = [renamed.get(n, n) for n in [*resident, *self.settings.resident]]
        resident_names = [n for n in dict.fromkeys(wanted_resident) if n in routes]
        # a group keeps the tools that are served (a file's tools left out, a tool held back)
        groups = [
            g if all(n in routes for n in g.tools) else replace(g, tools=[n for n in g.tools if n in routes])
            for g in ((replace(g, tools=[renamed.get(n, n) for n in g.tools]) if renamed else g) for g in groups)
        ]
        groups = [g for g in groups if g.tools]
        self.catalog = Catalog(tools=tools, resident=resident_names, groups=groups)
        self.routes = routes
        #: Per live source: why some of its tools were left out (a bad tool never takes the others down).
        self.problems = problems
        self._renamed = renamed
        self._by_feed = {renamed.get(n, n): d for n, d in by_feed.items() if routes.get(renamed.get(n, n))}
        self.manager = CatalogManager.from_catalog(
            self.catalog, exclude=resident_names, ranker=self.settings.ranker, embed=self.settings.embed
        )
        self._engines.clear()
        self.version += 1
        for listener in self.on_rebuild:
            listener()

    # -- what may reach the client: callable tools, cleaned text, no flagged upstream tool ----------

    def _via_upstream(self) -> Any:
        """The upstream ``--catalog-via`` names (``None``: none named, or no upstream has the alias)."""
        alias = self.settings.catalog_via
        if alias is None:
            return None
        return next((u for u in self.upstreams if getattr(u.live, "alias", None) == alias), None)

    def left_out_line(self) -> str | None:
        """The one start-up line about catalog-file tools that no upstream runs (``None``: none)."""
        if not self.left_out:
            return None
        files = self.left_out - self.left_out_registry
        parts = [f"{files} tool{'s' if files != 1 else ''} of catalog files"] if files else []
        if self.left_out_registry:
            n = self.left_out_registry
            parts.append(f"{n}{' tool' if not files else ''}{'s' if n != 1 and not files else ''} of registry sources")
        count = " and ".join(parts)
        if self.settings.catalog_via is None:
            return (
                f"warning: {count} left out: they name no server that runs them (a client sees only "
                "tools it can call; --catalog-via ALIAS names the upstream that runs them)"
            )
        return f"warning: {count} left out: upstream {self.settings.catalog_via!r} does not list them (yet)"

    def _unflagged(
        self, entries: list[tuple[Tool, Route, str]], keys: list[tuple[str, str]], from_upstream: set[int]
    ) -> tuple[list[tuple[Tool, Route, str]], list[tuple[str, str]]]:
        """The entries without the upstream tools the injection rule (TS206) flags, unless the
        operator allows them (``allow_flagged``); each held tool said once per definition."""
        from .safety import InjectionCheck

        if not from_upstream:
            self.flagged = {}
            return entries, keys
        if self._injection is None:
            self._injection = InjectionCheck()
        allowed = set(self.settings.allow_flagged)
        kept: list[tuple[Tool, Route, str]] = []
        kept_keys: list[tuple[str, str]] = []
        flagged: dict[str, tuple[Tool, str]] = {}
        said: dict[tuple[str, str], str] = {}
        for i, (tool, route, alias) in enumerate(entries):
            found = self._injection.findings(tool) if i in from_upstream else []
            if found and tool.name not in allowed and f"{alias}__{tool.name}" not in allowed:
                for name in (tool.name, f"{alias}__{tool.name}"):
                    flagged.setdefault(name, (tool, found[0]))
                key = (alias, tool.name)
                said[key] = found[0]
                if self._said_flagged.get(key) != found[0]:
                    self._say(
                        f"warning: {_middle(alias, 80)}: tool {_middle(tool.name, 80)!r} is quarantined: TS206 "
                        f"{_middle(found[0], 200)}; it is not listed, found or run (allow it with "
                        f"--allow-flagged {_middle(tool.name, 80)})"
                    )
                continue
            kept.append((tool, route, alias))
            if keys:
                kept_keys.append(keys[i])
        served = {t.name for t, _, _ in kept}
        self.flagged = {name: held for name, held in flagged.items() if name not in served}
        self._said_flagged = said
        return kept, kept_keys

    def _clean(self, tool: Tool) -> Tool:
        """The tool with its text made safe (:func:`.safety.clean_tool`), remembered per tool object."""
        from .safety import clean_tool

        held = self._cleaned.get(id(tool))
        if held is not None and held[0] is tool:
            return held[1]
        cleaned = clean_tool(tool)
        if len(self._cleaned) > 200_000:
            self._cleaned.clear()
        self._cleaned[id(tool)] = (tool, cleaned)
        return cleaned

    # -- the lockfile (serve --locked) -----------------------------------------------------------

    def _locked_only(
        self, entries: list[tuple[Tool, Route, str]], keys: list[tuple[str, str]]
    ) -> list[tuple[Tool, Route, str]]:
        """The entries the lockfile lists as they are; the others go to :attr:`quarantined`, each
        announced once (per definition) through the notice, as is one that matches again."""
        from ..lock import changed_fields, pin

        lockfile = self.lockfile
        assert lockfile is not None
        kept: list[tuple[Tool, Route, str]] = []
        held: list[tuple[Quarantined, str]] = []
        for (tool, route, alias), key in zip(entries, keys, strict=True):
            now = pin(key[0], tool, key[1])
            verdict = lockfile.verdict(key, now.sha256)
            if verdict == "locked":
                kept.append((tool, route, alias))
                if key in self._said:
                    del self._said[key]
                    self._say(
                        f"{_middle(key[0], 80)}: tool {_middle(key[1], 80)!r} matches {lockfile.path} again: served"
                    )
                continue
            before = lockfile.pins.get(key)
            fields = tuple(changed_fields(before.definition, now.definition)) if before is not None else ()
            held.append((Quarantined(tool, key, now.sha256, verdict, fields), alias))
        served = {t.name for t, _, _ in kept}
        self.quarantined = {}
        for entry, alias in held:
            for name in (entry.tool.name, f"{alias}__{entry.tool.name}"):
                if name not in served:
                    self.quarantined.setdefault(name, entry)
            if self._said.get(entry.key) != entry.sha256:
                self._said[entry.key] = entry.sha256
                source, name = (_middle(part, 80) for part in entry.key)  # a 5,000-character name stays one short line
                self._say(
                    f"warning: {source}: tool {name!r} is quarantined: {entry.reason(lockfile.path)}; "
                    f"it is not listed, found or run until {lockfile.path} records it (review it, then run "
                    "`toolsearch lock`)"
                )
        held_keys = {entry.key for entry, _ in held}
        for key in [k for k in self._said if k not in held_keys]:
            del self._said[key]  # gone upstream: nothing to hold or to say
        return kept

    def _say(self, text: str) -> None:
        if self._notice is not None:
            self._notice(text)

    def refresh_lockfile(self) -> bool:
        """Read the lockfile again when it changed on disk (checked by its size, time and inode),
        and check every tool against it; ``True`` when the catalog was rebuilt. A lockfile that
        became unreadable is said once and the one read before stays in force. Call holding
        :attr:`lock`."""
        from ..lock import Lockfile

        lockfile = self.lockfile
        if lockfile is None:
            return False
        stamp = _file_stamp(lockfile.path)
        if stamp == self._lock_stamp:
            return False
        self._lock_stamp = stamp
        try:
            self.lockfile = Lockfile.read(lockfile.path)
        except UsageError as exc:
            self._say(f"warning: {exc}; the lockfile read before stays in force")
            return False
        self.rebuild()
        return True

    def quarantine_refusal(self, name: Any, context: Mapping[str, str]) -> str | None:
        """The refusal of a call of a quarantined tool (``None``: the name is not one, or the
        context may not see it, and gets the unknown-tool answer)."""
        held = self.flagged.get(name) if isinstance(name, str) else None
        if held is not None and held[0].visible_to(context):
            return (
                f"tool {_middle(name, 80)!r} is quarantined: its text reads as instructions to the model "
                "(rule TS206); it runs once the gateway's operator allows it"
            )
        entry = self.quarantined.get(name) if isinstance(name, str) else None
        if entry is None or self.lockfile is None or not entry.tool.visible_to(context):
            return None
        path = self.lockfile.path
        return (
            f"tool {_middle(name, 80)!r} is quarantined: {entry.reason(path)}; it runs again once {path} records it "
            "(the operator reviews the change, then runs `toolsearch lock`)"
        )

    def apply_registry(self, feed: Any, changes: Any) -> bool:
        """Apply one registry change set (the caller holds :attr:`lock`): in place when it only
        adds, changes or removes the feed's own tools under their own names, else by a rebuild.
        ``True`` when it was applied in place."""
        from ..registry.sync import adjust_baseline, apply_to_catalog

        feed.absorb(changes)
        if self._via_upstream() is None:  # no upstream runs a registry's tools: none is served
            self.left_out_registry = sum(len(f.tools) for f in self.registries)
            self.left_out = self.left_out_registry + sum(1 for t in self.static.tools if t.function is None)
            return True
        # under a lockfile every change is checked by a rebuild (in place, a changed tool would slip in)
        if changes.full is not None or self.lockfile is not None or not self._in_place(feed, changes):
            self.rebuild()
            return False
        from .safety import clean_tool

        # in place: new text of tools the feed already serves (each keeps its route to the upstream)
        changes = replace(changes, upsert=[clean_tool(t) for t in changes.upsert])
        old = apply_to_catalog(self.catalog, self.manager, changes)
        for engine in self._engines.values():
            adjust_baseline(engine, old, changes.upsert)
        self.version += 1
        return True

    def _in_place(self, feed: Any, changes: Any) -> bool:
        from ..catalog.names import provider_name

        reserved = {SEARCH_TOOL_NAME, CALL_TOOL_NAME}
        if changes.removed or self.settings.tool_policy is not None:
            return False  # a removed tool gives its name back to the upstream's own entry; policy rewrites text
        for name in (t.name for t in changes.upsert):
            if name in reserved or name in self._renamed or name in self.catalog.resident:
                return False
            if self._by_feed.get(name) != feed.display:
                return False  # not served from this feed yet (new, or the upstream's own entry): a rebuild decides
        # a name the gateway would have to rewrite (too long, odd characters) goes through a rebuild
        return all(provider_name(t.name, "tool", squeeze=False) == t.name for t in changes.upsert)

    def registry_status(self) -> str | None:
        """``None`` while every registry source is followed; else what is wrong, in one line."""
        from ..registry.sync import in_outage

        down = [f"{f.display}: {f.status}" for f in self.registries if in_outage(f.status)]
        return "; ".join(down) or None

    def check_resident(self) -> None:
        """Every ``--resident`` name must be a tool of the catalog (once the upstreams listed theirs)."""
        from ..errors import did_you_mean

        for name in self.settings.resident:
            if name in self.quarantined or name in self.flagged:  # held back (said once)
                continue
            if self._renamed.get(name, name) not in self.catalog.resident:
                raise UsageError(
                    f"resident tool {name!r} is not in the catalog{did_you_mean(name, self.catalog.names)}",
                    field="resident",
                )

    def engine(self, context: Mapping[str, str]) -> DisclosureEngine:
        """The disclosure engine of one request context (they share the catalog's one index)."""
        key = tuple(sorted(context.items()))
        engine = self._engines.get(key)
        if engine is None:
            engine = DisclosureEngine(
                self.catalog,
                context=dict(context),
                policy=self.settings.policy,
                max_active=self.settings.max_active,
                ranker=self.settings.ranker,
                resident=self.catalog.resident,
                default_max_results=self.settings.default_max_results,
                manager=self.manager,
            )
            self._engines[key] = engine
            if len(self._engines) > ENGINE_CACHE:
                self._engines.popitem(last=False)
        else:
            self._engines.move_to_end(key)
        return engine

    def context_for(self, header: str | None, token: Mapping[str, str] | None = None) -> dict[str, str]:
        """The request's context: ``--context``, then the bearer token's attributes (``--tokens``),
        then the header's (when the gateway reads one), each for keys not fixed before it."""
        context = dict(self.settings.context)
        for key, value in (token or {}).items():
            context.setdefault(key, value)
        if header and self.settings.context_header:
            for key, value in parse_context_header(header).items():
                context.setdefault(key, value)
        return context

    # -- what the client sees -------------------------------------------------------------------

    def listed_tools(
        self, context: Mapping[str, str], session: SessionState | None, disclose: Disclose | None = None
    ) -> list[Tool]:
        """``tools/list``: resident tools, ``toolSearch``, ``callTool``, then (list-changed) the
        session's disclosed tools, each only when the context may see it. ``disclose``: the
        disclosure of this request when it is not the gateway's (2026-07-28: call-through)."""
        engine = self.engine(context)
        out: list[Tool] = []
        for name in self.catalog.resident:
            tool = self.catalog.get(name)
            if tool is not None and tool.visible_to(context):
                out.append(tool)
        out += [self.search_tool(engine), self.call_tool]
        if (disclose or self.settings.disclose) == "list-changed" and session is not None:
            shown = {t.name for t in out}
            for name in engine.usable(session.active):
                if name not in shown:
                    tool = self.catalog.get(name)
                    if tool is not None:
                        out.append(tool)
        return out

    def search_tool(self, engine: DisclosureEngine) -> Tool:
        """The engine's ``toolSearch`` (same arguments and limits), described as the gateway answers it."""
        if self._search_tool is None or self._search_tool[0] is not engine.search_tool:
            self._search_tool = (
                engine.search_tool,
                engine.search_tool.copy_with(description=GATEWAY_SEARCH_DESCRIPTION),
            )
        return self._search_tool[1]

    def visible_tool(self, name: str, context: Mapping[str, str]) -> Tool | None:
        tool = self.catalog.get(name) if isinstance(name, str) else None
        return tool if tool is not None and tool.visible_to(context) else None

    # -- toolSearch -----------------------------------------------------------------------------

    def search(
        self, arguments: Any, context: Mapping[str, str], session: SessionState | None, disclose: Disclose | None = None
    ) -> tuple[CallResult, bool]:
        """Run ``toolSearch``: the hits with their full input schemas; ``True`` when the session's
        disclosed list changed (list-changed disclosure sends ``list_changed`` then)."""
        started = time.perf_counter()
        engine = self.engine(context)
        outcome = engine.execute_search(arguments)
        changed = False
        disclose = disclose or self.settings.disclose
        if session is not None:
            session.search_count += 1
            session.last_hits = list(outcome.names) if outcome.ok else []
            if disclose == "list-changed":
                before = list(session.active)
                session.active = engine.next_active(session.active, outcome, session.used)
                session.used = []
                changed = session.active != before
        result = self._search_result(outcome, context, disclose)
        self._record(
            {
                "event": "search",
                "session": session.id if session is not None else None,
                "search": session.search_count if session is not None else None,
                "query": outcome.arguments.query if outcome.arguments is not None else None,
                "category": outcome.arguments.category if outcome.arguments is not None else None,
                "max_results": outcome.arguments.max_results if outcome.arguments is not None else None,
                "hits": list(outcome.names),
                "status": "error" if not outcome.ok else ("ok" if outcome.names else "empty"),
                "ms": round((time.perf_counter() - started) * 1000, 3),
            }
        )
        return result, changed

    def unavailable(self) -> list[str]:
        """One line per upstream that cannot take calls now (failed to start, or restarting),
        named by its alias or server name (never its command or address)."""
        out = []
        for i, upstream in enumerate(self.upstreams, 1):
            if getattr(upstream, "ready", True):
                continue
            live = getattr(upstream, "live", None)
            name = getattr(live, "alias", None) or upstream.server_name or f"upstream {i}"
            out.append(f"server {_middle(str(name), 80)!r} is unavailable; retrying")
        return out

    def _search_result(
        self, outcome: SearchOutcome, context: Mapping[str, str], disclose: Disclose | None = None
    ) -> CallResult:
        if not outcome.ok:
            return CallResult.text(outcome.content(), is_error=True, refused="invalid-arguments")
        down = self.unavailable()
        if not outcome.names and down:  # not "rephrase": the tools may be on the server that is down
            answer = {
                "tools": [],
                "unavailable": down,
                "how": "No tool matched among the servers that are up. The tools of a server that is "
                "unavailable cannot be found or run until it is back: try this search again shortly.",
            }
            return CallResult.text(json.dumps(answer, ensure_ascii=False, separators=(",", ":")))
        if not outcome.names:
            return CallResult.text(outcome.content())
        hits = []
        for name in outcome.names:
            tool = self.catalog.get(name)
            if tool is None or not tool.visible_to(context):
                continue
            entry: dict[str, Any] = {"name": name}
            if tool.title:
                entry["title"] = tool.title
            entry["description"] = tool.description
            entry["inputSchema"] = tool.parameters
            hits.append(entry)
        if (disclose or self.settings.disclose) == "list-changed":
            how = (
                "These tools are now in your tool list: call them directly, or with callTool "
                "{name, arguments} if they have not appeared yet."
            )
        else:
            how = "Run one with callTool {name, arguments}; arguments must fit its inputSchema."
        body: dict[str, Any] = {"tools": hits, "how": how}
        if down:
            body["unavailable"] = down
        status = self.registry_status()
        if status is not None:
            body["registry"] = f"not following the registry ({status}); these results are from the last good catalog"
        return CallResult.text(json.dumps(body, ensure_ascii=False, separators=(",", ":")))

    # -- calls ----------------------------------------------------------------------------------

    def check_direct(
        self, name: str, context: Mapping[str, str], session: SessionState | None, disclose: Disclose | None = None
    ) -> str | None:
        """May ``tools/call`` name this tool directly? ``None`` when it may, else the refusal."""
        tool = self.visible_tool(name, context)
        if tool is None:
            return self.quarantine_refusal(name, context) or unknown_tool(name)
        if name in self.catalog.resident:
            return None
        if (disclose or self.settings.disclose) == "list-changed" and session is not None:
            if name in self.engine(context).usable(session.active):
                return None
        return f"tool {name!r} is not in your tool list: run it with {CALL_TOOL_NAME} {{name, arguments}}"

    def prepare_call(self, name: Any, arguments: Any, context: Mapping[str, str]) -> tuple[Tool, Route, dict[str, Any]]:
        """Resolve and validate a call (``callTool``'s or a direct one) without running anything.
        Raises :class:`Refused` with the message the client gets."""
        if not isinstance(name, str) or not name.strip():
            raise Refused("invalid-arguments", f"{CALL_TOOL_NAME} needs 'name': the exact name toolSearch returned")
        if name in (self.search_tool_name, CALL_TOOL_NAME):
            raise Refused("invalid-arguments", f"call {name} directly, not through {CALL_TOOL_NAME}")
        tool = self.visible_tool(name, context)
        if tool is None:
            held = self.quarantine_refusal(name, context)
            if held is not None:
                raise Refused("quarantined", held)
            raise Refused("unknown-tool", unknown_tool(name))
        route = self.routes[name]
        if arguments is None:
            arguments = {}
        if isinstance(arguments, str):  # some clients send the arguments object as JSON text
            text = arguments
        elif isinstance(arguments, dict):
            try:
                text = json.dumps(arguments, ensure_ascii=False)
            except (ValueError, TypeError, RecursionError):  # nested past Python's own limit
                raise Refused("invalid-arguments", "'arguments' are nested too deeply") from None
        else:
            raise Refused("invalid-arguments", f"'arguments' must be a JSON object, not {type(arguments).__name__}")
        limit = self.settings.max_argument_bytes
        if len(text) > limit or len(text) * 4 > limit and len(text.encode("utf-8", "replace")) > limit:
            raise Refused(
                "invalid-arguments",
                f"the arguments of {name} are larger than this gateway passes on ({limit:,} bytes of JSON)",
            )
        value, problem = check_arguments(tool, text)  # the whole JSON Schema, patterns time-limited
        if problem is not None or value is None:
            raise Refused("invalid-arguments", f"invalid arguments for {name}: {problem}")
        return tool, route, value

    def note_call(self, name: str, session: SessionState | None) -> None:
        if session is not None and name not in session.used:
            session.used.append(name)

    def record_call(
        self, name: str, via: str, session: SessionState | None, result: CallResult, started: float
    ) -> None:
        hits = session.last_hits if session is not None else []
        tool = self.catalog.get(name) if isinstance(name, str) else None
        server = tool.metadata.get("mcp_server") if tool is not None and result.refused != "unknown-tool" else None
        self._record(
            {
                "event": "call",
                "session": session.id if session is not None else None,
                "after_search": session.search_count if session is not None and session.search_count else None,
                "tool": name if tool is not None and result.refused != "unknown-tool" else None,
                "server": server.get("name") if isinstance(server, dict) else None,
                "server_tool": server.get("tool") if isinstance(server, dict) else None,
                "via": via,
                "rank": hits.index(name) + 1 if name in hits else None,
                "ok": not result.is_error,
                "refused": result.refused,
                "ms": round((time.perf_counter() - started) * 1000, 3),
                "upstream_ms": None if result.upstream_ms is None else round(result.upstream_ms, 3),
            }
        )

    def _record(self, record: dict[str, Any]) -> None:
        if self._log is not None:
            self._log(record)


def via_alias(upstream: Any) -> str:
    """The alias a catalog file's tool run by ``upstream`` is prefixed with on a name collision."""
    return str(upstream.live.alias or upstream.server_name or "mcp")


def upstream_tools(upstream: Any) -> tuple[list[Tool], list[str], list[str]]:
    """An upstream's tools, its resident names, and the problems of the tools left out: a listing
    the loader refuses as a whole (a duplicate name, one bad schema) is read tool by tool, so one
    bad tool costs only itself."""
    from ..catalog.lenient import collecting, settings
    from ..catalog.mcp_client import tools_from_live
    from ..errors import CatalogError

    def left_out(found: list[Any]) -> list[str]:
        # a tool loaded with a warning (a type mapped, a schema without 'type', a $ref outside its
        # schema) is served as it loaded, as `catalog` and `search` list it; an invalid one is not
        return [str(w).split(": ", 1)[-1] for w in found if w.kind == "invalid"]

    try:
        with collecting(settings().strict) as found:
            listed = tools_from_live(upstream.source, upstream.server_name, upstream.raw_tools)
        return list(listed.tools), list(listed.resident), left_out(found)
    except CatalogError:
        pass
    tools: list[Tool] = []
    problems: list[str] = []
    seen: set[str] = set()
    for raw in upstream.raw_tools:
        name = raw.get("name") if isinstance(raw, dict) else None
        if isinstance(name, str) and name in seen:
            problems.append(f"tool {name!r}: duplicate tool name (the first is kept)")
            continue
        try:
            with collecting(settings().strict) as found:
                one = tools_from_live(upstream.source, upstream.server_name, [raw]).tools
        except CatalogError as exc:
            problems.append(str(exc).split(": ", 1)[-1])
            continue
        problems.extend(left_out(found))
        seen.update(t.name for t in one)
        tools.extend(one)
    return tools, [], problems


class Refused(Exception):
    """A call the gateway answers itself, without running anything."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


def unknown_tool(name: str) -> str:
    """The one answer for a name that does not exist *and* for one the context may not see."""
    shown = name if len(name) <= 80 else name[:77] + "..."
    return f"no tool named {shown!r} is available; find tools with {SEARCH_TOOL_NAME}"


def assign_names(entries: Sequence[tuple[str, str]], reserved: set[str]) -> list[str]:
    """Gateway names for ``(name, alias)`` pairs: the name itself when no other entry (and no
    reserved name) has it, else ``alias__name``; every name provider-valid and at most 64 characters."""
    from ..catalog.names import provider_name, unique_name

    counts: dict[str, int] = {}
    for name, _ in entries:
        counts[name] = counts.get(name, 0) + 1
    taken: set[str] = set(reserved)
    wanted: list[str] = []
    for name, alias in entries:
        raw = name if counts[name] == 1 and name not in reserved else f"{alias}__{name}"
        wanted.append(provider_name(raw, "tool", squeeze=False))
    # names that stay as they are first, so a prefixed name never takes one of theirs
    out: list[str | None] = [None] * len(entries)
    for i, ((name, _), want) in enumerate(zip(entries, wanted, strict=True)):
        if want == name and want not in taken:
            out[i] = want
            taken.add(want)
    for i, want in enumerate(wanted):
        if out[i] is None:
            final = unique_name(want, taken)
            out[i] = final
            taken.add(final)
    return [n for n in out if n is not None]


def parse_context_header(value: str) -> dict[str, str]:
    """``role=admin; team=search`` (``;`` or ``,`` between pairs) as attributes; malformed pairs
    and oversized values are dropped, not guessed at."""
    out: dict[str, str] = {}
    if len(value) > 4096:
        return out
    for part in value.replace(",", ";").split(";"):
        key, sep, val = part.partition("=")
        key, val = key.strip(), val.strip()
        if sep and key and len(out) < 32 and key not in out:
            out[key] = val
    return out


def python_result(value: Any) -> CallResult:
    """A Python tool's return value as MCP content: text as is, anything else as JSON."""
    if isinstance(value, str):
        text = value
    else:
        try:
            text = json.dumps(value, ensure_ascii=False, default=str)
        except (TypeError, ValueError, RecursionError):
            text = repr(value)
    if len(text.encode("utf-8", "replace")) > MAX_RESULT_TEXT:
        text = text.encode("utf-8", "replace")[:MAX_RESULT_TEXT].decode("utf-8", "ignore") + " [cut]"
    return CallResult.text(text)


def _file_stamp(path: str) -> tuple[int, int, int] | None:
    """What tells a file changed: size, modification time and inode (``None``: cannot be read)."""
    import os

    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st.st_size, st.st_mtime_ns, st.st_ino
