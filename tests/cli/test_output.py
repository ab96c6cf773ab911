"""Output that reads and cannot be hijacked: the one escaping renderer and tables that fit.

- Hostile data (escape sequences, BEL, OSC title changes, bidi overrides, Rich markup, emoji
  codes) in tool names, descriptions, categories, tags, file names, scripted model replies and
  recorded conversations is printed literally by every command, never interpreted.
- Tables are rendered at 80 and 120 columns (``$COLUMNS``): no line is wider, numbers are never
  cut, and text is only shortened with a visible ``…``; narrower still, rows are stacked.
- Piped output is not cut to 80 columns; errors on stderr are never wrapped.
"""

from __future__ import annotations

import io
import json
import re

import pytest
from rich.text import Text

from toolsearch_cli.cli.render import Col, console, data, render_table, shown

from ..conftest import DEMO, ROOT

ESC, BEL, CSI8 = "\x1b", "\x07", "\x9b"
TITLE = "\x1b]0;pwned\x07"  # OSC 0: set the terminal title
RED = "\x1b[31m"
MARKUP = "[bold]b[/bold] [/x] [link=https://evil.example]l[/link] :smile:"

HOSTILE_YAML = """\
category: "cat[/x]\\e[2J"
tools:
  - name: "evil\\e[31mName"
    description: "Weather report {title} bell\\a {markup} \\u202Eright-to-left \\x9b31m"
    tags: ["[red]tag[/x]", ":smile:"]
    examples: ["weather report {markup}"]
  - name: getWeather
    description: "Get the weather {markup} for a city \\e]8;;https://evil.example\\e\\\\link\\e]8;;\\e\\\\"
    category: "weather[/x]"
    examples: ["weather for a city"]
""".format(title=TITLE.replace("\x1b", "\\e").replace("\x07", "\\a"), markup=MARKUP)

SCRIPT = """\
name: "[bold]script[/x] \\e]0;title\\a"
catalog: {catalog}
turns:
  - user: "weather report [/x] \\e[31m"
    steps:
      - call: {{name: toolSearch, arguments: {{query: "weather report"}}}}
      - call: {{name: getWeather, arguments: {{city: "[/x]\\e[2J"}}, result: {{text: ":smile: [bold]result[/x] \\a"}}}}
      - say: "done [link=https://evil.example]x[/link] :smile: \\e[2J\\a"
"""


def _assert_literal(text: str) -> None:
    """Nothing that a terminal would act on; the markup shown as written."""
    for bad in (ESC, BEL, CSI8, "\u202e"):
        assert bad not in text, f"{bad!r} reached the output: {text!r}"
    assert "Traceback" not in text and "internal error" not in text and "MarkupError" not in text


@pytest.fixture
def hostile(tmp_path):
    folder = tmp_path / "[bold]cat[red] :smile: \x1b[31m"
    folder.mkdir()
    (folder / "tools.yaml").write_text(HOSTILE_YAML, encoding="utf-8")
    return folder


@pytest.mark.parametrize(
    "args",
    [
        ("search", "weather report"),
        ("search", "weather report", "--explain"),
        ("search", "weather report", "--wide"),
        ("catalog",),
        ("catalog", "--wide"),
        ("eval", "--failures", "3"),
        ("eval", "--by", "category"),
        ("lint",),
        ("search", "weather", "--category", "nope[/x]\x1b]0;t\x07"),
    ],
)
@pytest.mark.parametrize("columns", ["80", "200"])
def test_hostile_catalog_is_shown_literally_by_every_command(run_cli, monkeypatch, hostile, args, columns):
    monkeypatch.setenv("COLUMNS", columns)
    if args[0] == "lint":
        result = run_cli("lint", str(hostile))
    else:
        result = run_cli(*args, "--catalog", str(hostile))
    assert result.code in (0, 1, 2), result
    _assert_literal(result.stdout + result.stderr)
    everything = result.stdout + result.stderr
    if args[0] in ("search", "catalog") and "--category" not in args:
        assert result.code == 0
        assert "[/x]" in everything  # literal markup, in a category or description
    if args == ("search", "weather report", "--wide") and columns == "200":
        assert MARKUP in result.stdout and "\\x1b]0;pwned\\x07" in result.stdout
    if args[0] == "catalog":
        assert "evil\\x1b[31mName" in result.stdout and ":smile:" in result.stdout


