"""``toolsearch search``: rank a catalog for a query and show why each tool ranked where it did."""

from __future__ import annotations

import json

import typer

from ..catalog import load_catalog_result, store_in_cache
from ..errors import UsageError, did_you_mean
from ..model import Catalog, Tool
from ..printable import json_visible
from ..search import MAX_RESULTS_LIMIT, RANKER_BY_NAME, parse_max_results
from ..search import search as run_search
from ..search.base import whole_number
from ..search.names import UnmatchedWord, unmatched_phrase, unmatched_words
from ..search.text import classic_normalize
from .options import (
    CATALOG_FORMAT_OPTION,
    CATALOG_OPTION,
    CONTEXT_OPTION,
    FORMAT_OPTION,
    WIDE_OPTION,
    check_catalog_format,
    check_format,
    embed_model_label,
    embed_options,
)
from .render import console, data, error_console, plural, render_hits


@embed_options
def search(
    query: str = typer.Argument(..., help="What the tool should do, in any language."),
    catalog: list[str] | None = CATALOG_OPTION,
    category: str | None = typer.Option(
        None, "--category", help="Only tools of this category (normalised: WeatherApi = weather-api).", metavar="NAME"
    ),
    max_results: str = typer.Option(
        "5", "--max-results", "-n", help=f"How many results (1-{MAX_RESULTS_LIMIT}).", metavar="N"
    ),
    ranker: str = typer.Option(
        "default", "--ranker", "-r", help=f"Ranker: {', '.join(RANKER_BY_NAME)}.", metavar="NAME"
    ),
    explain: bool = typer.Option(
        False, "--explain", "-e", help="Show which query term hit which field for how many points."
    ),
    context: list[str] | None = CONTEXT_OPTION,
    wide: bool = WIDE_OPTION,
    output_format: str = FORMAT_OPTION,
    catalog_format: str = CATALOG_FORMAT_OPTION,
) -> None:
    """Search a catalog and see why each tool ranked where it did."""
    check_format(output_format)
    if (whole_number(max_results) or 0) < 1:  # not a number: parse_max_results says so
        parse_max_results(max_results)
        raise UsageError(f"--max-results must be at least 1, not {max_results.strip()}", field="max-results")
    limit = parse_max_results(max_results)  # above the limit: the limit, as for a model's toolSearch call
    attributes = None
    if context:
        from ..simulate.script import parse_context

        attributes = parse_context(context)
    result = load_catalog_result(catalog, check_catalog_format(catalog_format), cache=True)
    loaded = result.catalog
    if category is not None and category.strip() and classic_normalize(category):
        wanted = classic_normalize(category)
        known = loaded.categories()
        if not any(classic_normalize(c) == wanted for c in known):
            raise UsageError(
                f"no tool has category {category!r}{did_you_mean(category, known)}; "
                f"categories: {', '.join(known) or '(none)'}",
                field="category",
            )
    from ..search.embed import embed_cost, reset_embed_cost
    from ..search.hybrid import searches_kept_on_disk
    from .embed_progress import cost_line, embed_progress

    reset_embed_cost()
    # a first run over a large catalog embeds for minutes (a bar on a terminal); a repeated
    # request's vector comes from the disk, so a cached search loads no model
    with embed_progress(output_format), searches_kept_on_disk():
        hits = run_search(loaded, query, max_results=limit, category=category, ranker=ranker, context=attributes)
    cost = embed_cost()
    searchable = (
        loaded.searchable() if attributes is None else [t for t in loaded.searchable() if t.visible_to(attributes)]
    )
    misses = _unmatched(loaded, query, ranker, None if attributes is None else searchable)
    store_in_cache(result)  # with its index, so the next call skips parsing and indexing
    model = embed_model_label([ranker])
    if output_format == "json":
        payload: dict[str, object] = {
            "query": query,
            "ranker": ranker,
            "category": category,
            "max_results": limit,
            "hits": [{"rank": i, **hit.to_dict()} for i, hit in enumerate(hits, 1)],
        }
        if model is not None:
            payload["embed_model"] = model
            payload["embedding"] = cost.to_dict()  # texts embedded, texts found cached, seconds
        if attributes is not None:
            payload["context"] = attributes
        payload["unmatched"] = [word.to_dict() for word in misses]
        typer.echo(json_visible(json.dumps(payload, ensure_ascii=False, indent=2)))
        return
    seen_by = f" · context {', '.join(f'{k}={v}' for k, v in attributes.items())}" if attributes else ""
    if model is not None:
        seen_by = f" · embeddings {model}{seen_by}"
    if not hits:
        error_console().print(
            data(f"no tool matches {query!r} ({plural(len(searchable), 'searchable tool')}, ranker {ranker}{seen_by})")
        )
        if misses:
            error_console().print(data(_misses_line(misses), "yellow"))
        return
    out = console()
    render_hits(out, hits, explain=explain, wide=wide)
    out.print(
        data(
            f"\n{len(hits)} of {plural(len(searchable), 'searchable tool')} · ranker {ranker}{seen_by} · "
            f"{', '.join(loaded.sources)}",
            "dim",
        )
    )
    if misses:
        out.print(data(_misses_line(misses), "dim"))
    if model is not None:
        out.print(data(cost_line(cost), "dim"))


def _unmatched(loaded: Catalog, query: str, ranker: str, visible: list[Tool] | None) -> list[UnmatchedWord]:
    """The query's words no (visible) tool contains; the classic ranker's own matching differs, so none."""
    if ranker == "classic" or not classic_normalize(query):
        return []
    return unmatched_words(loaded if visible is None else Catalog(tools=visible), query)


def _misses_line(misses: list[UnmatchedWord]) -> str:
    return f"no tool contains {unmatched_phrase(misses)}"
