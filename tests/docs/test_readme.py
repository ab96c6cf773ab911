"""The README is a front page (issue 36): at most 150 lines, opening with the two set-up commands
(.ci/run runs them as written), and its examples run (tests/docs/test_examples.py runs them with
every page's). The live-run transcript of docs/how-to/live-runs.md, captured from a real model,
is checked here: what does not depend on the model is what the command prints today.
"""

from __future__ import annotations

import re

import pytest

from ..chat_server import ChatServer, call
from ..conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
SETUP = 'pip install -e . && toolsearch search "查询城市天气"\npip install -e ".[test]" && pytest\n'


def _same_lines(shown: list[str], printed: str) -> None:
    from .examples import missing_lines

    missing = missing_lines(shown, printed)
    assert not missing, "lines the command does not print today:\n" + "\n".join(missing)


def test_the_readme_is_a_front_page_that_opens_with_the_two_commands():
    lines = README.splitlines()
    assert len(lines) <= 150
    first_block = re.search(r"```bash\n(.*?)```", README, re.S)
    assert first_block and first_block.group(1) == SETUP
    assert README.index("```bash") < 200  # the first thing on the page, after the title
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert SETUP.splitlines()[0] in ci  # CI runs the first command as the README writes it


def test_the_readme_links_into_the_site_and_every_link_resolves():
    links = re.findall(r"\]\((docs/[^)#\s]+)", README)
    assert len(links) >= 15
    assert not [link for link in links if not (ROOT / link).is_file()]
    for page in (
        "tutorials/tune-openapi.md",
        "tutorials/agent-loop.md",
        "tutorials/gateway.md",
        "tutorials/registry.md",
    ):
        assert f"docs/{page}" in links


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


def test_the_readme_s_count_of_demo_tools_is_the_catalog_s():
    from toolsearch_cli import load_catalog

    count = len(load_catalog(str(ROOT / "catalogs" / "demo")).tools)
    assert f"shipped demo catalog ({count} tools in English and Chinese)" in " ".join(README.split())
