"""Bounds on everything toolsearch reads as data: size, nesting depth, numbers, and the one strict JSON parse.

Every file or stream read as data goes through :func:`read_bytes` (a size cap, device and FIFO
aware); every JSON text through :func:`loads_json` (no ``NaN``/``Infinity``/``1e999``, no integer
too long for Python to convert, no duplicate key, no nesting deeper than :data:`MAX_DEPTH`); any
other parsed data (YAML, a module's ``TOOLS``) can be checked with :func:`check_depth`. Each
failure is the caller's one-line error class naming file:line.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from .errors import CatalogError, ToolsearchError

#: The largest file (or stream) read as data: a catalog, script, recording, query set, state file.
MAX_INPUT_BYTES = 64 * 1024 * 1024
#: The deepest nesting of lists and mappings accepted in data (real schemas nest a dozen levels).
#: Schema walkers (validation, type mapping, OpenAPI clean-up and ``$ref`` inlining, lint) stop at
#: the same depth: a schema level is at least one data level, so data within this bound never
#: meets a schema bound first.
MAX_DEPTH = 100
#: The most levels of lists and mappings any file format toolsearch writes puts around a tool's
#: parameters, metadata or mock (MCP: ``tools`` -> tool -> ``_meta`` -> ``x-toolsearch`` -> metadata).
EXPORT_WRAPPING = 5
#: The deepest a tool's parameters (or metadata, or mock) may nest, so that every file toolsearch
#: writes of it stays within :data:`MAX_DEPTH` and reads back (``catalog convert``).
TOOL_DATA_DEPTH = MAX_DEPTH - EXPORT_WRAPPING
#: Digits of the longest integer accepted (Python refuses to convert longer ones).
MAX_INT_DIGITS = 4300


def _int_digits_limit() -> int:
    getter = getattr(sys, "get_int_max_str_digits", None)
    limit = getter() if getter else 0
    return limit if limit > 0 else MAX_INT_DIGITS


def path_problem(path: str | Path) -> str | None:
    """Why ``path`` cannot be opened as a file, in words (``None`` when it can be tried):
    a name too long, a symbolic link loop, a missing file, a folder, a named pipe or a socket."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        return _os_reason(exc)
    if stat.S_ISDIR(mode):
        return "is a folder, not a file"
    if stat.S_ISFIFO(mode):
        return "is a named pipe (FIFO), not a regular file"
    if stat.S_ISSOCK(mode):
        return "is a socket, not a regular file"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "is a device, not a regular file"
    return None


def _os_reason(exc: OSError) -> str:
    import errno

    if exc.errno == errno.ENAMETOOLONG:
        return "the file name is too long for the file system"
    if exc.errno == errno.ELOOP:
        return "symbolic link loop (too many levels of symbolic links)"
    if exc.errno == errno.ENOENT:
        return "no such file"
    return exc.strerror or str(exc)


def safe_is_dir(path: str | Path) -> bool:
    """``Path.is_dir`` that answers False, instead of raising, for names too long to look up."""
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def safe_is_file(path: str | Path) -> bool:
    """``Path.is_file`` that answers False, instead of raising, for names too long to look up."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def safe_exists(path: str | Path) -> bool:
    """``Path.exists`` that answers False, instead of raising, for names too long to look up."""
    try:
        os.stat(path)
    except (OSError, ValueError):
        return False
    return True


def read_bytes(
    path: str | Path,
    file: str | None = None,
    *,
    what: str = "",
    error: type[ToolsearchError] = CatalogError,
    limit: int = MAX_INPUT_BYTES,
) -> bytes:
    """The content of ``path``, at most ``limit`` bytes: a bigger file, or an endless device such as
    ``/dev/zero``, raises ``error`` naming ``file`` instead of filling the memory."""
    shown = file if file is not None else str(path)
    reading = f"cannot read {what}" if what else "cannot read"
    try:
        with open(path, "rb") as handle:
            data = handle.read(limit + 1)
    except OSError as exc:
        raise error(f"{reading}: {_os_reason(exc)}", file=shown) from exc
    if len(data) > limit:
        raise error(
            f"{reading}: larger than {limit // (1024 * 1024)} MB (the most toolsearch reads from one file)",
            file=shown,
        )
    return data


# --------------------------------------------------------------------------------------------
# strict JSON


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic garbage collection inside the block (blocks nest). Parsing, unpickling or indexing
    a large catalog creates millions of objects and no garbage cycles; the collector, triggered
    every 700 allocations, walked them all again and again: half the time of unpickling a cached
    100,000-tool catalog (2.3 s -> 1.1 s). On leaving, what the block made is moved to the oldest
    generation (``freeze`` then ``unfreeze``: two list splices), so the first collection after
    it does not walk millions of young objects once more (1.1 s); a full collection still sees
    them, so nothing is kept from the collector for good."""
    import gc

    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.freeze()
            gc.unfreeze()
            gc.enable()


