"""Issue 32, round 4: the default ranker on terse MCP servers.

Each test builds a small catalog on which one change of round 4 decides the order
(benchmarks/notes/ranking-round4.md has the measurements):

* more related words (``toolsearch_cli.search.related``): everyday verbs for what MCP tool
  names say (*throw away* a branch is ``delete_branch``, *put to sleep* is ``pause_project``);
* a related term weighs at most what the request's word that brought it weighs in the catalog
  (``RELATED_SOURCE_IDF``).
"""

from __future__ import annotations

import pytest

from toolsearch_cli.model import Catalog
from toolsearch_cli.search import bm25f
from toolsearch_cli.search.base import SearchRequest
from toolsearch_cli.search.related import expansions
from toolsearch_cli.search.text import analyze

from .tools import string_tool

tool = string_tool


def ranked(catalog: Catalog, query: str, top_k: int = 10) -> list[str]:
    hits = bm25f.BM25FRanker().search(catalog, SearchRequest(query=query, max_results=top_k))
    return [h.tool.name for h in hits if h.score > 0]


def related(query: str) -> set[str]:
    return set(expansions(query, analyze(query)))


# --- related words ---------------------------------------------------------------------------

#: A project's life cycle, as a database host's MCP server names it (descriptions as terse as theirs).
PROJECTS = Catalog(
    tools=[
        tool("list_projects", "Lists all projects you are using.", {"org": "Organization"}),
        tool("create_project", "Creates a new project.", {"name": "Project name"}),
        tool("pause_project", "Pauses a project.", {"project_id": "Project id"}),
        tool("restore_project", "Restores a project.", {"project_id": "Project id"}),
        tool("list_branches", "Lists the branches of a project.", {"project_id": "Project id"}),
        tool("delete_branch", "Deletes a development branch.", {"branch_id": "Branch id"}),
        tool("deploy_edge_function", "Deploys an Edge Function to a project.", {"name": "Function name"}),
        tool("get_edge_function", "Retrieves an Edge Function.", {"name": "Function name"}),
    ]
)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("throw away the preview branch", "delet"),
        ("drop the staging database", "delet"),
        ("put the project to sleep", "paus"),
        ("wake the project", "restor"),
        ("ship this function", "deploy"),
        ("kill the dev server", "termin"),
        ("save this list as a file", "write"),
        ("remember that Alice likes tea", "add"),
        ("compare the two branches", "diff"),
        ("show the history", "log"),
        ("how high above sea level", "elev"),
        ("shrink this file", "compress"),
        ("fix the typo in the readme", "updat"),
        ("bump the version number", "edit"),
        ("pull up the records for Alice", "open"),
        ("how do I walk to the museum", "direct"),
        ("what is using the most disk space", "size"),
        ("what time is it in Tokyo right now", "current"),
    ],
)
def test_everyday_verbs_bring_the_word_an_api_uses(query: str, expected: str) -> None:
    assert expected in related(query)


def test_a_one_way_line_does_not_bring_its_trigger_back() -> None:
    # waking a project restores it, but restoring a backup is not about waking anything
    assert "wake" not in related("restore the backup")


def test_a_name_is_not_a_verb() -> None:
    # "mark" is left out on purpose: "Mark called in sick" is about Mark
    assert "updat" not in related("Mark called in sick this morning")


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("throw away the preview branch, we're done testing", "delete_branch"),
        ("put the project to sleep, nobody is using it", "pause_project"),
        ("wake the project back up", "restore_project"),
        ("ship this serverless function to the project", "deploy_edge_function"),
    ],
)
def test_terse_tools_are_found_by_everyday_verbs(query: str, expected: str) -> None:
    assert ranked(PROJECTS, query)[0] == expected


# --- a related term weighs at most what its source word weighs -------------------------------


def _pods() -> Catalog:
    """Many operations named "delete ...", and one "create" whose description says "drop",
    "discard", "purge" and "erase": related words of "delete", rare in the catalog."""
    deletes = [tool(f"delete_{n}", f"Delete a {n}.", {"name": f"Name of the {n}"}) for n in ("pod", "node", "secret")]
    deletes += [tool(f"delete_thing_{i}", f"Delete thing {i}.") for i in range(12)]
    autoscaler = tool(
        "create_pod_autoscaler",
        "Create a pod autoscaler: it may drop, discard, purge or erase idle pod replicas.",
        {"pod": "The pod to scale."},
    )
    return Catalog(tools=[*deletes, autoscaler])


