"""R-SPECTRAL: Monte Carlo noise of the relative errors and efficiencies of one simulation cell.

A cell's RE compares the covariance of M replicates (of √n(x̄_A − μ) or √n·vec(S_A − Σ)) with
its limit. The run keeps only the sufficient statistics of the replicates (sums and sums of
outer products), so the replicates cannot be resampled. The noise of any function of that
covariance is taken from a parametric bootstrap instead: draws Ĉ* = L·W·L'/(M − 1) with
W ~ Wishart(M − 1, I_r) and Ĉ = L·L' (rank r), the sampling law of a covariance estimated from
M normal replicates. The interval of a quantity is its estimate ± 1.96 standard deviations of
the draws; independent cells combine in quadrature. At finite n the replicates have heavier
tails than normal ones, so these intervals are if anything too narrow (the method says so).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from harness.reproduction import uncertainty as unc

DRAWS = 300
SEED = 20261128
Z = 1.959963984540054
METHOD = (
    "estimate ± 1.96 SD of a parametric (Wishart) bootstrap of each cell's covariance over its M replicates; "
    "independent cells combined in quadrature"
)


def covariance_draws(cov: np.ndarray, m: int, draws: int = DRAWS, seed: int = SEED) -> np.ndarray:
    """``draws`` covariance matrices distributed as the estimate of ``cov`` from ``m`` normal replicates."""
    from scipy.stats import wishart

    cov = np.asarray(cov, dtype=float)
    values, vectors = np.linalg.eigh((cov + cov.T) / 2)
    keep = values > values.max() * 1e-10 if values.max() > 0 else np.zeros_like(values, dtype=bool)
    if not keep.any() or m < 3:
        return np.repeat(cov[None], draws, axis=0)
    root = vectors[:, keep] * np.sqrt(values[keep])
    r = int(keep.sum())
    rng = np.random.default_rng(seed)
    w = wishart(df=m - 1, scale=np.eye(r)).rvs(size=draws, random_state=rng)
    w = np.asarray(w).reshape(draws, r, r)
    return np.einsum("ij,njk,lk->nil", root, w, root) / (m - 1)


def spread(function: Callable[[np.ndarray], float], cov: np.ndarray, m: int) -> float:
    """Standard deviation of ``function(Ĉ*)`` over the draws."""
    values = [function(c) for c in covariance_draws(cov, m)]
    return float(np.std(values, ddof=1))


def relative_error_sd(cov: np.ndarray, reference: np.ndarray, m: int) -> float:
    """SD of the RE ‖Ĉ* − R‖_F / ‖R‖_F over the draws."""
    norm = float(np.linalg.norm(reference))
    return spread(lambda c: float(np.linalg.norm(c - reference) / norm), cov, m)


def combined(name: str, terms: Sequence[tuple[float, float, float]]) -> dict[str, Any]:
    """Interval of Σ coef·estimate from independent ``(coef, estimate, sd)`` terms."""
    estimate = float(sum(c * e for c, e, _ in terms))
    sd = float(np.sqrt(sum((c * s) ** 2 for c, _, s in terms)))
    return unc.interval(name, estimate, estimate - Z * sd, estimate + Z * sd)


def binomial(successes: int, n: int) -> tuple[float, float]:
    """Rate and its binomial standard error (a floor of 0.5 events when none was seen)."""
    rate = successes / n if n else 0.0
    sd = float(np.sqrt(max(rate * (1 - rate), 0.5 / max(n, 1)) / max(n, 1)))
    return rate, sd


__all__ = ["DRAWS", "METHOD", "binomial", "combined", "covariance_draws", "relative_error_sd", "spread"]
