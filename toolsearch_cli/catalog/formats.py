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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..bounded import JSONRefused, json_lines, loads_json, strict_json
from ..errors import CatalogError, did_you_mean, kind_of
from ..files import read_text
from ..model import Location, Tool, ToolGroup
from .lenient import map_types, note_original_types, warn
from .schema import check_schema, plain

Loaded = tuple[list[Tool], list[str]]
#: Tools, resident names and tool groups.
LoadedAll = tuple[list[Tool], list[str], list[ToolGroup]]

#: The per-tool extension key carrying what a provider format has no field for; on the document
#: (beside ``tools``) it carries the catalog's tool ``groups``.
EXTENSION_KEY = "x-toolsearch"
EXTENSION_FIELDS = ("category", "tags", "examples", "resident", "metadata", "requires", "lint")
DOCUMENT_EXTENSION_FIELDS = ("groups",)


def parse_yaml(text: str, file: str) -> Any:
    """:func:`yaml_loader.parse_yaml`, imported on first use (PyYAML is not needed for JSON)."""
    from .yaml_loader import parse_yaml as parse

    return parse(text, file)


def pointer_join(pointer: str, *parts: str | int) -> str:
    """Append reference tokens to a JSON pointer, escaping ``~`` and ``/``."""
    for part in parts:
        pointer += "/" + str(part).replace("~", "~0").replace("/", "~1")
    return pointer


def pointer_tokens(pointer: str) -> list[str]:
    """The unescaped reference tokens of a JSON pointer."""
    if not pointer:
        return []
    return [t.replace("~1", "/").replace("~0", "~") for t in pointer[1:].split("/")]


#: JSON texts above this size (characters) are not parsed a second time just to give tools a line
#: (5.7 MB took 2.2 s more); errors still name their line.
_MARKED_JSON_LIMIT = 512_000


class Document:
    """Parsed catalog data plus what is needed to name the line of any JSON pointer in it."""

    def __init__(self, data: Any, file: str, text: str | None = None) -> None:
        self.data = data
        self.file = file
        self.text = text
        self._marked: Any = data if hasattr(data, "key_lines") or hasattr(data, "item_lines") else None
        self._parsed_marks = self._marked is not None

    def line_of(self, pointer: str) -> int | None:
        """Line of the value at ``pointer`` (or of its nearest ancestor), when the source shows it."""
        if not self._parsed_marks:
            self._parsed_marks = True
            if self.text is not None:
                try:  # JSON is (almost always) YAML: parse again, with marks, only to name a line
                    self._marked = parse_yaml(self.text, self.file)
                except CatalogError:
                    self._marked = None
        node, line = self._marked, None
        if node is None:
            return None
        line = getattr(node, "line", None)
        for token in pointer_tokens(pointer):
            if isinstance(node, dict):
                key: Any = token
                if key not in node:
                    return line
                line = node.key_lines.get(key, (line,))[0] if hasattr(node, "key_lines") else line
                node = node[key]
            elif isinstance(node, list):
                if not token.isdigit() or int(token) >= len(node):
                    return line
                lines = getattr(node, "item_lines", [])
                line = lines[int(token)] if int(token) < len(lines) else line
                node = node[int(token)]
            else:
                return line
        return line

    def source_line(self, pointer: str) -> int | None:
        """Like :meth:`line_of` for tool locations, but only where lines come cheap: YAML, or JSON up to
        :data:`_MARKED_JSON_LIMIT` (finding lines in JSON costs a second, YAML, parse of the text)."""
        if self._marked is None and (self.text is None or len(self.text) > _MARKED_JSON_LIMIT):
            return None
        return self.line_of(pointer)

    def error(self, pointer: str, message: str, tool: str | None = None) -> CatalogError:
        """A one-line error naming file:line, the tool and the JSON pointer of the bad value."""
        return CatalogError(message, file=self.file, line=self.line_of(pointer), tool=tool, field=pointer or "/")


