"""The gateway's edge: what a client may send before anything reaches the MCP SDK or an upstream.

Streamable HTTP (``serve --http``):

- a request's headers must arrive within ``header_timeout`` seconds of the connection opening
  (or of the previous answer, on a kept-alive connection) and its body within ``body_timeout``:
  a client that trickles them (slowloris) is cut (:func:`guarded_protocol`, :class:`EdgeMiddleware`);
- a body larger than the argument bound (``max_argument_bytes``, plus room for the envelope) is
  refused with 413 before it is read to the end;
- a request carrying the context header more than once is refused (400): where a proxy *appends*
  its header to one a client sent, the first would otherwise win and the client choose its role;
- a JSON body nested deeper than :data:`MAX_NESTING` is answered with a JSON-RPC error;
- ``X-Forwarded-For``/``X-Forwarded-Proto`` are read only from the reverse proxies the operator
  names (``--forwarded-allow-ips``: :mod:`toolsearch_cli.forwarded`, as ``registry serve``):
  uvicorn's own default trusts any local process (and ``$FORWARDED_ALLOW_IPS``);
- bearer tokens (``--tokens FILE``), checked through the SDK's auth support
  (:class:`HashedTokens` is its ``TokenVerifier``): the file holds hashes, never tokens, each
  with the context attributes its holder gets.

Over stdio, a line the SDK's reader cannot parse (nested past its recursion limit, not JSON) got no
answer at all; :func:`answer_unreadable` answers it with a JSON-RPC parse error.

TLS is left to a reverse proxy in front (nginx, Caddy, a cloud load balancer): the gateway speaks
plain HTTP and listens on loopback unless told otherwise.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import UsageError

#: Deeper than this, a request body is answered with an error (the SDK's parser stops near 200
#: levels without a word over stdio; nothing an MCP client sends honestly nests a tenth as deep).
MAX_NESTING = 128
#: Room for the JSON-RPC envelope around a call's arguments, on top of ``max_argument_bytes``.
ENVELOPE_BYTES = 64 * 1024


def rpc_error(code: int, message: str) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}}).encode()


#: A JSON string, unrolled and possessive: one linear pass (a 1 MB body in ~15 ms), no backtracking.
_STRING = re.compile(rb'"[^"\\]*+(?:\\.[^"\\]*+)*+"')


def nesting_depth(body: bytes, limit: int) -> int:
    """How deep the JSON text nests its arrays and objects (strings skipped), counted up to
    ``limit + 1``."""
    text = _STRING.sub(b"", body)
    brackets = text.translate(None, bytes(c for c in range(256) if c not in b"[]{}"))
    depth = deepest = 0
    for c in brackets:
        if c in b"[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limit:
                    break
        else:
            depth -= 1
    return deepest


class EdgeMiddleware:
    """ASGI middleware in front of the SDK's streamable HTTP app (see the module docstring)."""

    def __init__(
        self,
        app: Any,
        *,
        context_header: str | None,
        max_body: int,
        body_timeout: float,
    ) -> None:
        self.app = app
        self.context_header = context_header.lower().encode("latin-1") if context_header else None
        self.max_body = max_body
        self.body_timeout = body_timeout

    async def __call__(self, scope: dict[str, Any], receive: Callable[..., Any], send: Callable[..., Any]) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return
        headers = scope.get("headers") or []
        if self.context_header is not None:
            if sum(1 for key, _ in headers if key.lower() == self.context_header) > 1:
                await _refuse(send, 400, -32600, "the context header is given more than once: refused")
                return
        if scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        declared = next((v for k, v in headers if k.lower() == b"content-length"), None)
        if declared is not None and declared.isdigit() and int(declared) > self.max_body:
            await _refuse(send, 413, -32600, f"the request body is larger than {self.max_body:,} bytes")
            return
        body, problem = await self._read(receive)
        if problem is not None:
            status, message = problem
            await _refuse(send, status, -32600, message)
            return
        if nesting_depth(body, MAX_NESTING) > MAX_NESTING:
            await _refuse(send, 400, -32700, f"Parse error: the message nests deeper than {MAX_NESTING} levels")
            return
        await self.app(scope, _replay(body, receive), send)

    async def _read(self, receive: Callable[..., Any]) -> tuple[bytes, tuple[int, str] | None]:
        import anyio

        chunks: list[bytes] = []
        size = 0
        with anyio.move_on_after(self.body_timeout) as waited:
            while True:
                message = await receive()
                if message.get("type") == "http.disconnect":
                    return b"", (400, "the client went away")
                chunk = message.get("body", b"")
                size += len(chunk)
                if size > self.max_body:
                    return b"", (413, f"the request body is larger than {self.max_body:,} bytes")
                chunks.append(chunk)
                if not message.get("more_body"):
                    break
        if waited.cancelled_caught:
            return b"", (408, f"the request body did not arrive within {self.body_timeout:g} s")
        return b"".join(chunks), None


def _replay(body: bytes, receive: Callable[..., Any]) -> Callable[..., Any]:
    sent = False

    async def replayed() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()  # type: ignore[no-any-return]  # after the body: the disconnect, as the server sends it

    return replayed


