"""What every catalog loader returns: :class:`LoadResult`."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..model import Catalog, Tool, ToolGroup

if TYPE_CHECKING:
    from .lenient import LoadWarning


@dataclass(frozen=True, kw_only=True)
class LoadResult:
    """What loading one source (a file, a folder, a module, a live server, a registry) gave: its
    tools in source order, the names of the resident ones, its tool groups, and the warnings of
    the load (what was left out or changed, see :mod:`.lenient`), in source order.

    Frozen; the sequences are stored as tuples whatever was passed in."""

    tools: Sequence[Tool] = ()
    resident: Sequence[str] = ()
    groups: Sequence[ToolGroup] = ()
    warnings: Sequence[LoadWarning] = ()

    def __post_init__(self) -> None:
        for name in ("tools", "resident", "groups", "warnings"):
            value = getattr(self, name)
            if not isinstance(value, tuple):
                object.__setattr__(self, name, tuple(value))

    @staticmethod
    def merged(results: Iterable[LoadResult]) -> LoadResult:
        """Several sources' results as one, in order (a resident name given twice counts once)."""
        tools: list[Tool] = []
        resident: dict[str, None] = {}
        groups: list[ToolGroup] = []
        warnings: list[LoadWarning] = []
        for result in results:
            tools.extend(result.tools)
            resident.update(dict.fromkeys(result.resident))
            groups.extend(result.groups)
            warnings.extend(result.warnings)
        return LoadResult(tools=tools, resident=list(resident), groups=groups, warnings=warnings)

    def to_catalog(self, sources: Sequence[str] = ()) -> Catalog:
        """A :class:`Catalog` of these tools (checked: unique names, known resident and group tools)."""
        return Catalog(
            tools=list(self.tools), resident=list(self.resident), sources=list(sources), groups=list(self.groups)
        )


__all__ = ["LoadResult"]