def test_hostile_script_and_replay_are_shown_literally(run_cli, hostile, write):
    script = write("s.sim.yaml", SCRIPT.format(catalog=json.dumps(str(hostile))))
    result = run_cli("simulate", str(script))
    assert result.code == 0, result
    _assert_literal(result.stdout + result.stderr)
    assert "[bold]script[/x]" in result.stdout and "done [link=https://evil.example]x[/link] :smile:" in result.stdout
    assert "\\x1b[2J" in result.stdout  # shown, not performed

    recorded = run_cli("simulate", str(script), "-f", "json").json()
    messages = write("m.json", json.dumps(recorded["messages"]))
    replayed = run_cli("simulate", "--replay", str(messages), "--catalog", str(hostile))
    assert replayed.code == 0, replayed
    _assert_literal(replayed.stdout + replayed.stderr)
    assert ":smile:" in replayed.stdout


def test_shown_makes_every_control_character_visible():
    text = "a\x1b[31mb\x07c\x9bd\u202ee\r\x00f\x7f"
    assert shown(text) == "a\\x1b[31mb\\x07c\\x9bd\\u202ee\\x0d\\x00f\\x7f"
    assert shown("tab\tand\nnewline stay") == "tab\tand\nnewline stay"
    assert shown(shown(text)) == shown(text)  # escaping twice changes nothing


def test_console_never_interprets_markup_or_emoji_codes_even_in_plain_strings():
    buffer = io.StringIO()
    out = console(buffer)
    out.print("[bold]x[/x] :smile: " + TITLE)
    out.print(data("[red]y[/]"), Text("raw " + RED + "z"))  # a Text built without data() too
    printed = buffer.getvalue()
    assert printed.startswith("[bold]x[/x] :smile: \\x1b]0;pwned\\x07")
    assert "[red]y[/]" in printed and "raw \\x1b[31mz" in printed
    _assert_literal(printed)


# ---------------------------------------------------------------- tables that fit


def _lines_fit(text: str, width: int) -> None:
    from rich.cells import cell_len

    too_wide = [line for line in text.splitlines() if cell_len(line.rstrip()) > width]
    assert not too_wide, f"wider than {width}: {too_wide}"


def _no_cut_numbers(text: str) -> None:
    assert not re.search(r"\d…|…\d", text), text


@pytest.mark.parametrize("width", [80, 120])
def test_eval_breakdown_shows_every_number_in_full(run_cli, monkeypatch, width):
    monkeypatch.setenv("COLUMNS", str(width))
    args = ("eval", "--catalog", str(DEMO), "--ranker", "default,classic", "--by", "category", "--k", "1,3,5,10")
    payload = run_cli(*args, "-f", "json").json()
    result = run_cli(*args)
    assert result.code == 0, result
    _lines_fit(result.stdout, width)
    _no_cut_numbers(result.stdout)
    tokens = set(result.stdout.split())
    # ms/q (timed, so not compared with the JSON run): one whole two-decimal value per row
    rows = 2 * (1 + len(payload["by_category"]))
    assert sum(1 for token in result.stdout.split() if re.fullmatch(r"\d+\.\d\d", token)) == rows
    for by_ranker in [payload["rankers"], *payload["by_category"].values()]:
        for metrics in by_ranker.values():
            for key in ("recall@1", "recall@10", "ndcg@10", "mrr"):
                assert f"{metrics[key]:.3f}" in tokens


@pytest.mark.parametrize("width", [80, 120])
def test_simulate_summary_reads_at_80_and_120_columns(run_cli, monkeypatch, width):
    monkeypatch.setenv("COLUMNS", str(width))
    script = str(ROOT / "catalogs" / "scenarios" / "weather-email.en.sim.yaml")
    transcript = run_cli("simulate", script, "-f", "json").json()
    result = run_cli("simulate", script)
    assert result.code == 0, result
    _lines_fit(result.stdout, width)
    summary = result.stdout[result.stdout.index("\nsummary (") :]
    assert "…" not in summary
    for header in ("visible", "share", "request", "saving", "disclosed"):
        assert header in summary
    shown_tokens = set(summary.replace("│", " ").split())
    for request in transcript["requests"]:  # a table row or a stacked block per request, numbers whole
        tokens = request["tokens"]
        assert {str(tokens["tools"]), str(tokens["request"]), f"{tokens['saving_percent']:.1f}%"} <= shown_tokens
    for name in {n for r in transcript["requests"] for n in r["disclosed"]}:
        assert name in summary  # every disclosed tool, whole (wrapped, not cut)


