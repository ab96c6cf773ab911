"""``toolsearch search``: rank a catalog for a query and show why each tool ranked where it did."""

from __future__ import annotations

import json

import typer

from ..catalog import load_catalog, store_in_cache
from ..errors import UsageError, did_you_mean
from ..search import RANKER_BY_NAME, parse_max_results
from ..search import search as run_search
from ..search.text import classic_normalize
from .options import CATALOG_FORMAT_OPTION, CATALOG_OPTION, FORMAT_OPTION, check_catalog_format, check_format
from .render import console, error_console, render_hits


def search(
    query: str = typer.Argument(..., help="What the tool should do, in any language."),
    catalog: list[str] | None = CATALOG_OPTION,
    category: str | None = typer.Option(
        None, "--category", help="Only tools of this category (normalised: WeatherApi = weather-api)."
    ),
    max_results: str = typer.Option("5", "--max-results", "-n", help="How many results (1-50)."),
    ranker: str = typer.Option("default", "--ranker", "-r", help=f"Ranker: {', '.join(RANKER_BY_NAME)}."),
    explain: bool = typer.Option(
        False, "--explain", "-e", help="Show which query term hit which field for how many points."
    ),
    output_format: str = FORMAT_OPTION,
    catalog_format: str = CATALOG_FORMAT_OPTION,
) -> None:
    """Search a catalog and see why each tool ranked where it did."""
    check_format(output_format)
    limit = parse_max_results(max_results)
    loaded = load_catalog(catalog, check_catalog_format(catalog_format), cache=True)
    if category is not None and category.strip() and classic_normalize(category):
        wanted = classic_normalize(category)
        known = loaded.categories()
        if not any(classic_normalize(c) == wanted for c in known):
            raise UsageError(
                f"no tool has category {category!r}{did_you_mean(category, known)}; "
                f"categories: {', '.join(known) or '(none)'}",
                field="category",
            )
    hits = run_search(loaded, query, max_results=limit, category=category, ranker=ranker)
    store_in_cache(loaded)  # with its index, so the next call skips parsing and indexing
    if output_format == "json":
        payload = {
            "query": query,
            "ranker": ranker,
            "category": category,
            "max_results": limit,
            "hits": [{"rank": i, **hit.to_dict()} for i, hit in enumerate(hits, 1)],
        }
        typer.echo(json.dumps(payload, ensure_ascii=False, indent=2))
        return
    if not hits:
        error_console().print(
            f"no tool matches {query!r} ({len(loaded.searchable())} searchable tools, ranker {ranker})"
        )
        return
    out = console()
    render_hits(out, hits, explain=explain)
    out.print(
        f"\n{len(hits)} of {len(loaded.searchable())} searchable tools · ranker {ranker} · {', '.join(loaded.sources)}",
        style="dim",
        markup=False,
    )
