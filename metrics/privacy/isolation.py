"""Closed forms of the no-release isolation baseline (``spec/metrics.md`` P14).

Source: ``004_…`` Altman, Cohen, Nissim & Wood, *From Isolation to Identification*, §3–4. A
predicate B *isolates* in a table X of n rows drawn i.i.d. from P when exactly one row
satisfies it. Without any release, an information receiver who knows P and n isolates with

* one guess of mass p = P(B):  n·p·(1 − p)^(n−1)                        (Eq. 1)
  — at most (1 − 1/n)^(n−1) ≈ 1/e, reached at p = 1/n                 (Theorem 1);
* k disjoint guesses, each of mass 1/max(k, n), in expectation
  k·(1 − 1/n)^(n−1) for k ≤ n and n·(1 − 1/k)^(n−1) for k > n      (Observation 1, Theorem 2).

These are the pieces of the ``isolation_baseline`` metric (its b̄ is the mean of Eq. 1 over the
attack's predicates) and of the R-ANALYTIC reproduction. Pure functions of numbers, vectorised
over ``p`` and ``k``.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from harness.errors import ConfigError


def _check_n(n: int) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ConfigError(f"`n` (rows of the table) must be an integer >= 1; got {n!r}")
    return int(n)


def isolation_probability(p: ArrayLike, n: int) -> np.ndarray:
    """Probability that a predicate of mass ``p`` matches exactly one of ``n`` i.i.d. rows (Eq. 1).

    Parameters
    ----------
    p : array_like of float
        P(B), each in [0, 1].
    n : int
        Rows of the table, >= 1.

    Returns
    -------
    ndarray of float
        n·p·(1 − p)^(n−1), same shape as ``p``.

    Raises
    ------
    ConfigError
        If ``n`` is not a positive integer or a ``p`` lies outside [0, 1].
    """
    rows = _check_n(n)
    mass = np.asarray(p, dtype=np.float64)
    if np.any(~np.isfinite(mass)) or np.any((mass < 0) | (mass > 1)):
        raise ConfigError("`p` (predicate masses) must lie in [0, 1]")
    # (1 − p)^(n−1) through log1p keeps tiny masses accurate for large n
    tail = np.ones_like(mass)
    if rows > 1:
        with np.errstate(divide="ignore"):
            tail = np.exp((rows - 1) * np.log1p(-mass))
    return np.asarray(rows * mass * tail, dtype=np.float64)


def max_isolation_probability(n: int) -> float:
    """The best single guess: (1 − 1/n)^(n−1), at P(B) = 1/n (Theorem 1); tends to 1/e."""
    rows = _check_n(n)
    return float(math.exp((rows - 1) * math.log1p(-1.0 / rows))) if rows > 1 else 1.0


def expected_isolations(k: ArrayLike, n: int) -> np.ndarray:
    """Largest expected number of isolations with ``k`` disjoint guesses (Observation 1, Theorem 2).

    Each guess has mass 1/max(k, n): k·(1 − 1/n)^(n−1) for k ≤ n, n·(1 − 1/k)^(n−1) for k > n.

    Parameters
    ----------
    k : array_like of int
        Number of guesses, each >= 1.
    n : int
        Rows of the table, >= 1.

    Raises
    ------
    ConfigError
        If ``n`` or a ``k`` is not a positive integer.
    """
    rows = _check_n(n)
    guesses = np.asarray(k)
    if guesses.dtype.kind not in "iu" or np.any(guesses < 1):
        raise ConfigError("`k` (number of guesses) must be integers >= 1")
    width = np.maximum(guesses, rows).astype(np.float64)
    return np.asarray(guesses * isolation_probability(1.0 / width, rows), dtype=np.float64)


def guesses_for_share(share: float, n: int) -> float:
    """Guesses k ≈ n / ln(1/share) that isolate ``share``·n rows in expectation (k ≥ n regime, §3.2).

    From n·e^(−n/k) = share·n; e.g. about 20n guesses for 95 % and 100n for 99 %.
    """
    rows = _check_n(n)
    if not 0.0 < share < 1.0:
        raise ConfigError(f"`share` must lie in (0, 1); got {share!r}")
    return float(rows / math.log(1.0 / share))


def population_unique_probability(p: ArrayLike, outside: int) -> np.ndarray:
    """Probability that none of the ``outside`` population members not in X falls in B: (1 − p)^outside (§4)."""
    if isinstance(outside, bool) or not isinstance(outside, (int, np.integer)) or outside < 0:
        raise ConfigError(
            f"`outside` (population members outside the table) must be an integer >= 0; got {outside!r}"
        )
    mass = np.asarray(p, dtype=np.float64)
    if np.any(~np.isfinite(mass)) or np.any((mass < 0) | (mass > 1)):
        raise ConfigError("`p` (predicate masses) must lie in [0, 1]")
    if int(outside) == 0:
        return np.ones_like(mass)
    with np.errstate(divide="ignore"):
        return np.asarray(np.exp(int(outside) * np.log1p(-mass)), dtype=np.float64)


__all__ = [
    "expected_isolations",
    "guesses_for_share",
    "isolation_probability",
    "max_isolation_probability",
    "population_unique_probability",
]
