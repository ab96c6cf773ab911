"""toolsearch: progressive disclosure of large tool catalogs to LLMs — search, simulate, lint, eval."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._version import __version__
from .catalog import load_catalog, tool, tool_from_function
from .errors import CatalogError, EmbedError, SearchError, ToolArgumentsError, ToolsearchError, UsageError
from .model import Catalog, Location, Parameter, Tool
from .registry import kind as _registry_kind  # noqa: F401 - registers the postgresql:// and https://…/namespaces/ kinds
from .search import RANKER_BY_NAME, EmbedSettings, Hit, SearchRequest, search

if TYPE_CHECKING:  # what type checkers see; at run time these load on first use (below)
    from .agent import Handled, Mode, PolicyName, RankerName, Request, ToolSearch, validate_arguments
    from .disclosure.state import RunState
    from .providers import Api

#: Loaded on first use (``toolsearch_cli.agent``: the engine and its tokenizer are not light).
_LAZY = {
    "Api": "providers",
    "Handled": "agent",
    "Mode": "agent",
    "PolicyName": "agent",
    "RankerName": "agent",
    "Request": "agent",
    "RunState": "disclosure.state",
    "ToolSearch": "agent",
    "validate_arguments": "agent",
}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value  # looked up once
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "RANKER_BY_NAME",
    "Api",
    "Catalog",
    "CatalogError",
    "EmbedError",
    "EmbedSettings",
    "Handled",
    "Hit",
    "Location",
    "Mode",
    "Parameter",
    "PolicyName",
    "RankerName",
    "Request",
    "RunState",
    "SearchError",
    "SearchRequest",
    "Tool",
    "ToolArgumentsError",
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
