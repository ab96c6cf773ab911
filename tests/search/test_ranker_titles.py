"""A tool's short title (OpenAPI ``summary``, MCP ``title``) outweighs its long description (issue 12)."""

from __future__ import annotations

import json

import pytest

from toolsearch_cli import Catalog, load_catalog, search

# GitHub's REST API in miniature: its summaries, and descriptions as long as its real ones are
# (create an issue: about 1,500 characters of notes on permissions, rate limits and media types).
NOTES = (
    "This endpoint triggers notifications. Creating content too quickly using this endpoint may "
    "result in secondary rate limiting. Any user with pull access to a repository can use it; "
    "if issues are disabled in the repository, the API returns a 410 Gone status. "
    "This endpoint supports the following custom media types: raw returns the raw markdown body "
    "of the issue or comment, text returns a text only representation, html returns HTML rendered "
    "from the body's markdown, and full returns raw, text and HTML representations. "
)
OPERATIONS = [
    ("post", "/repos/{owner}/{repo}/issues", "issues/create", "Create an issue", NOTES * 3),
    (
        "post",
        "/repos/{owner}/{repo}/issues/{n}/comments",
        "issues/create-comment",
        "Create an issue comment",
        "You can use the REST API to create comments on issues and pull requests. " + NOTES * 3,
    ),
    ("put", "/repos/{owner}/{repo}/issues/{n}/lock", "issues/lock", "Lock an issue", NOTES),
    ("get", "/repos/{owner}/{repo}/issues", "issues/list-for-repo", "List repository issues", NOTES * 2),
    (
        "post",
        "/repos/{owner}/{repo}/issues/{n}/reactions",
        "reactions/create-for-issue",
        "Create reaction for an issue",
        "Create a reaction to an issue. A response with an HTTP 200 status means that you already "
        "added the reaction type to this issue.",
    ),
    (
        "post",
        "/repos/{owner}/{repo}/issues/comments/{id}/reactions",
        "reactions/create-for-issue-comment",
        "Create reaction for an issue comment",
        "Create a reaction to an issue comment. A response with an HTTP 200 status means that you "
        "already added the reaction type.",
    ),
    ("get", "/repos/{owner}/{repo}/pulls", "pulls/list", "List pull requests", NOTES * 2),
    ("put", "/repos/{owner}/{repo}/pulls/{n}/merge", "pulls/merge", "Merge a pull request", NOTES * 2),
    ("get", "/repos/{owner}/{repo}/readme", "repos/get-readme", "Get a repository README", NOTES),
    ("post", "/gists", "gists/create", "Create a gist", "Allows you to add a new gist with one or more files."),
] + [  # the many short listings that make up most of the API (GitHub's median description: 33 terms)
    (
        "get",
        f"/repos/{{owner}}/{{repo}}/{thing}",
        f"repos/list-{thing}",
        summary,
        f"Lists the {thing} of a repository. Results are paginated: pass per_page (at most 100) and page, "
        "and read the Link header of the response for the next and last pages. Anyone with read access "
        "to the repository can use this endpoint; fine-grained tokens need the metadata permission.",
    )
    for thing, summary in [
        ("branches", "List branches"),
        ("tags", "List repository tags"),
        ("releases", "List releases"),
        ("forks", "List forks"),
        ("collaborators", "List repository collaborators"),
        ("webhooks", "List repository webhooks"),
        ("workflows", "List repository workflows"),
        ("artifacts", "List artifacts for a repository"),
        ("secrets", "List repository secrets"),
        ("deployments", "List deployments"),
        ("milestones", "List milestones"),
        ("labels", "List labels for a repository"),
        ("teams", "List repository teams"),
        ("languages", "List repository languages"),
        ("contributors", "List repository contributors"),
    ]
]


