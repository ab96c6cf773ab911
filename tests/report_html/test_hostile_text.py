"""Tool descriptions, categories, queries, scripts and model output are hostile input: in a report
they are text, never markup, and their control and bidi characters are visible escapes."""

from __future__ import annotations

import pytest

from toolsearch_cli.htmlreport.svg import esc
from toolsearch_cli.printable import hidden

from .conftest import HOSTILE, q
from .parse import ALLOWED, parse

#: How the hostile text's pieces must read in the document (escaped, the escapes visible).
ESCAPED = [
    "&lt;script&gt;alert(&quot;s&quot;)&lt;/script&gt;",
    "&quot;&gt;&lt;img src=x onerror=alert(1)&gt;",
    "&lt;/svg&gt;&lt;/table&gt;&lt;svg onload=alert(2)&gt;",
    "&#x27; onmouseover=&#x27;alert(3)",
    "\\x1b[31mred\\x1b[0m \\x07",
    "\\u202egnp.exe\\u202c \\u2066iso\\u2069",
    "&amp;amp;",
]


def check_inert(document: str) -> None:
    """Nothing but the report's own elements, no event handler, no raw control character."""
    page = parse(document)
    assert page.tags() <= ALLOWED, page.tags() - ALLOWED
    handlers = [(e.tag, name) for e in page.elements for name in e.attrs if name.lower().startswith("on")]
    assert handlers == []
    assert page.closed.get("svg", 0) == len(page.all("svg"))  # no chart closed early
    assert not hidden(document.replace("\n", " "))  # ESC, BEL, bidi overrides: all escaped
    for piece in ESCAPED:
        assert piece in document, piece


def test_the_escape_itself():
    assert esc('<a href="x">\x1b\u202e</a>') == "&lt;a href=&quot;x&quot;&gt;\\x1b\\u202e&lt;/a&gt;"
    assert esc("'") == "&#x27;"


def test_an_eval_report_of_a_hostile_catalog_and_query_set_is_inert(run_cli, hostile, tmp_path):
    out = tmp_path / "eval.html"
    result = run_cli(
        "eval", "-c", str(hostile["catalog"]), "-q", str(hostile["queries"]), "-r", "default,classic",
        "--report", str(out),
    )  # fmt: skip
    assert result.code == 0, result.stderr
    document = out.read_text(encoding="utf-8")
    check_inert(document)
    page = parse(document)
    # the hostile query set (a subset) is a bar of each chart, the hostile query a row of the misses
    assert any(t.startswith("default · " + HOSTILE[:20]) for t in page.tooltips("rect"))
    assert "q1" + HOSTILE.replace("\x1b", "\\x1b")[:30] in page.text()


def test_a_hostile_catalogs_examples_by_category_are_inert(run_cli, hostile, tmp_path):
    out = tmp_path / "eval.html"
    result = run_cli("eval", "-c", str(hostile["catalog"]), "--by", "category", "--report", str(out))
    assert result.code == 0, result.stderr
    document = out.read_text(encoding="utf-8")
    page = parse(document)
    assert page.tags() <= ALLOWED
    assert not hidden(document.replace("\n", " "))
    assert "w&lt;script&gt;alert(&quot;s&quot;)" in document  # the category, as a label and a tooltip


def test_a_simulate_report_of_a_hostile_script_is_inert(run_cli, hostile, tmp_path):
    out = tmp_path / "sim.html"
    result = run_cli("simulate", str(hostile["script"]), "--report", str(out))
    assert result.code == 0, result.stderr
    document = out.read_text(encoding="utf-8")
    check_inert(document)
    assert document.count("&lt;script&gt;") >= 3  # the title, the user's arguments, the model's reply


@pytest.mark.parametrize("kind", ["eval", "simulate"])
def test_the_page_forbids_every_load(run_cli, hostile, tmp_path, kind):
    out = tmp_path / "r.html"
    args = ["-c", str(hostile["catalog"])] if kind == "eval" else [str(hostile["script"])]
    assert run_cli(kind, *args, "--report", str(out)).code == 0
    page = parse(out.read_text(encoding="utf-8"))
    [csp] = [e for e in page.all("meta") if e.attrs.get("http-equiv") == "Content-Security-Policy"]
    assert "default-src 'none'" in csp.attrs["content"] and "script-src" not in csp.attrs["content"]


def test_huge_names_from_data_stay_short_in_the_report(run_cli, write, tmp_path):
    """A query set's subset, a script's name: 100,000 characters each, shown cut (the tables'
    cells, the charts' labels and tooltips), so the report stays small."""
    huge = "<b>" + "x" * 100_000
    catalog = write("c.yaml", "tools:\n  - {name: getWeather, description: weather forecast for a city}\n"
                    "  - {name: sendEmail, description: send an email}\n")  # fmt: skip
    queries = write("q.yaml", f"- {{id: a, query: weather, relevant: [getWeather], subset: {q(huge)}}}\n")
    script = write(
        "s.sim.yaml", f"name: {q(huge)}\ncatalog: c.yaml\nturns:\n  - user: hi\n    steps:\n      - say: hi\n"
    )
    for argv in (["eval", "-c", str(catalog), "-q", str(queries)], ["simulate", str(script)]):
        out = tmp_path / f"{argv[0]}.html"
        assert run_cli(*argv, "--report", str(out)).code == 0
        document = out.read_text(encoding="utf-8")
        assert len(document) < 60_000, (argv[0], len(document))
        assert "&lt;b&gt;xxx" in document and "<b>" not in document
