"""The README's examples run as written (issue 36).

- "In your own agent loop": the snippet is taken from README.md and run as a script against the
  loopback Chat Completions server (tests/chat_server.py, the real ``openai`` SDK over a socket).
  Issue 36 found it a fragment (``NameError: messages``) that, filled in, never appended the
  assistant's ``tool_calls`` message, so nothing was disclosed and ``getWeather`` was refused.
- The console blocks of ``toolsearch simulate`` and ``toolsearch eval`` show what the commands
  print today: every line of the block is compared with the command's output (eval's timing
  column is the one part left out, it differs between runs).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from ..chat_server import ChatServer, call, say
from ..conftest import ROOT, clean_env, run_toolsearch

README = (ROOT / "README.md").read_text(encoding="utf-8")
SHARED = ROOT.parent / "shared"


def block_after(heading: str, fence: str) -> str:
    """The first fenced block of type ``fence`` after the line ``heading``."""
    start = README.index(f"\n{heading}\n")
    opening = README.index(f"```{fence}\n", start) + len(f"```{fence}\n")
    return README[opening : README.index("\n```", opening)]


def console_block(command_start: str) -> tuple[str, list[str]]:
    """The console block whose ``$`` line begins ``command_start``: (the command, its output lines)."""
    for block in re.findall(r"```console\n(.*?)\n```", README, re.S):
        first, *rest = block.split("\n")
        if first.startswith(f"$ {command_start}"):
            command = first[2:]
            while command.endswith("\\") and rest:
                command = command[:-1] + " " + rest.pop(0).strip()
            return command, rest
    raise AssertionError(f"no console block of '{command_start}' in README.md")


def test_the_agent_loop_snippet_discloses_and_calls_get_weather(tmp_path):
    pytest.importorskip("openai")
    snippet = block_after("### In your own agent loop: `toolsearch_cli.ToolSearch`", "python")
    script = tmp_path / "agent_loop_snippet.py"
    script.write_text(snippet, encoding="utf-8")
    server = ChatServer()
    server.add(
        call("toolSearch", {"query": "current weather for a city", "maxResults": 3}),
        call("getWeather", {"city": "Shanghai"}),
        say("Cloudy, 18°C in Shanghai."),
    )
    try:
        done = subprocess.run(
            [sys.executable, str(script)],
            capture_output=True,
            text=True,
            encoding="utf-8",
            cwd=ROOT,
            timeout=120,
            env=clean_env(OPENAI_BASE_URL=server.url, OPENAI_API_KEY="sk-test"),
        )
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Cloudy, 18°C in Shanghai."
    first, second, third = server.requests
    assert "getWeather" not in first.tool_names and "toolSearch" in first.tool_names
    assert "getWeather" in second.tool_names  # disclosed by the search the history carries
    # the getWeather call was accepted and run by the snippet's own implementation, not refused
    result = json.loads(third.messages[-1]["content"])
    assert result == {"city": "Shanghai", "temperature": 18, "condition": "cloudy"}
    assert third.messages[-2]["tool_calls"][0]["function"]["name"] == "getWeather"


def _same_lines(shown: list[str], printed: str, drop_column: int | None = None) -> None:
    """Each line the README shows is a line of ``printed``, compared without the table's padding;
    a line the README abridges (ending ``...``, or a table row whose description is cut with ``…``)
    is compared up to there; ``...`` alone and the
    tables' rules (``━━╇━━``) are skipped; ``drop_column``: a table column left out."""

    def norm(line: str) -> str:
        cells = [c.strip() for c in re.split(r"[│┃]", line)]
        if drop_column is not None and len(cells) > 1:
            del cells[drop_column]
        return " | ".join(" ".join(c.split()) for c in cells).strip(" |")

    lines = [norm(line) for line in printed.splitlines()]
    missing = []
    for line in shown:
        if line.strip() in ("", "...") or not line.strip("━╇ "):
            continue
        if line.endswith(("...", "…")):  # abridged by the README, or a description cut to fit
            prefix = norm(line.removesuffix("...").removesuffix("…"))
            found = any(printed_line.startswith(prefix) for printed_line in lines)
        else:
            found = norm(line) in lines
        if not found:
            missing.append(line)
    assert not missing, "README lines the command does not print today:\n" + "\n".join(missing)


