"""``toolsearch search``: rank a catalog for a query and show why each tool ranked where it did.

Options -> :class:`~toolsearch_cli.search_report.SearchSettings` -> :func:`run_search` -> a table,
or JSON from :meth:`SearchReport.to_dict`.
"""

from __future__ import annotations

import json

import typer

from ..printable import json_visible
from ..search import MAX_RESULTS_LIMIT, RANKER_BY_NAME
from ..search_report import SearchReport, SearchSettings, run_search
from .options import (
    CatalogFormat,
    CatalogSources,
    EmbedApiKeyEnv,
    EmbedBaseUrl,
    EmbedDocumentPrefix,
    EmbedModel,
    EmbedMultilingual,
    EmbedQueryPrefix,
    EmbedTimeout,
    EmbedWeight,
    OutputFormat,
    RequestContext,
    Wide,
    check_catalog_format,
    check_format,
    embed_settings,
)
from .render import console, data, error_console, plural, render_hits


def search(
    typer_context: typer.Context,
    query: str = typer.Argument(..., help="What the tool should do, in any language."),
    catalog: CatalogSources = None,
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
    context: RequestContext = None,
    wide: Wide = False,
    output_format: OutputFormat = "table",
    catalog_format: CatalogFormat = "auto",
    embed_model: EmbedModel = None,
    embed_base_url: EmbedBaseUrl = None,
    embed_api_key_env: EmbedApiKeyEnv = "OPENAI_API_KEY",
    embed_multilingual: EmbedMultilingual = False,
    embed_timeout: EmbedTimeout = None,
    embed_query_prefix: EmbedQueryPrefix = None,
    embed_document_prefix: EmbedDocumentPrefix = None,
    embed_weight: EmbedWeight = None,
) -> None:
    """Search a catalog and see why each tool ranked where it did."""
    from ..catalog.sources import parse_sources
    from .embed_progress import embed_progress

    embed = embed_settings(typer_context)
    check_format(output_format)
    limit = SearchSettings.parse_max_results(max_results)
    attributes = None
    if context:
        from ..simulate.script import parse_context

        attributes = parse_context(context)
    sources = parse_sources(catalog)  # the one place the --catalog text is read
    forced = check_catalog_format(catalog_format)
    settings = SearchSettings(query, sources, forced, category, limit, ranker, attributes, embed)
    # a first run over a large catalog embeds for minutes: a bar on a terminal
    with embed_progress(output_format):
        report = run_search(settings)
    if output_format == "json":
        typer.echo(json_visible(json.dumps(report.to_dict(), ensure_ascii=False, indent=2)))
    else:
        render_search(report, explain=explain, wide=wide)


def render_search(report: SearchReport, *, explain: bool, wide: bool) -> None:
    """The hits as a table (on stdout), with a footer; no hits: one line on stderr."""
    from .embed_progress import cost_line

    s = report.settings
    seen_by = f" · context {', '.join(f'{k}={v}' for k, v in s.context.items())}" if s.context else ""
    if report.embed_model is not None:
        seen_by = f" · embeddings {report.embed_model}{seen_by}"
    searched = plural(report.searchable, "searchable tool")
    if not report.hits:
        error_console().print(data(f"no tool matches {s.query!r} ({searched}, ranker {s.ranker}{seen_by})"))
        if report.unmatched:
            error_console().print(data(_unmatched_line(report), "yellow"))
        return
    out = console()
    render_hits(out, report.hits, explain=explain, wide=wide)
    footer = f"\n{len(report.hits)} of {searched} · ranker {s.ranker}{seen_by} · {', '.join(report.catalog_sources)}"
    out.print(data(footer, "dim"))
    if report.unmatched:
        out.print(data(_unmatched_line(report), "dim"))
    if report.embedding is not None:
        out.print(data(cost_line(report.embedding), "dim"))


def _unmatched_line(report: SearchReport) -> str:
    from ..search.names import unmatched_phrase

    return f"no tool contains {unmatched_phrase(report.unmatched)}"
