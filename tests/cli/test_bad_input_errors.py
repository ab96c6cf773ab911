"""Bad input found in a review of the merged commands: each is a one-line error (exit 2), and files
the commands write are ordinary files."""

from __future__ import annotations

import os
import stat

import pytest

from toolsearch_cli.disclosure.state import RunState
from toolsearch_cli.errors import UsageError
from toolsearch_cli.files import write_text_atomic

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


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def _umask_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def test_eval_save_writes_a_file_with_ordinary_permissions(run_cli, tmp_path):
    save = tmp_path / "run.json"
    assert run_cli("eval", "-c", str(DEMO), "-f", "json", "--save", str(save)).code == 0
    assert _mode(save) == _umask_mode()  # not the temporary file's owner-only 0600


def test_run_state_and_atomic_writes_keep_permissions_and_leave_no_temporary_file(tmp_path):
    state = tmp_path / "state.json"
    RunState().save(state)
    assert _mode(state) == _umask_mode()
    os.chmod(state, 0o640)
    RunState().save(state)
    assert _mode(state) == 0o640  # an existing file keeps its mode
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state.json"]
    with pytest.raises(UsageError, match="cannot write the thing"):
        write_text_atomic(tmp_path, "x", what="the thing", error=UsageError)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state.json"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["search"], "error: Missing argument 'query' (see 'toolsearch search -h')"),
        (["search", "x", "--explai"], "error: No such option: --explai"),
        (["nope"], "error: No such command 'nope' (see 'toolsearch -h')"),
        (["simulate", "x.sim.yaml", "--max-active", "abc"], "error: Invalid value for '--max-active'"),
        (["eval", "--failures", "-1"], "error: Invalid value for '--failures'"),
        (["catalog", "convert"], "error: Missing option '--to'"),
    ],
)
def test_parser_errors_are_one_line_with_a_help_hint(run_cli, args, message):
    result = run_cli(*args)
    assert result.code == 2
    assert result.stderr.startswith(message)
    assert result.stderr.count("\n") == 1 and "Usage:" not in result.stderr
    assert result.stdout == ""


def test_malformed_yaml_lint_configuration_names_the_line_and_the_problem(run_cli, write):
    config = write(".toolsearch.yaml", "lint:\n  select: [TS1\n  ignore: []\n")
    result = run_cli("lint", str(BAD), "--config", str(config))
    assert result.code == 2
    assert result.stderr.startswith(f"error: {config}:3: cannot read the configuration: malformed YAML: ")
    assert "flow sequence" in result.stderr and result.stderr.count("\n") == 1


@pytest.mark.parametrize(
    ("expect", "field", "message"),
    [
        ("{not_visible: [getWeathr]}", "not_visible", "tool 'getWeathr' (did you mean 'getWeather'?)"),
        ("{visible: [noSuchTool]}", "visible", "tool 'noSuchTool'"),
        ("{hits: [sendEmial]}", "hits", "tool 'sendEmial' (did you mean 'sendEmail'?)"),
        ("{groups: [admin-consol]}", "groups", "group 'admin-consol' (did you mean 'admin-console'?)"),
        ("{protocol_errors: [not_visible]}", "protocol_errors", "protocol error 'not_visible' (did you mean"),
    ],
)
def test_script_expectations_naming_unknown_tools_are_errors(run_cli, write, expect, field, message):
    # a misspelt name in not_visible used to pass forever; in visible it failed as if the engine were wrong
    script = write(
        "typo.sim.yaml",
        f"catalog: {DEMO}\nturns:\n  - user: hi\n    steps:\n      - expect: {expect}\n        say: ok\n",
    )
    result = run_cli("simulate", str(script), "--check")
    assert result.code == 2
    assert result.stderr.startswith(f"error: {script}:5: field '{field}': 'expect' names {message}")
    assert result.stderr.count("\n") == 1 and result.stdout == ""


