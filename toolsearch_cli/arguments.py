"""Checking a tool call's arguments against the tool's JSON Schema, as a strict API would, and the
error result a refused call gets (JSON the model can read).

The check is a full JSON Schema validation through ``jsonschema`` (the schema's ``$schema``
draft, else 2020-12): every problem is reported once, with its path (``address.zip``,
``items[0]``). A schema is data from a catalog or an upstream server, so the check never reaches
out: ``$ref`` resolves inside the schema only (``#...`` pointers, ``$defs``, ``$id`` anchors, and
the JSON Schema drafts' own metaschemas, which ``jsonschema`` ships). A reference to anything else
(``http(s):``, ``file:``, a relative ``other.json#/x``, any scheme) is never fetched nor read: the
place it stands accepts any value (the schema's author pointed outside it; the model cannot be
blamed, and providers do not fetch references either), and the rest of the schema is checked as
usual. ``format`` is an annotation, not asserted (so ``format: uri`` dereferences nothing). A schema
``jsonschema`` cannot use (an unknown ``type`` name, a ``minimum`` that is not a number ...) is
not the model's fault: such a tool gets the lenient check of required, unknown and top-level
types that works on any schema.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from .bounded import JSONRefused, strict_json
from .model import Tool

#: At most this many problems are listed for one call (the first ones, by path).
MAX_PROBLEMS = 10
#: A problem's text is cut to this many characters (a value may be long).
_PROBLEM_WIDTH = 300

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
    "null": (type(None),),
}


def json_kind(value: Any) -> str:
    """The JSON type name of a parsed value (``integer``, ``string``, ``array`` ...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def parse_call_arguments(arguments: Any) -> tuple[dict[str, Any] | None, str | None]:
    """A call's arguments as the model sent them (JSON text, a mapping, ``None``, or anything
    else) parsed into an object, or the problem with them. Never raises."""
    if arguments is None:
        return {}, None
    if isinstance(arguments, Mapping):
        try:  # the app's own mapping: through JSON, so the depth and size bounds apply to it too
            text = json.dumps(dict(arguments), ensure_ascii=False)
        except (TypeError, ValueError, RecursionError) as exc:
            return None, f"arguments are not JSON data ({type(exc).__name__})"
    elif isinstance(arguments, str):
        text = arguments
    elif isinstance(arguments, bytes | bytearray):
        try:
            text = bytes(arguments).decode("utf-8")
        except UnicodeDecodeError:
            return None, "arguments are not UTF-8 text"
    else:
        return None, f"arguments must be a JSON object, not {json_kind(arguments)}"
    try:
        value = strict_json(text) if text.strip() else {}
    except JSONRefused as exc:
        return None, f"arguments are refused ({exc.message})"
    except json.JSONDecodeError as exc:
        return None, f"arguments are not valid JSON ({exc.msg})"
    except (ValueError, RecursionError) as exc:
        return None, f"arguments are not valid JSON ({exc})"
    if not isinstance(value, dict):
        return None, f"arguments must be a JSON object, not {json_kind(value)}"
    return value, None


def check_arguments(tool: Tool, text: Any) -> tuple[dict[str, Any] | None, str | None]:
    """Parse call arguments and check them against the tool's schema: the value, or ``None`` and
    every problem joined with ``"; "``."""
    value, problems = argument_problems(tool, text)
    return (value, None) if not problems else (None, "; ".join(problems))


def argument_problems(tool: Tool, arguments: Any) -> tuple[dict[str, Any] | None, list[str]]:
    """The parsed arguments and every way they break the tool's schema (empty: none)."""
    value, problem = parse_call_arguments(arguments)
    if value is None:
        return None, [problem or "arguments are not a JSON object"]
    return value, schema_problems(tool.parameters, value)


def schema_problems(schema: Any, value: dict[str, Any]) -> list[str]:
    """One message per place ``value`` breaks ``schema`` (sorted by path, at most :data:`MAX_PROBLEMS`)."""
    if not isinstance(schema, dict):
        return []
    try:
        validator = _validator(schema)
        errors = sorted(validator.iter_errors(value), key=lambda e: [str(p) for p in e.absolute_path])
        problems = [_described(e) for e in errors]
    except Exception:  # noqa: BLE001 — a schema jsonschema cannot use: fall back, never fail the call
        problems = _lenient_problems(schema, value)
    unique = list(dict.fromkeys(_cut(p) for p in problems))
    if len(unique) > MAX_PROBLEMS:
        unique = [*unique[:MAX_PROBLEMS], f"and {len(unique) - MAX_PROBLEMS} more problems"]
    return unique


_VALIDATORS: dict[int, tuple[dict[str, Any], Any]] = {}


def _validator(schema: dict[str, Any]) -> Any:
    """A validator for ``schema`` (its ``$schema`` draft, else 2020-12), kept per schema object."""
    kept = _VALIDATORS.get(id(schema))
    if kept is not None and kept[0] is schema:
        return kept[1]
    from jsonschema.validators import Draft202012Validator, validator_for

    cls = _time_limited(validator_for(schema, default=Draft202012Validator))
    # An explicit registry: without one jsonschema falls back to fetching remote references with
    # urllib (file: URLs included). This one refuses every URI it does not already hold.
    validator = cls(schema, registry=_local_registry())
    if len(_VALIDATORS) >= 512:
        _VALIDATORS.clear()
    _VALIDATORS[id(schema)] = (schema, validator)  # the schema kept: its id stays its own
    return validator


_REGISTRY: list[Any] = []


def _refuse(uri: str) -> Any:
    """The registry's retrieval: a reference outside the schema is never fetched nor read."""
    raise LookupError(f"{uri!r} is outside the schema: references are not fetched")


def _local_registry() -> Any:
    """A ``referencing`` registry that holds nothing and retrieves nothing (``jsonschema`` adds
    the drafts' metaschemas it ships; the schema's own ``$id``\\ s and anchors resolve in it)."""
    if not _REGISTRY:
        from referencing import Registry

        _REGISTRY.append(Registry(retrieve=_refuse))  # type: ignore[call-arg]
    return _REGISTRY[0]


#: Keywords that look references up: an unresolvable one accepts any value (see the module's doc).
_RESOLVING = ("$ref", "$dynamicRef", "$recursiveRef", "unevaluatedProperties", "unevaluatedItems")


def _unresolvable_accepts(keyword: Any) -> Any:
    """``keyword`` with a reference that does not resolve read as accepting any value."""
    from referencing.exceptions import Unresolvable

    def check(validator: Any, value: Any, instance: Any, schema: Any) -> Iterable[Any]:
        try:
            yield from keyword(validator, value, instance, schema) or ()
        except Unresolvable:
            return

    return check


#: How long one ``pattern`` may take on one value (seconds). The schema comes from a catalog or an
#: upstream server and the value from a model: Python's ``re`` has no time limit, and a pattern
#: such as ``^(a|a)*$`` takes seconds on 25 characters, so patterns run on ``regex`` with this one.
PATTERN_SECONDS = 0.05

_TIME_LIMITED: dict[Any, Any] = {}


def _pattern_search(pattern: str, text: str) -> bool | None:
    """Whether ``pattern`` finds a match in ``text``; ``None`` when it could not tell in time. A
    pattern that does not compile counts as a match: the schema's fault, not the value's."""
    import regex  # type: ignore[import-untyped]

    try:
        return regex.search(pattern, text, timeout=PATTERN_SECONDS) is not None
    except TimeoutError:
        return None
    except (regex.error, ValueError, TypeError, OverflowError, RecursionError):
        return True  # an unusable pattern says nothing about the value


def _time_limited(cls: Any) -> Any:
    """``cls`` with ``pattern``, ``patternProperties`` and ``additionalProperties`` matched under
    :data:`PATTERN_SECONDS` (jsonschema's own use ``re.search``, unbounded), and a reference that
    does not resolve accepting any value rather than failing the whole check."""
    made = _TIME_LIMITED.get(cls)
    if made is not None:
        return made
    from jsonschema import validators
    from jsonschema.exceptions import ValidationError

    def pattern(validator: Any, patrn: Any, instance: Any, schema: Any) -> Iterable[Any]:
        if not (validator.is_type(instance, "string") and isinstance(patrn, str)):
            return
        found = _pattern_search(patrn, instance)
        if found is None:
            yield ValidationError(f"could not be checked against the pattern {patrn!r} in time")
        elif not found:
            yield ValidationError(f"{instance!r} does not match {patrn!r}")

    def matched_keys(instance: dict[Any, Any], patterns: Iterable[Any]) -> Iterable[tuple[Any, Any]]:
        for key in instance:
            for patrn in patterns:
                if isinstance(key, str) and isinstance(patrn, str) and _pattern_search(patrn, key) is not False:
                    yield patrn, key

    def pattern_properties(validator: Any, patterns: Any, instance: Any, schema: Any) -> Iterable[Any]:
        if not (validator.is_type(instance, "object") and isinstance(patterns, dict)):
            return
        for patrn, key in matched_keys(instance, list(patterns)):
            yield from validator.descend(instance[key], patterns[patrn], path=key, schema_path=patrn)

    def additional_properties(validator: Any, extra_schema: Any, instance: Any, schema: Any) -> Iterable[Any]:
        if not validator.is_type(instance, "object"):
            return
        properties = schema.get("properties")
        known = properties if isinstance(properties, dict) else {}
        patterns = schema.get("patternProperties")
        patterned = {key for _, key in matched_keys(instance, patterns if isinstance(patterns, dict) else {})}
        extras = [key for key in instance if key not in known and key not in patterned]
        if validator.is_type(extra_schema, "object"):
            for key in extras:
                yield from validator.descend(instance[key], extra_schema, path=key)
        elif extra_schema is False and extras:
            names = ", ".join(repr(key) for key in sorted(extras, key=str))
            yield ValidationError(f"Additional properties are not allowed ({names} unexpected)")

    replaced = {
        "pattern": pattern,
        "patternProperties": pattern_properties,
        "additionalProperties": additional_properties,
    }
    replaced.update({k: _unresolvable_accepts(cls.VALIDATORS[k]) for k in _RESOLVING if k in cls.VALIDATORS})
    made = validators.extend(cls, replaced)
    made.evolve = _evolve  # a subschema naming another draft keeps these keywords
    _TIME_LIMITED[cls] = made
    _TIME_LIMITED[made] = made
    return made


def _evolve(self: Any, **changes: Any) -> Any:
    """jsonschema's ``evolve`` (the validator of a subschema, at each step down), except that a
    subschema whose ``$schema`` names another draft gets that draft's class *from*
    :func:`_time_limited`: jsonschema's own would run its ``pattern`` unbounded (a draft-07
    subschema took 17 s on 27 characters) and fail the whole check on an outside ``$ref``."""
    schema = changes.setdefault("schema", self.schema)
    cls = type(self)
    if isinstance(schema, dict) and "$schema" in schema:
        from jsonschema.validators import validator_for

        cls = _time_limited(validator_for(schema, default=cls))
    for name, alias in _init_fields(type(self)):
        if alias not in changes:
            changes[alias] = getattr(self, name)
    return cls(**changes)


_FIELDS: dict[Any, list[tuple[str, str]]] = {}


def _init_fields(cls: Any) -> list[tuple[str, str]]:
    """A validator class's ``(attribute, argument)`` pairs, as ``evolve`` copies them."""
    found = _FIELDS.get(cls)
    if found is None:
        import attrs

        found = _FIELDS[cls] = [(f.name, f.alias) for f in attrs.fields(cls) if f.init]
    return found


def _path(parts: Iterable[Any]) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _described(error: Any) -> str:
    """A validation error as one readable line naming the argument's path."""
    path = _path(error.absolute_path)
    keyword, detail = error.validator, error.validator_value
    where = f" in {path!r}" if path else ""
    if keyword == "required":
        missing = next((n for n in detail if isinstance(n, str) and n not in error.instance), None)
        if missing is not None:
            return f"missing required argument {missing!r}{where}"
    if keyword in ("additionalProperties", "unevaluatedProperties") and isinstance(error.instance, dict):
        extra = _unexpected(error)
        if extra:
            return f"unknown argument{'s' if len(extra) > 1 else ''} {', '.join(map(repr, extra))}{where}"
    subject = f"argument {path!r}" if path else "arguments"
    if keyword == "type":
        kinds = "/".join(detail) if isinstance(detail, list) else str(detail)
        return f"{subject} must be {kinds}, not {json_kind(error.instance)}"
    if keyword == "enum" and isinstance(detail, list):
        return f"{subject} must be one of {detail}, not {error.instance!r}"
    return f"{subject}: {error.message}"


def _unexpected(error: Any) -> list[str]:
    schema = error.schema if isinstance(error.schema, dict) else {}
    properties = schema.get("properties")
    known = set(properties) if isinstance(properties, dict) else set()
    patterns = schema.get("patternProperties")
    if isinstance(patterns, dict) and patterns:
        return [
            k
            for k in error.instance
            if k not in known and not any(_pattern_search(p, k) is not False for p in patterns if isinstance(p, str))
        ]
    return [k for k in error.instance if k not in known]


def _cut(text: str) -> str:
    return text if len(text) <= _PROBLEM_WIDTH else text[: _PROBLEM_WIDTH - 3] + "..."


def _lenient_problems(schema: dict[str, Any], value: dict[str, Any]) -> list[str]:
    """Required, unknown (``additionalProperties: false``), top-level types and enums: what any
    schema still says when ``jsonschema`` cannot use it."""
    problems: list[str] = []
    raw_properties = schema.get("properties")
    properties: dict[str, Any] = raw_properties if isinstance(raw_properties, dict) else {}
    raw_required = schema.get("required")
    required: list[Any] = raw_required if isinstance(raw_required, list) else []
    problems += [f"missing required argument {name!r}" for name in required if name not in value]
    if schema.get("additionalProperties") is False:
        problems += [f"unknown argument {k!r}" for k in value if k not in properties]
    for name, arg in value.items():
        prop = properties.get(name)
        if not isinstance(prop, dict):
            continue
        kinds = prop.get("type")
        kinds = [kinds] if isinstance(kinds, str) else kinds if isinstance(kinds, list) else []
        accepted = tuple(t for k in kinds if isinstance(k, str) for t in _JSON_TYPES.get(k, ()))
        if accepted and ((isinstance(arg, bool) and bool not in accepted) or not isinstance(arg, accepted)):
            problems.append(f"argument {name!r} must be {'/'.join(map(str, kinds))}, not {json_kind(arg)}")
        elif "enum" in prop and isinstance(prop["enum"], list) and arg not in prop["enum"]:
            problems.append(f"argument {name!r} must be one of {prop['enum']}, not {arg!r}")
    return problems


def refusal(message: str) -> str:
    """The tool result of a refused call: ``{"error": message}``."""
    return json.dumps({"error": message}, ensure_ascii=False)


def not_available(name: str) -> str:
    """The refusal text for a call of a tool the request did not carry."""
    return f"tool {name!r} is not available in this request"


__all__ = [
    "MAX_PROBLEMS",
    "argument_problems",
    "check_arguments",
    "json_kind",
    "not_available",
    "parse_call_arguments",
    "refusal",
    "schema_problems",
]
