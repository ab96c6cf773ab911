"""What blind sets 5 and 6 of the real catalogs (issue 32) share: their OpenAPI labels name operations
of the fetched documents (skipped when the benchmark cache has none: ``python -m benchmarks fetch
--only ...``), and ``benchmarks real --sets blindN`` skips the set with a note when its request file
or one of its documents is absent (the MCP catalogs alone load from the committed snapshots)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from benchmarks import real_quality
from benchmarks.real_catalogs import dataset


@dataclass(frozen=True)
class BlindSet:
    name: str  # as `real --sets` and dataset.load's keyword call it
    first_document: str  # the first OpenAPI catalog the fetch note names
    mcp: tuple[tuple[str, int], ...]  # two MCP catalogs and their requests, in the file's order

    @property
    def catalogs(self) -> dict[str, tuple[str, str]]:
        return getattr(dataset, f"{self.name.upper()}_CATALOGS")

    @property
    def query_files_attribute(self) -> str:
        return f"{self.name.upper()}_QUERY_FILES"


SETS = [
    BlindSet("blind5", "data2crm", (("mcp-datadog", 10), ("mcp-paddle", 10))),
    BlindSet("blind6", "trakt", (("mcp-linear", 11), ("mcp-codacy", 10))),
]


@pytest.mark.parametrize("blind", SETS, ids=lambda b: b.name)
def test_openapi_labels_name_operations_of_the_fetched_documents(blind):
    openapi = {cid for cid, (group, _) in blind.catalogs.items() if group == "openapi"}
    if not all(dataset.source_path(cid).is_file() for cid in openapi):
        pytest.skip(f"{blind.name}'s OpenAPI documents are not in {dataset.cache_root()} (benchmarks fetch)")
    entries = dataset.load(only=openapi, **{blind.name: True})
    assert {e.id for e in entries} == openapi
    for entry in entries:
        names = set(dataset.tool_names(entry.catalog))
        assert len(entry.queries) == 11
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
    monkeypatch.setattr(dataset, blind.query_files_attribute, (tmp_path / f"{name}.yaml",))
    assert real_quality.load_sets([name], str(tmp_path), mcp) == {name: []}
    assert f"{name}.yaml is absent" in capsys.readouterr().err