def write_api(tmp_path, *, summaries=True):
    paths: dict = {}
    for method, path, op_id, summary, description in OPERATIONS:
        op = {
            "operationId": op_id,
            "tags": [op_id.split("/")[0]],  # as GitHub tags them: issues, reactions, pulls, repos ...
            "description": description,
            "responses": {"200": {"description": "OK"}},
        }
        if summaries:
            op["summary"] = summary
        else:  # what the loader made of it before titles had a field: the summary opens the description
            op["description"] = f"{summary}\n\n{description}"
        paths.setdefault(path, {})[method] = op
    doc = {"openapi": "3.1.0", "info": {"title": "GitHub (miniature)", "version": "1"}, "paths": paths}
    file = tmp_path / ("api.json" if summaries else "api-no-summaries.json")
    file.write_text(json.dumps(doc))
    return load_catalog([str(file)])


def test_openapi_summary_is_the_tool_title(tmp_path):
    catalog = write_api(tmp_path)
    tool = catalog.get("issues_create")
    assert tool.title == "Create an issue"
    assert tool.description.startswith("Create an issue\n\nThis endpoint triggers notifications.")
    assert tool.metadata["openapi"]["summary"] == "Create an issue"


def test_the_summary_lifts_the_operation_above_short_descriptions(tmp_path, monkeypatch):
    from toolsearch_cli.search import bm25f

    # with the label bonus (round 3 of issue 32) "create an issue" says the whole label of
    # issues_create ("Create an issue", or the name issues_create): first with and without summaries
    assert search(write_api(tmp_path), "create an issue")[0].name == "issues_create"
    assert search(write_api(tmp_path, summaries=False), "create an issue")[0].name == "issues_create"
    # related words ("create": make, add, new, ...) and the label bonus move the neighbours; the
    # title field's own lift is measured without them
    monkeypatch.setattr(bm25f, "RELATED_WEIGHT", 0.0)
    monkeypatch.setattr(bm25f, "LABEL_SHARE", 0.0)
    with_titles = [h.name for h in search(write_api(tmp_path), "create an issue")]
    without = [h.name for h in search(write_api(tmp_path, summaries=False), "create an issue")]
    # Summary and notes as one description: both reactions, with their short descriptions, win.
    assert without.index("issues_create") == 2
    assert with_titles.index("issues_create") == 1  # above one of them (first on the real GitHub API)
    assert with_titles[0] == "reactions_create-for-issue"  # whose description says "create" and "issue" twice


def test_a_title_match_is_explained_and_adds_up(tmp_path):
    hit = search(write_api(tmp_path), "create an issue")[0]
    assert "description" in hit.matched_fields
    assert sum(c.points for c in hit.contributions) == pytest.approx(hit.score)


def test_mcp_title_and_annotation_title(tmp_path):
    tools = {
        "tools": [
            {
                "name": "create_entities",
                "title": "Remember facts about people",
                "description": "Create multiple new entities in the knowledge graph. " * 20,
                "inputSchema": {"type": "object", "properties": {}},
            },
            {
                "name": "read_graph",
                "description": "Read the entire knowledge graph",
                "inputSchema": {"type": "object", "properties": {}},
                "annotations": {"title": "Read everything remembered", "readOnlyHint": True},
            },
            {"name": "plain", "description": "No title here", "inputSchema": {"type": "object", "properties": {}}},
        ]
    }
    file = tmp_path / "memory.mcp.json"
    file.write_text(json.dumps(tools))
    catalog = load_catalog([str(file)])
    assert catalog.get("create_entities").title == "Remember facts about people"
    assert catalog.get("read_graph").title == "Read everything remembered"
    assert catalog.get("plain").title == ""
    assert search(catalog, "remember facts about Alice")[0].name == "create_entities"


def test_a_title_that_is_not_text_is_ignored():
    from toolsearch_cli import Tool

    odd = Tool(name="odd", description="weather now", metadata={"mcp": {"title": 42}, "openapi": ["x"]})
    assert odd.title == ""
    assert [h.name for h in search(Catalog(tools=[odd]), "weather")] == ["odd"]