def test_a_scripts_unknown_resident_tool_names_the_script(run_cli, write):
    script = write(
        "resident.sim.yaml",
        f"catalog: {DEMO}\nresident: [currentTme]\nturns:\n  - user: hi\n    steps:\n      - say: ok\n",
    )
    result = run_cli("simulate", str(script))
    assert result.code == 2
    assert result.stderr.startswith(
        f"error: {script}: field 'resident': resident tool 'currentTme' is not in the catalog"
    )
    assert "did you mean 'currentTime'" in result.stderr and result.stderr.count("\n") == 1


def test_eval_takes_catalog_format_like_search(run_cli, tmp_path):
    exported = tmp_path / "demo.anthropic.json"
    assert run_cli("catalog", "convert", "--to", "anthropic", "-c", str(DEMO), "-o", str(exported)).code == 0
    forced = run_cli("eval", "-c", str(exported), "--catalog-format", "anthropic", "-f", "json")
    assert forced.code == 0, forced.stderr
    detected = run_cli("eval", "-c", str(exported), "-f", "json")
    assert forced.json()["rankers"]["default"]["queries"] == detected.json()["rankers"]["default"]["queries"] > 0
    wrong = run_cli("eval", "-c", str(exported), "--catalog-format", "mcp")
    assert wrong.code == 2 and "an MCP tool needs 'inputSchema'" in wrong.stderr
    assert wrong.stderr.count("\n") == 1


def test_duplicate_keys_in_a_json_catalog_are_errors_as_in_yaml(run_cli, write):
    # json.loads kept the last value: a tool silently renamed, or a whole tool list dropped
    renamed = write("renamed.json", '{"tools": [\n {"name": "a",\n  "description": "x", "name": "b"}]}')
    result = run_cli("catalog", "-c", str(renamed))
    assert result.code == 2
    assert result.stderr == (
        f"error: {renamed}:3: duplicate key 'name' (first at line 2); "
        "JSON readers would silently keep only the last one\n"
    )
    dropped = write("dropped.json", '{"tools": [{"name": "a", "description": "x"}], "tools": []}')
    assert "duplicate key 'tools'" in run_cli("search", "a", "-c", str(dropped)).stderr
    fine = write("fine.json", '{"tools": [{"name": "a", "description": "alpha tool"}]}')
    assert run_cli("catalog", "-c", str(fine)).code == 0


def test_context_attribute_given_twice_with_different_values_is_an_error(run_cli):
    # the last value used to win silently: a run meant for role=admin ran as someone else
    script = str(DEMO.parent / "scenarios" / "weather-email.en.sim.yaml")
    result = run_cli("simulate", script, "--context", "role=admin", "--context", "role=viewer")
    assert result.code == 2
    assert result.stderr == (
        "error: field 'context': --context gives 'role' twice ('admin', 'viewer'); a context attribute has one value\n"
    )
    assert run_cli("simulate", script, "--context", "role=admin", "--context", "role=admin", "--check").code == 0


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


def test_a_blank_eval_query_is_called_blank(run_cli, write):
    queries = write("q.yaml", '- {id: a, query: "  ", relevant: [getWeather]}\n')
    result = run_cli("eval", "-c", str(DEMO), "-q", str(queries))
    assert result.code == 2
    assert result.stderr == (
        f"error: {queries}:1: field 'query': query 'a': 'query' must be a non-empty string, not a blank string\n"
    )


def test_evaluate_does_not_import_pyyaml_until_a_yaml_queries_file_is_read():
    import subprocess
    import sys

    code = "import sys, toolsearch_cli.evaluate; print('yaml' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"  # `toolsearch eval` on a cached catalog with its examples never needs YAML


def test_convert_out_is_written_atomically_with_ordinary_permissions(run_cli, tmp_path):
    out = tmp_path / "demo.openai.json"
    out.write_text("old", encoding="utf-8")
    os.chmod(out, 0o640)
    assert run_cli("catalog", "convert", "--to", "openai", "-c", str(DEMO), "-o", str(out)).code == 0
    assert out.read_text(encoding="utf-8").startswith("{") and _mode(out) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo.openai.json"]


