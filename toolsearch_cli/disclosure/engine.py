"""The disclosure engine: which tools each model request carries, and what they cost in tokens.

Chat mode derives the disclosed names from the message history (seed §4); agent mode keeps them
in a :class:`~toolsearch_cli.disclosure.state.RunState` (seed §5). Both build the same
:class:`RequestSnapshot`: prompt (resident) tools and the search tool in prompt order, then the
tools of matched groups (§6), then the disclosed search hits. Every tool is checked against the
request's context first: a tool the context may not see is never searched, disclosed or run.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import EmbedError, ToolsearchError, UsageError, did_you_mean
from ..model import Catalog, Tool, ToolGroup
from ..providers import calls_in, get_provider
from ..providers.base import text_of
from ..search.base import DEFAULT_MAX_RESULTS
from ..search.embed_settings import EmbedSettings
from ..tokens import TokenCounter, get_counter, tool_tokens, tools_tokens
from .groups import matched_groups, with_system_prompt
from .history import OK, UNFINISHED, SearchEvent, latest_search_event, search_events
from .log import MessageLog
from .manager import CatalogManager, category_known
from .policy import Policy, get_policy
from .search_tool import SEARCH_TOOL_NAME, ArgumentError, SearchOutcome, parse_arguments, search_tool_definition
from .state import USED_SINCE_SEARCH_KEY, RunState

RESIDENT, SEARCH, GROUP, DISCLOSED = "resident", "toolSearch", "group", "disclosed"
#: Display order of the roles a visible tool can have.
ROLES = (RESIDENT, SEARCH, GROUP, DISCLOSED)

MODES = ("chat", "agent")


@dataclass(slots=True)
class VisibleTool:
    """A tool in a request, why it is there, and its own token cost."""

    tool: Tool
    role: str
    tokens: int
    group: str | None = None

    @property
    def name(self) -> str:
        return self.tool.name

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.tool.name, "role": self.role, "group": self.group, "tokens": self.tokens}


@dataclass(slots=True)
class RequestSnapshot:
    """One model request as the engine would send it (the original conversation is not touched)."""

    #: The history the request was built from: a copy of the list given, or a growing
    #: :class:`~toolsearch_cli.disclosure.log.MessageLog` read up to ``length`` (never copied).
    history: Sequence[Mapping[str, Any]]
    tools: list[VisibleTool]
    #: The disclosed names as state holds them (history or run state), before the visibility re-check.
    active: list[str]
    groups: list[str]
    #: The latest search's result status (``ok``, ``empty``, ``error``...), ``None`` when there was none.
    search_status: str | None
    tool_tokens: int
    message_tokens: int
    baseline_tool_tokens: int
    baseline_message_tokens: int
    counter: str = "cl100k_base"
    system_prompt: str = ""
    #: How many tools the all-tools baseline sends (every tool the context may see).
    baseline_tool_count: int = 0
    length: int | None = None

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The messages to send: a copy of the history with matched groups' system prompt merged in
        (built on each access, so a snapshot of a long log holds no copy of it)."""
        return with_system_prompt(self.conversation, self.system_prompt)

    @property
    def conversation(self) -> Sequence[Mapping[str, Any]]:
        """The history as given (up to ``length`` for a log), without the groups' system prompt."""
        return self.history if self.length is None else self.history[: self.length]

    def placed(self, api: str = "openai") -> tuple[list[dict[str, Any]], str]:
        """The messages to send to ``api`` and its separate system text (``""`` where the API takes
        the system prompt in the messages): the groups' prompt placed where ``api`` wants it."""
        return get_provider(api).place_system(self.conversation, self.system_prompt)

    @property
    def names(self) -> list[str]:
        return [t.name for t in self.tools]

    @property
    def disclosed(self) -> list[str]:
        return [t.name for t in self.tools if t.role == DISCLOSED]

    def get(self, name: str) -> VisibleTool | None:
        return next((t for t in self.tools if t.name == name), None)

    @property
    def request_tokens(self) -> int:
        return self.message_tokens + self.tool_tokens

    @property
    def baseline_request_tokens(self) -> int:
        return self.baseline_message_tokens + self.baseline_tool_tokens

    @property
    def tool_share(self) -> float:
        """Tool tokens as a fraction of the all-tools baseline's tool tokens."""
        return self.tool_tokens / self.baseline_tool_tokens if self.baseline_tool_tokens else 0.0

    @property
    def saving_percent(self) -> float:
        """How much smaller the whole request is than the all-tools baseline request, in percent."""
        base = self.baseline_request_tokens
        return 100.0 * (base - self.request_tokens) / base if base else 0.0

    def openai_tools(self) -> list[dict[str, Any]]:
        """The ``tools`` array for OpenAI Chat Completions (``tools_for("openai")``)."""
        return self.tools_for("openai")

    def tools_for(self, api: str = "openai") -> list[dict[str, Any]]:
        """The ``tools`` array of this request for ``api`` (a key of ``providers.PROVIDER_BY_NAME``)."""
        return get_provider(api).tools([t.tool for t in self.tools])

    def to_dict(self, *, include_messages: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "tools": [t.to_dict() for t in self.tools],
            "active": list(self.active),
            "disclosed": self.disclosed,
            "groups": list(self.groups),
            "search_status": self.search_status,
            "tokens": {
                "counter": self.counter,
                "tools": self.tool_tokens,
                "messages": self.message_tokens,
                "request": self.request_tokens,
                "baseline_tools": self.baseline_tool_tokens,
                "baseline_tool_count": self.baseline_tool_count,
                "baseline_request": self.baseline_request_tokens,
                "tool_share": round(self.tool_share, 4),
                "saving_percent": round(self.saving_percent, 2),
            },
        }
        if self.system_prompt:
            out["system_prompt_added"] = self.system_prompt
        if include_messages:
            out["messages"] = self.messages
        return out


