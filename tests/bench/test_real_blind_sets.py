"""What blind sets 5 to 9 of the real catalogs (issue 32) share: their OpenAPI labels name operations
of the fetched documents (skipped when the benchmark cache has none: ``python -m benchmarks fetch
--only ...``), and ``benchmarks real --sets blindN`` skips the set with a note when its request file
or one of its documents is absent (the MCP catalogs alone load from the committed snapshots).

Blind sets 7, 8 and 9 have no file of their own: their requests, their MCP labels against the committed
snapshots and their documents and servers (used by no other set) are checked here too (``WHOLE``);
blind sets 5 and 6 keep those checks in test_real_blind5.py and test_real_blind6.py. The newest blind
set is the unseen one (``real_quality.UNSEEN_SETS``: in ``SETS`` but not in ``TUNING_SETS``)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from benchmarks import real_quality
from benchmarks.real_catalogs import dataset, fetch

from .test_real_blind4 import snapshot_labels_checked


@dataclass(frozen=True)
class BlindSet:
    name: str  # as `real --sets` and dataset.load's keyword call it
    first_document: str  # the first OpenAPI catalog the fetch note names
    mcp: tuple[tuple[str, int], ...]  # two MCP catalogs and their requests, in the file's order
    per_document: int | dict[str, int] = 11  # requests on each OpenAPI document (one number, or per document)

    @property
    def catalogs(self) -> dict[str, tuple[str, str]]:
        return getattr(dataset, f"{self.name.upper()}_CATALOGS")

    @property
    def query_files_attribute(self) -> str:
        return f"{self.name.upper()}_QUERY_FILES"


SETS = [
    BlindSet("blind5", "data2crm", (("mcp-datadog", 10), ("mcp-paddle", 10))),
    BlindSet("blind6", "trakt", (("mcp-linear", 11), ("mcp-codacy", 10))),
    BlindSet(
        "blind7",
        "meraki",
        (("mcp-ms365", 15), ("mcp-n8n", 10)),
        {"meraki": 10, "orthanc": 11, "clicksend": 10},
    ),
    BlindSet(
        "blind8",
        "jellyfin",
        (("mcp-miro", 12), ("mcp-ebay", 14)),
        {"jellyfin": 10, "xtrf": 10, "eve-esi": 10},
    ),
    BlindSet(
        "blind9",
        "rubrik",
        (("mcp-creem", 10), ("mcp-cloudbase", 11)),
        {"rubrik": 10, "apacta": 10, "pi-web-api": 10},
    ),
]
# the sets checked here whole (requests, MCP labels, where their catalogs come from): blind sets 7 to 9
WHOLE = SETS[-3:]
# what each blind set's catalogs come from: (npm packages, the npm packages of every other set)
NPM = {
    "blind4": fetch.BLIND4_NPM_PACKAGES,
    "blind5": fetch.BLIND5_NPM_PACKAGES,
    "blind6": fetch.BLIND6_NPM_PACKAGES,
    "blind7": fetch.BLIND7_NPM_PACKAGES,
    "blind8": fetch.BLIND8_NPM_PACKAGES,
    "blind9": fetch.BLIND9_NPM_PACKAGES,
}


@pytest.mark.parametrize("blind", SETS, ids=lambda b: b.name)
def test_openapi_labels_name_operations_of_the_fetched_documents(blind):
    openapi = {cid for cid, (group, _) in blind.catalogs.items() if group == "openapi"}
    if not all(dataset.source_path(cid).is_file() for cid in openapi):
        pytest.skip(f"{blind.name}'s OpenAPI documents are not in {dataset.cache_root()} (benchmarks fetch)")
    entries = dataset.load(only=openapi, blind=blind.name)
    assert {e.id for e in entries} == openapi
    for entry in entries:
        names = set(dataset.tool_names(entry.catalog))
        wanted = blind.per_document if isinstance(blind.per_document, int) else blind.per_document[entry.id]
        assert len(entry.queries) == wanted
        for query, relevant in entry.queries:
            assert relevant <= names, (entry.id, query, relevant - names)


@pytest.mark.parametrize("blind", SETS, ids=lambda b: b.name)
def test_real_quality_skips_the_set_with_a_note_when_a_document_or_the_file_is_absent(
    blind, tmp_path, monkeypatch, capsys
):
    name = blind.name
    assert name in real_quality.SETS
    # a cache folder without the OpenAPI documents: a note naming the fetch command, no entries
    assert real_quality.load_sets([name], str(tmp_path)) == {name: []}
    note = capsys.readouterr().err
    assert note.startswith(f"{name}: skipped, ") and f"benchmarks fetch --only {blind.first_document}" in note
    # the MCP catalogs alone load from the committed snapshots
    mcp = {cid for cid, _ in blind.mcp}
    entries = real_quality.load_sets([name], str(tmp_path), mcp)[name]
    assert sorted((e.id, len(e.queries)) for e in entries) == sorted(blind.mcp)
    # no request file: skipped with a note
    monkeypatch.setitem(dataset.BLIND_SETS, name, ((tmp_path / f"{name}.yaml",), dataset.BLIND_SETS[name][1]))
    assert real_quality.load_sets([name], str(tmp_path), mcp) == {name: []}
    assert f"{name}.yaml is absent" in capsys.readouterr().err


@pytest.mark.parametrize("blind", WHOLE, ids=lambda b: b.name)
def test_requests_are_well_formed_and_ask_only_about_the_sets_own_catalogs(blind):
    requests = dataset.read_requests(getattr(dataset, blind.query_files_attribute))
    assert {r.catalog for r in requests} == set(blind.catalogs)
    assert all(r.style in dataset.STYLES for r in requests)
    per_document = blind.per_document if isinstance(blind.per_document, dict) else {}
    for cid, count in (*blind.mcp, *per_document.items()):
        assert sum(1 for r in requests if r.catalog == cid) == count
    # no catalog id shared with any other table: the dev catalogs tuning scripts read, held-out, other blind sets
    others = [dataset.CATALOGS, dataset.HELDOUT_CATALOGS]
    others += [getattr(dataset, f"{name.upper()}_CATALOGS") for name in NPM if name != blind.name]
    for other in others:
        assert not set(blind.catalogs) & set(other)


@pytest.mark.parametrize("blind", WHOLE, ids=lambda b: b.name)
def test_documents_and_servers_are_used_by_no_other_set(blind):
    openapi = {cid for cid, (group, _) in blind.catalogs.items() if group == "openapi"}
    mine = {fetch.DIRECTORY_FILES[cid] for cid in openapi}
    others = {member for cid, member in fetch.DIRECTORY_FILES.items() if cid not in blind.catalogs}
    assert len(mine) == len(openapi) and not mine & others
    servers = {cid for cid, (group, _) in blind.catalogs.items() if group == "mcp"}
    assert servers == getattr(fetch, f"{blind.name.upper()}_SERVERS")
    packages = {p.rsplit("@", 1)[0] for p in NPM[blind.name]}
    earlier = list(fetch.NPM_PACKAGES) + [p for name, ps in NPM.items() if name != blind.name for p in ps]
    assert len(packages) == len(NPM[blind.name]) and not packages & {p.rsplit("@", 1)[0] for p in earlier}


@pytest.mark.parametrize("blind", WHOLE, ids=lambda b: b.name)
def test_mcp_labels_name_tools_of_the_committed_snapshots(blind):
    requests = dataset.read_requests(getattr(dataset, blind.query_files_attribute))
    mcp = sum(1 for r in requests if blind.catalogs[r.catalog][0] == "mcp")
    files = getattr(dataset, blind.query_files_attribute)
    assert snapshot_labels_checked(files, blind.catalogs, f"snapshots-{blind.name}") == mcp > 0


def test_the_unseen_set_is_measured_but_never_tuned_on():
    # `real --sets NAME` knows every set; the tuning scripts (ablate-groups, fusion-replay) read
    # TUNING_SETS, which leaves out the unseen one
    assert set(real_quality.UNSEEN_SETS) <= set(real_quality.SETS) & set(dataset.BLIND_SETS)
    assert not set(real_quality.UNSEEN_SETS) & set(real_quality.TUNING_SETS)
    assert set(real_quality.TUNING_SETS) | set(real_quality.UNSEEN_SETS) == set(real_quality.SETS)
    assert "blind8" in real_quality.TUNING_SETS  # measured twice on round 8, then read for round 9
    assert real_quality.UNSEEN_SETS == ("blind9",)  # round 9's unseen set: measured by the lead only
