"""Lenient loading: one bad piece of a catalog is a warning, not the end of the whole catalog.

Some problems leave the rest of a catalog perfectly usable: a parameter type that is not JSON
Schema (``date (yyyy-mm-dd)``, ``enum``, ``float``: the types of the large public tool corpora),
a request body holding a tool that is not a function (OpenAI's ``web_search``, an Anthropic
server tool), one live MCP server out of several that does not answer. Loaders report these
through :func:`warn`: inside a :func:`collecting` block they become :class:`LoadWarning`\\ s
(file:line, tool, field, message) and loading goes on; with ``strict=True``, or outside any
block, they are raised as the :class:`CatalogError` they would otherwise have been. Structural
errors (malformed YAML, a tool without a name, duplicate names) are always errors.

:func:`settings` gives what the enclosing :func:`loading` block chose for every load in it
(``--strict``, the live catalog cache's TTL and ``--refresh``, sanitised names, the function that
shows warnings): the CLI enters one block per command with its global options; outside any block,
the library defaults (:class:`LoadSettings`). Like the warnings' :func:`collecting` blocks, the
block is a context variable: nothing is set process-wide, and a block ends where it began.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..bounded import MAX_DEPTH
from ..errors import CatalogError

if TYPE_CHECKING:
    from ..environment import McpSettings

#: Kinds of warnings, with what the summary line calls them (singular, plural).
KINDS: dict[str, tuple[str, str]] = {
    "type": ("non-standard parameter type mapped", "non-standard parameter types mapped"),
    "tool": ("tool that is not a function skipped", "tools that are not functions skipped"),
    "server": ("MCP server that failed", "MCP servers that failed"),
    "strict": ("tool not made strict", "tools not made strict"),
    "deep": ("tool whose schema nests too deep left out", "tools whose schemas nest too deep left out"),
    "invalid": ("invalid tool of a live MCP server left out", "invalid tools of live MCP servers left out"),
    "ref": ("reference outside its schema not followed", "references outside their schemas not followed"),
    "schema": (
        "parameters schema without a type read as an object",
        "parameters schemas without a type read as objects",
    ),
    "keyword": ("misspelt schema keyword kept", "misspelt schema keywords kept"),
    "skipped": ("file of a folder that is not a catalog skipped", "files of a folder that are not catalogs skipped"),
}


@dataclass(frozen=True)
class LoadWarning:
    """A problem that took one piece out of a catalog (or changed it), with where it is."""

    message: str
    kind: str = "type"
    file: str | None = None
    line: int | None = None
    tool: str | None = None
    field: str | None = None

    @classmethod
    def from_error(cls, exc: CatalogError, kind: str) -> LoadWarning:
        return cls(exc.message, kind, exc.file, exc.line, exc.tool, exc.field)

    def to_error(self) -> CatalogError:
        return CatalogError(self.message, file=self.file, line=self.line, tool=self.tool, field=self.field)

    def __str__(self) -> str:
        return str(self.to_error())

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "file": self.file,
            "line": self.line,
            "tool": self.tool,
            "field": self.field,
            "message": self.message,
        }


@dataclass(frozen=True)
class LoadSettings:
    """What every catalog load of a :func:`loading` block does unless told otherwise (the CLI's global options)."""

    #: Warnings are errors.
    strict: bool = False
    #: Seconds a live MCP server's tool list is reused from the cache (0: not cached).
    live_ttl: float = 0.0
    #: Ask live servers again even when the cache holds a fresh copy (and store the answer).
    refresh: bool = False
    #: Rename live servers' tools to provider-valid names (``[A-Za-z0-9_-]{1,64}``).
    sanitize_names: bool = False
    #: Shows the warnings of a load (the CLI prints them on stderr); ``None``: kept in the load
    #: result only (:func:`toolsearch_cli.catalog.load_catalog_result`).
    report: Callable[[list[LoadWarning]], None] | None = None
    #: What live MCP servers may do (timeout, headers, concurrency, bounds), or what builds it
    #: when a server is first asked; ``None``: from the ``TOOLSEARCH_MCP_*`` variables then (the
    #: library default). The CLI gives :func:`toolsearch_cli.environment.mcp_settings`, cached:
    #: built once per command, and only by a command that asks a live server.
    mcp: McpSettings | Callable[[], McpSettings] | None = None


_DEFAULTS = LoadSettings()
_LOADING: contextvars.ContextVar[LoadSettings] = contextvars.ContextVar("toolsearch_load_settings", default=_DEFAULTS)


def settings() -> LoadSettings:
    """The load settings of the enclosing :func:`loading` block (outside any: the defaults)."""
    return _LOADING.get()


def mcp_settings() -> McpSettings:
    """The MCP settings of the enclosing :func:`loading` block; without any (or when it gives
    none), the ``TOOLSEARCH_MCP_*`` variables read now."""
    chosen = _LOADING.get().mcp
    if callable(chosen):
        return chosen()
    if chosen is not None:
        return chosen
    from ..environment import mcp_settings as from_environment

    return from_environment()


@contextlib.contextmanager
def loading(chosen: LoadSettings) -> Iterator[LoadSettings]:
    """Load with ``chosen`` inside the block (blocks nest; the outer settings are back after it)."""
    token = _LOADING.set(chosen)
    try:
        yield chosen
    finally:
        _LOADING.reset(token)


@dataclass
class _Collector:
    strict: bool
    warnings: list[LoadWarning] = field(default_factory=list)
    seen: set[tuple[Any, ...]] = field(default_factory=set)


_CURRENT: contextvars.ContextVar[_Collector | None] = contextvars.ContextVar("toolsearch_load_warnings", default=None)


@contextlib.contextmanager
def collecting(strict: bool | None = False) -> Iterator[list[LoadWarning]]:
    """Collect the warnings of the loads inside the block into the yielded list (or raise them
    when ``strict``; ``None``: as strict as the enclosing block, and raise outside any). Blocks
    nest: an inner block's warnings stay in the inner list."""
    if strict is None:
        outer = _CURRENT.get()
        strict = outer is None or outer.strict
    collector = _Collector(strict)
    token = _CURRENT.set(collector)
    try:
        yield collector.warnings
    finally:
        _CURRENT.reset(token)


def in_block() -> bool:
    """Whether a :func:`collecting` block encloses this code (in this thread or task)."""
    return _CURRENT.get() is not None


def strict_now() -> bool:
    """Whether :func:`warn` would raise here (inside a strict block, or outside any)."""
    collector = _CURRENT.get()
    return collector is None or collector.strict


def warn(problem: CatalogError, kind: str) -> None:
    """Report a problem that need not stop loading: a warning when collecting, else raised."""
    collector = _CURRENT.get()
    if collector is None or collector.strict:
        raise problem
    item = LoadWarning.from_error(problem, kind)
    key = (item.file, item.tool, item.field, item.message)  # the same check may run twice on one schema
    if key not in collector.seen:
        collector.seen.add(key)
        collector.warnings.append(item)


def summary(warnings: list[LoadWarning], noun: str = "load warning") -> str:
    """``3 load warnings: 2 non-standard parameter types mapped, 1 MCP server that failed``."""
    counts = Counter(w.kind for w in warnings)
    parts = []
    for kind, n in counts.items():
        one, many = KINDS.get(kind, (kind, kind))
        parts.append(f"{n} {one if n == 1 else many}")
    total = len(warnings)
    return f"{total} {noun}{'s' if total != 1 else ''}: {', '.join(parts)}"


# ---------------------------------------------------------------------------------------------
# non-standard parameter types

#: JSON Schema's type names (:mod:`.schema` checks schemas against them).
JSON_TYPES = frozenset({"string", "integer", "number", "boolean", "array", "object", "null"})
#: Not JSON Schema, but common in real catalogs (BFCL writes ``any``); accepted as written.
LENIENT_TYPES = frozenset({"any"})

#: Type names found in real catalogs (RapidAPI/ToolBench, BFCL, Python annotations, SQL) mapped to
#: JSON Schema: (type, format or None). Keys are lower-case, cut at the first space, '(' or '['.
TYPE_ALIASES: dict[str, tuple[str, str | None]] = {
    **{t: (t, None) for t in JSON_TYPES},
    "str": ("string", None),
    "text": ("string", None),
    "char": ("string", None),
    "varchar": ("string", None),
    "password": ("string", "password"),
    "uuid": ("string", "uuid"),
    "email": ("string", "email"),
    "url": ("string", "uri"),
    "uri": ("string", "uri"),
    "date": ("string", "date"),
    "datetime": ("string", "date-time"),
    "date-time": ("string", "date-time"),
    "timestamp": ("string", "date-time"),
    "time": ("string", "time"),
    "geopoint": ("string", None),
    "file": ("string", "binary"),
    "binary": ("string", "binary"),
    "bytes": ("string", "binary"),
    "int": ("integer", None),
    "int32": ("integer", None),
    "int64": ("integer", None),
    "long": ("integer", None),
    "bigint": ("integer", None),
    "float": ("number", None),
    "double": ("number", None),
    "decimal": ("number", None),
    "numeric": ("number", None),
    "bool": ("boolean", None),
    "dict": ("object", None),
    "map": ("object", None),
    "mapping": ("object", None),
    "list": ("array", None),
    "tuple": ("array", None),
    "set": ("array", None),
    "none": ("null", None),
}

#: Types every reader accepts as they are (JSON Schema's, and ``any``).
STANDARD_TYPES = JSON_TYPES | LENIENT_TYPES


def alias_key(name: str) -> str:
    """``'DATE (YYYY-MM-DD)'`` -> ``'date'``; ``'List[str]'`` -> ``'list'``."""
    key = name.strip().lower()
    for stop in (" ", "(", "["):
        key = key.split(stop, 1)[0]
    return key


def mapped_type(name: str, schema: dict[str, Any]) -> tuple[str | None, str | None]:
    """The JSON Schema (type, format) for a non-standard type name; (None, None): unknown (any value).

    ``enum`` takes the type of its values (string unless they are all numbers or booleans).
    """
    key = alias_key(name)
    if key == "enum":
        values = schema.get("enum")
        if isinstance(values, list) and values:
            if all(isinstance(v, bool) for v in values):
                return "boolean", None
            if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
                return "integer", None
            if all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
                return "number", None
        return "string", None
    return TYPE_ALIASES.get(key, (None, None))


#: Keys under which a schema holds further schemas (mappings of them, or lists of them).
_SCHEMA_MAPS = ("$defs", "definitions", "patternProperties")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SCHEMA_ONES = ("items", "additionalProperties", "not")


def map_types(schema: Any, fail: Callable[[str, str], CatalogError], path: str = "parameters") -> dict[str, str]:
    """Rewrite non-standard ``type`` names of a plain schema in place (see :data:`TYPE_ALIASES`),
    warning once for each; an unknown name is dropped (the value may be anything). Returns the
    original names by dotted path (``parameters.when`` -> ``'DATE (YYYY-MM-DD)'``) for the tool's
    metadata. ``fail(path, message)`` builds the error that names the place."""
    originals: dict[str, str] = {}
    _map_types(schema, path, fail, originals, 0)
    return originals


def _map_types(
    schema: Any, path: str, fail: Callable[[str, str], CatalogError], originals: dict[str, str], depth: int
) -> None:
    if not isinstance(schema, dict) or depth > MAX_DEPTH:
        return
    kind = schema.get("type")
    names = kind if isinstance(kind, list) else [kind] if isinstance(kind, str) else []
    if names and all(isinstance(n, str) for n in names) and any(n not in STANDARD_TYPES for n in names):
        new: list[str] = []
        fmt: str | None = None
        unknown = False
        for name in names:
            if name in STANDARD_TYPES:
                new.append(name)
                continue
            mapped, mapped_format = mapped_type(name, schema)
            if mapped is None:
                unknown = True
                continue
            new.append(mapped)
            fmt = fmt or mapped_format
        original = kind if isinstance(kind, str) else ", ".join(str(n) for n in names)
        originals[path] = original
        if unknown or not new:
            from ..errors import did_you_mean

            bad = next(n for n in names if n not in STANDARD_TYPES and mapped_type(n, schema)[0] is None)
            schema.pop("type", None)
            warn(
                fail(
                    path,
                    f"unknown JSON Schema type {bad!r}{did_you_mean(bad, sorted(STANDARD_TYPES | set(TYPE_ALIASES)))}; "
                    "read as accepting any value",
                ),
                "type",
            )
        else:
            unique = list(dict.fromkeys(new))
            schema["type"] = unique[0] if len(unique) == 1 else unique
            if fmt and "format" not in schema and unique[0] == "string":
                schema["format"] = fmt
            shown = f"{unique[0]!r}" if len(unique) == 1 else repr(unique)
            detail = f" (format {fmt!r})" if fmt and schema.get("format") == fmt else ""
            warn(fail(path, f"non-standard type {original!r} read as {shown}{detail}"), "type")
    props = schema.get("properties")
    if isinstance(props, dict):
        for name, sub in props.items():
            _map_types(sub, f"{path}.{name}", fail, originals, depth + 1)
    for key in _SCHEMA_MAPS:
        subs = schema.get(key)
        if isinstance(subs, dict):
            for name, sub in subs.items():
                _map_types(sub, f"{path}.{key}.{name}", fail, originals, depth + 1)
    for key in _SCHEMA_LISTS:
        subs = schema.get(key)
        if isinstance(subs, list):
            for i, sub in enumerate(subs):
                _map_types(sub, f"{path}.{key}[{i}]", fail, originals, depth + 1)
    for key in _SCHEMA_ONES:
        sub = schema.get(key)
        if isinstance(sub, dict):
            _map_types(sub, f"{path}.{key}", fail, originals, depth + 1)


def has_nonstandard_types(schema: Any) -> bool:
    """Whether :func:`map_types` would find a type name to map (or drop) in ``schema``: the same
    walk, without recursion and without building anything (a 100,000-tool catalog has none)."""
    stack = [(schema, 0)]
    while stack:
        node, depth = stack.pop()
        if not isinstance(node, dict) or depth > MAX_DEPTH:
            continue
        kind = node.get("type")
        if isinstance(kind, str):
            if kind not in STANDARD_TYPES:
                return True
        elif isinstance(kind, list) and any(isinstance(n, str) and n not in STANDARD_TYPES for n in kind):
            return True
        for key in _WALKED.intersection(node):  # most nodes are leaves: {type, description}
            sub = node[key]
            if key in _SCHEMA_ONES and isinstance(sub, dict):
                stack.append((sub, depth + 1))
            elif isinstance(sub, dict) and (key == "properties" or key in _SCHEMA_MAPS):
                stack.extend((value, depth + 1) for value in sub.values())
            elif isinstance(sub, list) and key in _SCHEMA_LISTS:
                stack.extend((value, depth + 1) for value in sub)
    return False


#: Keys :func:`map_types` walks into.
_WALKED = frozenset({"properties", *_SCHEMA_MAPS, *_SCHEMA_LISTS, *_SCHEMA_ONES})


def note_original_types(metadata: dict[str, Any], originals: dict[str, str]) -> dict[str, Any]:
    """``metadata`` with ``original_types`` (parameter path -> the type name the source gave)."""
    if not originals:
        return metadata
    shown = {(p.split(".", 1)[1] if "." in p else p): t for p, t in originals.items()}
    return {**metadata, "original_types": {**metadata.get("original_types", {}), **shown}}


__all__ = [
    "KINDS",
    "LoadSettings",
    "LoadWarning",
    "collecting",
    "loading",
    "map_types",
    "mcp_settings",
    "settings",
    "summary",
    "warn",
]
