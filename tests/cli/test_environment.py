"""The CLI under the environment variables people run it with (issue 24): one test per variable,
each on real processes with output piped, as in CI, asserting exit code, stdout and stderr.

- ``NO_COLOR``: no colour, even with ``FORCE_COLOR`` (bold and dim are not colours: they stay);
- ``FORCE_COLOR``: colour on piped output;
- ``TERM=dumb``: no escape sequence at all, no progress bar, and ``COLUMNS`` still sets the width;
- ``COLUMNS``: the width; at 40, tables become ``header value`` pairs and no line is wider;
- ``GITHUB_ACTIONS=true``: ``lint`` writes workflow annotations; nothing else changes;
- ``CI=true``: nothing changes.

Every run starts from the tests' clean environment (:func:`tests.conftest.clean_env`).
"""

from __future__ import annotations

import re

import pytest
from rich.cells import cell_len

from ..conftest import DEMO, ROOT, Result, clean_env, run_toolsearch

#: the runs of this module by command line and environment: the same command in the same (clean)
#: environment is run once (the plain search is every test's reference: 8 of 47 runs were repeats)
_RUNS: dict[tuple[tuple[str, ...], tuple[tuple[str, str], ...]], Result] = {}


def toolsearch(*args: str, **env: str) -> Result:
    """``toolsearch ARGS`` in another process with ``env`` added to the clean environment (see
    :func:`tests.conftest.run_toolsearch`); a repeat of a command line and environment already run
    here gives that run's result."""
    # the whole environment the process gets, but pytest's name of the running test
    key = (args, tuple(sorted((k, v) for k, v in clean_env(**env).items() if k != "PYTEST_CURRENT_TEST")))
    if key not in _RUNS:
        _RUNS[key] = run_toolsearch(*args, **env)
    return _RUNS[key]


BAD = ROOT / "catalogs" / "bad"
#: an SGR escape sequence (colour, bold, dim ...), and one that sets a colour
SGR = re.compile(r"\x1b\[([0-9;]*)m")
COLOUR_CODES = {*range(30, 39), *range(40, 49), *range(90, 98), *range(100, 108)}


def colours(text: str) -> list[str]:
    """The colour-setting SGR sequences in ``text`` (38;5;N and 38;2;R;G;B count as one)."""
    found = []
    for match in SGR.finditer(text):
        codes = [int(c) for c in match.group(1).split(";") if c]
        if any(c in COLOUR_CODES for c in codes):
            found.append(match.group(0))
    return found


def widest(text: str) -> int:
    return max((cell_len(line) for line in text.splitlines()), default=0)


SEARCH = ("search", "weather", "-c", str(DEMO), "-n", "3")
ERROR = ("search", "weather", "-c", "no/such/catalog")


def test_force_color_colours_piped_output():
    plain = toolsearch(*SEARCH)
    forced = toolsearch(*SEARCH, FORCE_COLOR="1")
    assert plain.code == forced.code == 0 and plain.stderr == forced.stderr == ""
    assert "\x1b" not in plain.stdout  # piped: no escape sequence of any kind
    assert colours(forced.stdout), forced.stdout[:300]
    assert SGR.sub("", forced.stdout) == plain.stdout  # the same text, coloured
    error = toolsearch(*ERROR, FORCE_COLOR="1")
    assert error.code == 2 and error.stdout == "" and error.stderr.startswith("\x1b[1;31merror:\x1b[0m ")


def test_no_color_turns_colour_off_even_with_force_color():
    result = toolsearch(*SEARCH, FORCE_COLOR="1", NO_COLOR="1")
    assert result.code == 0 and result.stderr == ""
    assert colours(result.stdout) == [] and "getWeather" in result.stdout
    assert SGR.sub("", result.stdout) == toolsearch(*SEARCH).stdout
    error = toolsearch(*ERROR, FORCE_COLOR="1", NO_COLOR="1")
    assert error.code == 2 and error.stdout == ""
    assert colours(error.stderr) == [] and "no/such/catalog" in error.stderr
    assert len(error.stderr.splitlines()) == 1
    # a live-style report too: simulate's tables, styles and check marks
    sim = toolsearch("simulate", str(ROOT / "catalogs" / "scenarios" / "weather-email.en.sim.yaml"),
                     FORCE_COLOR="1", NO_COLOR="1")  # fmt: skip
    assert sim.code == 0 and sim.stderr == "" and colours(sim.stdout) == [] and "checks passed" in sim.stdout


def test_term_dumb_writes_no_escape_sequence_and_keeps_the_width_of_columns():
    result = toolsearch(*SEARCH, "--wide", FORCE_COLOR="1", TERM="dumb", COLUMNS="120")
    assert result.code == 0 and result.stderr == ""
    assert "\x1b" not in result.stdout
    # COLUMNS holds on a dumb terminal too (Rich alone would take 80 there)
    assert 80 < widest(result.stdout) <= 120
    unset = toolsearch(*SEARCH, "--wide", FORCE_COLOR="1", TERM="dumb")
    assert unset.code == 0 and widest(unset.stdout) > 120  # piped without COLUMNS: not wrapped
    # no progress bar: a dumb terminal cannot redraw a line (a colour one shows it: test_eval_cli)
    evaluated = toolsearch("eval", "-c", str(DEMO), "-f", "json", FORCE_COLOR="1", TERM="dumb")
    assert evaluated.code == 0 and evaluated.stderr == ""
    assert list(__import__("json").loads(evaluated.stdout)["rankers"]) == ["default"]


