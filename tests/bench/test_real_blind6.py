"""Blind set 6 of the real catalogs (issue 32) reads as its own set, and every label names a real tool.

The MCP labels are checked against the committed snapshots; the OpenAPI labels against the documents
in the benchmark cache (``python -m benchmarks fetch --only trakt ...``), skipped when it has none.
``benchmarks real --sets blind6`` skips the set with a note when its file or a document is absent.
"""

from __future__ import annotations

import pytest

from benchmarks import real_quality
from benchmarks.real_catalogs import dataset, fetch

from .test_real_blind4 import snapshot_labels_checked

REQUESTS = 106
MCP_REQUESTS = 51


def test_blind6_requests_are_well_formed_and_ask_only_about_blind6_catalogs():
    requests = dataset.read_requests(dataset.BLIND6_QUERY_FILES)
    assert len(requests) == REQUESTS
    assert {r.catalog for r in requests} == set(dataset.BLIND6_CATALOGS)
    assert all(r.style in dataset.STYLES for r in requests)
    # kept apart from the dev catalogs that tuning scripts read, the held-out ones and blind sets 4 and 5
    for other in (dataset.CATALOGS, dataset.HELDOUT_CATALOGS, dataset.BLIND4_CATALOGS, dataset.BLIND5_CATALOGS):
        assert not set(dataset.BLIND6_CATALOGS) & set(other)
    earlier = dataset.QUERY_FILES + dataset.HELDOUT_QUERY_FILES
    earlier += dataset.BLIND4_QUERY_FILES + dataset.BLIND5_QUERY_FILES
    every = dataset.read_requests(earlier + dataset.BLIND6_QUERY_FILES)
    assert len(every) == len(dataset.read_requests(earlier)) + REQUESTS


def test_blind6_catalogs_come_from_documents_and_servers_no_other_set_uses():
    openapi = {cid for cid, (group, _) in dataset.BLIND6_CATALOGS.items() if group == "openapi"}
    mine = {fetch.DIRECTORY_FILES[cid] for cid in openapi}
    others = {member for cid, member in fetch.DIRECTORY_FILES.items() if cid not in dataset.BLIND6_CATALOGS}
    assert len(mine) == len(openapi) == 5 and not mine & others
    servers = {cid for cid, (group, _) in dataset.BLIND6_CATALOGS.items() if group == "mcp"}
    assert servers == fetch.BLIND6_SERVERS
    packages = {p.rsplit("@", 1)[0] for p in fetch.BLIND6_NPM_PACKAGES}
    earlier = fetch.NPM_PACKAGES + fetch.BLIND4_NPM_PACKAGES + fetch.BLIND5_NPM_PACKAGES
    assert not packages & {p.rsplit("@", 1)[0] for p in earlier}


def test_blind6_mcp_labels_name_tools_of_the_committed_snapshots():
    checked = snapshot_labels_checked(dataset.BLIND6_QUERY_FILES, dataset.BLIND6_CATALOGS, "snapshots-blind6")
    assert checked == MCP_REQUESTS


def test_blind6_openapi_labels_name_operations_of_the_fetched_documents():
    openapi = {cid for cid, (group, _) in dataset.BLIND6_CATALOGS.items() if group == "openapi"}
    if not all(dataset.source_path(cid).is_file() for cid in openapi):
        pytest.skip(f"blind set 6's OpenAPI documents are not in {dataset.cache_root()} (benchmarks fetch)")
    entries = dataset.load(only=openapi, blind6=True)
    assert {e.id for e in entries} == openapi
    for entry in entries:
        names = set(dataset.tool_names(entry.catalog))
        assert len(entry.queries) == 11
        for query, relevant in entry.queries:
            assert relevant <= names, (entry.id, query, relevant - names)


def test_real_quality_skips_blind6_with_a_note_when_a_document_or_the_file_is_absent(tmp_path, monkeypatch, capsys):
    assert "blind6" in real_quality.SETS
    # a cache folder without the OpenAPI documents: a note naming the fetch command, no entries
    assert real_quality.load_sets(["blind6"], str(tmp_path)) == {"blind6": []}
    note = capsys.readouterr().err
    assert note.startswith("blind6: skipped, ") and "benchmarks fetch --only trakt" in note
    # the MCP catalogs alone load from the committed snapshots
    entries = real_quality.load_sets(["blind6"], str(tmp_path), {"mcp-codacy", "mcp-linear"})["blind6"]
    assert [(e.id, len(e.queries)) for e in entries] == [("mcp-linear", 11), ("mcp-codacy", 10)]
    # no request file: skipped with a note
    monkeypatch.setattr(dataset, "BLIND6_QUERY_FILES", (tmp_path / "blind6.yaml",))
    assert real_quality.load_sets(["blind6"], str(tmp_path), {"mcp-codacy"}) == {"blind6": []}
    assert "blind6.yaml is absent" in capsys.readouterr().err
