"""toolsearch: progressive disclosure of large tool catalogs to LLMs — search, simulate, lint, eval."""

from __future__ import annotations

__version__ = "0.1.0"

from .catalog import load_catalog, tool, tool_from_function
from .errors import CatalogError, SearchError, ToolsearchError, UsageError
from .model import Catalog, Location, Parameter, Tool
from .search import RANKER_BY_NAME, Hit, SearchRequest, search

__all__ = [
    "RANKER_BY_NAME",
    "Catalog",
    "CatalogError",
    "Hit",
    "Location",
    "Parameter",
    "SearchError",
    "SearchRequest",
    "Tool",
    "ToolsearchError",
    "UsageError",
    "__version__",
    "load_catalog",
    "search",
    "tool",
    "tool_from_function",
]
