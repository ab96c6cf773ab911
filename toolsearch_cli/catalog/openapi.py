"""OpenAPI 3.x (and Swagger 2.0) documents as catalogs: one tool per operation.

* name: the ``operationId``, else ``<method>_<path>``, sanitised to ``[A-Za-z0-9_-]{1,64}`` (the
  rule OpenAI and Anthropic apply) and made unique;
* description: the summary, then the description; an operation with neither gets ``METHOD
  /path`` and ``metadata.openapi.generatedDescription: true`` (the default ranker weighs such
  text low);
* parameters: path, query, header and cookie parameters and the JSON request body merged into one
  JSON Schema object. Body properties are merged in when the body is an object whose property
  names do not clash with a parameter; otherwise the body is one ``body`` property.
  ``metadata.openapi.parameters`` says where each property goes (``path``, ``query``, ``header``,
  ``cookie``, ``body`` or ``body-property``), so a caller can rebuild the HTTP request;
* category: the first tag; tags: all tags;
* ``metadata.openapi``: method, path, server URL (the first of the most specific ``servers``),
  operationId, where each property goes, body mode and content type.

Local ``$ref``\\ s (``#/components/...``) are resolved inline, each target once per tool. A schema
that contains itself (a tree, a linked list) is kept as JSON Schema ``$defs`` with
``$ref: '#/$defs/Name'`` and listed in ``metadata.openapi.recursive``; so is a schema too large to
copy into every place that refers to it; a ``$ref`` that only leads back to itself is an error, as are
external and dangling references.
"""

from __future__ import annotations

import re
from typing import Any

from ..bounded import MAX_DEPTH, TOOL_DATA_DEPTH, too_deep_node
from ..errors import CatalogError
from ..model import Tool
from .document import Document, build_tool, checked_schema, pointer_join, pointer_tokens
from .lenient import collecting, note_original_types, warn
from .names import provider_name, unique_name
from .openai_strict import nullable
from .result import LoadResult
from .schema import plain

HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
#: Header parameters OpenAPI says to ignore: the HTTP layer sets them.
_IGNORED_HEADERS = frozenset({"accept", "content-type", "authorization"})
_LOCATIONS = ("path", "query", "header", "cookie")
#: Swagger 2.0 has no cookie parameters; its body and form fields are parameters.
_SWAGGER_LOCATIONS = ("path", "query", "header", "body", "formData")
#: What a Swagger 2.0 (non-body) parameter says about its value: JSON Schema keywords.
_SWAGGER_SCHEMA_KEYS = frozenset(
    {
        "type",
        "format",
        "items",
        "enum",
        "default",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minLength",
        "maxLength",
        "pattern",
        "minItems",
        "maxItems",
        "uniqueItems",
        "multipleOf",
    }
)
#: OpenAPI 3.0 / Swagger keywords with no meaning to a model calling the tool.
_DOC_ONLY_KEYS = ("example", "xml", "externalDocs", "discriminator")
#: A resolved ``$ref`` target with more values than this is kept once in ``$defs`` rather than
#: copied into every place that refers to it.
_INLINE_LIMIT = 500
#: Schema keywords whose value maps names to schemas (the names are not keywords; a property may be
#: *named* ``$ref``), holds a list of schemas, or is one schema. ``dependencies`` maps a name to a
#: schema or to a list of names.
_SCHEMA_MAPS = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"}
)
_SCHEMA_LISTS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems", "items"})
_SCHEMA_ONES = frozenset(
    {
        "items",
        "additionalItems",
        "additionalProperties",
        "not",
        "contains",
        "propertyNames",
        "if",
        "then",
        "else",
        "unevaluatedItems",
        "unevaluatedProperties",
        "contentSchema",
    }
)
#: Keywords whose value is data (a value, a list of values, names, text), never a schema: a
#: ``{"$ref": ...}`` there is copied as it is.
_DATA_KEYWORDS = frozenset(
    {
        "enum",
        "const",
        "default",
        "examples",
        "example",
        "required",
        "type",
        "format",
        "title",
        "description",
        "pattern",
        "discriminator",
        "xml",
        "externalDocs",
        "$comment",
        "$id",
        "$schema",
        "$anchor",
    }
)
#: Where a parameter's (or the body's) schema sits in a tool's parameters: parameters -> properties -> it.
_PROPERTY_DEPTH = 3


