"""Live simulation: a real model answers every request snapshot the engine builds.

The loop is the scripted runner's, with a Chat Completions client in place of the script's
replies: per user message, up to ``max_iterations`` requests, each carrying exactly the
snapshot's tools. ``toolSearch`` runs for real; business tools answer with canned results (the
script's ``mocks`` or its scripted calls' results, else the catalog's ``mock``) or, with
``execute``, the Python function. A call to a tool the request did not carry gets an error
result and is reported as a protocol error, as are malformed arguments. A :class:`Recorder`
rewrites the recording after every request, so an error never loses what was already done.
"""

from __future__ import annotations

import json
from collections import defaultdict, deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..disclosure.engine import RequestSnapshot
from ..disclosure.history import tool_calls
from ..errors import UsageError
from ..files import write_text_atomic
from ..model import Tool
from ..providers.client import ChatClient, Completion
from .loop import Reply, check_state_mode, diagnose, empty_reply, malformed_reply, new_transcript, run_conversation
from .runner import build_engine, check_mock_names
from .script import Script, ScriptedCall, Step
from .settings import DEFAULT_MAX_ITERATIONS, Settings, user_messages
from .transcript import Finding, RequestRecord, Transcript


@dataclass(slots=True)
class LiveOptions:
    """What is recorded about the endpoint (never the key: only the name of its variable).

    Made from checked :class:`~.settings.LiveSettings` (which check ``max_iterations`` & co.)."""

    base_url: str
    model: str
    api_key_env: str = "OPENAI_API_KEY"
    max_iterations: int = DEFAULT_MAX_ITERATIONS
    temperature: float | None = None
    tool_choice: str | None = "auto"
    timeout: float = 60.0
    retries: int = 3
    max_tokens: int | None = None
    #: The API the server speaks (``openai`` is Chat Completions; recorded only when another).
    api: str = "openai"

    def to_dict(self) -> dict[str, Any]:
        extra = {"api": self.api} if self.api != "openai" else {}
        return {
            "base_url": self.base_url,
            "model": self.model,
            "api_key_env": self.api_key_env,
            "max_iterations": self.max_iterations,
            "temperature": self.temperature,
            "tool_choice": self.tool_choice,
            "timeout": self.timeout,
            "retries": self.retries,
            "max_tokens": self.max_tokens,
            **extra,
        }


class Recorder:
    """Writes the transcript (messages + snapshots) to a file, atomically, after every request
    (registered secrets are masked by :func:`~toolsearch_cli.files.write_text_atomic`).

    A recording is never larger than ``--replay`` reads (:data:`~toolsearch_cli.bounded.MAX_INPUT_BYTES`):
    the save that would pass it ends the run instead, and the file keeps the last recording that
    fits (every request before), which replays."""

    def __init__(self, path: str | Path, limit: int | None = None) -> None:
        from ..bounded import MAX_INPUT_BYTES

        self.path = Path(path)
        self.limit = MAX_INPUT_BYTES if limit is None else limit
        self.saved_requests: int | None = None  # in the file now
        self.full = False

    def save(self, transcript: Transcript) -> None:
        if self.full:  # the run is ending: the file keeps the last recording that fit
            return
        text = json.dumps(transcript.to_dict(), ensure_ascii=False, indent=2) + "\n"
        size = len(text.encode("utf-8", "surrogatepass"))
        if size > self.limit:
            from ..bounded import size_text
            from ..providers.client import LiveError

            self.full = True
            kept = (
                f"{self.path} keeps the first {self.saved_requests} requests"
                if self.saved_requests
                else f"{self.path} keeps only the start of the run"
            )
            raise LiveError(
                f"the recording would be {size / 1024**2:.1f} MB, more than the {size_text(self.limit)} "
                f"--replay reads; {kept} (lower --max-reply-size or --max-iterations, or record fewer turns)"
            )
        write_text_atomic(self.path, text, what="the recording", error=UsageError, field="record")
        self.saved_requests = len(transcript.requests)


class Mocks:
    """Canned business-tool results by name: the script's first, then the catalog's ``mock``.

    A tool with several scripted results answers them in order; the last one repeats.
    """

    def __init__(self, script: Script | None) -> None:
        self._queues: dict[str, deque[Any]] = defaultdict(deque)
        self._last: dict[str, Any] = {}
        if script is None:
            return
        for name, value in script.mocks.items():
            self._queues[name].append(value)
        for turn in script.turns:
            for step in turn.steps:
                for call in step.calls:
                    if call.has_result and call.name not in script.mocks:
                        self._queues[call.name].append(call.result)

    def take(self, name: str) -> tuple[bool, Any]:
        queue = self._queues.get(name)
        if queue:
            self._last[name] = queue.popleft()
            return True, self._last[name]
        if name in self._last:
            return True, self._last[name]
        return False, None


