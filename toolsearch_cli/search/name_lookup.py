"""Look-ups by tool name: a query that *is* a tool's name ranks that tool first.

Developers and models search for a tool they already know by name (``create_issue``,
``createIssue``, ``Create Issue``, ``browser_nav``); word-based ranking can put it anywhere, as
every other tool of a big catalog shares its words. A query whose letters and digits are exactly
a tool's name (case and separators ignored), or a unique prefix of one, or a name after its
namespace (``github__create_issue`` for ``create_issue``), ranks that tool first.

The rankers (:mod:`.bm25f`, :mod:`.hybrid`) use this module; it uses no ranker.
"""

from __future__ import annotations

import bisect
import re
from typing import Any

from ..indexes import cached_index
from ..model import Catalog, Tool
from .base import Contribution, Hit, SearchRequest
from .text import classic_normalize

#: A unique prefix must be at least this long (in letters and digits) to stand for a name.
MIN_PREFIX = 4
#: Separators of a namespace before a tool's own name: ``alias__tool``, ``server.tool``, ``ns/tool``, ``ns:tool``.
_NAMESPACE = re.compile(r"__|[./:]")
_IDENTIFIER = re.compile(r"[_\-./:]|[a-z0-9][A-Z]")


#: What a name key leaves out: everything but letters and digits (``\w`` is ``str.isalnum()`` or ``_``).
_NOT_ALNUM = re.compile(r"[\W_]+")


def name_key(text: str) -> str:
    """A name compared without case, separators or spacing: ``create_issue`` = ``CreateIssue`` = ``create issue``."""
    return _NOT_ALNUM.sub("", text.casefold())


class NameLookup:
    """Tool names by key, for exact and prefix look-ups (rebuilt when the catalog changes)."""

    def __init__(self, tools: list[Tool]) -> None:
        from ..bounded import gc_paused

        self.exact: dict[str, list[str]] = {}
        self.local: dict[str, list[str]] = {}  # the part after a namespace separator
        with gc_paused():  # a list per name, no cycles: 1,000,000 tools' made the collector walk them
            for tool in tools:
                for table, key in self._keys(tool.name):
                    table.setdefault(key, []).append(tool.name)
        self.keys = sorted(self.exact)

    # Pickled (the on-disk catalog cache) as the sorted keys and, beside each, its names (a lone
    # name as itself); ``exact`` is made again only for a change of the catalog. A cached search
    # finds an exact key by bisection in ``keys``: the dict of 100,000 one-name lists cost 0.07 s
    # to unpickle on every cached search of a 100,000-tool catalog, for one look-up.
    def __getstate__(self) -> dict[str, Any]:
        exact = self.__dict__.get("exact")
        if exact is None:
            names = self.__dict__["names"]
        else:
            names = [found[0] if len(found) == 1 else found for found in map(exact.__getitem__, self.keys)]
        return {"local": self.local, "keys": self.keys, "names": names}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.local = state["local"]
        self.keys = state["keys"]
        #: Beside each of ``keys``, its names (a lone name as itself), until ``exact`` is made.
        self.names: list[str | list[str]] = state["names"]

    def __getattr__(self, name: str) -> Any:
        # Only for what the instance lacks: the exact keys' dict of a look-up read from a pickle.
        names = self.__dict__.get("names")
        if name != "exact" or names is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        exact = self.__dict__["exact"] = {
            key: [found] if isinstance(found, str) else found for key, found in zip(self.keys, names, strict=True)
        }
        del self.__dict__["names"]
        return exact

    def _exact(self, key: str) -> list[str] | None:
        """The names whose key is ``key`` (``None``: none)."""
        names = self.__dict__.get("names")
        if names is None:
            found: list[str] | None = self.exact.get(key)
            return found
        at = bisect.bisect_left(self.keys, key)
        if at == len(self.keys) or self.keys[at] != key:
            return None
        one = names[at]
        return [one] if isinstance(one, str) else one

    def _keys(self, name: str) -> list[tuple[dict[str, list[str]], str]]:
        key = name_key(name)
        out = [(self.exact, key)] if key else []
        parts = _NAMESPACE.split(name)
        if len(parts) > 1:
            local = name_key(parts[-1])
            if local and local != key:
                out.append((self.local, local))
        return out

    # a catalog updates its indexes in place on add_tool / remove_tool (no rebuild per change)
    def add(self, tool: Tool) -> None:
        for table, key in self._keys(tool.name):
            if table is self.exact and key not in table:
                bisect.insort(self.keys, key)
            table.setdefault(key, []).append(tool.name)

    def remove(self, name: str) -> None:
        for table, key in self._keys(name):
            names = table.get(key, [])
            if name in names:
                names.remove(name)
            if not names:
                table.pop(key, None)
                if table is self.exact:
                    at = bisect.bisect_left(self.keys, key)
                    if at < len(self.keys) and self.keys[at] == key:
                        del self.keys[at]

    def find(self, query: str) -> str | None:
        """The one tool ``query`` names: exactly, after a namespace, or as a unique prefix of an identifier."""
        key = name_key(query)
        if not key:
            return None
        for found in (self._exact(key), self.local.get(key)):
            if found is not None:
                return found[0] if len(found) == 1 else _as_written(query, found)
        # A prefix only for an identifier (one token with a separator or an inner capital):
        # "browser_nav" or "browserNav", not the plain word "issue" or "get the weather".
        if len(key) < MIN_PREFIX or len(query.split()) != 1 or not _IDENTIFIER.search(query):
            return None

        start = bisect.bisect_left(self.keys, key)
        matches = []
        for candidate in self.keys[start : start + 2]:
            if candidate.startswith(key):
                matches.append(candidate)
        if len(matches) == 1:
            found = self._exact(matches[0])
            if found is not None and len(found) == 1:
                return found[0]
        return None


