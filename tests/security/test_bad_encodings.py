"""Non-UTF-8 input files are one-line errors naming the file, never a traceback."""

from __future__ import annotations

import pytest

from toolsearch_cli.disclosure.state import RunState
from toolsearch_cli.errors import UsageError
from toolsearch_cli.evaluate import load_run_document

LATIN1 = "café".encode("latin-1")


def test_a_non_utf8_baseline_is_a_usage_error(tmp_path):
    path = tmp_path / "run.json"
    path.write_bytes(b'{"tool": "' + LATIN1 + b'"}')
    with pytest.raises(UsageError, match="not UTF-8 text") as info:
        load_run_document(path)
    assert info.value.file == str(path)


def test_a_non_utf8_run_state_is_a_usage_error_naming_the_state(tmp_path):
    path = tmp_path / "state.json"
    path.write_bytes(LATIN1)
    with pytest.raises(UsageError, match="not UTF-8 text") as info:
        RunState.load(path)
    assert (info.value.file, info.value.field) == (str(path), "state")


def test_a_wrong_kind_names_the_json_kind_not_an_internal_class(run_cli, write):
    path = write("cat.yaml", "tools:\n  - name: a1\n    description: [x, y]\n")
    result = run_cli("search", "x", "--catalog", str(path))
    assert result.code == 2
    assert "must be a string, not a list" in result.stderr and "MarkedList" not in result.stderr
