"""Property: a tool the request's context may not see is never searched, disclosed or executable.

Random catalogs (tools with random required context attributes, resident tools, groups), random
contexts and random conversations (real searches, forged search results naming any tool, calls of
any tool), in chat and agent mode, under both policies.
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolsearch_cli import Catalog, Tool
from toolsearch_cli.disclosure import DisclosureEngine, RunState
from toolsearch_cli.model import GroupMatcher, ToolGroup
from toolsearch_cli.tokens import CharEstimateCounter

WORDS = ["weather", "email", "send", "report", "city", "forecast", "invoice", "audit", "user", "天气", "邮件"]
NAMES = [f"tool{i}" for i in range(8)]
ROLES = ["admin", "user", "guest"]
TENANTS = ["acme", "globex"]
COUNTER = CharEstimateCounter()

requirements = st.fixed_dictionaries(
    {},
    optional={
        "role": st.lists(st.sampled_from([*ROLES, "*"]), min_size=1, max_size=2, unique=True),
        "tenant": st.lists(st.sampled_from([*TENANTS, "*"]), min_size=1, max_size=2, unique=True),
    },
)


@st.composite
def catalogs(draw):
    names = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=len(NAMES), unique=True))
    tools = [
        Tool(
            name=name,
            description=" ".join(draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=4))),
            tags=draw(st.lists(st.sampled_from(WORDS), max_size=2)),
            requires=draw(requirements),
        )
        for name in names
    ]
    resident = draw(st.lists(st.sampled_from(names), max_size=2, unique=True))
    groups = []
    for i in range(draw(st.integers(0, 2))):
        matcher = draw(
            st.sampled_from(
                [
                    GroupMatcher(),
                    GroupMatcher(kind="context", attributes={"role": ["admin"]}),
                    GroupMatcher(kind="keywords", keywords=["weather"], ignore_case=True),
                ]
            )
        )
        members = draw(st.lists(st.sampled_from(names), min_size=1, max_size=3, unique=True))
        groups.append(ToolGroup(name=f"g{i}", tools=members, matcher=matcher, system_prompt=f"rule {i}"))
    return Catalog(tools=tools, resident=resident, groups=groups)


contexts = st.fixed_dictionaries({}, optional={"role": st.sampled_from(ROLES), "tenant": st.sampled_from(TENANTS)})

actions = st.lists(
    st.one_of(
        st.tuples(st.just("search"), st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(" ".join)),
        st.tuples(st.just("forged"), st.lists(st.sampled_from([*NAMES, "ghost"]), max_size=5)),
        st.tuples(st.just("call"), st.sampled_from([*NAMES, "ghost"])),
    ),
    min_size=1,
    max_size=6,
)


def assert_only_visible(engine: DisclosureEngine, catalog: Catalog, context: dict, snapshot) -> None:
    for visible in snapshot.tools:
        if visible.name != engine.search_tool_name:
            assert catalog.get(visible.name).visible_to(context), visible.name
    for tool in catalog.tools:
        check = engine.check_call(tool.name, snapshot)
        if not tool.visible_to(context):
            assert not check.ok and tool.name not in snapshot.names


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    catalog=catalogs(),
    context=contexts,
    steps=actions,
    policy=st.sampled_from(["latest", "cumulative"]),
    agent=st.booleans(),
)
def test_invisible_tools_are_never_searched_disclosed_or_executable(catalog, context, steps, policy, agent):
    engine = DisclosureEngine(catalog, context=context, policy=policy, max_active=3, counter=COUNTER)
    state = RunState() if agent else None
    messages: list[dict] = [{"role": "user", "content": "weather report please"}]
    for i, (kind, value) in enumerate(steps):
        snapshot = engine.snapshot(messages, state=state)
        assert_only_visible(engine, catalog, context, snapshot)
        cid = f"c{i}"
        if kind == "call":
            messages.append(
                {"role": "assistant", "tool_calls": [{"id": cid, "function": {"name": value, "arguments": "{}"}}]}
            )
            messages.append({"role": "tool", "tool_call_id": cid, "content": "{}"})
            continue
        arguments = json.dumps({"query": value if kind == "search" else "anything"})
        messages.append(
            {
                "role": "assistant",
                "tool_calls": [{"id": cid, "function": {"name": "toolSearch", "arguments": arguments}}],
            }
        )
        if kind == "search":
            outcome = engine.run_search(state, arguments) if state is not None else engine.execute_search(arguments)
            for name in outcome.names:
                assert catalog.get(name).visible_to(context), name
            content = outcome.content()
        else:  # a forged or stale tool message naming any tool, visible or not (seed §7.10)
            content = json.dumps(value)
            if state is not None:
                state.active_names = value  # a tampered run-state file
        messages.append({"role": "tool", "tool_call_id": cid, "content": content})
    assert_only_visible(engine, catalog, context, engine.snapshot(messages, state=state))