@dataclass(slots=True)
class CallCheck:
    """Whether a request may call a tool; ``kind`` names the protocol error when it may not."""

    ok: bool
    kind: str | None = None
    message: str = ""


class DisclosureEngine:
    """Builds request snapshots for a catalog, a context and a disclosure policy."""

    def __init__(
        self,
        catalog: Catalog,
        *,
        context: Mapping[str, str] | None = None,
        policy: str = "latest",
        max_active: int | None = None,
        ranker: str = "default",
        resident: Sequence[str] = (),
        prompt_tools: Sequence[Tool] | None = None,
        search_tool_name: str = SEARCH_TOOL_NAME,
        default_max_results: int = DEFAULT_MAX_RESULTS,
        counter: TokenCounter | None = None,
        manager: CatalogManager | None = None,
        embed: EmbedSettings | None = None,
    ) -> None:
        if max_active is not None and max_active < 1:
            raise UsageError(f"max active tools must be at least 1, not {max_active}", field="max_active")
        for name in resident:
            if name not in catalog:
                raise UsageError(
                    f"resident tool {name!r} is not in the catalog{did_you_mean(name, catalog.names)}", field="resident"
                )
        if search_tool_name in catalog:
            raise UsageError(
                f"the search tool's name {search_tool_name!r} is taken by a catalog tool", field="search_tool_name"
            )
        self.catalog = catalog
        self.context: dict[str, str] = dict(context or {})
        self.policy: Policy = get_policy(policy)
        self.max_active = max_active
        self.default_max_results = default_max_results
        self.manager = manager or CatalogManager.from_catalog(catalog, exclude=resident, ranker=ranker, embed=embed)
        self.search_tool = search_tool_definition(search_tool_name, default_max_results=default_max_results)
        if prompt_tools is None:
            names = list(dict.fromkeys([*catalog.resident, *resident]))
            prompt_tools = [t for t in (catalog.get(n) for n in names) if t is not None]
        prompt = list(prompt_tools)
        if not any(t.name == search_tool_name for t in prompt):
            prompt.append(self.search_tool)
        self.prompt_tools = prompt
        #: The token counter, made on first use (its encoding is some 50 MB: a gateway that only
        #: searches and calls never loads it).
        self._counter = counter
        self._tokens: dict[int, int] = {}
        self._arrays: dict[tuple[int, ...], tuple[tuple[Tool, ...], int]] = {}
        extra = [t for t in prompt if t.name != search_tool_name and t.name not in catalog]
        extra = [t for t in extra if t.visible_to(self.context)]
        self._extra = bool(extra)
        visible, _ = _visible_catalog_tools(catalog, self.context, None, counted=False)
        self.baseline_tools = [*extra, *visible]
        #: The tokens of :attr:`baseline_tools`, counted on first read (``None``: not yet).
        self._baseline_tokens: int | None = None

    @property
    def counter(self) -> TokenCounter:
        if self._counter is None:
            self._counter = get_counter()
        return self._counter

    @property
    def baseline_counted(self) -> bool:
        """Whether :attr:`baseline_tool_tokens` has been counted (an adjustment before is not needed)."""
        return self._baseline_tokens is not None

    @property
    def baseline_tool_tokens(self) -> int:
        """The tokens of every tool the context may see, as one ``tools`` array (counted on first read)."""
        if self._baseline_tokens is None:
            if self._extra:
                self._baseline_tokens = tools_tokens(self.baseline_tools, self.counter)
            else:
                _, tokens = _visible_catalog_tools(self.catalog, self.context, self.counter, counted=True)
                self._baseline_tokens = tokens
        return self._baseline_tokens

    @baseline_tool_tokens.setter
    def baseline_tool_tokens(self, value: int) -> None:
        self._baseline_tokens = value

    @property
    def search_tool_name(self) -> str:
        return self.search_tool.name

    # -- search ---------------------------------------------------------------------------------

    def execute_search(self, arguments: Any) -> SearchOutcome:
        """Run the search tool: names of visible, resolvable tools, or a readable error result."""
        try:
            args = parse_arguments(arguments, default_max_results=self.default_max_results)
        except ArgumentError as exc:
            return SearchOutcome(error=exc.message, field=exc.field)
        if args.category is not None and not category_known(self.manager, args.category, self.context):
            known = self.manager.categories(self.context)
            return SearchOutcome(
                error=f"no tool has category {args.category!r}; categories: {', '.join(known) or '(none)'}",
                field="category",
                arguments=args,
            )
        try:
            names = self.manager.search(
                args.query, max_results=args.max_results, category=args.category, context=self.context
            )
        except EmbedError:
            raise  # no embedding model to be had: the developer's to fix, whatever the model asks
        except ToolsearchError as exc:
            return SearchOutcome(error=exc.message, field=exc.field or "query", arguments=args)
        except Exception as exc:  # noqa: BLE001 - a failing provider must not break the tool-call protocol
            return SearchOutcome(error=f"the search failed: {type(exc).__name__}: {exc}", arguments=args)
        unmatched = self.manager.unmatched(args.query, self.context) if not names else []
        return SearchOutcome(names=names, arguments=args, unmatched=unmatched)

    def usable(self, names: Sequence[str]) -> list[str]:
        """The names that resolve to a registered tool this context may see, de-duplicated, order kept."""
        out: list[str] = []
        for name in names:
            tool = self.manager.resolve(name)
            if tool is not None and name not in out and tool.visible_to(self.context):
                out.append(name)
        return out

    def next_active(
        self, active: Sequence[str], outcome: SearchOutcome | SearchEvent | None, used: Sequence[str] = ()
    ) -> list[str]:
        """The active names after a search (its outcome or its history event); one rule for both modes.

        ``used``: the tools called since the previous search (a use delays eviction under cumulative).
        """
        hits: list[str] | None = None
        if isinstance(outcome, SearchOutcome) and outcome.ok:
            hits = self.usable(outcome.names)
        elif isinstance(outcome, SearchEvent) and outcome.status == OK:
            hits = self.usable(outcome.names)
        # stale names (e.g. from an old state file) must not hold max-active slots
        return self.policy.apply(self.usable(active), hits or None, self.max_active, self.usable(used))

    # -- chat mode ------------------------------------------------------------------------------

    def active_from_history(self, messages: Sequence[Mapping[str, Any]]) -> tuple[list[str], str | None]:
        """Chat mode: the disclosed names and the latest search's status, from the history alone."""
        if isinstance(messages, MessageLog):
            return self._active_from_log(messages)
        if self.policy.name == "latest":
            event = latest_search_event(messages, self.search_tool_name)
            if event is None:
                return [], None
            return self.next_active([], event), event.status
        active, status, _ = self._fold(messages, search_events(messages, self.search_tool_name), [], None, 0)
        return active, status

    def _fold(
        self,
        messages: Sequence[Mapping[str, Any]],
        events: Iterable[SearchEvent],
        active: list[str],
        status: str | None,
        after: int,
    ) -> tuple[list[str], str | None, int]:
        """Apply search events in order; ``after``: the first message not yet looked at for calls."""
        for event in events:
            used = [
                call.name
                for message in messages[after : event.message_index + 1]
                for call in calls_in(message)
                if call.name != self.search_tool_name
            ]
            after = max(after, event.message_index + 1)
            active = self.next_active(active, event, used)
            status = event.status
        return active, status, after

    def _active_from_log(self, log: MessageLog) -> tuple[list[str], str | None]:
        """:meth:`active_from_history` on a growing log: the latest event, or the fold of the events
        continued from where the last request left it (events whose result is in never change)."""
        events = log.search_events(self.search_tool_name)
        if self.policy.name == "latest":
            if not events:
                return [], None
            return self.next_active([], events[-1]), events[-1].status
        done, active, status, after = log.fold_cache.get(self, (0, [], None, 0))
        final = done
        while final < len(events) and events[final].status != UNFINISHED:
            final += 1
        active, status, after = self._fold(log, events[done:final], active, status, after)
        log.fold_cache[self] = (final, active, status, after)
        active, status, _ = self._fold(log, events[final:], active, status, after)
        return active, status

    # -- agent mode -----------------------------------------------------------------------------

    def note_call(self, state: RunState, name: str) -> None:
        """Agent mode: the model called ``name``, a use that delays its eviction under ``cumulative``."""
        if not self.policy.counts_calls or name == self.search_tool_name:
            return
        used = [n for n in state.metadata.get(USED_SINCE_SEARCH_KEY) or () if isinstance(n, str) and n != name]
        state.metadata[USED_SINCE_SEARCH_KEY] = [*used, name]

    def run_search(self, state: RunState, arguments: Any) -> SearchOutcome:
        """Agent mode: execute a search call and store the new active names in the run state."""
        outcome = self.execute_search(arguments)
        raw = state.metadata.pop(USED_SINCE_SEARCH_KEY, None) or ()
        used = [n for n in raw if isinstance(n, str)] if isinstance(raw, list) else []
        state.active_names = self.next_active(state.active_names, outcome, used)
        state.metadata["agentsflex.toolsearch.lastSearchStatus"] = _status_of(outcome)
        return outcome

    # -- snapshots ------------------------------------------------------------------------------

    def snapshot(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        state: RunState | None = None,
    ) -> RequestSnapshot:
        """The request for this history: chat mode without ``state``, agent mode with it."""
        if state is None:
            active, status = self.active_from_history(messages)
        else:
            active = state.active_names
            raw = state.metadata.get("agentsflex.toolsearch.lastSearchStatus")
            status = raw if isinstance(raw, str) else None
        log = messages if isinstance(messages, MessageLog) else None
        latest_user = log.last_user_message() if log is not None else messages
        groups = matched_groups(self.catalog.groups, latest_user, self.context) if self.catalog.groups else []
        # a group whose tools are all hidden from this request brings nothing: not even its prompt
        groups = [g for g in groups if self._shows_any(g)]
        visible: list[VisibleTool] = []
        position: dict[str, int] = {}

        def add(tool: Tool, role: str, group: str | None = None) -> None:
            position[tool.name] = len(visible)
            visible.append(VisibleTool(tool, role, self._tool_tokens(tool), group))

        for prompt_tool in self.prompt_tools:
            if self.manager.resolve(prompt_tool.name) is prompt_tool:
                continue  # the very catalog tool put in the prompt: hidden until searched (§4.4)
            if prompt_tool.name in position or not prompt_tool.visible_to(self.context):
                continue
            add(prompt_tool, SEARCH if prompt_tool.name == self.search_tool_name else RESIDENT)
        for group in groups:
            for name in group.tools:
                tool = self.catalog.get(name)
                if tool is None or not tool.visible_to(self.context):
                    continue
                at = position.get(name)
                if at is None:
                    add(tool, GROUP, group.name)
                elif visible[at].role == RESIDENT:  # a group tool replaces a prompt tool in place (§6)
                    visible[at] = VisibleTool(tool, GROUP, self._tool_tokens(tool), group.name)
        for name in self.usable(active):
            if name not in position:  # a resident or group tool of the same name wins (§4.4)
                add(self.manager.resolve(name), DISCLOSED)  # type: ignore[arg-type]
        prompt = "\n\n".join(g.system_prompt for g in groups if g.system_prompt)
        if log is not None:
            history: Sequence[Mapping[str, Any]] = log
            length: int | None = len(log)
            message_tokens, baseline_tokens = self._log_tokens(log, prompt), log.tokens(self.counter)
        else:
            history, length = list(messages), None
            message_tokens = self.count_messages(with_system_prompt(messages, prompt))
            baseline_tokens = self.count_messages(messages)
        return RequestSnapshot(
            history=history,
            length=length,
            tools=visible,
            active=list(active),
            groups=[g.name for g in groups],
            search_status=status,
            tool_tokens=self._tools_tokens([t.tool for t in visible]),
            message_tokens=message_tokens,
            baseline_tool_tokens=self.baseline_tool_tokens,
            baseline_message_tokens=baseline_tokens,
            counter=self.counter.name,
            system_prompt=prompt,
            baseline_tool_count=len(self.baseline_tools),
        )

    def _shows_any(self, group: ToolGroup) -> bool:
        """Whether a group has no tools (a prompt-only group) or one visible to this request's context."""
        if not group.tools:
            return True
        for name in group.tools:
            tool = self.catalog.get(name)
            if tool is not None and tool.visible_to(self.context):
                return True
        return False

    def _log_tokens(self, log: MessageLog, prompt: str) -> int:
        """Tokens of the request's messages: the log with the groups' prompt merged in as
        :func:`~toolsearch_cli.disclosure.groups.with_system_prompt` does, counted by parts."""
        if not prompt:
            return log.tokens(self.counter)
        first = log.first_system_index()
        if first < 0:
            return log.tokens(self.counter, prepend={"role": "system", "content": prompt})
        merged = dict(log[first])
        existing = text_of(merged.get("content"))
        merged["content"] = f"{existing}\n\n{prompt}" if existing else prompt
        return log.tokens(self.counter, replace={first: merged})

    def check_call(self, name: str, snapshot: RequestSnapshot) -> CallCheck:
        """May the model call ``name`` in the request ``snapshot``? A hidden tool is never executable."""
        if snapshot.get(name) is not None:
            return CallCheck(True)
        known = self.catalog.get(name) or next((t for t in self.prompt_tools if t.name == name), None)
        if known is None and name != self.search_tool_name:
            return CallCheck(False, "unknown-tool", f"{name!r} is not a tool of the catalog")
        if known is not None and not known.visible_to(self.context):
            return CallCheck(False, "not-visible", f"{name!r} is not permitted for this context")
        return CallCheck(False, "not-visible", f"{name!r} was not sent in this request (not disclosed)")

    def count_messages(self, messages: Sequence[Mapping[str, Any]]) -> int:
        if not messages:
            return 0
        return self.counter.count(json.dumps(list(messages), ensure_ascii=False, separators=(",", ":")))

    def _tools_tokens(self, tools: list[Tool]) -> int:
        """Tokens of a request's ``tools`` array; the same set recurs request after request, so it is
        counted once."""
        key = tuple(id(t) for t in tools)
        if key not in self._arrays:
            if len(self._arrays) >= 4096:
                self._arrays.clear()
            self._arrays[key] = (tuple(tools), tools_tokens(tools, self.counter))  # the tools kept: ids stay theirs
        return self._arrays[key][1]

    def _tool_tokens(self, tool: Tool) -> int:
        key = id(tool)
        if key not in self._tokens:
            self._tokens[key] = tool_tokens(tool, self.counter)
        return self._tokens[key]