class _Refused(Exception):
    def __init__(self, message: str) -> None:
        self.message = message


class DuplicateKey(Exception):
    """Raised by :func:`unique_keys` for an object with a key twice."""

    def __init__(self, key: str) -> None:
        self.key = key


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json.loads`` hook: an object with a key twice is an error (the standard library would
    silently keep the last value: a tool's name, or the whole tool list)."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKey(key)
            seen.add(key)
    return obj


def _constant(token: str) -> Any:
    raise _Refused(f"{token} is not a JSON number (JSON has no NaN or infinity)")


def _float(token: str) -> float:
    value = float(token)
    if value in (float("inf"), float("-inf")):
        raise _Refused(f"the number {_short(token)} is too large (it would be read as infinity)")
    return value


def _int(token: str) -> int:
    if len(token.lstrip("-")) > _int_digits_limit():
        raise _Refused(f"an integer of {len(token.lstrip('-')):,} digits is too long (at most {_int_digits_limit():,})")
    return int(token)


def _short(text: str, width: int = 24) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


#: Tokens of a JSON text that can be refused, strings skipped: brackets (nesting), numbers, constants.
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]|NaN|-?Infinity|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?', re.S)


def _line_of_offending(text: str) -> int | None:
    """The line of the first token :func:`loads_json` refuses (a constant, a huge number, too deep)."""
    depth = 0
    for match in _TOKEN.finditer(text):
        token = match.group()
        first = token[0]
        if first == '"':
            continue
        if first in "[{":
            depth += 1
            refused = depth > MAX_DEPTH
        elif first in "]}":
            depth -= 1
            refused = False
        else:
            refused = _refuses_number(token)
        if refused:
            return text.count("\n", 0, match.start()) + 1
    return None


def _refuses_number(token: str) -> bool:
    try:
        if token in ("NaN", "Infinity", "-Infinity"):
            _constant(token)
        elif any(c in token for c in ".eE"):
            _float(token)
        else:
            _int(token)
    except _Refused:
        return True
    return False


