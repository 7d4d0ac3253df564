"""Metric goals: which value is best.

A metric's ``goal`` is ``maximise``, ``minimise``, ``target`` (best at ``target_value``) or
``none`` (a diagnostic with no better direction). :func:`oriented_scores` turns values into
scores where larger is better, which is what best-marking (and rank-based statistics) need.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

ARROWS: dict[str, str] = {"maximise": "↑", "minimise": "↓"}


def has_direction(goal: str, target_value: float | None = None) -> bool:
    """Whether values of a metric with this goal can be ranked."""
    if goal in ("maximise", "minimise"):
        return True
    return goal == "target" and target_value is not None and not math.isnan(target_value)


def oriented_scores(
    values: npt.ArrayLike, goal: str, target_value: float | None = None
) -> npt.NDArray[np.float64]:
    """Scores where larger is better.

    Parameters
    ----------
    values : array-like of float
    goal : {"maximise", "minimise", "target", "none"}
    target_value : float, optional
        Required for ``goal == "target"``.

    Returns
    -------
    ndarray
        ``values``, ``-values`` or ``-|values - target_value|``; NaN stays NaN.

    Raises
    ------
    ValueError
        If the goal has no direction (``none``, unknown, or ``target`` without a target).
    """
    arr = np.asarray(values, dtype=float)
    if goal == "maximise":
        return arr
    if goal == "minimise":
        return -arr
    if goal == "target" and target_value is not None and not math.isnan(target_value):
        return -np.abs(arr - float(target_value))
    raise ValueError(f"`goal` must be maximise, minimise or target with a target_value; got {goal!r}")


def best_mask(
    values: npt.ArrayLike,
    goal: str,
    target_value: float | None = None,
    *,
    min_candidates: int = 2,
) -> npt.NDArray[np.bool_]:
    """Mark the best of ``values`` according to the goal (ties all marked).

    Parameters
    ----------
    values : array-like of float
        NaN values are never best.
    goal, target_value
        As in :func:`oriented_scores`. A goal without direction marks nothing.
    min_candidates : int
        Mark nothing unless at least this many values are finite (a lone value is not
        "best" of anything).

    Returns
    -------
    ndarray of bool
    """
    arr = np.asarray(values, dtype=float)
    mask = np.zeros(arr.shape, dtype=bool)
    if not has_direction(goal, target_value):
        return mask
    scores = oriented_scores(arr, goal, target_value)
    finite = np.isfinite(scores)
    if finite.sum() < min_candidates:
        return mask
    top = scores[finite].max()
    mask[finite] = np.isclose(scores[finite], top, rtol=1e-9, atol=1e-12)
    return mask


def direction_text(goal: str, target_value: float | None = None) -> str:
    """Short marker for headers: ``↑``, ``↓``, ``→0.5`` or ``""``."""
    if goal in ARROWS:
        return ARROWS[goal]
    if goal == "target" and target_value is not None and not math.isnan(target_value):
        return f"→{target_value:g}"
    return ""


def direction_phrase(goal: str, target_value: float | None = None) -> str:
    """Words for axis labels: ``higher is better``, ``lower is better``, ``best at 0.5`` or ``""``."""
    if goal == "maximise":
        return "higher is better"
    if goal == "minimise":
        return "lower is better"
    if goal == "target" and target_value is not None and not math.isnan(target_value):
        return f"best at {target_value:g}"
    return ""
