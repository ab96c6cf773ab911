"""What a live MCP server source says, read from its text alone: ``[alias=]mcp+stdio:CMD`` and
``[alias=]mcp+http(s)://...``, its parts and how it may be shown (no credentials). Nothing here
connects to anything: the client (:mod:`..mcp_client`), the live cache (:mod:`..live_cache`) and
the source kind that loads through them (:mod:`.live`) build on this module.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from ...errors import CatalogError
from ...redaction import register_url, shown_url

_LIVE = re.compile(r"^(?:(?P<alias>[A-Za-z][A-Za-z0-9_-]*)=)?(?P<target>mcp\+(?:stdio:|https?://).*)$", re.S)


@dataclass(frozen=True)
class LiveSource:
    """A parsed ``[alias=]mcp+...`` source: its parts (what :mod:`.live`'s :class:`~.live.LiveServer`,
    the :class:`~.base.Source`, loads through the client)."""

    kind: ClassVar[str] = "live"
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

    @property
    def shown(self) -> str:
        """The source as messages show it: its alias, and no credentials from the URL."""
        return f"{self.alias}={self.display}" if self.alias else self.display

    @property
    def runs_code(self) -> str | None:
        return f"starts the program {self.command[0]!r}" if self.transport == "stdio" else None

    def cache_files(self) -> list[Path]:
        return []  # a server's answer is cached by :mod:`..live_cache`, not with the files


def shown_source(source: str) -> str:
    """A source as it may be shown: live HTTP sources lose credentials (userinfo, query string)."""
    if not is_live_source(source):
        return source
    return parse_live_source(source).shown


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


def joins(previous: str, part: str) -> bool:
    """Whether a piece of ``$TOOLSEARCH_CATALOG`` cut at ``:`` continues a live source."""
    head = previous.rpartition("=")[2] if _LIVE_ALIAS.match(previous) else previous
    if head in ("mcp+stdio", "mcp+http", "mcp+https"):
        return True  # "mcp+stdio" + "python x.py", "mcp+http" + "//host"
    if head.startswith(("mcp+http://", "mcp+https://")) and "/" not in head.split("://", 1)[1]:
        return part[:1].isdigit()  # "mcp+http://host" + "8000/mcp"
    return False


_LIVE_ALIAS = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*=mcp\+")

__all__ = ["LiveSource", "is_live_source", "joins", "parse_live_source", "shown_source"]
