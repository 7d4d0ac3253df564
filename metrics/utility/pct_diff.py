"""``pct_diff`` and ``rope_outcome``: percentage difference to a baseline (``spec/metrics.md`` U2).

``000_…`` §4.1: pct_diff(a, b) = 100·(R_a − R_b)/R_b, R_a the solution under comparison and
R_b the baseline; with the region of practical equivalence ROPE = [−1 %, 1 %] the
comparison is a ``win`` (pct_diff > 1), a ``draw`` (−1 ≤ pct_diff ≤ 1) or a ``lose``
(pct_diff < −1). ``ml_efficacy`` reports both against the TRTR score.
"""

from __future__ import annotations

import math

ROPE_HALF_WIDTH = 1.0
"""Half-width of the ROPE in percent (``000_…`` §4.1)."""
ROPE_CODES: dict[str, int] = {"win": 1, "draw": 0, "lose": -1}
"""Numeric encoding of the ROPE outcome in the results table."""


def pct_diff(value: float, baseline: float) -> float:
    """100·(value − baseline)/|baseline|.

    Equals the paper's 100·(R_a − R_b)/R_b for the positive baselines of every bounded score
    (AUC, F1, accuracy, ...); the absolute value keeps the sign meaningful ("above the
    baseline" is positive) for a negative baseline, which only R² can have.

    Parameters
    ----------
    value : float
        R_a, the score of the solution under comparison (e.g. TSTR).
    baseline : float
        R_b (e.g. TRTR).

    Raises
    ------
    ZeroDivisionError
        If ``baseline`` is 0 (the percentage is undefined).
    """
    if baseline == 0:
        raise ZeroDivisionError("pct_diff: the baseline is 0")
    return 100.0 * (value - baseline) / abs(baseline)


def rope_outcome(diff: float, *, half_width: float = ROPE_HALF_WIDTH, higher_is_better: bool = True) -> str:
    """Classify a percentage difference with the ROPE [−half_width, half_width].

    Parameters
    ----------
    diff : float
        A :func:`pct_diff` value.
    half_width : float
        ROPE half-width in percent (1 in ``000_…``).
    higher_is_better : bool
        False for error scores (RMSE): then a difference below −half_width is the ``win``.

    Returns
    -------
    {"win", "draw", "lose"}
    """
    if math.isnan(diff):
        raise ValueError("rope_outcome: the difference is NaN")
    signed = diff if higher_is_better else -diff
    if signed > half_width:
        return "win"
    if signed < -half_width:
        return "lose"
    return "draw"