def _larger_than(value: Any, limit: int) -> bool:
    """Whether ``value`` holds more than ``limit`` values (counting stops there)."""
    count, stack = 0, [value]
    while stack:
        node = stack.pop()
        count += 1
        if count > limit:
            return True
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False


def sanitize_name(raw: str) -> str:
    """A provider-valid tool name (``[A-Za-z0-9_-]{1,64}``) from an operationId or method+path."""
    return provider_name(raw, "operation")


class SchemaTooDeep(CatalogError):
    """An operation whose schema, once its ``$ref``\\ s are inlined, nests deeper than a file can hold."""


class _Resolver:
    """Resolves local ``$ref``\\ s by inlining, keeping recursive schemas as ``$defs``."""

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.tool: str | None = None
        self.defs: dict[str, Any] = {}
        self.def_names: dict[str, str] = {}
        self.recursive: set[str] = set()
        #: Target pointer -> its resolved copy (or a ``$ref`` into ``defs``), for the current tool.
        self.resolved: dict[str, Any] = {}

    def start_tool(self, name: str) -> None:
        self.tool, self.defs, self.def_names, self.recursive, self.resolved = name, {}, {}, set(), {}

    def lookup(self, ref: Any, at: str) -> Any:
        if not isinstance(ref, str):
            raise self.doc.error(pointer_join(at, "$ref"), "'$ref' must be a string", self.tool)
        if not ref.startswith("#"):
            raise self.doc.error(
                pointer_join(at, "$ref"),
                f"only local references ('#/components/...') are supported, not {ref!r}; bundle the document first",
                self.tool,
            )
        node: Any = self.doc.data
        for token in pointer_tokens(ref[1:]):
            if isinstance(node, dict) and token in node:
                node = node[token]
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            else:
                raise self.doc.error(pointer_join(at, "$ref"), f"'$ref' {ref!r} points at nothing", self.tool)
        return node

    def follow(self, node: Any, at: str) -> tuple[Any, str]:
        """Follow a chain of ``$ref``\\ s to a real value; a chain that loops is an error."""
        seen: list[str] = []
        while isinstance(node, dict) and "$ref" in node:
            ref = node["$ref"]
            if ref in seen:
                chain = " -> ".join([*seen, ref])
                raise self.doc.error(pointer_join(at, "$ref"), f"'$ref' cycle with no schema in it: {chain}", self.tool)
            seen.append(ref)
            node, at = self.lookup(ref, at), ref[1:]
        return node, at

    def inline(self, node: Any, at: str, stack: tuple[str, ...] = (), depth: int = _PROPERTY_DEPTH) -> Any:
        """A plain copy of ``node`` with every ``$ref`` replaced by what it points at.

        Each target is resolved once per tool (memoised): a schema that contains itself, or one
        too big to copy at every place that refers to it (``$ref`` fan-out: 8 properties x 11
        levels would unfold to 8^11 values), is kept once in ``$defs`` and referred to.
        ``depth``: the levels of lists and mappings above ``node`` in the tool's parameters; a
        copy that would nest deeper than a file can hold is a :class:`SchemaTooDeep`.
        """
        if len(stack) > MAX_DEPTH:
            raise self.doc.error(at, f"schema nested deeper than {MAX_DEPTH} references", self.tool)
        if isinstance(node, dict | list) and depth > TOOL_DATA_DEPTH:
            raise self.too_deep(at)
        if isinstance(node, list):  # not a schema (a schema is a mapping or a boolean): read loosely
            return self.loose(node, at, stack, depth)
        if not isinstance(node, dict):
            return plain(node)
        siblings = {
            str(k): self.keyword(str(k), v, pointer_join(at, k), stack, depth + 1)
            for k, v in node.items()
            if k != "$ref"
        }
        if "$ref" not in node:
            return siblings
        target, target_at = self.follow(node, at)
        if target_at in stack:  # the schema contains itself: refer to it through $defs
            self.recursive.add(target_at)
            return {"$ref": f"#/$defs/{self.def_name(target_at)}", **siblings}
        if target_at in self.resolved:
            result = self.resolved[target_at]
        else:
            result = self.inline(target, target_at, (*stack, target_at), depth)
            if target_at in self.recursive or _larger_than(result, _INLINE_LIMIT):
                self.defs[self.def_name(target_at)] = result
                result = {"$ref": f"#/$defs/{self.def_name(target_at)}"}
            self.resolved[target_at] = result
        if siblings:
            result = {**result, **siblings} if isinstance(result, dict) else result
        return result

    def keyword(self, key: str, value: Any, at: str, stack: tuple[str, ...], depth: int) -> Any:
        """The value of a schema's keyword ``key`` (``depth``: the value's own level), with
        ``$ref``\\ s resolved only where the JSON Schema grammar puts schemas: a property *named*
        ``$ref`` (Kubernetes' ``JSONSchemaProps`` has one) is a property, and an ``enum``,
        ``default`` or ``example`` holding ``{"$ref": ...}`` is a value."""
        if isinstance(value, dict | list) and depth > TOOL_DATA_DEPTH:
            raise self.too_deep(at)
        if key in _SCHEMA_MAPS and isinstance(value, dict):  # name -> schema: the names are not keywords
            return {str(k): self.inline(v, pointer_join(at, k), stack, depth + 1) for k, v in value.items()}
        if key in _SCHEMA_LISTS and isinstance(value, list):
            return [self.inline(v, pointer_join(at, i), stack, depth + 1) for i, v in enumerate(value)]
        if key in _SCHEMA_ONES:
            return self.inline(value, at, stack, depth)
        if key in _DATA_KEYWORDS or key.startswith("x-"):
            return plain(value)
        return self.loose(value, at, stack, depth)

    def loose(self, value: Any, at: str, stack: tuple[str, ...], depth: int) -> Any:
        """An unknown keyword's value: a mapping with a string ``$ref`` in it is read as a
        reference; any other ``$ref`` there is a name, copied as it is."""
        if isinstance(value, dict | list) and depth > TOOL_DATA_DEPTH:
            raise self.too_deep(at)
        if isinstance(value, dict) and isinstance(value.get("$ref"), str):
            return self.inline(value, at, stack, depth)
        if isinstance(value, dict):
            return {str(k): self.loose(v, pointer_join(at, k), stack, depth + 1) for k, v in value.items()}
        if isinstance(value, list):
            return [self.loose(v, pointer_join(at, i), stack, depth + 1) for i, v in enumerate(value)]
        return plain(value)

    def too_deep(self, at: str) -> SchemaTooDeep:
        exc = self.doc.error(
            at,
            f"with its $refs inlined the schema nests deeper than {TOOL_DATA_DEPTH} levels of lists and mappings, "
            "more than a catalog file can hold; the operation is left out",
            self.tool,
        )
        return SchemaTooDeep(exc.message, file=exc.file, line=exc.line, tool=exc.tool, field=exc.field)

    def def_name(self, target_at: str) -> str:
        name = self.def_names.get(target_at)
        if name is None:
            base = re.sub(r"[^A-Za-z0-9_.-]+", "_", pointer_tokens(target_at)[-1] if target_at else "root") or "def"
            name, n = base, 2
            while name in self.def_names.values():
                name, n = f"{base}{n}", n + 1
            self.def_names[target_at] = name
        return name


