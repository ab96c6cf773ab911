"""Rug-pull detection: a lockfile of every tool's definition, and what changed since it was written.

``toolsearch lock`` writes the lockfile (:func:`write_lockfile`); ``toolsearch lint --locked``
reports each tool added, removed or changed since (the ``lock`` rules, TS8xx);
``toolsearch serve --locked`` keeps a changed or unlocked tool out of the gateway until the
lockfile records it (:class:`~toolsearch_cli.serve.gateway.Gateway`).

The lockfile (``toolsearch.lock`` by default) is JSON, written sorted with two-space indents so
that a change of a tool is a readable change of the file under version control::

    {
      "lockfileVersion": 1,
      "tools": {
        "catalogs/weather.yaml": {
          "get_weather": {
            "description": "Current weather for a city.",
            "inputSchema": {"type": "object", ...},
            "sha256": "3f5c..."
          }
        },
        "mcp:garden": {...},
        "registry:prod": {...}
      }
    }

A tool's key is its source and its own name. The source is the catalog file (or a Python
module's file) as a path from the lockfile's folder; ``mcp:ALIAS`` for a live MCP server
(its ``alias=``, else the name the server gives itself: never the command line or URL, which may
hold paths or credentials); ``registry:NAMESPACE`` for a PostgreSQL registry. Live servers' tools
keep the names the server gives them (not ``alias__name`` prefixes or ``--sanitize-names``).

The definition is what reaches a model: ``name``, ``title`` (when set), ``description``,
``inputSchema`` and MCP ``annotations`` (when set). ``sha256`` is the SHA-256 of its canonical
JSON (keys sorted, no spaces, ASCII escapes). The definition is stored whole so a later check
can show *what* changed (:func:`diff_definitions`); an entry whose ``sha256`` does not match its
own definition is refused as tampered with.

The lockfile is hostile input when read: at most :data:`MAX_LOCKFILE_BYTES`, strict JSON (no
duplicate key, nesting bounded), every key and value checked; a bad one is a one-line
:class:`~toolsearch_cli.errors.UsageError` naming file:line (exit 2). It is written atomically
and with every registered secret masked; no source key carries a URL or command line.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import UsageError

if TYPE_CHECKING:
    from .catalog.each_file import LoadedFile
    from .catalog.loading import SourcesLike
    from .model import Tool

LOCKFILE_NAME = "toolsearch.lock"
LOCKFILE_VERSION = 1
#: The largest lockfile read (a 100,000-tool catalog's lockfile is well under it).
MAX_LOCKFILE_BYTES = 64 * 1024 * 1024
#: The longest source key or tool name accepted in a lockfile.
MAX_KEY_LENGTH = 4096
#: The fields of a definition besides its name, in the order they are compared and shown.
FIELDS = ("title", "description", "inputSchema", "annotations")
_ENTRY_KEYS = frozenset({*FIELDS, "sha256"})
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
#: The most lines a diff of one tool shows (then "... and N more changes").
MAX_DIFF_LINES = 40
#: The longest value a diff line quotes (its middle elided past it).
MAX_VALUE_CHARS = 160
#: Descriptions longer than this many words are compared line by line only (word diffs are quadratic).
MAX_WORD_DIFF_TOKENS = 4000

Key = tuple[str, str]


# -- definitions and keys ---------------------------------------------------------------------


def definition_of(tool: Tool, name: str | None = None) -> dict[str, Any]:
    """The part of ``tool`` that reaches a model (``name`` overrides the tool's own name)."""
    out: dict[str, Any] = {"name": tool.name if name is None else name}
    if tool.title:
        out["title"] = tool.title
    out["description"] = tool.description
    out["inputSchema"] = tool.parameters
    mcp = tool.metadata.get("mcp") if isinstance(tool.metadata, dict) else None
    if isinstance(mcp, dict) and isinstance(mcp.get("annotations"), dict) and mcp["annotations"]:
        out["annotations"] = mcp["annotations"]
    return out


def canonical_json(value: Any) -> str:
    """Keys sorted, no spaces, non-ASCII escaped: one text per value, whatever wrote it."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, default=str)


def digest(definition: dict[str, Any]) -> str:
    """The SHA-256 (hex) of a definition's canonical JSON."""
    return hashlib.sha256(canonical_json(definition).encode("ascii")).hexdigest()


def file_key(file: str, base: str | Path | None = None) -> str:
    """A catalog file's source key: its path from ``base`` (the lockfile's folder; default the
    current folder), ``/``-separated, so a lockfile reads the same from wherever it is used."""
    return _file_key(file, str(Path.cwd() if base is None else base))


@functools.lru_cache(maxsize=4096)
def _file_key(file: str, base: str) -> str:  # the tools of one file share one look-up
    import os

    try:
        relative = os.path.relpath(Path(file).resolve(), Path(base).resolve())
    except (ValueError, OSError, RuntimeError):  # another drive, a link loop: the path as given
        return Path(file).as_posix()
    return Path(relative).as_posix()


def live_key(tool: Tool) -> Key | None:
    """``("mcp:ALIAS", the server's own name)`` for a tool of a live MCP server, else ``None``."""
    server = tool.metadata.get("mcp_server") if isinstance(tool.metadata, dict) else None
    if not isinstance(server, dict) or not server.get("name"):
        return None
    return f"mcp:{server['name']}", str(server.get("tool") or tool.name)


def tool_key(kind: str, tool: Tool, where: str = "", base: str | Path | None = None) -> Key:
    """The lockfile key of a tool loaded from a source of ``kind`` (``file``, ``module``, ``live``,
    ``registry``); ``where`` is the registry's namespace, or a file to fall back on; files are
    keyed by their path from ``base`` (see :func:`file_key`)."""
    if kind == "live":
        key = live_key(tool)
        if key is not None:
            return key
    if kind == "registry":
        return f"registry:{where}", tool.name
    file = tool.source.file if tool.source is not None and tool.source.file else where
    return file_key(file or "catalog", base), tool.name


def registry_namespace(source: str) -> str:
    """The namespace a registry source names (its display form when it names none); a namespace
    read over the registry's HTTP API is keyed as the same namespace read from PostgreSQL."""
    from .registry.http_kind import is_http_registry_source, parse_http_registry_source
    from .registry.source import parse_registry_source

    if is_http_registry_source(source):
        return parse_http_registry_source(source).namespace

    parsed = parse_registry_source(source)
    return parsed.namespace or parsed.display


# -- the lockfile -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Pin:
    """One locked tool: its key, its definition (``name`` included) and that definition's digest."""

    source: str
    name: str
    definition: dict[str, Any]
    sha256: str
    #: The entry's line in the lockfile it was read from (``None``: not read from one, or not found).
    line: int | None = None

    @property
    def key(self) -> Key:
        return self.source, self.name


def pin(source: str, tool: Tool, name: str | None = None) -> Pin:
    """A tool's pin under ``source``. Registered secrets are masked first (as the lockfile is
    written), so the digest is that of the definition the lockfile holds: a short URL password
    that also occurs in a description cannot make the written file disagree with its hashes."""
    from .redaction import redact, redact_data

    definition = redact_data(definition_of(tool, name))
    return Pin(redact(source), definition["name"], definition, digest(definition))


@dataclass
class Lockfile:
    """A lockfile's pins by key, and where it was read from (``path``, as the user named it)."""

    path: str
    pins: dict[Key, Pin] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.pins)

    @property
    def base(self) -> Path:
        """The folder file keys are relative to: the lockfile's own."""
        return base_of(self.path)

    def verdict(self, key: Key, sha256: str) -> str:
        """``locked`` (the same definition), ``changed`` or ``unlocked`` (no entry)."""
        found = self.pins.get(key)
        if found is None:
            return "unlocked"
        return "locked" if found.sha256 == sha256 else "changed"

    @classmethod
    def read(cls, path: str | Path) -> Lockfile:
        """Read and check a lockfile; anything wrong is one :class:`UsageError` naming file:line."""
        from .bounded import loads_json, read_bytes

        shown = str(path)
        raw = read_bytes(path, shown, what="the lockfile", error=UsageError, limit=MAX_LOCKFILE_BYTES)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _bad(f"not UTF-8 text ({exc.reason} at byte {exc.start})", shown) from None
        data = loads_json(text, shown, error=UsageError, what="not a lockfile (malformed JSON)")
        return cls(shown, _pins_of(data, shown, text))

    def to_text(self) -> str:
        return lockfile_text(self.pins.values())


