"""TS3xx: parameters — descriptions, types, `required`, `$ref`, depth, enums, count."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ...bounded import MAX_DEPTH
from ...model import Tool
from ..context import LintContext
from ..diagnostic import Finding
from ..rule import Options, Rule, name_words, quote_list, terms

_COMBINERS = ("anyOf", "oneOf", "allOf")


@dataclass(slots=True)
class Prop:
    """One property of a tool's parameter schema, wherever it is nested."""

    path: str  # parameters.address.street (the key of Tool.field_locations)
    name: str
    schema: dict[str, Any]
    depth: int  # 1 for a top-level parameter


def properties(tool: Tool) -> Iterator[Prop]:
    """Every property of the parameter schema, depth first (objects, array items, anyOf/oneOf/allOf)."""
    yield from _walk(tool.parameters, "parameters", 1, 0)


def _walk(schema: Any, path: str, depth: int, guard: int) -> Iterator[Prop]:
    if not isinstance(schema, dict) or guard > MAX_DEPTH:
        return
    props = schema.get("properties")
    if isinstance(props, dict):
        for name, sub in props.items():
            if not isinstance(sub, dict):
                continue
            sub_path = f"{path}.{name}"
            yield Prop(sub_path, str(name), sub, depth)
            yield from _walk(sub, sub_path, depth + 1, guard + 1)
    items = schema.get("items")
    if isinstance(items, dict):
        yield from _walk(items, f"{path}.items", depth, guard + 1)
    for key in _COMBINERS:
        for option in schema.get(key) or []:
            yield from _walk(option, path, depth, guard + 1)


def _where(prop: Prop) -> str:
    return prop.path.partition(".")[2]


def _has_type(schema: dict[str, Any]) -> bool:
    return any(k in schema for k in ("type", "$ref", "enum", "const", *_COMBINERS))


class MissingParameterDescription(Rule):
    """## What it does
    Reports a parameter (nested ones too) without a description.

    ## Why is this bad?
    The model fills arguments from the parameter names and descriptions. Without one it
    guesses formats and units (`date`: ISO? local? `amount`: cents? euros?) and calls fail.

    ## Example
    ```yaml
    tools:
      - name: refundPayment
        description: Refund a captured payment in full or in part, back to the original card.
        parameters:
          amount: {type: number}
    ```

    ## Use instead
    ```yaml
    tools:
      - name: refundPayment
        description: Refund a captured payment in full or in part, back to the original card.
        parameters:
          amount: {type: number, description: Amount to refund in the payment's currency; omit for all.}
    ```
    """

    code = "TS301"
    name = "missing-parameter-description"
    default_enabled = False
    opt_in_reason = (
        "Judged on real catalogs (benchmarks/lint_precision/judged.yaml): 5 of 20 findings were real; most "
        "undescribed parameters are path ids, request-body wrappers or fields the tool's description "
        "explains."
    )

    def check_tool(self, tool: Tool, ctx: LintContext, options: Options) -> Iterator[Finding]:
        for prop in properties(tool):
            if "$ref" in prop.schema:
                continue  # described where it points (unresolved-ref checks that it exists)
            if not str(prop.schema.get("description") or "").strip():
                yield Finding.at(tool, prop.path, f"parameter {_where(prop)!r} has no description")


_PARAM_FILLER = frozenset(terms("the a an of this parameter param value field argument arg input id"))


class ParameterDescriptionRestatesName(Rule):
    """## What it does
    Reports a parameter description that only repeats the parameter's name (`city`: "The city.").

    ## Why is this bad?
    It reads as documented but tells the model nothing about the expected format, unit or
    range, which is what a parameter description is for.

    ## Example
    ```yaml
    tools:
      - name: getWeather
        description: Get the current weather and the forecast for a city.
        parameters:
          city: {type: string, description: The city.}
    ```

    ## Use instead
    ```yaml
    tools:
      - name: getWeather
        description: Get the current weather and the forecast for a city.
        parameters:
          city: {type: string, description: "City name with optional country code, e.g. Paris,FR."}
    ```
    """

    code = "TS302"
    name = "parameter-description-restates-name"
    default_enabled = False
    opt_in_reason = (
        "Judged on real catalogs (benchmarks/lint_precision/judged.yaml): 3 of 20 findings were real; 'The ID"
        " of the album.' is all there is to say of a path id."
    )

    def check_tool(self, tool: Tool, ctx: LintContext, options: Options) -> Iterator[Finding]:
        for prop in properties(tool):
            text = str(prop.schema.get("description") or "").strip()
            if not text:
                continue
            said = terms(text) - terms(" ".join(name_words(prop.name))) - _PARAM_FILLER
            if not said:
                yield Finding.at(
                    tool, prop.path, f"description of parameter {_where(prop)!r} only repeats its name: {text!r}"
                )


