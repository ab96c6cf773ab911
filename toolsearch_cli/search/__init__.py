"""Search: rankers by name, and one function to run a request against a catalog."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ..errors import SearchError, did_you_mean
from ..model import Catalog
from .base import DEFAULT_MAX_RESULTS, MAX_RESULTS_LIMIT, Contribution, Hit, Ranker, SearchRequest, parse_max_results
from .bm25f import BM25FRanker
from .classic import ClassicRanker
from .embed_settings import EmbedSettings, as_settings
from .hybrid import EmbeddingRanker, HybridRanker, HybridRRFRanker

#: Rankers by name; CLI choices derive from the keys. ``default`` is what users get.
RANKER_BY_NAME: dict[str, Ranker] = {
    "default": BM25FRanker(),
    "classic": ClassicRanker(),
    # need an embedding model (--embed-model); nothing heavy is imported until one is used
    "hybrid": HybridRanker(),
    "embedding": EmbeddingRanker(),
    "hybrid-rrf": HybridRRFRanker(),
}

__all__ = [
    "DEFAULT_MAX_RESULTS",
    "MAX_RESULTS_LIMIT",
    "RANKER_BY_NAME",
    "Contribution",
    "EmbedSettings",
    "Hit",
    "Ranker",
    "SearchRequest",
    "get_ranker",
    "parse_max_results",
    "search",
]


#: Entry-point group through which other packages register rankers into RANKER_BY_NAME.
ENTRY_POINT_GROUP = "toolsearch.rankers"
_plugins_loaded = False


def load_ranker_plugins() -> None:
    """Register rankers that installed packages offer under the ``toolsearch.rankers`` entry points."""
    global _plugins_loaded
    if _plugins_loaded:
        return
    _plugins_loaded = True
    from importlib.metadata import entry_points

    for entry in entry_points(group=ENTRY_POINT_GROUP):
        if entry.name in RANKER_BY_NAME:
            continue  # built-ins win
        try:
            obj = entry.load()
        except Exception as exc:  # noqa: BLE001 - a broken plugin is reported, not raised raw
            raise SearchError(
                f"ranker plugin {entry.name!r} ({entry.value}) failed to load: {type(exc).__name__}: {exc}",
                field="ranker",
            ) from exc
        RANKER_BY_NAME[entry.name] = obj() if isinstance(obj, type) else obj


def get_ranker(name: str, embed: EmbedSettings | str | None = None) -> Ranker:
    """The ranker registered under ``name`` (built-in or plugin); an unknown name is a :class:`SearchError`.

    ``embed`` (an :class:`EmbedSettings`, or a model folder / Hub id as text): a ranker that embeds
    is returned as a new instance carrying these settings, its own model whatever other rankers
    in the process use; rankers that do not embed ignore it. ``None``: the library default.
    """
    settings = as_settings(embed)
    if name not in RANKER_BY_NAME:
        load_ranker_plugins()
    try:
        ranker = RANKER_BY_NAME[name]
    except KeyError:
        raise SearchError(
            f"unknown ranker {name!r}{did_you_mean(name, RANKER_BY_NAME)}; choose from {', '.join(RANKER_BY_NAME)}",
            field="ranker",
        ) from None
    bind = getattr(ranker, "with_embed", None)
    return bind(settings) if settings is not None and bind is not None else ranker


def search(
    catalog: Catalog,
    query: str,
    *,
    max_results: Any = DEFAULT_MAX_RESULTS,
    category: str | None = None,
    ranker: str = "default",
    context: Mapping[str, str] | None = None,
    embed: EmbedSettings | str | None = None,
) -> list[Hit]:
    """Rank the catalog's searchable tools for ``query``; only tools with a positive score, best first.

    With ``context`` (request attributes such as ``{"role": "admin"}``), only tools visible to that
    context are returned, as the disclosure engine filters ``toolSearch`` results; their scores are
    those of the whole catalog.

    ``embed``: the embedding model of the ``hybrid`` / ``embedding`` rankers (an
    :class:`EmbedSettings`, or a model folder / Hub id); ``None``: the library default (``TOOLSEARCH_EMBED_*``).
    """
    if not isinstance(query, str):
        raise SearchError("the query must be text", field="query")
    request = SearchRequest(query=query, max_results=parse_max_results(max_results), category=category)
    engine = get_ranker(ranker, embed)
    if context is None:
        return engine.search(catalog, request)
    wanted, limit = request.max_results, request.max_results
    while True:  # ask for more until the visible hits fill the slots or the ranker has no more
        hits = engine.search(catalog, replace(request, max_results=limit))
        visible = [hit for hit in hits if hit.tool.visible_to(context)]
        if len(visible) >= wanted or len(hits) < limit:
            return visible[:wanted]
        limit *= 4
