"""The catalog manager: which executable tools exist (register / unregister / resolve) and search over them.

Duplicate policy: registering a name that is already registered is an error
(:class:`~toolsearch_cli.errors.CatalogError`) unless ``replace=True`` is passed, which swaps the
tool in place (same position). The reference overwrites silently; a silent overwrite hides
configuration mistakes, so here it must be asked for. The search tool's name is reserved.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import CatalogError
from ..model import RESERVED_NAMES, Catalog, Tool
from ..search import get_ranker
from ..search.base import SearchRequest
from ..search.names import UnmatchedWord, unmatched_words
from ..search.text import classic_normalize

if TYPE_CHECKING:
    from ..search.embed_settings import EmbedSettings


class SearchProvider(Protocol):
    """Ranks tool names for a query. May return stale names: the manager drops what it cannot resolve."""

    def search(self, query: str, category: str | None, limit: int) -> list[str]: ...


class RankerProvider:
    """The default provider: a built-in (or plugin) ranker over the manager's registered tools."""

    def __init__(self, manager: CatalogManager, ranker: str = "default", embed: EmbedSettings | None = None) -> None:
        self._manager = manager
        self._ranker = get_ranker(ranker, embed)
        self.ranker_name = ranker
        self._catalog: Catalog | None = None
        self._version = -1

    def search(self, query: str, category: str | None, limit: int) -> list[str]:
        if self._catalog is None:
            self._catalog = Catalog(tools=self._manager.tools())
        elif self._version != self._manager.version:
            self._sync(self._catalog)
        self._version = self._manager.version
        request = SearchRequest(query=query, max_results=limit, category=category, explain=False)
        return [hit.name for hit in self._ranker.search(self._catalog, request)]

    def _sync(self, catalog: Catalog) -> None:
        """Apply the manager's registrations to the indexed catalog tool by tool (no full rebuild)."""
        wanted = {tool.name: tool for tool in self._manager.tools()}
        stale = [tool.name for tool in catalog.tools if wanted.get(tool.name) is not tool]
        if stale:
            catalog.remove_tools(stale)  # one pass over the catalog, not one per tool
        catalog.add_tools(tool for name, tool in wanted.items() if catalog.get(name) is None)


class CatalogManager:
    """The searchable, executable catalog tools of one tool search (resident tools are not in here)."""

    def __init__(
        self,
        tools: Iterable[Tool] = (),
        *,
        ranker: str = "default",
        provider: SearchProvider | None = None,
        reserved: Iterable[str] = RESERVED_NAMES,
        embed: EmbedSettings | None = None,
    ) -> None:
        self._tools: dict[str, Tool] = {}
        self._reserved = frozenset(reserved)
        self.version = 0
        self.provider: SearchProvider = provider or RankerProvider(self, ranker, embed)
        self._hints: tuple[Any, Catalog] | None = None
        self.register_all(tools)

    @classmethod
    def from_catalog(
        cls,
        catalog: Catalog,
        *,
        exclude: Iterable[str] = (),
        ranker: str = "default",
        embed: EmbedSettings | None = None,
    ) -> CatalogManager:
        """A manager holding the catalog's searchable tools, minus ``exclude`` (names made resident);
        ``embed``: the embedding model of a dense ``ranker`` (``None``: the library default)."""
        skip = set(exclude)
        return cls((t for t in catalog.searchable() if t.name not in skip), ranker=ranker, embed=embed)

    def register(self, tool: Tool, *, replace: bool = False) -> None:
        """Add a tool; a duplicate name is an error unless ``replace`` (then it is swapped in place)."""
        if tool.name in self._reserved:
            raise CatalogError(f"the name {tool.name!r} is reserved for the search tool", tool=tool.name, field="name")
        if tool.name in self._tools and not replace:
            raise CatalogError(
                "a tool of this name is already registered; unregister it first or register with replace=True",
                tool=tool.name,
                field="name",
            )
        self._tools[tool.name] = tool
        self.version += 1

    def register_all(self, tools: Iterable[Tool], *, replace: bool = False) -> None:
        for tool in tools:
            self.register(tool, replace=replace)

    def unregister(self, name: str) -> bool:
        """Remove a tool; ``False`` when no tool had that name."""
        if self._tools.pop(name, None) is None:
            return False
        self.version += 1
        return True

    def resolve(self, name: str) -> Tool | None:
        """The registered tool of that name, or ``None``."""
        return self._tools.get(name)

    def tools(self) -> list[Tool]:
        return list(self._tools.values())

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    def categories(self, context: Mapping[str, str] | None = None) -> list[str]:
        """Distinct categories of the tools this context may see, first-seen order."""
        seen: dict[str, None] = {}
        for tool in self._tools.values():
            if tool.category and tool.visible_to(context):
                seen.setdefault(tool.category, None)
        return list(seen)

    def search(
        self, query: str, *, max_results: int, category: str | None = None, context: Mapping[str, str] | None = None
    ) -> list[str]:
        """Up to ``max_results`` names in rank order: resolvable, visible to ``context``, de-duplicated.

        Stale or invisible provider entries are skipped without eating slots: the provider is asked
        again for more until the slots are filled or it has nothing more to give.
        """
        limit = max(max_results * 2, 8)
        while True:
            raw = self.provider.search(query, category, limit)
            names: list[str] = []
            for name in raw:
                tool = self._tools.get(name)
                if tool is None or name in names or not tool.visible_to(context):
                    continue
                names.append(name)
                if len(names) == max_results:
                    return names
            if len(raw) < limit or limit >= 1 << 16:
                return names
            limit *= 2

    def unmatched(self, query: str, context: Mapping[str, str] | None = None) -> list[UnmatchedWord]:
        """Words of ``query`` that no tool visible to ``context`` contains, each with close words such
        tools do use (what a search that found nothing tells its caller; hidden tools lend no words)."""
        visible = [t for t in self._tools.values() if t.visible_to(context)]
        provider = self.provider
        if (
            len(visible) == len(self._tools)
            and isinstance(provider, RankerProvider)
            and provider._catalog is not None
            and provider._version == self.version
        ):
            return unmatched_words(provider._catalog, query)  # its default index is already built
        key = (self.version, tuple(sorted((context or {}).items())))
        if self._hints is None or self._hints[0] != key:
            self._hints = (key, Catalog(tools=visible))
        return unmatched_words(self._hints[1], query)


def category_known(manager: CatalogManager, category: str, context: Mapping[str, str] | None) -> bool:
    wanted = classic_normalize(category)
    return any(classic_normalize(c) == wanted for c in manager.categories(context))
