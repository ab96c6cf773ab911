"""No catalog content makes the linter crash: every rule runs on arbitrary tools built in code."""

from __future__ import annotations

import datetime

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolsearch_cli.catalog.each_file import LoadedFile
from toolsearch_cli.lint import LintConfig
from toolsearch_cli.lint.context import LintContext
from toolsearch_cli.lint.engine import run_rules
from toolsearch_cli.lint.rules import RULE_BY_CODE
from toolsearch_cli.model import Location, Tool

text = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40)
words = st.sampled_from(["weather", "city", "get", "the", "TODO", "天气", "ignore previous instructions", "", "1"])
phrase = st.lists(words, max_size=6).map(" ".join) | text
schema = st.recursive(
    st.fixed_dictionaries(
        {},
        optional={
            "type": st.sampled_from(["string", "integer", "object", "array", "nope"]),
            "description": phrase,
            "enum": st.lists(st.one_of(st.integers(), st.text(max_size=3), st.booleans()), max_size=4),
            "$ref": st.sampled_from(["#/$defs/X", "#/properties", "http://x/y", "#"]),
        },
    ),
    lambda children: st.fixed_dictionaries(
        {"type": st.just("object")},
        optional={
            "properties": st.dictionaries(st.text(min_size=1, max_size=8), children, max_size=3),
            "items": children,
            "required": st.lists(st.text(max_size=5), max_size=3),
            "anyOf": st.lists(children, max_size=2),
        },
    ),
    max_leaves=8,
)
tool = st.builds(
    Tool,
    name=st.text(min_size=1, max_size=20),
    description=phrase,
    parameters=schema,
    category=st.none() | st.sampled_from(["a", "A", "b-c", "B_C", ""]),
    tags=st.lists(phrase, max_size=3),
    examples=st.lists(phrase, max_size=2),
    source=st.just(Location(file="x.yaml", line=1, column=1)),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(tool, max_size=6), st.lists(st.text(max_size=6), max_size=2))
def test_every_rule_runs_on_arbitrary_tools(tools, resident):
    ctx = LintContext([LoadedFile("x.yaml", tools=tools, resident=resident)])
    result = run_rules(ctx, LintConfig(preset="strict").resolve(RULE_BY_CODE), RULE_BY_CODE)
    for d in result.diagnostics:
        assert d.code in RULE_BY_CODE and d.message


def test_a_definition_that_cannot_be_serialised_is_reported():
    odd = Tool(
        name="setReminder",
        description="Set a reminder at a given time with a message to show.",
        parameters={"type": "object", "properties": {"at": {"type": "string", "default": datetime.date(2026, 1, 1)}}},
        source=Location(file="x.py", line=3, column=1),
    )
    ctx = LintContext([LoadedFile("x.py", tools=[odd], resident=["setReminder"])])
    result = run_rules(ctx, LintConfig(select=["TS5"]).resolve(RULE_BY_CODE), RULE_BY_CODE)
    assert [(d.code, d.tool) for d in result.diagnostics] == [("TS501", "setReminder")]
    assert "not JSON-serialisable" in result.diagnostics[0].message
