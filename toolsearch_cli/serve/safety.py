"""Upstream text made safe on its way to the client, and upstream tools held back by the injection rule.

Everything an upstream server says reaches a model: tool descriptions, titles, every string of an
input schema (keys too), and call results. The gateway passes it through :func:`clean_value` /
:func:`clean_tool` / :func:`clean_result`, which write control characters, escape codes (ANSI CSI,
OSC), zero-width, bidi-override and Unicode tag characters as visible escapes (``\\x1b``,
``\\u200b``, ``\\U000e0049``) with the same function the CLI prints data with
(:func:`toolsearch_cli.printable.shown`): a hidden "IGNORE ..." in tag characters arrives as
visible noise, never as text the model reads but a person reviewing the screen does not.

At start and on every re-index each upstream tool is read by the injection rule of
``toolsearch lint`` (TS206, on the tool as the upstream sent it); a tool with a finding is
quarantined unless the operator allows it by name (:func:`injection_findings`).
"""

from __future__ import annotations

import json
from typing import Any

from ..model import Tool
from ..printable import hidden, shown

#: Deeper than this, a schema or result value is not walked further (it is replaced by a marker):
#: nothing honest nests this deep, and the walk must stay bounded.
MAX_DEPTH = 64


def clean_value(value: Any, depth: int = 0) -> Any:
    """``value`` (JSON data) with every string, keys included, made visible; the same object when
    nothing in it needed it (so clean data costs no copy)."""
    if isinstance(value, str):
        return shown(value) if hidden(value) else value
    if depth > MAX_DEPTH and isinstance(value, dict | list):
        return "[nested too deeply]"
    if isinstance(value, dict):
        out: dict[Any, Any] = {}
        changed = False
        for key, item in value.items():
            new_key = clean_value(key, depth + 1) if isinstance(key, str) else key
            new_item = clean_value(item, depth + 1)
            changed = changed or new_key is not key or new_item is not item
            out[new_key] = new_item
        return out if changed else value
    if isinstance(value, list):
        items = [clean_value(item, depth + 1) for item in value]
        return items if any(a is not b for a, b in zip(items, value, strict=True)) else value
    return value


def clean_tool(tool: Tool) -> Tool:
    """The tool as the client may see it: description, examples, schema and MCP title and
    annotations cleaned (its routing metadata, ``mcp_server``, is the upstream's name: kept)."""
    changes: dict[str, Any] = {}
    if hidden(tool.description):
        changes["description"] = shown(tool.description)
    parameters = clean_value(tool.parameters)
    if parameters is not tool.parameters:
        changes["parameters"] = parameters
    examples = clean_value(tool.examples)
    if examples is not tool.examples:
        changes["examples"] = examples
    mcp = tool.metadata.get("mcp")
    if isinstance(mcp, dict):
        cleaned = clean_value(mcp)
        if cleaned is not mcp:
            changes["metadata"] = {**tool.metadata, "mcp": cleaned}
    return tool.copy_with(**changes) if changes else tool


def clean_result(raw: Any) -> Any:
    """An upstream's ``CallToolResult`` with the text of its content (text blocks, embedded text
    resources) and its structured content cleaned; the same object when nothing needed it."""
    update: dict[str, Any] = {}
    content = list(getattr(raw, "content", None) or [])
    blocks: list[Any] = []
    changed = False
    for block in content:
        text = getattr(block, "text", None)
        if isinstance(text, str) and hidden(text):
            block = block.model_copy(update={"text": shown(text)})
            changed = True
        resource = getattr(block, "resource", None)
        inner = getattr(resource, "text", None)
        if resource is not None and isinstance(inner, str) and hidden(inner):
            block = block.model_copy(update={"resource": resource.model_copy(update={"text": shown(inner)})})
            changed = True
        blocks.append(block)
    if changed:
        update["content"] = blocks
    structured = getattr(raw, "structured_content", None)
    if structured is not None:
        cleaned = clean_value(structured)
        if cleaned is not structured:
            update["structured_content"] = cleaned
    return raw.model_copy(update=update) if update else raw


def clean_content(content: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The gateway's own content blocks (wire dicts) with their text cleaned (an error can quote
    what an upstream or a Python tool said)."""
    return clean_value(content)  # type: ignore[no-any-return]


class InjectionCheck:
    """TS206 on upstream tools, each definition read once (a re-index re-reads only what changed)."""

    def __init__(self) -> None:
        self._seen: dict[str, list[str]] = {}

    def findings(self, tool: Tool) -> list[str]:
        """What TS206 says of the tool as the upstream sent it (empty: nothing)."""
        key = json.dumps(
            [tool.name, tool.description, tool.parameters, tool.examples, tool.metadata.get("mcp")],
            sort_keys=True,
            default=str,
        )
        found = self._seen.get(key)
        if found is None:
            from ..lint.rules.descriptions import InjectionLikeText

            found = [f.message for f in InjectionLikeText().check_tool(tool, None, None)]  # type: ignore[arg-type]
            if len(self._seen) > 10_000:  # tools come and go across re-indexes: keep it bounded
                self._seen.clear()
            self._seen[key] = found
        return found
