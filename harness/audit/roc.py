"""The ROC of a membership-inference audit: curve, AUC with a DeLong (1988) interval, TPR at low
FPR (Carlini et al. 2022, "Membership Inference Attacks From First Principles") and a thinned
curve for storage and plots. Conventions: see :mod:`harness.audit`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

from harness.audit.binomial import (
    FloatArray,
    IntArray,
    as_scores,
    check_confidence,
    clopper_pearson,
    nonempty_scores,
)

# --------------------------------------------------------------------------- ROC and AUC


def roc_counts(s_in: FloatArray, s_out: FloatArray) -> tuple[IntArray, IntArray, FloatArray]:
    """Cumulative (tp, fp) counts at each distinct score, in decreasing order, with a leading +inf."""
    scores = np.concatenate([s_in, s_out])
    is_in = np.concatenate([np.ones(s_in.size, dtype=np.int64), np.zeros(s_out.size, dtype=np.int64)])
    order = np.argsort(-scores, kind="stable")
    scores, is_in = scores[order], is_in[order]
    # last index of each run of equal scores: the decision "score >= t" takes the whole tie group
    last = np.flatnonzero(np.append(np.diff(scores) != 0, True))
    tp = np.cumsum(is_in)[last]
    fp = (last + 1) - tp
    zero = np.zeros(1, dtype=np.int64)
    thresholds = np.concatenate([[np.inf], scores[last]])
    return np.concatenate([zero, tp]), np.concatenate([zero, fp]), thresholds


def roc_points(scores_in: ArrayLike, scores_out: ArrayLike) -> tuple[FloatArray, FloatArray, FloatArray]:
    """ROC curve of the test "member iff score >= threshold".

    Parameters
    ----------
    scores_in, scores_out
        Attack scores of the IN and OUT games (both non-empty).

    Returns
    -------
    fpr, tpr, thresholds : numpy.ndarray
        One point per distinct score, in decreasing threshold order, preceded by the point
        ``(0, 0)`` at threshold ``+inf``; the last point is ``(1, 1)`` (threshold = smallest score).
        Tied scores move FPR and TPR together. Matches
        ``sklearn.metrics.roc_curve(..., drop_intermediate=False)``.
    """
    s_in, s_out = nonempty_scores(scores_in, scores_out)
    tp, fp, thresholds = roc_counts(s_in, s_out)
    return fp / s_out.size, tp / s_in.size, thresholds


def auc_with_ci(scores_in: ArrayLike, scores_out: ArrayLike, confidence: float) -> tuple[float, float, float]:
    """AUC with a DeLong, DeLong & Clarke-Pearson (1988) confidence interval.

    ``AUC = P(S_in > S_out) + 0.5 P(S_in = S_out)`` (the Mann-Whitney statistic divided by
    ``n_in n_out``). DeLong's variance is ``Var = s_10^2 / n_in + s_01^2 / n_out`` where ``s_10^2``
    is the sample variance of the IN placement values ``V_i = P_hat(S_out < x_i) + 0.5
    P_hat(S_out = x_i)`` and ``s_01^2`` that of the OUT placement values ``V_j = P_hat(S_in > y_j)
    + 0.5 P_hat(S_in = y_j)``; the interval is ``AUC -/+ z_{1-alpha/2} sqrt(Var)`` clipped to
    ``[0, 1]``. With complete separation (AUC 0 or 1) the variance estimate is 0 and the interval
    degenerates to a point, a known limitation of DeLong's (and Hanley & McNeil's 1982) estimate.

    Parameters
    ----------
    scores_in, scores_out
        Attack scores of the IN and OUT games.
    confidence
        Two-sided coverage, in ``(0, 1)``.

    Returns
    -------
    tuple of float
        ``(auc, low, high)``; ``(nan, nan, nan)`` when either side is empty.
    """
    check_confidence(confidence)
    s_in, s_out = as_scores(scores_in, "scores_in"), as_scores(scores_out, "scores_out")
    n_in, n_out = s_in.size, s_out.size
    if n_in == 0 or n_out == 0:
        return math.nan, math.nan, math.nan
    ranks = stats.rankdata(np.concatenate([s_in, s_out]))  # mid-ranks
    r_in, r_out = ranks[:n_in], ranks[n_in:]
    # combined mid-rank minus within-group mid-rank = #other-group below + 0.5 #other-group tied
    v10 = (r_in - stats.rankdata(s_in)) / n_out
    v01 = 1.0 - (r_out - stats.rankdata(s_out)) / n_in
    auc = float(v10.mean())
    s10 = float(np.var(v10, ddof=1)) if n_in > 1 else 0.0
    s01 = float(np.var(v01, ddof=1)) if n_out > 1 else 0.0
    var = s10 / n_in + s01 / n_out
    half = float(stats.norm.ppf(1.0 - (1.0 - confidence) / 2.0)) * math.sqrt(max(var, 0.0))
    return auc, max(0.0, auc - half), min(1.0, auc + half)


# --------------------------------------------------------------------------- TPR at low FPR


@dataclass(frozen=True)
class OperatingPoint:
    """TPR of an attack at a fixed FPR level (Carlini et al. 2022).

    Attributes
    ----------
    fpr_level
        The requested FPR (e.g. 0.001).
    tpr
        TPR at the largest-TPR threshold whose empirical FPR is ``<= fpr_level``.
    tpr_low, tpr_high
        Two-sided Clopper-Pearson interval of ``tpr`` at the requested confidence.
    fpr
        The empirical FPR actually achieved at that threshold.
    threshold
        The threshold (``+inf`` when no finite threshold qualifies: then ``tpr = fpr = 0``).
    resolvable
        ``n_out * fpr_level >= 1``; otherwise the level is below the audit's resolution (the
        only attainable empirical FPR at or below it is 0). Reported either way.
    """

    fpr_level: float
    tpr: float
    tpr_low: float
    tpr_high: float
    fpr: float
    threshold: float
    resolvable: bool


def tpr_at_fpr(
    scores_in: ArrayLike, scores_out: ArrayLike, levels: Sequence[float], confidence: float
) -> list[OperatingPoint]:
    """TPR at low FPR levels, the figure of merit of Carlini et al. (2022).

    For each level, the operating point is the ROC point (see :func:`roc_points`) with the largest
    TPR among those whose empirical FPR is ``<= level``; its TPR gets a two-sided Clopper-Pearson
    (1934) interval over the ``n_in`` IN games.

    Parameters
    ----------
    scores_in, scores_out
        Attack scores of the IN and OUT games (both non-empty).
    levels
        FPR levels in ``[0, 1]``.
    confidence
        Coverage of the TPR intervals, in ``(0, 1)``.

    Returns
    -------
    list of OperatingPoint
        One per level, in the order given.
    """
    check_confidence(confidence)
    s_in, s_out = nonempty_scores(scores_in, scores_out)
    tp, fp, thresholds = roc_counts(s_in, s_out)
    n_in, n_out = s_in.size, s_out.size
    points = []
    for level in levels:
        if not 0.0 <= level <= 1.0:
            raise ValueError(f"FPR levels must lie in [0, 1], got {level!r}")
        # fp is non-decreasing: the last point with fp <= level * n_out has the largest tp
        i = int(np.searchsorted(fp, level * n_out * (1 + 1e-12), side="right")) - 1
        low, high = clopper_pearson(int(tp[i]), n_in, confidence)
        points.append(
            OperatingPoint(
                fpr_level=float(level),
                tpr=float(tp[i]) / n_in,
                tpr_low=low,
                tpr_high=high,
                fpr=float(fp[i]) / n_out,
                threshold=float(thresholds[i]),
                resolvable=bool(n_out * level >= 1),
            )
        )
    return points


# --------------------------------------------------------------------------- plotting helper


def thin_curve(fpr: ArrayLike, tpr: ArrayLike, max_points: int = 101) -> tuple[list[float], list[float]]:
    """Thin a ROC curve to at most ``max_points`` points for storage or plotting.

    Keeps the first and last points (``(0, 0)`` and ``(1, 1)`` for a curve from
    :func:`roc_points`), the top of the initial vertical segment at FPR 0 (the TPR at FPR 0;
    when ``max_points > 2``) and, for grids of FPR values spread evenly on a linear axis and on a log10 axis (from the
    smallest positive FPR to 1), the last point at or below each grid value; the grids shrink
    until the budget is met. Since a subset of a monotone curve is kept in order, the result
    is monotone.

    Parameters
    ----------
    fpr, tpr
        The curve, non-decreasing in both coordinates (as from :func:`roc_points`).
    max_points
        Maximum number of points kept, at least 2.

    Returns
    -------
    tuple of list of float
        ``(fpr, tpr)`` rounded to 6 decimals, as plain Python floats (JSON-serialisable).
    """
    if max_points < 2:
        raise ValueError(f"max_points must be >= 2, got {max_points!r}")
    x = np.asarray(fpr, dtype=np.float64).ravel()
    y = np.asarray(tpr, dtype=np.float64).ravel()
    if x.shape != y.shape:
        raise ValueError("fpr and tpr must have the same length")
    m = x.size
    if m <= max_points:
        keep = np.arange(m)
    else:
        fixed = {0, m - 1}
        at_zero = np.flatnonzero(x <= 0)
        if at_zero.size and max_points > 2:
            fixed.add(int(at_zero[-1]))
        positive = x[x > 0]
        lo = float(np.log10(positive.min())) if positive.size else 0.0
        n_grid = max_points - len(fixed)
        while True:
            n_lin = (n_grid + 1) // 2
            n_log = n_grid - n_lin
            grid = np.concatenate([np.linspace(0.0, 1.0, n_lin), np.logspace(lo, 0.0, n_log)])
            idx = np.searchsorted(x, grid * (1 + 1e-12), side="right") - 1
            keep = np.unique(np.concatenate([np.array(sorted(fixed)), idx[idx >= 0]]))
            if keep.size <= max_points or n_grid == 0:
                break
            n_grid -= max(1, (keep.size - max_points) // 2)
            n_grid = max(n_grid, 0)
    return [round(float(v), 6) for v in x[keep]], [round(float(v), 6) for v in y[keep]]
