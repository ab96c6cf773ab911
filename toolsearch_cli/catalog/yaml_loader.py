"""YAML catalogs, read safely (the C loader when present) with the line of every mapping kept.

Accepted documents:

* a mapping with ``tools`` (a list), and optionally ``category`` (the default category of the
  file's tools) and ``resident`` (names of resident tools);
* a bare list of tools.

Each tool is a mapping with ``name`` (required), ``description``, ``parameters``, ``category``,
``tags``, ``examples``, ``metadata``, ``resident``, ``requires`` (context attributes a request
must carry to see the tool, e.g. ``{role: [admin]}``), ``lint`` (``{ignore: [TS104]}``: lint
rules not to apply to this tool) and ``mock`` (a canned result for live simulations). See
:mod:`toolsearch_cli.catalog.schema` for the three accepted forms of ``parameters``.

A mapping document may set ``requires`` for all its tools (a tool's own ``requires`` wins), and
may hold ``groups``: tool groups for deterministic disclosure, each with
``name``, ``description``, ``system_prompt``, ``tools`` (catalog tool names) and ``match``
(``always``; ``{keywords: [...], ignore_case: true}``; ``{regex: "..."}``; ``{context: {role: admin}}``).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import yaml

from ..bounded import MAX_DEPTH, MAX_INPUT_BYTES, TOO_DEEP
from ..errors import CatalogError, did_you_mean, kind_of
from ..model import GroupMatcher, Location, Tool, ToolGroup
from .result import LoadResult
from .schema import MarkedDict, MarkedList, parameters_to_schema, plain

try:  # the C parser is ~10x faster; the constructor stays Python's safe one either way
    _Base: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - libyaml missing
    _Base = yaml.SafeLoader


class _MarkedLoader(_Base):  # type: ignore[misc, valid-type]
    """A safe loader whose mappings and sequences remember where they started, and which bounds
    what it builds: nesting depth, and the values aliases add once expanded (a "billion laughs"
    document is a few lines that stand for 10^9 values)."""

    def __init__(self, stream: Any) -> None:
        super().__init__(stream)
        self.depth = 0
        #: Per collection node: (values it stands for with aliases expanded, nesting height,
        #: values its aliases add, whether it has been met as a child already).
        self.sizes: dict[yaml.Node, tuple[int, int, int, bool]] = {}
        # A document has no more values of its own than twice its characters (``{a,b}``: a
        # mapping, two keys, two empty values), so no collection may add more than this while it
        # is built; the whole document is then held to what its own values allow.
        length = len(stream) if isinstance(stream, str | bytes) else MAX_INPUT_BYTES
        self.ceiling = max(MAX_VALUES, ALIAS_RATIO * (2 * length + 2))
        #: (values added, line) of each collection whose aliases add more than MAX_VALUES, in the
        #: order they were built (for the error: which value grew the document).
        self.heavy: list[tuple[int, int]] = []

    def construct_document(self, node: yaml.Node) -> Any:
        data = super().construct_document(node)
        known = self.sizes.get(node)
        if known is not None:
            size, _, extra, _ = known
            own = size - extra
            allowed = max(MAX_VALUES, ALIAS_RATIO * own)
            if extra > allowed:
                # named: the first value built that holds half the growth (or more than allowed)
                least = min(allowed, extra // 2)
                line = next((line for added, line in self.heavy if added > least), node.start_mark.line + 1)
                raise CatalogError(_bomb(own, extra), line=line)
        return data


#: Values the aliases of a YAML document may add once expanded, whatever its size: the floor of
#: the bound (a billion-laughs bomb of a few lines adds 10^9).
MAX_VALUES = 1_000_000
#: Beyond the floor, aliases may add this many times the values the document writes out itself.
#: Shared blocks add a fraction to a few times that: PyYAML's ``safe_dump`` of 24 real catalogs
#: (benchmarks/real_catalogs, ../shared/eval) with every repeated parameter list and property
#: schema made one object adds 0.02-0.82 times; of 100,000 generated tools, 80 % of them sharing
#: one of 2,000 parameter lists, 2.0 times; of tools with only a name sharing one 10-parameter
#: schema, 16 times (the most found). An alias bomb adds orders of magnitude more, and a block
#: of the document referenced a few dozen times, as many times its size.
ALIAS_RATIO = 20


def _bomb(own: int, extra: int) -> str:
    return (
        f"this document grows from {own:,} values to {own + extra:,} once its aliases are expanded, "
        f"more than {ALIAS_RATIO + 1} times its own (a YAML alias bomb?)"
    )


def _enter(loader: _MarkedLoader, node: yaml.Node) -> None:
    loader.depth += 1
    if loader.depth > MAX_DEPTH:
        raise CatalogError(TOO_DEEP, line=node.start_mark.line + 1)


def _leave(loader: _MarkedLoader, node: yaml.Node, children: list[yaml.Node], copied: int = 0) -> None:
    """Record the expanded size and height of a finished collection; refuse an alias bomb or data
    nested too deep through aliases. ``copied``: scalars a ``<<:`` merge copied into the mapping
    (what a merge adds: 50,000 merges of a 50,000-key mapping would be 2.5 * 10^9 values)."""
    loader.depth -= 1
    size, height, extra = 1, 1, copied
    sizes = loader.sizes
    for child in children:
        known = sizes.get(child)
        if known is None:  # a scalar: an alias of one adds one value, no more than its own text
            size += 1
            continue
        child_size, child_height, child_extra, met = known
        size += child_size
        height = max(height, child_height + 1)
        # a collection met again (an alias, or a `<<:` merge) adds all it stands for; met the first
        # time, only what its own aliases add. Which occurrence comes first in this walk does not
        # change the document's total, and no node's share exceeds it.
        if met:
            extra += child_size
        else:
            extra += child_extra
            sizes[child] = (child_size, child_height, child_extra, True)
    sizes[node] = (size, height, extra, False)
    line = node.start_mark.line + 1
    if extra > MAX_VALUES:
        if extra > loader.ceiling:  # more than any document of this length may add: stop now
            raise CatalogError(
                f"this value grows by more than {loader.ceiling:,} values once its aliases are expanded "
                "(a YAML alias bomb?)",
                line=line,
            )
        loader.heavy.append((extra, line))
    if height > MAX_DEPTH:
        raise CatalogError(TOO_DEEP, line=line)


def _construct_mapping(loader: _MarkedLoader, node: yaml.MappingNode) -> MarkedDict:
    _enter(loader, node)
    own = {id(key) for key, _ in node.value if key.tag != "tag:yaml.org,2002:merge"}
    merging = len(own) != len(node.value)
    loader.flatten_mapping(node)
    result = MarkedDict()
    result.line = node.start_mark.line + 1
    result.column = node.start_mark.column + 1
    written_by_own: set[Any] = set()
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if isinstance(key, bool):  # `true:`/`on:` as a key: the word, not a boolean equal to 1
            key = key_node.value
        line = key_node.start_mark.line + 1
        try:
            hash(key)
        except TypeError:
            raise CatalogError("a mapping key must be a plain value", line=line) from None
        is_own = id(key_node) in own
        if key in result and is_own and key in written_by_own:
            raise CatalogError(
                f"duplicate key {key_node.value!r} (first at line {result.key_lines[key][0]}); "
                "YAML would silently keep only the last one",
                line=line,
            )
        # a key merged in with `<<:` is overridden by the mapping's own key of that name
        result[key] = loader.construct_object(value_node, deep=True)
        result.key_lines[key] = (line, key_node.start_mark.column + 1)
        if is_own:
            written_by_own.add(key)
    children = [child for pair in node.value for child in pair]
    copied = 0
    if merging:  # the scalars of merged pairs; merged collections count as aliases do
        copied = sum(
            isinstance(child, yaml.ScalarNode)
            for key, value in node.value
            if id(key) not in own
            for child in (key, value)
        )
    _leave(loader, node, children, copied)
    return result


def _construct_sequence(loader: _MarkedLoader, node: yaml.SequenceNode) -> MarkedList:
    _enter(loader, node)
    result = MarkedList(loader.construct_object(child, deep=True) for child in node.value)
    result.line = node.start_mark.line + 1
    result.item_lines = [child.start_mark.line + 1 for child in node.value]
    _leave(loader, node, node.value)
    return result


def _construct_int(loader: _MarkedLoader, node: yaml.ScalarNode) -> int:
    try:
        return yaml.SafeLoader.construct_yaml_int(loader, node)  # type: ignore[no-any-return]
    except ValueError:  # longer than Python converts (4,300 digits)
        raise CatalogError(
            f"an integer of {len(node.value):,} digits is too long", line=node.start_mark.line + 1
        ) from None


def _construct_float(loader: _MarkedLoader, node: yaml.ScalarNode) -> float:
    value = yaml.SafeLoader.construct_yaml_float(loader, node)
    if value != value or value in (float("inf"), float("-inf")):
        raise CatalogError(
            f"{node.value[:24]!r} is not a JSON number (no NaN or infinity); toolsearch refuses what it "
            "could not write back as JSON",
            line=node.start_mark.line + 1,
        )
    return value  # type: ignore[no-any-return]


def _construct_timestamp(loader: _MarkedLoader, node: yaml.ScalarNode) -> str:
    """A YAML date or time stays text, as written (JSON has no date type: ``catalog convert`` must
    be able to write it back)."""
    return str(node.value)


def _construct_binary(loader: _MarkedLoader, node: yaml.ScalarNode) -> None:
    raise CatalogError("!!binary values are not JSON; write the data as a string", line=node.start_mark.line + 1)


_MarkedLoader.add_constructor("tag:yaml.org,2002:map", _construct_mapping)
_MarkedLoader.add_constructor("tag:yaml.org,2002:seq", _construct_sequence)
_MarkedLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)
_MarkedLoader.add_constructor("tag:yaml.org,2002:float", _construct_float)
_MarkedLoader.add_constructor("tag:yaml.org,2002:timestamp", _construct_timestamp)
_MarkedLoader.add_constructor("tag:yaml.org,2002:binary", _construct_binary)

_DOCUMENT_KEYS = ("tools", "category", "resident", "groups", "requires")
TOOL_KEYS = (
    "name",
    "description",
    "parameters",
    "category",
    "tags",
    "examples",
    "metadata",
    "resident",
    "requires",
    "lint",
    "mock",
)


def parse_yaml(text: str, file: str) -> Any:
    """Parse YAML text with marks; a syntax error becomes a one-line :class:`CatalogError`."""
    try:
        return yaml.load(text, Loader=_MarkedLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "cannot parse"
        if exc.context and exc.problem:
            started = f" (started at line {exc.context_mark.line + 1})" if exc.context_mark else ""
            problem = f"{exc.problem} {exc.context}{started}"
        raise CatalogError(f"malformed YAML: {problem}", file=file, line=mark.line + 1 if mark else None) from exc
    except yaml.reader.ReaderError as exc:  # a control character: name its line, on one line
        line = text.count("\n", 0, exc.position) + 1 if isinstance(exc.position, int) else None
        raise CatalogError(
            f"malformed YAML: unacceptable character #x{exc.character:04x}: control characters are not allowed",
            file=file,
            line=line,
        ) from exc
    except yaml.YAMLError as exc:
        raise CatalogError(f"malformed YAML: {' '.join(str(exc).split())}", file=file) from exc
    except RecursionError:  # nesting the parser itself cannot follow
        raise CatalogError(TOO_DEEP, file=file) from None
    except CatalogError as exc:
        exc.file = file
        raise


GROUP_KEYS = ("name", "description", "system_prompt", "tools", "match")
_MATCH_KEYS = ("keywords", "ignore_case", "regex", "context")


def groups_from_document(doc: Any, file: str) -> list[ToolGroup]:
    """The ``groups`` of a parsed catalog document (tool names are checked when the catalog is built)."""
    if not isinstance(doc, dict) or doc.get("groups") is None:
        return []
    raw = doc["groups"]
    top_line = getattr(doc, "key_lines", {}).get("groups", (None,))[0]
    if not isinstance(raw, list):
        raise CatalogError("'groups' must be a list of groups", file=file, line=top_line, field="groups")
    groups = []
    item_lines = getattr(raw, "item_lines", [])
    for i, item in enumerate(raw):
        line = item_lines[i] if i < len(item_lines) else top_line
        groups.append(_group_from_mapping(item, file, line))
    return groups


def _group_from_mapping(item: Any, file: str, line: int | None) -> ToolGroup:
    if not isinstance(item, dict):
        raise CatalogError(f"a group must be a mapping, not {_kind(item)}", file=file, line=line, field="groups")
    key_lines: dict[Any, tuple[int, int]] = getattr(item, "key_lines", {})

    def fail(key: str, message: str) -> CatalogError:
        at = key_lines.get(key.split(".")[0], (line, 0))[0]
        return CatalogError(message, file=file, line=at, field=f"groups.{key}")

    name = item.get("name")
    if not isinstance(name, str) or not name.strip():
        raise CatalogError("a group needs a non-empty 'name'", file=file, line=line, field="groups.name")
    for key in item:
        if key not in GROUP_KEYS:
            raise fail(
                str(key),
                f"group {name!r}: unknown field {key!r}{did_you_mean(str(key), GROUP_KEYS)}; "
                f"expected one of {', '.join(GROUP_KEYS)}",
            )
    texts = {}
    for key in ("description", "system_prompt"):
        value = item.get(key) or ""
        if not isinstance(value, str):
            raise fail(key, f"group {name!r}: must be a string, not {_kind(value)}")
        texts[key] = value
    tools = _string_list(item.get("tools"), "tools", lambda field, message: fail(field, f"group {name!r}: {message}"))
    matcher = _matcher(item.get("match"), lambda message: fail("match", f"group {name!r}: {message}"))
    return ToolGroup(
        name=name,
        description=texts["description"],
        system_prompt=texts["system_prompt"],
        tools=tools,
        matcher=matcher,
        source=Location(file=file, line=line),
    )


def _matcher(raw: Any, fail: Any) -> GroupMatcher:
    if raw is None or raw == "always":
        return GroupMatcher()
    if not isinstance(raw, dict):
        raise fail(f"'match' must be 'always' or a mapping with one of keywords, regex, context; not {_kind(raw)}")
    for key in raw:
        if key not in _MATCH_KEYS:
            raise fail(
                f"unknown matcher {key!r}{did_you_mean(str(key), _MATCH_KEYS)}; expected keywords, regex or context"
            )
    kinds = [k for k in ("keywords", "regex", "context") if k in raw]
    if len(kinds) != 1:
        raise fail("'match' needs exactly one of keywords, regex, context")
    kind = kinds[0]
    ignore_case = raw.get("ignore_case", False)
    if not isinstance(ignore_case, bool):
        raise fail("'ignore_case' must be true or false")
    if ignore_case and kind == "context":
        raise fail("'ignore_case' applies to keywords and regex only")
    if kind == "keywords":
        words = raw["keywords"]
        if isinstance(words, str):
            words = [words]
        if not isinstance(words, list) or not words or not all(isinstance(w, str) and w for w in words):
            raise fail("'keywords' must be a non-empty list of non-empty strings")
        return GroupMatcher(kind="keywords", keywords=list(words), ignore_case=ignore_case)
    if kind == "regex":
        pattern = raw["regex"]
        if not isinstance(pattern, str) or not pattern:
            raise fail("'regex' must be a non-empty string")
        try:
            re.compile(pattern, re.IGNORECASE if ignore_case else 0)
        except re.error as exc:
            raise fail(f"invalid regex {pattern!r}: {exc}") from None
        return GroupMatcher(kind="regex", pattern=pattern, ignore_case=ignore_case)
    return GroupMatcher(kind="context", attributes=parse_attributes(raw["context"], fail))


def parse_attributes(raw: Any, fail: Any) -> dict[str, list[str]]:
    """``{role: admin}`` or ``{role: [admin, owner]}`` -> ``{"role": ["admin", "owner"]}`` (``"*"``: any value)."""
    if not isinstance(raw, dict) or not raw:
        raise fail("must be a mapping of context attribute -> accepted value(s), e.g. {role: admin}")
    out: dict[str, list[str]] = {}
    for key, value in raw.items():
        values = value if isinstance(value, list) else [value]
        if not values or not all(isinstance(v, str | int) and not isinstance(v, bool) for v in values):
            raise fail(f"attribute {key!r} needs a value or a list of values (strings)")
        out[str(key)] = [str(v) for v in values]
    return out


def tools_from_document(doc: Any, file: str) -> LoadResult:
    """Tools and resident names from a parsed catalog document (its groups: :func:`groups_from_document`)."""
    default_category: str | None = None
    default_requires: dict[str, list[str]] = {}
    resident: list[str] = []
    if doc is None:
        return LoadResult()
    if isinstance(doc, list):
        items = doc
    elif isinstance(doc, dict):
        line_of = getattr(doc, "key_lines", {})
        for key in doc:
            if key not in _DOCUMENT_KEYS:
                raise CatalogError(
                    f"unknown top-level key {key!r}{did_you_mean(str(key), _DOCUMENT_KEYS)}; "
                    f"expected {', '.join(_DOCUMENT_KEYS)}",
                    file=file,
                    line=line_of.get(key, (None,))[0],
                )
        items = doc.get("tools", [])
        if not isinstance(items, list):
            raise CatalogError("'tools' must be a list of tools", file=file, line=line_of.get("tools", (None,))[0])
        category = doc.get("category")
        if category is not None:
            if not isinstance(category, str):
                raise CatalogError("'category' must be a string", file=file, line=line_of["category"][0])
            default_category = category
        raw_resident = doc.get("resident", [])
        if not isinstance(raw_resident, list) or not all(isinstance(n, str) for n in raw_resident):
            raise CatalogError(
                "'resident' must be a list of tool names", file=file, line=line_of.get("resident", (None,))[0]
            )
        resident = list(raw_resident)
        if doc.get("requires") is not None:
            where = line_of.get("requires", (None,))[0]

            def requires_error(message: str) -> CatalogError:
                return CatalogError(f"'requires' {message}", file=file, line=where, field="requires")

            default_requires = parse_attributes(doc["requires"], requires_error)
    else:
        raise CatalogError(
            f"a catalog must be a mapping with 'tools' or a list of tools, not {_kind(doc)}", file=file, line=1
        )
    tools: list[Tool] = []
    item_lines = getattr(items, "item_lines", [])
    for i, item in enumerate(items):
        line = item_lines[i] if i < len(item_lines) else None
        tool, is_resident = tool_from_mapping(item, file, line, default_category)
        if default_requires and not (isinstance(item, dict) and "requires" in item):
            tool.requires = {k: list(v) for k, v in default_requires.items()}
        tools.append(tool)
        if is_resident and tool.name not in resident:
            resident.append(tool.name)
    return LoadResult(tools=tools, resident=resident)


def _kind(value: Any) -> str:
    return kind_of(value)


def tool_from_mapping(item: Any, file: str, line: int | None, default_category: str | None = None) -> tuple[Tool, bool]:
    """Validate one tool mapping and build the :class:`Tool` (plus its ``resident`` flag)."""
    if not isinstance(item, dict):
        raise CatalogError(f"a tool must be a mapping, not {_kind(item)}", file=file, line=line)
    line = getattr(item, "line", line)
    key_lines: dict[Any, tuple[int, int]] = getattr(item, "key_lines", {})
    name = item.get("name")
    if "name" not in item or name is None or (isinstance(name, str) and not name.strip()):
        raise CatalogError("a tool needs a non-empty 'name'", file=file, line=line, field="name")
    if not isinstance(name, str):
        # a JSON document carries no key lines: the tool's own line then
        where = key_lines["name"][0] if "name" in key_lines else line
        raise CatalogError(f"'name' must be a string, not {_kind(name)}", file=file, line=where, field="name")

    locations = {str(k): Location(file=file, line=ln, column=col) for k, (ln, col) in key_lines.items()}

    def fail(field: str, message: str) -> CatalogError:
        path, at = field, None
        while path and at is None:
            loc = locations.get(path)
            at = loc.line if loc else None
            path = path.rpartition(".")[0]
        return CatalogError(message, file=file, line=at or line, tool=name, field=field)

    for key in item:
        if key not in TOOL_KEYS:
            raise CatalogError(
                f"unknown field{did_you_mean(str(key), TOOL_KEYS)}; expected one of {', '.join(TOOL_KEYS)}",
                file=file,
                line=key_lines.get(key, (line, 0))[0],
                tool=name,
                field=str(key),
            )

    description = item.get("description")
    if description is None:
        description = ""
    elif not isinstance(description, str):
        raise fail("description", f"must be a string, not {_kind(description)}")
    category = item.get("category", default_category)
    if category is not None and not isinstance(category, str):
        raise fail("category", f"must be a string, not {_kind(category)}")
    tags = _string_list(item.get("tags"), "tags", fail)
    examples = _string_list(item.get("examples"), "examples", fail)
    metadata = item.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise fail("metadata", f"must be a mapping, not {_kind(metadata)}")
    resident = item.get("resident", False)
    if not isinstance(resident, bool):
        raise fail("resident", f"must be true or false, not {_kind(resident)}")
    lint = item.get("lint") or {}
    if not isinstance(lint, dict) or set(lint) - {"ignore"}:
        raise fail("lint", "must be a mapping with one key, ignore: [rule codes or names]")
    lint_ignore = _string_list(lint.get("ignore"), "lint", fail)

    requires: dict[str, list[str]] = {}
    if item.get("requires") is not None:
        requires = parse_attributes(item["requires"], lambda message: fail("requires", message))
    originals: dict[str, str] = {}
    schema = parameters_to_schema(item.get("parameters"), fail, locations, originals)
    if originals:
        from .lenient import note_original_types

        metadata = note_original_types(dict(metadata), originals)
    tool = Tool(
        name=name,
        description=description,
        parameters=schema,
        category=category,
        tags=tags,
        examples=examples,
        metadata=dict(metadata),
        source=_location(file, line, getattr(item, "column", None)),
        field_locations=locations,
        requires=requires,
        lint={"ignore": lint_ignore} if lint_ignore else {},
        mock=plain(item.get("mock")),
    )
    return tool, resident


def _location(file: str, line: int | None, column: int | None) -> Location:
    """A tool's location; the tools of a JSON file (no lines) share one (a Location is immutable:
    made once a file, not once a tool)."""
    if line is None and column is None:
        return _file_location(file)
    return Location(file=file, line=line, column=column)


@lru_cache(maxsize=64)
def _file_location(file: str) -> Location:
    return Location(file=file)


def _string_list(value: Any, field: str, fail: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        raise fail(field, f"must be a list of strings; write [{value!r}] for a single entry")
    if not isinstance(value, list):
        raise fail(field, f"must be a list of strings, not {_kind(value)}")
    out = []
    for entry in value:
        if isinstance(entry, bool) or not isinstance(entry, str | int | float):
            raise fail(field, f"entries must be strings, found {_kind(entry)}")
        out.append(str(entry))
    return out
