"""Blind set 6 of the real catalogs (issue 32) reads as its own set, and every label names a real tool.

The MCP labels are checked against the committed snapshots; the OpenAPI labels against the documents
in the benchmark cache (``python -m benchmarks fetch --only trakt ...``), skipped when it has none.
The OpenAPI labels and ``benchmarks real``'s skip note: test_real_blind_sets.py.
"""

from __future__ import annotations

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
