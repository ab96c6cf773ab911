"""The catalog model: tools, their parameters as JSON Schema, and catalogs of tools.

Plain dataclasses, not pydantic models: every CLI call imports this module, and pydantic's
import and model construction cost more than 100 ms of start-up. Loaders validate what they
read (with file:line errors) before building these objects.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from marshal import loads as _marshal_loads  # a built-in module: no import cost
from typing import Any

from .errors import CatalogError, did_you_mean

#: The search tool's name; no catalog tool may take it.
RESERVED_NAMES = frozenset({"toolSearch"})


@dataclass(frozen=True, slots=True)
class Location:
    """Where something was defined: a file (or module) and a 1-based line and column."""

    file: str
    line: int | None = None
    column: int | None = None

    def __str__(self) -> str:
        return f"{self.file}:{self.line}" if self.line else self.file

    def __reduce__(self) -> tuple[Any, ...]:
        # a frozen, slotted dataclass unpickles through dataclasses' __setstate__, which asks for
        # the fields each time: 30% of reading a cached 100,000-tool catalog; the constructor is not
        return (Location, (self.file, self.line, self.column))


def attributes_allow(required: Mapping[str, list[str]], context: Mapping[str, str] | None) -> bool:
    """True when ``context`` has every required attribute with an accepted value (``"*"``: any value)."""
    for key, accepted in required.items():
        value = (context or {}).get(key)
        if value is None or ("*" not in accepted and value not in accepted):
            return False
    return True


def empty_schema() -> dict[str, Any]:
    return {"type": "object", "properties": {}}


@dataclass(kw_only=True, eq=False)
class Tool:
    """A tool as the model sees it (name, description, JSON Schema parameters) plus search metadata.

    Pickled compactly (the on-disk catalog cache holds 100,000s of tools): its name and category,
    and every other field as one ``bytes`` of their own pickle, unpacked on the first access to
    any of them (see :meth:`__reduce__`). A search of a cached catalog touches the names of all
    tools but the fields of only the few it returns.
    """

    name: str
    description: str = ""
    parameters: dict[str, Any] = field(default_factory=empty_schema)
    category: str | None = None
    tags: list[str] = field(default_factory=list)
    examples: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    #: Where the tool was defined; ``None`` for tools built in code.
    source: Location | None = None
    #: Locations of individual fields, keyed by a dotted path (``description``, ``parameters.city``).
    field_locations: dict[str, Location] = field(default_factory=dict, repr=False, compare=False)
    #: Per-tool lint settings (``{"ignore": [codes or names]}``), from YAML ``lint:`` or ``@tool(lint=...)``.
    lint: dict[str, Any] = field(default_factory=dict, repr=False)
    #: The Python callable behind the tool, when it came from a module.
    function: Callable[..., Any] | None = field(default=None, repr=False, compare=False)
    #: Context attributes a request must carry to see this tool (``{"role": ["admin"]}``; ``"*"``
    #: accepts any value). Empty: visible to everyone. See :meth:`visible_to`.
    requires: dict[str, list[str]] = field(default_factory=dict)
    #: A canned result for simulations (``toolsearch simulate --live``); ``None``: none. Never sent to a model.
    mock: Any = field(default=None, repr=False)

    # Unhashable, as a dataclass with eq=True and not frozen is: tools change in place.
    __hash__ = None  # type: ignore[assignment]

    def __eq__(self, other: object) -> bool:
        """Field by field, as a dataclass compares (``field_locations`` and ``function`` left out),
        names first: comparing a tool with the others of a big list costs a string comparison each."""
        if other is self:
            return True
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Tool)
        if self.name != other.name or self.category != other.category:
            return False
        return _compared(self) == _compared(other)

    def __reduce__(self) -> tuple[Any, ...]:
        state = self.__dict__
        packed = state.get("_packed")
        if packed is None or any(name in state for name in _PACKED if name != "source"):
            import pickle

            packed = pickle.dumps(tuple(getattr(self, name) for name in _PACKED), protocol=pickle.HIGHEST_PROTOCOL)
        elif "source" in state:  # held out of the packed fields (see pack_tools): it wins over theirs
            return (_packed_tool, (self.name, self.category, packed, state["source"]))
        # (copyreg.__newobj__ with a state dict was measured no faster: a temporary dict per tool)
        return (_packed_tool, (self.name, self.category, packed))

    @property
    def title(self) -> str:
        """The tool's short human title, "" when it has none: MCP ``title`` (or ``annotations.title``),
        OpenAPI ``summary``. Kept in ``metadata.<format>``; the default ranker weights it above the
        (often long) description."""
        for fmt, key in (("mcp", "title"), ("openapi", "summary")):
            section = self.metadata.get(fmt)
            if isinstance(section, dict):
                value = section.get(key)
                if not isinstance(value, str) and key == "title":
                    annotations = section.get("annotations")
                    value = annotations.get("title") if isinstance(annotations, dict) else None
                if isinstance(value, str) and value.strip():
                    return value.strip()
        return ""

    def copy_with(self, **changes: Any) -> Tool:
        """A copy with some fields replaced (the original is left alone)."""
        return replace(self, **changes)

    def visible_to(self, context: Mapping[str, str] | None) -> bool:
        """Whether a request with these context attributes may see (and so search, get and run) the tool."""
        return attributes_allow(self.requires, context)

    def location_of(self, path: str) -> Location | None:
        """Best known location of a field path: the path, its nearest parent, else the tool."""
        while path:
            if path in self.field_locations:
                return self.field_locations[path]
            path = path.rpartition(".")[0]
        return self.source

    def parameter_tree(self, *, include_array_items: bool = False) -> list[Parameter]:
        """The parameters as a tree (name, type, description, required, children); the properties
        of a ``$ref`` target are listed once, under its first use (see :func:`first_expansion`)."""
        return list(_parameters_of(self.parameters, self.parameters, include_array_items, 0, set()))

    def parameter_count(self) -> int:
        """How many parameters, nested ones included."""
        return sum(1 for top in self.parameter_tree() for _ in top.walk())


#: The fields a pickled tool keeps packed (all but ``name`` and ``category``), in pickle order.
_PACKED = (
    "description",
    "parameters",
    "tags",
    "examples",
    "metadata",
    "source",
    "field_locations",
    "lint",
    "function",
    "requires",
    "mock",
)
#: The fields a tool's equality compares after its name and category (a dataclass's, in order).
_COMPARED = ("description", "parameters", "tags", "examples", "metadata", "source", "lint", "requires", "mock")


class _Packed:
    """A packed field of a tool (see :meth:`Tool.__reduce__`).

    A non-data descriptor: an attribute in the instance's ``__dict__`` wins over it, so a tool
    built by its constructor, or unpacked, reads its fields at full speed; only a packed tool's
    missing field comes here, and unpacks them all (a field assigned while packed keeps its value).
    """

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, tool: Tool | None, owner: type | None = None) -> Any:
        if tool is None:
            return self
        state = tool.__dict__
        packed = state.get("_packed")
        if packed is None:
            raise AttributeError(f"{type(tool).__name__!r} object has no attribute {self.name!r}")
        for name, value in zip(_PACKED, _packed_fields(packed), strict=True):
            state.setdefault(name, value)
        state.pop("_packed", None)
        return state[self.name]


# The dataclass's __init__ keeps the fields' defaults itself: the class attributes can be the descriptors.
for _name in _PACKED:
    setattr(Tool, _name, _Packed(_name))


def _compared(tool: Tool) -> tuple[Any, ...]:
    return tuple(getattr(tool, name) for name in _COMPARED)


def pack_tools(tools: Iterable[Tool]) -> None:
    """Pack tools in place, as a pickled tool is (see :meth:`Tool.__reduce__`): name, category and
    source stay plain, every other field becomes one ``bytes`` of their pickle, unpacked on the first read
    of any. A large catalog's loader packs each file's tools once the file is read, so the parsed
    document (the tools' parameters are dicts of it) is freed before the next file is read: ~0.8 KB
    a tool instead of ~2.5 KB. A tool with a Python function, or already packed, is left alone.
    """
    import marshal
    import pickle
    from operator import itemgetter

    dumps, protocol, marshalled = pickle.dumps, pickle.HIGHEST_PROTOCOL, marshal.dumps
    # the fields in _PACKED order, ``source`` (held out) as None: C calls, not a loop a tool
    at = _PACKED.index("source")
    before, after = itemgetter(*_PACKED[:at]), itemgetter(*_PACKED[at + 1 :])
    names = frozenset(_PACKED)
    for tool in tools:
        state = tool.__dict__
        if "_packed" in state or state.get("function") is not None or not names <= state.keys():
            continue
        fields = (*before(state), None, *after(state))
        try:
            packed = marshalled(fields)
        except ValueError:  # a Location in field_locations, an instance of a subclass, a value too deep
            packed = dumps(fields, protocol=protocol)
        for name in _PACKED_IN_PLACE:
            del state[name]
        state["_packed"] = packed


#: The fields :func:`pack_tools` packs: all of :data:`_PACKED` but ``source``, which stays in the
#: tool (a ``None`` in its place in the pickle; a field in the instance wins over the pickle's). A
#: :class:`Location` costs as much to unpickle as all the tool's parameters (a class look-up and a
#: constructor call), and every pass over a packed catalog (indexing, the vocabulary) unpickled one
#: a tool for a field neither reads; held plain, the tools of one file share its path string.
_PACKED_IN_PLACE = tuple(name for name in _PACKED if name != "source")


def _packed_fields(packed: bytes) -> Any:
    """The tuple of fields a tool's packed bytes hold (see :meth:`Tool.__reduce__`, :func:`pack_tools`).

    :func:`pack_tools` marshals them when it can (plain JSON values: a loaded file's tools, whose
    ``source`` is held out): ``marshal`` packed 100,000 tools in 0.60 s and read them in 0.70 s
    where ``pickle`` took 0.81 and 1.07 s, and a packed catalog is read twice (index, vocabulary).
    Anything else is a pickle (protocol 2 and up: its first byte is ``0x80``; a marshalled tuple's
    is ``(`` or ``)``, with or without the reference flag ``0x80`` added: never ``0x80`` alone).
    Both are only ever read from bytes this process made, or from an authenticated cache entry
    (the cache's key includes the Python version, which ``marshal``'s format may change with).
    """
    if packed[0] == 0x80:
        import pickle

        return pickle.loads(packed)
    import marshal

    return marshal.loads(packed)


def unpacked(tool: Tool) -> Tool:
    """A tool whose fields can be read without unpacking it for good: the tool itself, or for a
    packed one a transient unpacked copy (the tool stays packed). For passes over a whole catalog
    (indexing, a vocabulary) that must not undo the packing of :func:`pack_tools`."""
    state = tool.__dict__
    packed = state.get("_packed")
    if packed is None:
        return tool
    view = Tool.__new__(Tool)
    fields = view.__dict__
    # marshal.loads called here rather than through _packed_fields: ~1 µs less a tool, a pass over
    # 1,000,000 packed tools is 1 s shorter (the tuple always holds one value per packed field)
    fields.update(zip(_PACKED, _marshal_loads(packed) if packed[0] != 0x80 else _packed_fields(packed), strict=True))
    fields.update(state)  # name, category, and any field assigned while packed (it wins, as in _Packed)
    del fields["_packed"]
    return view


def _packed_tool(name: str, category: str | None, packed: bytes, *source: Location | None) -> Tool:
    """A tool read back from a pickle: its other fields stay packed until one is read (``source``,
    when given, is the tool's own, held out of the packed ones: see :func:`pack_tools`)."""
    tool = Tool.__new__(Tool)
    state = tool.__dict__
    state["name"] = name
    state["category"] = category
    state["_packed"] = packed
    if source:
        state["source"] = source[0]
    return tool


@dataclass(slots=True)
class Parameter:
    """One parameter of a tool, flattened out of its JSON Schema for searching and listing."""

    name: str
    type: str | None
    description: str
    required: bool
    children: list[Parameter] = field(default_factory=list)

    def walk(self) -> Iterator[Parameter]:
        yield self
        for child in self.children:
            yield from child.walk()


_MAX_DEPTH = 32


def _resolve_ref(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    if not isinstance(ref, str) or not ref.startswith("#/"):
        return schema
    node: Any = root
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            return schema
        node = node[part]
    return node if isinstance(node, dict) else schema


def first_expansion(schema: dict[str, Any], seen: set[str]) -> bool:
    """Whether a walk should descend into ``schema``: not when it is a ``$ref`` the walk has already
    followed. Walking each target once keeps walks linear in the schema's size: a ``LinkedNode``
    whose ``prev`` and ``next`` refer to itself, or 8 properties x 11 levels of ``$ref`` fan-out,
    would otherwise unfold into billions of nodes."""
    ref = schema.get("$ref")
    if not isinstance(ref, str):
        return True
    if ref in seen:
        return False
    seen.add(ref)
    return True


def _parameters_of(
    schema: dict[str, Any], root: dict[str, Any], include_items: bool, depth: int, seen: set[str]
) -> Iterator[Parameter]:
    if depth > _MAX_DEPTH or not first_expansion(schema, seen):  # recursive $ref: stop rather than loop
        return
    schema = _resolve_ref(schema, root)
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return
    required = schema.get("required")
    required_names = set(required) if isinstance(required, list) else set()
    for name, raw in properties.items():
        if not isinstance(raw, dict):
            continue
        prop = _resolve_ref(raw, root)
        kind = prop.get("type")
        children_source = raw
        if include_items and kind == "array" and isinstance(prop.get("items"), dict):
            children_source = prop["items"]
        children = list(_parameters_of(children_source, root, include_items, depth + 1, seen))
        yield Parameter(
            name=str(name),
            type=kind if isinstance(kind, str) else None,
            description=str(prop.get("description") or ""),
            required=name in required_names,
            children=children,
        )


def _same_place(a: Location | None, b: Location | None) -> bool:
    """Whether two tools were read from the same line of the same file (however the path was spelt)."""
    if a is None or b is None or a.line is None or a.line != b.line:
        return False
    if a.file == b.file:
        return True
    import os.path

    return os.path.realpath(a.file) == os.path.realpath(b.file)


def _same_file_without_lines(a: Location | None, b: Location | None) -> bool:
    """Whether two tools come from one file that gives no line numbers (JSON): the same place or
    two tools of that file, which cannot be told apart."""
    if a is None or b is None or a.line is not None or b.line is not None:
        return False
    import os.path

    return a.file == b.file or os.path.realpath(a.file) == os.path.realpath(b.file)


def _name_error(tool: Tool, message: str) -> CatalogError:
    where = tool.location_of("name")
    return CatalogError(
        message, file=where.file if where else None, line=where.line if where else None, tool=tool.name, field="name"
    )


@dataclass(frozen=True, kw_only=True)
class GroupMatcher:
    """When a tool group applies: always, a keyword or regex in the last user message, or context attributes."""

    kind: str = "always"
    keywords: list[str] = field(default_factory=list)
    ignore_case: bool = False
    pattern: str | None = None
    #: For ``context``: attribute -> accepted values (``"*"``: any value); all must hold.
    attributes: dict[str, list[str]] = field(default_factory=dict)


@dataclass(kw_only=True)
class ToolGroup:
    """A deterministic set of tools (plus a system prompt) attached to a request when its matcher applies."""

    name: str
    description: str = ""
    system_prompt: str = ""
    tools: list[str] = field(default_factory=list)
    matcher: GroupMatcher = field(default_factory=GroupMatcher)
    source: Location | None = None


#: Called as ``listener(catalog, added, removed)`` after each run-time change of a catalog (see
#: :meth:`Catalog.on_change`); ``removed`` are the searchable tools taken out (a resident tool is in
#: no index).
CatalogListener = Callable[["Catalog", Sequence[Tool], Sequence[Tool]], None]


@dataclass(kw_only=True, init=False, repr=False)
class Catalog:
    """Tools by unique name, plus the names of resident tools (always visible, never searched).

    :attr:`tools` is a tuple (build a catalog from any sequence: ``Catalog(tools=[...])``): the
    catalog changes only through :meth:`add_tool(s) <add_tools>` and :meth:`remove_tool(s)
    <remove_tools>`, which keep :meth:`get` and whatever was built from the catalog current.
    Indexes, cache bookkeeping and load warnings are not kept here: see
    :mod:`toolsearch_cli.indexes` and :func:`toolsearch_cli.catalog.load_catalog_result`.
    """

    _tools: list[Tool]
    resident: list[str]
    #: Where the catalog came from (files, modules), for display.
    sources: list[str]
    #: Tool groups (deterministic disclosure); their tools are catalog tools named here.
    groups: list[ToolGroup]
    #: How many run-time changes the catalog has had (0: as built); what was built from it at one
    #: revision is stale at another.
    revision: int = field(compare=False)
    _by_name: dict[str, Tool] = field(compare=False)
    #: :attr:`tools` as last handed out (``None``: made again on next use, after a change).
    _view: tuple[Tool, ...] | None = field(compare=False)
    #: Told of each run-time change of this catalog (:meth:`on_change`); not pickled.
    _listeners: list[CatalogListener] = field(compare=False)

    def __init__(
        self,
        *,
        tools: Iterable[Tool] = (),
        resident: Iterable[str] = (),
        sources: Iterable[str] = (),
        groups: Iterable[ToolGroup] = (),
    ) -> None:
        self._tools = list(tools)
        self.resident = list(resident)
        self.sources = list(sources)
        self.groups = list(groups)
        self.revision = 0
        self._view = None
        self._listeners = []
        self._check()

    @property
    def tools(self) -> tuple[Tool, ...]:
        """The tools in catalog order (a tuple: adding one is :meth:`add_tool`'s job, so that
        :meth:`get` and the built indexes follow)."""
        if self._view is None:
            self._view = tuple(self._tools)
        return self._view

    def __repr__(self) -> str:
        fields = f"tools={self._tools!r}, resident={self.resident!r}, sources={self.sources!r}, groups={self.groups!r}"
        return f"Catalog({fields})"

    def __getstate__(self) -> dict[str, Any]:
        # the tuple is made again on use, not stored twice; the names' map too, when first used
        state = {**self.__dict__, "_view": None, "_listeners": []}
        state.pop("_by_name", None)
        return state

    def __getattr__(self, name: str) -> Any:
        # Only for what the instance lacks: a catalog read back from a pickle makes its names' map
        # on first use (a dict of 100,000 names cost 0.03 s to unpickle on every cached search,
        # which looks up no name unless the query is one); its tools' names are unique already.
        tools = self.__dict__.get("_tools")
        if name != "_by_name" or tools is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        by_name = self.__dict__["_by_name"] = {tool.name: tool for tool in tools}
        return by_name

    def _check(self) -> None:
        by_name: dict[str, Tool] = {}
        for tool in self._tools:
            if tool.name in RESERVED_NAMES:
                raise _name_error(tool, f"the name {tool.name!r} is reserved for the search tool; rename the tool")
            other = by_name.get(tool.name)
            if other is not None:
                if _same_place(other.source, tool.source):
                    raise _name_error(tool, "this file is loaded twice (do two catalog sources reach it?)")
                if _same_file_without_lines(other.source, tool.source):  # a JSON file: no line numbers
                    raise _name_error(
                        tool,
                        "duplicate tool name in this file, or the file is loaded twice (do two catalog "
                        "sources reach it?); tool names must be unique",
                    )
                first = f" (first defined at {other.source})" if other.source else ""
                raise _name_error(tool, f"duplicate tool name{first}; tool names must be unique")
            by_name[tool.name] = tool
        for name in self.resident:
            if name not in by_name:
                raise CatalogError(f"resident tool {name!r} is not in the catalog", field="resident")
        group_names: dict[str, ToolGroup] = {}
        for group in self.groups:
            where = group.source
            if group.name in group_names:
                raise CatalogError(
                    "duplicate group name; group names must be unique",
                    file=where.file if where else None,
                    line=where.line if where else None,
                    field="groups",
                )
            group_names[group.name] = group
            for name in group.tools:
                if name not in by_name:
                    raise CatalogError(
                        f"group {group.name!r} lists tool {name!r}, which is not in the catalog"
                        f"{did_you_mean(name, by_name)}",
                        file=where.file if where else None,
                        line=where.line if where else None,
                        field="groups",
                    )
        self._by_name = by_name

    def __len__(self) -> int:
        return len(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def get(self, name: str) -> Tool | None:
        """The tool of that name, or ``None``."""
        return self._by_name.get(name)

    @property
    def names(self) -> list[str]:
        return [t.name for t in self._tools]

    def searchable(self) -> list[Tool]:
        """The tools search may return: every tool that is not resident."""
        resident = set(self.resident)
        return [t for t in self._tools if t.name not in resident]

    def categories(self) -> list[str]:
        """Distinct categories in first-seen order."""
        seen: dict[str, None] = {}
        for tool in self._tools:
            if tool.category:
                seen.setdefault(tool.category, None)
        return list(seen)

    def add_tool(self, tool: Tool) -> None:
        """Add a searchable tool at run time; built indexes that can grow are updated, not rebuilt."""
        self.add_tools([tool])

    def add_tools(self, tools: Iterable[Tool]) -> None:
        """Add searchable tools at run time; a reserved or taken name is an error and adds nothing."""
        new = list(tools)
        names: set[str] = set()
        for tool in new:
            if tool.name in RESERVED_NAMES:
                raise _name_error(tool, f"the name {tool.name!r} is reserved for the search tool; rename the tool")
            if tool.name in self._by_name or tool.name in names:
                raise _name_error(tool, "duplicate tool name; tool names must be unique")
            names.add(tool.name)
        if not new:
            return
        self._tools.extend(new)
        self._view = None
        for tool in new:
            self._by_name[tool.name] = tool
        self._changed(new, [])

    def remove_tool(self, name: str) -> None:
        """Remove a tool at run time; built indexes that can shrink are updated, not rebuilt."""
        self.remove_tools([name])

    def remove_tools(self, names: Iterable[str]) -> None:
        """Remove several tools at run time with one pass over :attr:`tools` (a live registry's change
        of 100 tools at 100k); an unknown name is an error and removes nothing."""
        wanted = list(dict.fromkeys(names))
        for name in wanted:
            if name not in self._by_name:
                raise CatalogError(f"no tool named {name!r} in the catalog", tool=name, field="name")
        gone = [self._by_name.pop(name) for name in wanted]
        if not gone:
            return
        ids = {id(tool) for tool in gone}  # by identity: Tool's __eq__ compares field by field
        self._tools = [tool for tool in self._tools if id(tool) not in ids]
        self._view = None
        resident = set(self.resident).intersection(wanted)
        if resident:
            self.resident = [name for name in self.resident if name not in resident]
        self._changed([], [tool for tool in gone if tool.name not in resident])

    def on_change(self, listener: CatalogListener) -> None:
        """Have ``listener`` told of every run-time change of this catalog (:meth:`add_tool`,
        :meth:`remove_tools`). What is built from a catalog (the search layer's indexes, see
        :mod:`toolsearch_cli.indexes`) lives beside it, not in it, and keeps up through this."""
        listeners = self.__dict__.setdefault("_listeners", [])  # a catalog pickled before listeners
        if listener not in listeners:
            listeners.append(listener)

    def _changed(self, added: Sequence[Tool], removed: Sequence[Tool]) -> None:
        self.revision += 1
        for listener in list(self.__dict__.get("_listeners", ())):
            listener(self, added, removed)
