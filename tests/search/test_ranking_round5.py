"""Issue 32, round 5: a related term stands in fully for a request word that no tool has.

A related term (:mod:`toolsearch_cli.search.related`) weighs RELATED_WEIGHT (0.4) times the word
that brought it when that word is in the catalog too: the request's own word comes first. When no
tool has the word ("restart" in a catalog that only says "reboot"), the related term is the only
way the word can be matched, and weighs RELATED_ABSENT_WEIGHT (0.8) times it, so that a rare
chatter word of the request ("not *answering* ssh") does not outweigh what the request asks for
(benchmarks/notes/ranking-round5.md has the measurements).
"""

from __future__ import annotations

import pytest

from toolsearch_cli.model import Catalog
from toolsearch_cli.search import bm25f
from toolsearch_cli.search.base import SearchRequest

from .tools import string_tool

tool = string_tool


def ranked(catalog: Catalog, query: str, top_k: int = 10) -> list[str]:
    hits = bm25f.BM25FRanker().search(catalog, SearchRequest(query=query, max_results=top_k))
    return [h.tool.name for h in hits if h.score > 0]


#: A cloud API's instance operations (it says "reboot", never "restart") beside a tool that
#: answers security questions and one that lists a ticket's replies.
INSTANCES = Catalog(
    tools=[
        tool("rebootInstance", "Reboots an instance.", {"instance_id": "The instance"}),
        tool("getInstance", "Returns one instance.", {"instance_id": "The instance"}),
        tool("listInstances", "Lists your instances.", {"region": "Filter by region"}),
        tool("shutdownInstance", "Shuts down an instance.", {"instance_id": "The instance"}),
        tool("answerSecurityQuestions", "Answer the security questions of your user.", {"answers": "The answers"}),
        tool("createTicket", "Opens a support ticket.", {"summary": "What the ticket is about"}),
        tool("listTicketReplies", "Returns the replies to a support ticket.", {"ticket_id": "The ticket"}),
    ]
)


@pytest.mark.parametrize(
    "query", ["web-01 is frozen and not answering ssh, restart it", "the box is not answering, restart it"]
)
def test_a_related_word_of_an_absent_word_outweighs_a_chatter_word(query: str, monkeypatch) -> None:
    assert ranked(INSTANCES, query)[0] == "rebootInstance"
    # at the weight of a related term beside its source word, "answering" wins
    monkeypatch.setattr(bm25f, "RELATED_ABSENT_WEIGHT", bm25f.RELATED_WEIGHT)
    assert ranked(INSTANCES, query)[0] == "answerSecurityQuestions"


def test_the_weight_of_a_related_term_follows_whether_its_word_is_in_the_catalog() -> None:
    plan = bm25f.query_plan("restart the instance")
    assert plan.related.get("reboot") == "restart"
    bm25f.rank_index(bm25f.default_index(INSTANCES), plan, 5)
    assert plan.weights["reboot"] == pytest.approx(bm25f.RELATED_ABSENT_WEIGHT)
    # a catalog that says "restart" too: the related term is a second opinion beside it
    says_restart = Catalog(
        tools=[
            tool("restartService", "Restart a service.", {"service": "The service"}),
            tool("rebootHost", "Reboot a host.", {"host": "The host"}),
            tool("listHosts", "List the hosts.", {"region": "Filter by region"}),
        ]
    )
    bm25f.rank_index(bm25f.default_index(says_restart), plan, 5)
    assert plan.weights["reboot"] == pytest.approx(bm25f.RELATED_WEIGHT)
    # and back: the weight is set from the source word's each time, not cut or raised twice
    bm25f.rank_index(bm25f.default_index(INSTANCES), plan, 5)
    assert plan.weights["reboot"] == pytest.approx(bm25f.RELATED_ABSENT_WEIGHT)


