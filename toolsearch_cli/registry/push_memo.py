"""What a push remembers of a catalog file, so the next push reads only the tools that changed.

``toolsearch catalog push`` of a 100,000-tool file spent its time parsing and validating every
tool (2.1 s) and encoding and hashing every tool's row (1.6 s), although a push after an edit
writes only the few rows that changed. For a JSON catalog file in toolsearch's own format (one
file, ``{"tools": [...], ...}``), each push now leaves a *memo* in the user's cache folder: for
each tool, the SHA-256 of its bytes in the file, and the tool's name, its row's content hash
(:func:`~.codec.encode_tool`) and its ``resident`` flag. The next push of the file:

1. finds each tool's bytes with the standard library's JSON scanner (C) without building a tool
   (:func:`scan`), and hashes them;
2. takes a tool whose bytes the memo knows as the row the memo names (its name must match);
3. loads only the other tools, through the ordinary loader, from the file's text with every other
   tool left out (their lines kept as blank lines, so a message names the right line);
4. checks what spans tools (unique names, reserved names, resident and group tools) as a
   :class:`~toolsearch_cli.model.Catalog` does.

The memo holds only what the file's bytes determine: it is keyed by the file, its text outside
the tools (``category``, ``requires``, ``resident``, ``groups``), the format asked for and this
build of toolsearch (the catalog cache's fingerprint), and authenticated with the catalog cache's
key (HMAC-SHA256, :mod:`toolsearch_cli.catalog.cache`): an entry another user or a corruption
changed is not used. Rows a push writes are always encoded from the tools just loaded, never
taken from the memo, so the memo can only make a push skip tools the registry already holds
with the memo's hash; a tool the registry holds differently is loaded (see
:class:`NeedsBodies`). Anything unexpected (YAML, several sources, a load warning, an error, a
file that is no ``{"tools": [...]}`` mapping) takes the ordinary path, which reports it.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..model import Catalog, Tool, ToolGroup

MAGIC = b"toolsearch-push-memo/1\n"
#: Memos kept (one per catalog file pushed, the newest).
MAX_MEMOS = 8
_WS = re.compile(r"[ \t\n\r]*")


@dataclass
class Scanned:
    """A JSON catalog file's text cut into its tools' spans (``[start, end)``), with what was parsed
    on the way: the values outside ``tools`` (``head``), each tool's name (``None``: none given)."""

    text: str
    head: dict[str, Any]
    spans: list[tuple[int, int]]
    names: list[Any]
    opening: int  # the index of the tools list's ``[``
    closing: int  # the index of its ``]``
    provider_items: bool  # some item has an OpenAI / Anthropic / MCP tool's shape
    resident_flags: list[bool] = field(default_factory=list)

    def head_digest(self) -> str:
        """SHA-256 of the text outside the tools list (what every tool's row may depend on)."""
        h = hashlib.sha256(self.text[: self.opening + 1].encode("utf-8"))
        h.update(b"\0")
        h.update(self.text[self.closing :].encode("utf-8"))
        return h.hexdigest()

    def span_digests(self) -> list[str]:
        text = self.text
        return [hashlib.sha256(text[a:b].encode("utf-8")).hexdigest() for a, b in self.spans]