@pytest.mark.parametrize("width", [80, 120])
def test_rule_table_loses_no_text(run_cli, monkeypatch, width):
    from toolsearch_cli.lint.rules import RULE_BY_CODE

    monkeypatch.setenv("COLUMNS", str(width))
    result = run_cli("rule")
    assert result.code == 0
    _lines_fit(result.stdout, width)
    words = set(result.stdout.replace("│", " ").split())
    for rule in RULE_BY_CODE.values():
        assert rule.code in words and rule.name in words
        missing = [w for w in rule.summary().split() if w not in words]
        assert not missing, (rule.code, missing)


@pytest.mark.parametrize("width", [80, 120])
def test_search_and_catalog_fit_and_keep_scores(run_cli, monkeypatch, width):
    monkeypatch.setenv("COLUMNS", str(width))
    hits = run_cli("search", "refund a payment", "--catalog", str(DEMO), "-n", "10", "-f", "json").json()["hits"]
    for args in (("search", "refund a payment", "-n", "10"), ("search", "refund a payment", "--explain"), ("catalog",)):
        result = run_cli(*args, "--catalog", str(DEMO))
        assert result.code == 0
        _lines_fit(result.stdout, width)
        _no_cut_numbers(result.stdout)
    table = run_cli("search", "refund a payment", "-n", "10", "--catalog", str(DEMO)).stdout
    for hit in hits:
        score = f"{hit['score']:.2f}" if hit["score"] != int(hit["score"]) else f"{hit['score']:.0f}"
        assert f" {score} " in table and hit["name"] in table


def test_search_wide_shows_whole_descriptions_and_piped_output_is_not_cut(run_cli, monkeypatch):
    monkeypatch.delenv("COLUMNS")  # not a terminal, no $COLUMNS: lines as long as they need
    hits = run_cli("search", "refund a payment", "--catalog", str(DEMO), "-f", "json").json()["hits"]
    longest = max(hits, key=lambda h: len(h["description"]))
    assert len(longest["description"]) > 120
    wide = run_cli("search", "refund a payment", "--catalog", str(DEMO), "--wide").stdout
    assert " ".join(longest["description"].split()) in wide  # in full, on one line
    assert any(len(line) > 160 for line in wide.splitlines())
    monkeypatch.setenv("COLUMNS", "100")  # in a 100-column terminal: wrapped within the column, not cut
    wrapped = run_cli("search", "refund a payment", "--catalog", str(DEMO), "--wide").stdout
    _lines_fit(wrapped, 100)
    words = set(wrapped.replace("│", " ").split())
    assert all(word in words for word in longest["description"].split() if word.isascii())


@pytest.mark.parametrize("columns", [None, "80"])
def test_errors_are_never_wrapped(run_cli, monkeypatch, columns, tmp_path):
    if columns is None:
        monkeypatch.delenv("COLUMNS")
    else:
        monkeypatch.setenv("COLUMNS", columns)
    missing = tmp_path / ("a-very-long-folder-name-" * 5) / "catalog.yaml"
    result = run_cli("search", "weather", "--catalog", str(missing))
    assert result.code == 2
    assert len(result.stderr.strip().splitlines()) == 1 and len(result.stderr) > 100


def test_narrow_tables_stack_rows_and_keep_every_number():
    columns = [Col("name")] + [Col(f"metric{i}", "number", justify="right") for i in range(8)]
    rows = [["ranker-with-a-long-name", *(f"{1234.5678 + i:.4f}" for i in range(8))]]
    for width, stacked in ((40, True), (80, True), (120, False)):
        buffer = io.StringIO()
        out = console(buffer)
        out.width = width
        render_table(out, columns, rows, title="metrics")
        printed = buffer.getvalue()
        _lines_fit(printed, width)
        assert all(f"{1234.5678 + i:.4f}" in printed.split() for i in range(8)), printed
        assert "…" not in printed
        assert ("metric0 1234.5678" in printed) == stacked and ("│" in printed) != stacked, printed


def test_debug_works_after_the_subcommand(run_cli):
    result = run_cli("search", "weather", "--catalog", str(DEMO), "--category", "nope", "--debug")
    assert result.code == 2
    assert "Traceback" in result.stderr and result.stderr.strip().splitlines()[-1].startswith("error: ")