def _quoted(value: Any, width: int = 40) -> str:
    """A document's value quoted in a message, cut to ``width`` characters (a version may be 100 KB)."""
    text = str(value)
    return repr(text if len(text) <= width else text[:width] + "…")


def tools_from_openapi(doc: Document) -> LoadResult:
    """One tool per operation of an OpenAPI 3.x document."""
    data = doc.data
    if not isinstance(data, dict):
        raise doc.error("", "an OpenAPI document must be a mapping")
    if "swagger" in data:
        if str(data["swagger"]) != "2.0":
            found = _quoted(data["swagger"])
            raise doc.error("/swagger", f"expected Swagger 2.0 or OpenAPI 3.x, found Swagger {found}")
    else:
        version = str(data.get("openapi", ""))
        if not version.startswith("3."):
            raise doc.error("/openapi", f"expected an OpenAPI 3.x document, found version {_quoted(version)}")
    paths = data.get("paths")
    if paths is None:
        paths = {}
    if not isinstance(paths, dict):
        raise doc.error("/paths", "'paths' must be a mapping of path to path item")
    resolver = _Resolver(doc)
    tools: list[Tool] = []
    used: dict[str, str] = {}
    for path, raw_item in paths.items():
        item_at = pointer_join("/paths", str(path))
        resolver.tool = None  # a path item's own $ref belongs to no operation (not the previous one)
        item, item_at = resolver.follow(raw_item, item_at)
        if not isinstance(item, dict):
            raise doc.error(item_at, "a path item must be a mapping")
        for method in HTTP_METHODS:
            if method in item:
                op_at = pointer_join(item_at, method)
                try:
                    tool = _operation_tool(doc, resolver, str(path), method, item, op_at, used)
                except SchemaTooDeep as exc:
                    warn(exc, "deep")  # the rest of the document is usable; with --strict an error
                    continue
                used[tool.name] = op_at
                tools.append(tool)
    return LoadResult(tools=tools)


