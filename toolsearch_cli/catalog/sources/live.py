"""The live MCP server source kind: ``[alias=]mcp+stdio:CMD`` and ``[alias=]mcp+http(s)://...``
(the syntax is :mod:`.live_syntax`'s; the client that asks the server is :mod:`..mcp_client`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import SourceKind, register_kind
from .live_syntax import LiveSource, is_live_source, joins, parse_live_source

if TYPE_CHECKING:
    from ..result import LoadResult


class LiveServer(LiveSource):
    """A live MCP server named as a catalog source (a :class:`~.base.Source`): loading it starts
    (``mcp+stdio``) or connects to (``mcp+http``) the server and lists its tools."""

    def load(self, catalog_format: str | None = None, *, prefix: bool = False) -> LoadResult:
        from ..mcp_client import load_live_source

        return load_live_source(self.text, prefix=prefix)


def _parsed_if_live(text: str) -> LiveServer | None:
    if not is_live_source(text):
        return None
    live = parse_live_source(text)
    return LiveServer(live.text, live.alias, live.transport, live.command, live.url)


register_kind(SourceKind("live", _parsed_if_live, joins))

__all__ = ["LiveServer"]
