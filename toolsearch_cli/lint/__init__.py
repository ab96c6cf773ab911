"""Tool-metadata lint: rules with stable codes (TS###), an engine, configuration, diagnostics.

``lint(sources, config)`` loads every catalog file on its own (a broken file is a finding, not
a crash), runs the enabled rules and returns sorted :class:`Diagnostic` objects. Rendering is
in :mod:`toolsearch_cli.report` (JSON, GitHub, SARIF) and the CLI (text).
"""

from __future__ import annotations

from .config import LintConfig, find_config, load_config
from .diagnostic import Diagnostic, Finding, Related, Severity
from .engine import LintResult, lint
from .rule import FAMILIES, Rule
from .run import LintReport, run_lint
from .settings import LintSettings

__all__ = [
    "FAMILIES",
    "Diagnostic",
    "Finding",
    "LintConfig",
    "LintReport",
    "LintResult",
    "LintSettings",
    "Related",
    "Rule",
    "Severity",
    "find_config",
    "lint",
    "load_config",
    "run_lint",
]
