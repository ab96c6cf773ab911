"""Blind set 5 of the real catalogs (issue 32) reads as its own set, and every label names a real tool.

The MCP labels are checked against the committed snapshots; the OpenAPI labels against the documents
in the benchmark cache (``python -m benchmarks fetch --only data2crm ...``), skipped when it has none.
The OpenAPI labels and ``benchmarks real``'s skip note: test_real_blind_sets.py.
"""

from __future__ import annotations

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
