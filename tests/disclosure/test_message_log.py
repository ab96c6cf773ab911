"""The incremental message log gives exactly the snapshots the from-scratch path gives (issue 11.19).

Hypothesis builds conversations (any text: CJK, emoji, odd spaces, quotes, digits; search calls
with colliding ids, results that are names, errors or garbage; groups with system prompts), and
every request snapshot built from a growing :class:`MessageLog` must equal the one built from
the plain list: token counts, disclosed tools, statuses, groups and the messages themselves.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolsearch_cli import load_catalog
from toolsearch_cli.disclosure import DisclosureEngine
from toolsearch_cli.disclosure.log import MessageLog
from toolsearch_cli.tokens import get_counter

from ..conftest import ROOT

DEMO = str(ROOT / "catalogs" / "demo")
NAMES = ["getWeather", "sendEmail", "getForecast", "nope", "listOrders"]

text = st.text(alphabet=st.sampled_from(list("ab Zy09\"'\\,{}[]:é中文天气 \u3000\t\n😀-_.!?")), min_size=0, max_size=30)
ids = st.sampled_from(["c1", "c2", "c3", "", "x"])


@st.composite
def message(draw):
    role = draw(st.sampled_from(["user", "assistant", "tool", "system", "assistant"]))
    if role == "assistant":
        calls = draw(st.lists(st.tuples(ids, st.sampled_from(["toolSearch", *NAMES]), text), max_size=2))
        out = {"role": "assistant", "content": draw(st.one_of(st.none(), text))}
        if calls:
            out["tool_calls"] = [
                {"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps({"query": q or "w"})}}
                for i, n, q in calls
            ]
        return out
    if role == "tool":
        content = draw(
            st.one_of(
                st.lists(st.sampled_from(NAMES), max_size=3).map(json.dumps),
                text,
                st.just('{"error": "x"}'),
            )
        )
        return {"role": "tool", "tool_call_id": draw(ids), "content": content}
    return {"role": role, "content": draw(text)}


@pytest.fixture(scope="module")
def catalog():
    return load_catalog([DEMO])


@pytest.mark.parametrize("counter", ["cl100k_base", "chars4"])
@pytest.mark.parametrize("policy", ["latest", "cumulative"])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(conversation=st.lists(message(), max_size=14), context=st.sampled_from([{}, {"role": "admin"}]))
def test_a_growing_log_gives_the_snapshots_of_the_plain_history(catalog, counter, policy, conversation, context):
    engine = DisclosureEngine(catalog, policy=policy, max_active=3, context=context, counter=get_counter(counter))
    log = MessageLog()
    for k in range(len(conversation) + 1):
        plain = engine.snapshot(conversation[:k])
        grown = engine.snapshot(log)
        assert grown.to_dict() == plain.to_dict()
        assert grown.messages == plain.messages
        if k < len(conversation):
            log.append(conversation[k])


def test_a_group_prompt_is_counted_merged_into_the_first_system_message_or_put_first(catalog):
    engine = DisclosureEngine(catalog, context={"role": "admin"})
    for history in (
        [{"role": "user", "content": "drop the table"}],
        [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "drop the table"}],
        [{"role": "system", "content": ""}, {"role": "user", "content": "x"}, {"role": "system", "content": "y"}],
    ):
        plain = engine.snapshot(history)
        grown = engine.snapshot(MessageLog(list(history)))
        assert plain.system_prompt and grown.to_dict() == plain.to_dict()
        assert grown.messages == plain.messages


def test_messages_whose_first_key_is_not_a_letter_are_counted_whole(catalog):
    engine = DisclosureEngine(catalog)
    history = [{"_x": 1, "role": "user", "content": "weather"}, {"role": "assistant", "content": "hi"}]
    assert engine.snapshot(MessageLog(list(history))).to_dict() == engine.snapshot(history).to_dict()


def test_a_snapshot_of_a_log_holds_no_copy_of_the_history(catalog):
    engine = DisclosureEngine(catalog)
    log = MessageLog([{"role": "user", "content": "weather"}])
    snap = engine.snapshot(log)
    log.append({"role": "assistant", "content": "sunny"})
    assert snap.history is log and snap.length == 1
    assert snap.messages == [{"role": "user", "content": "weather"}]  # the view ends where the request did
