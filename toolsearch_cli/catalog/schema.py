"""Tool parameters: the three accepted forms, turned into one JSON Schema object, and checked.

1. Full JSON Schema: a mapping whose ``type`` is a string (``type: object``, ``properties``,
   ``required: [..]``).
2. Short form: a mapping of parameter name to a JSON Schema property that may carry
   ``required: true``; nested ``properties`` use the same short form. A bare type name
   (``city: string``) is accepted too.
3. List form: a list of ``{name, type, description, required, ...}`` (the eval catalogs' form).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from ..bounded import MAX_DEPTH
from ..errors import CatalogError, did_you_mean, edit_distance, kind_of
from ..model import Location
from .lenient import JSON_TYPES, LENIENT_TYPES, STANDARD_TYPES, has_nonstandard_types, map_types, warn

Fail = Callable[[str, str], CatalogError]


class MarkedDict(dict):  # type: ignore[type-arg]
    """A dict that knows the line and column it started at, and those of its keys."""

    line: int | None = None
    column: int | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.key_lines: dict[Any, tuple[int, int]] = {}


class MarkedList(list):  # type: ignore[type-arg]
    """A list that knows its line and the line of each item."""

    line: int | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.item_lines: list[int] = []


def parameters_to_schema(
    raw: Any, fail: Fail, locations: dict[str, Location] | None = None, originals: dict[str, str] | None = None
) -> dict[str, Any]:
    """Turn any accepted ``parameters`` value into a validated JSON Schema object.

    Non-standard type names are mapped (a warning each, see :func:`lenient.map_types`); the names
    the source gave are put in ``originals`` (parameter path -> name) when it is given.
    """
    checked = full = False
    if raw is None or raw == [] or raw == {}:
        return {"type": "object", "properties": {}}
    if isinstance(raw, list):
        schema = _from_list(raw, fail, locations)
        found = map_types(schema, fail)
    elif isinstance(raw, dict):
        if isinstance(raw.get("type"), str):
            # on the marked mapping: errors keep their lines
            standard = check_schema(raw, "parameters", fail, types=False)
            full = True
            if type(raw) is dict and (standard or not has_nonstandard_types(raw)):
                # parsed JSON with nothing to map (most of a large catalog): already plain data,
                # and the check above is the whole check; no copy, no second walk
                schema = raw if "properties" in raw else {**raw}
                found = {}
                checked = True
            else:
                schema = _plain(raw)
                found = map_types(schema, fail)
            if schema.get("type") != "object":
                # the type as written: the lenient mapping may have dropped a type it did not know
                raise fail("parameters.type", f"the parameters schema must have type 'object', not {raw['type']!r}")
            schema.setdefault("properties", {})
            _note_property_lines(raw.get("properties"), locations)
        else:
            properties, required = _from_short(raw, "parameters", fail, locations)
            schema = {"type": "object", "properties": properties}
            if required:
                schema["required"] = required
            found = map_types(schema, fail)
    else:
        raise fail("parameters", "must be a mapping (short form or JSON Schema) or a list of parameters")
    if not checked:  # (the keys of a full JSON Schema were looked at on the source already)
        check_schema(schema, "parameters", fail, keywords=not full)
    if originals is not None:
        originals.update(found)
    return schema


def plain(value: Any) -> Any:
    """Deep copy into plain dicts and lists with string keys (dropping YAML marks), ready to send as JSON."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def _plain(value: Any) -> Any:
    """Deep copy into plain dicts and lists (dropping the marks)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _note_property_lines(props: Any, locations: dict[str, Location] | None, prefix: str = "parameters") -> None:
    if locations is None or not isinstance(props, dict):
        return
    file = next(iter(locations.values())).file if locations else ""
    for key, (line, column) in getattr(props, "key_lines", {}).items():
        locations[f"{prefix}.{key}"] = Location(file=file, line=line, column=column)


def _note_key_lines(spec: dict[str, Any], where: str, locations: dict[str, Location]) -> None:
    """The lines of a short-form property's misspelt keywords (``parameters.city.requird``), for the
    warning about each (the short form is checked as a plain copy, without its marks)."""
    key_lines = getattr(spec, "key_lines", {})
    file = next(iter(locations.values())).file if locations else ""
    for key in spec:
        if key in key_lines and misspelt_keyword(key) is not None:
            line, column = key_lines[key]
            locations[f"{where}.{key}"] = Location(file=file, line=line, column=column)


def _from_short(
    raw: dict[str, Any], path: str, fail: Fail, locations: dict[str, Location] | None
) -> tuple[dict[str, Any], list[str]]:
    properties: dict[str, Any] = {}
    required: list[str] = []
    _note_property_lines(raw, locations, path)
    for name, spec in raw.items():
        where = f"{path}.{name}"
        if not isinstance(name, str):
            raise fail(where, "parameter names must be strings")
        if isinstance(spec, str):
            spec = {"type": spec}
        elif spec is None:
            spec = {}
        if not isinstance(spec, dict):
            raise fail(where, "must be a mapping (a JSON Schema property) or a type name")
        prop, is_required = _short_property(spec, where, fail, locations)
        properties[name] = prop
        if is_required:
            required.append(name)
    return properties, required


def _short_property(
    spec: dict[str, Any], where: str, fail: Fail, locations: dict[str, Location] | None
) -> tuple[dict[str, Any], bool]:
    prop = _plain(spec)
    if locations is not None and not SCHEMA_KEYWORDS.issuperset(spec):
        _note_key_lines(spec, where, locations)
    flag = prop.pop("required", None) if isinstance(spec.get("required"), bool) else None
    if isinstance(spec.get("properties"), dict) and not isinstance(spec.get("required"), list):
        nested, nested_required = _from_short(spec["properties"], where, fail, locations)
        prop["properties"] = nested
        prop.setdefault("type", "object")
        if nested_required:
            prop["required"] = nested_required
    items = spec.get("items")
    if (
        isinstance(items, dict)
        and isinstance(items.get("properties"), dict)
        and not isinstance(items.get("required"), list)
    ):
        nested, nested_required = _from_short(items["properties"], where + ".items", fail, locations)
        prop["items"] = {**_plain(items), "properties": nested}
        prop["items"].setdefault("type", "object")
        if nested_required:
            prop["items"]["required"] = nested_required
        else:
            prop["items"].pop("required", None)
    return prop, bool(flag)


def _from_list(raw: list[Any], fail: Fail, locations: dict[str, Location] | None) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    required: list[str] = []
    item_lines = getattr(raw, "item_lines", [])
    file = next(iter(locations.values())).file if locations else ""
    for i, entry in enumerate(raw):
        if not isinstance(entry, dict):
            raise fail(f"parameters[{i}]", "each parameter in the list form must be a mapping with 'name'")
        name = entry.get("name")
        if not isinstance(name, str) or not name:
            raise fail(f"parameters[{i}]", "each parameter in the list form needs a string 'name'")
        if name in properties:
            raise fail(f"parameters.{name}", "duplicate parameter name")
        if locations is not None and not SCHEMA_KEYWORDS.issuperset(entry):
            _note_key_lines(entry, f"parameters.{name}", locations)
        spec = {k: v for k, v in entry.items() if k != "name"}
        children = spec.pop("children", None)
        if children is not None and not isinstance(children, list):
            raise fail(f"parameters.{name}", "'children' must be a list of parameters")
        prop, is_required = _short_property(spec, f"parameters.{name}", fail, None)
        if children:
            nested = _from_list(children, fail, None)
            prop.setdefault("type", "object")
            prop["properties"] = nested["properties"]
            if nested.get("required"):
                prop["required"] = nested["required"]
        properties[name] = prop
        if is_required:
            required.append(name)
        if locations is not None and i < len(item_lines):
            locations[f"parameters.{name}"] = Location(file=file, line=item_lines[i])
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


def check_schema(
    schema: Any, path: str, fail: Fail, depth: int = 0, *, types: bool = True, keywords: bool = True
) -> bool:
    """Reject what is not a JSON Schema: bad types, non-mapping properties, non-list required.

    ``types=False`` lets type names that are strings pass (for a first check of the source, whose
    non-standard type names :func:`lenient.map_types` maps afterwards). Returns ``True`` when the
    walk shows that :func:`lenient.has_nonstandard_types` would say no: every type name met is
    standard and no schema holds a keyword under which that function looks further than this walk
    (``definitions``, ``patternProperties``, ``prefixItems``, ``additionalProperties``, ``not``);
    ``False``: not shown (ask that function). One walk of a large catalog's parameters, not two.

    Each key that is a keyword misspelt (:func:`misspelt_keyword`) is a load warning; ``keywords=False``
    leaves that to a first check of the same schema."""
    return _check(schema, path, fail, depth, types, keywords)


#: Keywords :func:`lenient.has_nonstandard_types` walks into and :func:`check_schema` does not.
_BEYOND_CHECK = frozenset({"definitions", "patternProperties", "prefixItems", "additionalProperties", "not"})

#: Where a schema is, built into a dotted path only for an error: a path, or (parent, suffix).
_Where = str | tuple[Any, str]


def _path(where: _Where) -> str:
    suffixes = []
    while isinstance(where, tuple):
        where, suffix = where
        suffixes.append(suffix)
    return where + "".join(reversed(suffixes))


def _fail_at(schema: dict[str, Any], where: _Where, fail: Fail, keyword: str, message: str) -> CatalogError:
    exc = fail(_path(where), message)
    line = getattr(schema, "key_lines", {}).get(keyword)
    if line:  # a full JSON Schema from YAML keeps the line of each keyword
        exc.line = line[0]
    return exc


#: The keywords a parameter schema may hold: JSON Schema's (2020-12 and 2019-09, draft-07 back to
#: draft-03, the hyper-schema's), OpenAPI's and Swagger's (schema and parameter objects: a converted
#: catalog keeps ``in``, ``style`` ...), Gemini's ``propertyOrdering``, the enum documentation keys
#: some catalogs carry, and toolsearch's short forms (``required: true``, the list form's ``name``
#: and ``children``). A key outside them that is one of them misspelt (:func:`misspelt_keyword`)
#: is a load warning; any other key (``x-*``, a vendor's own) is kept as written, silently.
SCHEMA_KEYWORDS = frozenset(
    {
        # JSON Schema 2020-12: core, applicator, unevaluated, validation, meta-data, format, content
        *("$schema", "$id", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor", "$vocabulary", "$comment"),
        *("$defs", "prefixItems", "items", "contains", "additionalProperties", "properties"),
        *("patternProperties", "dependentSchemas", "propertyNames", "if", "then", "else"),
        *("allOf", "anyOf", "oneOf", "not", "unevaluatedItems", "unevaluatedProperties"),
        *("type", "const", "enum", "multipleOf", "maximum", "exclusiveMaximum", "minimum"),
        *("exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems", "minItems"),
        *("uniqueItems", "maxContains", "minContains", "maxProperties", "minProperties", "required"),
        *("dependentRequired", "title", "description", "default", "deprecated", "readOnly"),
        *("writeOnly", "examples", "format", "contentEncoding", "contentMediaType", "contentSchema"),
        # 2019-09, draft-07 and older drafts, hyper-schema
        *("$recursiveRef", "$recursiveAnchor", "definitions", "dependencies", "additionalItems"),
        *("id", "extends", "disallow", "divisibleBy", "optional", "links", "base", "media"),
        # OpenAPI 3 / Swagger 2 schema and parameter objects, Gemini
        *("nullable", "discriminator", "xml", "externalDocs", "example", "collectionFormat"),
        *("allowEmptyValue", "in", "name", "schema", "style", "explode", "allowReserved", "content"),
        "propertyOrdering",
        # enum documentation (VS Code, JSON Editor; the lint's unexplained-enum reads them)
        *("enumDescriptions", "markdownEnumDescriptions", "enumNames", "markdownDescription"),
        # toolsearch's list form
        "children",
    }
)


def misspelt_keyword(key: str) -> str | None:
    """The schema keyword ``key`` is a misspelling of, or ``None``: a key that differs from one only
    in case (``maxlength``, ``Description``) or, when both have more than 3 characters, by one
    edit (``requird``, ``tpye``, ``descripton``; two when both have more than 8: ``descriptn``).
    Short keys must match but for case (``in`` is not ``if`` misspelt), and a vendor's keyword two
    letters longer than one is its own (cfn-lint's ``requiredOr``); ``x-`` keys never match."""
    if not isinstance(key, str) or key in SCHEMA_KEYWORDS or key[:2].lower() == "x-" or len(key) > _LONGEST:
        return None  # (a key longer than every keyword by more than two is none of them: not cached)
    return _misspelt(key)


@lru_cache(maxsize=4096)
def _misspelt(key: str) -> str | None:
    folded = key.casefold()
    best: tuple[int, str] | None = None
    for keyword in _SORTED_KEYWORDS:
        if keyword.casefold() == folded:
            return keyword
        shortest = min(len(key), len(keyword))
        limit = 0 if shortest <= 3 else 1 if shortest <= 8 else 2
        if limit and abs(len(key) - len(keyword)) <= limit:
            distance = edit_distance(folded, keyword.casefold(), limit)
            if distance <= limit and (best is None or distance < best[0]):
                best = (distance, keyword)
    return best[1] if best else None


#: Characters of the longest keyword, and two edits more.
_LONGEST = max(len(keyword) for keyword in SCHEMA_KEYWORDS) + 2
#: Keywords a misspelt key is matched against: not the parameter-object leftovers and old-draft
#: words a schema may carry unused (``game`` is no misspelt ``name``, nor ``cases`` of ``base``).
_SORTED_KEYWORDS = sorted(
    SCHEMA_KEYWORDS
    - {"id", "in", "name", "schema", "content", "style", "explode", "allowReserved", "allowEmptyValue"}
    - {"collectionFormat", "optional", "extends", "disallow", "divisibleBy", "links", "base", "media"}
)


def _warn_misspelt_keywords(schema: dict[str, Any], where: _Where, fail: Fail) -> None:
    """A load warning (``--strict``: an error) for each key of ``schema`` that is a keyword misspelt."""
    for key in schema:
        meant = misspelt_keyword(key)
        if meant is not None:
            problem = _fail_at(
                schema,
                (where, f".{key}"),
                fail,
                key,
                f"unknown keyword {key!r} (did you mean {meant!r}?); it is kept as written, and "
                "validators and models ignore it",
            )
            warn(problem, "keyword")


def _note_outside_ref(schema: dict[str, Any], where: _Where, fail: Fail) -> None:
    """A ``$ref`` (or ``$dynamicRef``) that points outside the tool's schema (a URL, a ``file:``
    path, another document): a warning naming it. Nothing is ever fetched or read for it
    (argument checks accept any value there, see :mod:`toolsearch_cli.arguments`)."""
    for keyword in ("$ref", "$dynamicRef"):
        ref = schema.get(keyword)
        if isinstance(ref, str) and not ref.startswith("#"):
            shown = ref if len(ref) <= 120 else ref[:117] + "..."
            message = (
                f"{keyword} {shown!r} points outside the schema: it is never fetched or read (any value passes there)"
            )
            warn(_fail_at(schema, where, fail, keyword, message), "ref")


def _check(schema: Any, where: _Where, fail: Fail, depth: int, types: bool, keywords: bool) -> bool:
    if depth > MAX_DEPTH:
        raise fail(_path(where), f"schema nested deeper than {MAX_DEPTH} levels")
    if not isinstance(schema, dict):
        raise fail(_path(where), "a schema must be a mapping")
    if keywords and not SCHEMA_KEYWORDS.issuperset(schema):  # most schemas: one look-up of their keys
        _warn_misspelt_keywords(schema, where, fail)
    shown = _BEYOND_CHECK.isdisjoint(schema)
    kind = schema.get("type")
    if kind.__class__ is str and kind in STANDARD_TYPES:  # most schemas: one look-up
        pass
    elif kind is not None:
        kinds = kind if isinstance(kind, list) else [kind]
        for k in kinds:
            if isinstance(k, dict | list):  # not even hashable: {a: 1} is no type name
                raise _fail_at(
                    schema, where, fail, "type", f"'type' must be a type name or a list of them, not {kind_of(k)}"
                )
            if k not in JSON_TYPES and k not in LENIENT_TYPES and (types or not isinstance(k, str)):
                raise _fail_at(
                    schema,
                    where,
                    fail,
                    "type",
                    f"unknown JSON Schema type {k!r}{did_you_mean(str(k), JSON_TYPES)}; "
                    f"expected one of {', '.join(sorted(JSON_TYPES))}",
                )
            if isinstance(k, str) and k not in STANDARD_TYPES:
                shown = False
    if "$ref" in schema or "$dynamicRef" in schema:
        _note_outside_ref(schema, where, fail)
    props = schema.get("properties")
    if props is not None:
        if not isinstance(props, dict):
            raise _fail_at(
                schema, where, fail, "properties", "'properties' must be a mapping of parameter name to schema"
            )
        for name, sub in props.items():
            if not _check(sub, (where, f".{name}"), fail, depth + 1, types, keywords):
                shown = False
    required = schema.get("required")
    if required is not None and (not isinstance(required, list) or not all(isinstance(r, str) for r in required)):
        raise _fail_at(schema, where, fail, "required", "'required' must be a list of property names")
    if "enum" in schema and not isinstance(schema["enum"], list):
        raise _fail_at(schema, where, fail, "enum", "'enum' must be a list of values")
    items = schema.get("items")
    if items is not None and not isinstance(items, dict | bool):
        raise _fail_at(schema, where, fail, "items", "'items' must be a schema mapping")
    if isinstance(items, dict) and not _check(items, (where, ".items"), fail, depth + 1, types, keywords):
        shown = False
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            options = schema[key]
            if not isinstance(options, list):
                raise _fail_at(schema, where, fail, key, f"'{key}' must be a list of schemas")
            for i, sub in enumerate(options):
                if not _check(sub, (where, f".{key}[{i}]"), fail, depth + 1, types, keywords):
                    shown = False
    defs = schema.get("$defs")
    if isinstance(defs, dict):
        for name, sub in defs.items():
            if not _check(sub, (where, f".$defs.{name}"), fail, depth + 1, types, keywords):
                shown = False
    return shown
