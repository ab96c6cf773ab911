"""Replay: the snapshot every request of a recorded conversation would have had.

Accepted inputs: a JSON array of OpenAI Chat Completions messages; a JSON object with
``messages`` (a request body, or this project's own transcript); JSONL with one message per
line, or one request body per line (the longest history wins: later requests repeat earlier
messages).
"""

from __future__ import annotations

import bisect
import json
import math
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..bounded import JSONRefused, strict_json
from ..disclosure.engine import DisclosureEngine, RequestSnapshot
from ..disclosure.history import tool_calls
from ..files import read_text
from ..model import Tool
from .loop import Reply, diagnose, empty_reply, malformed_reply, new_transcript, run_conversation
from .script import ScriptedCall, ScriptError
from .settings import Settings
from .transcript import Finding, RequestRecord, Transcript

ROLES = ("system", "developer", "user", "assistant", "tool", "function")


def load_conversation(path: str | Path) -> list[dict[str, Any]]:
    """Read recorded messages from JSON or JSONL; every message is checked for a known role."""
    file = str(path)
    text = read_text(path, file, what="the conversation", error=ScriptError)
    if not text.strip():
        raise ScriptError("the conversation file is empty", file=file, line=1)
    lines: list[int]
    try:
        data = strict_json(text)
        messages = _messages_of(data, file, 1)
        lines = [1] * len(messages)
    except JSONRefused as exc:
        raise ScriptError(exc.message, file=file, line=exc.line) from None
    except json.JSONDecodeError as whole_error:
        messages, lines = _jsonl(text, file, whole_error)
    for i, message in enumerate(messages):
        if not isinstance(message, dict):
            raise ScriptError(f"message {i + 1} is not a JSON object", file=file, line=lines[i], field="messages")
        role = message.get("role")
        if role not in ROLES:
            raise ScriptError(
                f"message {i + 1} has role {role!r}; expected one of {', '.join(ROLES)}",
                file=file,
                line=lines[i],
                field="role",
            )
    return messages


def _messages_of(data: Any, file: str, line: int) -> list[Any]:
    if isinstance(data, list):
        return data
    if isinstance(data, dict) and "role" in data:  # a one-line JSONL file: a single message
        return [data]
    if isinstance(data, dict) and isinstance(data.get("messages"), list):
        return data["messages"]
    if isinstance(data, dict) and data.get("format") == "toolsearch.comparison":
        raise ScriptError(
            "this is a policy comparison (simulate --policy A,B --format json), which holds one transcript "
            "per policy; save one run with a single --policy and replay that",
            file=file,
            line=line,
        )
    raise ScriptError(
        "expected a JSON array of messages or an object with 'messages' (a request body or a toolsearch transcript)",
        file=file,
        line=line,
    )


def _jsonl(text: str, file: str, whole_error: json.JSONDecodeError) -> tuple[list[Any], list[int]]:
    messages: list[Any] = []
    lines: list[int] = []
    best_request: list[Any] | None = None
    best_line = 1
    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            item = strict_json(raw)
        except JSONRefused as exc:
            raise ScriptError(exc.message, file=file, line=number) from None
        except json.JSONDecodeError as exc:
            if number == 1 and not messages:
                raise ScriptError(f"not JSON or JSONL: {whole_error.msg}", file=file, line=whole_error.lineno) from None
            raise ScriptError(f"line is not JSON: {exc.msg}", file=file, line=number) from None
        if isinstance(item, dict) and "role" in item:
            messages.append(item)
            lines.append(number)
        elif isinstance(item, dict) and isinstance(item.get("messages"), list):
            if best_request is None or len(item["messages"]) >= len(best_request):
                best_request, best_line = item["messages"], number
        else:
            raise ScriptError(
                "each JSONL line must be a message (with 'role') or a request with 'messages'", file=file, line=number
            )
    if best_request is not None and not messages:
        return best_request, [best_line] * len(best_request)
    return messages, lines


