"""The turn loop: a model (scripted here) answers each request snapshot the real engine builds.

The runner executes ``toolSearch`` for real, returns canned (or, with ``execute``, real Python)
results for business tools, checks the script's expectations per request and flags protocol
errors a real API would reject: calling an unknown tool, a tool that was not sent in that
request, or a tool with malformed arguments.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..catalog import load_catalog
from ..disclosure.engine import DisclosureEngine, RequestSnapshot
from ..disclosure.history import SearchEvent, ToolCall, parse_search_result
from ..disclosure.search_tool import SearchOutcome
from ..disclosure.state import RunState
from ..errors import ToolsearchError, UsageError
from ..model import Tool
from ..search.base import DEFAULT_MAX_RESULTS
from ..tokens import get_counter
from .script import Expectation, Script, ScriptedCall, Step
from .transcript import CallRecord, Finding, RequestRecord, Transcript


@dataclass(slots=True)
class Settings:
    """How to run: command-line values win over the script's, which win over these defaults."""

    catalog: list[str] | None = None
    mode: str = "chat"
    policy: str = "latest"
    max_active: int | None = None
    context: dict[str, str] = field(default_factory=dict)
    ranker: str = "default"
    max_results: int = DEFAULT_MAX_RESULTS
    state_file: str | None = None
    execute: bool = False
    counter: str = "cl100k_base"


def merged_settings(script: Script | None, cli: Mapping[str, Any]) -> Settings:
    """Command-line options (``None``: not given) over script values over defaults."""
    base = Settings()
    from_script: dict[str, Any] = {}
    if script is not None:
        from_script = {
            "catalog": script.catalog or None,
            "mode": script.mode,
            "policy": script.policy,
            "max_active": script.max_active,
            "ranker": script.ranker,
            "max_results": script.max_results,
        }
    values: dict[str, Any] = {}
    for key in ("catalog", "mode", "policy", "max_active", "ranker", "max_results"):
        for candidate in (cli.get(key), from_script.get(key)):
            if candidate is not None:
                values[key] = candidate
                break
    context = dict(script.context) if script else {}
    context.update(cli.get("context") or {})
    return Settings(
        catalog=values.get("catalog"),
        mode=values.get("mode", base.mode),
        policy=values.get("policy", base.policy),
        max_active=values.get("max_active"),
        context=context,
        ranker=values.get("ranker", base.ranker),
        max_results=values.get("max_results", base.max_results),
        state_file=cli.get("state_file"),
        execute=bool(cli.get("execute")),
        counter=cli.get("counter") or base.counter,
    )


def build_engine(settings: Settings, resident: Sequence[str] = (), source: str | None = None) -> DisclosureEngine:
    """The engine for ``settings``; ``source`` (the script or recording that named ``resident``)
    is the file an unknown resident tool is reported against."""
    catalog = load_catalog(settings.catalog)
    try:
        return DisclosureEngine(
            catalog,
            context=settings.context,
            policy=settings.policy,
            max_active=settings.max_active,
            ranker=settings.ranker,
            resident=resident,
            default_max_results=settings.max_results,
            counter=get_counter(settings.counter),
        )
    except ToolsearchError as exc:
        if exc.field == "resident" and exc.file is None:
            exc.file = source
        raise


# -- the model protocol ---------------------------------------------------------------------------


@dataclass(slots=True)
class Reply:
    """A model's answer to one request: text and/or tool calls (``script_calls`` keep script data)."""

    content: str | None
    calls: list[ScriptedCall]
    expectations: list[Expectation] = field(default_factory=list)
    line: int | None = None


class Model(Protocol):
    """Anything that answers request snapshots: the scripted model, or a live one."""

    def reply(self, snapshot: RequestSnapshot) -> Reply: ...


class ScriptedModel:
    """Replays one turn's scripted steps in order, one per request."""

    def __init__(self, steps: Sequence[Step]) -> None:
        self._steps: Iterator[Step] = iter(steps)
        self.history: list[RequestSnapshot] = []

    def reply(self, snapshot: RequestSnapshot) -> Reply:
        self.history.append(snapshot)
        step = next(self._steps)
        return Reply(content=step.say, calls=list(step.calls), expectations=list(step.expect), line=step.line)


