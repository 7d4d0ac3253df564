"""Tests of harness.audit (binomial, roc, epsilon): exact intervals, ROC/AUC, TPR at low FPR, epsilon lower bounds."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import roc_auc_score, roc_curve

from harness.audit.binomial import clopper_pearson, one_sided_bounds
from harness.audit.epsilon import EpsilonBound, audit_epsilon, epsilon_at_threshold, select_threshold
from harness.audit.roc import auc_with_ci, roc_points, thin_curve, tpr_at_fpr

E = math.e


def _randomized_response(rng: np.random.Generator, n: int, eps: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """IN games output 1 w.p. e^eps/(1+e^eps), OUT games w.p. 1/(1+e^eps): exactly eps-DP, tight."""
    p_in = math.exp(eps) / (1 + math.exp(eps))
    scores_in = (rng.random(n) < p_in).astype(float)
    scores_out = (rng.random(n) < 1 - p_in).astype(float)
    return scores_in, scores_out


# --------------------------------------------------------------------------- 1. Clopper-Pearson


@pytest.mark.parametrize("k,n", [(0, 1), (1, 1), (0, 10), (3, 10), (10, 10), (17, 250), (249, 250)])
@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.99])
def test_clopper_pearson_matches_scipy_binomtest(k: int, n: int, confidence: float) -> None:
    expected = stats.binomtest(k, n).proportion_ci(confidence_level=confidence, method="exact")
    low, high = clopper_pearson(k, n, confidence)
    assert low == pytest.approx(expected.low, rel=1e-9, abs=1e-12)
    assert high == pytest.approx(expected.high, rel=1e-9, abs=1e-12)
    if k == 0:
        assert low == 0.0
    if k == n:
        assert high == 1.0


def test_clopper_pearson_empty_and_invalid() -> None:
    assert clopper_pearson(0, 0, 0.95) == (0.0, 1.0)
    assert one_sided_bounds(0, 0, 0.95) == (0.0, 1.0)
    with pytest.raises(ValueError):
        clopper_pearson(3, 2, 0.95)
    with pytest.raises(ValueError):
        clopper_pearson(1, 2, 1.0)


@pytest.mark.parametrize("k,n", [(0, 10), (3, 10), (10, 10), (40, 100)])
def test_one_sided_bounds_are_beta_quantiles(k: int, n: int) -> None:
    c = 0.95
    lower, upper = one_sided_bounds(k, n, c)
    exp_lower = 0.0 if k == 0 else stats.beta.ppf(1 - c, k, n - k + 1)
    exp_upper = 1.0 if k == n else stats.beta.ppf(c, k + 1, n - k)
    assert lower == pytest.approx(exp_lower, rel=1e-12, abs=1e-15)
    assert upper == pytest.approx(exp_upper, rel=1e-12, abs=1e-15)
    # a two-sided interval at c is the pair of one-sided bounds at 1 - (1 - c) / 2
    assert clopper_pearson(k, n, c) == pytest.approx(one_sided_bounds(k, n, 1 - (1 - c) / 2))


# --------------------------------------------------------------------------- 2. ROC and AUC


def test_roc_points_and_auc_match_sklearn_with_ties() -> None:
    rng = np.random.default_rng(1)
    s_in = np.round(rng.normal(0.7, 1.0, 300), 1)  # rounding makes many ties, within and across groups
    s_out = np.round(rng.normal(0.0, 1.0, 400), 1)
    fpr, tpr, thr = roc_points(s_in, s_out)
    y = np.r_[np.ones(s_in.size), np.zeros(s_out.size)]
    s = np.r_[s_in, s_out]
    sk_fpr, sk_tpr, sk_thr = roc_curve(y, s, drop_intermediate=False)
    np.testing.assert_allclose(fpr, sk_fpr)
    np.testing.assert_allclose(tpr, sk_tpr)
    assert thr[0] == np.inf
    np.testing.assert_array_equal(thr[1:], sk_thr[1:])
    assert (fpr[0], tpr[0], fpr[-1], tpr[-1]) == (0.0, 0.0, 1.0, 1.0)
    assert thr.size == np.unique(s).size + 1  # one point per distinct score
    auc, low, high = auc_with_ci(s_in, s_out, 0.95)
    assert auc == pytest.approx(roc_auc_score(y, s), abs=1e-12)
    assert 0.0 <= low < auc < high <= 1.0


def _hanley_mcneil_se(auc: float, n_in: int, n_out: int) -> float:
    q1, q2 = auc / (2 - auc), 2 * auc**2 / (1 + auc)
    var = auc * (1 - auc) + (n_in - 1) * (q1 - auc**2) + (n_out - 1) * (q2 - auc**2)
    return math.sqrt(var / (n_in * n_out))


def test_auc_ci_binormal_covers_truth_with_right_width() -> None:
    """IN ~ N(1, 1), OUT ~ N(0, 1): true AUC = Phi(1 / sqrt 2) ~ 0.760."""
    true_auc = float(stats.norm.cdf(1 / math.sqrt(2)))
    rng = np.random.default_rng(2)
    n = 1000
    auc, low, high = auc_with_ci(rng.normal(1, 1, n), rng.normal(0, 1, n), 0.95)
    assert low <= true_auc <= high
    # width ~ 2 z se, with se ~ the Hanley & McNeil (1982) value (~0.011 here)
    expected_width = 2 * 1.959964 * _hanley_mcneil_se(true_auc, n, n)
    assert (high - low) == pytest.approx(expected_width, rel=0.15)
    # coverage over repeated small experiments is close to nominal
    reps, m = 200, 150
    covered = 0
    for _ in range(reps):
        _, lo, hi = auc_with_ci(rng.normal(1, 1, m), rng.normal(0, 1, m), 0.95)
        covered += lo <= true_auc <= hi
    assert 0.89 <= covered / reps <= 0.995


def test_auc_empty_side_is_nan() -> None:
    for result in (auc_with_ci([], [1.0, 2.0], 0.95), auc_with_ci([1.0], [], 0.95)):
        assert all(math.isnan(v) for v in result)


# --------------------------------------------------------------------------- 3. TPR at low FPR


def test_tpr_at_fpr_hand_example() -> None:
    scores_out = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]  # n_out = 10
    scores_in = [1.5, 0.95, 0.85, 0.75, 0.65, 0.05]  # n_in = 6
    p0, p005, p01, p03, p1 = tpr_at_fpr(scores_in, scores_out, [0.0, 0.05, 0.1, 0.3, 1.0], 0.95)
    # FPR 0: only the threshold 1.5 keeps every OUT game out -> TP 1
    assert (p0.tpr, p0.fpr, p0.threshold) == (pytest.approx(1 / 6), 0.0, 1.5)
    # FPR 0.05 < 1/n_out: below the audit's resolution, same point as FPR 0
    assert not p005.resolvable and p0.resolvable is False
    assert (p005.tpr, p005.fpr, p005.threshold) == (p0.tpr, 0.0, 1.5)
    # FPR 0.1: threshold 0.95 lets in OUT 1.0 (FP 1) and IN 1.5, 0.95 (TP 2)
    assert p01.resolvable
    assert (p01.tpr, p01.fpr, p01.threshold) == (pytest.approx(2 / 6), pytest.approx(0.1), 0.95)
    # FPR 0.3: threshold 0.75 -> FP 3 (0.8, 0.9, 1.0), TP 4; 0.7 would give FP 4
    assert (p03.tpr, p03.fpr, p03.threshold) == (pytest.approx(4 / 6), pytest.approx(0.3), 0.75)
    assert (p03.tpr_low, p03.tpr_high) == clopper_pearson(4, 6, 0.95)
    assert p03.fpr_level == 0.3
    assert (p1.tpr, p1.fpr, p1.threshold) == (1.0, 1.0, 0.05)


def test_tpr_at_fpr_no_finite_threshold_and_resolution() -> None:
    points = tpr_at_fpr([0.5, 0.6], [1.0] + [0.0] * 99, [0.001, 0.01], 0.9)
    assert points[0].threshold == math.inf and points[0].tpr == 0.0 and points[0].tpr_low == 0.0
    assert [p.resolvable for p in points] == [False, True]  # 100 * 0.001 < 1 <= 100 * 0.01
    assert points[1].threshold == 0.5 and points[1].tpr == 1.0 and points[1].fpr == pytest.approx(0.01)


# --------------------------------------------------------------------------- 4. calibration: randomized response


def test_randomized_response_eps1_bound_is_tight_and_valid() -> None:
    """Randomized response at eps = 1 with 20,000 IN and 20,000 OUT games, confidence 0.95, delta 0.

    The optimal test has TPR / FPR = e exactly, so the bound must be <= 1 (validity) and
    >= 1 / 1.25 = 0.8 (tightness: within a factor 1.25 of the truth; with 10,000 evaluation games
    per side the expected bound is ~0.955).
    """
    rng = np.random.default_rng(2024)
    s_in, s_out = _randomized_response(rng, 20_000)
    bound = audit_epsilon(s_in, s_out, delta=0.0, confidence=0.95, rng=rng)
    assert 1 / 1.25 <= bound.epsilon_lb <= 1.0
    assert bound.threshold == 1.0
    assert (bound.n_in, bound.n_out) == (10_000, 10_000)
    assert bound.epsilon_point == pytest.approx(1.0, abs=0.1)


def test_randomized_response_bound_holds_at_its_confidence() -> None:
    """200 independent audits of 2,000 games per side: P(epsilon_lb > 1) <= 0.05 by construction.

    With 200 audits, a true rate of 0.05 exceeds 0.09 with probability ~1%; the conservative
    Clopper-Pearson bounds make the actual rate much smaller.
    """
    rng = np.random.default_rng(7)
    n_audits = 200
    exceed = 0
    bounds = []
    for _ in range(n_audits):
        s_in, s_out = _randomized_response(rng, 2_000)
        lb = audit_epsilon(s_in, s_out, delta=0.0, confidence=0.95, rng=rng).epsilon_lb
        bounds.append(lb)
        exceed += lb > 1.0
    assert exceed / n_audits <= 0.09
    assert np.mean(bounds) > 0.7  # and the bound is not vacuous


# --------------------------------------------------------------------------- 5. Laplace mechanism


def test_laplace_count_eps1() -> None:
    """Laplace mechanism on a count (sensitivity 1, scale 1, so eps = 1): IN = 1 + Lap(1), OUT = Lap(1).

    20,000 games per side (10,000 evaluated), confidence 0.95: 0.5 < bound <= 1.
    """
    rng = np.random.default_rng(11)
    n = 20_000
    s_in, s_out = 1.0 + rng.laplace(0.0, 1.0, n), rng.laplace(0.0, 1.0, n)
    bound = audit_epsilon(s_in, s_out, delta=0.0, confidence=0.95, rng=rng)
    assert 0.5 < bound.epsilon_lb <= 1.0


# --------------------------------------------------------------------------- 6. perfect attack


def _perfect_attack_closed_form(n: int, confidence: float) -> float:
    """tp = n_in = n and fp = 0: TPR_lo = (alpha/2)^(1/n) and FPR_hi = 1 - (alpha/2)^(1/n)."""
    p_lo = ((1 - confidence) / 2) ** (1 / n)
    return math.log(p_lo / (1 - p_lo))


@pytest.mark.parametrize("n", [10, 100, 1000])
def test_perfect_attack_closed_form(n: int) -> None:
    c = 0.95
    s_in, s_out = np.ones(n), np.zeros(n)
    bound = epsilon_at_threshold(s_in, s_out, 1.0, 0.0, c)
    assert (bound.tp, bound.fp, bound.n_in, bound.n_out) == (n, 0, n, n)
    assert bound.epsilon_lb == pytest.approx(_perfect_attack_closed_form(n, c), rel=1e-10)
    assert bound.tpr_low == pytest.approx(((1 - c) / 2) ** (1 / n), rel=1e-12)
    assert bound.fpr_high == pytest.approx(1 - ((1 - c) / 2) ** (1 / n), rel=1e-10)
    assert bound.epsilon_point == math.inf
    assert select_threshold(s_in, s_out, 0.0, c) == 1.0
    # via the honest audit: n evaluation games per side out of 2n
    audited = audit_epsilon(
        np.ones(2 * n), np.zeros(2 * n), delta=0.0, confidence=c, rng=np.random.default_rng(0)
    )
    assert audited.epsilon_lb == pytest.approx(bound.epsilon_lb, rel=1e-12)


def test_perfect_attack_bound_grows_with_n() -> None:
    lbs = [
        epsilon_at_threshold(np.ones(n), np.zeros(n), 1.0, 0.0, 0.95).epsilon_lb
        for n in (10, 100, 1000, 10_000)
    ]
    assert all(a < b for a, b in zip(lbs, lbs[1:], strict=False))
    assert lbs[-1] == pytest.approx(_perfect_attack_closed_form(10_000, 0.95))


# --------------------------------------------------------------------------- 7. delta, reproducibility, edge cases


def test_delta_lowers_the_bound() -> None:
    s_in, s_out = _randomized_response(np.random.default_rng(3), 5_000)
    b0 = epsilon_at_threshold(s_in, s_out, 1.0, 0.0, 0.95)
    b1 = epsilon_at_threshold(s_in, s_out, 1.0, 0.05, 0.95)
    assert 0 < b1.epsilon_lb < b0.epsilon_lb
    # the formula, written out
    t, f = b1.tpr_low, b1.fpr_high
    expected = max(0.0, math.log((t - 0.05) / f), math.log((1 - f - 0.05) / (1 - t)))
    assert b1.epsilon_lb == pytest.approx(expected)
    # a delta that swallows the TPR gives 0
    assert epsilon_at_threshold(s_in, s_out, 1.0, 0.8, 0.95).epsilon_lb == 0.0


def test_audit_is_reproducible() -> None:
    s_in, s_out = _randomized_response(np.random.default_rng(4), 3_000)
    a = audit_epsilon(s_in, s_out, delta=1e-5, confidence=0.9, rng=np.random.default_rng(99))
    b = audit_epsilon(s_in, s_out, delta=1e-5, confidence=0.9, rng=np.random.default_rng(99))
    assert isinstance(a, EpsilonBound) and a == b
    assert (a.confidence, a.delta) == (0.9, 1e-5)


def test_second_inequality_is_used() -> None:
    """IN always scores 1, OUT half 0 and half 1: at threshold 1, TPR = 1 and FPR = 0.5.

    The first inequality gives at most log 2, the second (TNR - delta <= e^eps FNR) is unbounded
    since FNR = 0; the bound comes from the second one.
    """
    n = 1_000
    s_in, s_out = np.ones(n), np.r_[np.zeros(n // 2), np.ones(n // 2)]
    b = epsilon_at_threshold(s_in, s_out, 1.0, 0.0, 0.95)
    assert b.epsilon_point == math.inf
    second = math.log((1 - b.fpr_high) / (1 - b.tpr_low))
    assert math.log(b.tpr_low / b.fpr_high) < math.log(2) < second
    assert b.epsilon_lb == pytest.approx(second)


def test_score_direction_convention() -> None:
    """Higher score = member. An attack whose scores are anti-correlated with membership gets a 0
    bound from 'member iff score >= t' tests; negating its scores recovers the bound."""
    s_in, s_out = _randomized_response(np.random.default_rng(5), 5_000)
    direct = epsilon_at_threshold(s_in, s_out, 1.0, 0.0, 0.95)
    assert direct.epsilon_lb > 0.8
    flipped_in, flipped_out = 1 - s_in, 1 - s_out
    assert epsilon_at_threshold(flipped_in, flipped_out, 1.0, 0.0, 0.95).epsilon_lb == 0.0
    negated = epsilon_at_threshold(-flipped_in, -flipped_out, 0.0, 0.0, 0.95)
    assert negated == dataclasses.replace(direct, threshold=0.0)


def test_no_signal_gives_zero_and_bad_inputs_raise() -> None:
    rng = np.random.default_rng(6)
    s = rng.normal(size=(2, 2_000))
    assert audit_epsilon(s[0], s[1], delta=0.0, confidence=0.95, rng=rng).epsilon_lb < 0.2
    with pytest.raises(ValueError):
        audit_epsilon([1.0], [0.0], delta=0.0, confidence=0.95, rng=rng)
    with pytest.raises(ValueError):
        epsilon_at_threshold([], [0.0], 0.5, 0.0, 0.95)
    with pytest.raises(ValueError):
        epsilon_at_threshold([1.0], [0.0], 0.5, 1.0, 0.95)


# --------------------------------------------------------------------------- 8. thin_curve


def test_thin_curve_large_roc() -> None:
    rng = np.random.default_rng(8)
    fpr, tpr, _ = roc_points(rng.normal(1, 1, 5_000), rng.normal(0, 1, 5_000))
    assert fpr.size > 5_000
    xs, ys = thin_curve(fpr, tpr, max_points=101)
    assert 50 <= len(xs) == len(ys) <= 101
    assert (xs[0], ys[0], xs[-1], ys[-1]) == (0.0, 0.0, 1.0, 1.0)
    assert all(a <= b for a, b in zip(xs, xs[1:], strict=False))
    assert all(a <= b for a, b in zip(ys, ys[1:], strict=False))
    assert all(type(v) is float for v in xs + ys)
    assert all(v == round(v, 6) for v in xs + ys)
    json.dumps({"fpr": xs, "tpr": ys})
    # log-spread: several points at FPR below 1% (a linear grid of 101 would give at most one)
    assert sum(0 < x < 0.01 for x in xs) >= 10
    # and linear-spread: points across the upper range too
    assert sum(x > 0.5 for x in xs) >= 10


def test_thin_curve_small_and_minimal() -> None:
    fpr, tpr, _ = roc_points([0.9, 0.8, 0.3], [0.5, 0.1])
    xs, ys = thin_curve(fpr, tpr)
    np.testing.assert_allclose(xs, np.round(fpr, 6))
    np.testing.assert_allclose(ys, np.round(tpr, 6))
    rng = np.random.default_rng(9)
    fpr, tpr, _ = roc_points(rng.normal(size=500), rng.normal(size=500))
    assert thin_curve(fpr, tpr, max_points=2) == ([0.0, 1.0], [0.0, 1.0])
    xs, ys = thin_curve(fpr, tpr, max_points=5)
    assert len(xs) <= 5 and (xs[0], xs[-1]) == (0.0, 1.0)
