"""OpenAI strict mode (Structured Outputs for function calling): which parameter schemas can be made
strict-compatible, and how.

A strict schema lists every property of every object in ``required`` and sets
``additionalProperties: false``; an optional property becomes required with ``null`` added to its
type (the model sends ``null`` for "not given"). ``oneOf`` is read as ``anyOf``, an ``allOf`` of one
schema is inlined, and ``default`` (not supported) is dropped. Some schemas cannot be made strict:
an object whose keys are not listed (``additionalProperties`` true or a schema, or no
``properties``), keywords strict mode does not support (``not``, ``if``, ``patternProperties``,
``allOf`` of several schemas ...), a root that is not an object, more than 10 levels of nesting,
more than 5,000 properties or 1,000 enum values in all. :func:`make_strict` says why, per place.
"""

from __future__ import annotations

from typing import Any

#: Keywords strict mode rejects (and that cannot be rewritten away).
UNSUPPORTED = (
    "not",
    "if",
    "then",
    "else",
    "patternProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
    "propertyNames",
    "dependentRequired",
    "dependentSchemas",
    "minProperties",
    "maxProperties",
    "contains",
)
MAX_DEPTH = 10
MAX_PROPERTIES = 5000
MAX_ENUM_VALUES = 1000


class _Walk:
    def __init__(self) -> None:
        self.reasons: list[str] = []
        self.properties = 0
        self.enum_values = 0

    def fail(self, path: str, why: str) -> None:
        if len(self.reasons) < 5:
            self.reasons.append(f"{path}: {why}" if path else why)

    def schema(self, node: Any, path: str, depth: int) -> Any:
        if not isinstance(node, dict):
            return node
        if depth > MAX_DEPTH:
            self.fail(path, f"nested deeper than {MAX_DEPTH} levels")
            return node
        out = {k: v for k, v in node.items() if k != "default"}
        for key in UNSUPPORTED:
            if key in out:
                self.fail(path, f"'{key}' is not supported in strict mode")
        if "oneOf" in out and "anyOf" not in out:
            out["anyOf"] = out.pop("oneOf")
        all_of = out.get("allOf")
        if isinstance(all_of, list):
            if len(all_of) == 1 and isinstance(all_of[0], dict):
                del out["allOf"]
                out = {**all_of[0], **out}
            else:
                self.fail(path, "'allOf' of several schemas is not supported in strict mode")
        if isinstance(out.get("enum"), list):
            self.enum_values += len(out["enum"])
        kind = out.get("type")
        kinds: list[Any] = kind if isinstance(kind, list) else [kind]
        if "object" in kinds or "properties" in out:
            out = self.obj(out, path, depth)
        if isinstance(out.get("items"), dict):
            out["items"] = self.schema(out["items"], f"{path}[]", depth + 1)
        for key in ("anyOf",):
            if isinstance(out.get(key), list):
                out[key] = [self.schema(sub, f"{path}.{key}[{i}]", depth + 1) for i, sub in enumerate(out[key])]
        if isinstance(out.get("$defs"), dict):
            out["$defs"] = {k: self.schema(v, f"$defs.{k}", 0) for k, v in out["$defs"].items()}
        return out

    def obj(self, out: dict[str, Any], path: str, depth: int) -> dict[str, Any]:
        props = out.get("properties")
        extra = out.get("additionalProperties")
        if not isinstance(props, dict) or not props:
            # {"properties": {}} is an empty object (no parameters, at the root); a nested object with
            # no "properties" at all, or one allowing other keys, is a free-form mapping
            if extra not in (None, False) or (not isinstance(props, dict) and path):
                self.fail(path or "parameters", "an object whose keys are not listed (a free-form mapping)")
            out.setdefault("properties", {})
            out["additionalProperties"] = False
            out["required"] = []
            return out
        if extra not in (None, False):
            self.fail(path or "parameters", "'additionalProperties' allows keys that are not listed")
        required = set(out.get("required") or [])
        self.properties += len(props)
        new_props = {}
        for name, sub in props.items():
            where = f"{path}.{name}" if path else str(name)
            converted = self.schema(sub, where, depth + 1)
            new_props[name] = converted if name in required else nullable(converted)
        out["properties"] = new_props
        out["required"] = list(props)
        out["additionalProperties"] = False
        return out


def nullable(schema: Any) -> Any:
    """The schema, also accepting ``null`` (what an optional property becomes in strict mode)."""
    if not isinstance(schema, dict):
        return schema
    kind = schema.get("type")
    out = dict(schema)
    if isinstance(kind, str) and "anyOf" not in schema:
        out["type"] = kind if kind == "null" else [kind, "null"]
    elif isinstance(kind, list):
        out["type"] = kind if "null" in kind else [*kind, "null"]
    elif isinstance(schema.get("anyOf"), list) and kind is None:
        if not any(isinstance(s, dict) and s.get("type") == "null" for s in schema["anyOf"]):
            out["anyOf"] = [*schema["anyOf"], {"type": "null"}]
        return out
    else:
        description = out.pop("description", None)
        wrapped: dict[str, Any] = {"anyOf": [out, {"type": "null"}]}
        if description is not None:
            wrapped["description"] = description
        return wrapped
    if isinstance(out.get("enum"), list) and None not in out["enum"]:
        out["enum"] = [*out["enum"], None]
    return out


def make_strict(parameters: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The parameters schema rewritten for strict mode, and why it cannot be (empty: it can)."""
    walk = _Walk()
    if parameters.get("type", "object") != "object" or "anyOf" in parameters or "oneOf" in parameters:
        walk.fail("parameters", "the root must be a plain object schema")
    converted = walk.schema({"type": "object", **parameters}, "", 0)
    if walk.properties > MAX_PROPERTIES:
        walk.fail("", f"{walk.properties} properties in all; strict mode allows {MAX_PROPERTIES}")
    if walk.enum_values > MAX_ENUM_VALUES:
        walk.fail("", f"{walk.enum_values} enum values in all; strict mode allows {MAX_ENUM_VALUES}")
    return converted, walk.reasons


__all__ = ["make_strict", "nullable"]
