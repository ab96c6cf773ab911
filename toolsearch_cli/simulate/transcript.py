"""What a simulation or replay produced: one record per model request, and a summary.

The transcript serialises to JSON (``--format json``); its ``messages`` can be replayed with
``toolsearch simulate --replay``. JSON keys are API: add, never rename.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ..disclosure.engine import RequestSnapshot
from ..disclosure.search_tool import SearchOutcome

TRANSCRIPT_FORMAT = "toolsearch.transcript"

#: Findings about a live reply that are neither expectations nor protocol errors: it cannot be
#: trusted (cut off, the tools never reached the model) or cannot be used (no text, no tool calls).
DIAGNOSTIC_KINDS = ("truncated-reply", "tools-dropped", "empty-reply", "malformed-reply")


@dataclass(slots=True)
class Finding:
    """A failed expectation or a protocol error, with the script line it belongs to."""

    kind: str  # "expectation", a protocol error code (unknown-tool, not-visible, ...) or a DIAGNOSTIC_KINDS one
    message: str
    tool: str | None = None
    line: int | None = None
    expected: bool = False  # a protocol error the script declared with expect.protocol_errors

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "message": self.message,
            "tool": self.tool,
            "line": self.line,
            "expected": self.expected,
        }


@dataclass(slots=True)
class CallRecord:
    """One tool call of the model's reply, and the result sent back."""

    id: str
    name: str
    arguments: str
    result: str | None
    error: str | None = None  # protocol error code, when the call was refused
    search: SearchOutcome | None = None
    source: str = ""  # where the result came from: search, script, function, refused, none, recorded
    is_search: bool = False  # a call of the search tool (executed, canned or recorded)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "name": self.name,
            "arguments": self.arguments,
            "result": self.result,
            "result_source": self.source,
            "error": self.error,
        }
        if self.search is not None:
            out["search"] = self.search.to_dict()
        return out


@dataclass(slots=True)
class RequestRecord:
    """A model request: its snapshot, the reply to it, and what was checked."""

    index: int
    turn: int | None
    snapshot: RequestSnapshot
    reply_text: str | None = None
    calls: list[CallRecord] = field(default_factory=list)
    checks: int = 0
    findings: list[Finding] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    line: int | None = None
    #: Live runs: latency, attempts and the provider's reported usage for this request.
    live: dict[str, Any] | None = None

    @property
    def failed(self) -> list[Finding]:
        return [f for f in self.findings if not f.expected]

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "turn": self.turn,
            "line": self.line,
            **self.snapshot.to_dict(),
            "reply": {"content": self.reply_text, "tool_calls": [c.to_dict() for c in self.calls]},
            "checks": self.checks,
            "findings": [f.to_dict() for f in self.findings],
            "warnings": list(self.warnings),
            **({"live": self.live} if self.live is not None else {}),
        }


def break_even(snaps: list[RequestSnapshot]) -> dict[str, Any]:
    """From how many tools disclosure pays off for this catalog, on this run.

    A request sends on average T tool tokens with disclosure; a catalog tool costs a tokens on
    average, so sending all of a catalog's tools is cheaper below T / a tools. Small catalogs
    (toolSearch alone can cost more than all their tools) say so here instead of showing a
    negative saving without a word.
    """
    count = snaps[0].baseline_tool_count
    baseline = snaps[0].baseline_tool_tokens
    if not count or not baseline:
        return {}
    per_tool = baseline / count
    sent = sum(s.tool_tokens for s in snaps) / len(snaps)
    return {
        "baseline_tool_count": count,
        "break_even_tools": math.ceil(sent / per_tool),
        "all_tools_cheaper": sent > baseline,
    }


#: At most this many breaks are listed (the count is always whole).
MAX_CACHE_BREAKS = 20


def tools_changes(snaps: list[RequestSnapshot]) -> list[tuple[int, int] | None]:
    """For each request after the first, whether its tools array (OpenAI Chat form, compact JSON:
    the first part of every request) is the previous request's byte for byte (``None``), or else
    (how many leading bytes it still shares with the previous one, its length in bytes)."""
    from ..providers import OPENAI_CHAT
    from ..tokens import tools_json

    def array(snap: RequestSnapshot) -> str:
        return tools_json(OPENAI_CHAT.tools([t.tool for t in snap.tools]))

    out: list[tuple[int, int] | None] = []
    for previous, snap in zip(snaps, snaps[1:], strict=False):
        if [id(t.tool) for t in snap.tools] == [id(t.tool) for t in previous.tools]:
            out.append(None)  # the very tools in the same order: the same bytes, without writing them
            continue
        before, after = array(previous), array(snap)
        if before == after:
            out.append(None)
            continue
        kept = next((i for i, (a, b) in enumerate(zip(before, after, strict=False)) if a != b), None)
        out.append((min(len(before), len(after)) if kept is None else kept, len(after)))
    return out


