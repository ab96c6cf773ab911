"""Every rule: its documentation follows the template, and its own examples fire / stay quiet."""

from __future__ import annotations

import re

import pytest

from toolsearch_cli.lint import LintConfig, lint
from toolsearch_cli.lint.rule import DOC_SECTIONS, FAMILIES, doc_example, doc_sections
from toolsearch_cli.lint.rules import RULE_BY_CODE

CODES = list(RULE_BY_CODE)


def test_codes_names_and_families_are_stable_and_unique():
    assert len(CODES) >= 30
    names = [r.name for r in RULE_BY_CODE.values()]
    assert len(set(names)) == len(names)
    for code, rule in RULE_BY_CODE.items():
        assert re.fullmatch(r"TS\d{3}", code) and code[:3] in FAMILIES
        assert re.fullmatch(r"[a-z]+(-[a-z]+)*", rule.name), rule.name
        assert rule.severity in ("error", "warning")
    assert {FAMILIES[c[:3]] for c in CODES} == set(FAMILIES.values())


@pytest.mark.parametrize("code", CODES)
def test_docstring_follows_the_template(code):
    rule = RULE_BY_CODE[code]
    sections = doc_sections(rule.doc())
    assert list(sections)[:4] == list(DOC_SECTIONS), code
    assert all(sections[s].strip() for s in DOC_SECTIONS)
    assert rule.summary()
    assert doc_example(rule.doc()) is not None, f"{code}: Example and Use instead need a ```yaml block"


def _lint_text(tmp_path, text: str, code: str, example) -> list:
    path = tmp_path / "example.yaml"
    options = dict(example.options)
    if example.locked:  # the lock rules: the Use instead catalog is what was locked
        from toolsearch_cli.lock import lock_sources

        path.write_text(example.passing, encoding="utf-8")
        options["lockfile"] = str(tmp_path / "toolsearch.lock")
        lock_sources([str(path)], options["lockfile"])
    path.write_text(text, encoding="utf-8")
    config = LintConfig.from_mapping(
        {"select": [code, *example.also_select], "rules": {code: options} if options else {}}
    )
    return [d for d in lint([str(path)], config).diagnostics if d.code == code or d.code not in example.also_select]


@pytest.mark.parametrize("code", CODES)
def test_the_example_fires(code, tmp_path):
    example = doc_example(RULE_BY_CODE[code].doc())
    found = _lint_text(tmp_path, example.failing, code, example)
    assert found, f"{code}: the Example should produce a finding"
    assert {d.code for d in found} == {code}
    for d in found:
        assert d.file and d.file.endswith("example.yaml")
        assert d.line, f"{code}: findings point at a line"
        assert d.name == RULE_BY_CODE[code].name and d.severity == RULE_BY_CODE[code].severity


@pytest.mark.parametrize("code", CODES)
def test_the_use_instead_passes(code, tmp_path):
    example = doc_example(RULE_BY_CODE[code].doc())
    assert _lint_text(tmp_path, example.passing, code, example) == []