def test_a_related_term_of_an_absent_value_like_word_keeps_the_value_weight() -> None:
    # "Friday" is value-like (VALUE_WEIGHT) and in no tool: what it brings weighs 0.8 of its weight
    plan = bm25f.query_plan("restart web-01 on Friday")
    weight = plan.weights.get("restart", 1.0)
    bm25f.rank_index(bm25f.default_index(INSTANCES), plan, 5)
    assert plan.weights["reboot"] == pytest.approx(bm25f.RELATED_ABSENT_WEIGHT * weight)


def test_a_phrase_keeps_the_related_weight() -> None:
    # "right now" is a phrase: it has no IDF of its own, its related term stays at RELATED_WEIGHT
    plan = bm25f.query_plan("what time is it right now")
    phrases = {t for t, source in plan.related.items() if source not in plan.terms}
    assert phrases
    before = {t: plan.weights[t] for t in phrases}
    bm25f.rank_index(bm25f.default_index(INSTANCES), plan, 5)
    assert {t: plan.weights[t] for t in phrases} == before


# --- the label bonus does not depend on the hash seed ------------------------------------------

_BONUS_SCRIPT = """
from pathlib import Path
from toolsearch_cli import load_catalog
from toolsearch_cli.search import bm25f
from toolsearch_cli.search.base import SearchRequest
catalog = load_catalog([str(p) for p in sorted(Path("catalogs/demo").glob("*.yaml"))])
hits = bm25f.BM25FRanker().search(catalog, SearchRequest(query="decline Friday's sync and tell them I'm on leave"))
print([(h.tool.name, repr(c.points)) for h in hits for c in h.contributions if c.term == "(the query)"])
"""


def test_the_label_bonus_is_the_same_under_every_hash_seed() -> None:
    # the label's IDF mass was summed in the order of a frozenset of strings, which changes with
    # PYTHONHASHSEED: the bonus differed in its last digits from one process to the next, and the
    # eval snapshots with it
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    outputs = set()
    for seed in ("1", "2", "5", "6"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", _BONUS_SCRIPT], cwd=root, env=env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
        outputs.add(done.stdout)
    assert len(outputs) == 1, outputs
    assert outputs != {"[]\n"}  # the query earns a label bonus somewhere: the sum is exercised


#: A calendar's answer to an invitation beside three ways of sending a message: the request's
#: "tell" is in no tool, and its related terms (send, message, notify) are in every sender.
MESSAGES = Catalog(
    tools=[
        tool(
            "respondToInvite",
            "Accept, decline or tentatively accept a meeting invitation, with an optional comment to the organizer.",
            {"response": "accept, decline or tentative", "comment": "Note to the organizer"},
        ),
        tool("sendPushNotification", "Send a push notification to users of the mobile app.", {"body": "The text"}),
        tool("sendSlackMessage", "Send a direct message to one person on Slack.", {"text": "The message"}),
        tool("sendEmail", "Send an email to the given address.", {"body": "The message body"}),
    ]
)


def test_an_absent_word_with_several_stand_ins_shares_its_weight_among_them(monkeypatch) -> None:
    """One absent word is one piece of evidence: its stand-ins share RELATED_ABSENT_WEIGHT (each at
    least RELATED_WEIGHT). At 0.8 each, "tell" counted three times over and the senders ranked
    above the tool the request is about (the demo's lint failed: TS601 on respondToInvite)."""
    query = "decline Friday's sync and tell them I'm on leave"
    plan = bm25f.query_plan(query)
    bm25f.rank_index(bm25f.default_index(MESSAGES), plan, 5)
    stand_ins = [term for term, source in plan.related.items() if source == "tell" and term in plan.weights]
    present = [term for term in stand_ins if term in bm25f.default_index(MESSAGES).df]
    assert len(present) >= 2, present
    for term in present:
        expected = max(bm25f.RELATED_WEIGHT, bm25f.RELATED_ABSENT_WEIGHT / len(present))
        assert plan.weights[term] == pytest.approx(expected * plan.weights.get("tell", 1.0))
    assert ranked(MESSAGES, query)[0] == "respondToInvite"
