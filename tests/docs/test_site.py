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
from html.parser import HTMLParser
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
    assert "--explain says, for each hit" in " ".join(index.split())  # and its tour
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


class _Links(HTMLParser):
    """The hrefs of a built page's content (its ``<article>``: the theme's navigation, which links
    every page from every page, is left out) and the ids of all its elements."""

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0  # inside the article when > 0
        self.hrefs: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "article":
            self.depth += 1
        elif tag == "a" and self.depth and attrs.get("href"):
            self.hrefs.append(attrs["href"])

    def handle_endtag(self, tag):
        if tag == "article" and self.depth:
            self.depth -= 1


def _parse(path: Path) -> _Links:
    parser = _Links()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def _internal(page: Path, href: str, site: Path) -> tuple[Path, str] | None:
    """(the page a relative link points at, its fragment), or None for an outside link."""
    if re.match(r"^[a-z][a-z0-9+.-]*:", href) or href.startswith("//"):
        return None
    path, _, fragment = href.partition("#")
    if path.startswith("/"):  # 404.html links from the site's root
        target = (site / path.lstrip("/")).resolve()
    else:
        target = (page.parent / path).resolve() if path else page
    if target.is_dir():
        target = target / "index.html"
    return target, fragment


def test_no_internal_link_of_the_site_is_broken(site):
    """Every link of every built page (content and navigation) to another page of the site reaches a
    file that exists, and its #fragment an element of that page."""
    parsed: dict[Path, _Links] = {}
    broken = []
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 60
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for href in re.findall(r'href="([^"]+)"', text):
            found = _internal(page, html.unescape(href), site)
            if found is None:
                continue
            target, fragment = found
            if not target.exists():
                broken.append(f"{page.relative_to(site)}: {href}")
                continue
            if fragment and target.suffix == ".html":
                if target not in parsed:
                    parsed[target] = _parse(target)
                if fragment not in parsed[target].ids:
                    broken.append(f"{page.relative_to(site)}: {href} (no such anchor)")
    assert not broken


def test_a_new_user_reaches_the_tutorial_each_client_s_registration_and_every_rule_in_two_clicks(site):
    """Issue 36's target, over the built site's content links (never the theme's navigation): from
    the home page in at most two clicks, the tuning tutorial, the gateway registration of each client
    and the page of every lint rule."""
    from toolsearch_cli.lint.rules import RULE_BY_CODE

    home = (site / "index.html").resolve()
    depth = {(home, ""): 0}
    frontier = [home]
    for clicks in (1, 2):
        reached = []
        for page in frontier:
            for href in _parse(page).hrefs:
                found = _internal(page, html.unescape(href), site)
                if found is None or not found[0].exists() or found[0].suffix != ".html":
                    continue
                if (found[0], "") not in depth:  # a page not seen before: its links are the next click
                    depth[(found[0], "")] = clicks
                    reached.append(found[0])
                depth.setdefault(found, clicks)
        frontier = reached
    within_two = {(p.relative_to(site).as_posix(), f) for p, f in depth}
    pages = {p for p, _ in within_two}
    assert "tutorials/tune-openapi.html" in pages
    for client in ("claude-desktop", "claude-code", "cursor", "vs-code"):
        assert ("tutorials/gateway.html", client) in within_two, client
    missing_rules = [code for code in RULE_BY_CODE if f"reference/rules/{code}.html" not in pages]
    assert not missing_rules


def test_the_output_formats_page_lists_the_keys_each_command_prints(site):
    """Generated from the commands' real output at build time: a key a command prints is on the page."""
    text = html.unescape(re.sub(r"<[^>]+>", "", page(site, "reference/output.html")))
    for command, key in [
        ("search", "matched_fields"),
        ("eval", "ms_per_query"),
        ("lint", "severity"),
        ("simulate", "saving_percent"),
        ("serve --dry-run", "searchable"),
        ("catalog", "parameters"),
    ]:
        assert f"toolsearch {command.split()[0]}" in text and key in text, (command, key)
    assert "Exit code 1; the document is an array" in text  # lint on catalogs/bad fails, as it should


def test_the_link_check_sees_a_missing_page_and_a_missing_anchor(tmp_path):
    (tmp_path / "a.html").write_text('<article><a href="b.html#there">b</a><a href="c.html">c</a></article>', "utf-8")
    (tmp_path / "b.html").write_text('<h2 id="here">B</h2>', "utf-8")
    links = _parse(tmp_path / "a.html").hrefs
    assert links == ["b.html#there", "c.html"]
    target, fragment = _internal(tmp_path / "a.html", links[0], tmp_path)
    assert target.exists() and fragment not in _parse(target).ids  # the anchor is missing
    assert not _internal(tmp_path / "a.html", links[1], tmp_path)[0].exists()  # the page is missing
    assert _internal(tmp_path / "a.html", "https://example.com/x.html", tmp_path) is None
