"""Conversation scripts (``*.sim.yaml``): a catalog, a context, the user's messages and the model's replies.

See ``catalogs/scenarios/example.sim.yaml`` for the commented format. Every mistake is reported
as one line naming the script file, the line and the field.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..bounded import safe_exists
from ..catalog.schema import plain
from ..catalog.yaml_loader import parse_yaml
from ..disclosure.engine import MODES
from ..disclosure.policy import POLICY_BY_NAME
from ..errors import CatalogError, ToolsearchError, did_you_mean
from ..files import read_text


class ScriptError(ToolsearchError):
    """A simulation script or recorded conversation cannot be read."""


SCRIPT_KEYS = (
    "name",
    "description",
    "catalog",
    "resident",
    "context",
    "mode",
    "policy",
    "max_active",
    "ranker",
    "max_results",
    "system",
    "mocks",
    "turns",
)
TURN_KEYS = ("user", "steps")
STEP_KEYS = ("expect", "call", "calls", "say")
CALL_KEYS = ("name", "arguments", "id", "result")
EXPECT_KEYS = ("visible", "not_visible", "hits", "groups", "protocol_errors", "max_tool_percent")


@dataclass(slots=True)
class Expectation:
    """What one request must look like; ``policy`` restricts it to runs under that policy."""

    visible: list[str] = field(default_factory=list)
    not_visible: list[str] = field(default_factory=list)
    hits: list[str] | None = None
    groups: list[str] | None = None
    protocol_errors: list[str] | None = None
    max_tool_percent: float | None = None
    policy: str | None = None
    line: int | None = None


@dataclass(slots=True)
class ScriptedCall:
    name: str
    arguments: Any  # a mapping, or raw text to simulate malformed arguments
    id: str | None = None
    result: Any = None
    has_result: bool = False
    line: int | None = None

    def arguments_text(self) -> str:
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(self.arguments if self.arguments is not None else {}, ensure_ascii=False)


@dataclass(slots=True)
class Step:
    """One model reply: tool calls and/or text, plus expectations about the request it answers."""

    calls: list[ScriptedCall] = field(default_factory=list)
    say: str | None = None
    expect: list[Expectation] = field(default_factory=list)
    line: int | None = None


@dataclass(slots=True)
class Turn:
    user: str
    steps: list[Step]
    line: int | None = None


@dataclass(slots=True)
class Script:
    """A parsed simulation script; ``None`` settings defer to the command line or the defaults."""

    file: str
    turns: list[Turn]
    name: str = ""
    description: str = ""
    catalog: list[str] = field(default_factory=list)
    #: The script's line of each ``catalog`` entry (for errors about one of them).
    catalog_lines: list[int | None] = field(default_factory=list)
    resident: list[str] = field(default_factory=list)
    context: dict[str, str] = field(default_factory=dict)
    mode: str | None = None
    policy: str | None = None
    max_active: int | None = None
    ranker: str | None = None
    max_results: int | None = None
    system: str | None = None
    #: Canned results of business tools by name, for live runs (``toolsearch simulate --live``).
    mocks: dict[str, Any] = field(default_factory=dict)
    mocks_line: int | None = None


def load_script(path: str | Path) -> Script:
    """Parse and validate a script file; catalog paths become relative to the current directory."""
    file = str(path)
    text = read_text(path, file, what="the script", error=ScriptError)
    try:
        doc = parse_yaml(text, file)
    except CatalogError as exc:
        raise ScriptError(exc.message, file=file, line=exc.line) from exc
    return parse_script(doc, file, base=Path(path).parent)


class _Reader:
    def __init__(self, file: str) -> None:
        self.file = file

    def error(self, message: str, node: Any = None, key: str | None = None, line: int | None = None) -> ScriptError:
        if line is None and node is not None:
            if key is not None and key in getattr(node, "key_lines", {}):
                line = node.key_lines[key][0]
            else:
                line = getattr(node, "line", None)
        return ScriptError(message, file=self.file, line=line, field=key)

    def mapping(self, node: Any, allowed: tuple[str, ...], what: str, line: int | None) -> dict[str, Any]:
        if not isinstance(node, dict):
            raise self.error(f"{what} must be a mapping", line=getattr(node, "line", None) or line)
        for key in node:
            if key not in allowed:
                raise self.error(
                    f"unknown key {key!r} in {what}{did_you_mean(str(key), allowed)}; expected {', '.join(allowed)}",
                    node,
                    str(key),
                )
        return node

    def text(self, node: dict[str, Any], key: str, *, required: bool = False) -> str | None:
        value = node.get(key)
        if value is None:
            if required:
                raise self.error(f"'{key}' is required", node, key)
            return None
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            raise self.error(f"'{key}' must be text", node, key)
        return str(value)

    def names(self, node: dict[str, Any], key: str) -> list[str]:
        value = node.get(key)
        if value is None:
            return []
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise self.error(f"'{key}' must be a list of names", node, key)
        return list(value)

    def positive(self, node: dict[str, Any], key: str) -> int | None:
        value = node.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise self.error(f"'{key}' must be a positive whole number", node, key)
        return value

    def choice(self, node: dict[str, Any], key: str, choices: tuple[str, ...] | list[str]) -> str | None:
        value = self.text(node, key)
        if value is not None and value not in choices:
            raise self.error(
                f"'{key}' must be one of {', '.join(choices)}, not {value!r}{did_you_mean(value, choices)}", node, key
            )
        return value


def parse_script(doc: Any, file: str, base: Path | None = None) -> Script:
    """Validate a parsed script document."""
    r = _Reader(file)
    if not isinstance(doc, dict):
        raise r.error("a script must be a mapping with 'turns'", line=1)
    r.mapping(doc, SCRIPT_KEYS, "the script", 1)
    catalog = r.names(doc, "catalog")
    if base is not None:
        catalog = [_relative(base, c) for c in catalog]
        for source in catalog:
            if _missing_path(base, source):
                raise r.error(
                    f"catalog {source!r} does not exist (paths are relative to the script's folder, {base})",
                    doc,
                    "catalog",
                )
    context: dict[str, str] = {}
    if doc.get("context") is not None:
        raw = doc["context"]
        if not isinstance(raw, dict) or not all(
            isinstance(v, str | int) and not isinstance(v, bool) for v in raw.values()
        ):
            raise r.error("'context' must map attribute names to single values, e.g. {role: admin}", doc, "context")
        context = {str(k): str(v) for k, v in raw.items()}
    turns_node = doc.get("turns")
    if not isinstance(turns_node, list) or not turns_node:
        raise r.error("'turns' must be a non-empty list of turns", doc, "turns")
    turns = [_turn(r, item, _item_line(turns_node, i)) for i, item in enumerate(turns_node)]
    return Script(
        file=file,
        turns=turns,
        name=r.text(doc, "name") or Path(file).name,
        description=r.text(doc, "description") or "",
        catalog=catalog,
        catalog_lines=_entry_lines(doc, "catalog", len(catalog)),
        resident=r.names(doc, "resident"),
        context=context,
        mode=r.choice(doc, "mode", MODES),
        policy=r.choice(doc, "policy", list(POLICY_BY_NAME)),
        max_active=r.positive(doc, "max_active"),
        ranker=_ranker(r, doc),
        max_results=r.positive(doc, "max_results"),
        system=r.text(doc, "system"),
        mocks=_mocks(r, doc),
        mocks_line=doc.key_lines.get("mocks", (None,))[0] if hasattr(doc, "key_lines") else None,
    )


def _ranker(r: _Reader, doc: dict[str, Any]) -> str | None:
    """The script's ``ranker``, checked here so a bad name points at the script's line."""
    from ..search import get_ranker

    name = r.text(doc, "ranker")
    if name is not None:
        try:
            get_ranker(name)
        except ToolsearchError as exc:
            raise r.error(exc.message, doc, "ranker") from None
    return name


def _mocks(r: _Reader, doc: dict[str, Any]) -> dict[str, Any]:
    node = doc.get("mocks")
    if node is None:
        return {}
    if not isinstance(node, dict) or not all(isinstance(k, str) and k for k in node):
        raise r.error("'mocks' must map tool names to canned results, e.g. {getWeather: {temp: 18}}", doc, "mocks")
    return {str(k): plain(v) for k, v in node.items()}


def _relative(base: Path, source: str) -> str:
    candidate = base / source
    if safe_exists(candidate):
        return os.path.normpath(candidate)
    return source  # a module name, or a path the loader will report as missing


def _missing_path(base: Path, source: str) -> bool:
    """A catalog source written as a path (a slash or a catalog suffix) that is not there; module
    names and live servers are left to the loader."""
    if "mcp+" in source or safe_exists(source) or safe_exists(base / source):
        return False
    return "/" in source or os.sep in source or Path(source).suffix.lower() in (".yaml", ".yml", ".json", ".py")


def _entry_lines(doc: Any, key: str, count: int) -> list[int | None]:
    """The line of each of the ``count`` names under ``key`` (one name: the key's line)."""
    key_line = getattr(doc, "key_lines", {}).get(key, (None,))[0]
    items = getattr(doc.get(key), "item_lines", [])
    return [items[i] if i < len(items) else key_line for i in range(count)]


def _item_line(node: Any, i: int) -> int | None:
    lines = getattr(node, "item_lines", [])
    return lines[i] if i < len(lines) else getattr(node, "line", None)


def _turn(r: _Reader, node: Any, line: int | None) -> Turn:
    node = r.mapping(node, TURN_KEYS, "a turn", line)
    user = r.text(node, "user", required=True) or ""
    steps_node = node.get("steps")
    if not isinstance(steps_node, list) or not steps_node:
        raise r.error("a turn needs 'steps': the model's replies, one per request", node, "steps")
    steps = [_step(r, item, _item_line(steps_node, i)) for i, item in enumerate(steps_node)]
    return Turn(user=user, steps=steps, line=getattr(node, "line", line))


def _step(r: _Reader, node: Any, line: int | None) -> Step:
    node = r.mapping(node, STEP_KEYS, "a step", line)
    line = getattr(node, "line", line)
    if "call" in node and "calls" in node:
        raise r.error("use either 'call' (one) or 'calls' (a list), not both", node, "calls")
    raw_calls: list[Any] = []
    calls_line = line
    if "call" in node:
        raw_calls = [node["call"]]
        calls_line = node.key_lines["call"][0] if hasattr(node, "key_lines") else line
    elif "calls" in node:
        if not isinstance(node["calls"], list) or not node["calls"]:
            raise r.error("'calls' must be a non-empty list of tool calls", node, "calls")
        raw_calls = node["calls"]
    calls = [
        _call(r, item, _item_line(node["calls"], i) if "calls" in node else calls_line)
        for i, item in enumerate(raw_calls)
    ]
    say = r.text(node, "say")
    if not calls and say is None:
        raise r.error("a step needs 'call', 'calls' or 'say' (the model's reply)", line=line)
    expect = _expectations(r, node.get("expect"), node) if node.get("expect") is not None else []
    return Step(calls=calls, say=say, expect=expect, line=line)


def _call(r: _Reader, node: Any, line: int | None) -> ScriptedCall:
    node = r.mapping(node, CALL_KEYS, "a tool call", line)
    name = r.text(node, "name", required=True) or ""
    arguments = node.get("arguments", {})
    if arguments is not None and not isinstance(arguments, dict | str):
        raise r.error("'arguments' must be a mapping (or raw JSON text)", node, "arguments")
    call_id = r.text(node, "id")
    return ScriptedCall(
        name=name,
        arguments=arguments,
        id=call_id,
        result=node.get("result"),
        has_result="result" in node,
        line=getattr(node, "line", line),
    )


def _expectations(r: _Reader, node: Any, parent: Any) -> list[Expectation]:
    if not isinstance(node, dict):
        raise r.error("'expect' must be a mapping", parent, "expect")
    if any(key in POLICY_BY_NAME for key in node):
        r.mapping(node, tuple(POLICY_BY_NAME), "'expect' (keyed by policy)", None)
        out = []
        for policy, sub in node.items():
            for e in _expectations(r, sub, node):
                e.policy = policy
                out.append(e)
        return out
    node = r.mapping(node, EXPECT_KEYS, "'expect'", getattr(parent, "line", None))
    percent = node.get("max_tool_percent")
    if percent is not None and (isinstance(percent, bool) or not isinstance(percent, int | float) or percent <= 0):
        raise r.error("'max_tool_percent' must be a positive number", node, "max_tool_percent")
    return [
        Expectation(
            visible=r.names(node, "visible"),
            not_visible=r.names(node, "not_visible"),
            hits=r.names(node, "hits") if "hits" in node else None,
            groups=r.names(node, "groups") if "groups" in node else None,
            protocol_errors=r.names(node, "protocol_errors") if "protocol_errors" in node else None,
            max_tool_percent=float(percent) if percent is not None else None,
            line=getattr(node, "line", None),
        )
    ]


def parse_context(pairs: list[str] | None) -> dict[str, str]:
    """``["role=admin", "tenant=acme"]`` -> ``{"role": "admin", "tenant": "acme"}``."""
    from ..errors import UsageError

    out: dict[str, str] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--context takes key=value, not {pair!r}", field="context")
        key, value = key.strip(), value.strip()
        if key in out and out[key] != value:
            raise UsageError(
                f"--context gives {key!r} twice ({out[key]!r}, {value!r}); a context attribute has one value",
                field="context",
            )
        out[key] = value
    return out


__all__ = [
    "Expectation",
    "Script",
    "ScriptError",
    "ScriptedCall",
    "Step",
    "Turn",
    "load_script",
    "parse_context",
    "parse_script",
]
