"""The library entry of ``toolsearch lint``: :class:`LintSettings` (every option check, once) and
:func:`run_lint` returning a typed :class:`LintReport`, called directly, without the CLI."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

import toolsearch_cli.lint as lint_package
from toolsearch_cli.errors import UsageError
from toolsearch_cli.lint.engine import LintResult, RuleCount
from toolsearch_cli.lint.rules import RULE_BY_CODE
from toolsearch_cli.lint.run import LintReport, run_lint
from toolsearch_cli.lint.settings import LintSettings, split_selectors
from toolsearch_cli.report import REPORTER_BY_NAME

from ..conftest import ROOT

BAD = str(ROOT / "catalogs" / "bad")
BAD_CONFIG = ROOT / "catalogs" / "bad" / ".toolsearch.yaml"


def write(folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"output_format": "xml"}, "unknown format 'xml'; choose from text, json, github, sarif, auto"),
        ({"output_format": "jsno"}, "unknown format 'jsno' (did you mean 'json'?)"),
        ({"fail_on": "warn"}, "unknown --fail-on level 'warn' (did you mean 'warning'?); choose from error, warning"),
        (
            {"statistics": True, "output_format": "sarif"},
            "--statistics prints a text table; it cannot be combined with --format sarif",
        ),
        # the format is judged first, as the command always did
        ({"output_format": "xml", "fail_on": "nope"}, "unknown format 'xml'"),
    ],
)
def test_settings_refuse_bad_options_and_combinations(options, message):
    with pytest.raises(UsageError) as caught:
        LintSettings(**options)
    assert message in str(caught.value)
    assert caught.value.exit_code == 2


@pytest.mark.parametrize(
    ("output_format", "github_actions", "statistics", "resolved"),
    [
        ("auto", False, False, "text"),
        ("auto", True, False, "github"),
        ("auto", True, True, "text"),  # the statistics table is text, also under GitHub Actions
        ("sarif", True, False, "sarif"),
        ("text", True, False, "text"),
    ],
)
def test_settings_resolve_auto(output_format, github_actions, statistics, resolved):
    settings = LintSettings(output_format=output_format, github_actions=github_actions, statistics=statistics)
    assert settings.format == resolved


def test_settings_split_comma_lists_and_type_the_level():
    settings = LintSettings(select=["TS1, TS2", "TS3"], ignore=[" TS105 ,"], fail_on="warning", paths=[])
    assert settings.select == ["TS1", "TS2", "TS3"]
    assert settings.ignore == ["TS105"]
    assert settings.extend_select is None  # not given: the configuration's own stays
    assert settings.level == "warning"
    assert settings.paths is None  # no paths: the default catalog
    assert split_selectors(None) is None and split_selectors([",,"]) == []
    assert LintSettings(select="TS1,TS2").select == ["TS1", "TS2"]  # a library caller's text


def test_run_lint_returns_a_typed_report_whose_json_is_the_same_data():
    report = run_lint(LintSettings(paths=[BAD], output_format="json", isolated=True), reporters=REPORTER_BY_NAME)
    assert isinstance(report, LintReport) and isinstance(report.result, LintResult)
    assert report.failed and report.exit_code == 1
    assert len(report.result.files) == 8 and report.result.tool_count > 20
    document = report.to_dict()
    assert document["failed"] is True and document["exit_code"] == 1
    assert json.loads(report.render()) == document["diagnostics"]
    assert document["counts"]["error"] == report.result.count("error") > 0
    assert document["findings"] == sum(d["count"] for d in document["diagnostics"])
    assert {d["code"] for d in document["diagnostics"]} <= set(document["rules_run"])


def test_the_rule_counts_add_up_to_the_diagnostics():
    report = run_lint(LintSettings(paths=[BAD], isolated=True, statistics=True))
    counts = report.result.rule_counts()
    assert counts and all(isinstance(c, RuleCount) for c in counts)
    assert sum(c.tools for c in counts) == len(report.result.diagnostics)
    assert sum(c.findings for c in counts) == report.result.occurrences()
    assert [c.findings for c in counts] == sorted((c.findings for c in counts), reverse=True)
    assert report.to_dict()["rules"][0] == counts[0].to_dict()


def test_sarif_and_github_render_from_the_same_diagnostics():
    sarif = run_lint(LintSettings(paths=[BAD], output_format="sarif", isolated=True), reporters=REPORTER_BY_NAME)
    results = json.loads(sarif.render())["runs"][0]["results"]
    assert len(results) == len(sarif.result.diagnostics)
    github = run_lint(LintSettings(paths=[BAD], output_format="github", isolated=True), reporters=REPORTER_BY_NAME)
    assert github.render().count("::") >= len(github.result.diagnostics)
    text = run_lint(LintSettings(paths=[BAD], output_format="text", isolated=True), reporters=REPORTER_BY_NAME)
    with pytest.raises(ValueError, match="rendered by the CLI"):
        text.render()


def test_the_reporters_are_passed_in_and_lint_never_imports_report():
    """``lint`` is below ``report`` (issue 33: the reporter was fetched from the layer above, a
    package-level import loop): a run renders with the reporters it is given, and no module of
    ``toolsearch_cli/lint``, function-level imports included, imports ``toolsearch_cli.report``."""
    bare = run_lint(LintSettings(paths=[BAD], output_format="json", isolated=True))
    with pytest.raises(ValueError, match="pass reporters=toolsearch_cli.report.REPORTER_BY_NAME"):
        bare.render()
    calls = []
    given = run_lint(
        LintSettings(paths=[BAD], output_format="github", isolated=True),
        reporters={"github": lambda diagnostics, rules: calls.append(len(diagnostics)) or "rendered"},
    )
    assert given.render() == "rendered" and calls == [len(given.result.diagnostics)]
    package = Path(lint_package.__file__).parent
    for path in sorted(package.rglob("*.py")):
        dots = len(path.relative_to(package).parts)  # a module of lint/rules/ is two levels down
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                absolute = (node.module or "") if node.level == 0 else _absolute(node, dots)
                names = [f"{absolute}.{alias.name}" for alias in node.names]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            assert not any(n == "toolsearch_cli.report" or n.startswith("toolsearch_cli.report.") for n in names), (
                f"{path}:{node.lineno} imports {names}"
            )


def _absolute(node: ast.ImportFrom, depth: int) -> str:
    """``from ..report import X`` in toolsearch_cli/lint/run.py (depth 1) -> ``toolsearch_cli.report``."""
    here = ["toolsearch_cli", "lint", *["?"] * (depth - 1)]
    base = here[: len(here) - node.level + 1] if node.level <= len(here) else []
    return ".".join([*base, *([node.module] if node.module else [])])


def test_the_verdict_follows_fail_on_strict_and_exit_zero(tmp_path):
    source = write(tmp_path, "w.yaml", "tools:\n  - name: renameProject\n    description: Renames.\n")
    warning_only = run_lint(LintSettings(paths=[source], isolated=True))
    assert [d.severity for d in warning_only.result.diagnostics] == ["warning"]
    assert (warning_only.failed, warning_only.exit_code) == (False, 0)
    for options in ({"fail_on": "warning"}, {"fail_on": "info"}, {"strict": True}):
        report = run_lint(LintSettings(paths=[source], isolated=True, **options))
        assert (report.failed, report.exit_code) == (True, 1), options
    excused = run_lint(LintSettings(paths=[source], isolated=True, strict=True, exit_zero=True))
    assert (excused.failed, excused.exit_code) == (True, 0)


def test_command_line_selections_go_over_the_configuration_file(tmp_path):
    source = write(tmp_path, "w.yaml", "tools:\n  - name: renameProject\n    description: Renames.\n")
    everything = run_lint(LintSettings(paths=[BAD], config=BAD_CONFIG))
    unlocked = {code for code, rule in RULE_BY_CODE.items() if rule.family != "lock"}  # no lockfile given
    assert {d.code for d in everything.result.diagnostics} == unlocked
    narrowed = run_lint(LintSettings(paths=[BAD], isolated=True, select=["TS1"], ignore=["TS104"]))
    codes = {d.code for d in narrowed.result.diagnostics}
    assert codes and all(c.startswith("TS1") for c in codes) and "TS104" not in codes
    # --select replaces the file's selection; the file's extend-select still adds to it (as ruff does)
    over_file = run_lint(LintSettings(paths=[BAD], config=BAD_CONFIG, select=["TS1"], ignore=["TS104"]))
    codes = {d.code for d in over_file.result.diagnostics}
    extended = {"TS202", "TS207", "TS301", "TS302", "TS307", "TS309", "TS603", "TS604"}
    assert {c for c in codes if not c.startswith("TS1")} == extended
    assert "TS104" not in codes and "TS401" not in codes
    quiet = run_lint(LintSettings(paths=[source], isolated=True, ignore=["description-restates-name"]))
    assert quiet.result.diagnostics == []
    with pytest.raises(UsageError, match="command line: unknown preset 'loose'"):
        run_lint(LintSettings(paths=[source], isolated=True, preset="loose"))


def test_the_ranker_option_reaches_every_rule_that_has_one():
    config = LintSettings(isolated=True, ranker="classic").lint_config(RULE_BY_CODE)
    with_ranker = {code for code, rule in RULE_BY_CODE.items() if "ranker" in rule.options}
    assert with_ranker and set(config.rules) == with_ranker
    assert all(options == {"ranker": "classic"} for options in config.rules.values())
    assert LintSettings(isolated=True).lint_config(RULE_BY_CODE).rules == {}


def test_a_passed_over_configuration_file_is_told_to_warn(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".toolsearch.yaml").write_text("lint:\n  ignore: [TS105]\n", encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text("[tool.toolsearch.lint]\nignore = ['TS106']\n", encoding="utf-8")
    source = write(tmp_path, "w.yaml", "tools:\n  - name: getWeather\n    description: Get the weather.\n")
    monkeypatch.chdir(tmp_path)
    heard: list[str] = []
    report = run_lint(LintSettings(paths=[source]), warn=heard.append)
    assert len(heard) == 1 and "ignoring [tool.toolsearch.lint]" in heard[0]
    assert report.result.tool_count == 1 and report.exit_code == 0
