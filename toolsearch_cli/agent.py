"""Progressive disclosure inside your own agent loop: the public library API.

The loop stays yours (any SDK, any provider); this module answers its three questions::

    from toolsearch_cli.agent import ToolSearch

    ts = ToolSearch("catalogs/demo", context={"role": "member"})
    request = ts.request(messages)                       # 1. which tools does this request carry?
    response = client.chat.completions.create(model=MODEL, messages=request.messages,
                                              tools=request.tools("openai"))
    for call in response.choices[0].message.tool_calls or []:
        handled = ts.handle(call.function.name, call.function.arguments, request)   # 2. toolSearch, checks
        content = handled.content if handled.content is not None else run_my_tool(handled)  # 3. your tools
        messages.append({"role": "tool", "tool_call_id": call.id, "content": content})

* :meth:`ToolSearch.request` builds the request for a history: the resident tools, ``toolSearch``,
  matched groups' tools and the disclosed search hits, with a group's system prompt placed where
  the instance's ``api`` takes it. :meth:`Request.tools` / :meth:`Request.params` give them for
  OpenAI Chat Completions (``"openai"``), the OpenAI Responses API (``"openai-responses"``),
  Anthropic's Messages API (``"anthropic"``) or Gemini (``"gemini"``), each written by its module
  of :mod:`toolsearch_cli.providers`; :meth:`Request.native_tools` gives the APIs' own deferred
  loading instead. A chat-mode history is read whichever of these APIs wrote it.
* :meth:`ToolSearch.handle` runs a ``toolSearch`` call (its result is the ``content`` to send
  back) and checks any other call against the request it answered and the tool's schema: a
  refused call has an error ``content`` for the model; an accepted one has ``content=None`` and
  parsed ``arguments`` for you to run.
* :func:`validate_arguments` checks arguments against a tool's schema on its own.
* Chat mode (the default) derives the disclosed tools from the messages, so keep the
  ``toolSearch`` calls and results in the history you pass. Agent mode (``mode="agent"``) keeps
  them in :attr:`ToolSearch.state` instead; :meth:`ToolSearch.save_state` and ``state=`` /
  :meth:`RunState.load <toolsearch_cli.disclosure.state.RunState.load>` save and restore it.

Nothing here imports the CLI (typer, rich).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from .arguments import argument_problems, not_available, refusal
from .catalog.loading import SourcesLike
from .disclosure.engine import GROUP, RESIDENT, SEARCH, DisclosureEngine, RequestSnapshot
from .disclosure.log import MessageLog, message_json
from .disclosure.state import RunState
from .errors import ToolArgumentsError, UsageError
from .model import Catalog, Tool
from .providers import PROVIDER_BY_NAME, Api, get_provider
from .search.embed_settings import EmbedSettings, as_settings

#: Disclosure modes: ``chat`` derives the disclosed tools from the messages, ``agent`` keeps them in a state.
Mode = Literal["chat", "agent"]
#: Disclosure policies (``toolsearch_cli.disclosure.policy.POLICY_BY_NAME``).
PolicyName = Literal["latest", "cumulative"]
#: Rankers (``toolsearch_cli.search.RANKER_BY_NAME``).
RankerName = Literal["default", "classic", "hybrid", "embedding", "hybrid-rrf"]

#: The APIs :meth:`Request.tools` writes for (``openai`` is Chat Completions, also called
#: ``openai-chat``); the names ``toolsearch catalog convert --to`` uses.
APIS: tuple[str, ...] = tuple(PROVIDER_BY_NAME)


def tool_entry(tool: Tool, api: Api = "openai") -> dict[str, Any]:
    """One tool as the ``tools`` entry of ``api`` (see :mod:`toolsearch_cli.providers`)."""
    provider = get_provider(api)
    return provider.tool_entry(tool, strict=provider.strict_of(tool))


def validate_arguments(tool: Tool, arguments: str | Mapping[str, Any] | None) -> dict[str, Any]:
    """The call's arguments (JSON text or a mapping) parsed and validated against ``tool``'s JSON
    Schema (``jsonschema``; the schema's ``$schema`` draft, else 2020-12): every problem, each
    with its path (``amount``, ``address.zip``), in one :class:`ToolArgumentsError`."""
    value, problems = argument_problems(tool, arguments)
    if problems or value is None:
        raise ToolArgumentsError(tool.name, "; ".join(problems), problems)
    return value


@dataclass(slots=True)
class Request:
    """One model request: the messages to send and the tools it carries, for one provider API."""

    snapshot: RequestSnapshot
    #: The API :attr:`messages`, :attr:`system`, :meth:`tools` and :meth:`params` are written for.
    api: Api = "openai"
    #: The engine that built it (:meth:`native_tools` defers the rest of its catalog).
    engine: DisclosureEngine | None = field(default=None, repr=False, compare=False)

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The messages to send (a matched group's system prompt placed as :attr:`api` takes it:
        merged into the messages for OpenAI's APIs, lifted out into :attr:`system` for Anthropic's
        and Gemini's). Yours are not changed."""
        return self.snapshot.placed(self.api)[0]

    @property
    def system(self) -> str:
        """The system prompt to pass separately (Anthropic ``system=``, Gemini
        ``systemInstruction``): the ``system`` messages of the history, then the matched groups'
        prompt. ``""`` for OpenAI's APIs, whose :attr:`messages` carry it."""
        return self.snapshot.placed(self.api)[1]

    def params(self, api: Api | None = None) -> dict[str, Any]:
        """The create call's arguments toolsearch decides, for ``api`` (default: :attr:`api`):
        ``messages`` (Responses: ``input``; Gemini: ``contents``), ``tools`` and, for Anthropic,
        ``system`` (when there is one): ``client.messages.create(model=..., max_tokens=...,
        **request.params())``."""
        provider = get_provider(api or self.api)
        tools = [t.tool for t in self.snapshot.tools]
        return provider.request_params(self.snapshot.conversation, tools, self.snapshot.system_prompt)

    @property
    def names(self) -> list[str]:
        """The names of the tools this request carries, in order."""
        return self.snapshot.names

    def tools(self, api: Api | None = None) -> list[dict[str, Any]]:
        """The ``tools`` array for ``api`` (default: :attr:`api`): ``openai`` (Chat Completions),
        ``openai-responses``, ``anthropic`` or ``gemini``."""
        return self.snapshot.tools_for(api or self.api)

    def native_tools(self, api: Api | None = None, *, namespaces: bool = False) -> list[dict[str, Any]]:
        """The ``tools`` array in the API's own deferred-loading form (``anthropic``,
        ``openai-responses``): the resident and group tools and the search tool loaded, every
        other tool the context may see sent with ``defer_loading`` — the API loads a hit when the
        search result names it (:meth:`ToolSearch.native_result`). The array does not change as
        tools are disclosed, so the prompt cache keeps it; ``namespaces`` (Responses) groups the
        deferred functions by category."""
        provider = get_provider(api or self.api)
        loaded = [t.tool for t in self.snapshot.tools if t.role in (RESIDENT, GROUP)]
        search = [t.tool for t in self.snapshot.tools if t.role == SEARCH]
        if not search:
            raise UsageError("this request carries no search tool", field="api")
        if self.engine is None:
            raise UsageError("native_tools needs the request of a ToolSearch (it defers the catalog's tools)")
        taken = {t.name for t in loaded}
        context = self.engine.context
        deferred = [t for t in self.engine.catalog.searchable() if t.name not in taken and t.visible_to(context)]
        return provider.native_tools(loaded, deferred, search[0], namespaces=namespaces)

    def get(self, name: str) -> Tool | None:
        """The tool ``name`` if this request carries it."""
        visible = self.snapshot.get(name)
        return visible.tool if visible is not None else None


@dataclass(slots=True)
class Handled:
    """What :meth:`ToolSearch.handle` made of one tool call.

    ``content`` is the tool message to send back when the call was answered here (a search, or a
    refusal the model can read); ``None`` means the call is valid and yours to run with
    ``arguments``. ``error`` names what went wrong: a refusal (``unknown-tool``, ``not-visible``,
    ``malformed-arguments``) or a search that failed (``search-failed``: its ``content`` says why,
    for the model).
    """

    name: str
    ok: bool
    content: str | None = None
    arguments: dict[str, Any] = field(default_factory=dict)
    tool: Tool | None = None
    is_search: bool = False
    #: A search's hits, in order (what :meth:`ToolSearch.native_result` references).
    names: list[str] = field(default_factory=list)
    error: str | None = None
    message: str = ""


class ToolSearch:
    """Progressive disclosure for an app's own agent loop (see the module docstring)."""

    def __init__(
        self,
        catalog: Catalog | SourcesLike = None,
        *,
        context: Mapping[str, str] | None = None,
        policy: PolicyName = "latest",
        max_active: int | None = None,
        ranker: RankerName = "default",
        resident: Sequence[str] = (),
        mode: Mode = "chat",
        state: RunState | None = None,
        embed: EmbedSettings | str | None = None,
        api: Api = "openai",
    ) -> None:
        """``catalog``: a loaded :class:`~toolsearch_cli.model.Catalog`, or what ``load_catalog``
        takes (a path, a list of sources, ``None`` for the configured default). ``mode`` is ``chat``
        or ``agent``; ``state`` (agent mode) restores an earlier run's disclosed tools. ``embed``:
        the embedding model of ``ranker="hybrid"`` / ``"embedding"`` (an :class:`EmbedSettings`,
        or a model folder / Hub id as text), this instance's own; ``None``: the library default
        (the ``TOOLSEARCH_EMBED_*`` variables). ``api``: the provider API
        requests are written for (``openai``, ``openai-responses``, ``anthropic``, ``gemini``); a
        chat-mode history is read whichever API wrote it."""
        get_provider(api)  # an unknown API is a usage error here, not at the first request
        self.api: Api = api
        settings = as_settings(embed)
        if mode not in ("chat", "agent"):
            raise UsageError(f"unknown mode {mode!r}; choose from chat, agent", field="mode")
        if state is not None and mode != "agent":
            raise UsageError("state is kept in agent mode: pass mode='agent' with state=", field="state")
        if not isinstance(catalog, Catalog):
            from .catalog import load_catalog

            catalog = load_catalog(catalog)  # text and paths parsed into sources there, once
        self.engine = DisclosureEngine(
            catalog,
            context=context,
            policy=policy,
            max_active=max_active,
            ranker=ranker,
            resident=resident,
            embed=settings,
        )
        #: The embedding settings this instance's ranker carries (``None``: the library default).
        self.embed = settings
        self.mode: Mode = mode
        #: Agent mode: the run state holding the disclosed tool names (``None`` in chat mode).
        self.state: RunState | None = (state or RunState()) if mode == "agent" else None
        self._last: Request | None = None
        self._log = MessageLog()  # the history so far, read incrementally by each request

    @property
    def search_tool_name(self) -> str:
        return self.engine.search_tool_name

    @property
    def active(self) -> list[str]:
        """Agent mode: the disclosed tool names now (chat mode: empty, the messages hold them)."""
        return self.state.active_names if self.state is not None else []

    def request(self, messages: Sequence[Mapping[str, Any]]) -> Request:
        """The request for this history (the one :meth:`handle` checks calls against by default).

        A history that extends the previous one (its first and last-seen messages unchanged, then
        more, as an agent loop appends) costs only its new messages: they join a
        :class:`~toolsearch_cli.disclosure.log.MessageLog` kept across requests, so a long loop
        stays linear. Any other history (shorter, or a changed first or last-seen message, also
        when edited in place) starts the log over. Messages between those two must not be edited
        in place between requests."""
        snapshot = self.engine.snapshot(self._log_of(messages), state=self.state)
        self._last = Request(snapshot, self.api, self.engine)
        return self._last

    def _log_of(self, messages: Sequence[Mapping[str, Any]]) -> MessageLog:
        """The kept log, brought up to ``messages`` (or a new one when they do not extend it)."""
        if isinstance(messages, MessageLog):
            return messages
        log, seen = self._log, len(self._log)
        # the two ends as the log read them (an edit in place included): a few messages' JSON, not all
        if len(messages) < seen or (
            seen and any(message_json(_as_dict(messages[i])) != log.text(i) for i in {0, seen - 1})
        ):
            log = self._log = MessageLog()
            seen = 0
        log.extend([_as_dict(m) for m in messages[seen:]])
        return log

    def tools(self, messages: Sequence[Mapping[str, Any]], api: Api | None = None) -> list[dict[str, Any]]:
        """Shortcut: ``request(messages).tools(api)``."""
        return self.request(messages).tools(api)

    def handle(self, name: str, arguments: object, request: Request | None = None) -> Handled:
        """Answer a ``toolSearch`` call, or check a call of another tool against ``request`` (default:
        the latest :meth:`request`) and its schema. Never raises for a bad call: the model gets an
        error ``content`` it can read, as a real tool loop must. An embedding model that cannot be
        had (``ranker="hybrid"`` without one, a failing endpoint) raises ``EmbedError``: the app's to fix."""
        request = request or self._last
        if request is None:
            raise UsageError("call request(messages) before handle(): a call answers a request")
        check = self.engine.check_call(name, request.snapshot)
        if not check.ok:
            return _refused(name, check.kind or "not-visible", not_available(name), check.message)
        raw: Any = dict(arguments) if isinstance(arguments, Mapping) else arguments  # anything else as sent
        if name == self.search_tool_name:
            outcome = (
                self.engine.run_search(self.state, raw) if self.state is not None else self.engine.execute_search(raw)
            )
            return Handled(
                name=name,
                ok=outcome.ok,
                content=outcome.content(),
                is_search=True,
                names=list(outcome.names),
                error=None if outcome.ok else "malformed-arguments" if outcome.malformed else "search-failed",
                message=outcome.error or "",
            )
        tool = request.get(name)
        assert tool is not None  # check_call passed: the request carries it
        if self.state is not None:
            self.engine.note_call(self.state, name)  # a use: under cumulative it outlives uncalled hits
        try:
            value = validate_arguments(tool, raw)
        except ToolArgumentsError as exc:
            return _refused(name, "malformed-arguments", exc.message, exc.message, tool)
        return Handled(name=name, ok=True, arguments=value, tool=tool)

    def native_result(self, handled: Handled, call_id: str, api: Api | None = None) -> dict[str, Any]:
        """The history item answering a search in the API's deferred-loading form: Anthropic, a
        user message whose ``tool_result`` is ``tool_reference`` blocks; Responses, a
        ``tool_search_output`` item carrying the hits' definitions. Chat mode reads either back
        like the JSON list of names."""
        if not handled.is_search:
            raise UsageError(f"{handled.name!r} is not a search call: only searches have a native result")
        tools = [t for n in handled.names if (t := self.engine.catalog.get(n)) is not None]
        return get_provider(api or self.api).search_result(call_id, handled.names, tools)

    def save_state(self, path: str | Path) -> None:
        """Agent mode: write the run state (disclosed names only) atomically to ``path``."""
        if self.state is None:
            raise UsageError("chat mode keeps no state (the messages hold it); use mode='agent'", field="state")
        self.state.save(path)

    @classmethod
    def resume(cls, path: str | Path, catalog: Catalog | SourcesLike = None, **options: Any) -> ToolSearch:
        """Agent mode, restoring the state saved at ``path`` (a new state when there is no file)."""
        return cls(catalog, mode="agent", state=RunState.load_or_new(path), **options)


def _as_dict(message: Mapping[str, Any]) -> dict[str, Any]:
    return message if isinstance(message, dict) else dict(message)


def _refused(name: str, kind: str, said: str, message: str, tool: Tool | None = None) -> Handled:
    """A refused call: ``said`` goes to the model, ``message`` (why) to the app."""
    return Handled(name=name, ok=False, content=refusal(said), tool=tool, error=kind, message=message)


__all__ = [
    "APIS",
    "Handled",
    "Request",
    "ToolSearch",
    "tool_entry",
    "validate_arguments",
]
