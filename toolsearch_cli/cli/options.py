"""Options shared by several commands."""

from __future__ import annotations

import typer

from ..catalog import ENV_VAR

CATALOG_HELP = (
    f"Catalog source: a YAML file, a folder of YAML files, a .py file or a module name; repeatable. "
    f"Default: ${ENV_VAR}, else ./catalogs, else the bundled demo."
)


CATALOG_OPTION = typer.Option(None, "--catalog", "-c", help=CATALOG_HELP, metavar="SOURCE")


FORMATS = ("table", "json")


FORMAT_OPTION = typer.Option(
    "table", "--format", "-f", help="Output: table (for people) or json (stable, for scripts)."
)


def check_format(value: str) -> str:
    if value not in FORMATS:
        from ..errors import UsageError, did_you_mean

        raise UsageError(f"unknown format {value!r}{did_you_mean(value, FORMATS)}; choose from {', '.join(FORMATS)}")
    return value