class LiveModel:
    """A model behind a Chat Completions endpoint: each request carries exactly the snapshot's tools.

    Per user message, up to ``max_iterations`` requests (until a reply without tool calls). With a
    script (and no ``prompt``), the script is what the model is measured against: each reply
    takes the ``expect`` of the script's step at the same position in the turn, and a turn whose
    model never called a tool the script calls fails a check. Live diagnostics: a reply cut off by
    the token limit, and a server whose prompt-token count shows it never showed the tools.
    """

    def __init__(
        self,
        client: ChatClient,
        options: LiveOptions,
        *,
        script: Script | None = None,
        prompt: str | None = None,
        system: str | None = None,
    ) -> None:
        self.client = client
        self.options = options
        self.users = user_messages(script, prompt)
        self.script = script if prompt is None else None  # a --prompt run is not measured against the script
        self.system = system if system is not None else (script.system if script is not None else None)
        self.mocks = Mocks(script)
        self.generated = 0
        self._turn = 0

    def start(self) -> list[dict[str, Any]]:
        return [{"role": "system", "content": self.system}] if self.system else []

    def turns(self) -> Iterator[list[dict[str, Any]]]:
        for number, user in enumerate(self.users, 1):
            self._turn, self._requests = number, 0
            yield [{"role": "user", "content": user}]

    def _step(self) -> Step | None:
        if self.script is None:
            return None
        steps = self.script.turns[self._turn - 1].steps
        return steps[self._requests - 1] if self._requests <= len(steps) else None

    def reply(self, snapshot: RequestSnapshot) -> Reply:
        self._requests += 1
        # the tools in the shape of the client's API (an OpenAI Chat client has none said: "openai")
        completion = self.client.complete(snapshot.messages, snapshot.tools_for(getattr(self.client, "api", "openai")))
        reply = Reply(content=completion.content, calls=[])
        reply.live = _live_info(completion, snapshot.request_tokens)
        reply.assistant, reply.calls, self.generated = _assistant_message(completion, self.generated, reply.findings)
        # what the model did is a finding of the run (--check fails on it), never an error that ends
        # it; the diagnoses that may explain it come with it, on every request that has them
        malformed = malformed_reply(completion.problems)
        if malformed is not None:
            reply.findings.append(malformed)
        empty = empty_reply(reply)
        if empty is not None:
            reply.findings.append(empty)
        reply.findings.extend(diagnose(reply.live, snapshot))
        step = self._step()
        if step is not None:
            reply.expectations, reply.line = list(step.expect), step.line
        return reply

    def canned(self, call: ScriptedCall, tool: Tool) -> tuple[bool, Any]:
        return self.mocks.take(call.name)

    def more(self, reply: Reply, requests: int) -> bool:
        return bool(reply.calls) and requests < self.options.max_iterations

    def finish_turn(self, records: Sequence[RequestRecord]) -> None:
        last = records[-1]
        if last.calls:
            last.warnings.append(
                f"turn {self._turn}: no final answer after {self.options.max_iterations} requests (--max-iterations)"
            )
        if self.script is None:
            return
        turn = self.script.turns[self._turn - 1]
        expected = list(dict.fromkeys(c.name for step in turn.steps for c in step.calls))
        called = {c.name for r in records for c in r.calls}
        last.checks += len(expected)
        missing = [name for name in expected if name not in called]
        if missing:
            last.findings.append(
                Finding(
                    "expectation",
                    f"turn {self._turn}: the model never called {' / '.join(missing)} that the script expects",
                    line=turn.line,
                )
            )
        if len(records) < len(turn.steps) and any(s.expect for s in turn.steps[len(records) :]):
            last.warnings.append(
                f"turn {self._turn}: the model answered after {len(records)} of the script's {len(turn.steps)} "
                "steps; the later steps' expectations were not checked"
            )

    def unanswered(self, record: RequestRecord) -> None:  # pragma: no cover - a live model answers or raises
        record.warnings.append("the model did not answer this request")


