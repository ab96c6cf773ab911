"""Files toolsearch writes (the run state, any atomic write) keep ordinary permissions and leave no
temporary file behind."""

from __future__ import annotations

import os

import pytest

from toolsearch_cli.disclosure.state import RunState
from toolsearch_cli.errors import UsageError
from toolsearch_cli.files import write_text_atomic

from ..conftest import file_mode, umask_mode


def test_run_state_and_atomic_writes_keep_permissions_and_leave_no_temporary_file(tmp_path):
    state = tmp_path / "state.json"
    RunState().save(state)
    assert file_mode(state) == umask_mode()
    os.chmod(state, 0o640)
    RunState().save(state)
    assert file_mode(state) == 0o640  # an existing file keeps its mode
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state.json"]
    with pytest.raises(UsageError, match="cannot write the thing"):
        write_text_atomic(tmp_path, "x", what="the thing", error=UsageError)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state.json"]
