"""Statistics of a membership-inference privacy audit (numpy and scipy only).

An audit plays many *games*: in an IN game the target record is in the generator's training
data, in an OUT game it is not, and the attack gives each game a score where a *higher score
means the attack believes the target was a member*. ``scores_in`` are the scores of the IN games,
``scores_out`` those of the OUT games. A threshold ``t`` defines the test "member iff score >= t",
with true-positive rate ``TPR = #{scores_in >= t} / n_in`` and false-positive rate
``FPR = #{scores_out >= t} / n_out``.

This module provides

* exact binomial intervals (Clopper & Pearson 1934): :func:`clopper_pearson`,
  :func:`one_sided_bounds`;
* the ROC curve and its AUC with a DeLong (1988) confidence interval: :func:`roc_points`,
  :func:`auc_with_ci`, :func:`thin_curve`;
* TPR at low FPR, the figure of merit of Carlini et al. (2022), "Membership Inference Attacks
  From First Principles": :func:`tpr_at_fpr`;
* a statistically valid lower bound on the ``epsilon`` of an ``(epsilon, delta)``-DP generator
  (Jagielski, Ullman & Oprea 2020, "Auditing Differentially Private Machine Learning: How Private
  is Private SGD?"; Nasr et al. 2021, "Adversary Instantiation: Lower Bounds for Differentially
  Private Machine Learning"): :func:`epsilon_at_threshold`, :func:`select_threshold`,
  :func:`audit_epsilon`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from numpy.typing import ArrayLike
from scipy import stats

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

__all__ = [
    "EpsilonBound",
    "OperatingPoint",
    "auc_with_ci",
    "audit_epsilon",
    "clopper_pearson",
    "epsilon_at_threshold",
    "one_sided_bounds",
    "roc_points",
    "select_threshold",
    "thin_curve",
    "tpr_at_fpr",
]


# --------------------------------------------------------------------------- validation helpers


def _check_confidence(confidence: float) -> None:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence!r}")


def _check_counts(k: int, n: int) -> None:
    if n < 0 or not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n, got k={k!r}, n={n!r}")


def _scores(values: ArrayLike, name: str) -> FloatArray:
    arr = np.asarray(values, dtype=np.float64).ravel()
    if np.isnan(arr).any():
        raise ValueError(f"{name} contains NaN")
    return arr


def _nonempty(scores_in: ArrayLike, scores_out: ArrayLike) -> tuple[FloatArray, FloatArray]:
    s_in, s_out = _scores(scores_in, "scores_in"), _scores(scores_out, "scores_out")
    if s_in.size == 0 or s_out.size == 0:
        raise ValueError("both scores_in and scores_out must be non-empty")
    return s_in, s_out


# --------------------------------------------------------------------------- Clopper-Pearson


def _lower_bounds(k: IntArray, n: int, level: float) -> FloatArray:
    """One-sided Clopper-Pearson lower bounds of ``k / n`` at ``level`` (vectorised over ``k``)."""
    a = np.maximum(k, 1).astype(np.float64)  # k = 0 is masked below; avoid beta(0, .)
    out = np.asarray(stats.beta.ppf(1.0 - level, a, n - k + 1.0), dtype=np.float64)
    return np.where(k == 0, 0.0, out)


def _upper_bounds(k: IntArray, n: int, level: float) -> FloatArray:
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
    _check_confidence(confidence)
    _check_counts(k, n)
    if n == 0:
        return 0.0, 1.0
    level = 1.0 - (1.0 - confidence) / 2.0
    kk = np.array([k], dtype=np.int64)
    return float(_lower_bounds(kk, n, level)[0]), float(_upper_bounds(kk, n, level)[0])


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
    _check_confidence(confidence)
    _check_counts(k, n)
    if n == 0:
        return 0.0, 1.0
    kk = np.array([k], dtype=np.int64)
    return float(_lower_bounds(kk, n, confidence)[0]), float(_upper_bounds(kk, n, confidence)[0])


# --------------------------------------------------------------------------- ROC and AUC


def _roc_counts(s_in: FloatArray, s_out: FloatArray) -> tuple[IntArray, IntArray, FloatArray]:
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
    s_in, s_out = _nonempty(scores_in, scores_out)
    tp, fp, thresholds = _roc_counts(s_in, s_out)
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
    _check_confidence(confidence)
    s_in, s_out = _scores(scores_in, "scores_in"), _scores(scores_out, "scores_out")
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
    _check_confidence(confidence)
    s_in, s_out = _nonempty(scores_in, scores_out)
    tp, fp, thresholds = _roc_counts(s_in, s_out)
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


# --------------------------------------------------------------------------- epsilon lower bound


@dataclass(frozen=True)
class EpsilonBound:
    """Lower bound on the epsilon of an (epsilon, delta)-DP mechanism from one threshold test.

    Attributes
    ----------
    epsilon_lb
        The lower bound on epsilon, holding with probability ``>= confidence`` (``>= 0``).
    epsilon_point
        The same formula with the point estimates ``tp / n_in`` and ``fp / n_out`` (may be inf).
    threshold
        The test is "member iff score >= threshold".
    tp, fp, n_in, n_out
        IN games called member, OUT games called member, and the numbers of games.
    tpr_low, fpr_high
        One-sided Clopper-Pearson bounds used, each at ``1 - (1 - confidence) / 2``.
    confidence, delta
        As requested.
    """

    epsilon_lb: float
    epsilon_point: float
    threshold: float
    tp: int
    fp: int
    n_in: int
    n_out: int
    tpr_low: float
    fpr_high: float
    confidence: float
    delta: float


def _safe_log_ratio(num: FloatArray, den: FloatArray) -> FloatArray:
    """``log(num / den)`` where ``num > 0`` (``+inf`` if ``den = 0``), ``-inf`` where ``num <= 0``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.inf)
        return np.where(num > 0, np.log(np.where(num > 0, ratio, 1.0)), -np.inf)


