"""Catalogs in the formats tools already live in: OpenAI, Anthropic, MCP and OpenAPI (JSON or YAML).

The format is detected from the content (:func:`detect_format`) or forced by name
(``--catalog-format``). What a format cannot say (category, tags, examples, resident, toolsearch
metadata) travels in an ``x-toolsearch`` extension object on each tool (inside ``_meta`` for MCP);
what toolsearch has no field for (OpenAI ``strict``, Anthropic ``cache_control``, MCP ``title`` /
``annotations`` / ``outputSchema`` ...) is kept in ``metadata.<format>`` and written back on export
to that format. Errors name the file, the JSON pointer of the bad value and, when it can be found,
its line.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..errors import CatalogError, NotACatalog, did_you_mean, edit_distance, kind_of
from ..model import Tool, ToolGroup
from .document import (
    DOCUMENT_EXTENSION_FIELDS,
    EXTENSION_KEY,
    Document,
    build_tool,
    check_extension,
    checked_schema,
    pointer_join,
    read_document,
    read_extension,
    tool_description,
    tool_name,
)
from .lenient import note_original_types, warn
from .result import LoadResult

# --------------------------------------------------------------------------------------------
# detection


#: Anthropic server tools have dated types (``web_search_20250305``, ``tool_search_tool_regex_20251119``).
_ANTHROPIC_SERVER_TOOL = re.compile(r"^[a-z_]+_\d{8}$")


def _item_format(item: Any) -> str | None:
    if not isinstance(item, dict):
        return None
    if item.get("type") == "function" and isinstance(item.get("function"), dict):
        return "openai"
    if item.get("type") == "function" and "name" in item:
        return "openai"  # the flat Responses-API form
    if "input_schema" in item or _ANTHROPIC_SERVER_TOOL.match(str(item.get("type", ""))):
        return "anthropic"
    if "inputSchema" in item:
        return "mcp"
    return None


def detect_format(data: Any) -> str:
    """The format of parsed catalog data: openapi, openai, anthropic, mcp or yaml (toolsearch's own)."""
    if isinstance(data, dict):
        if "openapi" in data or "swagger" in data:
            return "openapi"
        items = data.get("tools")
        if isinstance(items, list):
            for item in items:
                found = _item_format(item)
                if found:
                    return found
            if items and "model" in data:  # a request body whose tools are none of the above
                return "openai"
        return "yaml"
    if isinstance(data, list):
        for item in data:
            found = _item_format(item)
            if found:
                return found
    return "yaml"


def load_document(
    doc: Document, catalog_format: str | None = None, *, default_category: str | None = None
) -> LoadResult:
    """Tools, resident names and groups (a :class:`LoadResult`) from a parsed document in the given
    (or detected) format."""
    fmt = catalog_format if catalog_format not in (None, "auto") else detect_format(doc.data)
    loader = LOADER_BY_FORMAT.get(fmt or "")
    if loader is None:
        raise CatalogError(
            f"unknown catalog format {fmt!r}{did_you_mean(str(fmt), FORMATS)}; choose from {', '.join(FORMATS)}",
            field="catalog-format",
        )
    try:
        return loader(doc, default_category)
    except CatalogError as exc:
        reason = not_a_catalog(doc.data)
        if reason is None or isinstance(exc, NotACatalog):
            raise
        raise NotACatalog(exc, reason) from None


#: Top-level keys of a mapping that is a catalog of some format (toolsearch's own, a provider's
#: ``tools``, an OpenAPI document); a near miss of ``tools`` (``tool``, ``Tools``) counts too.
_CATALOG_KEYS = frozenset({"tools", "openapi", "swagger", "category", "resident", "groups", "requires"})
#: Keys of which one makes a mapping a tool (a toolsearch, OpenAI, Anthropic or MCP tool).
_TOOL_KEYS = frozenset({"name", "parameters", "function", "input_schema", "inputSchema"})


def not_a_catalog(data: Any) -> str | None:
    """Why parsed data has none of the shapes any catalog format has, or ``None`` when it has one
    (a catalog, maybe a broken one). The shapes: a mapping with ``tools`` (or a near miss such as
    ``tool``), ``openapi``, ``swagger``, or toolsearch's ``category``, ``resident``, ``groups``,
    ``requires``; a mapping that is itself a tool (an OpenAI, Anthropic or MCP tool, or ``name``
    with ``parameters``); a list in which some item is a tool (a mapping with one of
    :data:`_TOOL_KEYS`); nothing at all (an empty file)."""
    if data is None or data == [] or data == {}:
        return None
    if isinstance(data, dict):
        for key in data:
            folded = str(key).casefold()
            if key in _CATALOG_KEYS or folded in ("openapi", "swagger") or edit_distance(folded, "tools", 1) <= 1:
                return None
        if _item_format(data) or ("name" in data and not _TOOL_KEYS.isdisjoint(set(data) - {"name"})):
            return None  # a tool, not a catalog of tools
        keys = ", ".join(repr(str(key)[:30]) for key in list(data)[:4]) + (", ..." if len(data) > 4 else "")
        return f"a mapping without 'tools', 'openapi' or 'swagger' (its keys: {keys})"
    if isinstance(data, list):
        if any(isinstance(item, dict) and not _TOOL_KEYS.isdisjoint(item) for item in data):
            return None
        return "a list in which no item is a tool, a mapping with 'name'"
    return f"{kind_of(data)}, not a mapping or a list"


def load_file(path: Path, display: str | None = None, catalog_format: str | None = None) -> LoadResult:
    """Tools, resident names and groups (a :class:`LoadResult`) from a JSON or YAML file in any supported format."""
    return load_document(read_document(path, display), catalog_format)


def _tool_list(doc: Document, fmt: str) -> tuple[list[Any], str]:
    data = doc.data
    if isinstance(data, list):
        return data, ""
    if isinstance(data, dict):
        if "tools" not in data:
            raise doc.error("", f"expected a list of {fmt} tools or a mapping with 'tools'")
        if not isinstance(data["tools"], list):
            raise doc.error("/tools", "'tools' must be a list")
        return data["tools"], "/tools"
    raise doc.error("", f"expected a list of {fmt} tools or a mapping with 'tools', not {kind_of(data)}")


def _check_unique(doc: Document, tools: list[Tool], pointers: list[str]) -> None:
    seen: dict[str, str] = {}
    for tool, pointer in zip(tools, pointers, strict=True):
        if tool.name in seen:
            raise doc.error(
                pointer_join(pointer, "name"), f"duplicate tool name (first at {seen[tool.name]})", tool.name
            )
        seen[tool.name] = pointer


# --------------------------------------------------------------------------------------------
# provider formats: one loop, one reader of an entry per format


@dataclass
class _Entry:
    """One provider tool entry, read and checked; ``pointer`` is where its name lives."""

    name: str
    description: str
    parameters: dict[str, Any]
    extension: dict[str, Any]
    native: dict[str, Any]
    pointer: str
    deferred: bool = False


#: Reads one tool entry (a mapping at a JSON pointer); None skips it.
EntryReader = Callable[[Document, dict[str, Any], str], _Entry | None]


def _provider_tools(
    doc: Document,
    items: list[Any],
    base: str,
    fmt: str,
    label: str,
    read: EntryReader,
    default_category: str | None,
    *,
    keep_going: bool = False,
) -> list[tuple[Tool, _Entry]]:
    """Each entry read by ``read`` and built into a :class:`Tool`; tool names must be unique.
    ``keep_going``: a bad entry (or a second one of a name) is left out with a warning (kind
    ``invalid``; an error when strict) and the others load: a live server's listing."""
    built: list[tuple[Tool, _Entry]] = []
    seen: dict[str, str] = {}
    for i, item in enumerate(items):
        at = pointer_join(base, i)
        try:
            if not isinstance(item, dict):
                raise doc.error(at, f"{label} tool must be a mapping, not {kind_of(item)}")
            entry = read(doc, item, at)
            if entry is None:
                continue
            tool = build_tool(
                doc,
                at,
                name=entry.name,
                description=entry.description,
                parameters=entry.parameters,
                extension=entry.extension,
                native=entry.native,
                fmt=fmt,
                default_category=default_category,
            )
            if keep_going and tool.name in seen:
                raise doc.error(
                    pointer_join(entry.pointer, "name"), f"duplicate tool name (first at {seen[tool.name]})", tool.name
                )
        except CatalogError as exc:
            if not keep_going:
                raise
            warn(exc, "invalid")
            continue
        seen.setdefault(tool.name, entry.pointer)
        built.append((tool, entry))
    _check_unique(doc, [tool for tool, _ in built], [entry.pointer for _, entry in built])
    return built


def _flagged_resident(built: list[tuple[Tool, _Entry]]) -> list[str]:
    """Tools marked ``resident: true`` in their extension."""
    return [tool.name for tool, entry in built if entry.extension.get("resident")]


def _described(
    doc: Document, body: dict[str, Any], at: str, schema_key: str, name: str, extension: dict[str, Any]
) -> tuple[str, dict[str, Any]]:
    """The entry's description and its parameters' JSON Schema (under ``schema_key``); the names of
    non-standard types it mapped go to the extension's metadata."""
    description = tool_description(doc, body.get("description"), pointer_join(at, "description"), name)
    originals: dict[str, str] = {}
    parameters = checked_schema(doc, body.get(schema_key), pointer_join(at, schema_key), name, originals)
    if originals:
        extension["metadata"] = note_original_types(dict(extension.get("metadata") or {}), originals)
    return description, parameters


# OpenAI


#: Tool types of a Responses request that are OpenAI's own (hosted) tools, not functions.
_OPENAI_CUSTOM = "custom"


def _openai_entry(doc: Document, item: dict[str, Any], at: str) -> _Entry | None:
    kind = item.get("type", "function")
    if kind != "function":
        named = item.get("name") if isinstance(item.get("name"), str) else None
        if isinstance(item.get("custom"), dict) and named is None:
            named = item["custom"].get("name") if isinstance(item["custom"].get("name"), str) else None
        what = (
            "a custom tool (free-form text input, no JSON Schema)"
            if kind == _OPENAI_CUSTOM
            else "one of OpenAI's own tools, not a function"
        )
        warn(
            doc.error(
                pointer_join(at, "type"),
                f"not a function tool: {kind!r} is {what}; only function tools can be searched",
                named,
            ),
            "tool",
        )
        return None
    nested = isinstance(item.get("function"), dict)
    body = item["function"] if nested else item
    body_at = pointer_join(at, "function") if nested else at
    name = tool_name(doc, body.get("name"), pointer_join(body_at, "name"))
    ext_raw = item.get(EXTENSION_KEY, body.get(EXTENSION_KEY))
    ext_at = pointer_join(at if EXTENSION_KEY in item else body_at, EXTENSION_KEY)
    extension = read_extension(doc, ext_raw, ext_at, name)
    description, parameters = _described(doc, body, body_at, "parameters", name, extension)
    defer = body.get("defer_loading", False)
    if not isinstance(defer, bool):
        raise doc.error(pointer_join(body_at, "defer_loading"), f"must be true or false, not {kind_of(defer)}", name)
    skip = {"name", "description", "parameters", EXTENSION_KEY, "type", "function", "defer_loading"}
    # strict: false is the default (Chat Completions) or what the Responses export writes when not strict
    native = {k: v for k, v in body.items() if k not in skip and not (k == "strict" and v is False)}
    if nested:
        native.update({f"tool.{k}": v for k, v in item.items() if k not in skip})
    return _Entry(name, description, parameters, extension, native, body_at, deferred=defer)


def _openai(doc: Document, items: list[Any], base: str, default_category: str | None) -> LoadResult:
    built = _provider_tools(doc, items, base, "openai", "an OpenAI", _openai_entry, default_category)
    return LoadResult(tools=[tool for tool, _ in built], resident=_resident_unless_deferred(built))


def _resident_unless_deferred(built: list[tuple[Tool, _Entry]]) -> list[str]:
    """Resident names where ``defer_loading`` (Anthropic, OpenAI Responses) is the inverse of resident:
    when any tool is deferred, the others stay loaded; an explicit ``resident`` wins."""
    any_deferred = any(entry.deferred for _, entry in built)
    resident = []
    for tool, entry in built:
        explicit = entry.extension.get("resident")
        if explicit if explicit is not None else any_deferred and not entry.deferred:
            resident.append(tool.name)
    return resident


# Anthropic


def _anthropic_entry(doc: Document, item: dict[str, Any], at: str) -> _Entry | None:
    name = tool_name(doc, item.get("name"), pointer_join(at, "name"))
    kind = item.get("type", "custom")
    if isinstance(kind, str) and kind.startswith("tool_search_tool_"):
        return None  # Anthropic's own search tool: toolsearch brings its own
    if kind != "custom":
        warn(
            doc.error(pointer_join(at, "type"), f"{kind!r} is an Anthropic server tool, not a catalog tool", name),
            "tool",
        )
        return None
    if "input_schema" not in item:
        raise doc.error(at, "an Anthropic tool needs 'input_schema'", name)
    extension = read_extension(doc, item.get(EXTENSION_KEY), pointer_join(at, EXTENSION_KEY), name)
    description, parameters = _described(doc, item, at, "input_schema", name, extension)
    defer = item.get("defer_loading", False)
    if not isinstance(defer, bool):
        raise doc.error(pointer_join(at, "defer_loading"), f"must be true or false, not {kind_of(defer)}", name)
    skip = {"name", "description", "input_schema", EXTENSION_KEY, "defer_loading"}
    native = {k: v for k, v in item.items() if k not in skip}
    return _Entry(name, description, parameters, extension, native, at, deferred=defer)


def _anthropic(doc: Document, items: list[Any], base: str, default_category: str | None) -> LoadResult:
    built = _provider_tools(doc, items, base, "anthropic", "an Anthropic", _anthropic_entry, default_category)
    return LoadResult(tools=[tool for tool, _ in built], resident=_resident_unless_deferred(built))


# MCP


def _mcp_entry(doc: Document, item: dict[str, Any], at: str) -> _Entry:
    name = tool_name(doc, item.get("name"), pointer_join(at, "name"))
    if "inputSchema" not in item:
        raise doc.error(at, "an MCP tool needs 'inputSchema'", name)
    meta = item.get("_meta")
    if meta is not None and not isinstance(meta, dict):
        raise doc.error(pointer_join(at, "_meta"), f"must be a mapping, not {kind_of(meta)}", name)
    meta = dict(meta or {})
    extension = read_extension(doc, meta.pop(EXTENSION_KEY, None), pointer_join(at, "_meta", EXTENSION_KEY), name)
    description, parameters = _described(doc, item, at, "inputSchema", name, extension)
    native = {k: v for k, v in item.items() if k not in ("name", "description", "inputSchema", "_meta")}
    if meta or (item.get("_meta") is not None and EXTENSION_KEY not in item["_meta"]):
        native["_meta"] = meta
    return _Entry(name, description, parameters, extension, native, at)


def _mcp(doc: Document, items: list[Any], base: str, default_category: str | None) -> LoadResult:
    built = _provider_tools(doc, items, base, "mcp", "an MCP", _mcp_entry, default_category)
    return LoadResult(tools=[tool for tool, _ in built], resident=_flagged_resident(built))


def live_mcp_tools(doc: Document, default_category: str | None = None) -> LoadResult:
    """A live MCP server's ``tools/list`` answer (``doc.data``: ``{"tools": [...]}``): a tool that
    is not valid is left out with a warning (kind ``invalid``; an error when strict), the rest load.
    One bad tool must not sink a server."""
    items, base = _tool_list(doc, "mcp")
    built = _provider_tools(doc, items, base, "mcp", "an MCP", _mcp_entry, default_category, keep_going=True)
    return LoadResult(tools=[tool for tool, _ in built], resident=_flagged_resident(built))


def _own(doc: Document, default_category: str | None) -> LoadResult:
    from .yaml_loader import groups_from_document, tools_from_document

    loaded = tools_from_document(doc.data, doc.file)
    return replace(loaded, groups=groups_from_document(doc.data, doc.file))


def _openapi(doc: Document, default_category: str | None) -> LoadResult:
    from .openapi import tools_from_openapi

    return tools_from_openapi(doc)


def _provider(
    fmt: str, read: Callable[[Document, list[Any], str, str | None], LoadResult]
) -> Callable[[Document, str | None], LoadResult]:
    def load(doc: Document, default_category: str | None) -> LoadResult:
        items, base = _tool_list(doc, fmt)
        return replace(read(doc, items, base, default_category), groups=_document_groups(doc))

    return load


def _document_groups(doc: Document) -> list[ToolGroup]:
    """Tool groups from a document-level ``x-toolsearch`` object (beside ``tools``)."""
    if not isinstance(doc.data, dict) or doc.data.get(EXTENSION_KEY) is None:
        return []
    ext = doc.data[EXTENSION_KEY]
    at = pointer_join("", EXTENSION_KEY)
    check_extension(doc, ext, at, DOCUMENT_EXTENSION_FIELDS)
    from .yaml_loader import groups_from_document

    try:
        return groups_from_document(ext, doc.file)
    except CatalogError as exc:
        exc.field = pointer_join(at, "groups") + (f" ({exc.field})" if exc.field else "")
        exc.line = exc.line or doc.line_of(pointer_join(at, "groups"))
        raise


#: Loaders of parsed documents by format name, called with (document, default category);
#: ``--catalog-format`` choices derive from the keys. ``yaml`` is toolsearch's own format (YAML or JSON).
LOADER_BY_FORMAT: dict[str, Callable[[Document, str | None], LoadResult]] = {
    "yaml": _own,
    "openai": _provider("openai", _openai),
    "anthropic": _provider("anthropic", _anthropic),
    "mcp": _provider("mcp", _mcp),
    "openapi": _openapi,
}

#: ``--catalog-format`` values: ``auto`` (detect from the content) or a key of :data:`LOADER_BY_FORMAT`.
FORMATS = ("auto", *LOADER_BY_FORMAT)

__all__ = [
    "FORMATS",
    "LOADER_BY_FORMAT",
    "detect_format",
    "live_mcp_tools",
    "load_document",
    "load_file",
]