class MissingParameterType(Rule):
    """## What it does
    Reports a parameter with no `type` (nor `enum`, `const`, `$ref`, `anyOf`, `oneOf`, `allOf`).

    ## Why is this bad?
    Without a type the model may send a number as a string or an object as text; strict
    function-calling modes and some providers reject such schemas outright.

    ## Example
    ```yaml
    tools:
      - name: getForecast
        description: Get an hour-by-hour forecast for the next 1-48 hours at a location.
        parameters:
          hours: {description: How many hours ahead to return (1-48).}
    ```

    ## Use instead
    ```yaml
    tools:
      - name: getForecast
        description: Get an hour-by-hour forecast for the next 1-48 hours at a location.
        parameters:
          hours: {type: integer, description: How many hours ahead to return (1-48).}
    ```
    """

    code = "TS303"
    name = "missing-parameter-type"

    def check_tool(self, tool: Tool, ctx: LintContext, options: Options) -> Iterator[Finding]:
        for prop in properties(tool):
            if not _has_type(prop.schema):
                yield Finding.at(tool, prop.path, f"parameter {_where(prop)!r} has no type")


def _property_names(schema: dict[str, Any]) -> set[str]:
    props = schema.get("properties")
    return {str(k) for k in props} if isinstance(props, dict) else set()


def _branch_property_names(schema: dict[str, Any], guard: int = 0) -> set[str]:
    """Property names the ``anyOf``/``oneOf``/``allOf`` branches of a schema define (nested branches too)."""
    names: set[str] = set()
    if guard > MAX_DEPTH:
        return names
    for key in _COMBINERS:
        for branch in schema.get(key) or [] if isinstance(schema.get(key), list) else []:
            if isinstance(branch, dict):
                names |= _property_names(branch) | _branch_property_names(branch, guard + 1)
    return names


def _object_schemas(
    schema: Any,
    path: str,
    guard: int = 0,
    inherited: frozenset[str] = frozenset(),
    siblings: dict[str, frozenset[str]] | None = None,
) -> Iterator[tuple[str, dict[str, Any], frozenset[str]]]:
    """(path, schema, property names it may require) of every (sub)schema. A branch of
    ``anyOf``/``oneOf``/``allOf`` may require the properties its parent defines (``{required: [a]}``
    as one of several ways to call), and a parent may require those its branches define. Branches
    of one ``allOf`` are merged: a property that one branch defines and another requires fields of
    (``allOf: [{properties: {from: {properties: {email: ...}}}}, {properties: {from: {required:
    [email]}}}]``) knows the fields of both (``siblings``: property name -> the fields all branches
    give it)."""
    if not isinstance(schema, dict) or guard > MAX_DEPTH:
        return
    known = frozenset(inherited | _property_names(schema) | _branch_property_names(schema))
    yield path, schema, known
    merged = siblings or {}
    for name, sub in (schema.get("properties") or {}).items() if isinstance(schema.get("properties"), dict) else ():
        yield from _object_schemas(sub, f"{path}.{name}", guard + 1, merged.get(name, frozenset()))
    if isinstance(schema.get("items"), dict):
        yield from _object_schemas(schema["items"], f"{path}.items", guard + 1)
    for key in _COMBINERS:
        value = schema.get(key)
        branches: list[Any] = value if isinstance(value, list) else []
        shared = _merged_branch_fields(branches) if key == "allOf" else None
        for sub in branches:
            yield from _object_schemas(sub, path, guard + 1, known, shared)
    for key in ("$defs", "definitions"):
        value = schema.get(key)
        for sub in value.values() if isinstance(value, dict) else ():
            yield from _object_schemas(sub, path, guard + 1)


def _merged_branch_fields(branches: list[Any]) -> dict[str, frozenset[str]]:
    """Property name -> the property names every ``allOf`` branch gives that property, together."""
    out: dict[str, frozenset[str]] = {}
    for branch in branches:
        props = branch.get("properties") if isinstance(branch, dict) else None
        for name, sub in props.items() if isinstance(props, dict) else ():
            if isinstance(sub, dict):
                out[name] = out.get(name, frozenset()) | _property_names(sub) | _branch_property_names(sub)
    return out