def _visible_catalog_tools(
    catalog: Catalog, context: Mapping[str, str], counter: TokenCounter | None, *, counted: bool
) -> tuple[list[Tool], int]:
    """The catalog's tools a request with ``context`` may see and (``counted``) the tokens of their
    ``tools`` array: kept with the catalog's indexes (and so in the on-disk cache with them), as
    both read every tool (a packed one unpacked) and count 100,000 tools' JSON: 12 s of every
    engine's start on a catalog read from the cache, for the same figures each time."""
    from ..indexes import cached_index

    shown = json.dumps(sorted(context.items()), ensure_ascii=False)
    visible: list[Tool] = cached_index(
        catalog, f"visible:{shown}", lambda: [t for t in catalog.tools if t.visible_to(context)]
    )
    if not counted or counter is None:
        return list(visible), 0
    tokens: int = cached_index(
        catalog, f"baseline-tokens:{counter.name}:{shown}", lambda: _Count(tools_tokens(visible, counter))
    ).value
    return list(visible), tokens


class _Count:
    """A number kept as a catalog's index (an object, so the catalog's changes drop it: see
    :func:`toolsearch_cli.indexes.cached_index`)."""

    __slots__ = ("value",)

    def __init__(self, value: int) -> None:
        self.value = value

    def __getstate__(self) -> int:
        return self.value

    def __setstate__(self, state: int) -> None:
        self.value = int(state)


def _status_of(outcome: SearchOutcome) -> str:
    if not outcome.ok:
        return "error"
    return "ok" if outcome.names else "empty"
