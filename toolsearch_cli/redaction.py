"""Secrets registered once, masked everywhere toolsearch writes.

A secret (the API key's value, the user:password of a URL, a query-string token, an HTTP header
value) is registered where toolsearch learns it (:func:`register`, :func:`register_url`). From
then on :func:`redact` masks it, in every form it may be echoed (as given, JSON-escaped,
percent-encoded, and for URL credentials the base64 of an HTTP Basic ``Authorization``). It is
applied

* to the data a model server sends (so tables, JSON and recordings never hold a secret it echoed),
* by :func:`~toolsearch_cli.files.write_text_atomic` to every file toolsearch writes, and
* by the CLI to its standard output and error (:func:`redacting_streams`), tracebacks included.

:func:`shown_url` is a URL as it may be printed: everything up to the last ``@`` of the
authority (the userinfo) and the query string are masked.

:func:`register_arguments` is the one place where whatever *looks like* a URL with a userinfo part
is found in the command line (and ``$TOOLSEARCH_CATALOG``), however it is mistyped: a scheme in any
case, with ``+driver``, one slash or none after the colon, the colon forgotten (``postgresql//``),
behind an alias with a space (``'my alias=postgresql://…'``) or a ``name=`` prefix. Its userinfo
is registered, so every path that echoes the argument (a "no such file" error, a usage error, a
traceback under ``--debug``) shows ``***`` instead; :func:`mask_userinfo` masks the same parts in
one string (:func:`shown_url` applies it). Query values are not registered there unless their
name says credential: a namespace or a database name is never masked.
"""

from __future__ import annotations

import base64
import contextlib
import json
import re
import sys
from collections.abc import Iterator, Sequence
from typing import Any
from urllib.parse import parse_qsl, quote, unquote

MASK = "***"
#: Shorter values are not masked in free text (masking "ab" everywhere would garble output).
MIN_LENGTH = 4
#: Query parameters whose values are credentials whatever their length.
_SECRET_PARAM = re.compile(r"key|token|secret|pass|auth|sig|cred|session|code", re.I)
#: Other query values are registered when at least this long (tokens are; ``format=json`` is not).
_LONG_QUERY_VALUE = 16
#: Values never worth masking: what toolsearch sends when no key is set.
_NOT_SECRET = frozenset({"no-key"})

#: The scheme of a URL-looking part of a string: two or more characters in any case (``+ . -``
#: allowed), not inside a word, then its separator: ``:`` with up to three slashes, or ``//`` with
#: the colon forgotten.
_SCHEME = re.compile(r"(?<![A-Za-z0-9+.\-])[A-Za-z][A-Za-z0-9+.\-]+(?::/{0,3}|//)")
#: Where a userinfo may be: a run of text without a space, ``?`` or ``#``.
_RUN = re.compile(r"[^\s?#]+")


def _userinfo_spans(text: str) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of each URL-looking userinfo in ``text``: in a run holding an ``@``, from the
    first scheme separator to the run's LAST ``@`` (a password may hold ``@`` or ``/``). Linear in
    the text's length (no pattern scans ahead from every position)."""
    for run in _RUN.finditer(text):
        chunk = run.group()
        at = chunk.rfind("@")
        if at < 0:
            continue
        scheme = _SCHEME.search(chunk, 0, at)
        if scheme is not None and scheme.end() < at:
            yield run.start() + scheme.end(), run.start() + at


_secrets: set[str] = set()
_pattern: re.Pattern[str] | None = None


def register(value: str | None) -> None:
    """Mask ``value`` from now on (values shorter than :data:`MIN_LENGTH` are ignored)."""
    global _pattern
    if not isinstance(value, str) or len(value) < MIN_LENGTH or value in _NOT_SECRET:
        return
    forms = {
        value,
        json.dumps(value)[1:-1],
        json.dumps(value, ensure_ascii=False)[1:-1],
        quote(value, safe=""),
        quote(value, safe=":"),
    }
    new = {f for f in forms if len(f) >= MIN_LENGTH} - _secrets
    if new:
        _secrets.update(new)
        # longest first, so a secret containing another is masked whole
        _pattern = re.compile("|".join(re.escape(s) for s in sorted(_secrets, key=len, reverse=True)))


def _split_url(url: str) -> tuple[str, str, str, str]:
    """``(scheme://, userinfo, rest up to the query, query)``; userinfo runs to the LAST ``@`` before
    the query, so an ``@`` or ``/`` inside a password cannot leave part of it outside."""
    match = re.match(r"^([A-Za-z][A-Za-z0-9+.-]*://)?(.*)$", url, re.S)
    assert match is not None
    scheme, rest = match.group(1) or "", match.group(2)
    before_query, mark, query = rest.partition("?")
    if not mark:
        before_query, mark, query = rest.partition("#")
    userinfo, at, after = before_query.rpartition("@")
    if not at or not scheme:
        return scheme, "", before_query, query
    return scheme, userinfo, after, query


def plain_http_host(url: str) -> str | None:
    """The host a ``http://`` URL (no TLS) points at, unless it is this machine (``localhost``,
    ``*.localhost``, 127.0.0.0/8, ``::1``); ``None`` for https and loopback. A key or token sent
    there crosses the network readable by anyone on the path."""
    scheme, _, rest, _ = _split_url(url.strip())
    if scheme.lower() != "http://":
        return None
    authority = rest.split("/", 1)[0].split("#", 1)[0]
    if authority.startswith("["):  # [IPv6]:port
        host = authority[1:].split("]", 1)[0]
    else:
        host = authority.rsplit(":", 1)[0] if authority.count(":") == 1 else authority
    name = host.lower().rstrip(".")
    if name == "localhost" or name.endswith(".localhost"):
        return None
    import ipaddress

    try:
        address = ipaddress.ip_address(name.split("%", 1)[0])
    except ValueError:
        return host or None
    mapped = getattr(address, "ipv4_mapped", None)
    local = address.is_loopback or address.is_unspecified or (mapped is not None and mapped.is_loopback)
    return None if local else host


