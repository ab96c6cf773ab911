"""The test suite's own set-up (tests/conftest.py)."""

from __future__ import annotations

import os

import pytest

from ..conftest import MAX_WORKERS


@pytest.mark.parametrize(("cores", "workers"), [(1, 1), (2, 2), (MAX_WORKERS, MAX_WORKERS), (16, MAX_WORKERS)])
def test_pytest_n_auto_runs_one_worker_per_core_at_most_max_workers(pytestconfig, monkeypatch, cores, workers):
    """``-n auto`` asks pytest-xdist's hook; the conftest answers it. Called through the plugin
    manager, so a misspelt hook (it is optional: pytest would not say) fails here, on any machine,
    rather than on the first one with more than MAX_WORKERS cores."""
    pytest.importorskip("xdist")
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(cores)), raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: cores)
    assert pytestconfig.hook.pytest_xdist_auto_num_workers(config=pytestconfig) == workers
