"""What rules see: every loaded tool, the resident names, and a searchable catalog built once."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..catalog.each_file import LoadedFile
from ..model import RESERVED_NAMES, Catalog, Tool
from ..search.embed_settings import EmbedSettings


@dataclass
class LintContext:
    """The loaded files and their tools (duplicates included: finding them is a rule's job)."""

    files: list[LoadedFile]
    tools: list[Tool] = field(default_factory=list)
    #: Resident names with the file (and line) that declared them.
    resident: list[tuple[str, str]] = field(default_factory=list)
    resident_lines: dict[str, int | None] = field(default_factory=dict)
    #: Set by the engine while it runs: the enabled codes, and the inline ignores that silenced
    #: something, as (file, tool, code) — what ``unused-suppression`` checks against.
    enabled: list[str] = field(default_factory=list)
    used_suppressions: set[tuple[str | None, str, str]] = field(default_factory=set)
    #: Set by the engine: each inline-ignore entry -> the codes it selects (``None``: no rule).
    suppression_codes: dict[str, tuple[str, ...] | None] = field(default_factory=dict)
    #: The embedding model of the dense rankers and the semantic layer of TS207 (``None``: the
    #: library default, ``TOOLSEARCH_EMBED_*``).
    embed: EmbedSettings | None = None
    _cache: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for loaded in self.files:
            self.tools.extend(loaded.tools)
            self.resident.extend((name, loaded.file) for name in loaded.resident)
            self.resident_lines[loaded.file] = loaded.resident_line

    def catalog(self) -> Catalog:
        """The catalog search sees: first tool of each name, reserved names and unknown residents left out."""

        def build() -> Catalog:
            unique: dict[str, Tool] = {}
            for tool in self.tools:
                if tool.name not in RESERVED_NAMES:
                    unique.setdefault(tool.name, tool)
            resident = [n for n in dict.fromkeys(n for n, _ in self.resident) if n in unique]
            return Catalog(tools=list(unique.values()), resident=resident)

        return self.cached("catalog", build)

    def cached(self, key: str, build: Callable[[], Any]) -> Any:
        """A value computed once per lint run and shared between rules (rankings, token counts)."""
        if key not in self._cache:
            self._cache[key] = build()
        return self._cache[key]
