"""``toolsearch catalog``: list a catalog's tools and where each was defined; ``catalog convert``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from ..catalog.export import EXPORTER_BY_NAME
from ..errors import UsageError
from ..printable import json_visible
from .options import (
    CatalogFormat,
    CatalogSources,
    OutputFormat,
    check_catalog_format,
    check_format,
    output_file,
)
from .render import console, data, error_console, plural, render_catalog

if TYPE_CHECKING:
    from ..registry.push import PushResult

app = typer.Typer(
    help="List the tools of a catalog, or convert it to another format.",
    invoke_without_command=True,
    no_args_is_help=False,
    add_completion=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


@app.callback()
def catalog(
    ctx: typer.Context,
    catalog: CatalogSources = None,
    output_format: OutputFormat = "table",
    catalog_format: CatalogFormat = "auto",
    wide: bool = typer.Option(False, "--wide", "-w", help="Show sources and tags in full, not cut to fit a line."),
) -> None:
    """List the tools of a catalog: name, category, tags, parameters and source file:line."""
    check_format(output_format)
    if ctx.invoked_subcommand is not None:
        ctx.obj = {"catalog": catalog, "catalog_format": catalog_format}
        return
    from ..catalog.listing import list_catalog
    from ..catalog.sources import parse_sources

    listing = list_catalog(parse_sources(catalog), check_catalog_format(catalog_format))
    if output_format == "json":
        typer.echo(json_visible(json.dumps(listing.to_dict(), ensure_ascii=False, indent=2)))
        return
    render_catalog(console(), listing.catalog, wide=wide)


OUT_OPTION = typer.Option(
    None, "--out", "-o", help="Write to this file instead of stdout.", metavar="FILE", callback=output_file("--out")
)


@app.command("convert")
def convert(
    ctx: typer.Context,
    to: str = typer.Option(..., "--to", "-t", help=f"Target format: {', '.join(EXPORTER_BY_NAME)}.", metavar="FORMAT"),
    out: str | None = OUT_OPTION,
    plain: bool = typer.Option(
        False,
        "--plain",
        help="Leave out the x-toolsearch extension (category, tags, examples, resident, metadata), "
        "for a file the provider accepts as it is; the conversion is then not round-trip safe.",
    ),
    strict: bool = typer.Option(
        False,
        "--strict",
        help="openai, openai-responses: make every schema strict-mode compatible (all properties required, "
        "optional ones nullable, additionalProperties false) and set strict: true; a tool that cannot be is "
        "exported as it is, with a warning saying why.",
    ),
    catalog: CatalogSources = None,
    catalog_format: CatalogFormat = "auto",
) -> None:
    """Write the catalog in another format: yaml (toolsearch), openai, openai-responses, anthropic, mcp."""
    from ..catalog.listing import check_conversion, convert_catalog
    from ..catalog.sources import parse_sources
    from .load_report import print_warnings

    parent = ctx.obj or {}
    sources = catalog or parent.get("catalog")
    fmt = catalog_format if catalog_format != "auto" else parent.get("catalog_format", "auto")
    check_conversion(to, plain)  # before the --out warning below
    if out is not None:
        _check_out_suffix(out, to)
    result = convert_catalog(
        parse_sources(sources), to, catalog_format=check_catalog_format(fmt), plain=plain, strict=strict
    )
    if result.warnings:
        print_warnings(list(result.warnings), converting=True)
    text = result.text
    if out is None:
        typer.echo(text, nl=False)
        return
    from ..files import write_text_atomic

    write_text_atomic(out, text, what=str(out), error=UsageError, field="out", make_parents=False)
    error_console().print(data(f"wrote {plural(result.tools, 'tool')} as {to} to {out}"))


def _check_out_suffix(out: str, to: str) -> None:
    """Warn when the --out file's extension says another format than the one written."""
    suffix = Path(out).suffix.lower()
    expected = (".yaml", ".yml") if to == "yaml" else (".json",)
    if suffix in (".yaml", ".yml", ".json", ".jsonl") and suffix not in expected:
        what = "YAML" if to == "yaml" else "JSON"
        error_console().print(
            data(
                f"warning: {out}: writing {to} ({what}) to a file named {suffix}; "
                f"tools that go by the extension will misread it (name it {expected[0]})"
            )
        )


@app.command("push")
def push(
    ctx: typer.Context,
    to: str = typer.Option(
        ...,
        "--to",
        "-t",
        help="The registry: postgresql://[user@]host[:port]/database (password from PGPASSWORD, ~/.pgpass or "
        "a service file, or in the URL).",
        metavar="URL",
    ),
    namespace: str = typer.Option(..., "--namespace", "-n", help="The namespace to publish the catalog as."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Show what would change; write nothing."),
    expect_version: int | None = typer.Option(
        None,
        "--expect-version",
        help="Publish only if the namespace is still at this version (0: it must not exist yet); "
        "else fail (exit 2) and leave it alone.",
        metavar="N",
    ),
    yes: bool = typer.Option(False, "--yes", help="Push even a catalog without tools (it empties the namespace)."),
    output_format: OutputFormat = "table",
    catalog: CatalogSources = None,
    catalog_format: CatalogFormat = "auto",
) -> None:
    """Publish the catalog to a shared PostgreSQL registry in one transaction: changed tools updated,
    removed ones deleted, unchanged ones untouched, and a new version recorded."""
    from ..catalog.sources import parse_sources
    from ..registry.push import PushSettings, push_catalog

    check_format(output_format)
    parent = ctx.obj or {}
    fmt = catalog_format if catalog_format != "auto" else parent.get("catalog_format", "auto")
    settings = PushSettings(
        to=to,
        namespace=namespace,
        sources=parse_sources(catalog or parent.get("catalog")),
        catalog_format=check_catalog_format(fmt),
        dry_run=dry_run,
        expect_version=expect_version,
        allow_empty=yes,
    )
    result = push_catalog(settings)
    if output_format == "json":
        typer.echo(json.dumps(result.to_dict(), ensure_ascii=False, indent=2))
        return
    _render_push(result)


def _render_push(result: PushResult) -> None:
    plan, where, out = result.plan, result.where, console()
    if result.dry_run:
        out.print(data(f"dry run: {where} is at version {plan.base_version}; pushing would change: {result.counts}"))
        for sign, names in (("+", plan.added), ("~", plan.changed), ("-", plan.removed)):
            for name in names:
                out.print(data(f"  {sign} {name}"))
        if plan.resident_changed:
            out.print(data("  ~ (resident tools)"))
        if plan.groups_changed:
            out.print(data("  ~ (tool groups)"))
    elif plan.version is None:
        out.print(data(f"{where} is unchanged at version {plan.base_version} ({plan.unchanged} tools)"))
    else:
        out.print(data(f"pushed {where}: version {plan.version} ({result.counts})"))
