"""R-SPECTRAL check helpers (experiments/reproductions/spectral_2024.py): exact pooling of
replicate blocks and the match probabilities derived from the algorithm."""

from __future__ import annotations

import numpy as np
import pytest

from experiments.reproductions.spectral_2024 import _pooled_cov, expected_match_rate


def test_blocks_pool_to_the_covariance_of_all_replicates() -> None:
    rng = np.random.default_rng(0)
    blocks = [rng.normal(size=(m, 3)) for m in (5, 7, 11)]
    total = sum(b.sum(axis=0) for b in blocks)
    cross = sum(b.T @ b for b in blocks)
    pooled = _pooled_cov(total, cross, sum(len(b) for b in blocks))
    np.testing.assert_allclose(pooled, np.cov(np.vstack(blocks), rowvar=False), rtol=1e-12)


def test_expected_match_rates() -> None:
    # J-SA: all p signs +1; P-SA: all p permutations hit the same row, n·n^(−p)
    assert expected_match_rate("j_sa", 2, 25) == 0.25
    assert expected_match_rate("j_sa", 6, 400) == pytest.approx(1 / 64)
    assert expected_match_rate("p_sa", 2, 25) == pytest.approx(1 / 25)
    assert expected_match_rate("p_sa", 3, 100) == pytest.approx(1e-4)
    assert expected_match_rate("o_sa", 2, 25) == 0.0