class ReplayedModel:
    """A recorded conversation as a model: each assistant message answers the request made with the
    history before it. Its calls are checked like any other; their results are the recorded tool
    messages (nothing is run). A history that does not end with an answer leaves a pending request;
    ``error`` (a recording's own, e.g. why a live run stopped) is shown with it."""

    def __init__(
        self,
        messages: Sequence[Mapping[str, Any]],
        error: str | None = None,
        live: Sequence[Mapping[str, Any] | None] = (),
    ) -> None:
        self.history = [dict(m) for m in messages]
        self.error = error
        #: A live recording's per-request figures (finish_reason, usage): its diagnostics again.
        self.live = list(live)
        self._answered = 0
        self._next: dict[str, Any] | None = None
        self._results = _results_by_id(self.history)

    def start(self) -> list[dict[str, Any]]:
        return []

    def turns(self) -> Iterator[list[dict[str, Any]]]:
        opening: list[dict[str, Any]] = []
        for index, message in enumerate(self.history):
            if message.get("role") != "assistant":
                opening.append(message)
                continue
            self._next = message
            self._at = index
            yield opening
            opening = []
        if opening:
            self._next = None
            yield opening

    def reply(self, snapshot: RequestSnapshot) -> Reply | None:
        message = self._next
        if message is None:
            return None
        content = message.get("content")
        reply = Reply(content=content if isinstance(content, str) else None, calls=[], assistant=message, recorded=True)
        recorded = self.live[self._answered] if self._answered < len(self.live) else None
        self._answered += 1
        raw_calls = message.get("tool_calls")
        calls = tool_calls(message)
        if raw_calls is not None and (not isinstance(raw_calls, list) or len(calls) != len(raw_calls)):
            # a real API rejects these; the engine skips them, the replay reports them
            shown = json.dumps(raw_calls, ensure_ascii=False, default=str)[:120]
            reply.findings.append(
                Finding("malformed-tool-call", f"'tool_calls' must be a list of calls with a function name: {shown}")
            )
        for call in calls:
            raw = (
                call.arguments
                if isinstance(call.arguments, str)
                else json.dumps(call.arguments or {}, ensure_ascii=False)
            )
            result = _first_after(self._results.get(call.pairing_id), self._at)
            reply.calls.append(ScriptedCall(name=call.name, arguments=raw, id=call.id, result=result, has_result=True))
        if isinstance(recorded, Mapping):  # a live recording: its findings about the model's reply again
            reply.live = _live_figures(recorded, snapshot)
            malformed = malformed_reply(reply.live.get("malformed") or [])
            if malformed is not None:
                reply.findings.append(malformed)
            empty = empty_reply(reply)
            if empty is not None:
                reply.findings.append(empty)
            reply.findings.extend(diagnose(reply.live, snapshot))
        return reply

    def canned(self, call: ScriptedCall, tool: Tool) -> tuple[bool, Any]:  # pragma: no cover - replies are recorded
        return False, None

    def more(self, reply: Reply, requests: int) -> bool:
        return False  # one recorded answer per request

    def finish_turn(self, records: Sequence[RequestRecord]) -> None:
        return None

    def unanswered(self, record: RequestRecord) -> None:
        if self.error:
            record.warnings.append(f"pending: the recording stopped here with an error: {self.error}")
        else:
            record.warnings.append("pending: the conversation ends before the model answered this request")
        # a live run that stopped on a reply (older versions ended on an empty one) recorded its
        # figures: the diagnoses they hold are shown here too
        recorded = self.live[self._answered] if self._answered < len(self.live) else None
        if isinstance(recorded, Mapping):
            record.live = _live_figures(recorded, record.snapshot)
            record.findings.extend(diagnose(record.live, record.snapshot))


def replay(
    messages: Sequence[Mapping[str, Any]],
    engine: DisclosureEngine,
    settings: Settings,
    source: str,
    *,
    error: str | None = None,
    live: Sequence[Mapping[str, Any] | None] = (),
) -> Transcript:
    """One record per assistant message (the request it answered), plus the pending request at the end.
    ``error`` and ``live`` come from a live recording: why it stopped, and each request's figures."""
    transcript = new_transcript(source, "replay", settings, engine)
    model = ReplayedModel(messages, error, live)
    return run_conversation(model, engine, settings, transcript)


def _live_figures(raw: Mapping[str, Any], snapshot: RequestSnapshot) -> dict[str, Any]:
    """A recorded request's live figures, each of the type a live run writes (anything else is
    dropped: a recording is input like any other)."""

    def number(value: Any) -> bool:
        return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)

    usage = raw.get("usage")
    latency, attempts = raw.get("latency_ms"), raw.get("attempts")
    malformed = raw.get("malformed")
    problems = [p[:300] for p in malformed[:10] if isinstance(p, str)] if isinstance(malformed, list) else []
    return {
        **({"malformed": problems} if problems else {}),
        "latency_ms": float(latency) if number(latency) else 0.0,  # type: ignore[arg-type]
        "attempts": attempts if isinstance(attempts, int) and not isinstance(attempts, bool) and attempts > 0 else 1,
        "finish_reason": raw.get("finish_reason") if isinstance(raw.get("finish_reason"), str) else None,
        "model": raw.get("model") if isinstance(raw.get("model"), str) else None,
        "usage": {k: v for k, v in usage.items() if isinstance(k, str) and number(v) and isinstance(v, int)}
        if isinstance(usage, Mapping)
        else None,
        "our_request_tokens": snapshot.request_tokens,
    }


def _results_by_id(history: Sequence[Mapping[str, Any]]) -> dict[str, list[tuple[int, str | None]]]:
    """Every tool message's content by ``tool_call_id``, in order (one pass: replays stay linear)."""
    out: dict[str, list[tuple[int, str | None]]] = {}
    for index, message in enumerate(history):
        if message.get("role") != "tool":
            continue
        call_id = message.get("tool_call_id")
        if not isinstance(call_id, str):
            continue
        content = message.get("content")
        text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
        out.setdefault(call_id, []).append((index, text))
    return out


def _first_after(results: list[tuple[int, str | None]] | None, index: int) -> str | None:
    """The first recorded result after message ``index`` (results are in message order)."""
    if not results:
        return None
    at = bisect.bisect_right(results, index, key=lambda item: item[0])
    return results[at][1] if at < len(results) else None