def prompt_cache(snaps: list[RequestSnapshot], indices: list[int] | None = None) -> dict[str, Any]:
    """The prompt-cache effect of the run's tools arrays (the first part of every request, before
    the system prompt and messages): how many requests sent the previous request's ``tools``
    byte for byte (OpenAI Chat form, compact JSON), the longest such run, and each request where
    it changed (``request``: its index in ``indices``, else its position), with how many leading
    bytes it still shared with the one before."""
    if not snaps:
        return {}
    reused, run, longest, breaks = 0, 1, 1, []
    for index, change in enumerate(tools_changes(snaps), start=1):
        if change is None:
            reused, run = reused + 1, run + 1
            longest = max(longest, run)
        else:
            run = 1
            kept, size = change
            breaks.append({"request": indices[index] if indices else index, "kept_bytes": kept, "bytes": size})
    return {
        "requests_reusing_tools": reused,
        "longest_identical_run": longest,
        "breaks": len(breaks),
        "broke_at": breaks[:MAX_CACHE_BREAKS],
    }


@dataclass(slots=True)
class Transcript:
    """A whole simulated (or replayed) conversation."""

    source: str
    kind: str  # "script" or "replay"
    mode: str
    policy: str
    max_active: int | None
    context: dict[str, str]
    catalog: list[str]
    ranker: str
    counter: str
    requests: list[RequestRecord] = field(default_factory=list)
    messages: list[dict[str, Any]] = field(default_factory=list)
    name: str = ""
    state_file: str | None = None
    restored: list[str] | None = None
    #: Live runs: endpoint, model and options (never the API key), and the resident tools used.
    live: dict[str, Any] | None = None
    #: Why a live run stopped early (the one-line error), if it did.
    error: str | None = None

    @property
    def failures(self) -> list[Finding]:
        return [f for r in self.requests for f in r.failed]

    @property
    def ok(self) -> bool:
        return not self.failures

    def summary(self) -> dict[str, Any]:
        snaps = [r.snapshot for r in self.requests]
        if not snaps:
            return {"requests": 0}
        tool_tokens = sum(s.tool_tokens for s in snaps)
        baseline_tools = sum(s.baseline_tool_tokens for s in snaps)
        request_tokens = sum(s.request_tokens for s in snaps)
        baseline_request = sum(s.baseline_request_tokens for s in snaps)
        disclosed: dict[str, None] = {}
        for s in snaps:
            for name in s.disclosed:
                disclosed.setdefault(name, None)
        searches = sum(1 for r in self.requests for c in r.calls if c.is_search)
        return {
            "requests": len(snaps),
            "searches": searches,
            "tool_tokens": tool_tokens,
            "baseline_tool_tokens": baseline_tools,
            "tool_share": round(tool_tokens / baseline_tools, 4) if baseline_tools else 0.0,
            "max_tool_share": round(max(s.tool_share for s in snaps), 4),
            "request_tokens": request_tokens,
            "baseline_request_tokens": baseline_request,
            "saving_percent": round(100.0 * (baseline_request - request_tokens) / baseline_request, 2)
            if baseline_request
            else 0.0,
            "peak_visible": max(len(s.tools) for s in snaps),
            **break_even(snaps),
            "distinct_disclosed": list(disclosed),
            "checks": sum(r.checks for r in self.requests),
            "failed": len(self.failures),
            "protocol_errors": sum(
                1 for r in self.requests for f in r.findings if f.kind not in ("expectation", *DIAGNOSTIC_KINDS)
            ),
            "diagnostics": sum(1 for r in self.requests for f in r.findings if f.kind in DIAGNOSTIC_KINDS),
            "prompt_cache": prompt_cache(snaps, [r.index for r in self.requests]),
            **({"live": self._live_totals()} if self.live is not None else {}),
        }

    def _live_totals(self) -> dict[str, Any]:
        """Live runs: time spent waiting for the model and the provider's reported usage, summed."""
        latency = 0.0
        usage: dict[str, int] = {}
        reported = 0
        for r in self.requests:
            info = r.live or {}
            latency += float(info.get("latency_ms") or 0)
            if info.get("usage"):
                reported += 1
                for key in ("prompt_tokens", "completion_tokens", "total_tokens"):
                    if isinstance(info["usage"].get(key), int):
                        usage[key] = usage.get(key, 0) + info["usage"][key]
        return {"latency_ms": round(latency, 1), "requests_with_usage": reported, "provider_usage": usage}

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": TRANSCRIPT_FORMAT,
            "version": 1,
            "name": self.name,
            "source": self.source,
            "kind": self.kind,
            "mode": self.mode,
            "policy": self.policy,
            "max_active": self.max_active,
            "context": dict(self.context),
            "catalog": list(self.catalog),
            "ranker": self.ranker,
            "counter": self.counter,
            "state_file": self.state_file,
            "restored_active": self.restored,
            "ok": self.ok,
            "summary": self.summary(),
            "requests": [r.to_dict() for r in self.requests],
            "messages": self.messages,
            **({"live": self.live} if self.live is not None else {}),
            **({"error": self.error} if self.error is not None else {}),
        }