async def _refuse(send: Callable[..., Any], status: int, code: int, message: str) -> None:
    body = rpc_error(code, message)
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),  # what is left of a refused request is not read
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def guarded_protocol(header_timeout: float) -> type:
    """uvicorn's h11 protocol with a bound on the time a request's headers take to arrive."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class GuardedH11Protocol(H11Protocol):  # type: ignore[misc]
        _headers_timer: Any = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._arm()

        def _arm(self) -> None:
            self._disarm()
            self._headers_timer = self.loop.call_later(header_timeout, self._headers_late)

        def _disarm(self) -> None:
            if self._headers_timer is not None:
                self._headers_timer.cancel()
                self._headers_timer = None

        def _headers_late(self) -> None:
            self._headers_timer = None
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                self.transport.close()  # no request line and headers in time: the connection is cut

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.conn.their_state is not h11.IDLE:
                self._disarm()  # the headers are in

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if self.conn.their_state is h11.IDLE:
                self._arm()  # kept alive: the next request's headers have the same time

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

    return GuardedH11Protocol


# -- bearer tokens ------------------------------------------------------------------------------

SCRYPT = {"n": 2**14, "r": 8, "p": 1, "dklen": 32}


@dataclass(frozen=True)
class TokenEntry:
    """One line of the tokens file: how the token is hashed, and the context its holder gets."""

    scheme: str  # sha256 | scrypt
    digest: bytes
    salt: bytes
    context: dict[str, str]
    label: str


def hash_token(token: str, scheme: str = "sha256") -> str:
    """A tokens-file hash of ``token`` (``sha256:HEX`` or ``scrypt:SALT_HEX:HEX``)."""
    if scheme == "sha256":
        return "sha256:" + hashlib.sha256(token.encode("utf-8")).hexdigest()
    import os

    salt = os.urandom(16)
    digest = hashlib.scrypt(token.encode("utf-8"), salt=salt, **SCRYPT)  # type: ignore[arg-type]
    return f"scrypt:{salt.hex()}:{digest.hex()}"


def read_tokens(path: str) -> list[TokenEntry]:
    """The tokens file: one token a line, ``HASH [key=value; key=value] [# who]``; blank lines and
    ``#`` comments skipped. A bad line is a one-line error naming the file and line."""
    from .gateway import parse_context_header

    try:
        text = open(path, encoding="utf-8").read()  # noqa: SIM115 - read whole at once
    except OSError as exc:
        raise UsageError(f"cannot read the tokens file: {exc.strerror or exc}", file=path) from None
    entries: list[TokenEntry] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line, _, comment = raw.partition("#")
        line = line.strip()
        if not line:
            continue
        spec, _, rest = line.partition(" ")
        scheme, _, value = spec.partition(":")
        try:
            if scheme == "sha256":
                digest, salt = bytes.fromhex(value), b""
                if len(digest) != 32:
                    raise ValueError
            elif scheme == "scrypt":
                salt_hex, _, digest_hex = value.partition(":")
                salt, digest = bytes.fromhex(salt_hex), bytes.fromhex(digest_hex)
                if not salt or len(digest) != SCRYPT["dklen"]:
                    raise ValueError
            else:
                raise UsageError(
                    f"a token's hash must start with sha256: or scrypt:, not {scheme[:20]!r}", file=path, line=number
                )
        except ValueError:
            raise UsageError(
                f"a malformed {scheme} hash (sha256:64 hex digits, or scrypt:SALT_HEX:64 hex digits)",
                file=path,
                line=number,
            ) from None
        label = comment.strip() or f"line {number}"
        entries.append(TokenEntry(scheme, digest, salt, parse_context_header(rest), label))
    if not entries:
        raise UsageError("the tokens file lists no token: every client would be refused", file=path)
    return entries


@dataclass
class HashedTokens:
    """The SDK's ``TokenVerifier`` over a tokens file: a bearer token is accepted when its hash is
    listed; the access token carries the line's context (``claims["toolsearch_context"]``)."""

    entries: list[TokenEntry]
    #: Tokens already checked, by their SHA-256 (never the token itself): an scrypt check costs
    #: tens of milliseconds, so each token pays it once; refusals are kept too, bounded.
    _known: dict[bytes, TokenEntry | None] = field(default_factory=dict)

    async def verify_token(self, token: str) -> Any:
        from mcp.server.auth.provider import AccessToken

        entry = self.check(token)
        if entry is None:
            return None
        return AccessToken(
            token=token,
            client_id=entry.label,
            scopes=[],
            claims={"toolsearch_context": dict(entry.context)},
        )

    def check(self, token: str) -> TokenEntry | None:
        key = hashlib.sha256(token.encode("utf-8", "replace")).digest()
        if key in self._known:
            return self._known[key]
        found = None
        for entry in self.entries:
            if entry.scheme == "sha256":
                ok = hmac.compare_digest(entry.digest, key)
            else:
                got = hashlib.scrypt(token.encode("utf-8", "replace"), salt=entry.salt, **SCRYPT)  # type: ignore[arg-type]
                ok = hmac.compare_digest(entry.digest, got)
            if ok:
                found = entry
                break
        if len(self._known) > 10_000:
            self._known.clear()
        self._known[key] = found
        return found


def token_context(request: Any) -> dict[str, str] | None:
    """The context of the request's bearer token (``None``: no token checked on this request)."""
    scope = getattr(request, "scope", None)
    user = scope.get("user") if isinstance(scope, dict) else None
    access = getattr(user, "access_token", None)
    claims = getattr(access, "claims", None)
    if isinstance(claims, dict) and isinstance(claims.get("toolsearch_context"), dict):
        return dict(claims["toolsearch_context"])
    return None


# -- stdio ---------------------------------------------------------------------------------------


async def answer_unreadable(read_stream: Any, write_stream: Any, forward: Any) -> None:
    """Relay the SDK's stdio read stream to ``forward``; a line it could not parse (it hands the
    exception over, and the server drops it) is answered with a JSON-RPC parse error instead."""
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    async with forward:
        async for item in read_stream:
            if isinstance(item, Exception):
                error = types.JSONRPCError(
                    jsonrpc="2.0",
                    id=None,
                    error=types.ErrorData(
                        code=-32700, message="Parse error: not a JSON-RPC message, or nested too deeply"
                    ),
                )
                await write_stream.send(SessionMessage(error))
                continue
            await forward.send(item)