def _epsilon_formula(tpr: FloatArray, fpr: FloatArray, delta: float) -> FloatArray:
    """``max(log((TPR - delta) / FPR), log((1 - FPR - delta) / (1 - TPR)))``, unclipped."""
    return np.maximum(_safe_log_ratio(tpr - delta, fpr), _safe_log_ratio(1.0 - fpr - delta, 1.0 - tpr))


def _bounds_for_counts(
    tp: IntArray, fp: IntArray, n_in: int, n_out: int, delta: float, confidence: float
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """(unclipped epsilon lower bound, TPR_lo, FPR_hi) for arrays of counts."""
    level = 1.0 - (1.0 - confidence) / 2.0
    tpr_lo = _lower_bounds(tp, n_in, level)
    fpr_hi = _upper_bounds(fp, n_out, level)
    return _epsilon_formula(tpr_lo, fpr_hi, delta), tpr_lo, fpr_hi


def _check_delta(delta: float) -> None:
    if not 0.0 <= delta < 1.0:
        raise ValueError(f"delta must lie in [0, 1), got {delta!r}")


def epsilon_at_threshold(
    scores_in: ArrayLike, scores_out: ArrayLike, threshold: float, delta: float, confidence: float
) -> EpsilonBound:
    """Lower bound on epsilon from the test "member iff score >= threshold".

    Following Jagielski, Ullman & Oprea (2020) and Nasr et al. (2021): if the generator is
    ``(epsilon, delta)``-DP, every test ``T`` (with its complement) satisfies

    ``TPR <= e^eps FPR + delta``  and  ``TNR <= e^eps FNR + delta``,

    i.e. ``1 - FPR <= e^eps (1 - TPR) + delta``, so that

    ``eps >= log((TPR - delta) / FPR)``  and  ``eps >= log((1 - FPR - delta) / (1 - TPR))``.

    Both right-hand sides increase in TPR and decrease in FPR. With ``TPR_lo`` the one-sided
    lower Clopper-Pearson bound of ``tp / n_in`` and ``FPR_hi`` the one-sided upper bound of
    ``fp / n_out``, each at level ``1 - (1 - confidence) / 2``, the event
    ``{TPR >= TPR_lo and FPR <= FPR_hi}`` has probability ``>= confidence`` (union bound), and on
    it

    ``eps_lb = max(0, log((TPR_lo - delta) / FPR_hi), log((1 - FPR_hi - delta) / (1 - TPR_lo)))``

    is a valid lower bound. (The complement test needs no separate intervals: the lower CP bound
    of ``TNR = (n_out - fp) / n_out`` is exactly ``1 - FPR_hi`` and the upper CP bound of
    ``FNR`` is exactly ``1 - TPR_lo``.) A log of a non-positive number contributes nothing;
    ``FPR_hi > 0`` and ``TPR_lo < 1`` always, so ``eps_lb`` is finite. ``epsilon_point`` applies
    the same formula to ``tp / n_in`` and ``fp / n_out`` (inf when e.g. ``fp = 0 < tp``).

    The first inequality is DP applied to the event "T says member", the second to its
    complement "T says non-member" with the roles of the IN and OUT worlds exchanged. The two
    remaining inequalities of DP (``FPR - delta <= e^eps TPR`` and ``FNR - delta <= e^eps TNR``)
    only bind for attacks whose scores are *lower* for members; they are not used, since by
    convention a higher score means "member" (they would also need the opposite one-sided bounds
    and a four-way union bound). Negate the scores of such an attack before auditing it.

    The bound is valid only if ``threshold`` was not chosen using these games; see
    :func:`audit_epsilon`.

    Parameters
    ----------
    scores_in, scores_out
        Attack scores of the IN and OUT games (both non-empty).
    threshold
        Decision threshold.
    delta
        The delta of the DP guarantee being audited, in ``[0, 1)``.
    confidence
        Probability with which ``epsilon_lb`` is a lower bound, in ``(0, 1)``.

    Returns
    -------
    EpsilonBound
    """
    _check_confidence(confidence)
    _check_delta(delta)
    s_in, s_out = _nonempty(scores_in, scores_out)
    n_in, n_out = s_in.size, s_out.size
    tp = int(np.count_nonzero(s_in >= threshold))
    fp = int(np.count_nonzero(s_out >= threshold))
    raw, tpr_lo, fpr_hi = _bounds_for_counts(
        np.array([tp], dtype=np.int64), np.array([fp], dtype=np.int64), n_in, n_out, delta, confidence
    )
    point = _epsilon_formula(np.array([tp / n_in]), np.array([fp / n_out]), delta)
    return EpsilonBound(
        epsilon_lb=max(0.0, float(raw[0])),
        epsilon_point=max(0.0, float(point[0])),
        threshold=float(threshold),
        tp=tp,
        fp=fp,
        n_in=n_in,
        n_out=n_out,
        tpr_low=float(tpr_lo[0]),
        fpr_high=float(fpr_hi[0]),
        confidence=float(confidence),
        delta=float(delta),
    )


def select_threshold(scores_in: ArrayLike, scores_out: ArrayLike, delta: float, confidence: float) -> float:
    """The threshold maximising :func:`epsilon_at_threshold`'s bound on these games.

    Candidates are the distinct scores (``+inf``, the empty test, is excluded). The objective is
    the bound *before* clipping at 0, so that among tests that all give ``epsilon_lb = 0`` the
    least bad one is still preferred; ties go to the largest threshold.

    Parameters
    ----------
    scores_in, scores_out
        Attack scores of the IN and OUT games (both non-empty).
    delta, confidence
        As in :func:`epsilon_at_threshold`.

    Returns
    -------
    float
        The selected threshold.
    """
    _check_confidence(confidence)
    _check_delta(delta)
    s_in, s_out = _nonempty(scores_in, scores_out)
    tp, fp, thresholds = _roc_counts(s_in, s_out)
    raw, _, _ = _bounds_for_counts(tp[1:], fp[1:], s_in.size, s_out.size, delta, confidence)
    return float(thresholds[1:][int(np.argmax(raw))])


def audit_epsilon(
    scores_in: ArrayLike,
    scores_out: ArrayLike,
    *,
    delta: float,
    confidence: float,
    rng: np.random.Generator,
    selection_fraction: float = 0.5,
) -> EpsilonBound:
    """Honest epsilon lower bound with the threshold chosen on held-out games.

    The IN games and the OUT games are each split at random (``rng``: first a permutation of the
    IN games, then one of the OUT games) into a selection part of ``round(selection_fraction * n)``
    games and an evaluation part with the rest. The threshold is picked on the selection part
    (:func:`select_threshold`) and the bound computed on the evaluation part only
    (:func:`epsilon_at_threshold`), as in Jagielski et al. (2020) and Nasr et al. (2021).
    Choosing the threshold on the same games the bound is computed from would make the bound
    optimistic: the maximum over many thresholds of bounds each valid at ``confidence`` is not
    itself valid at ``confidence``.

    Parameters
    ----------
    scores_in, scores_out
        Attack scores of the IN and OUT games; each needs at least 2 games so that both parts
        are non-empty.
    delta, confidence
        As in :func:`epsilon_at_threshold`.
    rng
        Source of the random split.
    selection_fraction
        Share of the games used to select the threshold, in ``(0, 1)``.

    Returns
    -------
    EpsilonBound
        Computed on the evaluation games (its ``n_in`` and ``n_out`` count those only).
    """
    if not 0.0 < selection_fraction < 1.0:
        raise ValueError(f"selection_fraction must lie in (0, 1), got {selection_fraction!r}")
    s_in, s_out = _nonempty(scores_in, scores_out)
    parts = []
    for s in (s_in, s_out):
        n_sel = int(round(selection_fraction * s.size))
        if not 1 <= n_sel < s.size:
            raise ValueError(
                f"cannot split {s.size} games into non-empty selection and evaluation parts "
                f"with selection_fraction={selection_fraction}"
            )
        perm = rng.permutation(s.size)
        parts.append((s[perm[:n_sel]], s[perm[n_sel:]]))
    (sel_in, eval_in), (sel_out, eval_out) = parts
    threshold = select_threshold(sel_in, sel_out, delta, confidence)
    return epsilon_at_threshold(eval_in, eval_out, threshold, delta, confidence)


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
