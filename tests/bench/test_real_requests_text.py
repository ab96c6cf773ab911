"""Every request file of the real-catalog sets reads as it was written: a plain YAML scalar ends at
" #" (a comment), which cut three requests ("find invoice #5512 in our Orders base" was read as
"find invoice") until they were quoted."""

from __future__ import annotations

import pytest
import yaml

from benchmarks.real_catalogs import dataset

FILES = (
    dataset.QUERY_FILES
    + dataset.HELDOUT_QUERY_FILES
    + dataset.BLIND4_QUERY_FILES
    + dataset.BLIND5_QUERY_FILES
    + dataset.BLIND6_QUERY_FILES
    + dataset.BLIND7_QUERY_FILES
    + dataset.BLIND8_QUERY_FILES
    + dataset.BLIND9_QUERY_FILES
)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_request_keeps_its_whole_text(path):
    raw = [
        line.split("query:", 1)[1].strip()
        for line in path.read_text("utf-8").splitlines()
        if line.strip().startswith(("query:", "- query:"))
    ]
    loaded = [r.query for r in dataset.read_requests((path,))]
    assert len(raw) == len(loaded), path
    for text, query in zip(raw, loaded, strict=True):
        if text[:1] in ">|":  # a block scalar: its lines follow, where " #" is text
            continue
        whole = yaml.safe_load(text) if text[:1] in "\"'" else text  # a quoted scalar: its value
        assert whole == query, (path.name, text, query)