def read_document(path: Path, display: str | None = None) -> Document:
    """Read a JSON or YAML file (JSON when the suffix says so or the text starts with ``{`` / ``[``)."""
    file = display or str(path)
    text = read_text(path, file, encoding="utf-8-sig")
    if path.suffix.lower() == ".jsonl":
        return parse_json_lines(text, file)
    return parse_document(text, file, json_hint=path.suffix.lower() == ".json")


def _duplicate_line(text: str, file: str, key: str) -> tuple[str, int | None]:
    """JSON is YAML: its loader names the line of a duplicate key and of the first one."""
    try:
        parse_yaml(text, file)
    except CatalogError as marked:
        if marked.message.startswith("duplicate key"):
            return marked.message.split(";")[0], marked.line
    return f"duplicate key {key!r}", None


def parse_document(text: str, file: str, *, json_hint: bool = False) -> Document:
    """Parse JSON, JSON Lines (one value a line, as BFCL ships its tools) or YAML text into a :class:`Document`.

    Told apart by structure: text that starts with ``{`` or ``[`` is tried as strict JSON; when that
    fails on syntax, text of several lines that are each a JSON object (:func:`_json_lines_shape`)
    is JSON Lines, and anything else is YAML (a flow mapping, or JSON with a YAML comment) unless
    ``json_hint`` (a ``.json`` file) says it must be JSON."""
    import json

    if json_hint or text.lstrip()[:1] in ("{", "["):
        try:
            return Document(strict_json(text), file, text)
        except JSONRefused:  # JSON syntax, a value refused (NaN, a key twice ...): the one-line error
            loads_json(text, file, duplicate_hint=lambda key: _duplicate_line(text, file, key))
            raise  # (loads_json refuses what strict_json refused)
        except json.JSONDecodeError as exc:
            if _json_lines_shape(text):
                return parse_json_lines(text, file)
            if json_hint:
                raise CatalogError(
                    f"malformed JSON: {exc.msg} (column {exc.colno})", file=file, line=exc.lineno
                ) from None
            # not JSON after all: YAML reports its own errors below
    return Document(parse_yaml(text, file), file, text)


def _json_lines_shape(text: str) -> bool:
    """Several non-blank lines, each starting with ``{``, the first a whole JSON value by itself (a
    YAML flow mapping spread over lines starting with ``{`` is not)."""
    import json

    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if len(lines) < 2 or not all(line.startswith("{") for line in lines):
        return False
    try:
        strict_json(lines[0])
    except JSONRefused:
        return True  # JSON, refused for a value: parse_json_lines names the line
    except json.JSONDecodeError:
        return False
    return True


def parse_json_lines(text: str, file: str) -> Document:
    """A JSON Lines text as a list (with the line of each item). Lines that are BFCL test entries
    (``{"id", "question", "function": [tools]}``) give their tools; a tool that several entries
    repeat is kept once, and a different one with a name already seen is skipped with a warning."""
    from .schema import MarkedList

    items = MarkedList()
    items.line = 1
    seen: dict[str, tuple[Any, int]] = {}
    for value, number in json_lines(text, file, what="malformed JSON Lines"):
        tools = value.get("function") if isinstance(value, dict) and "name" not in value else None
        for tool in tools if isinstance(tools, list) else [value]:
            name = tool.get("name") if isinstance(tool, dict) else None
            if isinstance(name, str) and name in seen:
                first, at = seen[name]
                if first != tool:
                    warn(
                        CatalogError(
                            f"a second, different definition of this tool (the first is at line {at})",
                            file=file,
                            line=number,
                            tool=name,
                        ),
                        "tool",
                    )
                continue
            if isinstance(name, str):
                seen[name] = (tool, number)
            items.append(tool)
            items.item_lines.append(number)
    return Document(items, file, None)


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
) -> LoadedAll:
    """Tools, resident names and groups from a parsed document in the given (or detected) format."""
    fmt = catalog_format if catalog_format not in (None, "auto") else detect_format(doc.data)
    loader = LOADER_BY_FORMAT.get(fmt or "")
    if loader is None:
        raise CatalogError(
            f"unknown catalog format {fmt!r}{did_you_mean(str(fmt), FORMATS)}; choose from {', '.join(FORMATS)}",
            field="catalog-format",
        )
    return loader(doc, default_category)


