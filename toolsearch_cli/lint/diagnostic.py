"""What rules find (:class:`Finding`) and what the engine reports (:class:`Diagnostic`)."""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import Any, Literal

from ..model import Location, Tool

Severity = Literal["error", "warning", "info"]
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")
#: How severe each level is, for ``--fail-on``: a run fails on findings at or above the level.
SEVERITY_RANK: dict[str, int] = {"info": 0, "warning": 1, "error": 2}


@dataclass(slots=True, frozen=True)
class Related:
    """A second place a finding is about (the other tool of a confusable pair, the first duplicate)."""

    message: str
    file: str | None = None
    line: int | None = None
    column: int | None = None
    tool: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "message": self.message,
            "filename": self.file,
            "location": {"row": self.line, "column": self.column},
            "tool": self.tool,
        }


@dataclass(slots=True)
class Finding:
    """What a rule yields: a message and where. The engine adds code, name and severity."""

    message: str
    file: str | None = None
    line: int | None = None
    column: int | None = None
    tool: str | None = None
    field: str | None = None
    related: list[Related] = dataclass_field(default_factory=list)
    #: Lines that show the finding in full (the ``lock`` rules' diff of what changed).
    detail: list[str] = dataclass_field(default_factory=list)

    @classmethod
    def at(cls, tool: Tool, field: str | None, message: str, related: list[Related] | None = None) -> Finding:
        """A finding on a tool's field, located at that field (else its nearest parent, else the tool)."""
        where = tool.location_of(field) if field else tool.source
        return cls(message, *_parts(where), tool=tool.name, field=field, related=related or [])


def related_to(tool: Tool, message: str, field: str | None = None) -> Related:
    """A related location pointing at another tool (or one of its fields)."""
    where = tool.location_of(field) if field else tool.source
    file, line, column = _parts(where)
    return Related(message, file, line, column, tool.name)


def _parts(where: Location | None) -> tuple[str | None, int | None, int | None]:
    if where is None:
        return None, None, None
    return where.file, where.line, where.column


@dataclass(slots=True, frozen=True)
class Diagnostic:
    """A finding stamped with its rule's code, name and (configured) severity."""

    code: str
    name: str
    severity: Severity
    message: str
    file: str | None = None
    line: int | None = None
    column: int | None = None
    tool: str | None = None
    field: str | None = None
    related: tuple[Related, ...] = ()
    url: str | None = None
    #: How many findings of this rule on this tool the diagnostic stands for (repeats are
    #: collapsed into the first one), and the fields of all of them, in order.
    count: int = 1
    fields: tuple[str, ...] = ()
    #: Lines under the message that show the finding in full (a diff); empty for most rules.
    detail: tuple[str, ...] = ()

    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.file or "", self.line or 0, self.column or 0, self.code, self.message)

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape (ruff-like keys; add, never rename)."""
        return {
            "code": self.code,
            "name": self.name,
            "message": self.message,
            "severity": self.severity,
            "filename": self.file,
            "location": {"row": self.line, "column": self.column},
            "tool": self.tool,
            "field": self.field,
            "related": [r.to_dict() for r in self.related],
            "url": self.url,
            "count": self.count,
            "fields": list(self.fields) if self.fields else ([self.field] if self.field else []),
            "detail": list(self.detail),
        }
