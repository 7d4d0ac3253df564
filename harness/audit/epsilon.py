"""A statistically valid lower bound on the ε of an (ε, δ)-DP generator from membership games
(Jagielski, Ullman & Oprea 2020, "Auditing Differentially Private Machine Learning: How Private
is Private SGD?"; Nasr et al. 2021, "Adversary Instantiation: Lower Bounds for Differentially
Private Machine Learning"). Conventions: see :mod:`harness.audit`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from harness.audit.binomial import (
    FloatArray,
    IntArray,
    check_confidence,
    lower_bounds,
    nonempty_scores,
    upper_bounds,
)
from harness.audit.roc import roc_counts

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
    tpr_lo = lower_bounds(tp, n_in, level)
    fpr_hi = upper_bounds(fp, n_out, level)
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
    check_confidence(confidence)
    _check_delta(delta)
    s_in, s_out = nonempty_scores(scores_in, scores_out)
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
    check_confidence(confidence)
    _check_delta(delta)
    s_in, s_out = nonempty_scores(scores_in, scores_out)
    tp, fp, thresholds = roc_counts(s_in, s_out)
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
    s_in, s_out = nonempty_scores(scores_in, scores_out)
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
