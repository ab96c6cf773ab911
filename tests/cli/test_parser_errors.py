"""Errors of the command-line parser itself (a missing argument, an unknown option or command, a value
of the wrong type) are one line with a hint to the help, exit 2."""

from __future__ import annotations

import pytest


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
