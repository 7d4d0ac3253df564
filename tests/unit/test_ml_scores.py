"""ML-utility scores (spec/metrics.md U1) and pct_diff / rope_outcome (U2)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.metrics import balanced_accuracy_score, f1_score, r2_score, roc_auc_score

from metrics.utility.pct_diff import ROPE_CODES, pct_diff, rope_outcome
from metrics.utility.scores import (
    classification_score,
    g_mean,
    regression_score,
    roc_auc,
    roc_auc_reference,
    score_goal,
)


def test_pct_diff_formula() -> None:
    assert pct_diff(0.9, 0.8) == pytest.approx(12.5)
    assert pct_diff(0.72, 0.8) == pytest.approx(-10.0)
    assert pct_diff(0.8, 0.8) == 0.0
    assert pct_diff(-0.1, -0.2) == pytest.approx(
        50.0
    )  # a negative R² baseline: |R_b| keeps "better = positive"
    with pytest.raises(ZeroDivisionError):
        pct_diff(0.5, 0.0)


@pytest.mark.parametrize(
    ("diff", "expected"),
    [(1.0001, "win"), (1.0, "draw"), (0.0, "draw"), (-1.0, "draw"), (-1.0001, "lose"), (-50, "lose")],
)
def test_rope_outcome(diff: float, expected: str) -> None:
    assert rope_outcome(diff) == expected


def test_rope_outcome_for_error_scores_and_width() -> None:
    assert rope_outcome(-5.0, higher_is_better=False) == "win"
    assert rope_outcome(5.0, higher_is_better=False) == "lose"
    assert rope_outcome(2.0, half_width=3.0) == "draw"
    assert ROPE_CODES == {"win": 1, "draw": 0, "lose": -1}
    with pytest.raises(ValueError, match="NaN"):
        rope_outcome(math.nan)


def test_g_mean_hand_computed() -> None:
    y = np.array(["a", "a", "a", "a", "b", "b"])
    pred = np.array(["a", "a", "a", "b", "b", "a"])
    # recall(a) = 3/4, recall(b) = 1/2
    assert g_mean(y, pred, ["a", "b"]) == pytest.approx(math.sqrt(0.75 * 0.5))
    y3 = np.array(["a", "b", "c", "c"])
    p3 = np.array(["a", "b", "c", "a"])
    assert g_mean(y3, p3, ["a", "b", "c"]) == pytest.approx((1 * 1 * 0.5) ** (1 / 3))
    assert g_mean(y, np.full(6, "a"), ["a", "b"]) == 0.0  # a class never recalled


def test_classification_scores_match_sklearn() -> None:
    rng = np.random.default_rng(0)
    classes = ["neg", "pos"]
    y = np.array(classes)[rng.integers(0, 2, 300)]
    proba_pos = np.clip(0.3 * (y == "pos") + rng.random(300) * 0.7, 0, 1)
    proba = np.column_stack([1 - proba_pos, proba_pos])
    pred = np.where(proba_pos > 0.5, "pos", "neg")

    def score(name: str) -> float:
        return classification_score(name, y, pred, proba, classes, classes)

    assert score("roc_auc") == pytest.approx(roc_auc_score(y == "pos", proba_pos))
    assert score("f1") == pytest.approx(f1_score(y, pred, pos_label="pos"))
    assert score("f1_macro") == pytest.approx(f1_score(y, pred, average="macro"))
    assert score("accuracy") == pytest.approx(np.mean(y == pred))
    assert score("balanced_accuracy") == pytest.approx(balanced_accuracy_score(y, pred))
    ref = classification_score("roc_auc", y, pred, proba, classes, classes, auc_variant="reference")
    assert ref == pytest.approx(roc_auc_score(y == "pos", (pred == "pos").astype(float), max_fpr=0.001))
    assert ref == roc_auc_reference(y, pred, classes)


def test_multiclass_f1_is_macro_and_auc_is_macro_ovr() -> None:
    rng = np.random.default_rng(1)
    classes = ["a", "b", "c"]
    y = np.array(classes)[rng.integers(0, 3, 200)]
    proba = rng.dirichlet(np.ones(3), size=200)
    pred = np.array(classes)[proba.argmax(axis=1)]
    f1 = classification_score("f1", y, pred, proba, classes, classes)
    assert f1 == pytest.approx(f1_score(y, pred, average="macro"))
    expected = roc_auc_score(y, proba, multi_class="ovr", average="macro", labels=classes)
    assert roc_auc(y, proba, classes, classes) == pytest.approx(expected, abs=1e-12)
    # a class the model never saw scores a constant 0 in one-vs-rest
    assert 0.0 <= roc_auc(y, proba[:, :2], ["a", "b"], classes) <= 1.0


def test_regression_scores() -> None:
    y = np.array([1.0, 2.0, 3.0, 4.0])
    p = np.array([1.5, 2.0, 2.5, 5.0])
    assert regression_score("r2", y, p) == pytest.approx(r2_score(y, p))
    assert regression_score("rmse", y, p) == pytest.approx(math.sqrt((0.25 + 0 + 0.25 + 1) / 4))
    assert score_goal("rmse") == "minimise" and score_goal("r2") == "maximise"