def scan(text: str) -> Scanned | None:
    """The spans of the tools of ``{"tools": [...], ...}`` JSON text, or ``None`` when the text has
    another shape or is not plain JSON (a duplicate top-level key, text after the object): the
    ordinary load then decides what it is."""
    from ..catalog.formats import _item_format

    scan_once = json.JSONDecoder().scan_once  # type: ignore[attr-defined]
    try:
        i = _WS.match(text, 0).end()  # type: ignore[union-attr]
        if text[i] != "{":
            return None
        i += 1
        head: dict[str, Any] = {}
        found: Scanned | None = None
        while True:
            i = _WS.match(text, i).end()  # type: ignore[union-attr]
            if text[i] == "}" and not head and found is None:
                return None
            if text[i] != '"':
                return None
            key, i = scan_once(text, i)
            if key in head or (key == "tools" and found is not None):
                return None  # the strict loader refuses it: let it say so
            i = _WS.match(text, i).end()  # type: ignore[union-attr]
            if text[i] != ":":
                return None
            i = _WS.match(text, i + 1).end()  # type: ignore[union-attr]
            if key == "tools":
                if text[i] != "[":
                    return None
                found = Scanned(text, head, [], [], i, -1, False)
                i = _tools(text, i + 1, found, scan_once, _item_format)
                if i < 0:
                    return None
            else:
                head[key], i = scan_once(text, i)
            i = _WS.match(text, i).end()  # type: ignore[union-attr]
            if text[i] == ",":
                i += 1
                continue
            if text[i] != "}":
                return None
            i += 1
            break
        if _WS.match(text, i).end() != len(text):  # type: ignore[union-attr]
            return None
    except (StopIteration, ValueError, IndexError, RecursionError):
        return None
    if found is None:
        return None
    found.head = head
    return found


def _tools(text: str, i: int, found: Scanned, scan_once: Any, item_format: Any) -> int:
    """Scan the items of the tools list from ``i`` (just after ``[``); the index after ``]``, or -1."""
    i = _WS.match(text, i).end()  # type: ignore[union-attr]
    if text[i] == "]":
        found.closing = i
        return i + 1
    while True:
        item, end = scan_once(text, i)
        found.spans.append((i, end))
        is_dict = isinstance(item, dict)
        found.names.append(item.get("name") if is_dict else None)
        found.resident_flags.append(bool(is_dict and item.get("resident") is True))
        if not found.provider_items and item_format(item) is not None:
            found.provider_items = True
        i = _WS.match(text, end).end()  # type: ignore[union-attr]
        if text[i] == "]":
            found.closing = i
            return i + 1
        if text[i] != ",":
            return -1
        i = _WS.match(text, i + 1).end()  # type: ignore[union-attr]


def own_format(scanned: Scanned, catalog_format: str | None) -> bool:
    """Whether the file loads as toolsearch's own format (what ``--catalog-format`` or detection
    says: see :func:`~toolsearch_cli.catalog.formats.detect_format`)."""
    if catalog_format not in (None, "auto"):
        return catalog_format == "yaml"
    head = scanned.head
    if "openapi" in head or "swagger" in head:
        return False
    return not scanned.provider_items and not (scanned.spans and "model" in head)


# ---------------------------------------------------------------------------------------------
# the memo on disk


def _context(path: Path, display: str | None, catalog_format: str | None, head_digest: str) -> str:
    from .._version import __version__
    from ..catalog import cache

    h = hashlib.sha256(MAGIC)
    h.update(f"{__version__}\n{sys.version}\n{cache._stemmer_version()}\n".encode())
    h.update(cache._package_fingerprint())
    h.update(f"{path.resolve()}\n{display}\n{catalog_format}\n{head_digest}\n".encode())
    return h.hexdigest()


def _memo_path(folder: Path, path: Path, display: str | None, catalog_format: str | None) -> Path:
    name = hashlib.sha256(f"{path.resolve()}\n{display}\n{catalog_format}".encode()).hexdigest()
    return folder / f"push-{name}.memo"


def load(path: Path, display: str | None, catalog_format: str | None, head_digest: str) -> dict[str, list[Any]]:
    """The memo of this file (span digest → ``[name, row hash, resident]``), empty when there is
    none for this context or it is not authentic."""
    from .. import cachedir
    from ..catalog import cache

    if not cachedir.enabled():
        return {}
    folder = cachedir.trusted_folder(create=False)
    secret = cache._secret(folder) if folder is not None else None
    if folder is None or secret is None:
        return {}
    try:
        data = _memo_path(folder, path, display, catalog_format).read_bytes()
    except OSError:
        return {}
    size = len(MAGIC) + hashlib.sha256().digest_size
    if not data.startswith(MAGIC) or len(data) < size:
        return {}
    body = data[size:]
    if not hmac.compare_digest(data[len(MAGIC) : size], hmac.new(secret, body, hashlib.sha256).digest()):
        return {}  # not written by this user's toolsearch
    try:
        memo = json.loads(body)
    except ValueError:
        return {}
    if not isinstance(memo, dict) or memo.get("context") != _context(path, display, catalog_format, head_digest):
        return {}
    tools = memo.get("tools")
    return tools if isinstance(tools, dict) else {}