# -- running a script -------------------------------------------------------------------------------


def run_script(script: Script, settings: Settings, engine: DisclosureEngine | None = None) -> Transcript:
    """Run every turn of the script through the engine and return the transcript."""
    if settings.state_file and settings.mode != "agent":
        raise UsageError("--state keeps agent-mode run state; use it with --mode agent", field="state")
    engine = engine or build_engine(settings, script.resident, script.file)
    check_expected_names(script, engine)
    check_mock_names(script, engine)
    state: RunState | None = None
    restored: list[str] | None = None
    if settings.mode == "agent":
        state = RunState.load_or_new(settings.state_file)
        restored = state.active_names if settings.state_file else None
    transcript = _new_transcript(script.file, "script", settings, engine)
    transcript.name = script.name
    transcript.restored = restored
    messages: list[dict[str, Any]] = []
    if script.system:
        messages.append({"role": "system", "content": script.system})
    counter = 0
    for turn_number, turn in enumerate(script.turns, 1):
        messages.append({"role": "user", "content": turn.user})
        model = ScriptedModel(turn.steps)
        for _ in turn.steps:
            snapshot = engine.snapshot(messages, state=state)
            reply = model.reply(snapshot)
            record = RequestRecord(len(transcript.requests) + 1, turn_number, snapshot, reply.content, line=reply.line)
            assistant: dict[str, Any] = {"role": "assistant", "content": reply.content}
            calls = []
            for call in reply.calls:
                counter += 1
                calls.append((call, call.id if call.id is not None else f"call_{counter}"))
            if calls:
                assistant["tool_calls"] = [
                    {"id": cid, "type": "function", "function": {"name": c.name, "arguments": c.arguments_text()}}
                    for c, cid in calls
                ]
            messages.append(assistant)
            for call, cid in calls:
                result = _answer(engine, snapshot, call, cid, state, settings, record, len(messages) - 1)
                record.calls.append(result)
                messages.append({"role": "tool", "tool_call_id": cid, "content": result.result})
            _check(record, reply.expectations, settings.policy)
            transcript.requests.append(record)
        if turn.steps[-1].calls:
            transcript.requests[-1].warnings.append(
                f"turn {turn_number} ends with tool calls: the model never gave a final answer"
            )
    if state is not None and settings.state_file:
        state.save(settings.state_file)
    transcript.messages = messages
    return transcript


#: Protocol error kinds an ``expect: {protocol_errors: [...]}`` may declare.
PROTOCOL_ERROR_KINDS = ("unknown-tool", "not-visible", "malformed-arguments", "malformed-tool-call")


def check_expected_names(script: Script, engine: DisclosureEngine) -> None:
    """Every tool, group and protocol error an ``expect`` names must exist: a misspelt name would
    make ``not_visible`` pass forever and ``visible`` fail for the wrong reason."""
    from ..errors import did_you_mean
    from .script import ScriptError

    tools = [t.name for t in engine.catalog.tools] + [t.name for t in engine.prompt_tools] + [engine.search_tool_name]
    in_catalog = f"the catalog ({', '.join(engine.catalog.sources)})"
    known: dict[str, tuple[list[str], str, str]] = {
        "visible": (tools, "tool", in_catalog),
        "not_visible": (tools, "tool", in_catalog),
        "hits": (tools, "tool", in_catalog),
        "groups": ([g.name for g in engine.catalog.groups], "group", in_catalog),
        "protocol_errors": (list(PROTOCOL_ERROR_KINDS), "protocol error", "the known kinds"),
    }
    for turn in script.turns:
        for step in turn.steps:
            for e in step.expect:
                for key, (choices, what, where) in known.items():
                    for name in getattr(e, key) or ():
                        if name not in choices:
                            raise ScriptError(
                                f"'expect' names {what} {name!r}{did_you_mean(name, choices)}, which is not in {where}",
                                file=script.file,
                                line=e.line or step.line,
                                field=key,
                            )