def base_of(path: str | Path) -> Path:
    """The folder of a lockfile (what its file keys are relative to)."""
    return Path(path).absolute().parent


def lockfile_text(pins: Iterable[Pin]) -> str:
    """The lockfile of ``pins``: sorted JSON, two-space indents, a final newline."""
    tools: dict[str, dict[str, Any]] = {}
    for p in pins:
        entry = {k: v for k, v in p.definition.items() if k != "name"}
        entry["sha256"] = p.sha256
        tools.setdefault(p.source, {})[p.name] = entry
    body = {"lockfileVersion": LOCKFILE_VERSION, "tools": tools}
    return json.dumps(body, sort_keys=True, indent=2, ensure_ascii=False, default=str) + "\n"


def write_lockfile(path: str | Path, pins: Iterable[Pin]) -> None:
    """Write the lockfile atomically (registered secrets masked; a failure is a one-line error)."""
    from .files import write_text_atomic

    write_text_atomic(path, lockfile_text(pins), what="the lockfile", error=UsageError, field="lockfile")


def _bad(message: str, file: str, line: int | None = None) -> UsageError:
    return UsageError(f"not a usable lockfile: {message}", file=file, line=line)


def _pins_of(data: Any, file: str, text: str) -> dict[Key, Pin]:
    if not isinstance(data, dict):
        raise _bad(f"expected a JSON object, not {_kind(data)}", file)
    unknown = sorted(set(data) - {"lockfileVersion", "tools"})
    if unknown:
        raise _bad(f"unknown key {unknown[0][:80]!r} (expected lockfileVersion and tools)", file)
    version = data.get("lockfileVersion")
    if version != LOCKFILE_VERSION or isinstance(version, bool):
        shown = json.dumps(version)[:40] if version is not None else "missing"
        raise _bad(
            f"lockfileVersion {shown} is not {LOCKFILE_VERSION}, the version this toolsearch reads; "
            "write it again with `toolsearch lock`",
            file,
            _line_of(text, '"lockfileVersion"'),
        )
    tools = data.get("tools")
    if not isinstance(tools, dict):
        raise _bad(f"'tools' must map sources to their tools, not {_kind(tools)}", file)
    lines = _entry_lines(text)
    pins: dict[Key, Pin] = {}
    for source, entries in tools.items():
        if not source or len(source) > MAX_KEY_LENGTH:
            raise _bad(f"a source must be 1 to {MAX_KEY_LENGTH} characters", file, _line_of(text, json.dumps(source)))
        if not isinstance(entries, dict):
            raise _bad(f"source {source[:80]!r} must map tool names to entries, not {_kind(entries)}", file)
        for name, entry in entries.items():
            line = lines.get((source, name))
            if not name or len(name) > MAX_KEY_LENGTH:
                raise _bad(f"a tool name must be 1 to {MAX_KEY_LENGTH} characters", file, line)
            pins[(source, name)] = _pin_of(source, name, entry, file, line)
    return pins


