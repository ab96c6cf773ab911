"""toolsearch: progressive disclosure of large tool catalogs to LLMs — search, simulate, lint, eval."""

from __future__ import annotations

__version__ = "0.1.0"

from .catalog import load_catalog, tool, tool_from_function
from .errors import CatalogError, SearchError, ToolsearchError, UsageError
from .model import Catalog, Location, Parameter, Tool
from .search import RANKER_BY_NAME, EmbedSettings, Hit, SearchRequest, search

#: Loaded on first use (``toolsearch_cli.agent``: the engine and its tokenizer are not light).
_LAZY = {"ToolSearch": "agent", "validate_arguments": "agent"}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "RANKER_BY_NAME",
    "Catalog",
    "CatalogError",
    "EmbedSettings",
    "Hit",
    "Location",
    "Parameter",
    "SearchError",
    "SearchRequest",
    "Tool",
    "ToolSearch",
    "ToolsearchError",
    "UsageError",
    "__version__",
    "load_catalog",
    "search",
    "tool",
    "tool_from_function",
    "validate_arguments",
]