def check_mock_names(script: Script, engine: DisclosureEngine) -> None:
    """Every tool the script's ``mocks`` answers for must exist (a misspelt one would answer nothing)."""
    from ..errors import did_you_mean
    from .script import ScriptError

    tools = [t.name for t in engine.catalog.tools]
    for name in script.mocks:
        if name not in tools:
            raise ScriptError(
                f"'mocks' names tool {name!r}{did_you_mean(name, tools)}, which is not in the catalog "
                f"({', '.join(engine.catalog.sources)})",
                file=script.file,
                line=script.mocks_line,
                field="mocks",
            )


def _new_transcript(source: str, kind: str, settings: Settings, engine: DisclosureEngine) -> Transcript:
    return Transcript(
        source=source,
        kind=kind,
        mode=settings.mode,
        policy=settings.policy,
        max_active=settings.max_active,
        context=dict(settings.context),
        catalog=list(engine.catalog.sources),
        ranker=settings.ranker,
        counter=engine.counter.name,
        state_file=settings.state_file,
    )


def _refusal(message: str) -> str:
    return json.dumps({"error": message}, ensure_ascii=False)


def _canned(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _answer(
    engine: DisclosureEngine,
    snapshot: RequestSnapshot,
    call: ScriptedCall,
    call_id: str,
    state: RunState | None,
    settings: Settings,
    record: RequestRecord,
    message_index: int,
) -> CallRecord:
    text = call.arguments_text()
    out = CallRecord(id=call_id, name=call.name, arguments=text, result=None)
    check = engine.check_call(call.name, snapshot)
    if not check.ok:
        record.findings.append(Finding(check.kind or "not-visible", check.message, call.name, call.line))
        out.error, out.source = check.kind, "refused"
        out.result = _refusal(f"tool {call.name!r} is not available in this request")
        return out
    if call.name == engine.search_tool_name:
        out.is_search = True
        return _answer_search(engine, call, call_id, state, settings, out, record, message_index)
    tool = snapshot.get(call.name)
    assert tool is not None
    if state is not None:
        engine.note_call(state, call.name)  # a use: under cumulative it outlives uncalled hits
    arguments, problem = check_arguments(tool.tool, text)
    if problem is not None:
        record.findings.append(Finding("malformed-arguments", f"{call.name}: {problem}", call.name, call.line))
        out.error, out.source = "malformed-arguments", "refused"
        out.result = _refusal(f"invalid arguments for {call.name}: {problem}")
        return out
    if call.has_result:
        out.result, out.source = _canned(call.result), "script"
    elif settings.execute and tool.tool.function is not None:
        out.source = "function"
        try:
            value = tool.tool.function(**(arguments or {}))
            out.result = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
        except Exception as exc:  # noqa: BLE001 - a failing tool is a tool result, as in a real loop
            out.result = _refusal(f"{type(exc).__name__}: {exc}")
            record.warnings.append(f"{call.name} raised {type(exc).__name__}: {exc}")
    else:
        out.result, out.source = "null", "none"
        hint = " (or give --execute)" if tool.tool.function is not None else ""
        record.warnings.append(f"no result scripted for {call.name}{hint}; sent null")
    return out


def _answer_search(
    engine: DisclosureEngine,
    call: ScriptedCall,
    call_id: str,
    state: RunState | None,
    settings: Settings,
    out: CallRecord,
    record: RequestRecord,
    message_index: int,
) -> CallRecord:
    if call.has_result:  # a canned search result, e.g. to test stale or foreign names
        out.result, out.source = _canned(call.result), "script"
        if state is not None:
            status, names = parse_search_result(out.result)
            event = SearchEvent(message_index, ToolCall(call_id, call.name, out.arguments), status, names)
            state.active_names = engine.next_active(state.active_names, event)
            _save(state, settings)
        return out
    outcome: SearchOutcome
    if state is not None:
        outcome = engine.run_search(state, out.arguments)
        _save(state, settings)
    else:
        outcome = engine.execute_search(out.arguments)
    out.search, out.source = outcome, "search"
    out.result = outcome.content()
    if not outcome.ok and outcome.error and outcome.error.startswith("the arguments are not valid JSON"):
        record.findings.append(Finding("malformed-arguments", f"{call.name}: {outcome.error}", call.name, call.line))
    return out


def _save(state: RunState, settings: Settings) -> None:
    if settings.state_file:
        state.save(settings.state_file)


_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
    "null": (type(None),),
}


