"""Options shared by several commands."""

from __future__ import annotations

import typer

from ..catalog import ENV_VAR
from ..catalog.formats import FORMATS as CATALOG_FORMATS

CATALOG_HELP = (
    f"Catalog source: a YAML or JSON file (toolsearch, OpenAI, Anthropic, MCP or OpenAPI format), a folder, "
    f"a .py file, a module name, or a live MCP server (mcp+stdio:COMMAND, mcp+http://HOST/mcp, "
    f"optionally ALIAS=mcp+...); repeatable. Default: ${ENV_VAR}, else ./catalogs, else the bundled demo."
)


CATALOG_OPTION = typer.Option(None, "--catalog", "-c", help=CATALOG_HELP, metavar="SOURCE")


CATALOG_FORMAT_OPTION = typer.Option(
    "auto",
    "--catalog-format",
    help=f"Format of the --catalog files: {', '.join(CATALOG_FORMATS)} (auto: detected from each file's content; "
    "yaml: toolsearch's own, in YAML or JSON).",
    metavar="FORMAT",
)


def check_catalog_format(value: str) -> str | None:
    """The --catalog-format value for load_catalog (None for auto); unknown names are a usage error."""
    if value not in CATALOG_FORMATS:
        from ..errors import UsageError, did_you_mean

        raise UsageError(
            f"unknown catalog format {value!r}{did_you_mean(value, CATALOG_FORMATS)}; "
            f"choose from {', '.join(CATALOG_FORMATS)}",
            field="catalog-format",
        )
    return None if value == "auto" else value


FORMATS = ("table", "json")


FORMAT_OPTION = typer.Option(
    "table", "--format", "-f", help="Output: table (for people) or json (stable, for scripts).", metavar="FORMAT"
)

CONTEXT_OPTION = typer.Option(
    None,
    "--context",
    help="Request context attribute key=value (e.g. role=admin); repeatable. Tools that require other "
    "attributes are hidden, as they are from a model.",
    metavar="KEY=VALUE",
)

WIDE_OPTION = typer.Option(False, "--wide", "-w", help="Show descriptions in full (wrapped), not cut to fit a line.")


def check_format(value: str) -> str:
    if value not in FORMATS:
        from ..errors import UsageError, did_you_mean

        raise UsageError(f"unknown format {value!r}{did_you_mean(value, FORMATS)}; choose from {', '.join(FORMATS)}")
    return value
