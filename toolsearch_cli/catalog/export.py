"""Write a catalog out in each format: toolsearch YAML, OpenAI, Anthropic and MCP.

Every export loads back into the same catalog (names, descriptions, parameters, category, tags,
examples, resident, metadata, requires, lint, tool groups). A provider format carries what it can
natively; the rest goes in the per-tool ``x-toolsearch`` extension (``_meta["x-toolsearch"]`` for
MCP), and the groups in a document-level ``x-toolsearch`` beside ``tools``. ``plain=True`` leaves
the extensions out, for sending the file to the provider as it is.

================  ======================================  ==========================================
format            native                                  in ``x-toolsearch`` (unless ``plain``)
================  ======================================  ==========================================
yaml              everything                              (not needed)
openai            name, description, parameters, strict   category, tags, examples, resident,
                                                          metadata, requires, lint
openai-responses  the same, in the flat Responses form    the same
anthropic         name, description, input_schema,        the same
                  defer_loading (= not resident),
                  cache_control
mcp               name, title, description, inputSchema,  the same
                  outputSchema, annotations, _meta
================  ======================================  ==========================================
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ..errors import CatalogError
from ..model import Catalog, Tool, ToolGroup
from .document import EXTENSION_KEY

#: Fields each format defines itself: ``metadata.<format>`` keys with these names cannot be written
#: natively (they would overwrite the tool) and stay in the extension instead.
#: Keys that decide format detection (``type``, ``function``, ``input_schema``, ``inputSchema``) are
#: reserved in every format, so an export is always detected as what it is.
_DETECTION_KEYS = frozenset({"type", "function", "input_schema", "inputSchema", EXTENSION_KEY})
_RESERVED = {
    "openai": _DETECTION_KEYS | {"name", "description", "parameters", "defer_loading"},
    "anthropic": _DETECTION_KEYS | {"name", "description", "defer_loading"},
    "mcp": _DETECTION_KEYS | {"name", "description"},
}


def _split_native(tool: Tool, fmt: str, flat: bool = False) -> tuple[dict[str, Any], Any]:
    """``metadata.<fmt>`` split into what the format carries natively and what must stay in the extension."""
    value = tool.metadata.get(fmt)
    if fmt not in tool.metadata:
        return {}, None
    if not isinstance(value, dict):
        return {}, value
    reserved = _RESERVED.get(fmt, frozenset())
    # an MCP _meta that is not a non-empty mapping cannot sit beside x-toolsearch in _meta: keep it in the extension
    native = {
        k: v for k, v in value.items() if k not in reserved and not (k == "_meta" and not (isinstance(v, dict) and v))
    }
    rest = {k: v for k, v in value.items() if k not in native}
    if fmt == "openai":  # outer keys of the Chat Completions entry must not clash either; the flat form has none
        for key in [k for k in native if k.startswith("tool.") and (flat or k[len("tool.") :] in reserved)]:
            rest[key] = native.pop(key)
    return native, (rest if rest or not value else None)  # an empty mapping is kept as written


def extension(tool: Tool, resident: bool, fmt: str, flat: bool = False) -> dict[str, Any]:
    """The ``x-toolsearch`` object of a tool: what ``fmt`` cannot carry natively, empty parts left out."""
    metadata = {k: v for k, v in tool.metadata.items() if k != fmt}
    _, rest = _split_native(tool, fmt, flat)
    if rest is not None:
        metadata[fmt] = rest
    ext: dict[str, Any] = _labels(tool)
    if resident:
        ext["resident"] = True
    if metadata:
        ext["metadata"] = metadata
    ext.update(_conditions(tool))
    return ext


def _labels(tool: Tool) -> dict[str, Any]:
    """A tool's category, tags and examples, those it has (in this order: output order is kept)."""
    out: dict[str, Any] = {}
    if tool.category:
        out["category"] = tool.category
    if tool.tags:
        out["tags"] = list(tool.tags)
    if tool.examples:
        out["examples"] = list(tool.examples)
    return out


def _conditions(tool: Tool) -> dict[str, Any]:
    """A tool's ``requires`` and ``lint`` settings, those it has."""
    out: dict[str, Any] = {}
    if tool.requires:
        out["requires"] = {k: list(v) for k, v in tool.requires.items()}
    if tool.lint:
        out["lint"] = dict(tool.lint)
    return out


def group_to_dict(group: ToolGroup) -> dict[str, Any]:
    """A tool group in the catalog format's ``groups`` form (what the YAML loader reads back)."""
    out: dict[str, Any] = {"name": group.name}
    if group.description:
        out["description"] = group.description
    if group.system_prompt:
        out["system_prompt"] = group.system_prompt
    out["tools"] = list(group.tools)
    matcher = group.matcher
    match: Any = "always"
    if matcher.kind == "keywords":
        match = {"keywords": list(matcher.keywords)}
    elif matcher.kind == "regex":
        match = {"regex": matcher.pattern}
    elif matcher.kind == "context":
        match = {"context": {k: list(v) for k, v in matcher.attributes.items()}}
    if isinstance(match, dict) and matcher.ignore_case:
        match["ignore_case"] = True
    out["match"] = match
    return out


