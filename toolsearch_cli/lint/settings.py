"""What ``toolsearch lint`` is told, typed and checked in one place (:class:`LintSettings`).

The command turns its options into these settings; :func:`toolsearch_cli.lint.run.run_lint` runs
them. Every check of an option, or of two options together, is made here, in the order the
command has always reported them (format, then ``--fail-on``, then ``--statistics`` with a format).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from ..errors import UsageError, did_you_mean
from ..search.embed_settings import EmbedSettings
from .config import LintConfig, find_config, load_config
from .diagnostic import SEVERITIES, Severity
from .rule import Rule

if TYPE_CHECKING:
    from ..catalog.sources import Source

#: The ``--format`` choices: the machine formats of :data:`toolsearch_cli.report.REPORTER_BY_NAME`,
#: ``text`` (for people, rendered by the CLI) and ``auto``.
LINT_FORMATS: tuple[str, ...] = ("text", "json", "github", "sarif", "auto")
LintFormat = Literal["text", "json", "github", "sarif"]


def split_selectors(values: Sequence[str] | None) -> list[str] | None:
    """``["TS1,TS2", " TS3 "]`` (or ``"TS1,TS2"``) -> ``["TS1", "TS2", "TS3"]``; ``None`` (not given) stays."""
    if values is None:
        return None
    if isinstance(values, str):  # one comma list given as text, not a list of them
        values = [values]
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


@dataclass
class LintSettings:
    """A lint run: what to lint, which rules, how to report, and when it fails.

    ``output_format`` ``auto`` becomes ``github`` when ``github_actions`` is true (the CLI passes
    whether ``$GITHUB_ACTIONS`` is ``true``) and not ``statistics``, else ``text``; the resolved
    value is :attr:`format`. ``select``, ``extend_select`` and ``ignore`` take comma lists too.
    """

    paths: Sequence[str | Source] | None = None
    output_format: str = "auto"
    config: Path | str | None = None
    isolated: bool = False
    preset: str | None = None
    select: list[str] | None = None
    extend_select: list[str] | None = None
    ignore: list[str] | None = None
    strict: bool = False
    fail_on: str | None = None
    exit_zero: bool = False
    statistics: bool = False
    ranker: str | None = None
    #: The lockfile to check every tool against (``--locked``; the ``lock`` rules, TS8xx).
    locked: str | None = None
    github_actions: bool = False
    #: The embedding model of dense rankers and TS207's semantic layer (``None``: the library default).
    embed: EmbedSettings | None = None
    #: The format the report is written in (``auto`` resolved).
    format: LintFormat = field(init=False)
    #: ``fail_on`` as a severity (``None``: errors fail, or any finding with ``strict``).
    level: Severity | None = field(init=False)

    def __post_init__(self) -> None:
        fmt = self.output_format
        if fmt not in LINT_FORMATS:
            raise UsageError(
                f"unknown format {fmt!r}{did_you_mean(fmt, LINT_FORMATS)}; choose from {', '.join(LINT_FORMATS)}"
            )
        level = next((s for s in SEVERITIES if s == self.fail_on), None)
        if self.fail_on is not None and level is None:
            raise UsageError(
                f"unknown --fail-on level {self.fail_on!r}{did_you_mean(self.fail_on, SEVERITIES)}; "
                f"choose from {', '.join(SEVERITIES)}"
            )
        if self.statistics and fmt not in ("text", "auto"):
            raise UsageError(f"--statistics prints a text table; it cannot be combined with --format {fmt}")
        if fmt == "auto":  # the statistics table is text, also under GitHub Actions
            fmt = "github" if self.github_actions and not self.statistics else "text"
        self.format = fmt  # type: ignore[assignment]  # one of LINT_FORMATS but auto, checked above
        self.level = level
        self.paths = list(self.paths) if self.paths else None
        self.select = split_selectors(self.select)
        self.extend_select = split_selectors(self.extend_select)
        self.ignore = split_selectors(self.ignore)

    def lint_config(self, rules: dict[str, Rule], warn: Callable[[str], None] | None = None) -> LintConfig:
        """The configuration to lint with: the configuration file's (``config``, else the nearest one;
        none when ``isolated``), then the command line's preset, selections and ranker over it.
        ``warn`` hears about a configuration file that is passed over."""
        config = LintConfig() if self.isolated else load_config(self.config or find_config(warn=warn))
        if self.ranker is not None:  # every rule with a ranker option (the findability rules) uses this one
            for code, rule in rules.items():
                if "ranker" in rule.options:
                    config.rules.setdefault(code, {})["ranker"] = self.ranker
        if self.locked is not None:  # the lock rules check against it (all of them, unless --select says which)
            for code, rule in rules.items():
                if "lockfile" in rule.options:
                    config.rules.setdefault(code, {})["lockfile"] = self.locked
            if self.select is None:
                config.extend_select = [*config.extend_select, "lock"]
        overrides: dict[str, object] = {}
        if self.preset is not None:
            overrides["preset"] = self.preset
        for key, value in (("select", self.select), ("extend-select", self.extend_select), ("ignore", self.ignore)):
            if value is not None:
                overrides[key] = value
        if overrides:
            merged = LintConfig.from_mapping(overrides, origin="command line")
            if self.preset is not None:
                config.preset = merged.preset
            if self.select is not None:
                config.select = merged.select
            config.extend_select = [*config.extend_select, *merged.extend_select]
            config.ignore = [*config.ignore, *merged.ignore]
        return config