def check_arguments(tool: Tool, text: str) -> tuple[dict[str, Any] | None, str | None]:
    """Parse call arguments and check them against the tool's schema (required, unknown, top-level types)."""
    try:
        value = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError as exc:
        return None, f"arguments are not valid JSON ({exc.msg})"
    if not isinstance(value, dict):
        return None, f"arguments must be a JSON object, not {type(value).__name__}"
    schema = tool.parameters
    raw_properties = schema.get("properties")
    properties: dict[str, Any] = raw_properties if isinstance(raw_properties, dict) else {}
    raw_required = schema.get("required")
    required: list[Any] = raw_required if isinstance(raw_required, list) else []
    missing = [name for name in required if name not in value]
    if missing:
        return None, f"missing required argument {missing[0]!r}"
    if schema.get("additionalProperties") is False:
        extra = [k for k in value if k not in properties]
        if extra:
            return None, f"unknown argument {extra[0]!r}"
    for name, arg in value.items():
        prop = properties.get(name)
        if not isinstance(prop, dict):
            continue
        kinds = prop.get("type")
        kinds = [kinds] if isinstance(kinds, str) else kinds if isinstance(kinds, list) else []
        accepted = tuple(t for k in kinds for t in _JSON_TYPES.get(k, ()))
        if not accepted:
            continue
        wrong_bool = isinstance(arg, bool) and bool not in accepted
        if wrong_bool or not isinstance(arg, accepted):
            return None, f"argument {name!r} must be {'/'.join(kinds)}, not {type(arg).__name__}"
        if "enum" in prop and isinstance(prop["enum"], list) and arg not in prop["enum"]:
            return None, f"argument {name!r} must be one of {prop['enum']}, not {arg!r}"
    return value, None


# -- expectations ------------------------------------------------------------------------------------


def _check(record: RequestRecord, expectations: Sequence[Expectation], policy: str) -> None:
    snap = record.snapshot
    for e in expectations:
        if e.policy is not None and e.policy != policy:
            continue
        line = e.line or record.line

        def fail(message: str, line: int | None = line) -> None:
            record.findings.append(Finding("expectation", message, line=line))

        visible = snap.names
        for name in e.visible:
            record.checks += 1
            if name not in visible:
                fail(f"expected {name!r} to be visible; visible: {', '.join(visible)}")
        for name in e.not_visible:
            record.checks += 1
            if name in visible:
                fail(f"expected {name!r} not to be visible, but it is ({snap.get(name).role})")  # type: ignore[union-attr]
        if e.hits is not None:
            record.checks += 1
            if snap.disclosed != e.hits:
                fail(f"expected disclosed hits {e.hits}, got {snap.disclosed}")
        if e.groups is not None:
            record.checks += 1
            if snap.groups != e.groups:
                fail(f"expected matched groups {e.groups}, got {snap.groups}")
        if e.max_tool_percent is not None:
            record.checks += 1
            percent = 100.0 * snap.tool_share
            if percent > e.max_tool_percent:
                fail(f"tool tokens are {percent:.1f}% of the all-tools baseline, above {e.max_tool_percent:g}%")
        if e.protocol_errors is not None:
            record.checks += 1
            seen = [f.kind for f in record.findings if f.kind != "expectation"]
            for finding in record.findings:
                if finding.kind in e.protocol_errors:
                    finding.expected = True
            for kind in e.protocol_errors:
                if kind not in seen:
                    fail(f"expected a {kind} protocol error, none occurred")