def test_a_related_word_rarer_than_its_source_does_not_outweigh_it(monkeypatch) -> None:
    # the label bonus off: here it would rank delete_pod first either way ("delete a pod" says its name);
    # so would round 6's action bonus ("delete")
    monkeypatch.setattr(bm25f, "LABEL_SHARE", 0.0)
    monkeypatch.setattr(bm25f, "ACTION_SHARE", 0.0)
    catalog = _pods()
    assert ranked(catalog, "delete a pod")[0] == "delete_pod"
    monkeypatch.setattr(bm25f, "RELATED_SOURCE_IDF", 0.0)
    assert ranked(catalog, "delete a pod")[0] == "create_pod_autoscaler"


def test_a_related_word_of_a_word_absent_from_the_catalog_is_not_cut() -> None:
    # "wipe" is in no tool: "delete", which it brings, is not cut by the source-IDF rule (its
    # IDF is below that of a word in no tool); round 5 raises it to RELATED_ABSENT_WEIGHT
    catalog = Catalog(tools=[tool("delete_note", "Delete a note."), tool("get_note", "Get a note.")])
    plan = bm25f.query_plan("wipe the note")
    before = plan.weights["delet"]
    index = bm25f.default_index(catalog)
    bm25f.rank_index(index, plan, 5)
    assert plan.weights["delet"] == pytest.approx(before * bm25f.RELATED_ABSENT_WEIGHT / bm25f.RELATED_WEIGHT)
    assert ranked(catalog, "wipe the note")[0] == "delete_note"


# --- words of asking weigh as values do --------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "filler"),
    [
        ("how long does it take to drive from Berlin to Munich", "take"),
        ("go to example.com and give me the text of the page", "go"),
        ("tear down the staging namespace and everything in it", "everyth"),
        ("find similar ones", "one"),
    ],
)
def test_words_of_asking_are_weighed_as_values(query: str, filler: str) -> None:
    from toolsearch_cli.search.values import value_terms

    assert filler in value_terms(query)


def test_a_word_of_asking_does_not_outweigh_what_the_request_is_about() -> None:
    # "take" and "drive" are each in one description (equally rare); the longer one says "driving"
    catalog = Catalog(
        tools=[
            tool("screenshot", "Take a screenshot of the current page.", {"name": "Name of the screenshot"}),
            tool(
                "travel_time",
                "Estimated driving time and distance between two places, for a given travel mode.",
                {"mode": "car, foot or bike"},
            ),
            tool("geocode", "Convert an address into geographic coordinates.", {"address": "The address"}),
            tool("navigate", "Navigate to a URL.", {"url": "The address to open"}),
            tool("click", "Click an element of the page.", {"selector": "CSS selector"}),
        ]
    )
    assert ranked(catalog, "how long does it take to drive from Berlin to Munich")[0] == "travel_time"


def test_a_travel_mode_finds_directions() -> None:
    catalog = Catalog(
        tools=[
            tool("maps_directions", "Get directions between two points.", {"origin": "Start", "destination": "End"}),
            tool("maps_geocode", "Convert an address into coordinates.", {"address": "The address"}),
            tool("maps_elevation", "Get the elevation of locations.", {"locations": "Points"}),
        ]
    )
    assert ranked(catalog, "how do I walk from the station to the museum?") == ["maps_directions"]


def test_a_plan_ranked_twice_is_cut_once() -> None:
    plan = bm25f.query_plan("delete a pod")
    index = bm25f.default_index(_pods())
    bm25f.rank_index(index, plan, 5)
    once = dict(plan.weights)
    assert once.get("drop", bm25f.RELATED_WEIGHT) < bm25f.RELATED_WEIGHT  # "drop" is rarer than "delete"
    bm25f.rank_index(index, plan, 5)
    assert plan.weights == once
