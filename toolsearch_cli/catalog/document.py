"""Parsed catalog documents and the pieces every format reader builds tools with.

A :class:`Document` is parsed JSON, JSON Lines or YAML plus what names the line of any JSON pointer
in it; :func:`checked_schema`, :func:`read_extension` and :func:`build_tool` turn a provider's tool
entry into a :class:`Tool`. The readers of each format (:mod:`.formats`, :mod:`.openapi`) build on
this module; it knows none of them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..bounded import JSONRefused, json_lines, loads_json, strict_json
from ..errors import CatalogError, did_you_mean, kind_of
from ..files import read_text
from ..model import Location, Tool
from .lenient import map_types, warn
from .schema import check_schema, plain

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
# building tools


def schema_pointer(schema: Any, dotted: str, base: str) -> str:
    """Turn a dotted schema path from :func:`check_schema` (``parameters.a.items``) into a JSON pointer;
    a last part that is a key of the schema it ends in, not one of its properties, is that key
    (``parameters.a.descripton`` -> ``.../properties/a/descripton``)."""
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
        elif (
            i == len(parts) - 1
            and isinstance(node, dict)
            and part in node
            and part not in (_get(node, "properties") or ())
        ):
            pointer = pointer_join(pointer, part)  # a keyword of the schema itself (a misspelt one)
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
    check_schema(schema, "parameters", fail, keywords=False)  # (looked at on the source above)
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


def check_extension(doc: Document, raw: Any, pointer: str, fields: tuple[str, ...], tool: str | None = None) -> None:
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
    check_extension(doc, raw, pointer, EXTENSION_FIELDS, tool)
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