def _pin_of(source: str, name: str, entry: Any, file: str, line: int | None) -> Pin:
    where = f"{source[:80]!r} tool {name[:80]!r}"
    if not isinstance(entry, dict):
        raise _bad(f"the entry of {where} must be an object, not {_kind(entry)}", file, line)
    unknown = sorted(set(entry) - _ENTRY_KEYS)
    if unknown:
        raise _bad(f"the entry of {where} has an unknown key {unknown[0][:80]!r}", file, line)
    sha = entry.get("sha256")
    if not isinstance(sha, str) or not _SHA256.match(sha):
        raise _bad(f"the entry of {where} needs 'sha256': 64 lower-case hex digits", file, line)
    for key, kind in (("title", str), ("description", str), ("inputSchema", dict), ("annotations", dict)):
        value = entry.get(key)
        required = key in ("description", "inputSchema")
        if (value is None and required) or (value is not None and not isinstance(value, kind)):
            expected = "text" if kind is str else "an object"
            raise _bad(f"the entry of {where}: '{key}' must be {expected}", file, line)
    definition: dict[str, Any] = {"name": name}
    definition.update({k: entry[k] for k in FIELDS if k in entry})
    if digest(definition) != sha:
        raise _bad(
            f"the entry of {where} was edited by hand: its sha256 is not that of its definition; "
            "write the lockfile again with `toolsearch lock`",
            file,
            line,
        )
    return Pin(source, name, definition, sha, line)


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "text", bool: "true/false", type(None): "null"}.get(
        type(value), "a number"
    )


