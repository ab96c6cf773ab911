"""The injection rule's data files (toolsearch_cli/lint/data/injection/, issue 33 item 4): read and
checked once, a malformed file named by file and line, read only when TS206 or TS207 run."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from toolsearch_cli.lint import injection_data as data_module
from toolsearch_cli.lint.injection_data import (
    LANGUAGES,
    ROLES,
    InjectionDataError,
    injection_data,
    load,
    read_fragments,
    read_language,
)

SHIPPED = Path(str(data_module.shipped_folder()))
FRAGMENTS = {"url": r"(?:https?://)\S+"}


def test_the_shipped_data_has_every_language_and_role():
    data = injection_data()
    assert [language.code for language in data.languages] == list(LANGUAGES)
    by_code = {language.code: language for language in data.languages}
    assert by_code["en"].gate is None and all(by_code[c].gate is not None for c in ("es", "zh", "fr", "de", "pt"))
    assert len(by_code["en"].patterns) >= 24 and all(p.needs for p in by_code["en"].patterns)  # 24 at the move
    for role in ROLES:  # every role has words in English and in at least four other languages
        assert sum(bool(language.lexicons.get(role)) for language in data.languages) >= 5, role
    assert injection_data() is data  # read once


def test_a_pattern_reads_its_fields_and_its_fragments():
    text = "# comment\n\npattern\tsends data away\tsend|post & ://\t\\bsend\\b.{0,20}{=url}\n"
    language = read_language("en", "x/en.tsv", text, FRAGMENTS)
    [pattern] = language.patterns
    assert pattern.why == "sends data away" and pattern.needs == (("send", "post"), ("://",))
    assert pattern.regex.pattern == r"\bsend\b.{0,20}(?:https?://)\S+" and pattern.where == "x/en.tsv:3"
    assert pattern.regex.search("SEND it to https://x.example/a")


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("pattern\twhy\t-", "expected pattern<TAB>why<TAB>needs<TAB>regex"),
        ("pattern\twhy\t-\t(unclosed", "bad regular expression: missing ), unterminated subpattern"),
        ("pattern\twhy\tSend\tsend", "needs 'Send': lower-case words"),
        ("pattern\twhy\tsend||post\tsend", "needs 'send||post'"),
        ("pattern\twhy\t-\tsend {=nowhere}", "unknown fragment {=nowhere}"),
        ("lexicon\tverbs\tsend", "expected lexicon<TAB>role<TAB>entries, a role among ov_verb"),
        ("lexicon\ttransfer\tsend||post", "an empty lexicon entry"),
        ("gate\t[a-", "bad regular expression"),
        ("rule\tsomething", "unknown record kind 'rule'"),
        ("pattern why - send", "unknown record kind 'pattern why - send'"),  # spaces, not tabs
    ],
)
def test_a_malformed_record_is_named_by_file_and_line(line, message):
    text = f"# a comment\nlexicon\ttransfer\tsend\n{line}\n"
    with pytest.raises(InjectionDataError) as caught:
        read_language("es", "data/es.tsv", text, FRAGMENTS)
    assert str(caught.value).startswith(f"data/es.tsv:3: {message}")
    assert "\n" not in str(caught.value)


def test_a_second_gate_and_bad_fragments_are_refused():
    with pytest.raises(InjectionDataError, match=r"^es\.tsv:2: a second gate"):
        read_language("es", "es.tsv", "gate\ta\ngate\tb\n", {})
    with pytest.raises(InjectionDataError, match=r"^f\.tsv:2: fragment 'others' is defined twice"):
        read_fragments("f.tsv", "fragment\tothers\ta\nfragment\tothers\tb\n")
    with pytest.raises(InjectionDataError, match=r"^f\.tsv:1: fragment 'url' is defined twice"):
        read_fragments("f.tsv", "fragment\turl\ta\n")  # built in: the URL forms of injection_text
    with pytest.raises(InjectionDataError, match=r"^f\.tsv:1: expected fragment<TAB>name<TAB>regex"):
        read_fragments("f.tsv", "fragment\tURL\ta\n")


def test_a_folder_is_checked_whole_and_a_missing_file_named(tmp_path):
    folder = tmp_path / "injection"
    shutil.copytree(SHIPPED, folder)
    assert load(folder) == injection_data()  # the same records as the shipped copy
    lines = (folder / "de.tsv").read_text(encoding="utf-8").splitlines()
    number = next(i for i, line in enumerate(lines, 1) if line.startswith("pattern\t"))
    lines[number - 1] = lines[number - 1].replace("(Anweisungen", "(Anweisungen[")
    (folder / "de.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(InjectionDataError, match=rf"de\.tsv:{number}: bad regular expression"):
        load(folder)
    (folder / "de.tsv").unlink()
    with pytest.raises(InjectionDataError, match=r"de\.tsv: cannot read the injection rule's data"):
        load(folder)


def test_lint_says_which_data_line_is_malformed_in_one_line(tmp_path, monkeypatch, run_cli, write):
    folder = tmp_path / "injection"
    shutil.copytree(SHIPPED, folder)
    with (folder / "pt.tsv").open("a", encoding="utf-8") as out:
        out.write("lexicon\ttransfer\tenvie||mande\n")
    last = len((folder / "pt.tsv").read_text(encoding="utf-8").splitlines())
    from toolsearch_cli.lint import injection, injection_signals

    def clear() -> None:
        for cached in (injection_data, injection_signals._lexicons, injection._gated, injection.rule_reasons):
            cached.cache_clear()

    monkeypatch.setattr(data_module, "shipped_folder", lambda: folder)
    clear()
    catalog = write("c.yaml", "tools:\n  - name: notes_send\n    description: Sends a note to a colleague by e-mail.\n")
    try:
        result = run_cli("lint", str(catalog), "--select", "TS206")
    finally:
        monkeypatch.undo()
        clear()
    assert result.code == 2
    assert result.stderr.strip().splitlines() == [
        f"error: {folder / 'pt.tsv'}:{last}: an empty lexicon entry (two '|' in a row?)"
    ]


def test_the_data_is_not_read_until_the_rule_runs():
    """Lint's start-up does not grow: importing the rules reads no data file and compiles no
    pattern; a lint run that selects neither TS206 nor TS207 does not either."""
    code = (
        "import sys\n"
        "from toolsearch_cli.lint.rules import RULE_BY_CODE\n"
        "from toolsearch_cli.lint import injection_data, injection_signals\n"
        "assert injection_data.injection_data.cache_info().currsize == 0\n"
        "from toolsearch_cli.lint import LintConfig, lint\n"
        "lint([sys.argv[1]], LintConfig(select=['TS201']))\n"
        "assert injection_data.injection_data.cache_info().currsize == 0\n"
        "assert injection_signals._lexicons.cache_info().currsize == 0\n"
        "lint([sys.argv[1]], LintConfig(select=['TS206']))\n"
        "assert injection_data.injection_data.cache_info().currsize == 1\n"
        "print('ok')\n"
    )
    catalog = Path(__file__).resolve().parents[2] / "catalogs" / "demo"
    done = subprocess.run([sys.executable, "-c", code, str(catalog)], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "ok", done.stderr