def _operation_tool(
    doc: Document, resolver: _Resolver, path: str, method: str, item: dict[str, Any], at: str, used: dict[str, str]
) -> Tool:
    op = item[method]
    if not isinstance(op, dict):
        raise doc.error(at, f"the {method.upper()} operation must be a mapping")
    operation_id = op.get("operationId")
    if operation_id is not None and not isinstance(operation_id, str):
        raise doc.error(pointer_join(at, "operationId"), "'operationId' must be a string")
    name = unique_name(sanitize_name(operation_id or f"{method}_{path}"), used)
    resolver.start_tool(name)

    def text(key: str) -> str:
        value = op.get(key)
        if value is not None and not isinstance(value, str):
            raise doc.error(pointer_join(at, key), f"'{key}' must be a string", name)
        return (value or "").strip()

    summary, details = text("summary"), text("description")
    if summary and details and not details.startswith(summary):
        description = f"{summary}\n\n{details}"
    else:
        description = details or summary or f"{method.upper()} {path}"
    tags = op.get("tags") or []
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise doc.error(pointer_join(at, "tags"), "'tags' must be a list of strings", name)

    properties: dict[str, Any] = {}
    required: list[str] = []
    where: dict[str, str] = {}
    origin: dict[str, str] = {}  # property -> JSON pointer of the schema it came from, for errors
    fixed_headers: dict[str, Any] = {}
    swagger_body: tuple[dict[str, Any], str, bool] | None = None
    form: list[tuple[dict[str, Any], str]] = []
    for param, param_at in _parameters(doc, resolver, item, op, at, name):
        if param["in"] == "body":
            swagger_body = (param["schema"], pointer_join(param_at, "schema"), param["required"])
            continue
        if param["in"] == "formData":
            form.append((param, param_at))
            continue
        if param["in"] == "header":
            fixed, value = _fixed_value(param["schema"])
            if fixed:  # one possible value (an API version, say): the caller sends it, not the model
                fixed_headers[param["name"]] = plain(value)
                continue
        prop_name = param["name"] if param["name"] not in properties else f"{param['in']}_{param['name']}"
        properties[prop_name] = param["schema"]
        where[prop_name] = param["in"]
        origin[prop_name] = pointer_join(param_at, "schema")
        if param["required"]:
            required.append(prop_name)
    body_mode = None
    content_type = None
    body_source: tuple[dict[str, Any] | None, str, Any] | None = None  # (schema, its pointer, required)
    if form:  # Swagger 2.0 form fields: one object body
        consumes = _consumes(op, doc.data)
        content_type = next((c for c in consumes if "form" in c), "application/x-www-form-urlencoded")
        form_schema: dict[str, Any] = {
            "type": "object",
            "properties": {param["name"]: param["schema"] for param, _ in form},
        }
        needed = [param["name"] for param, _ in form if param["required"]]
        if needed:
            form_schema["required"] = needed
        body_source = (form_schema, pointer_join(at, "parameters"), True)
    elif swagger_body is not None:
        content_type = next((c for c in _consumes(op, doc.data) if _is_json(c)), "application/json")
        body_source = swagger_body
    elif "requestBody" in op:
        body, body_at = resolver.follow(op["requestBody"], pointer_join(at, "requestBody"))
        if not isinstance(body, dict):
            raise doc.error(body_at, "'requestBody' must be a mapping", name)
        content_type, found = _body_schema(doc, resolver, body, body_at, name)
        body_source = (found, pointer_join(body_at, "content", str(content_type), "schema"), body.get("required"))
    if body_source is not None:
        schema, schema_at, body_required = body_source
        if schema is not None:
            props = schema.get("properties") if isinstance(schema, dict) else None
            mergeable = (
                isinstance(props, dict)
                and props
                and schema.get("type", "object") == "object"
                and not set(props) & set(properties)
                and not any(k in schema for k in ("$ref", "oneOf", "anyOf", "allOf", "additionalProperties"))
            )
            if mergeable:
                body_mode = "merged"
                assert isinstance(props, dict)
                for key, value in props.items():
                    properties[key] = value
                    where[key] = "body-property"
                    origin[key] = pointer_join(schema_at, "properties", key)
                if body_required is not False:
                    required.extend(r for r in schema.get("required", []) if r in props)
            else:
                body_mode = "body"
                key = "body" if "body" not in properties else "requestBody"
                properties[key] = schema
                where[key] = "body"
                origin[key] = schema_at
                if body_required:
                    required.append(key)
    parameters: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        parameters["required"] = required
    if resolver.defs:
        parameters["$defs"] = {k: clean_schema(v) for k, v in resolver.defs.items()}
    # a target inlined once and reused further down can still nest too deep: check the result
    for key, value in [*properties.items(), *parameters.get("$defs", {}).items()]:
        if too_deep_node(value, TOOL_DATA_DEPTH - _PROPERTY_DEPTH + 1) is not None:
            raise resolver.too_deep(origin.get(key, at))

    def relocate(exc: CatalogError) -> CatalogError:
        """Point at the schema in the document the bad property came from."""
        tokens = pointer_tokens(exc.field or "")
        if len(tokens) >= 2 and tokens[0] == "properties" and tokens[1] in origin:
            exc.field = pointer_join(origin[tokens[1]], *tokens[2:])
        else:
            exc.field = at
        exc.line = doc.line_of(exc.field)
        return exc

    originals: dict[str, str] = {}
    try:
        with collecting() as problems:  # warnings too are moved to their place in the document
            parameters = checked_schema(Document(parameters, doc.file), parameters, "", name, originals)
    except CatalogError as exc:
        raise relocate(exc) from None
    for warning in problems:
        warn(relocate(warning.to_error()), warning.kind)

    native: dict[str, Any] = {"method": method.upper(), "path": path}
    if not summary and not details:
        # the description above is made up from method and path: search weighs it low, lint says so
        native["generatedDescription"] = True
    if summary:
        native["summary"] = summary  # the tool's title: ranked above the description
    server = _server_url(op) or _server_url(item) or _server_url(doc.data) or _swagger_server(doc.data)
    if server:
        native["server"] = server
    if fixed_headers:
        native["headers"] = fixed_headers
    if operation_id:
        native["operationId"] = operation_id
    if where:
        native["parameters"] = where
    if body_mode:
        native["body"] = body_mode
        native["contentType"] = content_type
    if op.get("deprecated") is True:
        native["deprecated"] = True
    if resolver.recursive:
        native["recursive"] = sorted("#" + r for r in resolver.recursive)
    return build_tool(
        doc,
        at,
        name=name,
        description=description,
        parameters=parameters,
        extension={
            "category": tags[0] if tags else None,
            "tags": list(tags),
            "examples": [],
            "metadata": note_original_types({}, originals),
        },
        native=native,
        fmt="openapi",
    )