def test_the_tour_s_search_shows_what_search_prints():
    command, shown = console_block('toolsearch search "查询城市天气"')
    assert command == 'toolsearch search "查询城市天气"'
    done = run_toolsearch("search", "查询城市天气", COLUMNS="200")
    assert done.code == 0, done.stderr
    assert len(shown) >= 4
    _same_lines(shown, done.stdout)


def test_the_simulate_example_shows_what_simulate_prints():
    command, shown = console_block("toolsearch simulate catalogs/scenarios/weather-email.zh.sim.yaml")
    args = command.split()[1:]
    done = run_toolsearch(*args, COLUMNS="200")
    assert done.code == 0, done.stderr
    _same_lines(shown, done.stdout)


@pytest.mark.skipif(not (SHARED / "eval" / "bfcl_static").is_dir(), reason="needs ../shared beside the checkout")
def test_the_eval_example_shows_what_eval_prints():
    command, shown = console_block("toolsearch eval --catalog ../shared/eval/bfcl_static/catalog.yaml")
    args = command.split()[1:]
    done = run_toolsearch(*args, COLUMNS="200", timeout=600)
    assert done.code == 0, done.stderr
    header = [line for line in shown if "queries from" in line or line.startswith("../shared")]
    table = [line for line in shown if line not in header]
    _same_lines(table, done.stdout, drop_column=-1)  # ms/q is a timing
    assert " ".join(" ".join(header).split()) in " ".join(done.stdout.split())  # the README wraps it


def test_the_live_transcript_s_tool_tables_and_today_s_baseline(run_cli, monkeypatch):
    """docs/how-to/live-runs.md shows a run captured from a real llama.cpp model. What does not
    depend on the model — each request's tool table — is what the command prints today when the
    same calls come back (the loopback server answers them), and the page's note names today's
    all-tools baseline."""
    pytest.importorskip("openai")
    from ..chat_server import live_runner

    page = (ROOT / "docs" / "how-to" / "live-runs.md").read_text(encoding="utf-8")
    block = next(b for b in re.findall(r"```console\n(.*?)\n```", page, re.S) if "--model gemma-3-270m" in b)
    command, *shown = block.split("\n")
    arguments = '{ "query": "weather", "maxResults": 100, "category": "Weather" }'  # as the model wrote them
    assert f"toolSearch({arguments})" in block
    server = ChatServer()
    server.add(*[call("toolSearch", arguments) for _ in range(3)])
    try:
        words = command.split()
        rest = words[words.index("--catalog") :]
        rest = rest[: rest.index("--record")]
        done = live_runner(run_cli, monkeypatch, server, "sk-test")(*[w.strip('"') for w in _join_quoted(rest)])
    finally:
        server.close()
    assert done.code == 0, done.stderr
    assert "no final answer after 3 requests (--max-iterations)" in done.stdout  # as captured
    table_rows = [line for line in shown if re.match(r"^(resident|toolSearch|disclosed|group)\s+│", line)]
    assert len(table_rows) >= 9
    _same_lines(table_rows, done.stdout)
    baseline = re.search(r"all-tools baseline \((\d+) tok\)", done.stdout).group(1)
    assert f"to {baseline} tok" in " ".join(page.split())


def _join_quoted(words: list[str]) -> list[str]:
    """Split words of a shell line back into arguments where a "quoted argument" had spaces."""
    out: list[str] = []
    for word in words:
        if out and out[-1].startswith('"') and not out[-1].endswith('"'):
            out[-1] += " " + word
        else:
            out.append(word)
    return out
