"""Inline suppressions: a tool's ``lint: {ignore: [...]}`` and the rules each entry names.

The engine resolves every entry once per run (:func:`selector_codes`) and puts the answer on the
context, where the ``unknown-suppression`` and ``unused-suppression`` rules read it; so no rule
needs the rule registry, and the rules never import the engine.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..errors import UsageError
from ..model import Tool
from .config import select_rules
from .rule import Rule


def inline_ignores(tool: Tool) -> list[str]:
    """The rules a tool's ``lint: {ignore: [...]}`` names (a single string is taken as one entry)."""
    wanted = tool.lint.get("ignore") or []
    if isinstance(wanted, str):
        return [wanted]
    return [str(w) for w in wanted] if isinstance(wanted, list | tuple | set) else []


def selector_codes(tools: Iterable[Tool], rules: Mapping[str, Rule]) -> dict[str, tuple[str, ...] | None]:
    """Every inline-ignore entry of these tools -> the codes it selects among ``rules``
    (``None``: it names no rule, which ``unknown-suppression`` reports)."""
    out: dict[str, tuple[str, ...] | None] = {}
    for tool in tools:
        for selector in inline_ignores(tool):
            if selector in out:
                continue
            try:
                out[selector] = tuple(select_rules([selector], rules))
            except UsageError:
                out[selector] = None
    return out
