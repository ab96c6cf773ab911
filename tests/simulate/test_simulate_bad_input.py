"""`toolsearch simulate` given bad input (a script naming unknown tools, rankers or catalogs, a
context given twice, a recording that is a comparison, credentials in a URL): one-line errors, exit 2."""

from __future__ import annotations

import pytest

from ..conftest import DEMO


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


def test_context_attribute_given_twice_with_different_values_is_an_error(run_cli):
    # the last value used to win silently: a run meant for role=admin ran as someone else
    script = str(DEMO.parent / "scenarios" / "weather-email.en.sim.yaml")
    result = run_cli("simulate", script, "--context", "role=admin", "--context", "role=viewer")
    assert result.code == 2
    assert result.stderr == (
        "error: field 'context': --context gives 'role' twice ('admin', 'viewer'); a context attribute has one value\n"
    )
    assert run_cli("simulate", script, "--context", "role=admin", "--context", "role=admin", "--check").code == 0


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


def test_replaying_a_policy_comparison_says_what_it_is(run_cli, tmp_path):
    script = str(DEMO.parent / "scenarios" / "weather-email.en.sim.yaml")
    compared = run_cli("simulate", script, "--policy", "latest,cumulative", "-f", "json")
    saved = tmp_path / "cmp.json"
    saved.write_text(compared.stdout, encoding="utf-8")
    result = run_cli("simulate", "--replay", str(saved))
    assert result.code == 2 and "this is a policy comparison" in result.stderr
    assert result.stderr.count("\n") == 1
