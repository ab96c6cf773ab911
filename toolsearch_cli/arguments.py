"""Checking a tool call's arguments against the tool's JSON Schema, as a strict API would, and the
error result a refused call gets (JSON the model can read)."""

from __future__ import annotations

import json
from typing import Any

from .bounded import JSONRefused, strict_json
from .model import Tool

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
    "null": (type(None),),
}


def check_arguments(tool: Tool, text: str) -> tuple[dict[str, Any] | None, str | None]:
    """Parse call arguments and check them against the tool's schema (required, unknown, top-level types)."""
    try:
        value = strict_json(text) if text.strip() else {}
    except JSONRefused as exc:
        return None, f"arguments are refused ({exc.message})"
    except json.JSONDecodeError as exc:
        return None, f"arguments are not valid JSON ({exc.msg})"
    if not isinstance(value, dict):
        return None, f"arguments must be a JSON object, not {type(value).__name__}"
    schema = tool.parameters
    raw_properties = schema.get("properties")
    properties: dict[str, Any] = raw_properties if isinstance(raw_properties, dict) else {}
    raw_required = schema.get("required")
    required: list[Any] = raw_required if isinstance(raw_required, list) else []
    missing = [name for name in required if name not in value]
    if missing:
        return None, f"missing required argument {missing[0]!r}"
    if schema.get("additionalProperties") is False:
        extra = [k for k in value if k not in properties]
        if extra:
            return None, f"unknown argument {extra[0]!r}"
    for name, arg in value.items():
        prop = properties.get(name)
        if not isinstance(prop, dict):
            continue
        kinds = prop.get("type")
        kinds = [kinds] if isinstance(kinds, str) else kinds if isinstance(kinds, list) else []
        accepted = tuple(t for k in kinds for t in _JSON_TYPES.get(k, ()))
        if not accepted:
            continue
        wrong_bool = isinstance(arg, bool) and bool not in accepted
        if wrong_bool or not isinstance(arg, accepted):
            return None, f"argument {name!r} must be {'/'.join(kinds)}, not {type(arg).__name__}"
        if "enum" in prop and isinstance(prop["enum"], list) and arg not in prop["enum"]:
            return None, f"argument {name!r} must be one of {prop['enum']}, not {arg!r}"
    return value, None


def refusal(message: str) -> str:
    """The tool result of a refused call: ``{"error": message}``."""
    return json.dumps({"error": message}, ensure_ascii=False)


def not_available(name: str) -> str:
    """The refusal text for a call of a tool the request did not carry."""
    return f"tool {name!r} is not available in this request"


__all__ = ["check_arguments", "not_available", "refusal"]
