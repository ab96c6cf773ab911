"""`toolsearch lint` given bad input (a report file it cannot write, a malformed or misspelt
configuration, options that cannot go together): one-line errors, exit 2; and what it must not miss."""

from __future__ import annotations

import pytest

from ..conftest import DEMO

BAD = DEMO.parent / "bad"


@pytest.mark.parametrize("fmt", ["text", "json", "github", "sarif"])
def test_lint_output_file_that_cannot_be_written_is_a_one_line_error(run_cli, tmp_path, fmt):
    result = run_cli("lint", str(BAD), "-f", fmt, "-o", str(tmp_path))  # a folder, not a file
    assert result.code == 2
    assert result.stderr == f"error: {tmp_path}: field '--output-file': it is a folder\n"  # refused before the run
    assert result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr


def test_lint_output_file_holds_the_text_report(run_cli, tmp_path):
    out = tmp_path / "report.txt"
    result = run_cli("lint", str(BAD), "-o", str(out))
    assert result.code == 1
    text = out.read_text(encoding="utf-8")
    assert "TS001 invalid-catalog" in text and "\x1b[" not in text
    assert result.stdout == ""


def test_malformed_yaml_lint_configuration_names_the_line_and_the_problem(run_cli, write):
    config = write(".toolsearch.yaml", "lint:\n  select: [TS1\n  ignore: []\n")
    result = run_cli("lint", str(BAD), "--config", str(config))
    assert result.code == 2
    assert result.stderr.startswith(f"error: {config}:3: cannot read the configuration: malformed YAML: ")
    assert "flow sequence" in result.stderr and result.stderr.count("\n") == 1


def test_lint_reports_the_group_errors_that_search_refuses(run_cli, write):
    # lint said "All checks passed" on a catalog that `toolsearch search` refuses
    catalog = write(
        "g/tools.yaml",
        "tools:\n  - name: getWeather\n    description: Get the current weather and the forecast for a city.\n"
        "groups:\n  - name: ops\n    tools: [getWeathr]\n",
    )
    write("g/more.yaml", "groups:\n  - name: ops\n    tools: [getWeather]\ntools: []\n")
    assert run_cli("search", "weather", "-c", str(catalog.parent)).code == 2
    result = run_cli("lint", str(catalog.parent), "-f", "json", "--select", "TS001")
    assert result.code == 1
    found = [(d["filename"].rsplit("/", 1)[-1], d["location"]["row"], d["message"]) for d in result.json()]
    assert (
        "tools.yaml",
        5,
        "cannot load this file: field 'groups': group 'ops' lists tool 'getWeathr', which is not in the catalog "
        "(did you mean 'getWeather'?)",
    ) in found
    assert any("duplicate group name 'ops'" in f[2] for f in found)  # defined in both files


@pytest.mark.parametrize(
    ("rules", "message"),
    [
        ("{TS101: {target: [openai, nope]}}", "rule TS101 (invalid-tool-name): unknown target 'nope'"),
        ("{example-not-found: {ranker: nope}}", "rule TS601 (example-not-found): unknown ranker 'nope'"),
        ("{confusable-tools: {ranker: clasic}}", "rule TS604 (confusable-tools): unknown ranker 'clasic'"),
    ],
)
def test_bad_rule_option_values_fail_when_the_configuration_is_read(run_cli, write, rules, message):
    # they used to fail only when a tool reached the rule (an empty catalog passed), without the file
    config = write(".toolsearch.yaml", f"lint:\n  rules: {rules}\n")
    empty = write("empty.yaml", "tools: []\n")
    for catalog in (empty, DEMO):
        result = run_cli("lint", str(catalog), "--config", str(config))
        assert result.code == 2
        assert result.stderr.startswith(f"error: {config}:2: {message}") and result.stderr.count("\n") == 1


def test_lint_statistics_go_to_the_output_file(run_cli, tmp_path):
    out = tmp_path / "stats.txt"
    result = run_cli("lint", str(BAD), "--statistics", "-o", str(out))
    assert result.code == 1 and result.stdout == ""  # -o used to be ignored: printed, no file
    text = out.read_text(encoding="utf-8")
    assert "TS001 invalid-catalog" in text and "TS204 description-restates-name" in text
    assert run_cli("lint", str(BAD), "--statistics").stdout == text


def test_pre_commit_hook_runs_when_any_kind_of_catalog_file_changes():
    import re

    import yaml

    hooks = yaml.safe_load((DEMO.parent.parent / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    [hook] = [h for h in hooks if h["id"] == "toolsearch-lint"]
    for name in ("catalogs/a.yaml", "catalogs/b.yml", "catalogs/tools.json", "catalogs/ops.py", "pyproject.toml"):
        assert re.search(hook["files"], name), name  # .json catalogs did not trigger the hook


def test_a_pyproject_named_by_config_without_lint_settings_is_an_error(run_cli, write):
    # it was silently read as "no settings", so a typo in the table name went unnoticed
    config = write("pyproject.toml", '[project]\nname = "x"\n\n[tool.toolsearch.lnt]\nignore = ["TS2"]\n')
    result = run_cli("lint", str(DEMO), "--config", str(config))
    assert result.code == 2
    assert result.stderr == f"error: {config}: no [tool.toolsearch.lint] table in this file\n"
    empty = write("empty/pyproject.toml", "[tool.toolsearch.lint]\n")
    assert run_cli("lint", str(DEMO), "--config", str(empty)).code == 0


def test_lint_statistics_with_a_machine_format_is_an_error_not_ignored(run_cli, monkeypatch):
    for fmt in ("json", "github", "sarif"):
        result = run_cli("lint", str(BAD), "--statistics", "-f", fmt)
        assert result.code == 2 and result.stdout == ""
        assert result.stderr == f"error: --statistics prints a text table; it cannot be combined with --format {fmt}\n"
    monkeypatch.setenv("GITHUB_ACTIONS", "true")  # auto would pick github: the table still prints
    assert "TS204 description-restates-name" in run_cli("lint", str(BAD), "--statistics").stdout
