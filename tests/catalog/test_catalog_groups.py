"""Catalog YAML: tool groups, the tools' required context attributes, and scripts skipped by folder loads."""

from __future__ import annotations

import pytest

from toolsearch_cli import CatalogError, load_catalog

from ..conftest import DEMO, ROOT

CATALOG = """\
tools:
  - name: listAuditLogs
    description: List audit logs
    requires: {role: [admin, auditor], tenant: "*"}
  - name: getWeather
    description: Weather
groups:
  - name: admin
    description: Admin console
    system_prompt: Log every admin action.
    tools: [listAuditLogs]
    match: {context: {role: admin}}
  - name: weather
    tools: [getWeather]
    match: {keywords: [weather, 天气], ignore_case: true}
  - name: mail
    match: {regex: "@\\\\w+"}
  - name: base
"""


def test_groups_and_requires_load_with_their_matchers(write):
    catalog = load_catalog(str(write("c.yaml", CATALOG)))
    audit = catalog.get("listAuditLogs")
    assert audit.requires == {"role": ["admin", "auditor"], "tenant": ["*"]}
    assert audit.visible_to({"role": "auditor", "tenant": "x"}) and not audit.visible_to({"role": "auditor"})
    assert catalog.get("getWeather").visible_to(None)
    groups = {g.name: g for g in catalog.groups}
    assert groups["admin"].matcher.kind == "context" and groups["admin"].matcher.attributes == {"role": ["admin"]}
    assert groups["admin"].system_prompt == "Log every admin action." and groups["admin"].source.line == 8
    assert groups["weather"].matcher.keywords == ["weather", "天气"] and groups["weather"].matcher.ignore_case
    assert groups["mail"].matcher.pattern == "@\\w+"
    assert groups["base"].matcher.kind == "always" and groups["base"].tools == []


@pytest.mark.parametrize(
    "text, line, message",
    [
        ("tools: []\ngroups:\n  - name: g\n    tools: [nope]\n", 3, "not in the catalog"),
        ("tools: []\ngroups:\n  - name: g\n    match: {regex: '('}\n", 4, "invalid regex"),
        ("tools: []\ngroups:\n  - name: g\n    match: {keywords: [a], regex: b}\n", 4, "exactly one"),
        ("tools: []\ngroups:\n  - name: g\n    match: sometimes\n", 4, "'always' or a mapping"),
        ("tools: []\ngroups:\n  - name: g\n    tool: [a]\n", 4, "did you mean 'tools'"),
        ("tools: []\ngroups:\n  - description: x\n", 3, "non-empty 'name'"),
        ("tools: []\ngroups:\n  - name: g\n  - name: g\n", 4, "duplicate group name"),
        ("tools:\n  - name: a\n    requires: admin\n", 3, "mapping of context attribute"),
    ],
)
def test_bad_groups_and_requires_are_one_line_errors_with_file_and_line(write, text, line, message):
    path = write("bad.yaml", text)
    with pytest.raises(CatalogError) as info:
        load_catalog(str(path))
    assert message in str(info.value)
    assert f"bad.yaml:{line}:" in str(info.value)


def test_folder_loads_skip_simulation_scripts(write, tmp_path):
    write("cat/tools.yaml", "tools:\n  - name: a\n    description: A\n")
    write("cat/scenarios/demo.sim.yaml", "turns: [{user: hi, steps: [{say: hello}]}]\n")
    catalog = load_catalog(str(tmp_path / "cat"))
    assert catalog.names == ["a"]


def test_the_shipped_catalogs_folder_loads_the_demo_and_not_the_scenarios():
    assert (ROOT / "catalogs" / "scenarios").is_dir()
    assert load_catalog(str(ROOT / "catalogs")).names == load_catalog(str(DEMO)).names


def test_document_level_requires_applies_to_every_tool_unless_the_tool_sets_its_own(write):
    text = "requires: {role: admin}\ntools:\n  - name: a\n  - name: b\n    requires: {role: [admin, auditor]}\n"
    catalog = load_catalog(str(write("c.yaml", text)))
    assert catalog.get("a").requires == {"role": ["admin"]}
    assert catalog.get("b").requires == {"role": ["admin", "auditor"]}
    with pytest.raises(CatalogError, match=r"c2.yaml:1: field 'requires'"):
        load_catalog(str(write("c2.yaml", "requires: [admin]\ntools: []\n")))


def test_demo_admin_tools_require_the_admin_role():
    demo = load_catalog(str(DEMO))
    admin = [t for t in demo.tools if t.category == "admin"]
    assert admin and all(t.requires == {"role": ["admin"]} for t in admin)
    assert all(not t.requires for t in demo.tools if t.category != "admin")
    assert [g.name for g in demo.groups] == ["admin-console"]
