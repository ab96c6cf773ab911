"""One lint run as ``toolsearch lint`` makes it: :func:`run_lint` takes :class:`LintSettings` and
returns a :class:`LintReport`, which knows whether the run failed and renders the machine formats
with the reporters it was given (:data:`toolsearch_cli.report.REPORTER_BY_NAME`: the layer above
passes them in, ``lint`` never imports ``report``). Text for people is rendered by the CLI from
the same report."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .diagnostic import Diagnostic
from .engine import LintProgress, LintResult, lint
from .rule import Rule
from .settings import LintSettings

#: Renders a run's findings (and the rules, for SARIF's rule table) in a machine format.
Reporter = Callable[[Sequence[Diagnostic], Mapping[str, Rule]], str]


@dataclass
class LintReport:
    """A finished run: the result, the settings it ran with, the rules it knew, and the reporters
    of the machine formats by name (what :meth:`render` can render)."""

    result: LintResult
    settings: LintSettings
    rules: Mapping[str, Rule]
    reporters: Mapping[str, Reporter] = field(default_factory=dict)

    @property
    def failed(self) -> bool:
        """Whether a finding reaches the failure level (``--fail-on``, ``--strict``; default: errors)."""
        return self.result.failed(strict=self.settings.strict, fail_on=self.settings.level)

    @property
    def exit_code(self) -> int:
        """1 when the run failed (unless ``exit_zero``), else 0."""
        return 1 if self.failed and not self.settings.exit_zero else 0

    def render(self) -> str:
        """The report in a machine format (json, github, sarif: :attr:`LintSettings.format`), by the
        reporter of that name the run was given."""
        fmt = self.settings.format
        if fmt == "text":
            raise ValueError(f"{fmt!r} is rendered by the CLI, not as a machine format")
        if fmt not in self.reporters:
            raise ValueError(
                f"no reporter for {fmt!r}: pass reporters=toolsearch_cli.report.REPORTER_BY_NAME to run_lint"
            )
        return self.reporters[fmt](self.result.diagnostics, self.rules)

    def to_dict(self) -> dict[str, Any]:
        """The result's data and the verdict (``--format json`` prints its ``diagnostics``)."""
        return {**self.result.to_dict(), "failed": self.failed, "exit_code": self.exit_code}


def run_lint(
    settings: LintSettings,
    *,
    warn: Callable[[str], None] | None = None,
    reporters: Mapping[str, Reporter] | None = None,
    progress: LintProgress | None = None,
) -> LintReport:
    """Lint ``settings.paths`` with the configuration the settings name (see
    :meth:`LintSettings.lint_config`); ``warn`` hears about a configuration file passed over;
    ``reporters`` render the machine formats (:data:`toolsearch_cli.report.REPORTER_BY_NAME`);
    ``progress`` is told each rule's start and end (:class:`~toolsearch_cli.lint.engine.LintStep`)."""
    from .rules import RULE_BY_CODE

    config = settings.lint_config(RULE_BY_CODE, warn=warn)
    # lint() loads the rule plugins into RULE_BY_CODE
    result = lint(settings.paths, config, embed=settings.embed, progress=progress)
    return LintReport(result, settings, RULE_BY_CODE, dict(reporters or {}))