def _line_of(text: str, needle: str) -> int | None:
    at = text.find(needle)
    return None if at < 0 else text.count("\n", 0, at) + 1


_SOURCE_LINE = re.compile(r'^    ("(?:[^"\\]|\\.)*"): \{', re.M)
_TOOL_LINE = re.compile(r'^      ("(?:[^"\\]|\\.)*"): \{', re.M)


def _entry_lines(text: str) -> dict[Key, int]:
    """Each entry's line in a lockfile laid out as :func:`lockfile_text` writes it (entries of a
    file laid out otherwise have no line: their errors name the file alone)."""
    marks = sorted(
        [(m.start(), "source", m.group(1)) for m in _SOURCE_LINE.finditer(text)]
        + [(m.start(), "tool", m.group(1)) for m in _TOOL_LINE.finditer(text)]
    )
    out: dict[Key, int] = {}
    source: str | None = None
    line, at = 1, 0
    for start, kind, quoted in marks:
        line += text.count("\n", at, start)
        at = start
        try:
            value = json.loads(quoted)
        except ValueError:
            continue
        if kind == "source":
            source = value
        elif source is not None:
            out.setdefault((source, value), line)
    return out


# -- what is in a catalog now -----------------------------------------------------------------


def pins_of_files(files: Sequence[LoadedFile], *, strict: bool = True, base: str | Path | None = None) -> list[Pin]:
    """The pins of loaded sources (see :func:`toolsearch_cli.catalog.each_file.load_files`).

    ``strict`` (``toolsearch lock``): a source that failed to load, or two tools under one key
    (two servers with one name, one name twice in a file), is a :class:`UsageError`: a lockfile
    is never written from part of a catalog. Otherwise the first tool of a key wins."""
    out: dict[Key, Pin] = {}
    for loaded in files:
        if loaded.error is not None:
            if strict:
                raise loaded.error
            continue
        for tool, key in keyed_tools(loaded, base):
            if key in out:
                if strict:
                    raise UsageError(_twice(key), file=loaded.file, tool=tool.name)
                continue
            out[key] = pin(key[0], tool, key[1])
    return list(out.values())


def keyed_tools(loaded: LoadedFile, base: str | Path | None = None) -> list[tuple[Tool, Key]]:
    """Each tool of one loaded source with its lockfile key (files keyed from ``base``)."""
    kind = "registry" if loaded.kind in ("registry", "registry-http") else loaded.kind
    where = registry_namespace(loaded.source) if kind == "registry" else loaded.file
    return [(tool, tool_key(kind, tool, where, base)) for tool in loaded.tools]


def _twice(key: Key) -> str:
    source, name = key
    if source.startswith("mcp:"):
        return (
            f"two tools are locked as {name!r} of {source}: two MCP servers share the name "
            f"{source[4:]!r}; give each an alias (alias=mcp+stdio:...)"
        )
    return f"two tools named {name!r} in {source}: a lockfile entry names one tool"


@dataclass
class LockOutcome:
    """What ``toolsearch lock`` wrote: the pins, how many sources they came from, and what changed
    since the lockfile that was there (``None``: there was none)."""

    path: str
    pins: list[Pin]
    sources: int
    since: Changes | None


