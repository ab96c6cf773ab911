"""The documentation site (issue 36) builds with ``mkdocs build --strict`` and its generated
reference is complete: every command and option of the CLI once, a page per lint rule, every
environment variable, every exported library name. Skipped when the ``docs`` extra is not
installed (``pip install -e ".[docs]"``; ``.ci/run`` installs it)."""

from __future__ import annotations

import html
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from ..conftest import ROOT, clean_env

for _module in ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python"):
    pytest.importorskip(_module, reason='the docs extra is not installed (pip install -e ".[docs]")')


def build(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=config.parent,
        timeout=300,
        env=clean_env(NO_MKDOCS_2_WARNING="1"),
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    done = build(ROOT / "mkdocs.yml", out)
    assert done.returncode == 0, done.stdout + done.stderr
    return out


def page(site: Path, path: str) -> str:
    return (site / path).read_text(encoding="utf-8")


def cli_tree():
    import typer

    from toolsearch_cli.cli.app import app

    found = []

    def walk(command, path):
        found.append((path, command))
        for name, sub in sorted((getattr(command, "commands", None) or {}).items()):
            if not sub.hidden:
                walk(sub, f"{path} {name}")

    walk(typer.main.get_command(app), "toolsearch")
    return found


def sections(text: str) -> dict[str, str]:
    """The CLI page's h2 sections by id."""
    parts = re.split(r'<h2 id="([^"]+)"', text)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts), 2)}


def test_every_command_and_option_appears_once_in_the_cli_reference(site):
    text = page(site, "reference/cli.html")
    by_id = sections(text)
    tree = cli_tree()
    assert len(tree) > 10  # the app's commands, the groups' commands (catalog convert, model pull, ...)
    ids = [re.sub(r"[^a-z0-9]+", "-", path.lower()).strip("-") for path, _ in tree]
    assert Counter(re.findall(r'<h2 id="([^"]+)"', text)) == Counter(ids)  # each command once, no other
    for (path, command), anchor in zip(tree, ids, strict=True):
        rows = re.findall(r"<tr>\s*<td>(.*?)</td>", by_id[anchor], re.S)
        listed = Counter(html.unescape(name) for row in rows for name in re.findall(r"<code>(.*?)</code>", row))
        expected = Counter()
        for param in command.params:
            if getattr(param, "hidden", False):
                continue
            if param.param_type_name == "option":
                expected.update([*param.opts, *param.secondary_opts])
            else:
                expected.update([param.human_readable_name])
        assert listed == expected, path
        assert f"<code>{html.escape(path)}" in by_id[anchor]  # the usage line


def test_every_lint_rule_has_a_page_and_a_row_in_the_index(site):
    from toolsearch_cli.lint.rules import RULE_BY_CODE

    index = page(site, "reference/rules/index.html")
    assert len(RULE_BY_CODE) >= 37
    for code, rule in RULE_BY_CODE.items():
        rule_page = page(site, f"reference/rules/{code}.html")
        assert re.search(rf"<h1[^>]*>{code} {re.escape(rule.name)}", rule_page), code
        assert "What it does" in rule_page
        row = re.search(rf'<tr>\s*<td><a href="{code}.html">{code}</a></td>\s*<td>(.*?)</td>(.*?)</tr>', index, re.S)
        assert row, code
        assert row.group(1) == rule.name and f"<td>{rule.severity}</td>" in row.group(2)
    assert len(re.findall(r'<a href="TS\d{3}.html">', index)) == len(RULE_BY_CODE)


def test_every_environment_variable_and_library_name_is_documented(site):
    from toolsearch_cli import __all__ as exported
    from toolsearch_cli.environment import VARIABLES

    environment = page(site, "reference/environment.html")
    for name in VARIABLES:
        assert environment.count(f"<code>{name}</code>") == 1, name
    api = page(site, "reference/api.html")
    for name in exported:
        if not name.startswith("_"):
            assert f'id="toolsearch_cli.{name}"' in api, name


def test_the_generated_includes(site):
    index = html.unescape(re.sub(r"<[^>]+>", "", page(site, "index.html")))  # the text, highlighting gone
    assert 'pip install -e . && toolsearch search "查询城市天气"' in index  # the README's two commands
    assert 'pip install -e ".[test]" && pytest' in index
    assert "--explain adds, for each hit" in " ".join(index.split())  # and its tour
    benchmarks = page(site, "benchmarks.html")
    readme = (ROOT / "benchmarks" / "README.md").read_text(encoding="utf-8")
    latest = readme.split("## Latest results", 1)[1]
    rows = [line for line in latest.splitlines() if line.startswith("| ") and not line.startswith("| figure")]
    assert rows
    for row in rows:
        first_words = html.escape(row.split("|")[1].strip().split("`")[0].strip()[:20], quote=False)
        assert first_words in benchmarks, row
    assert "python -m benchmarks quality --ranker default" in benchmarks


def test_strict_fails_on_a_broken_internal_link(tmp_path):
    """What the site relies on for 'no broken internal link': the same strict build fails on one."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n\nSee [the guide](guide.md).\n", encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text("site_name: t\nstrict: true\n", encoding="utf-8")
    done = build(tmp_path / "mkdocs.yml", tmp_path / "site")
    assert done.returncode != 0
    assert "guide.md" in done.stdout + done.stderr


def test_the_site_fetches_nothing_from_other_hosts_when_viewed(site):
    # Material loads Roboto from Google Fonts by default: a page opened offline (or by a reader who
    # has not agreed to it) would reach fonts.googleapis.com; `font: false` in mkdocs.yml keeps the
    # system fonts
    for built in site.rglob("*.html"):
        text = built.read_text(encoding="utf-8")
        assert "fonts.googleapis.com" not in text and "fonts.gstatic.com" not in text, built