class JSONRefused(ValueError):
    """Syntactically valid JSON that :func:`strict_json` refuses; ``line`` is where, when known."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


def strict_json(text: str | bytes) -> Any:
    """Parse JSON strictly. A syntax error is ``json.JSONDecodeError``; ``NaN``, ``Infinity``, numbers
    that overflow, integers longer than Python converts, a key twice in one object and nesting
    deeper than :data:`MAX_DEPTH` are :class:`JSONRefused` (both are ``ValueError``\\ s)."""
    import json

    try:
        data = json.loads(
            text, object_pairs_hook=unique_keys, parse_constant=_constant, parse_float=_float, parse_int=_int
        )
    except _Refused as exc:
        raise JSONRefused(
            exc.message,
            _line_of_offending(_as_text(text)),
        ) from None
    except DuplicateKey as exc:
        raise JSONRefused(f"duplicate key {exc.key!r}; JSON readers would silently keep only the last one") from exc
    except RecursionError:
        raise JSONRefused(TOO_DEEP, _line_of_offending(_as_text(text))) from None
    try:
        check_depth(data, None)
    except ToolsearchError:
        raise JSONRefused(TOO_DEEP, _line_of_offending(_as_text(text))) from None
    _no_lone_surrogates(_as_text(text), data)
    return data


def _no_lone_surrogates(text: str, data: Any) -> None:
    """``"\\ud800"`` alone is valid JSON but not text: it could never be printed or written back as
    UTF-8. (A pair, ``"\\ud83d\\ude00"``, is one character and fine.)"""
    import json
    import re

    escape = re.search(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}", text)
    if escape is None:
        return
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        lone = exc.object[exc.start : exc.start + 1].encode("utf-16-be", "surrogatepass").hex()
        where = re.search(rf"\\u{lone}", text, re.IGNORECASE) or escape
        line = text.count("\n", 0, where.start()) + 1
        raise JSONRefused(f"'\\u{lone}' is half of a UTF-16 surrogate pair, not text", line) from None


def _as_text(text: str | bytes) -> str:
    return text if isinstance(text, str) else text.decode("utf-8", "replace")


def loads_json(
    text: str,
    file: str | None,
    *,
    error: type[ToolsearchError] = CatalogError,
    what: str = "malformed JSON",
    duplicate_hint: Callable[[str], tuple[str, int | None]] | None = None,
) -> Any:
    """:func:`strict_json` with its errors raised as ``error`` naming ``file`` and the line; ``what``
    starts the message of a syntax error; ``duplicate_hint(key)`` may give a better message and
    line for a duplicate key."""
    import json

    try:
        return strict_json(text)
    except json.JSONDecodeError as exc:
        raise error(f"{what}: {exc.msg} (column {exc.colno})", file=file, line=exc.lineno) from None
    except JSONRefused as exc:
        duplicate = exc.__cause__
        if isinstance(duplicate, DuplicateKey) and duplicate_hint is not None:
            message, line = duplicate_hint(duplicate.key)
            raise error(
                f"{message}; JSON readers would silently keep only the last one", file=file, line=line
            ) from None
        raise error(exc.message, file=file, line=exc.line) from None


def json_lines(
    text: str, file: str | None, *, error: type[ToolsearchError] = CatalogError, what: str = "malformed JSON line"
) -> list[tuple[Any, int]]:
    """The values of a JSON Lines text with the line of each (blank lines skipped), each parsed by
    :func:`strict_json`; a bad line raises ``error`` naming ``file`` and that line, ``what`` starting
    the message of a syntax error."""
    import json

    items: list[tuple[Any, int]] = []
    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            items.append((strict_json(raw), number))
        except JSONRefused as exc:  # NaN, a huge number, a key twice, too deep
            raise error(exc.message, file=file, line=number) from None
        except json.JSONDecodeError as exc:
            raise error(f"{what}: {exc.msg} (column {exc.colno})", file=file, line=number) from None
    return items


_SIZE = re.compile(r"\s*(\d+)\s*(b|kb|mb|gb)?\s*", re.I)
_UNIT = {"b": 1, "kb": 1024, "mb": 1024**2, "gb": 1024**3}


def parse_size(text: str, option: str, *, error: type[ToolsearchError] | None = None) -> int:
    """``4MB``, ``512KB``, ``100`` (bytes) as bytes (units of 1,024); at least 1 byte. ``option``
    names what was given (``--max-reply-size``, ``$TOOLSEARCH_MCP_MAX_MESSAGE_SIZE``); a bad
    value raises ``error`` (default :class:`~toolsearch_cli.errors.UsageError`)."""
    match = _SIZE.fullmatch(text)
    size = int(match.group(1)) * _UNIT[(match.group(2) or "b").lower()] if match else 0
    if size < 1:
        from .errors import UsageError

        raise (error or UsageError)(
            f"{option} takes a size such as 4MB, 512KB or 1000 (bytes), not {text!r}", field=option
        )
    return size


def size_text(size: int) -> str:
    """``4 MB``, ``512 KB``, ``1,000 bytes``: a size as the ``--max-*-size`` options take it."""
    for unit, scale in (("MB", 1024 * 1024), ("KB", 1024)):
        if size >= scale and size % scale == 0:
            return f"{size // scale} {unit}"
    return f"{size:,} bytes"


# ---------------------------------------------------------------- HTTP reply bodies


class ReplyRefused(Exception):
    """A reply body the HTTP transport stopped reading (raised inside the HTTP client, which the
    SDK wraps in its connection error: :func:`reply_refused` finds it there). ``reason`` completes
    "the server ...", e.g. ``sent a body compressed with 'br' though none was asked for``."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class ReplyTooLarge(ReplyRefused):
    """A reply body over the client's bound."""

    def __init__(self, limit: int, declared: int | None = None) -> None:
        super().__init__(f"sent a reply over {limit} bytes")
        self.limit, self.declared = limit, declared


class ReplyEncodingRefused(ReplyRefused):
    """A body compressed in a way not asked for and not decoded under the bound (``br``, ``zstd``,
    several layers): its decoded size is unknown until decoded."""

    def __init__(self, encoding: str) -> None:
        super().__init__(
            f"sent a body compressed with {encoding[:40]!r} though none was asked for (Accept-Encoding: identity)"
        )
        self.encoding = encoding


#: Compressions decoded under the bound (``zlib`` window bits: 47 reads a gzip or zlib header).
_DECODED = {"gzip": 47, "x-gzip": 47, "deflate": 15}


def _http_module(client_class: type) -> Any:
    """The HTTP library an SDK's client class is built on (``httpx`` or ``httpx2``, whichever the
    installed SDK release uses): the top-level module of its first base class named ``Client``."""
    import importlib

    for cls in client_class.__mro__:
        top = cls.__module__.partition(".")[0]
        if cls.__name__ == "Client" and top.startswith("httpx"):
            return importlib.import_module(top)
    raise TypeError(f"{client_class!r} is not an httpx client")


