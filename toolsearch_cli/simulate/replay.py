"""Replay: the snapshot every request of a recorded conversation would have had.

Accepted inputs: a JSON array of OpenAI Chat Completions messages; a JSON object with
``messages`` (a request body, or this project's own transcript); JSONL with one message per
line, or one request body per line (the longest history wins: later requests repeat earlier
messages).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..bounded import JSONRefused, strict_json
from ..disclosure.engine import DisclosureEngine
from ..disclosure.history import tool_calls
from ..files import read_text
from .runner import Settings, _new_transcript, check_arguments
from .script import ScriptError
from .transcript import CallRecord, Finding, RequestRecord, Transcript

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


def replay(
    messages: Sequence[Mapping[str, Any]], engine: DisclosureEngine, settings: Settings, source: str
) -> Transcript:
    """One record per assistant message (the request it answered), plus the pending request at the end."""
    transcript = _new_transcript(source, "replay", settings, engine)
    history = [dict(m) for m in messages]
    turn = 0
    for index, message in enumerate(history):
        if message.get("role") == "user":
            turn += 1
        if message.get("role") != "assistant":
            continue
        snapshot = engine.snapshot(history[:index])
        content = message.get("content")
        record = RequestRecord(
            len(transcript.requests) + 1, turn or None, snapshot, content if isinstance(content, str) else None
        )
        raw_calls = message.get("tool_calls")
        calls = tool_calls(message)
        if raw_calls is not None and (not isinstance(raw_calls, list) or len(calls) != len(raw_calls)):
            # a real API rejects these; the engine skips them, the replay reports them
            shown = json.dumps(raw_calls, ensure_ascii=False, default=str)[:120]
            record.findings.append(
                Finding("malformed-tool-call", f"'tool_calls' must be a list of calls with a function name: {shown}")
            )
        for call in calls:
            raw = (
                call.arguments
                if isinstance(call.arguments, str)
                else json.dumps(call.arguments or {}, ensure_ascii=False)
            )
            result = _result_of(history, index, call.pairing_id)
            out = CallRecord(
                id=call.id,
                name=call.name,
                arguments=raw,
                result=result,
                source="recorded",
                is_search=call.name == engine.search_tool_name,
            )
            check = engine.check_call(call.name, snapshot)
            if not check.ok:
                out.error = check.kind
                record.findings.append(Finding(check.kind or "not-visible", check.message, call.name))
            elif call.name != engine.search_tool_name:
                tool = snapshot.get(call.name)
                _, problem = check_arguments(tool.tool, raw)  # type: ignore[union-attr]
                if problem is not None:
                    out.error = "malformed-arguments"
                    record.findings.append(Finding("malformed-arguments", f"{call.name}: {problem}", call.name))
            record.calls.append(out)
        transcript.requests.append(record)
    if history and history[-1].get("role") != "assistant":
        snapshot = engine.snapshot(history)
        record = RequestRecord(len(transcript.requests) + 1, turn or None, snapshot)
        record.warnings.append("pending: the conversation ends before the model answered this request")
        transcript.requests.append(record)
    transcript.messages = history
    return transcript


def _result_of(history: Sequence[Mapping[str, Any]], index: int, call_id: str) -> str | None:
    for later in history[index + 1 :]:
        if later.get("role") == "tool" and later.get("tool_call_id") == call_id:
            content = later.get("content")
            return content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    return None
