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
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..disclosure.history import tool_calls
from ..disclosure.state import RunState
from ..errors import UsageError
from ..files import write_text_atomic
from .live_client import ChatClient, Completion, LiveError, Redactor
from .runner import Settings, _answer, _new_transcript, build_engine, check_mock_names
from .script import Script, ScriptedCall
from .transcript import Finding, RequestRecord, Transcript

DEFAULT_MAX_ITERATIONS = 10


@dataclass(slots=True)
class LiveOptions:
    """What is recorded about the endpoint (never the key: only the name of its variable)."""

    base_url: str
    model: str
    api_key_env: str = "OPENAI_API_KEY"
    max_iterations: int = DEFAULT_MAX_ITERATIONS
    temperature: float | None = None
    tool_choice: str | None = "auto"
    timeout: float = 60.0
    retries: int = 3

    def to_dict(self) -> dict[str, Any]:
        return {
            "base_url": self.base_url,
            "model": self.model,
            "api_key_env": self.api_key_env,
            "max_iterations": self.max_iterations,
            "temperature": self.temperature,
            "tool_choice": self.tool_choice,
            "timeout": self.timeout,
            "retries": self.retries,
        }


class Recorder:
    """Writes the transcript (messages + snapshots) to a file, atomically, after every request."""

    def __init__(self, path: str | Path, redact: Callable[[str], str] | None = None) -> None:
        self.path = Path(path)
        self.redact = redact or Redactor(None)

    def save(self, transcript: Transcript) -> None:
        text = self.redact(json.dumps(transcript.to_dict(), ensure_ascii=False, indent=2)) + "\n"
        write_text_atomic(self.path, text, what="the recording", error=UsageError, field="record")


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


def user_messages(script: Script | None, prompt: str | None) -> list[str]:
    """The user's messages: ``prompt`` when given, else every turn's ``user`` of the script."""
    if prompt is not None:
        if not prompt.strip():
            raise UsageError("--prompt is blank: give the user's message", field="prompt")
        return [prompt]
    if script is None:
        raise UsageError("--live needs the user's message: --prompt TEXT or a SCRIPT", field="prompt")
    return [turn.user for turn in script.turns]


def run_live(
    client: ChatClient,
    settings: Settings,
    options: LiveOptions,
    *,
    script: Script | None = None,
    prompt: str | None = None,
    source: str = "",
    recorder: Recorder | None = None,
    on_request: Callable[[RequestRecord], None] | None = None,
) -> Transcript:
    """Run the conversation against ``client``; raises :class:`LiveError` after recording what was done."""
    if options.max_iterations < 1:
        raise UsageError(f"--max-iterations must be at least 1, not {options.max_iterations}", field="max_iterations")
    if settings.state_file and settings.mode != "agent":
        raise UsageError("--state keeps agent-mode run state; use it with --mode agent", field="state")
    users = user_messages(script, prompt)
    resident = list(script.resident) if script else []
    engine = build_engine(settings, resident, script.file if script else None)
    if script is not None:
        check_mock_names(script, engine)
    state: RunState | None = None
    if settings.mode == "agent":
        state = RunState.load_or_new(settings.state_file)
    transcript = _new_transcript(source or (script.file if script else "--prompt"), "live", settings, engine)
    transcript.name = script.name if script else ""
    transcript.restored = state.active_names if state is not None and settings.state_file else None
    transcript.live = {**options.to_dict(), "resident": resident}
    messages: list[dict[str, Any]] = transcript.messages
    if script is not None and script.system:
        messages.append({"role": "system", "content": script.system})
    mocks = Mocks(script)
    generated = 0

    def save() -> None:
        if recorder is not None:
            recorder.save(transcript)

    save()  # an unwritable --record path fails now, before any request is paid for
    try:
        for turn_number, user in enumerate(users, 1):
            messages.append({"role": "user", "content": user})
            for iteration in range(1, options.max_iterations + 1):
                snapshot = engine.snapshot(messages, state=state)
                completion = client.complete(snapshot.messages, snapshot.openai_tools())
                record = RequestRecord(len(transcript.requests) + 1, turn_number, snapshot, completion.content)
                record.live = _live_info(completion, snapshot.request_tokens)
                assistant, calls, generated = _assistant_message(completion, generated, record)
                if not (completion.content or "").strip() and not calls and not record.findings:
                    transcript.requests.append(record)
                    transcript.error = (
                        f"the model sent an empty reply (no text, no tool calls) to request {record.index}"
                        f" (finish_reason {completion.finish_reason or 'none'})"
                    )
                    record.warnings.append("empty reply: no text and no tool calls")
                    if on_request is not None:
                        on_request(record)
                    raise LiveError(transcript.error)
                messages.append(assistant)
                for call in calls:
                    has, value = (False, None)
                    tool = engine.catalog.get(call.name)
                    if call.name != engine.search_tool_name and snapshot.get(call.name) is not None:
                        has, value = mocks.take(call.name)
                        if not has and tool is not None and tool.mock is not None:
                            if not (settings.execute and tool.function is not None):
                                has, value = True, tool.mock
                    call.result, call.has_result = value, has
                    result = _answer(engine, snapshot, call, call.id or "", state, settings, record, len(messages) - 1)
                    if result.source == "script":
                        result.source = "mock"
                    record.calls.append(result)
                    messages.append({"role": "tool", "tool_call_id": result.id, "content": result.result})
                final = not calls
                if not final and iteration == options.max_iterations:
                    record.warnings.append(
                        f"turn {turn_number}: no final answer after {options.max_iterations} requests "
                        "(--max-iterations)"
                    )
                transcript.requests.append(record)
                save()
                if on_request is not None:
                    on_request(record)
                if final:
                    break
    except LiveError as exc:
        # whatever was done so far is kept: recorded, and handed to the caller with the error
        transcript.error = str(exc)
        save()
        exc.transcript = transcript  # type: ignore[attr-defined]
        raise
    if state is not None and settings.state_file:
        state.save(settings.state_file)
    return transcript


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
    return info


def _assistant_message(
    completion: Completion, generated: int, record: RequestRecord
) -> tuple[dict[str, Any], list[ScriptedCall], int]:
    """The assistant message to keep in the history, and its calls with ids (blank ids get one)."""
    assistant: dict[str, Any] = {"role": "assistant", "content": completion.content}
    wire: list[dict[str, Any]] = []
    calls: list[ScriptedCall] = []
    for raw in completion.tool_calls:
        parsed = tool_calls({"tool_calls": [raw]})
        if not parsed:
            record.findings.append(
                Finding("malformed-tool-call", f"a tool call without a function name: {_short(raw)}")
            )
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
            # "" rather than null: OpenAI takes both, llama.cpp's server rejects null (and a missing key)
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
    "DEFAULT_MAX_ITERATIONS",
    "LiveOptions",
    "Mocks",
    "Recorder",
    "recorded_transcript",
    "recording_settings",
    "run_live",
    "user_messages",
]
