"""``toolsearch search`` as one library call: :class:`SearchSettings` in, :class:`SearchReport` out.

Unlike :func:`toolsearch_cli.search` (hits for a catalog already loaded), :func:`run_search`
does what the command does: load the catalog (cached), check the category, search, and say
which words of the query no tool contains and what embedding cost. Nothing here prints.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .errors import UsageError, did_you_mean

if TYPE_CHECKING:
    from .catalog.loading import SourcesLike
    from .model import Catalog, Tool
    from .search.base import Hit
    from .search.embed_settings import EmbedCost, EmbedSettings
    from .search.names import UnmatchedWord


@dataclass(frozen=True, slots=True)
class SearchSettings:
    """One search: the query, the catalog sources (``None``: the default), and how to rank.

    ``context``: request attributes (``role=admin``); tools that require others are not searched.
    """

    query: str
    catalog: SourcesLike = None
    catalog_format: str | None = None
    category: str | None = None
    max_results: int = 5
    ranker: str = "default"
    context: dict[str, str] | None = None
    #: The embedding model of a dense ranker (``None``: the library default, ``TOOLSEARCH_EMBED_*``).
    embed: EmbedSettings | None = None

    @staticmethod
    def parse_max_results(text: str) -> int:
        """``--max-results`` as typed: at least 1 (else a UsageError); above the limit, the limit,
        as for a model's toolSearch call."""
        from .search import parse_max_results
        from .search.base import whole_number

        if (whole_number(text) or 0) < 1:  # not a number: parse_max_results says so
            parse_max_results(text)
            raise UsageError(f"--max-results must be at least 1, not {text.strip()}", field="max-results")
        return parse_max_results(text)


@dataclass(slots=True)
class SearchReport:
    """The result of :func:`run_search`; :meth:`to_dict` is ``toolsearch search --format json``."""

    settings: SearchSettings
    hits: list[Hit]
    #: How many tools were searched (the searchable ones visible to the context).
    searchable: int
    catalog_sources: list[str]
    #: The query's words no searched tool contains (none with the classic ranker).
    unmatched: list[UnmatchedWord] = field(default_factory=list)
    #: The embedding model of a dense ranker, and what embedding cost (``None``: the ranker embeds nothing).
    embed_model: str | None = None
    embedding: EmbedCost | None = None

    def to_dict(self) -> dict[str, Any]:
        s = self.settings
        payload: dict[str, Any] = {
            "query": s.query,
            "ranker": s.ranker,
            "category": s.category,
            "max_results": s.max_results,
            "hits": [{"rank": i, **hit.to_dict()} for i, hit in enumerate(self.hits, 1)],
        }
        if self.embed_model is not None:
            payload["embed_model"] = self.embed_model
            if self.embedding is not None:
                payload["embedding"] = self.embedding.to_dict()  # texts embedded, texts found cached, seconds
        if s.context is not None:
            payload["context"] = s.context
        payload["unmatched"] = [word.to_dict() for word in self.unmatched]
        return payload


def run_search(settings: SearchSettings) -> SearchReport:
    """Load the catalog, check the category, search it; bad input is a ToolsearchError."""
    from .catalog import load_catalog_result, store_in_cache

    result = load_catalog_result(settings.catalog, settings.catalog_format, cache=True)
    report = search_catalog(result.catalog, settings)
    if (
        result.cache_key is not None
        and settings.ranker != "classic"
        and "vocabulary" not in (result.cache_stored or ())
    ):
        # the entry is complete after this run: a later query with a word no tool holds finds the
        # suggestions' vocabulary in it (built then, it cost the next run 1.5 s at 100,000 tools
        # and a rewrite of the whole entry)
        from .search.names import vocabulary_of

        vocabulary_of(result.catalog)
    store_in_cache(result)  # with its index, so the next call skips parsing and indexing
    return report


def search_catalog(loaded: Catalog, settings: SearchSettings) -> SearchReport:
    """What :func:`run_search` does once the catalog is loaded (``settings.catalog`` is not read):
    check the category, search, say which words no tool contains. The registry's HTTP API answers
    its searches with this, so they rank as ``toolsearch search`` does."""
    from .search import search
    from .search.embed_settings import embed_cost, reset_embed_cost
    from .search.hybrid import searches_kept_on_disk

    s = settings
    _check_category(loaded, s.category)
    reset_embed_cost()
    # a repeated request's vector comes from the disk, so a cached search loads no model
    with searches_kept_on_disk():
        hits = search(
            loaded,
            s.query,
            max_results=s.max_results,
            category=s.category,
            ranker=s.ranker,
            context=s.context,
            embed=s.embed,
        )
    cost = embed_cost()
    searchable = loaded.searchable()
    if s.context is not None:
        searchable = [t for t in searchable if t.visible_to(s.context)]
    unmatched = _unmatched(loaded, s.query, s.ranker, None if s.context is None else searchable)
    model = embed_model_label([s.ranker], s.embed)
    return SearchReport(
        settings=s,
        hits=hits,
        searchable=len(searchable),
        catalog_sources=list(loaded.sources),
        unmatched=unmatched,
        embed_model=model,
        embedding=cost if model is not None else None,
    )


def _check_category(catalog: Catalog, category: str | None) -> None:
    """A category no tool has is an error naming the ones there are (blank: no filter)."""
    from .search.text import classic_normalize

    if category is None or not category.strip() or not classic_normalize(category):
        return
    wanted = classic_normalize(category)
    known = catalog.categories()
    if not any(classic_normalize(c) == wanted for c in known):
        raise UsageError(
            f"no tool has category {category!r}{did_you_mean(category, known)}; "
            f"categories: {', '.join(known) or '(none)'}",
            field="category",
        )


def _unmatched(catalog: Catalog, query: str, ranker: str, visible: list[Tool] | None) -> list[UnmatchedWord]:
    """The query's words no (visible) tool contains; the classic ranker's own matching differs, so none."""
    from .model import Catalog
    from .search.names import unmatched_words
    from .search.text import classic_normalize

    if ranker == "classic" or not classic_normalize(query):
        return []
    return unmatched_words(catalog if visible is None else Catalog(tools=visible), query)


def embed_model_label(rankers: Sequence[str], embed: EmbedSettings | None = None) -> str | None:
    """The embedding model these rankers used with ``embed`` (``None``: the default settings), as
    output names it (``None``: none of them embeds)."""
    from .search import get_ranker

    if not any(getattr(get_ranker(name), "needs_embeddings", False) for name in rankers):
        return None
    from .search.embed import embedder_for
    from .search.embed_settings import default_settings

    settings = embed if embed is not None else default_settings()
    label = embedder_for(settings).label  # loaded by the run already; a path or ``model @ url``, never credentials
    weight = settings.weight
    if weight is not None and any(getattr(get_ranker(name), "fusion", None) == "nsf" for name in rankers):
        label += f", weight {weight:g}"  # hybrid fused with a weight of its own: part of what was measured
    return label
