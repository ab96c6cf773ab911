"""Progressive disclosure: the ``toolSearch`` tool, the catalog manager, request snapshots, groups, policies."""

from __future__ import annotations

from ..providers import ToolCall
from .engine import (
    DISCLOSED,
    GROUP,
    MODES,
    RESIDENT,
    ROLES,
    SEARCH,
    CallCheck,
    DisclosureEngine,
    RequestSnapshot,
    VisibleTool,
)
from .groups import matched_groups, matches, with_system_prompt
from .history import SearchEvent, latest_search_event, parse_search_result, search_events, tool_calls
from .manager import CatalogManager, RankerProvider, SearchProvider
from .policy import POLICY_BY_NAME, CumulativePolicy, LatestPolicy, Policy, get_policy
from .search_tool import SEARCH_TOOL_NAME, SearchArguments, SearchOutcome, parse_arguments, search_tool_definition
from .state import ACTIVE_TOOL_NAMES_KEY, RunState

__all__ = [
    "ACTIVE_TOOL_NAMES_KEY",
    "DISCLOSED",
    "GROUP",
    "MODES",
    "POLICY_BY_NAME",
    "RESIDENT",
    "ROLES",
    "SEARCH",
    "SEARCH_TOOL_NAME",
    "CallCheck",
    "CatalogManager",
    "CumulativePolicy",
    "DisclosureEngine",
    "LatestPolicy",
    "Policy",
    "RankerProvider",
    "RequestSnapshot",
    "RunState",
    "SearchArguments",
    "SearchEvent",
    "SearchOutcome",
    "SearchProvider",
    "ToolCall",
    "VisibleTool",
    "get_policy",
    "latest_search_event",
    "matched_groups",
    "matches",
    "parse_arguments",
    "parse_search_result",
    "search_events",
    "search_tool_definition",
    "tool_calls",
    "with_system_prompt",
]
