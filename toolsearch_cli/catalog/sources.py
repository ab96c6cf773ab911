"""What a catalog source names, read from its text alone: a live MCP server (``[alias=]mcp+stdio:CMD``,
``[alias=]mcp+http(s)://...``) and its parts, how a source may be shown (no credentials), and how
``$TOOLSEARCH_CATALOG`` splits into sources. Nothing here connects to anything: the client
(:mod:`.mcp_client`) and the live cache (:mod:`.live_cache`) both build on this module.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import CatalogError
from ..redaction import register_url, shown_url

_LIVE = re.compile(r"^(?:(?P<alias>[A-Za-z][A-Za-z0-9_-]*)=)?(?P<target>mcp\+(?:stdio:|https?://).*)$", re.S)


@dataclass(frozen=True)
class LiveSource:
    """A parsed ``[alias=]mcp+...`` source."""

    text: str
    alias: str | None
    transport: str  # "stdio" or "http"
    command: list[str]
    url: str

    @property
    def display(self) -> str:
        """The source as shown in messages: no alias, and no credentials from the URL."""
        text = self.text if self.alias is None else self.text[len(self.alias) + 1 :]
        if self.transport == "http":
            text = "mcp+" + shown_url(text[len("mcp+") :])
        return text


def shown_source(source: str) -> str:
    """A source as it may be shown: live HTTP sources lose credentials (userinfo, query string)."""
    if not is_live_source(source):
        return source
    live = parse_live_source(source)
    return f"{live.alias}={live.display}" if live.alias else live.display


def is_live_source(source: str) -> bool:
    """Whether ``source`` names a live MCP server."""
    return bool(_LIVE.match(source.strip()))


def parse_live_source(source: str) -> LiveSource:
    """Split ``[alias=]mcp+stdio:command args`` or ``[alias=]mcp+http://...`` into its parts."""
    match = _LIVE.match(source.strip())
    if not match:
        raise CatalogError("not an MCP server source; expected mcp+stdio:COMMAND or mcp+http://HOST/PATH", file=source)
    target = match.group("target")
    if target.startswith("mcp+stdio:"):
        import shlex

        try:
            command = shlex.split(target[len("mcp+stdio:") :])
        except ValueError as exc:
            raise CatalogError(f"cannot split the server command: {exc}", file=target) from exc
        if not command:
            raise CatalogError("no server command after 'mcp+stdio:'", file=target)
        return LiveSource(source.strip(), match.group("alias"), "stdio", command, "")
    register_url(target[len("mcp+") :])  # masked wherever it might be printed or written
    return LiveSource(source.strip(), match.group("alias"), "http", [], target[len("mcp+") :])


def split_env_sources(value: str, separator: str) -> list[str]:
    """Split ``$TOOLSEARCH_CATALOG`` on ``separator`` (``:``) without cutting MCP sources apart.

    ``mcp+stdio:CMD`` keeps the part after ``mcp+stdio:`` (so the command itself cannot contain
    the separator) and ``mcp+http://host:port/path`` keeps its scheme and port.
    """
    parts = value.split(separator)
    out: list[str] = []
    for part in parts:
        if out and separator == ":" and _continues(out[-1], part):
            out[-1] += ":" + part
        else:
            out.append(part)
    return out


def _continues(previous: str, part: str) -> bool:
    head = previous.rpartition("=")[2] if _LIVE_ALIAS.match(previous) else previous
    registry = previous.partition("=")[2] if _REGISTRY_ALIAS.match(previous) else previous
    if registry in ("postgresql", "postgres"):
        return True  # "postgresql" + "//host"
    if registry.startswith(("postgresql://", "postgres://")) and "/" not in registry.split("://", 1)[1]:
        return True  # "postgresql://user" + "password@host" + "5432/db": the authority runs to its "/"
    if head in ("mcp+stdio", "mcp+http", "mcp+https"):
        return True  # "mcp+stdio" + "python x.py", "mcp+http" + "//host"
    if head.startswith(("mcp+http://", "mcp+https://")) and "/" not in head.split("://", 1)[1]:
        return part[:1].isdigit()  # "mcp+http://host" + "8000/mcp"
    return False


_LIVE_ALIAS = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*=mcp\+")
_REGISTRY_ALIAS = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*=postgres")