def lock_sources(sources: SourcesLike, path: str | Path = LOCKFILE_NAME) -> LockOutcome:
    """Load every source (as ``toolsearch lint`` does: files, folders, modules, live servers,
    registries; ``None``: the default catalog) and write the lockfile of all their tools.

    Nothing is written when a source fails to load, or when ``path`` holds something that is not
    a lockfile (a catalog named by mistake is never overwritten)."""
    from .catalog.each_file import load_files

    previous = _previous(path)
    files = load_files(sources)
    pins = pins_of_files(files, base=base_of(path))
    write_lockfile(path, pins)
    since = compare(previous, pins) if previous is not None else None
    return LockOutcome(str(path), sorted(pins, key=lambda p: p.key), len(files), since)


def _previous(path: str | Path) -> Lockfile | None:
    """The lockfile at ``path`` (``None``: none there, or one this version cannot read, which is
    replaced); anything else there is refused."""
    from .bounded import path_problem, read_bytes

    problem = path_problem(path)
    if problem == "no such file":
        return None
    if problem is not None:
        raise UsageError(f"cannot write the lockfile: {problem}", file=str(path), field="output")
    head = read_bytes(path, str(path), what="the lockfile", error=UsageError, limit=MAX_LOCKFILE_BYTES)
    if b'"lockfileVersion"' not in head[:4096]:
        raise UsageError(
            "exists and is not a toolsearch lockfile: not replaced (choose another --output)",
            file=str(path),
            field="output",
        )
    try:
        return Lockfile.read(path)
    except UsageError:
        return None  # a lockfile, but unusable (another version, edited): this run replaces it


# -- comparing --------------------------------------------------------------------------------


@dataclass
class Changes:
    """What differs between a lockfile and the tools now: pins of the current definitions for
    ``added`` and ``changed`` (with the locked pin), and the locked pins of ``removed`` tools."""

    added: list[Pin] = field(default_factory=list)
    changed: list[tuple[Pin, Pin]] = field(default_factory=list)
    removed: list[Pin] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not (self.added or self.changed or self.removed)

    def summary(self) -> str:
        return f"{len(self.added)} added, {len(self.changed)} changed, {len(self.removed)} removed"


def compare(lock: Lockfile, current: Iterable[Pin]) -> Changes:
    """The tools added, changed and removed since ``lock`` (each list in key order)."""
    out = Changes()
    seen: set[Key] = set()
    for now in sorted(current, key=lambda p: p.key):
        seen.add(now.key)
        before = lock.pins.get(now.key)
        if before is None:
            out.added.append(now)
        elif before.sha256 != now.sha256:
            out.changed.append((before, now))
    out.removed = [p for key, p in sorted(lock.pins.items()) if key not in seen]
    return out


def changed_fields(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """The fields (of :data:`FIELDS`) whose values differ."""
    return [f for f in FIELDS if canonical_json(old.get(f)) != canonical_json(new.get(f))]


def diff_definitions(old: dict[str, Any], new: dict[str, Any], limit: int = MAX_DIFF_LINES) -> list[str]:
    """Lines saying what changed between two definitions: text fields as a word diff
    (``[-removed-]{+added+}``, long unchanged runs elided) or, over several lines, a line diff;
    the schema and annotations by JSON path (``inputSchema.properties.notes: added {...}``)."""
    lines: list[str] = []
    for name in changed_fields(old, new):
        before, after = old.get(name), new.get(name)
        if name in ("title", "description"):
            lines += text_diff(name, before, after)
        else:
            found: list[str] = []
            json_changes(before, after, name, found, limit + 1)
            lines += found
    if len(lines) > limit:
        lines = lines[: limit - 1] + [f"... and {len(lines) - limit + 1} more changes"]
    return lines


def text_diff(name: str, before: Any, after: Any) -> list[str]:
    """One field's text change: ``name: ...[-old-]{+new+}...``, or a line diff for multi-line text."""
    if not isinstance(before, str) or not isinstance(after, str):
        if before is None:
            return [f"{name}: added {_value(after)}"]
        if after is None:
            return [f"{name}: removed (was {_value(before)})"]
        return [f"{name}: {_value(before)} -> {_value(after)}"]
    if "\n" in before or "\n" in after:
        import difflib

        out = [f"{name}:"]
        for row in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=1):
            if row.startswith(("---", "+++")):
                continue
            out.append("  " + _cut(row))
        return out
    return [f"{name}: {word_diff(before, after)}"]


