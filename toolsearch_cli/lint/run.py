"""One lint run as ``toolsearch lint`` makes it: :func:`run_lint` takes :class:`LintSettings` and
returns a :class:`LintReport`, which knows whether the run failed and renders the machine formats.
Text for people is rendered by the CLI from the same report."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .engine import LintResult, lint
from .rule import Rule
from .settings import LintSettings


@dataclass
class LintReport:
    """A finished run: the result, the settings it ran with, and the rules it knew."""

    result: LintResult
    settings: LintSettings
    rules: Mapping[str, Rule]

    @property
    def failed(self) -> bool:
        """Whether a finding reaches the failure level (``--fail-on``, ``--strict``; default: errors)."""
        return self.result.failed(strict=self.settings.strict, fail_on=self.settings.level)

    @property
    def exit_code(self) -> int:
        """1 when the run failed (unless ``exit_zero``), else 0."""
        return 1 if self.failed and not self.settings.exit_zero else 0

    def render(self) -> str:
        """The report in a machine format (json, github, sarif: :attr:`LintSettings.format`)."""
        from ..report import REPORTER_BY_NAME

        fmt = self.settings.format
        if fmt not in REPORTER_BY_NAME:
            raise ValueError(f"{fmt!r} is rendered by the CLI, not as a machine format")
        return REPORTER_BY_NAME[fmt](self.result.diagnostics, self.rules)

    def to_dict(self) -> dict[str, Any]:
        """The result's data and the verdict (``--format json`` prints its ``diagnostics``)."""
        return {**self.result.to_dict(), "failed": self.failed, "exit_code": self.exit_code}


def run_lint(settings: LintSettings, *, warn: Callable[[str], None] | None = None) -> LintReport:
    """Lint ``settings.paths`` with the configuration the settings name (see
    :meth:`LintSettings.lint_config`); ``warn`` hears about a configuration file passed over."""
    from .rules import RULE_BY_CODE

    config = settings.lint_config(RULE_BY_CODE, warn=warn)
    result = lint(settings.paths, config, embed=settings.embed)  # loads the rule plugins into RULE_BY_CODE
    return LintReport(result, settings, RULE_BY_CODE)