def test_catalog_group_options_are_checked_before_a_subcommand(run_cli):
    result = run_cli("catalog", "-f", "nope", "convert", "--to", "yaml", "-c", str(DEMO))
    assert result.code == 2 and result.stderr == "error: unknown format 'nope'; choose from table, json\n"
    assert result.stdout == ""


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


def test_a_scripts_unknown_ranker_names_the_script_line(run_cli, write):
    script = write(
        "r.sim.yaml", f"catalog: {DEMO}\nranker: clasic\nturns:\n  - user: hi\n    steps:\n      - say: ok\n"
    )
    result = run_cli("simulate", str(script))
    assert result.code == 2
    assert result.stderr.startswith(
        f"error: {script}:2: field 'ranker': unknown ranker 'clasic' (did you mean 'classic'?)"
    )


def test_a_scripts_missing_catalog_path_names_the_script_line(run_cli, write):
    script = write(
        "s/m.sim.yaml", "name: m\ncatalog: ../nowhere/tools.yaml\nturns:\n  - user: hi\n    steps:\n      - say: ok\n"
    )
    result = run_cli("simulate", str(script))
    assert result.code == 2
    assert result.stderr.startswith(
        f"error: {script}:2: field 'catalog': catalog '../nowhere/tools.yaml' does not exist"
    )
    assert result.stderr.count("\n") == 1


def test_a_scripts_mocks_for_unknown_tools_are_errors(run_cli, write):
    script = write(
        "m.sim.yaml",
        f"catalog: {DEMO}\nmocks: {{getWeathr: {{t: 1}}}}\nturns:\n  - user: hi\n    steps:\n      - say: ok\n",
    )
    result = run_cli("simulate", str(script))
    assert result.code == 2
    assert result.stderr.startswith(
        f"error: {script}:2: field 'mocks': 'mocks' names tool 'getWeathr' (did you mean 'getWeather'?)"
    )


def test_a_catalog_source_given_twice_loads_once_and_overlapping_sources_say_so(run_cli):
    assert run_cli("catalog", "-c", str(DEMO), "-c", str(DEMO)).code == 0  # was a clash with itself
    overlap = run_cli("catalog", "-c", str(DEMO), "-c", str(DEMO / "weather.yaml"))
    assert overlap.code == 2
    assert overlap.stderr.startswith(f"error: {DEMO / 'weather.yaml'}:16: tool 'getWeather', field 'name': ")
    assert "this file is loaded twice (do two catalog sources reach it?)" in overlap.stderr


def test_credentials_in_the_live_base_url_are_never_printed_or_recorded(run_cli, tmp_path):
    pytest.importorskip("openai")
    import socket

    with socket.socket() as sock:  # a port nobody listens on: connection refused
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    record = tmp_path / "run.json"
    url = f"http://user:s3cret-pass@127.0.0.1:{port}/v1?api-key=s3cret-query"
    result = run_cli(
        "simulate", "--live", "--model", "m", "--prompt", "hi", "-c", str(DEMO),
        "--base-url", url, "--retries", "0", "--record", str(record),
    )  # fmt: skip
    assert result.code == 2
    assert f"cannot reach the model server at http://***@127.0.0.1:{port}/v1?…" in result.stderr
    for text in (result.stdout, result.stderr, record.read_text(encoding="utf-8")):
        assert "s3cret" not in text


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


def test_replaying_a_policy_comparison_says_what_it_is(run_cli, tmp_path):
    script = str(DEMO.parent / "scenarios" / "weather-email.en.sim.yaml")
    compared = run_cli("simulate", script, "--policy", "latest,cumulative", "-f", "json")
    saved = tmp_path / "cmp.json"
    saved.write_text(compared.stdout, encoding="utf-8")
    result = run_cli("simulate", "--replay", str(saved))
    assert result.code == 2 and "this is a policy comparison" in result.stderr
    assert result.stderr.count("\n") == 1