def store(
    path: Path, display: str | None, catalog_format: str | None, head_digest: str, tools: dict[str, list[Any]]
) -> bool:
    """Write the memo of this file (atomically, authenticated); ``False`` if it could not."""
    from .. import cachedir
    from ..catalog import cache

    if not cachedir.enabled():
        return False
    try:
        folder = cachedir.trusted_folder(create=True)
        secret = cache._secret(folder) if folder is not None else None
        if folder is None or secret is None:
            return False
        memo = {"context": _context(path, display, catalog_format, head_digest), "tools": tools}
        body = json.dumps(memo, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        target = _memo_path(folder, path, display, catalog_format)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".memo")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(MAGIC)
                f.write(hmac.new(secret, body, hashlib.sha256).digest())
                f.write(body)
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        cachedir.prune(folder, "push-*.memo", MAX_MEMOS, newest=target)
    except OSError:
        return False
    return True


# ---------------------------------------------------------------------------------------------
# a push's rows


@dataclass
class Rows:
    """What a push publishes: every tool's ``(name, body, hash)`` in order (``body`` ``None``: a
    tool taken from the memo, unread), the resident names and groups, and the tools that were
    loaded (for messages naming where a tool was defined)."""

    encoded: list[tuple[str, str | None, str]]
    resident: list[str]
    groups: list[ToolGroup]
    tools: Sequence[Tool]
    #: How many tools were loaded and encoded (the rest came from the memo).
    read: int = 0

    @classmethod
    def of(cls, catalog: Catalog) -> Rows:
        """Every tool of a loaded catalog encoded (the ordinary path)."""
        from . import codec

        encoded: list[tuple[str, str | None, str]] = [(t.name, *codec.encode_tool(t)) for t in catalog.tools]
        return cls(encoded, list(catalog.resident), list(catalog.groups), catalog.tools, len(encoded))


class NeedsBodies(Exception):  # noqa: N818 - a signal inside the package, never shown
    """A push must write rows the memo stood in for (the registry holds them otherwise): the caller
    loads the catalog and pushes again (raised before anything is written)."""