def bounded_http_client(sdk: Any, limit: int) -> Any:
    """The HTTP client to give a model provider SDK (``openai``, ``anthropic``: any module with a
    ``DefaultHttpxClient``) so that no response body is read past ``limit`` bytes, errors included.

    The bound lives in the client's *transports* (:func:`bound_transports`): every request the SDK
    makes goes through one, whether the SDK streams the body or reads it, on whichever HTTP
    library (``httpx`` or ``httpx2``) its release is built on. A body that declares more
    (Content-Length) is refused unread, one that runs over is refused as it arrives, so memory
    never holds more; a gzip or deflate body is decoded here, counted as it inflates (a gzip bomb
    stops at the bound). The SDK's own client defaults (timeouts, keep-alive, proxies from the
    environment) are kept. The refusal reaches the SDK as the HTTP library's own ``RequestError``
    (what a failed read raises, which every SDK release reports as its connection error), caused
    by the :class:`ReplyRefused` that :func:`reply_refused` finds. (MCP servers have theirs:
    ``catalog.mcp_transport.mcp_http_client``.)"""
    client = sdk.DefaultHttpxClient()
    return bound_transports(client, limit)


def bound_transports(client: Any, limit: int) -> Any:
    """``client`` (an ``httpx`` or ``httpx2`` ``Client``) with each of its transports (the default
    one and every mounted one, e.g. a proxy's) wrapped in a :class:`BodyBound` reader; returned.

    A client without the attributes (``_transport``, ``_mounts``) that every ``httpx`` release
    since 0.18 has is replaced by a new one on a bounded plain transport: bounded always."""
    http = _http_module(type(client))
    base = http.BaseTransport

    class BoundedStream(http.SyncByteStream):  # type: ignore[misc,name-defined]
        def __init__(self, inner: Any, bound: BodyBound, wbits: int | None, request: Any) -> None:
            self._inner, self._bound, self._wbits, self._request = inner, bound, wbits, request

        def __iter__(self) -> Iterator[bytes]:
            try:
                yield from self._read()
            except ReplyRefused as refused:  # what the library raises for a failed read: every SDK reports it
                raise http.RequestError(refused.reason, request=self._request) from refused

        def _read(self) -> Iterator[bytes]:
            bound, wbits = self._bound, self._wbits
            if wbits is None:
                for chunk in self._inner:
                    bound.add(len(chunk))
                    yield chunk
                return
            raw = BodyBound(bound.limit)  # the compressed bytes are bounded too
            inflate = _Inflater(wbits)
            for chunk in self._inner:
                raw.add(len(chunk))
                out = inflate.feed(chunk, bound.limit - bound.seen + 1)
                bound.add(len(out))
                if out:
                    yield out

        def close(self) -> None:
            close = getattr(self._inner, "close", None)
            if callable(close):
                close()

    class BoundedTransport(base):  # type: ignore[misc,valid-type]
        def __init__(self, inner: Any) -> None:
            self._inner = inner

        def handle_request(self, request: Any) -> Any:
            # the decoded size is then the size that arrives: compression is decoded here, not asked for
            request.headers["Accept-Encoding"] = "identity"
            response = self._inner.handle_request(request)
            try:
                encoding = response.headers.get("content-encoding", "").strip().lower()
                wbits = None if encoding in ("", "identity") else _DECODED.get(encoding)
                if encoding not in ("", "identity") and wbits is None:
                    raise ReplyEncodingRefused(encoding)
                bound = BodyBound(limit, None if wbits else response.headers.get("content-length"))
            except ReplyRefused as refused:
                response.close()
                raise http.RequestError(refused.reason, request=request) from refused
            headers = [
                (k, v)
                for k, v in response.headers.multi_items()
                if wbits is None or k.lower() not in ("content-encoding", "content-length")
            ]
            return http.Response(
                response.status_code,
                headers=headers,
                stream=BoundedStream(response.stream, bound, wbits, request),
                extensions=response.extensions,
            )

        def close(self) -> None:
            self._inner.close()

    transport = getattr(client, "_transport", None)
    mounts = getattr(client, "_mounts", None)
    if not isinstance(transport, base) or not isinstance(mounts, dict):
        with contextlib.suppress(Exception):  # best effort: it has sent nothing
            client.close()
        return http.Client(transport=BoundedTransport(http.HTTPTransport()))
    client._transport = BoundedTransport(transport)
    client._mounts = {
        pattern: BoundedTransport(mounted) if isinstance(mounted, base) else mounted
        for pattern, mounted in mounts.items()
    }
    return client