@pytest.mark.parametrize(
    "command", [(), ("search",), ("catalog",), ("catalog", "convert"), ("eval",), ("simulate",), ("lint",)]
)
def test_help_names_every_value_and_file_options_take_a_file(run_cli, command):
    text = run_cli(*command, "-h").stdout
    assert not re.search(r"<(str|int|float|path)>", text), text
    for option in ("--state", "--replay", "--record", "--out", "--output-file", "--config", "--queries", "--save"):
        for line in text.splitlines():
            if re.match(rf"\s+(-\w, )?{option} ", line):
                assert f"{option} FILE" in line, line
    if command == ("simulate",):
        assert "Default: the script's mode, else chat." in " ".join(text.split())
        assert "Default: the script's policy, else latest." in " ".join(text.split())


def test_in_a_colour_terminal_only_our_own_styles_are_escape_sequences(run_cli, monkeypatch, hostile):
    """With colour forced (as in a terminal), the only escape sequences are Rich's SGR styles."""
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.delenv("NO_COLOR", raising=False)
    for args in (("search", "weather report", "--explain"), ("catalog",), ("eval", "--failures", "2")):
        result = run_cli(*args, "--catalog", str(hostile))
        assert result.code == 0, result
        assert "\x1b[" in result.stdout  # colour is on
        plain = re.sub(r"\x1b\[[0-9;]*m", "", result.stdout)  # stderr has the progress bar's cursor codes
        _assert_literal(plain)
        assert "\\x1b[31m" in plain  # the file name's (and the tool name's) escape, shown, not stripped


@pytest.mark.parametrize("width", [80, 120])
def test_comparison_tables_fit_and_keep_numbers(run_cli, monkeypatch, tmp_path, width):
    monkeypatch.setenv("COLUMNS", str(width))
    script = str(ROOT / "catalogs" / "scenarios" / "weather-email.en.sim.yaml")
    compared = run_cli("simulate", script, "--policy", "latest,cumulative")
    assert compared.code == 0
    _lines_fit(compared.stdout, width)
    _no_cut_numbers(compared.stdout)
    runs = run_cli("simulate", script, "--policy", "latest,cumulative", "-f", "json").json()["runs"]
    tokens = set(compared.stdout.split())
    assert {str(run["summary"]["tool_tokens"]) for run in runs} <= tokens
    saved = tmp_path / "run.json"
    assert run_cli("eval", "--catalog", str(DEMO), "--ranker", "default,classic", "--save", str(saved)).code == 0
    diff = run_cli("eval", "--catalog", str(DEMO), "--ranker", "default,classic", "--baseline", str(saved))
    assert diff.code == 0
    _lines_fit(diff.stdout, width)
    _no_cut_numbers(diff.stdout)
    assert "compared with" in diff.stdout and "+0.000" in diff.stdout


def test_a_live_models_hostile_reply_and_tool_call_are_shown_literally(run_cli, monkeypatch, hostile):
    """Model replies, tool names the model made up and its arguments: literal in the live table output."""
    pytest.importorskip("openai")
    from ..chat_server import ChatServer, call, say

    server = ChatServer()
    try:
        server.add(
            call("toolSearch", {"query": "weather report [/x]\x1b[2J"}),
            call("made\x1b]0;up\x07[bold]Tool", {"a": ":smile:"}),
            say("the end [bold]x[/x] :smile: \x1b]0;pwned\x07 \x1b[2J"),
        )
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-FAKE-0123456789abcdef")
        result = run_cli(
            "simulate", "--live", "--base-url", server.url, "--model", "m[/x]", "--prompt", "hi [/x]",
            "--catalog", str(hostile), "--retry-backoff", "0.001",
        )  # fmt: skip
    finally:
        server.close()
    assert result.code == 0, result
    _assert_literal(result.stdout + result.stderr)
    assert "the end [bold]x[/x] :smile: \\x1b]0;pwned\\x07 \\x1b[2J" in result.stdout
    assert "made\\x1b]0;up\\x07[bold]Tool" in result.stdout


def test_counts_of_one_are_singular(run_cli, write):
    one = write("one.yaml", "tools:\n  - name: getWeather\n    description: Get the weather for a city.\n")
    assert "1 tool (0 resident, 1 searchable) in 0 categories" in run_cli("catalog", "--catalog", str(one)).stdout
    assert "1 of 1 searchable tool ·" in run_cli("search", "weather", "--catalog", str(one)).stdout
    script = write(
        "s.sim.yaml",
        f"catalog: {one}\nturns:\n  - user: hi\n    steps:\n      - say: hello\n        expect: {{hits: []}}\n",
    )
    out = run_cli("simulate", str(script)).stdout
    assert "✓ the check passed" in out and "all 1 checks" not in out and "1 request, 0 searches" in out
