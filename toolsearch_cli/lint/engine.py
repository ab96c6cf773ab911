"""The engine: load, run the enabled rules, stamp code/name/severity, apply suppressions, sort."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from ..catalog.each_file import load_files
from ..catalog.loading import SourcesLike
from ..catalog.sources import parse_sources
from ..search.embed_settings import EmbedSettings
from .config import LintConfig, ResolvedConfig
from .context import LintContext
from .diagnostic import SEVERITY_RANK, Diagnostic, Finding, Severity
from .rule import Rule
from .suppression import inline_ignores, selector_codes

#: Docs link stamped on each diagnostic; ``None`` while the rules are documented by ``toolsearch rule``.
RULE_URL: str | None = None


@dataclass(frozen=True)
class RuleCount:
    """How often one rule fired in a run: findings (repeats included) and diagnostics (tools)."""

    code: str
    name: str
    severity: Severity
    findings: int
    tools: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "name": self.name,
            "severity": self.severity,
            "findings": self.findings,
            "tools": self.tools,
        }


@dataclass(frozen=True)
class LintStep:
    """Where a lint run is, told to a ``progress`` callback: ``done`` of ``total`` rules have run
    over ``tools`` tools; ``rule`` is the code of the rule about to run (``None`` once all are done).
    The engine draws nothing: the CLI turns these into a progress bar on a terminal."""

    done: int
    total: int
    tools: int
    rule: str | None


#: A lint run's progress callback: called before the first rule, after each rule, and at the end.
LintProgress = Callable[[LintStep], None]


@dataclass
class LintResult:
    """Diagnostics (sorted by file, line, column, code) and what was checked."""

    diagnostics: list[Diagnostic]
    files: list[str] = field(default_factory=list)
    tool_count: int = 0
    rules_run: list[str] = field(default_factory=list)

    def count(self, severity: Severity) -> int:
        return sum(1 for d in self.diagnostics if d.severity == severity)

    def occurrences(self) -> int:
        """Findings before collapsing (each diagnostic counts the repeats it stands for)."""
        return sum(d.count for d in self.diagnostics)

    def failed(self, *, strict: bool = False, fail_on: Severity | None = None) -> bool:
        """Whether any diagnostic is at or above the failure level: ``fail_on`` when given, else
        errors (any finding when ``strict``)."""
        level = fail_on or ("info" if strict else "error")
        return any(SEVERITY_RANK[d.severity] >= SEVERITY_RANK[level] for d in self.diagnostics)

    def rule_counts(self) -> list[RuleCount]:
        """One entry per rule that found something, most findings first (then by code)."""
        counts: dict[tuple[str, str, Severity], list[int]] = {}
        for d in self.diagnostics:
            entry = counts.setdefault((d.code, d.name, d.severity), [0, 0])
            entry[0] += d.count
            entry[1] += 1
        ordered = sorted(counts.items(), key=lambda kv: (-kv[1][0], kv[0][0]))
        return [RuleCount(code, name, severity, n, tools) for (code, name, severity), (n, tools) in ordered]

    def to_dict(self) -> dict[str, Any]:
        """Everything the run found and checked (``diagnostics`` is the ``--format json`` list)."""
        return {
            "diagnostics": [d.to_dict() for d in self.diagnostics],
            "files": list(self.files),
            "tool_count": self.tool_count,
            "rules_run": list(self.rules_run),
            "counts": {severity: self.count(severity) for severity in ("error", "warning", "info")},
            "findings": self.occurrences(),
            "rules": [c.to_dict() for c in self.rule_counts()],
        }


def lint(
    sources: SourcesLike = None,
    config: LintConfig | None = None,
    rules: dict[str, Rule] | None = None,
    *,
    embed: EmbedSettings | None = None,
    progress: LintProgress | None = None,
) -> LintResult:
    r"""Lint catalog sources (parsed :class:`~toolsearch_cli.catalog.Source`\ s, or files, folders,
    modules, servers named as text and parsed here; ``None`` = the default catalog); ``embed``: the
    embedding model rules that rank or embed use (``None``: the library default); ``progress``:
    told each rule's start and end (:class:`LintStep`)."""
    from .rules import RULE_BY_CODE, load_rule_plugins

    if rules is None:
        load_rule_plugins()
    rules = rules or RULE_BY_CODE
    resolved = (config or LintConfig()).resolve(rules)
    ctx = LintContext(load_files(parse_sources(sources)), embed=embed)
    return run_rules(ctx, resolved, rules, progress=progress)