class UnknownRequiredParameter(Rule):
    """## What it does
    Reports a `required` entry that is not one of the schema's `properties`.

    ## Why is this bad?
    The model is told to send an argument it has no schema for; strict modes reject the
    tool, and a renamed parameter often leaves exactly this behind.

    ## Example
    ```yaml
    tools:
      - name: getWeather
        description: Get the current weather and the forecast for a city.
        parameters:
          type: object
          properties:
            city: {type: string, description: City name, e.g. Paris.}
          required: [location]
    ```

    ## Use instead
    ```yaml
    tools:
      - name: getWeather
        description: Get the current weather and the forecast for a city.
        parameters:
          type: object
          properties:
            city: {type: string, description: City name, e.g. Paris.}
          required: [city]
    ```
    """

    code = "TS304"
    name = "unknown-required-parameter"
    severity = "error"

    def check_tool(self, tool: Tool, ctx: LintContext, options: Options) -> Iterator[Finding]:
        for path, schema, known in _object_schemas(tool.parameters, "parameters"):
            required = schema.get("required")
            if not isinstance(required, list):
                continue
            for name in required:
                if not isinstance(name, str) or name not in known:
                    where = f" of {path.partition('.')[2]!r}" if "." in path else ""
                    yield Finding.at(tool, path, f"required parameter {name!r}{where} is not defined in 'properties'")


def _refs(node: Any, guard: int = 0) -> Iterator[str]:
    if guard > MAX_DEPTH:
        return
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield value
            elif key not in ("enum", "const", "default", "examples"):
                yield from _refs(value, guard + 1)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value, guard + 1)


def resolve_pointer(root: dict[str, Any], ref: str) -> bool:
    """Whether a local ``#/...`` JSON pointer resolves inside ``root``."""
    if ref == "#":
        return True
    if not ref.startswith("#/"):
        return False
    node: Any = root
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return False
    return True


class UnresolvedRef(Rule):
    """## What it does
    Reports a `$ref` in a parameter schema that does not resolve inside the tool's own
    schema: a pointer to a missing `$defs` entry, or a remote reference.

    ## Why is this bad?
    Providers do not fetch references and reject or ignore what they cannot resolve; the
    model then sees a parameter with no shape at all.

    ## Example
    ```yaml
    tools:
      - name: createEvent
        description: Create a calendar event with a title, a start and an end time.
        parameters:
          type: object
          properties:
            start: {$ref: "#/$defs/DateTime"}
    ```

    ## Use instead
    ```yaml
    tools:
      - name: createEvent
        description: Create a calendar event with a title, a start and an end time.
        parameters:
          type: object
          properties:
            start: {$ref: "#/$defs/DateTime"}
          $defs:
            DateTime: {type: string, format: date-time, description: ISO 8601 start time.}
    ```
    """

    code = "TS305"
    name = "unresolved-ref"
    severity = "error"

    def check_tool(self, tool: Tool, ctx: LintContext, options: Options) -> Iterator[Finding]:
        for ref in dict.fromkeys(_refs(tool.parameters)):
            if not ref.startswith("#"):
                yield Finding.at(tool, "parameters", f"$ref {ref!r} is not local; providers do not fetch references")
            elif not resolve_pointer(tool.parameters, ref):
                yield Finding.at(tool, "parameters", f"$ref {ref!r} does not resolve inside the parameter schema")


class DeepParameterSchema(Rule):
    """## What it does
    Reports parameters nested deeper than `max-depth` levels (a top-level parameter is level 1;
    each object property or array-of-object level adds one).

    ## Why is this bad?
    Deep schemas cost tokens, are filled in wrongly more often, and some providers reject
    them (Gemini: "too many states"). Flatten or split the tool.

    ## Example
    ```yaml
    # options: {max-depth: 2}
    tools:
      - name: createOrder
        description: Create an order for a customer with a shipping address.
        parameters:
          customer:
            type: object
            description: Who orders.
            properties:
              address:
                type: object
                description: Where to ship.
                properties:
                  street: {type: string, description: Street and number.}
    ```

    ## Use instead
    ```yaml
    tools:
      - name: createOrder
        description: Create an order for a customer with a shipping address.
        parameters:
          customerId: {type: string, description: The customer's id, e.g. cus_123.}
          shippingStreet: {type: string, description: Street and number.}
    ```
    """

    code = "TS306"
    name = "deep-parameter-schema"
    options = {"max-depth": 5}
    strict_options = {"max-depth": 3}

    def check_tool(self, tool: Tool, ctx: LintContext, options: Options) -> Iterator[Finding]:
        deepest: Prop | None = None
        for prop in properties(tool):
            if deepest is None or prop.depth > deepest.depth:
                deepest = prop
        if deepest is not None and deepest.depth > options["max-depth"]:
            yield Finding.at(
                tool,
                deepest.path,
                f"parameter {_where(deepest)!r} is nested {deepest.depth} levels deep (max {options['max-depth']})",
            )


