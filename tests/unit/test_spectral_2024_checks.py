"""R-SPECTRAL check helpers (experiments/reproductions/spectral_2024.py): exact pooling of
replicate blocks and the match probabilities derived from the algorithm."""

from __future__ import annotations

import numpy as np
import pytest

from experiments.reproductions.spectral_2024_cells import _pooled_cov, expected_match_rate


def test_blocks_pool_to_the_covariance_of_all_replicates() -> None:
    rng = np.random.default_rng(0)
    blocks = [rng.normal(size=(m, 3)) for m in (5, 7, 11)]
    total = np.sum([b.sum(axis=0) for b in blocks], axis=0)
    cross = np.sum([b.T @ b for b in blocks], axis=0)
    pooled = _pooled_cov(total, cross, sum(len(b) for b in blocks))
    np.testing.assert_allclose(pooled, np.cov(np.vstack(blocks), rowvar=False), rtol=1e-12)


def test_expected_match_rates() -> None:
    # J-SA: all p signs +1; P-SA: all p permutations hit the same row, n·n^(−p)
    assert expected_match_rate("j_sa", 2, 25) == 0.25
    assert expected_match_rate("j_sa", 6, 400) == pytest.approx(1 / 64)
    assert expected_match_rate("p_sa", 2, 25) == pytest.approx(1 / 25)
    assert expected_match_rate("p_sa", 3, 100) == pytest.approx(1e-4)
    assert expected_match_rate("o_sa", 2, 25) == 0.0


def test_wishart_draws_have_the_estimates_law() -> None:
    from experiments.reproductions.spectral_2024_stats import combined, covariance_draws, relative_error_sd

    cov = np.diag([2.0, 1.0])
    draws = covariance_draws(cov, 1000)
    assert draws.shape == (300, 2, 2)
    np.testing.assert_allclose(draws.mean(axis=0), cov, atol=0.03)
    # Var of a diagonal entry of a covariance from M normal replicates: 2σ⁴/(M − 1)
    assert np.std(draws[:, 0, 0]) == pytest.approx(np.sqrt(2 * 4 / 999), rel=0.2)
    sd = relative_error_sd(cov, cov, 1000)
    assert 0.01 < sd < 0.05  # the RE's Monte Carlo noise at M = 1,000
    rank_one = np.outer([1.0, 1.0], [1.0, 1.0])  # singular (vec(S) has duplicated entries): still drawn
    assert np.isfinite(covariance_draws(rank_one, 50)).all()
    entry = combined("a − b", [(1.0, 0.3, 0.01), (-1.0, 0.1, 0.02)])
    assert entry["estimate"] == pytest.approx(0.2) and entry["high"] - entry["low"] == pytest.approx(
        2 * 1.96 * np.sqrt(5e-4), rel=1e-3
    )