def load_file(path: Path, display: str | None = None, catalog_format: str | None = None) -> LoadedAll:
    """Tools, resident names and groups from a JSON or YAML file in any supported format."""
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


# --------------------------------------------------------------------------------------------
# building tools


def schema_pointer(schema: Any, dotted: str, base: str) -> str:
    """Turn a dotted schema path from :func:`check_schema` (``parameters.a.items``) into a JSON pointer."""
    parts = dotted.split(".")[1:]
    pointer, node = base, schema
    i = 0
    while i < len(parts):
        part = parts[i]
        if part == "$defs" and i + 1 < len(parts):
            pointer, node = pointer_join(pointer, "$defs", parts[i + 1]), _get(_get(node, "$defs"), parts[i + 1])
            i += 2
            continue
        if "[" in part and part.endswith("]"):
            key, _, index = part[:-1].partition("[")
            pointer, node = pointer_join(pointer, key, index), _get(_get(node, key), index)
        elif part == "items" and isinstance(node, dict) and isinstance(node.get("items"), dict):
            pointer, node = pointer_join(pointer, "items"), node["items"]
        else:
            pointer, node = pointer_join(pointer, "properties", part), _get(_get(node, "properties"), part)
        i += 1
    return pointer


def _get(node: Any, key: str) -> Any:
    if isinstance(node, dict):
        return node.get(key)
    if isinstance(node, list) and key.isdigit() and int(key) < len(node):
        return node[int(key)]
    return None


#: Keywords with which a parameters schema without ``type`` may refuse an object (or say nothing about
#: its properties): such a schema is not read as an object.
_NOT_ANY_OBJECT = ("anyOf", "oneOf", "allOf", "not", "enum", "const", "$ref", "if", "items")


def checked_schema(
    doc: Document, raw: Any, pointer: str, tool: str, originals: dict[str, str] | None = None
) -> dict[str, Any]:
    """Validate a tool's JSON Schema parameters; errors point at the bad keyword. Non-standard
    type names are mapped with a warning each; ``originals`` receives the names the source gave."""
    if raw is None:
        return {"type": "object", "properties": {}}
    if not isinstance(raw, dict):
        raise doc.error(pointer, f"the parameters must be a JSON Schema mapping, not {kind_of(raw)}", tool)

    def fail(field: str, message: str) -> CatalogError:
        return doc.error(schema_pointer(raw, field, pointer), message, tool)

    check_schema(raw, "parameters", fail, types=False)
    schema = plain(raw)
    found = map_types(schema, fail)
    check_schema(schema, "parameters", fail)
    if originals is not None:
        originals.update(found)
    if not schema:
        return {"type": "object", "properties": {}}
    kind = schema.get("type")
    if kind is None and "properties" in schema:
        schema = {"type": "object", **schema}
    elif kind is None and not any(k in schema for k in _NOT_ANY_OBJECT):
        # GitLab's MCP server publishes {"$schema": "..."} alone: it allows any object
        warn(doc.error(pointer, "the parameters schema has no 'type'; read as type 'object'", tool), "schema")
        schema = {"type": "object", "properties": {}, **schema}
    elif kind != "object":
        raise doc.error(
            pointer_join(pointer, "type"), f"the parameters schema must have type 'object', not {kind!r}", tool
        )
    return schema