def run_rules(
    ctx: LintContext, resolved: ResolvedConfig, rules: dict[str, Rule], *, progress: LintProgress | None = None
) -> LintResult:
    """Run the enabled rules over a loaded context (rules marked ``runs_last`` after the others),
    telling ``progress`` before the first rule, after each and at the end."""
    ctx.suppression_codes = selector_codes(ctx.tools, rules)
    suppressed = _inline_suppressions(ctx)
    ctx.enabled = list(resolved.enabled)
    ctx.used_suppressions = set()
    diagnostics: list[Diagnostic] = []
    order = sorted(resolved.enabled, key=lambda c: rules[c].runs_last)
    for done, code in enumerate(order):
        if progress is not None:
            progress(LintStep(done, len(order), len(ctx.tools), code))
        rule = rules[code]
        for finding in rule.check(ctx, resolved.options[code]):
            if code in resolved.ignored_in(finding.file):
                continue
            used = _suppressed_by(code, finding, suppressed) if rule.inline_suppressible else None
            if used is not None:
                ctx.used_suppressions.add((*used, code))
                continue
            diagnostics.append(_stamp(rule, resolved.severities[code], finding))
    if progress is not None:
        progress(LintStep(len(order), len(order), len(ctx.tools), None))
    diagnostics.sort(key=Diagnostic.sort_key)
    return LintResult(
        diagnostics=collapse(diagnostics),
        files=[f.file for f in ctx.files],
        tool_count=len(ctx.tools),
        rules_run=list(resolved.enabled),
    )


def collapse(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """One diagnostic per rule per tool (per file): the first, with the number of findings it
    stands for in ``count`` and their fields in ``fields``, its message saying how many more there
    are. Findings on no tool (a broken file, a resident set) are kept one by one."""
    groups: dict[tuple[str | None, str, str], list[Diagnostic]] = {}
    order: list[Diagnostic | tuple[str | None, str, str]] = []
    for d in diagnostics:
        if d.tool is None:
            order.append(d)
            continue
        key = (d.file, d.tool, d.code)
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(d)
    out: list[Diagnostic] = []
    for item in order:
        if isinstance(item, Diagnostic):
            out.append(item)
            continue
        group = groups[item]
        first = group[0]
        fields = tuple(dict.fromkeys(d.field for d in group if d.field))
        if len(group) == 1:
            out.append(replace(first, fields=fields))
            continue
        more = len(group) - 1
        shown = ", ".join(fields[1:4]) + (f" and {len(fields) - 4} more" if len(fields) > 4 else "")
        where = f" ({shown})" if len(fields) > 1 else ""
        message = f"{first.message} [and {more} more like it in this tool{where}]"
        out.append(replace(first, message=message, count=len(group), fields=fields))
    return out


def _stamp(rule: Rule, severity: Severity, finding: Finding) -> Diagnostic:
    return Diagnostic(
        code=rule.code,
        name=rule.name,
        severity=severity,
        message=finding.message,
        file=finding.file,
        line=finding.line,
        column=finding.column,
        tool=finding.tool,
        field=finding.field,
        related=tuple(finding.related),
        detail=tuple(finding.detail),
        url=RULE_URL.format(code=rule.code, name=rule.name) if RULE_URL else None,
    )


def _inline_suppressions(ctx: LintContext) -> dict[tuple[str | None, str], set[str]]:
    """(file, tool name) -> codes its ``lint: {ignore: [...]}`` turns off. Entries naming no rule
    are left to the ``unknown-suppression`` rule, which reports them."""
    out: dict[tuple[str | None, str], set[str]] = {}
    for tool in ctx.tools:
        codes: set[str] = set()
        for selector in inline_ignores(tool):
            codes.update(ctx.suppression_codes.get(selector) or ())
        if codes:
            key = (tool.source.file if tool.source else None, tool.name)
            out.setdefault(key, set()).update(codes)
    return out


def _suppressed_by(
    code: str, finding: Finding, suppressed: dict[tuple[str | None, str], set[str]]
) -> tuple[str | None, str] | None:
    """The (file, tool) whose inline ignore silences this finding, or ``None``."""
    if not suppressed:
        return None
    places = [(finding.file, finding.tool)] + [(r.file, r.tool) for r in finding.related]
    for file, tool in places:
        if tool is not None and code in suppressed.get((file, tool), ()):
            return file, tool
    return None