@dataclass
class FileMemo:
    """A push's view of one JSON catalog file: its scan and its memo (see :func:`rows_for`)."""

    path: Path
    display: str | None
    catalog_format: str | None
    scanned: Scanned
    digests: list[str]
    head_digest: str
    known: dict[str, list[Any]]

    @classmethod
    def open(cls, path: Path, display: str | None, catalog_format: str | None) -> FileMemo | None:
        """The file scanned, with its memo (``None``: not a file this applies to)."""
        from ..errors import ToolsearchError
        from ..files import read_text

        if path.suffix.lower() != ".json" or catalog_format not in (None, "auto", "yaml"):
            return None
        try:
            text = read_text(path, display or str(path), encoding="utf-8-sig")
        except ToolsearchError:
            return None
        scanned = scan(text)
        if scanned is None or not own_format(scanned, catalog_format):
            return None
        head_digest = scanned.head_digest()
        known = load(path, display, catalog_format, head_digest)
        return cls(path, display, catalog_format, scanned, scanned.span_digests(), head_digest, known)

    def remember(self, rows: Rows) -> bool:
        """Write the memo from a push's rows (which must be this file's tools, in order)."""
        names = self.scanned.names
        if len(rows.encoded) != len(names) or any(n != e[0] for n, e in zip(names, rows.encoded, strict=True)):
            return False
        flags = self.scanned.resident_flags
        tools = {d: [name, h, flag] for d, (name, _, h), flag in zip(self.digests, rows.encoded, flags, strict=True)}
        if tools == self.known:
            return True
        return store(self.path, self.display, self.catalog_format, self.head_digest, tools)

    def rows(self, read: frozenset[str] = frozenset()) -> Rows | None:
        """The push's rows with the tools the memo knows left unread (except those named in
        ``read``); ``None`` when the memo knows none of them, or anything is unusual (the ordinary
        load then runs and reports it)."""
        from ..catalog.document import parse_document
        from ..catalog.formats import load_document
        from ..catalog.lenient import collecting
        from ..errors import ToolsearchError
        from . import codec

        scanned, known = self.scanned, self.known
        hits: list[list[Any] | None] = []
        for digest, name in zip(self.digests, scanned.names, strict=True):
            entry = known.get(digest)
            ok = isinstance(entry, list) and len(entry) == 3 and entry[0] == name and name not in read
            ok = ok and isinstance(name, str) and isinstance(entry[1], str) and isinstance(entry[2], bool)  # type: ignore[index]
            hits.append(entry if ok else None)
        missing = [i for i, hit in enumerate(hits) if hit is None]
        if len(missing) == len(hits):
            return None
        file = self.display or str(self.path)
        try:
            with collecting(True) as found:  # a warning: the ordinary load shows it
                doc = parse_document(self._without(missing, keep=True), file, json_hint=True)
                loaded = load_document(doc, "yaml")
            if found or loaded.warnings or len(loaded.tools) != len(missing):
                return None
            Catalog(tools=loaded.tools)  # reserved and duplicate names among them
        except ToolsearchError:
            return None
        tools = iter(loaded.tools)
        encoded: list[tuple[str, str | None, str]] = []
        flagged: list[bool] = []
        resident_read = set(loaded.resident)
        for i, hit in enumerate(hits):
            if hit is None:
                tool = next(tools)
                if tool.name != scanned.names[i]:
                    return None
                encoded.append((tool.name, *codec.encode_tool(tool)))
                flagged.append(tool.name in resident_read)
            else:
                encoded.append((hit[0], None, hit[1]))
                flagged.append(hit[2])
        return self._checked(encoded, flagged, list(loaded.groups), loaded.tools)

    def _checked(
        self,
        encoded: list[tuple[str, str | None, str]],
        flagged: list[bool],
        groups: list[ToolGroup],
        tools: Sequence[Tool],
    ) -> Rows | None:
        """The rows, when what spans tools holds as a :class:`Catalog` checks it; else ``None``."""
        from ..model import RESERVED_NAMES

        names = [n for n, _, _ in encoded]
        known = set(names)
        if len(known) != len(names) or not known.isdisjoint(RESERVED_NAMES):
            return None
        head_resident = self.scanned.head.get("resident", [])
        resident = list(head_resident) if isinstance(head_resident, list) else []
        present = set(resident)
        for name, flag in zip(names, flagged, strict=True):
            if flag and name not in present:
                resident.append(name)
                present.add(name)
        if not all(isinstance(n, str) and n in known for n in resident):
            return None
        if any(n not in known for g in groups for n in g.tools):
            return None
        return Rows(encoded, resident, list(groups), tools, len(tools))

    def _without(self, missing: list[int], *, keep: bool) -> str:
        """The file's text with only the tools at ``missing`` in its list; every other tool's lines
        kept as blank lines, so each tool left stays on its line."""
        text, spans = self.scanned.text, self.scanned.spans
        parts = [text[: self.scanned.opening + 1]]
        at = self.scanned.opening + 1
        for k, i in enumerate(missing):
            start, end = spans[i]
            parts.append(("," if k else "") + "\n" * text.count("\n", at, start))
            parts.append(text[start:end])
            at = end
        parts.append("\n" * text.count("\n", at, self.scanned.closing))
        parts.append(text[self.scanned.closing :])
        return "".join(parts)


__all__ = ["MAX_MEMOS", "FileMemo", "NeedsBodies", "Rows", "Scanned", "scan"]
