"""Blind set 4 of the real catalogs (issue 32) reads as its own set and its MCP labels name real tools.

The OpenAPI documents live in the benchmark cache (``python -m benchmarks fetch``), so only the
committed MCP snapshots are checked here; ``dataset.check_labels`` checks the rest after a fetch.
"""

from __future__ import annotations

import json

from benchmarks.real_catalogs import dataset


def test_blind4_requests_are_well_formed_and_ask_only_about_blind4_catalogs():
    requests = dataset.read_requests(dataset.BLIND4_QUERY_FILES)
    assert len(requests) == 90
    assert {r.catalog for r in requests} == set(dataset.BLIND4_CATALOGS)
    # kept apart from the dev catalogs that tuning scripts read, and from the other files' requests
    assert not set(dataset.BLIND4_CATALOGS) & set(dataset.CATALOGS)
    assert not set(dataset.BLIND4_CATALOGS) & set(dataset.HELDOUT_CATALOGS)
    every = dataset.read_requests(dataset.QUERY_FILES + dataset.HELDOUT_QUERY_FILES + dataset.BLIND4_QUERY_FILES)
    assert len(every) == len(dataset.read_requests(dataset.QUERY_FILES + dataset.HELDOUT_QUERY_FILES)) + 90


def snapshot_labels_checked(query_files, catalogs, folder: str) -> int:
    """How many requests of ``query_files`` on the MCP catalogs of ``catalogs`` were checked: each
    one's relevant tools must be tools of its committed snapshot, which lives in ``folder`` (not in
    snapshots/, which other benchmarks read whole)."""
    requests = dataset.read_requests(query_files)
    checked = 0
    for cid, (group, source) in catalogs.items():
        if group != "mcp":
            continue
        path = dataset.HERE / source
        assert path.parent.name == folder
        names = {tool["name"] for tool in json.loads(path.read_text(encoding="utf-8"))["tools"]}
        for request in requests:
            if request.catalog == cid:
                assert request.relevant <= names, (cid, request.query, request.relevant - names)
                checked += 1
    return checked


def test_blind4_mcp_labels_name_tools_of_the_committed_snapshots():
    assert snapshot_labels_checked(dataset.BLIND4_QUERY_FILES, dataset.BLIND4_CATALOGS, "snapshots-blind4") == 40