def run_live(
    client: ChatClient,
    settings: Settings,
    options: LiveOptions,
    *,
    script: Script | None = None,
    prompt: str | None = None,
    system: str | None = None,
    source: str = "",
    recorder: Recorder | None = None,
    on_request: Callable[[RequestRecord], None] | None = None,
) -> Transcript:
    """Run the conversation against ``client``; raises
    :class:`~toolsearch_cli.providers.client.LiveError` (the server failed: unreachable, timeout,
    HTTP error, not a completion) after recording what was done.
    Whatever the model replies, empty or unusable, is a finding of the run, never an error."""
    check_state_mode(settings)
    model = LiveModel(client, options, script=script, prompt=prompt, system=system)
    resident = list(script.resident) if script else []
    engine = build_engine(settings, resident, script.file if script else None)
    if script is not None:
        check_mock_names(script, engine)
    transcript = new_transcript(source or (script.file if script else "--prompt"), "live", settings, engine)
    transcript.name = script.name if script else ""
    transcript.live = {**options.to_dict(), "resident": resident}
    save = recorder.save if recorder is not None else None
    return run_conversation(model, engine, settings, transcript, save=save, on_request=on_request)


def _live_info(completion: Completion, our_tokens: int) -> dict[str, Any]:
    info: dict[str, Any] = {
        "latency_ms": round(completion.latency * 1000, 1),
        "attempts": completion.attempts,
        "finish_reason": completion.finish_reason,
        "model": completion.model,
        "usage": completion.usage,
        "our_request_tokens": our_tokens,
    }
    if completion.retries:
        info["retried"] = [{"status": s, "waited_s": round(d, 3)} for s, d in completion.retries]
    if completion.problems:  # what the history's normalised message no longer shows: replayed from here
        info["malformed"] = list(completion.problems)
    return info


def _assistant_message(
    completion: Completion, generated: int, findings: list[Finding]
) -> tuple[dict[str, Any], list[ScriptedCall], int]:
    """The assistant message to keep in the history, and its calls with ids (blank ids get one)."""
    assistant: dict[str, Any] = {"role": "assistant", "content": completion.content}
    wire: list[dict[str, Any]] = []
    calls: list[ScriptedCall] = []
    for raw in completion.tool_calls:
        parsed = tool_calls({"tool_calls": [raw]})
        if not parsed:
            findings.append(Finding("malformed-tool-call", f"a tool call without a function name: {_short(raw)}"))
            continue
        call = parsed[0]
        call_id = call.id
        if not call_id.strip():
            generated += 1
            call_id = f"call_ts_{generated}"
        arguments = call.arguments
        if arguments is None:
            arguments = ""
        elif not isinstance(arguments, str):
            arguments = json.dumps(arguments, ensure_ascii=False)
        wire.append({"id": call_id, "type": "function", "function": {"name": call.name, "arguments": arguments}})
        calls.append(ScriptedCall(name=call.name, arguments=arguments, id=call_id))
    if wire:
        assistant["tool_calls"] = wire
    if assistant["content"] is None:
        # "" rather than null: an empty reply stays in the history for the next turn, and OpenAI
        # rejects a null content without tool calls; llama.cpp's server rejects null (and a missing key)
        assistant["content"] = ""
    return assistant, calls, generated


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 120 else text[:119] + "…"


def recording_settings(data: Mapping[str, Any]) -> dict[str, Any]:
    """Settings a recorded transcript was made with, as defaults for replaying it."""
    out: dict[str, Any] = {}
    catalog = data.get("catalog")
    if isinstance(catalog, list) and catalog and all(isinstance(c, str) for c in catalog):
        out["catalog"] = list(catalog)
    for key in ("policy", "ranker"):
        if isinstance(data.get(key), str):
            out[key] = data[key]
    max_active = data.get("max_active")
    if isinstance(max_active, int) and not isinstance(max_active, bool) and max_active > 0:
        out["max_active"] = max_active
    context = data.get("context")
    if isinstance(context, dict):
        out["context"] = {str(k): str(v) for k, v in context.items()}
    live = data.get("live")
    if isinstance(live, dict) and isinstance(live.get("resident"), list):
        out["resident"] = [r for r in live["resident"] if isinstance(r, str)]
    return out


def recorded_transcript(path: str | Path) -> dict[str, Any] | None:
    """The recording's transcript object when ``path`` is a toolsearch transcript, else ``None``."""
    from ..bounded import strict_json
    from ..errors import ToolsearchError
    from ..files import read_text

    try:
        data = strict_json(read_text(path))
    except (ToolsearchError, ValueError):
        return None
    if isinstance(data, dict) and data.get("format") == "toolsearch.transcript":
        return data
    return None


__all__ = [
    "LiveModel",
    "LiveOptions",
    "Mocks",
    "Recorder",
    "recorded_transcript",
    "recording_settings",
    "run_live",
]