_ENUM_DOC_KEYS = ("enumDescriptions", "x-enumDescriptions", "x-enum-descriptions", "enumNames", "x-enumNames")


#: Short enum values that are words or universally known abbreviations, not opaque codes
#: (Zuora's Yes/No, Mailchimp's ``is``, comparison operators, ``ui``).
_READABLE_SHORT = frozenset(
    "yes no on off ok is or and not if by in to up at of as me we us id ui ux os io ai eq ne lt gt le ge".split()
)


def _opaque(value: Any) -> bool:
    """An enum value whose meaning is not evident from the value itself (numbers, 1-2 letter codes
    that are not a word); a list value (``enum: [[open], [click]]``) is opaque if its items are."""
    if isinstance(value, list):
        return any(_opaque(v) for v in value)
    if not isinstance(value, str):
        return value is not None and not isinstance(value, bool)
    return value.isdigit() or (len(value) <= 2 and value.casefold() not in _READABLE_SHORT)


class UnexplainedEnum(Rule):
    """## What it does
    Reports an `enum` with opaque values (numbers, one- or two-character codes) that neither
    the parameter's description nor `enumDescriptions` explains.

    ## Why is this bad?
    The model picks enum values by meaning; `priority: [1, 2, 3]` does not say whether 1 is
    the highest or the lowest, so it guesses.

    ## Example
    ```yaml
    tools:
      - name: createTicket
        description: Open a support ticket with a title, a body and a priority.
        parameters:
          priority: {type: integer, enum: [1, 2, 3], description: Ticket priority.}
    ```

    ## Use instead
    ```yaml
    tools:
      - name: createTicket
        description: Open a support ticket with a title, a body and a priority.
        parameters:
          priority: {type: integer, enum: [1, 2, 3], description: "Ticket priority: 1 urgent, 2 normal, 3 low."}
    ```
    """

    code = "TS307"
    name = "unexplained-enum"
    default_enabled = False
    opt_in_reason = (
        "Judged on real catalogs (benchmarks/lint_precision/judged.yaml): 0 of 20 findings were real (Yes/No,"
        " 'is', list-valued enums, operators the tool's description explains); those classes are fixed, but "
        "no sample shows it reaching 90%."
    )

    def check_tool(self, tool: Tool, ctx: LintContext, options: Options) -> Iterator[Finding]:
        for prop in properties(tool):
            values = prop.schema.get("enum")
            if not isinstance(values, list) or any(k in prop.schema for k in _ENUM_DOC_KEYS):
                continue
            text = str(prop.schema.get("description") or "")
            words = set(re.findall(r"[^\W_]+|\d+", text))
            unexplained = [str(v) for v in values if _opaque(v) and str(v) not in words and str(v) not in text]
            tool_text = tool.description
            unexplained = [v for v in unexplained if not re.search(rf"[\"'`]{re.escape(v)}[\"'`]", tool_text)]
            if unexplained:
                yield Finding.at(
                    tool,
                    prop.path,
                    f"enum of parameter {_where(prop)!r} has values the description does not explain: "
                    f"{quote_list(unexplained)}",
                )


class TooManyParameters(Rule):
    """## What it does
    Reports a tool with more than `max-parameters` parameters (nested ones included).

    ## Why is this bad?
    Large parameter lists cost tokens on every request that discloses the tool and are
    filled in less reliably; they often hide several tools in one.

    ## Example
    ```yaml
    # options: {max-parameters: 2}
    tools:
      - name: searchFlights
        description: Search flights between two airports on a date, with optional filters.
        parameters:
          origin: {type: string, description: IATA code of the departure airport.}
          destination: {type: string, description: IATA code of the arrival airport.}
          date: {type: string, description: Departure date, YYYY-MM-DD.}
    ```

    ## Use instead
    ```yaml
    tools:
      - name: searchFlights
        description: Search flights between two airports on a date, with optional filters.
        parameters:
          route: {type: string, description: "Airport codes as FROM-TO, e.g. CDG-JFK."}
          date: {type: string, description: Departure date, YYYY-MM-DD.}
    ```
    """

    code = "TS308"
    name = "too-many-parameters"
    options = {"max-parameters": 25}
    strict_options = {"max-parameters": 12}

    def check_tool(self, tool: Tool, ctx: LintContext, options: Options) -> Iterator[Finding]:
        count = sum(1 for _ in properties(tool))
        if count > options["max-parameters"]:
            yield Finding.at(
                tool, "parameters", f"{count} parameters (max {options['max-parameters']}); consider splitting the tool"
            )
