"""Tools for the ranking tests: string parameters, each with its description."""

from __future__ import annotations

from typing import Any

from toolsearch_cli.model import Tool


def string_tool(name: str, description: str, params: dict[str, str] | None = None, **fields: Any) -> Tool:
    """A tool whose parameters are strings described by *params* (name → description)."""
    return Tool(
        name=name,
        description=description,
        parameters={
            "type": "object",
            "properties": {k: {"type": "string", "description": v} for k, v in (params or {}).items()},
        },
        **fields,
    )