class _Inflater:
    """A gzip/zlib (``wbits`` 47) or deflate (15: zlib-wrapped, else raw, as servers send both)
    body inflated a chunk at a time, never more than asked for."""

    def __init__(self, wbits: int) -> None:
        import zlib

        self._zlib, self._wbits = zlib, wbits
        self._decoder = zlib.decompressobj(wbits)
        self._first = True

    def feed(self, chunk: bytes, most: int) -> bytes:
        """The bytes ``chunk`` inflates to, at most ``most`` (more would be over the bound)."""
        zlib = self._zlib
        try:
            try:
                out = self._decoder.decompress(chunk, most)
            except zlib.error:
                if not (self._first and self._wbits == 15):
                    raise
                self._decoder = zlib.decompressobj(-15)  # a raw deflate stream
                out = self._decoder.decompress(chunk, most)
        except zlib.error as exc:
            raise ReplyRefused(f"sent a compressed body that does not decode ({exc})") from None
        self._first = False
        return out


def reply_refused(exc: BaseException) -> ReplyRefused | None:
    """The :class:`ReplyRefused` behind an SDK error (the SDK wraps what its client raises)."""
    inner: BaseException | None = exc
    for _ in range(20):
        if inner is None:
            return None
        if isinstance(inner, ReplyRefused):
            return inner
        inner = inner.__cause__ or inner.__context__
    return None


class BodyBound:
    """The bytes of one body (or message) counted against ``limit`` as they arrive: a body that
    declares more (its Content-Length) is refused unread, one that runs over is refused there."""

    __slots__ = ("limit", "seen")

    def __init__(self, limit: int, declared: str | None = None) -> None:
        self.limit, self.seen = limit, 0
        if declared is not None and declared.strip().isdigit() and int(declared) > limit:
            raise ReplyTooLarge(limit, int(declared))

    def add(self, size: int) -> None:
        """Count ``size`` more bytes; :class:`ReplyTooLarge` once the body is over the bound."""
        self.seen += size
        if self.seen > self.limit:
            raise ReplyTooLarge(self.limit)


def reply_too_large(exc: BaseException) -> ReplyTooLarge | None:
    """The :class:`ReplyTooLarge` behind an SDK error, if that is what ended it."""
    refused = reply_refused(exc)
    return refused if isinstance(refused, ReplyTooLarge) else None


#: The message of data nested deeper than :data:`MAX_DEPTH`.
TOO_DEEP = f"nested deeper than {MAX_DEPTH} levels of lists and mappings"


def _too_deep(error: type[ToolsearchError], file: str | None, line: int | None) -> ToolsearchError:
    return error(TOO_DEEP, file=file, line=line)


def check_depth(
    data: Any,
    file: str | None,
    *,
    error: type[ToolsearchError] = CatalogError,
    limit: int = MAX_DEPTH,
    line_of: Callable[[], int | None] | None = None,
) -> None:
    """Refuse data nested deeper than ``limit`` levels (walked without recursion: the data may be a
    100,000-level list), naming the line when ``line_of`` (or a marked node's ``line``) tells it."""
    node = too_deep_node(data, limit)
    if node is not None:
        line = getattr(node, "line", None) or (line_of() if line_of else None)
        raise _too_deep(error, file, line)


def too_deep_node(data: Any, limit: int = MAX_DEPTH) -> Any:
    """The first list or mapping found below ``limit`` levels of ``data`` (``None``: none is).

    Walked without recursion, a level at a time (4x faster than a stack of (node, depth) pairs: a
    100,000-tool catalog has 1.5 million lists and mappings). Shared lists and mappings are walked
    each time they are met: parsed data shares none, and the one source of shared nodes, OpenAPI's
    inlined ``$ref`` targets, is bounded by its expanded size at load."""
    level = [data] if isinstance(data, dict | list | tuple) else []
    depth = 1
    scalars = _SCALARS
    while level:
        if depth > limit:
            return level[0]
        below: list[Any] = []
        add = below.append
        for node in level:
            for child in node.values() if isinstance(node, dict) else node:
                # most children are strings and numbers: one set look-up each (2.5x faster than
                # the isinstance of a union: 0.28 vs 0.71 s for a 100,000-tool catalog)
                if type(child) not in scalars and isinstance(child, (dict, list, tuple)):
                    add(child)
        level = below
        depth += 1
    return None


#: Types :func:`too_deep_node` skips at once (their exact types: a subclass is still checked).
_SCALARS = frozenset({str, int, float, bool, type(None)})