_TOKENS = re.compile(r"\s+|[^\s]+")
#: Unchanged tokens kept on each side of a change (the rest of an unchanged run is "...").
_CONTEXT = 10


def word_diff(before: str, after: str) -> str:
    """``before`` turned into ``after`` as ``[-removed-]{+added+}`` marks, as ``git diff --word-diff``
    writes them; unchanged runs longer than the context around a change become ``...``."""
    import difflib

    old, new = _TOKENS.findall(before), _TOKENS.findall(after)
    if len(old) + len(new) > MAX_WORD_DIFF_TOKENS:
        return f"[-{_cut(before)}-]{{+{_cut(after)}+}}"
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    parts: list[str] = []
    codes = matcher.get_opcodes()
    for i, (tag, a0, a1, b0, b1) in enumerate(codes):
        if tag == "equal":
            run = old[a0:a1]
            head = run[:_CONTEXT] if i > 0 else []
            tail = run[-_CONTEXT:] if i < len(codes) - 1 else []
            if len(run) > len(head) + len(tail):
                parts.append("".join(head) + "..." + "".join(tail))
            else:
                parts.append("".join(run))
            continue
        if a1 > a0:
            parts.append(f"[-{''.join(old[a0:a1])}-]")
        if b1 > b0:
            parts.append(f"{{+{''.join(new[b0:b1])}+}}")
    return _cut("".join(parts), 4 * MAX_VALUE_CHARS)


_PLAIN_KEY = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$-]*$")


def json_path(base: str, key: str | int) -> str:
    """``base.key``, ``base["odd key"]`` or ``base[3]``."""
    if isinstance(key, int):
        return f"{base}[{key}]"
    return f"{base}.{key}" if _PLAIN_KEY.match(key) else f"{base}[{json.dumps(key, ensure_ascii=False)}]"


def json_changes(before: Any, after: Any, path: str, out: list[str], limit: int) -> None:
    """Append ``path: added/removed/old -> new`` lines for every difference (stops past ``limit``).
    Walks iteratively: the values come from checked data, but no recursion is trusted with it."""
    stack: list[tuple[Any, Any, str]] = [(before, after, path)]
    while stack and len(out) < limit:
        old, new, where = stack.pop()
        if isinstance(old, dict) and isinstance(new, dict):
            for key in sorted(set(old) | set(new), key=str, reverse=True):
                stack.append((old.get(key, _MISSING), new.get(key, _MISSING), json_path(where, key)))
            continue
        if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
            pairs = list(enumerate(zip(old, new, strict=True)))
            stack.extend((o, n, json_path(where, i)) for i, (o, n) in reversed(pairs))
            continue
        if old is _MISSING:
            out.append(f"{where}: added {_value(new)}")
        elif new is _MISSING:
            out.append(f"{where}: removed (was {_value(old)})")
        elif canonical_json(old) != canonical_json(new):
            out.append(f"{where}: {_value(old)} -> {_value(new)}")


_MISSING: Any = object()


def _value(value: Any) -> str:
    return _cut(json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(", ", ": "), default=str))


def _cut(text: str, width: int = MAX_VALUE_CHARS) -> str:
    if len(text) <= width:
        return text
    half = (width - 3) // 2
    return f"{text[:half]}...{text[-half:]}"


def summary_lines(definition: dict[str, Any]) -> list[str]:
    """What a tool is, in two lines: its description and its parameters (for added/removed tools)."""
    lines = [f"description: {_cut(str(definition.get('description') or ''), 2 * MAX_VALUE_CHARS)}"]
    schema = definition.get("inputSchema")
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if isinstance(properties, dict) and properties:
        names = ", ".join(str(n) for n in list(properties)[:12])
        more = f" and {len(properties) - 12} more" if len(properties) > 12 else ""
        lines.append(f"parameters: {_cut(names + more, 2 * MAX_VALUE_CHARS)}")
    return lines


__all__ = [
    "LOCKFILE_NAME",
    "Changes",
    "Lockfile",
    "Pin",
    "compare",
    "definition_of",
    "diff_definitions",
    "digest",
    "pins_of_files",
    "tool_key",
    "write_lockfile",
]