def _as_written(query: str, names: list[str]) -> str | None:
    """Of several names with the query's key (``search_records`` and ``search-records``), the one
    the query spells exactly (its own name or the part after its namespace), else the one it spells
    but for case; None if that is not one name."""
    written = query.strip()
    for same in (str.__str__, str.casefold):
        want = same(written)
        spelt = {name for name in names if want in (same(name), same(_NAMESPACE.split(name)[-1]))}
        if len(spelt) == 1:
            return spelt.pop()
    return None


def named_tool(catalog: Catalog, query: str) -> str | None:
    """The name of the searchable tool that ``query`` names (see :class:`NameLookup`), else None."""
    if len(query) > 200:
        return None
    return lookup_of(catalog).find(query)


def lookup_of(catalog: Catalog) -> NameLookup:
    """The catalog's :class:`NameLookup`, built on first use (see :func:`cached_index`)."""
    lookup: NameLookup = cached_index(catalog, "names", lambda: NameLookup(catalog.searchable()), of_searchable=True)
    return lookup


#: How far above the best other hit a named tool is put (its score shows it was promoted).
NAME_BONUS = 1.0


def put_named_first(catalog: Catalog, request: SearchRequest, hits: list[Hit]) -> list[Hit]:
    """``hits`` with the tool the query names (if any, and in the requested category) first.

    Its score becomes the best other score plus :data:`NAME_BONUS`, explained as an exact-name
    match; the list keeps ``request.max_results`` hits.
    """
    name = named_tool(catalog, request.query)
    if name is None:
        return hits
    tool = catalog.get(name)
    if tool is None:
        return hits
    if request.category is not None and classic_normalize(tool.category or "") != classic_normalize(request.category):
        return hits
    if hits and hits[0].tool.name == name and hits[0].score > (hits[1].score if len(hits) > 1 else 0.0):
        return hits  # first on its words already, ahead of the rest (a tie or a score of 0 is promoted)
    own = next((hit for hit in hits if hit.tool.name == name), None)
    rest = [hit for hit in hits if hit.tool.name != name]
    score = (rest[0].score if rest else 0.0) + NAME_BONUS
    promoted = own if own is not None else Hit(tool=tool, score=0.0)
    if request.explain:
        how = "the query is its name" if name_key(request.query) == name_key(name) else "the query names it"
        promoted.contributions.append(Contribution(request.query.strip(), "name", score - promoted.score, how))
        if "name" not in promoted.matched_fields:
            promoted.matched_fields.insert(0, "name")
    promoted.score = score
    return [promoted, *rest][: request.max_results]
