"""``toolsearch catalog``: list a catalog's tools and where each was defined."""

from __future__ import annotations

import json

import typer

from ..catalog import load_catalog
from .options import CATALOG_OPTION, FORMAT_OPTION, check_format
from .render import console, render_catalog


def catalog(
    catalog: list[str] | None = CATALOG_OPTION,
    output_format: str = FORMAT_OPTION,
) -> None:
    """List the tools of a catalog: name, category, tags, parameters and source file:line."""
    check_format(output_format)
    loaded = load_catalog(catalog, cache=True)
    if output_format == "json":
        resident = set(loaded.resident)
        payload = {
            "sources": loaded.sources,
            "resident": loaded.resident,
            "tools": [
                {
                    "name": t.name,
                    "category": t.category,
                    "tags": t.tags,
                    "parameters": t.parameter_count(),
                    "resident": t.name in resident,
                    "source": str(t.source) if t.source else None,
                    "description": t.description,
                }
                for t in loaded.tools
            ],
        }
        typer.echo(json.dumps(payload, ensure_ascii=False, indent=2))
        return
    render_catalog(console(), loaded)
