"""Exact binomial bounds and the input checks of the audit statistics (numpy and scipy only).

Clopper & Pearson (1934) intervals: :func:`clopper_pearson` (two-sided) and
:func:`one_sided_bounds`; shared by :mod:`harness.audit.roc` (TPR at low FPR) and
:mod:`harness.audit.epsilon` (the ε lower bound). Conventions of the package: see
:mod:`harness.audit`.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numpy.typing import ArrayLike
from scipy import stats

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


# --------------------------------------------------------------------------- validation helpers


def check_confidence(confidence: float) -> None:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence!r}")


def check_counts(k: int, n: int) -> None:
    if n < 0 or not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n, got k={k!r}, n={n!r}")


def as_scores(values: ArrayLike, name: str) -> FloatArray:
    arr = np.asarray(values, dtype=np.float64).ravel()
    if np.isnan(arr).any():
        raise ValueError(f"{name} contains NaN")
    return arr


def nonempty_scores(scores_in: ArrayLike, scores_out: ArrayLike) -> tuple[FloatArray, FloatArray]:
    s_in, s_out = as_scores(scores_in, "scores_in"), as_scores(scores_out, "scores_out")
    if s_in.size == 0 or s_out.size == 0:
        raise ValueError("both scores_in and scores_out must be non-empty")
    return s_in, s_out


# --------------------------------------------------------------------------- Clopper-Pearson


def lower_bounds(k: IntArray, n: int, level: float) -> FloatArray:
    """One-sided Clopper-Pearson lower bounds of ``k / n`` at ``level`` (vectorised over ``k``)."""
    a = np.maximum(k, 1).astype(np.float64)  # k = 0 is masked below; avoid beta(0, .)
    out = np.asarray(stats.beta.ppf(1.0 - level, a, n - k + 1.0), dtype=np.float64)
    return np.where(k == 0, 0.0, out)


def upper_bounds(k: IntArray, n: int, level: float) -> FloatArray:
    """One-sided Clopper-Pearson upper bounds of ``k / n`` at ``level`` (vectorised over ``k``)."""
    b = np.maximum(n - k, 1).astype(np.float64)  # k = n is masked below
    out = np.asarray(stats.beta.ppf(level, k + 1.0, b), dtype=np.float64)
    return np.where(k == n, 1.0, out)


def clopper_pearson(k: int, n: int, confidence: float) -> tuple[float, float]:
    """Two-sided exact (Clopper & Pearson 1934) interval of a binomial proportion ``k / n``.

    Each tail has probability ``(1 - confidence) / 2``:
    ``low = Beta^{-1}(alpha/2; k, n-k+1)``, ``high = Beta^{-1}(1-alpha/2; k+1, n-k)`` with
    ``alpha = 1 - confidence``.

    Parameters
    ----------
    k, n
        Successes and trials, ``0 <= k <= n``.
    confidence
        Coverage of the interval, in ``(0, 1)``.

    Returns
    -------
    tuple of float
        ``(low, high)``; ``low = 0`` when ``k = 0``, ``high = 1`` when ``k = n``, and
        ``(0.0, 1.0)`` when ``n = 0``.
    """
    check_confidence(confidence)
    check_counts(k, n)
    if n == 0:
        return 0.0, 1.0
    level = 1.0 - (1.0 - confidence) / 2.0
    kk = np.array([k], dtype=np.int64)
    return float(lower_bounds(kk, n, level)[0]), float(upper_bounds(kk, n, level)[0])


def one_sided_bounds(k: int, n: int, confidence: float) -> tuple[float, float]:
    """One-sided Clopper-Pearson (1934) bounds of ``k / n``.

    ``lower = Beta^{-1}(1 - confidence; k, n-k+1)`` (0 when ``k = 0``) and
    ``upper = Beta^{-1}(confidence; k+1, n-k)`` (1 when ``k = n``). *Each* bound holds with
    probability at least ``confidence`` on its own (the pair jointly with ``2 confidence - 1``).

    Parameters
    ----------
    k, n
        Successes and trials, ``0 <= k <= n``.
    confidence
        Coverage of each bound, in ``(0, 1)``.

    Returns
    -------
    tuple of float
        ``(lower, upper)``; ``(0.0, 1.0)`` when ``n = 0``.
    """
    check_confidence(confidence)
    check_counts(k, n)
    if n == 0:
        return 0.0, 1.0
    kk = np.array([k], dtype=np.int64)
    return float(lower_bounds(kk, n, confidence)[0]), float(upper_bounds(kk, n, confidence)[0])
