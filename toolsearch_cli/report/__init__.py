"""Pure renderers of lint results to text for machines: JSON, GitHub annotations, SARIF 2.1.0.

Each takes the diagnostics (and the rules, for SARIF's rule table) and returns a string; the
CLI prints it. Text for people is rendered with Rich in :mod:`toolsearch_cli.cli`.
"""

from __future__ import annotations

from ..lint.run import Reporter
from .github import render_github
from .json_format import render_json
from .sarif import render_sarif

#: Machine formats by name (what :func:`toolsearch_cli.lint.run_lint` is given to render them);
#: the CLI adds ``text`` (Rich) and ``auto``.
REPORTER_BY_NAME: dict[str, Reporter] = {
    "json": lambda diagnostics, rules: render_json(diagnostics),
    "github": lambda diagnostics, rules: render_github(diagnostics),
    "sarif": render_sarif,
}

__all__ = ["REPORTER_BY_NAME", "Reporter", "render_github", "render_json", "render_sarif"]
