"""Blind set 5 of the real catalogs (issue 32) reads as its own set, and every label names a real tool.

The MCP labels are checked against the committed snapshots; the OpenAPI labels against the documents
in the benchmark cache (``python -m benchmarks fetch --only data2crm ...``), skipped when it has none.
``benchmarks real --sets blind5`` skips the set with a note when its file or a document is absent.
"""

from __future__ import annotations

import pytest

from benchmarks import real_quality
from benchmarks.real_catalogs import dataset

from .test_real_blind4 import snapshot_labels_checked

REQUESTS = 96
MCP_REQUESTS = 41


def test_blind5_requests_are_well_formed_and_ask_only_about_blind5_catalogs():
    requests = dataset.read_requests(dataset.BLIND5_QUERY_FILES)
    assert len(requests) == REQUESTS
    assert {r.catalog for r in requests} == set(dataset.BLIND5_CATALOGS)
    assert all(r.style in dataset.STYLES for r in requests)
    # kept apart from the dev catalogs that tuning scripts read, the held-out ones and blind set 4
    for other in (dataset.CATALOGS, dataset.HELDOUT_CATALOGS, dataset.BLIND4_CATALOGS):
        assert not set(dataset.BLIND5_CATALOGS) & set(other)
    earlier = dataset.QUERY_FILES + dataset.HELDOUT_QUERY_FILES + dataset.BLIND4_QUERY_FILES
    every = dataset.read_requests(earlier + dataset.BLIND5_QUERY_FILES)
    assert len(every) == len(dataset.read_requests(earlier)) + REQUESTS


def test_blind5_mcp_labels_name_tools_of_the_committed_snapshots():
    checked = snapshot_labels_checked(dataset.BLIND5_QUERY_FILES, dataset.BLIND5_CATALOGS, "snapshots-blind5")
    assert checked == MCP_REQUESTS


def test_blind5_openapi_labels_name_operations_of_the_fetched_documents():
    openapi = {cid for cid, (group, _) in dataset.BLIND5_CATALOGS.items() if group == "openapi"}
    if not all(dataset.source_path(cid).is_file() for cid in openapi):
        pytest.skip(f"blind set 5's OpenAPI documents are not in {dataset.cache_root()} (benchmarks fetch)")
    entries = dataset.load(only=openapi, blind5=True)
    assert {e.id for e in entries} == openapi
    for entry in entries:
        names = set(dataset.tool_names(entry.catalog))
        assert len(entry.queries) == 11
        for query, relevant in entry.queries:
            assert relevant <= names, (entry.id, query, relevant - names)


def test_real_quality_skips_blind5_with_a_note_when_a_document_or_the_file_is_absent(tmp_path, monkeypatch, capsys):
    assert "blind5" in real_quality.SETS
    # a cache folder without the OpenAPI documents: a note naming the fetch command, no entries
    assert real_quality.load_sets(["blind5"], str(tmp_path)) == {"blind5": []}
    note = capsys.readouterr().err
    assert note.startswith("blind5: skipped, ") and "benchmarks fetch --only data2crm" in note
    # the MCP catalogs alone load from the committed snapshots
    entries = real_quality.load_sets(["blind5"], str(tmp_path), {"mcp-paddle", "mcp-datadog"})["blind5"]
    assert [(e.id, len(e.queries)) for e in entries] == [("mcp-datadog", 10), ("mcp-paddle", 10)]
    # no request file: skipped with a note
    monkeypatch.setattr(dataset, "BLIND5_QUERY_FILES", (tmp_path / "blind5.yaml",))
    assert real_quality.load_sets(["blind5"], str(tmp_path), {"mcp-paddle"}) == {"blind5": []}
    assert "blind5.yaml is absent" in capsys.readouterr().err
