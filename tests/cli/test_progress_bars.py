"""Progress where work is long (issue 36 item 4): ``toolsearch eval`` draws its queries and
``toolsearch lint`` its rules over a large catalog as a bar on a terminal's stderr, and never
when stderr is a pipe, on a dumb terminal, or with ``--format json``. The library draws nothing:
it tells a callback (``lint(progress=...)``, an ``EvalListener``)."""

from __future__ import annotations

import os
import pty
import subprocess

import pytest

from ..conftest import DEMO, ROOT, TOOLSEARCH, clean_env


def many_tools(tmp_path, count: int):
    path = tmp_path / f"many-{count}.yaml"
    path.write_text(
        "tools:\n"
        + "".join(
            f"  - name: tool_{i}\n    description: Does thing number {i} for the account of a customer.\n"
            f"    category: things\n"
            for i in range(count)
        ),
        encoding="utf-8",
    )
    return path


def on_a_terminal(*args: str) -> tuple[int, str]:
    """Run ``toolsearch ARGS`` with stderr on a pseudo-terminal (stdout discarded): exit code and
    what the terminal received."""
    leader, follower = pty.openpty()
    env = clean_env(TERM="xterm-256color", COLUMNS="100")
    with subprocess.Popen([*TOOLSEARCH, *args], stdout=subprocess.DEVNULL, stderr=follower, env=env, cwd=ROOT) as proc:
        os.close(follower)
        seen = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the terminal closed with the process
                break
            if not chunk:
                break
            seen += chunk
        code = proc.wait(timeout=300)
    os.close(leader)
    return code, seen.decode("utf-8", "replace")


def piped(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*TOOLSEARCH, *args], capture_output=True, text=True, encoding="utf-8", env=clean_env(), cwd=ROOT, timeout=300
    )


def test_the_lint_engine_tells_its_callback_each_rule_and_draws_nothing(tmp_path, capsys):
    from toolsearch_cli.lint import lint

    steps = []
    result = lint([str(many_tools(tmp_path, 3))], progress=steps.append)
    assert steps[0].done == 0 and steps[0].rule in result.rules_run
    assert [s.done for s in steps] == list(range(len(result.rules_run) + 1))
    assert {s.total for s in steps} == {len(result.rules_run)} and {s.tools for s in steps} == {3}
    assert steps[-1].rule is None and sorted(s.rule for s in steps[:-1]) == sorted(result.rules_run)
    assert capsys.readouterr() == ("", "")


def test_lint_draws_a_bar_of_rules_for_a_large_catalog_on_a_terminal(tmp_path):
    catalog = many_tools(tmp_path, 600)
    code, seen = on_a_terminal("lint", str(catalog))
    assert code == 0, seen
    assert "lint 600 tools · TS" in seen and "rules" in seen
    from toolsearch_cli.lint import lint

    total = len(lint([str(catalog)]).rules_run)
    assert f"{total}/{total}" in seen


@pytest.mark.parametrize("how", ["piped", "json", "small"])
def test_lint_draws_no_bar_in_a_pipe_with_json_or_for_a_small_catalog(tmp_path, how):
    catalog = many_tools(tmp_path, 20 if how == "small" else 600)
    if how == "piped":
        done = piped("lint", str(catalog))
        assert done.returncode == 0 and done.stderr == ""
        return
    code, seen = on_a_terminal("lint", str(catalog), *(["--format", "json"] if how == "json" else []))
    assert code == 0
    assert "rules" not in seen and "lint " not in seen and "\x1b[?25l" not in seen  # no bar, no hidden cursor


def test_eval_draws_its_bar_on_a_terminal_and_none_in_a_pipe_or_with_json():
    code, seen = on_a_terminal("eval", "--catalog", str(DEMO), "--ranker", "default")
    assert code == 0, seen
    assert "eval default" in seen and "\x1b[?25l" in seen  # the bar, drawn (its cursor hidden)
    code, seen = on_a_terminal("eval", "--catalog", str(DEMO), "--ranker", "default", "--format", "json")
    assert code == 0 and seen == ""  # JSON output: nothing on stderr at all, not even on a terminal
    done = piped("eval", "--catalog", str(DEMO), "--ranker", "default")
    assert done.returncode == 0 and done.stderr == ""
