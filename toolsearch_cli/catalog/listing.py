"""What ``toolsearch catalog`` and ``catalog convert`` compute, as typed results the command renders.

:func:`list_catalog` loads a catalog (through the on-disk cache) and returns a
:class:`CatalogListing` whose :meth:`~CatalogListing.to_dict` is the command's JSON;
:func:`convert_catalog` writes a catalog in another format and returns the text with the
warnings of the conversion (a tool that cannot be exported as asked)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import UsageError
from ..model import Catalog
from .lenient import LoadWarning
from .loading import LoadedCatalog, load_catalog, load_catalog_result

if TYPE_CHECKING:
    from .loading import SourcesLike


@dataclass(frozen=True)
class CatalogListing:
    """A loaded catalog and the warnings of its load, for listing."""

    loaded: LoadedCatalog

    @property
    def catalog(self) -> Catalog:
        return self.loaded.catalog

    @property
    def warnings(self) -> tuple[LoadWarning, ...]:
        return self.loaded.warnings

    def to_dict(self) -> dict[str, Any]:
        """Sources, resident names, warnings and one entry per tool (what ``--format json`` prints)."""
        catalog = self.catalog
        resident = set(catalog.resident)
        return {
            "sources": catalog.sources,
            "resident": catalog.resident,
            "warnings": [warning.to_dict() for warning in self.warnings],
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
                for t in catalog.tools
            ],
        }


def list_catalog(sources: SourcesLike = None, catalog_format: str | None = None) -> CatalogListing:
    """Load ``sources`` (through the on-disk cache) for listing; bad input is a ToolsearchError."""
    return CatalogListing(load_catalog_result(sources, catalog_format, cache=True))


@dataclass(frozen=True)
class Conversion:
    """A catalog written in another format: the text, how many tools, and what could not be kept."""

    text: str
    to: str
    tools: int
    warnings: tuple[LoadWarning, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": self.to,
            "tools": self.tools,
            "warnings": [warning.to_dict() for warning in self.warnings],
            "text": self.text,
        }


def check_conversion(to: str, plain: bool) -> None:
    """Refuse an unknown target format, or ``--plain`` with the yaml format (which carries everything)."""
    from .export import check_export_format

    check_export_format(to)
    if to == "yaml" and plain:
        raise UsageError("--plain applies to the provider formats; the yaml format always carries everything")


def convert_catalog(
    sources: SourcesLike,
    to: str,
    *,
    catalog_format: str | None = None,
    plain: bool = False,
    strict: bool = False,
) -> Conversion:
    """Load ``sources`` and write them as ``to`` (see :data:`export.EXPORTER_BY_NAME`); the
    conversion's warnings are collected (raised instead under ``--strict`` loading)."""
    from .export import export_catalog
    from .lenient import collecting, settings

    check_conversion(to, plain)
    catalog = load_catalog(sources, catalog_format)
    with collecting(settings().strict) as problems:
        text = export_catalog(catalog, to, plain=plain, strict=strict)
    return Conversion(text=text, to=to, tools=len(catalog), warnings=tuple(problems))