def clear_text_warning(url: str, secret: str) -> str | None:
    """The one-line warning for sending ``secret`` (e.g. "the API key ($OPENAI_API_KEY)") to
    ``url`` over plain http to another machine, or ``None`` when it is not sent in the clear.
    Names the host only: never the secret, never the URL's credentials."""
    host = plain_http_host(url)
    if host is None:
        return None
    return (
        f"{secret} will travel to {host} over plain http://, readable by anyone on the network path; "
        "use https:// (plain http is for servers on this machine)"
    )


def _register_userinfo(userinfo: str) -> None:
    """A URL's ``user:password``: both, the password alone, decoded forms, and HTTP Basic's base64."""
    user, colon, password = userinfo.partition(":")
    for raw in (userinfo, password):
        register(raw)
        register(unquote(raw))
    basic = f"{unquote(user)}:{unquote(password)}" if colon else unquote(user)
    register(base64.b64encode(basic.encode("utf-8")).decode("ascii"))


def register_url(url: str | None, *, long_values: bool = True) -> None:
    """Register the credentials a URL carries: its userinfo (and password, and the HTTP Basic
    header made from them) and the values of its query string that look like credentials (named
    so, or, with ``long_values``, of 16 characters or more)."""
    if not url:
        return
    _, userinfo, _, query = _split_url(url)
    if userinfo:
        _register_userinfo(userinfo)
    if query:
        for name, value in parse_qsl(query.split("#", 1)[0], keep_blank_values=False):
            if _SECRET_PARAM.search(name) or (long_values and len(value) >= _LONG_QUERY_VALUE):
                register(value)
                register(quote(value, safe=""))


def register_arguments(arguments: Sequence[str]) -> None:
    """Register the userinfo of every URL-looking part of these arguments, however mistyped (see
    the module docstring), and query values named as credentials; nothing else (a namespace is
    not a secret)."""
    for argument in arguments:
        if not isinstance(argument, str) or "@" not in argument:
            continue
        for start, end in _userinfo_spans(argument):
            userinfo = argument[start:end]
            if argument[start - 1] == ":" and ":" not in userinfo:
                continue  # "mailto:alice@example.com": a name, no password (a "//" URL's user may be a token)
            _register_userinfo(userinfo)
            tail = argument[end:]
            if "?" in tail:
                register_url("x://h" + tail[tail.find("?") :], long_values=False)


def mask_userinfo(text: str) -> str:
    """``text`` with the ``user:password`` of every URL-looking part (see the module docstring) masked."""
    if "@" not in text:
        return text
    parts, done = [], 0
    for start, end in _userinfo_spans(text):
        if ":" not in text[start:end]:
            continue  # a user name alone (or a template's "[user@]"): no password to hide
        parts += [text[done:start], MASK]
        done = end
    return "".join(parts) + text[done:] if parts else text


def shown_url(url: str) -> str:
    """``url`` as it may be printed or recorded: the userinfo (everything up to the last ``@``)
    and the query string, where credentials ride, are masked."""
    scheme, userinfo, rest, query = _split_url(url)
    shown = f"{scheme}{MASK}@{rest}" if userinfo else f"{scheme}{rest}"
    return mask_userinfo(f"{shown}?…" if query and "?" in url else shown)


def redact(text: str) -> str:
    """``text`` with every registered secret replaced by ``***``."""
    if _pattern is None or not text:
        return text
    while True:  # until none is left: masking can join pieces into a secret again ("a" + "***" -> "a***")
        text, count = _pattern.subn(MASK, text)
        if not count:  # ends: each pass shortens the text (secrets are longer than the mask)
            return text


def redact_data(value: Any) -> Any:
    """A copy of JSON-like data (dicts, lists, strings) with every registered secret masked."""
    if _pattern is None:
        return value
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {redact(k) if isinstance(k, str) else k: redact_data(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_data(v) for v in value]
    return value


def active() -> bool:
    """Whether any secret is registered."""
    return _pattern is not None


def forget_all() -> None:
    """Drop every registered secret (for a process that runs several independent commands: tests)."""
    global _pattern
    _secrets.clear()
    _pattern = None


class RedactingStream:
    """A text stream that masks registered secrets in whatever passes through it.

    Text is held back up to the end of the line while a secret is registered, so a secret written
    in several pieces is still masked whole; everything else is the wrapped stream's.
    """

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self._pending = ""

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        if _pattern is None and not self._pending:
            self._stream.write(text)
            return len(text)
        whole = self._pending + text
        cut = whole.rfind("\n") + 1
        self._pending = whole[cut:]
        if cut:
            self._stream.write(redact(whole[:cut]))
        return len(text)

    def flush(self) -> None:
        if self._pending:
            pending, self._pending = self._pending, ""
            self._stream.write(redact(pending))
        self._stream.flush()

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextlib.contextmanager
def redacting_streams() -> Iterator[None]:
    """While inside, ``sys.stdout`` and ``sys.stderr`` mask registered secrets."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = RedactingStream(saved[0]), RedactingStream(saved[1])  # type: ignore[assignment]
    try:
        yield
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        sys.stdout, sys.stderr = saved


__all__ = [
    "MASK",
    "RedactingStream",
    "active",
    "forget_all",
    "redact",
    "redact_data",
    "mask_userinfo",
    "redacting_streams",
    "register",
    "register_arguments",
    "register_url",
    "shown_url",
]
