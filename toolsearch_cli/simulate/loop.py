"""One conversation loop for every kind of model: scripted, live, or replayed from a recording.

The loop owns everything that does not depend on where the replies come from: it builds each
request's snapshot, hands it to the model, keeps the history, checks every tool call against the
request (unknown or undisclosed tools, malformed arguments), runs ``toolSearch`` (or, for a
recording, takes its recorded result), answers business tools, checks the expectations that
come with a reply, keeps agent-mode run state, and records the transcript after every request.

A model is a small class (:class:`Model`): it opens each turn with messages, answers one
snapshot at a time, may offer canned results, says when a turn is over and adds its own
turn-level findings. :class:`~toolsearch_cli.simulate.runner.ScriptedModel`,
:class:`~toolsearch_cli.simulate.live.LiveModel` and
:class:`~toolsearch_cli.simulate.replay.ReplayedModel` are the three.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from ..arguments import check_arguments, not_available, refusal
from ..catalog.python_loader import user_code_output
from ..disclosure.engine import DisclosureEngine, RequestSnapshot
from ..disclosure.history import SearchEvent, parse_search_result
from ..disclosure.log import MessageLog
from ..disclosure.search_tool import INVALID_JSON, ArgumentError, SearchOutcome, parse_arguments
from ..disclosure.state import RunState
from ..errors import ToolsearchError, UsageError
from ..model import Tool
from ..providers import ToolCall
from .script import Expectation, ScriptedCall
from .transcript import CallRecord, Finding, RequestRecord, Transcript

if TYPE_CHECKING:
    from .settings import Settings


@dataclass(slots=True)
class Reply:
    """A model's answer to one request: text and/or tool calls, plus what comes with it.

    ``assistant`` is the message kept in the history (a model that leaves it out gets one built
    from ``content`` and ``calls``). ``recorded`` replies (a replay) carry their calls' results
    in ``ScriptedCall.result``: nothing is run and no tool message is added, the recording has
    them.
    """

    content: str | None
    calls: list[ScriptedCall]
    expectations: list[Expectation] = field(default_factory=list)
    line: int | None = None
    assistant: dict[str, Any] | None = None
    findings: list[Finding] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    live: dict[str, Any] | None = None
    recorded: bool = False


class Model(Protocol):
    """Anything that answers request snapshots: the scripted model, a live one, or a recording."""

    def start(self) -> list[dict[str, Any]]:
        """Messages before the first turn (a system prompt)."""
        ...

    def turns(self) -> Iterator[list[dict[str, Any]]]:
        """For each turn, the messages that open it (the user's message)."""
        ...

    def reply(self, snapshot: RequestSnapshot) -> Reply | None:
        """The answer to this request; ``None`` when the model never answered it (a replay's end)."""
        ...

    def canned(self, call: ScriptedCall, tool: Tool) -> tuple[bool, Any]:
        """A canned result for a business-tool call: ``(True, value)``, or ``(False, None)``."""
        ...

    def more(self, reply: Reply, requests: int) -> bool:
        """Whether the turn goes on after this reply (``requests`` made in the turn so far)."""
        ...

    def finish_turn(self, records: Sequence[RequestRecord]) -> None:
        """Turn-level checks and warnings, added to the turn's records (the last one is not yet saved)."""
        ...

    def unanswered(self, record: RequestRecord) -> None:
        """Fill in a request the model never answered: a warning (and what a recording knows of it)."""
        ...


def new_transcript(source: str, kind: str, settings: Settings, engine: DisclosureEngine) -> Transcript:
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


def check_state_mode(settings: Settings) -> None:
    """``--state`` keeps agent-mode run state: refused in chat mode."""
    if settings.state_file and settings.mode != "agent":
        raise UsageError("--state keeps agent-mode run state; use it with --mode agent", field="state")


def run_conversation(
    model: Model,
    engine: DisclosureEngine,
    settings: Settings,
    transcript: Transcript,
    *,
    save: Callable[[Transcript], None] | None = None,
    on_request: Callable[[RequestRecord], None] | None = None,
) -> Transcript:
    """Drive ``model`` through its turns; ``save`` gets the transcript before the first request and
    after every one. An error from the model is raised after what was done is recorded, with the
    partial transcript attached as ``exc.transcript``."""
    check_state_mode(settings)
    loop = _Loop(model, engine, settings, transcript, save, on_request)
    return loop.run()


class _Loop:
    def __init__(
        self,
        model: Model,
        engine: DisclosureEngine,
        settings: Settings,
        transcript: Transcript,
        save: Callable[[Transcript], None] | None,
        on_request: Callable[[RequestRecord], None] | None,
    ) -> None:
        self.model = model
        self.engine = engine
        self.settings = settings
        self.transcript = transcript
        self._save = save
        self._on_request = on_request
        self.state: RunState | None = None
        if settings.mode == "agent":
            self.state = RunState.load_or_new(settings.state_file)
            transcript.restored = self.state.active_names if settings.state_file else None
        # one log for the whole run: each snapshot reads its caches, so long runs and replays stay linear
        self.messages = MessageLog(transcript.messages)
        self.turn = 0
        self.generated = 0

    def save(self) -> None:
        if self._save is not None:
            self._save(self.transcript)

    def notify(self, record: RequestRecord) -> None:
        if self._on_request is not None:
            self._on_request(record)

    def run(self) -> Transcript:
        self.messages.extend(self.model.start())
        self.save()  # e.g. an unwritable recording fails now, before any request is paid for
        try:
            for opening in self.model.turns():
                self.messages.extend(opening)
                self.turn += sum(1 for m in opening if m.get("role") == "user")
                self._turn()
        except ToolsearchError as exc:
            # whatever was done so far is kept: recorded, and handed to the caller with the error
            self.transcript.error = str(exc)
            self.save()
            exc.transcript = self.transcript  # type: ignore[attr-defined]
            raise
        self._save_state()
        return self.transcript

    def _turn(self) -> None:
        records: list[RequestRecord] = []
        while True:
            snapshot = self.engine.snapshot(self.messages, state=self.state)
            reply = self.model.reply(snapshot)
            record = RequestRecord(len(self.transcript.requests) + 1, self.turn or None, snapshot)
            if reply is None:
                self.model.unanswered(record)
                self.transcript.requests.append(record)
                self.save()
                self.notify(record)
                return
            record.reply_text, record.line, record.live = reply.content, reply.line, reply.live
            record.findings.extend(reply.findings)
            record.warnings.extend(reply.warnings)
            self._answer_all(snapshot, reply, record)
            check_expectations(record, reply.expectations, self.settings.policy)
            records.append(record)
            more = self.model.more(reply, len(records))
            if not more:
                self.model.finish_turn(records)
            self.transcript.requests.append(record)
            self.save()
            self.notify(record)
            if not more:
                return

    def _answer_all(self, snapshot: RequestSnapshot, reply: Reply, record: RequestRecord) -> None:
        ids: list[str] = []
        for call in reply.calls:
            self.generated += 1
            ids.append(call.id if call.id is not None else f"call_{self.generated}")
        assistant = reply.assistant
        if assistant is None:
            assistant = {"role": "assistant", "content": reply.content}
            if reply.calls:
                assistant["tool_calls"] = [
                    {"id": cid, "type": "function", "function": {"name": c.name, "arguments": c.arguments_text()}}
                    for c, cid in zip(reply.calls, ids, strict=True)
                ]
        self.messages.append(assistant)
        at = len(self.messages) - 1
        for call, cid in zip(reply.calls, ids, strict=True):
            if reply.recorded:
                result = self._check_recorded(snapshot, call, cid, record)
            else:
                result = self._answer(snapshot, call, cid, record, at)
                self.messages.append({"role": "tool", "tool_call_id": cid, "content": result.result})
            record.calls.append(result)

    # -- one call -------------------------------------------------------------------------------

    def _refuse(self, snapshot: RequestSnapshot, call: ScriptedCall, out: CallRecord, record: RequestRecord) -> bool:
        """Check the call against the request; on a protocol error, record it and return True."""
        check = self.engine.check_call(call.name, snapshot)
        if check.ok:
            return False
        record.findings.append(Finding(check.kind or "not-visible", check.message, call.name, call.line))
        out.error = check.kind
        return True

    def _check_recorded(
        self, snapshot: RequestSnapshot, call: ScriptedCall, call_id: str, record: RequestRecord
    ) -> CallRecord:
        """A recorded call: checked like any other, its recorded result kept, nothing run."""
        text = call.arguments_text()
        out = CallRecord(
            id=call_id,
            name=call.name,
            arguments=text,
            result=call.result,
            source="recorded",
            is_search=call.name == self.engine.search_tool_name,
        )
        if self._refuse(snapshot, call, out, record):
            return out
        if out.is_search:
            problem = _search_json_problem(text)
        else:
            tool = snapshot.get(call.name)
            assert tool is not None
            _, problem = check_arguments(tool.tool, text)
        if problem is not None:
            out.error = "malformed-arguments"
            record.findings.append(Finding("malformed-arguments", f"{call.name}: {problem}", call.name, call.line))
        return out

    def _answer(
        self, snapshot: RequestSnapshot, call: ScriptedCall, call_id: str, record: RequestRecord, at: int
    ) -> CallRecord:
        text = call.arguments_text()
        out = CallRecord(id=call_id, name=call.name, arguments=text, result=None)
        if self._refuse(snapshot, call, out, record):
            out.source = "refused"
            out.result = refusal(not_available(call.name))
            return out
        if call.name == self.engine.search_tool_name:
            out.is_search = True
            return self._search(call, call_id, out, record, at)
        tool = snapshot.get(call.name)
        assert tool is not None
        if self.state is not None:
            self.engine.note_call(self.state, call.name)  # a use: under cumulative it outlives uncalled hits
        arguments, problem = check_arguments(tool.tool, text)
        if problem is not None:
            record.findings.append(Finding("malformed-arguments", f"{call.name}: {problem}", call.name, call.line))
            out.error, out.source = "malformed-arguments", "refused"
            out.result = refusal(f"invalid arguments for {call.name}: {problem}")
            return out
        self._result(tool.tool, call, arguments, out, record)
        self._bound_result(out, record)
        return out

    def _bound_result(self, out: CallRecord, record: RequestRecord) -> None:
        """A result over ``max_result_bytes`` (a function's, a mock's) is replaced by an error result
        and a warning: it would go to the model, into the transcript and into the recording."""
        limit = self.settings.max_result_bytes
        if out.result is None or len(out.result) <= limit // 4:  # 4 bytes a character at most: surely under
            return
        size = len(out.result.encode("utf-8", "surrogatepass"))
        if size > limit:
            from ..bounded import size_text

            what = f"{out.name} returned {size:,} bytes, more than the {size_text(limit)} a tool result may be"
            what += " (--max-result-size)"
            out.result = refusal(f"the result was not sent: {what}")
            record.warnings.append(f"{what}; sent an error result instead")

    def _result(
        self, tool: Tool, call: ScriptedCall, arguments: dict[str, Any] | None, out: CallRecord, record: RequestRecord
    ) -> None:
        """A business tool's result: the call's own (scripted), the model's canned one, the Python
        function (``--execute``), the catalog's ``mock``, else null with a warning."""
        if call.has_result:
            out.result, out.source = _canned(call.result), "script"
            return
        has, value = self.model.canned(call, tool)
        if has:
            out.result, out.source = _canned(value), "mock"
            return
        if self.settings.execute and tool.function is not None:
            out.source = "function"
            try:
                with user_code_output():  # what the tool prints must not corrupt --format json
                    value = tool.function(**(arguments or {}))
                out.result = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
            except (Exception, SystemExit) as exc:  # noqa: BLE001 - a failing tool is a tool result; it never ends the run
                out.result = refusal(f"{type(exc).__name__}: {exc}")
                record.warnings.append(f"{call.name} raised {type(exc).__name__}: {exc}")
            return
        if tool.mock is not None:
            out.result, out.source = _canned(tool.mock), "mock"
            return
        out.result, out.source = "null", "none"
        hint = " (or give --execute)" if tool.function is not None else ""
        record.warnings.append(f"no result scripted or mocked for {call.name}{hint}; sent null")

    def _search(self, call: ScriptedCall, call_id: str, out: CallRecord, record: RequestRecord, at: int) -> CallRecord:
        engine, state = self.engine, self.state
        if call.has_result:  # a canned search result, e.g. to test stale or foreign names
            out.result, out.source = _canned(call.result), "script"
            if state is not None:
                status, names = parse_search_result(out.result)
                event = SearchEvent(at, ToolCall(call_id, call.name, out.arguments), status, names)
                state.active_names = engine.next_active(state.active_names, event)
                self._save_state()
            return out
        outcome: SearchOutcome
        if state is not None:
            outcome = engine.run_search(state, out.arguments)
            self._save_state()
        else:
            outcome = engine.execute_search(out.arguments)
        out.search, out.source = outcome, "search"
        out.result = outcome.content()
        if outcome.malformed:
            record.findings.append(
                Finding("malformed-arguments", f"{call.name}: {outcome.error}", call.name, call.line)
            )
        return out

    def _save_state(self) -> None:
        if self.state is not None and self.settings.state_file:
            self.state.save(self.settings.state_file)


def _search_json_problem(text: str) -> str | None:
    try:
        parse_arguments(text)
    except ArgumentError as exc:
        return exc.message if exc.message.startswith(INVALID_JSON) else None
    return None


def _canned(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# -- live diagnostics --------------------------------------------------------------------------------

#: Below this share of our count of the tools' tokens, a provider's prompt-token count means the
#: tools never reached the model (tokenizers differ, but not by half on JSON schemas).
DROPPED_TOOLS_SHARE = 0.5


def diagnose(live: Mapping[str, Any] | None, snapshot: RequestSnapshot) -> list[Finding]:
    """Why a live reply cannot be trusted, from its ``live`` figures (as recorded): cut off by the
    token limit, or the server dropped the tools. Live runs and replays of their recordings alike."""
    if not live:
        return []
    out: list[Finding] = []
    if live.get("finish_reason") == "length":
        out.append(
            Finding(
                "truncated-reply",
                "the reply was cut off by the token limit (finish_reason length): it is not a whole answer; "
                "raise --max-tokens (or the server's limit)",
            )
        )
    usage = live.get("usage")
    prompt = usage.get("prompt_tokens") if isinstance(usage, Mapping) else None
    if (
        isinstance(prompt, int)
        and not isinstance(prompt, bool)
        and snapshot.tools
        and prompt < DROPPED_TOOLS_SHARE * snapshot.tool_tokens
    ):
        out.append(
            Finding(
                "tools-dropped",
                f"the server counted {prompt} prompt tokens, fewer than the {snapshot.tool_tokens} tokens of the "
                "tools alone: the model never saw the tools (some chat templates show tools only with a system "
                "message: try --system)",
            )
        )
    return out


def malformed_reply(problems: Sequence[str]) -> Finding | None:
    """A reply that breaks its API's shape (``problems``: a string where the ``message`` object
    should be, ``tool_calls`` that are not a list, content of the wrong type): a finding of the
    run, named for what it is, never reported as an empty reply."""
    if not problems:
        return None
    return Finding("malformed-reply", "the model sent a malformed reply: " + "; ".join(problems))


def empty_reply(reply: Reply) -> Finding | None:
    """A reply with no text and no tool call (a model's silence, or what a server made of it): a
    finding of the run, not an error. A reply that was malformed, or whose only calls were, is
    reported as such."""
    if (
        (reply.content or "").strip()
        or reply.calls
        or any(f.kind in ("malformed-tool-call", "malformed-reply") for f in reply.findings)
    ):
        return None
    finish = (reply.live or {}).get("finish_reason") or "none"
    return Finding(
        "empty-reply",
        f"the model sent an empty reply (no text, no tool calls; finish_reason {finish}): nothing the user could "
        "be shown",
    )


# -- expectations ------------------------------------------------------------------------------------


def check_expectations(record: RequestRecord, expectations: Sequence[Expectation], policy: str) -> None:
    """Check a reply's expectations against the request it answered; failures become findings."""
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


__all__ = [
    "Model",
    "Reply",
    "check_expectations",
    "check_state_mode",
    "diagnose",
    "empty_reply",
    "malformed_reply",
    "new_transcript",
    "run_conversation",
]
