"""The Python source kind: a ``.py`` file or an importable module (``pkg.tools``) whose
``@tool`` functions are the catalog. Loading one imports it: it runs code, so it is loaded only
when the command line names it (see :func:`..unnamed_code.refuse_unnamed_code`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from ...bounded import safe_exists

if TYPE_CHECKING:
    from ..result import LoadResult


def is_module_reference(source: str) -> bool:
    """A dotted module name (``pkg.tools``) rather than a path."""
    return bool(re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*", source)) and not safe_exists(source)


@dataclass(frozen=True)
class ModuleSource:
    """A Python file (``is_file``) or a dotted module name (a :class:`~.base.Source`)."""

    kind: ClassVar[str] = "module"
    text: str
    is_file: bool = False

    @property
    def shown(self) -> str:
        return self.text

    @property
    def runs_code(self) -> str | None:
        return "imports a Python file" if self.is_file else "imports a Python module"

    def cache_files(self) -> list[Path]:
        return []  # what a module defines depends on more than its file

    def load(self, catalog_format: str | None = None, *, prefix: bool = False) -> LoadResult:
        from ..python_loader import load_python_module

        return load_python_module(self.text)


__all__ = ["ModuleSource", "is_module_reference"]