def _document(catalog: Catalog, tools: list[dict[str, Any]], plain: bool) -> dict[str, Any]:
    doc: dict[str, Any] = {"tools": tools}
    if catalog.groups and not plain:
        doc[EXTENSION_KEY] = {"groups": [group_to_dict(g) for g in catalog.groups]}
    return doc


def _native(tool: Tool, fmt: str) -> dict[str, Any]:
    return _split_native(tool, fmt)[0]


def _check_name(tool: Tool, fmt: str) -> None:
    """The API's rule for tool names (the one lint's invalid-tool-name, TS101, checks)."""
    from ..providers import get_provider  # the CLI imports this module at start-up; the providers load on use

    if not get_provider(fmt).name_rule.accepts(tool.name):
        where = tool.location_of("name")
        raise CatalogError(
            f"{fmt} tool names must match [A-Za-z0-9_-]{{1,64}}; rename the tool before converting",
            file=where.file if where else None,
            line=where.line if where else None,
            tool=tool.name,
            field="name",
        )


def _check_writable(tool: Tool) -> None:
    """Never write a file toolsearch cannot read back: a tool's data must leave room for the file's own levels."""
    from ..bounded import TOOL_DATA_DEPTH, too_deep_node

    for field in ("parameters", "metadata", "mock"):
        if too_deep_node(getattr(tool, field), TOOL_DATA_DEPTH) is not None:
            where = tool.location_of(field)
            raise CatalogError(
                f"nested deeper than {TOOL_DATA_DEPTH} levels of lists and mappings: the converted file could "
                "not be read back; flatten it (or use $defs and $ref) before converting",
                file=where.file if where else None,
                line=where.line if where else None,
                tool=tool.name,
                field=field,
            )


def _json(payload: Any) -> str:
    return json.dumps(payload, ensure_ascii=False, indent=2) + "\n"


def to_yaml(catalog: Catalog, plain: bool = False) -> str:
    """toolsearch's own YAML format (full JSON Schema parameters, resident listed at the top)."""
    tools = []
    for tool in catalog.tools:
        entry: dict[str, Any] = {"name": tool.name, "description": tool.description, **_labels(tool)}
        entry["parameters"] = tool.parameters
        if tool.metadata:
            entry["metadata"] = tool.metadata
        entry.update(_conditions(tool))
        tools.append(entry)
    doc: dict[str, Any] = {}
    if catalog.resident:
        doc["resident"] = list(catalog.resident)
    doc["tools"] = tools
    if catalog.groups:
        doc["groups"] = [group_to_dict(g) for g in catalog.groups]
    return _dump_yaml(doc)


def _dump_yaml(doc: Any) -> str:
    import yaml  # on first use: start-up of the CLI does not pay for PyYAML

    class Dumper(yaml.SafeDumper):
        """Double-quotes strings holding YAML line breaks other than \\n, which PyYAML would
        otherwise write raw and read back as plain line breaks."""

    def represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
        if any(ch in value for ch in "\x85\u2028\u2029"):
            return dumper.represent_scalar("tag:yaml.org,2002:str", value, style='"')
        return dumper.represent_str(value)

    Dumper.add_representer(str, represent_str)
    return yaml.dump(doc, Dumper=Dumper, allow_unicode=True, sort_keys=False, width=100, default_flow_style=False)


def _openai_entries(catalog: Catalog, plain: bool, flat: bool, strict: bool = False) -> list[dict[str, Any]]:
    from ..providers import OPENAI_CHAT, OPENAI_RESPONSES

    provider = OPENAI_RESPONSES if flat else OPENAI_CHAT
    resident = set(catalog.resident)
    defer = flat and bool(catalog.resident)  # Responses tool search: what is not resident is deferred
    out = []
    for tool in catalog.tools:
        _check_name(tool, "openai")
        native = _split_native(tool, "openai", flat)[0]
        outer = {k[len("tool.") :]: v for k, v in native.items() if k.startswith("tool.")}
        inner = {k: v for k, v in native.items() if not k.startswith("tool.")}
        parameters, made_strict = _strict_parameters(tool) if strict else (None, None)
        entry = provider.tool_entry(
            tool, parameters=parameters, native=inner, strict=made_strict, defer=defer and tool.name not in resident
        )
        entry.update(outer)
        ext = extension(tool, tool.name in resident, "openai", flat)
        if ext and not plain:
            entry[EXTENSION_KEY] = ext
        out.append(entry)
    return out


