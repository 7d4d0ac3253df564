"""The mechanism of ``dp_moments``: sensitivities, the DP radius and the noisy moments of one class.

Pure functions behind :mod:`generators.dp_moments` (see its docstring for the derivation from
SMOTE-DP's Theorem 3.2, ``001_…`` §3.2, and the accounting). Records live in [0, 1]^D; every
sensitivity is for adding or removing one record of the class.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

STEPS: tuple[str, ...] = ("count", "centre", "radius", "mean", "covariance")
LOG2_RANGE = 30  # the radius search covers [√D·2^−30, √D]


# ---------------------------------------------------------------------- sensitivities
def centre_sensitivity(d: int) -> float:
    """L1 sensitivity of Σ (x_i − ½) for records in [0, 1]^d under add/remove: d/2."""
    return d / 2.0


def mean_sensitivity(d: int, radius: float) -> float:
    """L1 sensitivity of Σ z_i, z_i in the L2 ball of radius ``radius`` in R^d (add/remove): √d·r."""
    return math.sqrt(d) * radius


def second_moment_sensitivity(d: int, radius: float) -> float:
    """L1 sensitivity of the upper triangle (diagonal included) of Σ z_i z_iᵀ (add/remove).

    Σ_{j≤k} |z_j z_k| = (‖z‖₁² + ‖z‖₂²)/2 ≤ (d·r² + r²)/2 = (d + 1)·r²/2, attained at
    z = r/√d·(1, …, 1).
    """
    return (d + 1) * radius**2 / 2.0


def step_epsilons(epsilon: float, split: Mapping[str, float]) -> dict[str, float]:
    """ε of each step of one class: ε_c = ε/2 (replace-one = one removal + one addition), times its share."""
    per_class = epsilon / 2.0
    return {step: per_class * float(split[step]) for step in STEPS}


# ---------------------------------------------------------------------- mechanisms
def quantile_weights(
    values: np.ndarray, q: float, n_target: float, upper: float, epsilon: float
) -> tuple[np.ndarray, np.ndarray]:
    """Log-scale intervals and their log-weights in the exponential mechanism of :func:`dp_quantile`.

    Returns
    -------
    edges : ndarray
        log t at the interval ends: log(lower), the sorted log values, log(upper).
    log_weights : ndarray
        log(interval length) + ε·u/2 per interval (−inf for empty intervals), u = −|k − q·n_target|
        with k the number of values below the interval.
    """
    lower = upper * 2.0**-LOG2_RANGE
    logs = np.log(np.sort(np.clip(np.asarray(values, dtype=float), lower, upper)))
    edges = np.concatenate([[math.log(lower)], logs, [math.log(upper)]])
    utility = -np.abs(np.arange(len(logs) + 1) - q * n_target)
    with np.errstate(divide="ignore"):
        log_weights = np.log(np.diff(edges)) + epsilon * utility / 2.0
    return edges, log_weights


def dp_quantile(
    values: np.ndarray, q: float, n_target: float, upper: float, epsilon: float, rng: np.random.Generator
) -> float:
    """The ``q``-quantile of the positive ``values`` by the continuous exponential mechanism on a log scale.

    The output t ∈ [``upper``·2^−``LOG2_RANGE``, ``upper``] has density ∝ exp(ε·u(t)/2) with respect
    to dt/t, u(t) = −|#{v < t} − q·n_target|. ``n_target`` (a released noisy count) does not
    depend on the data, so adding or removing one value changes u by at most 1 everywhere and
    the draw is ε-DP (Smith 2011; the base measure is public). Values are clipped to the range;
    the log-interval between consecutive sorted values is drawn with probability ∝ its length ×
    exp(ε·u/2) (:func:`quantile_weights`), then a point log-uniformly inside it. The log scale
    makes the draw scale-free: the empty range above the largest value weighs its log-length.
    """
    edges, log_weights = quantile_weights(values, q, n_target, upper, epsilon)
    weights = np.exp(log_weights - np.max(log_weights))
    k = int(rng.choice(len(weights), p=weights / weights.sum()))
    return float(math.exp(rng.uniform(edges[k], edges[k + 1])))


def noisy_second_moment(z: np.ndarray, scale: float, rng: np.random.Generator) -> np.ndarray:
    """Σ z_i z_iᵀ plus Lap(``scale``) on each upper-triangle entry (diagonal included), mirrored."""
    d = z.shape[1]
    upper = np.triu_indices(d)
    noise = np.zeros((d, d))
    noise[upper] = rng.laplace(0.0, scale, len(upper[0]))
    return z.T @ z + noise + np.triu(noise, 1).T


def project_psd(matrix: np.ndarray) -> np.ndarray:
    """The nearest PSD matrix in Frobenius norm: symmetrise, floor the eigenvalues at 0."""
    sym = (matrix + matrix.T) / 2.0
    values, vectors = np.linalg.eigh(sym)
    return (vectors * np.maximum(values, 0.0)) @ vectors.T


@dataclass(frozen=True)
class ClassMoments:
    """The released statistics of one class (scaled space) and the noise scales used.

    Attributes
    ----------
    count : float
        Noisy record count m̃.
    centre, mean : ndarray
        DP centre c̃ and mean μ̃.
    radius : float
        DP clipping radius r̃.
    cov : ndarray
        DP covariance Σ̃ (PSD).
    scales : dict
        Laplace scale of each step (``radius``: the sensitivity of its utility, 1).
    clipped_share : float
        Share of the records clipped to the ball (diagnostic read from the data, not released).
    """

    count: float
    centre: np.ndarray
    radius: float
    mean: np.ndarray
    cov: np.ndarray
    scales: dict[str, float]
    clipped_share: float


def private_moments(
    x: np.ndarray, eps: Mapping[str, float], quantile: float, factor: float, rng: np.random.Generator
) -> ClassMoments:
    """Steps 1–5 of the module docstring on the records ``x`` (m × D, in [0, 1]^D) of one class.

    ``eps`` maps each step to its ε; the whole is Σ eps-DP under add/remove of one record.
    """
    m, d = x.shape
    scales = {"count": 1.0 / eps["count"], "centre": centre_sensitivity(d) / eps["centre"]}
    count = m + float(rng.laplace(0.0, scales["count"]))
    n_hat = max(count, 1.0)
    centre_sum = (x - 0.5).sum(axis=0) + rng.laplace(0.0, scales["centre"], d)
    centre = np.clip(0.5 + centre_sum / n_hat, 0.0, 1.0)
    offsets = x - centre
    norms = np.linalg.norm(offsets, axis=1)
    radius = factor * dp_quantile(norms, quantile, max(count, 0.0), math.sqrt(d), eps["radius"], rng)
    scales["radius"] = 1.0
    shrink = np.minimum(1.0, radius / np.maximum(norms, 1e-300))
    z = offsets * shrink[:, None]
    scales["mean"] = mean_sensitivity(d, radius) / eps["mean"]
    noisy_sum = z.sum(axis=0) + rng.laplace(0.0, scales["mean"], d)
    scales["covariance"] = second_moment_sensitivity(d, radius) / eps["covariance"]
    noisy_moment = noisy_second_moment(z, scales["covariance"], rng)
    mean_z = noisy_sum / n_hat
    cov = project_psd(noisy_moment / n_hat - np.outer(mean_z, mean_z))
    clipped = float(np.mean(norms > radius)) if m else 0.0
    return ClassMoments(count, centre, radius, centre + mean_z, cov, scales, clipped)


__all__ = [
    "LOG2_RANGE",
    "STEPS",
    "ClassMoments",
    "centre_sensitivity",
    "dp_quantile",
    "mean_sensitivity",
    "noisy_second_moment",
    "private_moments",
    "project_psd",
    "quantile_weights",
    "second_moment_sensitivity",
    "step_epsilons",
]
