"""``rescale_views`` takes each view's best and k-th best cosine: the best must be the row's
maximum whatever numpy's partition leaves before the k-th place (numpy 1.25 leaves it unordered;
the hybrid ranker then lost every view but the first: found with the lowest versions
pyproject.toml allows)."""

from __future__ import annotations

import pytest

np = pytest.importorskip("numpy")


def test_the_top_and_floor_are_each_row_s_best_and_k_th_best():
    from toolsearch_cli.search.hybrid import rescale_views

    rng = np.random.default_rng(7)
    for _ in range(300):
        width = int(rng.integers(1, 30))
        k = int(rng.integers(1, width + 1))
        sims = rng.uniform(-1, 1, (3, width)).astype(np.float32)
        rescaled, floor, span = rescale_views(sims, k)
        ordered = -np.sort(-sims, axis=1)
        assert np.allclose(floor[:, 0], np.maximum(ordered[:, k - 1], 0.0))
        assert np.allclose(span[:, 0], ordered[:, 0] - floor[:, 0])
        best = sims.argmax(axis=1)
        lively = span[:, 0] > 0
        assert np.allclose(rescaled[np.arange(3), best][lively], 1.0)  # each view's best rescales to 1
