"""`toolsearch lint` and `toolsearch rule` end to end: exit code, stdout and stderr together."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from toolsearch_cli.catalog import catalog_files, load_catalog
from toolsearch_cli.lint.rule import FAMILIES
from toolsearch_cli.lint.rules import RULE_BY_CODE

from ..conftest import ROOT


@pytest.fixture
def at_root(monkeypatch):
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)


def test_the_shipped_catalogs_lint_clean(run_cli, at_root):
    result = run_cli("lint", "catalogs/")
    assert (result.code, result.stderr) == (0, "")
    assert "All checks passed: 64 tools in 12 files" in result.stdout
    python = run_cli("lint", "catalogs/python/ops_tools.py", "--format", "json")
    assert (python.code, python.json()) == (0, [])


def test_the_bad_catalogs_fail_and_show_every_family(run_cli, at_root):
    result = run_cli("lint", "catalogs/bad", "--format", "json")
    assert result.code == 1 and result.stderr == ""
    found = result.json()
    # the lock family (TS8xx) runs against a lockfile only: tests/lock covers it
    assert {FAMILIES[d["code"][:3]] for d in found} == set(FAMILIES.values()) - {"lock"}
    everything = run_cli("lint", "catalogs/bad", "--config", "catalogs/bad/.toolsearch.yaml", "--format", "json")
    every = {code for code, rule in RULE_BY_CODE.items() if rule.family != "lock"}
    assert {d["code"] for d in everything.json()} == every  # every single rule fires
    text = run_cli("lint", "catalogs/bad")
    assert text.code == 1
    assert "catalogs/bad/names.yaml\n" in text.stdout
    assert "21:5    error   TS104 reserved-tool-name  tool 'tool_search'" in text.stdout
    assert "Found " in text.stdout and " errors, " in text.stdout


def test_the_bad_folder_stays_out_of_the_default_catalog(run_cli, at_root):
    assert not any("bad" in p.parts for p in catalog_files(ROOT / "catalogs"))
    assert len(load_catalog("catalogs")) == 64
    result = run_cli("search", "weather")
    assert result.code == 0 and "getWeather" in result.stdout and result.stderr == ""
    assert len(catalog_files(ROOT / "catalogs" / "bad")) >= 7  # named directly, it loads


def test_exit_codes_strict_and_exit_zero(run_cli, tmp_path):
    (tmp_path / "w.yaml").write_text("tools:\n  - name: renameProject\n    description: Renames.\n", encoding="utf-8")
    warn_only = run_cli("lint", str(tmp_path), "--isolated")
    assert warn_only.code == 0 and "0 errors, 1 warning" in warn_only.stdout
    assert run_cli("lint", str(tmp_path), "--isolated", "--strict").code == 1
    (tmp_path / "e.yaml").write_text("tools:\n  - name: archiveProject\n", encoding="utf-8")
    assert run_cli("lint", str(tmp_path), "--isolated").code == 1
    assert run_cli("lint", str(tmp_path), "--isolated", "--exit-zero").code == 0
    only = run_cli("lint", str(tmp_path), "--isolated", "--select", "TS201,TS202", "--ignore", "TS202", "-f", "json")
    assert [d["code"] for d in only.json()] == ["TS201"]


def test_usage_and_config_errors_exit_2_with_one_line(run_cli, tmp_path):
    for args, expected in [
        (("lint", str(tmp_path / "nope")), "no such file, folder or importable module"),
        (("lint", "--select", "TS9"), "unknown rule 'TS9'"),
        (("lint", "--format", "xml"), "unknown format 'xml'"),
        (("rule", "TS000"), "unknown rule 'TS000'"),
    ]:
        result = run_cli(*args)
        assert result.code == 2, args
        assert result.stdout == "" and expected in result.stderr and result.stderr.count("\n") == 1
    config = tmp_path / "pyproject.toml"
    config.write_text("[tool.toolsearch.lint.rules.TS203]\nmax-byte = 3\n", encoding="utf-8")
    result = run_cli("lint", "--config", str(config), str(ROOT / "catalogs" / "demo"))
    assert result.code == 2
    assert "unknown option 'max-byte' (did you mean 'max-bytes'?)" in result.stderr


def test_auto_format_is_github_under_github_actions(run_cli, at_root, monkeypatch):
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    result = run_cli("lint", "catalogs/bad/names.yaml")
    assert result.code == 1
    lines = result.stdout.splitlines()
    assert lines and all(line.startswith(("::error ", "::warning ")) for line in lines)
    assert "::error title=toolsearch (TS101),file=catalogs/bad/names.yaml,line=5,col=5::" in result.stdout


def test_sarif_and_output_file(run_cli, at_root, tmp_path):
    out = tmp_path / "lint.sarif"
    result = run_cli("lint", "catalogs/bad", "--format", "sarif", "--output-file", str(out))
    assert result.code == 1 and result.stdout == ""
    log = json.loads(out.read_text(encoding="utf-8"))
    assert log["version"] == "2.1.0" and log["runs"][0]["results"]


def test_rule_prints_the_documentation_and_lists_rules(run_cli):
    one = run_cli("rule", "TS604")
    assert one.code == 0
    for section in ("## What it does", "## Why is this bad?", "## Example", "## Use instead"):
        assert section in one.stdout
    assert "TS604 confusable-tools" in one.stdout and "option overlap-threshold: default 0.7" in one.stdout
    by_name = run_cli("rule", "confusable-tools")
    assert by_name.stdout == one.stdout
    listing = run_cli("rule")
    assert listing.code == 0
    assert all(code in listing.stdout for code in RULE_BY_CODE)


def test_other_commands_do_not_import_the_linter():
    code = "import sys; from toolsearch_cli.cli import app; print('toolsearch_cli.lint' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_pre_commit_hook_definition():
    import yaml

    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    [hook] = [h for h in hooks if h["id"] == "toolsearch-lint"]
    assert hook["entry"].startswith("toolsearch lint") and hook["language"] == "python"


def test_statistics_count_findings_per_rule(run_cli, at_root):
    result = run_cli("lint", "catalogs/bad/descriptions.yaml", "--statistics")
    assert result.code == 1
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["findings", "tools", "rule"]
    assert lines[1].split()[:4] == ["2", "2", "TS204", "description-restates-name"]
    assert lines[-1].split()[:4] == ["6", "6", "in", "total"]
    assert result.stderr == ""


def test_repeats_of_a_rule_on_one_tool_collapse_into_one_finding_with_a_count(run_cli, tmp_path):
    catalog = tmp_path / "tools.yaml"
    params = {f"p{i}": {"type": "string"} for i in range(5)}
    import yaml

    catalog.write_text(
        yaml.safe_dump(
            {
                "tools": [
                    {
                        "name": "searchOrders",
                        "description": "Search the orders of a shop by customer, date and status.",
                        "parameters": params,
                    }
                ]
            }
        ),
        encoding="utf-8",
    )
    result = run_cli("lint", str(catalog), "--format", "json", "--isolated", "--extend-select", "TS301")
    [found] = [d for d in json.loads(result.stdout) if d["code"] == "TS301"]
    assert found["count"] == 5 and found["fields"] == [f"parameters.p{i}" for i in range(5)]
    assert "and 4 more like it in this tool" in found["message"]
    stats = run_cli("lint", str(catalog), "--statistics", "--isolated", "--select", "TS301")
    assert stats.stdout.splitlines()[1].split()[:3] == ["5", "1", "TS301"]
    assert (stats.code, stats.stderr) == (0, "")  # TS301 is a warning: exit 0 by default
    failing = run_cli("lint", str(catalog), "--isolated", "--select", "TS301", "--fail-on", "warning")
    assert failing.code == 1 and "standing for 5 findings" in failing.stdout and failing.stderr == ""
    bad = run_cli("lint", str(catalog), "--isolated", "--fail-on", "warnings")
    assert bad.code == 2 and "unknown --fail-on level 'warnings'" in bad.stderr and bad.stdout == ""


def test_yaml_config_beside_a_pyproject_with_lint_settings_wins_with_a_warning(run_cli, tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    (tmp_path / "pyproject.toml").write_text('[tool.toolsearch.lint]\nignore = ["TS2"]\n', encoding="utf-8")
    (tmp_path / ".toolsearch.yaml").write_text("lint:\n  select: [TS101]\n", encoding="utf-8")
    (tmp_path / "tools.yaml").write_text("tools:\n  - name: bad name\n    description: x\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = run_cli("lint", "tools.yaml", "--format", "json")
    assert {d["code"] for d in json.loads(result.stdout)} == {"TS101"}  # the YAML's selection applies
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("warning: ")
    assert ".toolsearch.yaml" in result.stderr and "ignoring [tool.toolsearch.lint]" in result.stderr
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n', encoding="utf-8")  # no lint settings: quiet
    assert run_cli("lint", "tools.yaml", "--format", "json").stderr == ""
