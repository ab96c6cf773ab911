"""``toolsearch serve``: an MCP gateway doing progressive disclosure in front of any MCP client.

The client sees its resident tools, ``toolSearch`` and one stable ``callTool``; the catalogs,
ranker, permissions (contexts) and disclosure engine are those of ``search`` and ``simulate``.
The MCP SDK (extra ``toolsearch-cli[mcp]``) is imported only when the gateway runs.
"""

from __future__ import annotations

from .gateway import CALL_TOOL_NAME, DISCLOSE_MODES, CallResult, Gateway, Refused, SessionState, Settings
from .settings import ServeSettings

__all__ = [
    "CALL_TOOL_NAME",
    "DISCLOSE_MODES",
    "CallResult",
    "Gateway",
    "Refused",
    "ServeSettings",
    "SessionState",
    "Settings",
]