def clean_schema(schema: Any, *, body: bool = False, depth: int = 0) -> Any:
    """An OpenAPI 3.0 / Swagger 2.0 schema as the JSON Schema a tool needs: ``nullable`` (and
    ``x-nullable``) become a ``null`` type (or a ``null`` branch), ``example``, ``xml``,
    ``externalDocs`` and ``discriminator`` go, and in a request body (``body``) ``readOnly``
    properties go (the server sets them; a model should not send them)."""
    if depth > MAX_DEPTH or not isinstance(schema, dict):
        return schema
    out = {k: v for k, v in schema.items() if k not in _DOC_ONLY_KEYS and k not in ("nullable", "x-nullable")}
    props = out.get("properties")
    if isinstance(props, dict):
        kept = {
            name: clean_schema(sub, body=body, depth=depth + 1)
            for name, sub in props.items()
            if not (body and isinstance(sub, dict) and sub.get("readOnly") is True)
        }
        out["properties"] = kept
        if isinstance(out.get("required"), list) and len(kept) != len(props):
            out["required"] = [r for r in out["required"] if r in kept]
            if not out["required"]:
                del out["required"]
    for key in ("items", "additionalProperties", "not"):
        if isinstance(out.get(key), dict):
            out[key] = clean_schema(out[key], body=body, depth=depth + 1)
    for key in ("anyOf", "oneOf", "allOf"):
        if isinstance(out.get(key), list):
            out[key] = [clean_schema(sub, body=body, depth=depth + 1) for sub in out[key]]
    if isinstance(out.get("$defs"), dict):
        out["$defs"] = {k: clean_schema(v, body=body, depth=depth + 1) for k, v in out["$defs"].items()}
    # a schema that limits types or values (enum, const) must let null in; any other allows it already
    restricted = any(k in out for k in ("type", "anyOf", "oneOf", "allOf", "$ref", "enum", "const"))
    if restricted and (schema.get("nullable") is True or schema.get("x-nullable") is True):
        out = nullable(out)
    return out


