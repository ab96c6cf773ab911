"""Markup in tool text: plain text for the index and the table, the original everywhere else."""

from __future__ import annotations

import json

from toolsearch_cli import load_catalog
from toolsearch_cli.markup import plain_text
from toolsearch_cli.search import search
from toolsearch_cli.search.bm25f import tool_fields


def test_html_becomes_the_text_a_reader_sees():
    html = '<p>Creates a <a href="/docs/api#refunds">refund</a> &amp; returns it.</p><p>Second&nbsp;part</p>'
    assert plain_text(html) == "Creates a refund & returns it.\n\nSecond part"
    assert plain_text("<!-- hidden --><script>alert(1)</script><b>bold</b> <br/>next") == "bold\nnext"


def test_markdown_becomes_the_text_a_reader_sees():
    md = "## Navigate\n\nGo to a **URL** in the *browser*. See [the docs](https://x.test/a_b)."
    md += "\n- one\n1. two\n`code_span`"
    assert plain_text(md) == "Navigate\n\nGo to a URL in the browser. See the docs.\none\ntwo\ncode_span"
    assert plain_text("| a | b |\n|---|---|\n| 1 | 2 |") == "a b\n\n1 2"
    assert plain_text("```python\nprint(1)\n```") == "print(1)"


def test_text_that_only_looks_like_markup_is_left_alone():
    for text in ("get_user_by_id and snake_case_words", "a * b = 3*4", "x < y and y > z", "50% off, no tags"):
        assert plain_text(text) == text
    assert plain_text("<p>x</p>") == plain_text("**x**") == "x"


def test_addresses_are_dropped_for_indexing_only():
    text = "Fetch https://example.com/a/b?c=d for the page"
    assert plain_text(text) == text
    assert "example" not in plain_text(text, urls=False) and "page" in plain_text(text, urls=False)


def test_comments_scripts_and_styles_are_not_text():
    text = "a<!-- c -->b<script type=x>evil()</SCRIPT >c<style>x{}</style>d<!-- never closed"
    assert plain_text(text) == "a b c d"


def test_entities_never_make_control_characters():
    out = plain_text("&#27;[31mred&#0;&#x9b;&#xD800;ok &unknown; &lt;b&gt;")
    assert "\x1b" not in out and "\x00" not in out and "\x9b" not in out
    assert out.endswith("ok &unknown; <b>")  # a decoded tag is text, not a tag to drop


def test_hostile_markup_is_bounded():
    # unterminated tags, comments and links, and deep nesting: each pattern is bounded, so these finish
    hostile = ["<a " * 100_000, "<!--" * 50_000, "<script>" * 50_000, "[" * 100_000 + "](", "**" * 100_000]
    hostile += ["<b>" * 50_000 + "x", "\n \n" * 100_000, "|" + " " * 100_000 + "--|", "\n" * 200_000 + "*"]
    for text in hostile:
        out = plain_text(text)
        assert isinstance(out, str) and len(out) <= len(text)


def _tool(name, description, **extra):
    return {"name": name, "description": description, **extra}


def test_tags_and_addresses_are_not_terms_and_the_table_shows_text(run_cli, tmp_path):
    html = '<p>Lists the <a href="https://docs.example.com/api">invoices</a> of a <code>customer</code>.</p>'
    path = tmp_path / "c.json"
    path.write_text(json.dumps([_tool("list_invoices", html), _tool("get_weather", "Weather for a city.")]))
    catalog = load_catalog([str(path)])
    terms = tool_fields(catalog.get("list_invoices"))["description"]
    assert {"href", "code", "http", "https", "doc", "docs", "com"}.isdisjoint(terms)
    assert {"invoic", "custom"} <= set(terms)
    assert not search(catalog, "href code docs")  # tag names and address words match nothing

    result = run_cli("search", "invoices of a customer", "-c", str(path))  # 200 columns
    assert result.code == 0 and result.stderr == "", result.stderr
    assert "Lists the invoices of a customer." in result.stdout and "<a" not in result.stdout
    # the catalog itself keeps the original (exports and what a model is sent)
    assert catalog.get("list_invoices").description == html
    out = run_cli("search", "invoices", "-c", str(path), "--format", "json")
    assert out.code == 0 and out.stderr == "", out.stderr
    assert out.json()["hits"][0]["description"] == html
