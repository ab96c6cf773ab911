"""A tool as a registry row (JSON text plus a content hash), and rows back into tools.

A row holds what toolsearch's own YAML format holds for the tool (name, description, parameters,
category, tags, examples, metadata, requires, lint, mock), written as compact JSON with its keys
in the tool's order (``text``, not ``jsonb``: jsonb would reorder the properties of a schema).
Reading rows back goes through the same validating loader as a catalog file
(:func:`~toolsearch_cli.catalog.yaml_loader.tools_from_document`): a row is input like any file,
and a tool read from the registry is the tool read from the file it was pushed from.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from ..bounded import loads_json
from ..catalog.result import LoadResult
from ..errors import CatalogError
from ..model import Tool, ToolGroup

#: Bytes a single row's JSON may hold (a tool is a few KB; a 4 MB row is refused, not parsed).
MAX_ROW_BYTES = 4_000_000


def tool_row(tool: Tool) -> dict[str, Any]:
    """The tool as toolsearch's YAML format writes it (see :func:`catalog.export.to_yaml`)."""
    from ..catalog.export import _conditions, _labels

    entry: dict[str, Any] = {"name": tool.name, "description": tool.description, **_labels(tool)}
    entry["parameters"] = tool.parameters
    if tool.metadata:
        entry["metadata"] = tool.metadata
    entry.update(_conditions(tool))
    if tool.mock is not None:
        entry["mock"] = tool.mock
    return entry


def encode_tool(tool: Tool) -> tuple[str, str]:
    """``(json text, sha256 hex of it)``: the row's body and its content hash."""
    text = json.dumps(tool_row(tool), ensure_ascii=False, separators=(",", ":"))
    return text, hashlib.sha256(text.encode("utf-8")).hexdigest()


def encode_groups(groups: Sequence[ToolGroup]) -> str:
    from ..catalog.export import group_to_dict

    return json.dumps([group_to_dict(g) for g in groups], ensure_ascii=False, separators=(",", ":"))


def digest(hashes: Iterable[tuple[str, str]], resident: Sequence[str], groups_json: str) -> str:
    """One hash of a namespace's whole content: every (name, hash), the resident names, the groups."""
    h = hashlib.sha256()
    for name, tool_hash in sorted(hashes):
        h.update(f"{name}\0{tool_hash}\n".encode())
    h.update(json.dumps(list(resident), ensure_ascii=False).encode("utf-8"))
    h.update(groups_json.encode("utf-8"))
    return h.hexdigest()


def parse_row(text: str, where: str, tool: str | None = None) -> Any:
    """One row's JSON, within the bounds every reader applies (:data:`MAX_ROW_BYTES` characters,
    strict JSON, :data:`~toolsearch_cli.bounded.MAX_DEPTH` levels)."""
    if not isinstance(text, str):
        raise CatalogError(f"a registry row holds {type(text).__name__}, not JSON text", file=where, tool=tool)
    if len(text) > MAX_ROW_BYTES:
        raise CatalogError(
            f"a registry row of {len(text)} characters is over the limit ({MAX_ROW_BYTES})", file=where, tool=tool
        )
    try:
        return loads_json(text, where, what="malformed registry row")
    except CatalogError as exc:
        exc.tool = exc.tool or tool
        raise


def decode(rows: Sequence[tuple[str, str]], resident_json: str, groups_json: str, where: str) -> LoadResult:
    """Tools, resident names and groups from ``(name, body)`` rows, validated as a catalog file is.

    ``where`` names the source in errors and in each tool's location (``<source>#<tool>``). What a
    file load only warns about (a ``$ref`` outside its schema, a non-standard type) is a warning
    here too: collected by the enclosing :func:`~toolsearch_cli.catalog.lenient.collecting` block
    (a command's load report; ``--strict`` makes them errors), and outside any block (a follower's
    thread, the library) accepted, as the push that wrote the row accepted it."""
    from ..catalog.lenient import collecting, in_block

    if in_block():
        return _decode(rows, resident_json, groups_json, where)
    with collecting(strict=False):
        return _decode(rows, resident_json, groups_json, where)


def _decode(rows: Sequence[tuple[str, str]], resident_json: str, groups_json: str, where: str) -> LoadResult:
    from ..catalog.yaml_loader import groups_from_document, tools_from_document

    items = []
    for name, body in rows:
        item = parse_row(body, f"{where}#{name}", name)
        if not isinstance(item, dict) or item.get("name") != name:
            raise CatalogError("a registry row does not hold the tool its name says", file=where, tool=name)
        items.append(item)
    resident = parse_row(resident_json, f"{where}#resident")
    groups = parse_row(groups_json, f"{where}#groups")
    doc: dict[str, Any] = {"tools": items, "resident": resident}
    if groups:
        doc["groups"] = groups
    return replace(tools_from_document(doc, where), groups=groups_from_document(doc, where))


def check_push(
    catalog_tools: Sequence[Tool], rows: Sequence[tuple[str, str]], resident_json: str, groups_json: str, where: str
) -> None:
    """Refuse, before anything is written, a push a reader could not read back: the rows to be
    written and the namespace's resident names and groups go through :func:`decode`, the readers'
    own check (one definition of what a registry holds). The error is one line naming the tool
    (and, when it came from a file, where it was defined)."""
    from ..catalog.lenient import collecting

    try:
        with collecting(strict=False):  # what readers only warn about is pushed, as the file loaded
            decode(rows, resident_json, groups_json, where)
    except CatalogError as exc:
        tool = next((t for t in catalog_tools if t.name == exc.tool), None) if exc.tool else None
        source = tool.source if tool is not None else None
        raise CatalogError(
            f"readers of the registry would refuse it, so it is not pushed: {exc.message}",
            file=source.file if source is not None else where,
            line=source.line if source is not None else None,
            tool=exc.tool,
            field=exc.field,
        ) from None