ANY_NUMBER = r"\d+(?:\.\d+)?%?"


@pytest.mark.parametrize(
    ("args", "numbers"),
    [
        (SEARCH, ANY_NUMBER),
        (("search", "weather", "-c", str(DEMO), "-n", "2", "--explain"), ANY_NUMBER),
        (("simulate", str(ROOT / "catalogs" / "scenarios" / "weather-email.en.sim.yaml")), ANY_NUMBER),
        (("catalog", "-c", str(DEMO)), ANY_NUMBER),
        (("eval", "-c", str(DEMO)), r"\d\.\d{3}"),  # the metrics (ms per query is timed anew)
    ],
    ids=["search", "explain", "simulate", "catalog", "eval"],
)
def test_columns_40_is_a_narrow_layout_no_line_wider(args, numbers):
    """Tables fit 40 columns, stacked as ``header value`` pairs where they must. (Lint findings are
    one line each, never wrapped, like ruff's: not a table.)"""
    wide = toolsearch(*args, COLUMNS="200")
    narrow = toolsearch(*args, COLUMNS="40")
    assert narrow.code == wide.code == 0, narrow.stderr
    assert narrow.stderr == wide.stderr == ""
    assert widest(narrow.stdout) <= 40, [line for line in narrow.stdout.splitlines() if cell_len(line) > 40]
    assert widest(wide.stdout) > 40
    # every number of the wide output is still there: numbers are never cut
    assert sorted(re.findall(numbers, wide.stdout)) == sorted(re.findall(numbers, narrow.stdout))


def test_columns_40_stacks_search_rows_as_header_value_pairs():
    result = toolsearch(*SEARCH, COLUMNS="40")
    assert result.code == 0 and result.stderr == ""
    lines = result.stdout.splitlines()
    assert lines[0] == "# 1 · getWeather"
    assert lines[1].startswith("  category weather · score ")
    assert "┃" not in result.stdout  # no table header


def test_github_actions_changes_lint_and_nothing_else():
    lint_args = ("lint", str(BAD / "names.yaml"), "--isolated")
    text = toolsearch(*lint_args)
    github = toolsearch(*lint_args, GITHUB_ACTIONS="true")
    assert text.code == github.code == 1 and text.stderr == github.stderr == ""
    assert github.stdout.splitlines() and all(line.startswith("::") for line in github.stdout.splitlines())
    assert "::error title=toolsearch (TS101),file=" in github.stdout
    assert not text.stdout.startswith("::")
    # an explicit format wins, and --statistics counts in text
    assert toolsearch(*lint_args, "--format", "text", GITHUB_ACTIONS="true").stdout == text.stdout
    stats = toolsearch(*lint_args, "--statistics", GITHUB_ACTIONS="true")
    assert stats.stdout == toolsearch(*lint_args, "--statistics").stdout and "::" not in stats.stdout
    # every other command: byte for byte what it prints without it, help and errors included
    for args in (SEARCH, ERROR, ("search", "-h"), ("--help",), ("simulate", "--help")):
        assert toolsearch(*args, GITHUB_ACTIONS="true") == toolsearch(*args), args


def test_ci_changes_nothing():
    for args in (SEARCH, ERROR, ("lint", str(BAD / "names.yaml"), "--isolated"), ("search", "-h")):
        assert toolsearch(*args, CI="true") == toolsearch(*args), args


def test_the_hostile_environment_of_ci_run_at_once():
    """``NO_COLOR=1 FORCE_COLOR=1 TERM=dumb COLUMNS=40 GITHUB_ACTIONS=true CI=true``, as ``.ci/run`` sets it."""
    hostile = {
        "NO_COLOR": "1",
        "FORCE_COLOR": "1",
        "TERM": "dumb",
        "COLUMNS": "40",
        "GITHUB_ACTIONS": "true",
        "CI": "true",
    }
    result = toolsearch(*SEARCH, **hostile)
    assert result.code == 0 and result.stderr == ""
    assert "\x1b" not in result.stdout and widest(result.stdout) <= 40
    assert result.stdout == toolsearch(*SEARCH, COLUMNS="40").stdout
    lint = toolsearch("lint", str(BAD / "names.yaml"), "--isolated", **hostile)
    assert lint.code == 1 and lint.stdout.startswith("::error ") and "\x1b" not in lint.stdout


def test_every_test_starts_from_the_clean_environment(tmp_path_factory):
    """What tests/conftest.py promises, checked from inside a test (whatever the caller's shell held)."""
    import os

    from ..conftest import CLEARED, TEST_SETTINGS

    assert not [name for name in CLEARED - {"XDG_CACHE_HOME"} if name in os.environ]
    assert not [n for n in os.environ if n.startswith(("OPENAI_", "GITHUB_", "RUNNER_", "TYPER_", "_TYPER_"))]
    own = {n for n in os.environ if n.startswith("TOOLSEARCH_")} - TEST_SETTINGS
    assert own == {"TOOLSEARCH_CACHE_DIR"}
    base = tmp_path_factory.getbasetemp()
    assert os.environ["HOME"] == str(base / "home")
    assert os.environ["XDG_CACHE_HOME"] == str(base / "home" / ".cache")
    assert os.environ["TOOLSEARCH_CACHE_DIR"].startswith(str(base))
