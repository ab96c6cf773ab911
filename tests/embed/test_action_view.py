"""``hybrid``'s view of a request led by the class of action it asks for (issue 32, round 8).

People ask in their own words ("file a bug", "how many orders are there?", "get rid of it"); tools
say what they do with their own verbs ("Create an issue", "List ...", "Delete ..."). ``hybrid``
also embeds the request led by that word (:func:`~toolsearch_cli.search.hybrid.action_view`) and
gives each tool its best view.
"""

from __future__ import annotations

import pytest

from .conftest import search_with_a_second_view

pytest.importorskip("numpy")


def test_the_action_view_leads_the_request_with_its_class_when_the_request_does_not_say_it():
    from toolsearch_cli.search.hybrid import action_view, hybrid_views

    bug = "file a bug: checkout page crashes on Safari 17"
    views, plain = hybrid_views(bug)
    assert plain and views == [bug, "create file a bug checkout page crashes on", "file a bug checkout page crashes on"]
    assert action_view("get rid of the old logs", None) == "delete get rid of the old logs"
    assert action_view("how many orders are in the database?", None) == "read how many orders are in the database?"
    # the request says the class's word already, says it as tools do, asks for no action, or is
    # in CJK: no such view
    assert action_view("create a deployment", None) is None
    assert action_view("list the files in a folder", None) is None  # "list": a tool's verb of reading
    assert action_view("add a Priority column to the Tasks table", None) is None
    assert action_view("get rid of the logs", None) == "delete get rid of the logs"  # "get" reads, not deletes
    assert action_view("Delete, then list", None) is None
    assert action_view("the quarterly report", None) is None
    assert action_view("删除这个文件", None) is None
    assert hybrid_views("create a deployment") == (["create a deployment"], False)


def test_a_tool_that_says_the_class_of_action_comes_up_by_the_action_view(monkeypatch, tmp_path):
    from toolsearch_cli.search import hybrid

    # "lodge" is no action word of the tables: no view; "file a" is a phrase for create
    assert hybrid.action_view("lodge a ticket about qqq", None) is None
    request = "file a ticket about qqq"  # no word matches a tool: the semantic side alone
    led = hybrid.action_view(request, None)
    assert led == "create file a ticket about qqq"
    # the request itself leans to beta, then alpha; led by its class it is alpha's
    scores, details, model = search_with_a_second_view(monkeypatch, tmp_path, request, led)
    assert abs(scores["alpha"] - scores["beta"]) < 1e-6  # without the view alpha had (0.6-0.1)/(1-0.1) of beta's
    assert details["alpha"].endswith("(request led by its action)")
    assert details["beta"].endswith("(whole request)")
    assert led in model.texts