def _string_list(doc: Document, value: Any, pointer: str, tool: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise doc.error(pointer, f"must be a list of strings, not {kind_of(value)}", tool)
    return list(value)


def _check_extension(doc: Document, raw: Any, pointer: str, fields: tuple[str, ...], tool: str | None = None) -> None:
    """An ``x-toolsearch`` object (a tool's or the document's): a mapping with only the known ``fields``."""
    if not isinstance(raw, dict):
        raise doc.error(pointer, f"'{EXTENSION_KEY}' must be a mapping, not {kind_of(raw)}", tool)
    for key in raw:
        if key not in fields:
            raise doc.error(
                pointer_join(pointer, key),
                f"unknown '{EXTENSION_KEY}' field{did_you_mean(str(key), fields)}; expected {', '.join(fields)}",
                tool,
            )


def read_extension(doc: Document, raw: Any, pointer: str, tool: str) -> dict[str, Any]:
    """Validate an ``x-toolsearch`` object: category, tags, examples, resident, metadata."""
    if raw is None:
        return {}
    _check_extension(doc, raw, pointer, EXTENSION_FIELDS, tool)
    out: dict[str, Any] = {}
    category = raw.get("category")
    if category is not None and not isinstance(category, str):
        raise doc.error(pointer_join(pointer, "category"), f"must be a string, not {kind_of(category)}", tool)
    out["category"] = category
    out["tags"] = _string_list(doc, raw.get("tags"), pointer_join(pointer, "tags"), tool)
    out["examples"] = _string_list(doc, raw.get("examples"), pointer_join(pointer, "examples"), tool)
    resident = raw.get("resident")
    if resident is not None and not isinstance(resident, bool):
        raise doc.error(pointer_join(pointer, "resident"), f"must be true or false, not {kind_of(resident)}", tool)
    out["resident"] = resident
    metadata = raw.get("metadata")
    if metadata is not None and not isinstance(metadata, dict):
        raise doc.error(pointer_join(pointer, "metadata"), f"must be a mapping, not {kind_of(metadata)}", tool)
    out["metadata"] = plain(metadata or {})
    out["requires"] = {}
    if raw.get("requires") is not None:
        from .yaml_loader import parse_attributes

        at = pointer_join(pointer, "requires")
        out["requires"] = parse_attributes(raw["requires"], lambda message: doc.error(at, message, tool))
    lint = raw.get("lint")
    ignore = lint.get("ignore") if isinstance(lint, dict) else None
    if lint is not None and (
        not isinstance(lint, dict) or set(lint) - {"ignore"} or not isinstance(ignore, list | type(None))
    ):
        raise doc.error(pointer_join(pointer, "lint"), "must be a mapping with one key, ignore: [rule codes]", tool)
    ignored = _string_list(doc, ignore, pointer_join(pointer, "lint", "ignore"), tool)
    out["lint"] = {"ignore": ignored} if ignored else {}
    return out


def tool_name(doc: Document, value: Any, pointer: str) -> str:
    """A tool's name: a non-empty string."""
    if not isinstance(value, str) or not value.strip():
        raise doc.error(pointer, f"a tool needs a non-empty string name, not {kind_of(value)}")
    return value


def tool_description(doc: Document, value: Any, pointer: str, tool: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise doc.error(pointer, f"the description must be a string, not {kind_of(value)}", tool)
    return value


def build_tool(
    doc: Document,
    pointer: str,
    *,
    name: str,
    description: str,
    parameters: dict[str, Any],
    extension: dict[str, Any],
    native: dict[str, Any],
    fmt: str,
    default_category: str | None = None,
) -> Tool:
    """A :class:`Tool` from a provider entry: ``native`` (fields only that format has) goes to metadata.<fmt>."""
    metadata = dict(extension.get("metadata") or {})
    if native:
        carried = metadata.get(fmt, {})
        if not isinstance(carried, dict):
            raise doc.error(
                pointer_join(pointer, EXTENSION_KEY, "metadata", fmt),
                f"must be a mapping: the tool also has {fmt} fields of its own ({', '.join(native)})",
                name,
            )
        metadata[fmt] = {**carried, **plain(native)}
    return Tool(
        name=name,
        description=description,
        parameters=parameters,
        category=extension.get("category") or default_category,
        tags=extension.get("tags", []),
        examples=extension.get("examples", []),
        metadata=metadata,
        requires=extension.get("requires") or {},
        lint=extension.get("lint") or {},
        source=Location(file=doc.file, line=doc.source_line(pointer)),
        field_locations={"name": Location(file=doc.file, line=doc.source_line(pointer_join(pointer, "name")))},
    )


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


def _openai(doc: Document, items: list[Any], base: str, default_category: str | None) -> Loaded:
    built = _provider_tools(doc, items, base, "openai", "an OpenAI", _openai_entry, default_category)
    return [tool for tool, _ in built], _resident_unless_deferred(built)


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


def _anthropic(doc: Document, items: list[Any], base: str, default_category: str | None) -> Loaded:
    built = _provider_tools(doc, items, base, "anthropic", "an Anthropic", _anthropic_entry, default_category)
    return [tool for tool, _ in built], _resident_unless_deferred(built)


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


def _mcp(doc: Document, items: list[Any], base: str, default_category: str | None) -> Loaded:
    built = _provider_tools(doc, items, base, "mcp", "an MCP", _mcp_entry, default_category)
    return [tool for tool, _ in built], _flagged_resident(built)


def live_mcp_tools(doc: Document, default_category: str | None = None) -> Loaded:
    """A live MCP server's ``tools/list`` answer (``doc.data``: ``{"tools": [...]}``): a tool that
    is not valid is left out with a warning (kind ``invalid``; an error when strict), the rest load.
    One bad tool must not sink a server."""
    items, base = _tool_list(doc, "mcp")
    built = _provider_tools(doc, items, base, "mcp", "an MCP", _mcp_entry, default_category, keep_going=True)
    return [tool for tool, _ in built], _flagged_resident(built)


def _own(doc: Document, default_category: str | None) -> LoadedAll:
    from .yaml_loader import groups_from_document, tools_from_document

    tools, resident = tools_from_document(doc.data, doc.file)
    return tools, resident, groups_from_document(doc.data, doc.file)


def _openapi(doc: Document, default_category: str | None) -> LoadedAll:
    from .openapi import tools_from_openapi

    tools, resident = tools_from_openapi(doc)
    return tools, resident, []


def _provider(
    fmt: str, read: Callable[[Document, list[Any], str, str | None], Loaded]
) -> Callable[[Document, str | None], LoadedAll]:
    def load(doc: Document, default_category: str | None) -> LoadedAll:
        items, base = _tool_list(doc, fmt)
        tools, resident = read(doc, items, base, default_category)
        return tools, resident, _document_groups(doc)

    return load


def _document_groups(doc: Document) -> list[ToolGroup]:
    """Tool groups from a document-level ``x-toolsearch`` object (beside ``tools``)."""
    if not isinstance(doc.data, dict) or doc.data.get(EXTENSION_KEY) is None:
        return []
    ext = doc.data[EXTENSION_KEY]
    at = pointer_join("", EXTENSION_KEY)
    _check_extension(doc, ext, at, DOCUMENT_EXTENSION_FIELDS)
    from .yaml_loader import groups_from_document

    try:
        return groups_from_document(ext, doc.file)
    except CatalogError as exc:
        exc.field = pointer_join(at, "groups") + (f" ({exc.field})" if exc.field else "")
        exc.line = exc.line or doc.line_of(pointer_join(at, "groups"))
        raise


#: Loaders of parsed documents by format name, called with (document, default category);
#: ``--catalog-format`` choices derive from the keys. ``yaml`` is toolsearch's own format (YAML or JSON).
LOADER_BY_FORMAT: dict[str, Callable[[Document, str | None], LoadedAll]] = {
    "yaml": _own,
    "openai": _provider("openai", _openai),
    "anthropic": _provider("anthropic", _anthropic),
    "mcp": _provider("mcp", _mcp),
    "openapi": _openapi,
}

#: ``--catalog-format`` values: ``auto`` (detect from the content) or a key of :data:`LOADER_BY_FORMAT`.
FORMATS = ("auto", *LOADER_BY_FORMAT)