def _fixed_value(schema: dict[str, Any]) -> tuple[bool, Any]:
    """Whether a header's schema allows one value only (``const``, a one-value ``enum``, or a
    ``default`` beside no other choice), and that value: such a header is the caller's to send."""
    if "const" in schema:
        return True, schema["const"]
    enum = schema.get("enum")
    if isinstance(enum, list) and len(enum) == 1:
        return True, enum[0]
    if "default" in schema and not isinstance(enum, list):
        return True, schema["default"]
    return False, None


def _swagger_server(data: Any) -> str | None:
    """A Swagger 2.0 document's base URL: the first of ``schemes`` (https), ``host`` and ``basePath``."""
    if not isinstance(data, dict) or "swagger" not in data or not isinstance(data.get("host"), str):
        return None
    schemes = data.get("schemes")
    scheme = schemes[0] if isinstance(schemes, list) and schemes and isinstance(schemes[0], str) else "https"
    base = data.get("basePath") if isinstance(data.get("basePath"), str) else ""
    return f"{scheme}://{data['host']}{base}"


def _consumes(op: dict[str, Any], data: Any) -> list[str]:
    """Swagger 2.0 media types an operation accepts (its own ``consumes``, else the document's)."""
    for owner in (op, data):
        value = owner.get("consumes") if isinstance(owner, dict) else None
        if isinstance(value, list):
            return [str(v) for v in value]
    return []


def _server_url(owner: dict[str, Any]) -> str | None:
    """The first ``servers[].url`` of a document, path item or operation (the most specific one wins)."""
    servers = owner.get("servers")
    if isinstance(servers, list) and servers and isinstance(servers[0], dict):
        url = servers[0].get("url")
        return url if isinstance(url, str) else None
    return None


