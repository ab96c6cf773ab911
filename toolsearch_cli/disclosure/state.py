"""Agent-mode run state: the disclosed tool names live in run metadata, saved to a JSON file.

Only names are stored (never tool definitions); a restored run re-resolves them against the
catalog and the request's context, so a name that has since become unknown or invisible is not
disclosed again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..bounded import loads_json, path_problem
from ..errors import UsageError
from ..files import read_text, write_text_atomic

ACTIVE_TOOL_NAMES_KEY = "agentsflex.toolsearch.activeToolNames"
#: Tools called since the last search, oldest first (the cumulative policy counts a call as a use).
USED_SINCE_SEARCH_KEY = "agentsflex.toolsearch.usedSinceLastSearch"
STATE_FORMAT = "toolsearch.run-state"


@dataclass(slots=True)
class RunState:
    """Metadata of one agent run; ``active_names`` is the list under :data:`ACTIVE_TOOL_NAMES_KEY`."""

    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def active_names(self) -> list[str]:
        names = self.metadata.get(ACTIVE_TOOL_NAMES_KEY) or []
        return [n for n in names if isinstance(n, str)]

    @active_names.setter
    def active_names(self, names: list[str]) -> None:
        self.metadata[ACTIVE_TOOL_NAMES_KEY] = list(names)

    def to_dict(self) -> dict[str, Any]:
        return {"format": STATE_FORMAT, "version": 1, "metadata": self.metadata}

    def save(self, path: str | Path) -> None:
        """Write the state atomically (a crash never leaves a half-written file)."""
        path = Path(path)
        text = json.dumps(self.to_dict(), ensure_ascii=False, indent=2) + "\n"
        write_text_atomic(path, text, what="the run state", error=UsageError, field="state")

    @classmethod
    def load(cls, path: str | Path) -> RunState:
        """Read a state file written by :meth:`save` (or a bare metadata mapping)."""
        file = str(path)
        try:
            text = read_text(path, file, what="the run state", error=UsageError)
        except UsageError as exc:
            exc.field = "state"
            raise
        data = loads_json(text, file, error=UsageError, what="the run state is not valid JSON")
        metadata = data.get("metadata", data) if isinstance(data, dict) else None
        if not isinstance(metadata, dict):
            raise UsageError("the run state must be a JSON object with 'metadata'", file=file, line=1)
        names = metadata.get(ACTIVE_TOOL_NAMES_KEY, [])
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise UsageError(f"'{ACTIVE_TOOL_NAMES_KEY}' must be a list of tool names", file=file, field="metadata")
        return cls(metadata=dict(metadata))

    @classmethod
    def load_or_new(cls, path: str | Path | None) -> RunState:
        if path is not None and path_problem(path) != "no such file":  # unreadable, a name too long: say so
            return cls.load(path)
        return cls()