def _strict_parameters(tool: Tool) -> tuple[dict[str, Any], bool]:
    """The tool's parameters made strict-mode compatible, and ``True``; or, with a warning saying
    why (see :mod:`.lenient`), the parameters as they are and ``False``."""
    from .lenient import warn
    from .openai_strict import make_strict

    converted, reasons = make_strict(tool.parameters)
    if not reasons:
        return converted, True
    where = tool.location_of("parameters")
    warn(
        CatalogError(
            "cannot be made strict (exported with strict: false): " + "; ".join(reasons),
            file=where.file if where else None,
            line=where.line if where else None,
            tool=tool.name,
            field="parameters",
        ),
        "strict",
    )
    return tool.parameters, False


def to_openai(catalog: Catalog, plain: bool = False, strict: bool = False) -> str:
    """``{"tools": [...]}`` in the Chat Completions form (``{"type": "function", "function": {...}}``);
    ``strict`` makes every schema strict-mode compatible (or says per tool why it cannot)."""
    return _json(_document(catalog, _openai_entries(catalog, plain, flat=False, strict=strict), plain))


def to_openai_responses(catalog: Catalog, plain: bool = False, strict: bool = False) -> str:
    """``{"tools": [...]}`` in the flat Responses-API form (``{"type": "function", "name": ...}``), with
    ``strict`` written (the API's default is true), an MCP ``outputSchema`` as ``output_schema``, and
    ``defer_loading`` on the tools that are not resident when some are."""
    return _json(_document(catalog, _openai_entries(catalog, plain, flat=True, strict=strict), plain))


def to_anthropic(catalog: Catalog, plain: bool = False) -> str:
    """``{"tools": [...]}`` for the Messages API; every tool that is not resident gets ``defer_loading``."""
    from ..providers import ANTHROPIC

    resident = set(catalog.resident)
    out = []
    for tool in catalog.tools:
        _check_name(tool, "anthropic")
        entry = ANTHROPIC.tool_entry(tool, native=_native(tool, "anthropic"), defer=tool.name not in resident)
        ext = extension(tool, tool.name in resident, "anthropic")
        if ext and not plain:
            entry[EXTENSION_KEY] = ext
        out.append(entry)
    return _json(_document(catalog, out, plain))


def to_mcp(catalog: Catalog, plain: bool = False) -> str:
    """A ``tools/list`` result: ``{"tools": [{name, title, description, inputSchema, ...}]}``."""
    resident = set(catalog.resident)
    out = []
    for tool in catalog.tools:
        native = _native(tool, "mcp")
        meta = dict(native.pop("_meta", None) or {})
        entry: dict[str, Any] = {"name": tool.name}
        if "title" in native:
            entry["title"] = native.pop("title")
        entry["description"] = tool.description
        entry["inputSchema"] = tool.parameters
        entry.update(native)
        ext = extension(tool, tool.name in resident, "mcp")
        if ext and not plain:
            meta[EXTENSION_KEY] = ext
        if meta:
            entry["_meta"] = meta
        out.append(entry)
    return _json(_document(catalog, out, plain))


#: ``toolsearch catalog convert --to`` choices.
EXPORTER_BY_NAME: dict[str, Callable[[Catalog, bool], str]] = {
    "yaml": to_yaml,
    "openai": to_openai,
    "openai-responses": to_openai_responses,
    "anthropic": to_anthropic,
    "mcp": to_mcp,
}


def check_export_format(fmt: str) -> str:
    """``fmt`` if it is a key of :data:`EXPORTER_BY_NAME`, else a usage error with a did-you-mean."""
    if fmt not in EXPORTER_BY_NAME:
        from ..errors import UsageError, did_you_mean

        raise UsageError(
            f"unknown export format {fmt!r}{did_you_mean(fmt, EXPORTER_BY_NAME)}; "
            f"choose from {', '.join(EXPORTER_BY_NAME)}",
            field="to",
        )
    return fmt


#: Formats ``strict=True`` (``catalog convert --strict``) applies to.
STRICT_FORMATS = ("openai", "openai-responses")


def export_catalog(catalog: Catalog, fmt: str, *, plain: bool = False, strict: bool = False) -> str:
    """The catalog as text in ``fmt`` (a key of :data:`EXPORTER_BY_NAME`); ``strict`` (OpenAI formats
    only) makes the schemas strict-mode compatible, warning for each tool that cannot be."""
    check_export_format(fmt)
    for tool in catalog.tools:
        _check_writable(tool)
    if strict:
        if fmt not in STRICT_FORMATS:
            from ..errors import UsageError

            raise UsageError(f"--strict applies to {' and '.join(STRICT_FORMATS)}, not {fmt}", field="strict")
        return to_openai(catalog, plain, strict=True) if fmt == "openai" else to_openai_responses(catalog, plain, True)
    return EXPORTER_BY_NAME[fmt](catalog, plain)