def _parameters(
    doc: Document, resolver: _Resolver, item: dict[str, Any], op: dict[str, Any], at: str, tool: str
) -> list[tuple[dict[str, Any], str]]:
    """Path-item parameters overridden by operation parameters (same name and location)."""
    merged: dict[tuple[str, str], tuple[dict[str, Any], str]] = {}
    for owner, owner_at in ((item, at.rpartition("/")[0]), (op, at)):
        raw = owner.get("parameters")
        if raw is None:
            continue
        list_at = pointer_join(owner_at, "parameters")
        if not isinstance(raw, list):
            raise doc.error(list_at, "'parameters' must be a list", tool)
        for i, entry in enumerate(raw):
            param, param_at = resolver.follow(entry, pointer_join(list_at, i))
            if not isinstance(param, dict):
                raise doc.error(param_at, "a parameter must be a mapping", tool)
            name, location = param.get("name"), param.get("in")
            if not isinstance(name, str) or not name:
                raise doc.error(pointer_join(param_at, "name"), "a parameter needs a string 'name'", tool)
            locations = _SWAGGER_LOCATIONS if "swagger" in doc.data else _LOCATIONS
            if location not in locations:
                raise doc.error(
                    pointer_join(param_at, "in"),
                    f"parameter 'in' must be {', '.join(locations[:-1])} or {locations[-1]}, not {location!r}",
                    tool,
                )
            if location == "header" and name.lower() in _IGNORED_HEADERS:
                continue
            merged[(name, str(location))] = (param, param_at)
    out = []
    for (name, location), (param, param_at) in merged.items():
        if "schema" in param:
            schema = resolver.inline(param["schema"], pointer_join(param_at, "schema"))
        elif isinstance(param.get("content"), dict) and param["content"]:
            media = next(iter(param["content"]))
            media_at = pointer_join(param_at, "content", str(media))
            entry = param["content"][media] or {}
            if not isinstance(entry, dict):
                raise doc.error(media_at, "a media type must be a mapping (with 'schema')", tool)
            schema = resolver.inline(entry.get("schema", {}), pointer_join(media_at, "schema"))
        elif "type" in param:  # Swagger 2.0: the parameter is its own schema
            schema = resolver.inline(
                {k: v for k, v in param.items() if k in _SWAGGER_SCHEMA_KEYS or k.startswith("x-")}, param_at
            )
            if schema.get("type") == "file":
                schema = {**{k: v for k, v in schema.items() if k != "type"}, "type": "string", "format": "binary"}
        else:
            schema = {"type": "string"}
        if not isinstance(schema, dict):
            raise doc.error(pointer_join(param_at, "schema"), "a parameter schema must be a mapping", tool)
        schema = clean_schema(schema, body=location in ("body", "formData"))
        description = param.get("description")
        if isinstance(description, str) and description.strip():
            schema = {**schema, "description": description.strip()}
        if param.get("deprecated") is True:
            schema = {**schema, "deprecated": True}
        if "example" in param and "examples" not in schema:
            schema = {**schema, "examples": [plain(param["example"])]}
        out.append(
            (
                {
                    "name": name,
                    "in": location,
                    "schema": schema,
                    "required": location == "path" or param.get("required") is True,
                },
                param_at,
            )
        )
    return out


def _is_json(media: str) -> bool:
    base = media.split(";")[0].strip().lower()
    return base == "application/json" or base.endswith("+json") or base.endswith("/json")


def _body_schema(
    doc: Document, resolver: _Resolver, body: dict[str, Any], at: str, tool: str
) -> tuple[str | None, dict[str, Any] | None]:
    content = body.get("content")
    if not isinstance(content, dict) or not content:
        raise doc.error(pointer_join(at, "content"), "a request body needs 'content' (media type -> schema)", tool)
    media = next((m for m in content if _is_json(str(m))), next(iter(content)))
    entry = content[media]
    if entry is not None and not isinstance(entry, dict):
        raise doc.error(pointer_join(at, "content", str(media)), "a media type must be a mapping (with 'schema')", tool)
    if entry is None or "schema" not in entry:
        return str(media), None
    schema = clean_schema(
        resolver.inline(entry["schema"], pointer_join(at, "content", str(media), "schema")), body=True
    )
    if not isinstance(schema, dict):
        raise doc.error(pointer_join(at, "content", str(media), "schema"), "the body schema must be a mapping", tool)
    if isinstance(body.get("description"), str) and "description" not in schema:
        schema = {**schema, "description": body["description"].strip()}
    return str(media), schema


__all__ = ["sanitize_name", "tools_from_openapi"]
