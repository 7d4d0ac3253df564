"""ml_efficacy (spec/metrics.md U1/U2): TSTR vs TRTR ROC AUC."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from harness.checks import ContractData, contract_data
from harness.errors import ConfigError, IncomputableMetricError
from harness.instantiate import build_metric
from metrics.utility.ml_efficacy import MlEfficacy, _roc_auc


@pytest.fixture(scope="module")
def adult() -> ContractData:
    return contract_data("adult", n_train=400, n_control=10, n_test=400, seed=1)


@pytest.mark.parametrize("classifier", ["random_forest", "logistic_regression"])
def test_identical_data_has_zero_pct_diff(adult: ContractData, classifier: str) -> None:
    out = MlEfficacy(classifier=classifier).compute(
        adult.train, adult.train.copy(), adult.spec, test=adult.test
    )
    assert out["roc_auc"].value == out["roc_auc"].baseline
    assert out["roc_auc"].value > 0.75  # Adult is easy
    assert out["pct_diff"].value == pytest.approx(0.0, abs=1e-9)
    details = out["roc_auc"].details
    assert details["tstr_roc_auc"] == details["trtr_roc_auc"] == out["roc_auc"].value
    assert details["averaging"] == "binary"


def test_random_labels_score_near_one_half(adult: ContractData) -> None:
    synthetic = adult.train.copy()
    labels = synthetic[adult.spec.target].to_numpy()
    synthetic[adult.spec.target] = np.random.default_rng(0).permutation(labels)
    out = MlEfficacy().compute(adult.train, synthetic, adult.spec, test=adult.test, seed=0)
    assert abs(out["roc_auc"].value - 0.5) < 0.1
    trtr = out["roc_auc"].baseline
    assert out["pct_diff"].value == pytest.approx(100 * (out["roc_auc"].value - trtr) / trtr)
    assert out["pct_diff"].value < -20


def test_single_class_release_is_a_constant_classifier(adult: ContractData) -> None:
    synthetic = adult.train.assign(**{adult.spec.target: ">50K"})
    out = MlEfficacy().compute(adult.train, synthetic, adult.spec, test=adult.test)
    assert out["roc_auc"].value == 0.5
    assert "constant classifier" in out["roc_auc"].details["tstr_note"]


def test_row_order_does_not_matter(adult: ContractData) -> None:
    shuffled = adult.train.sample(frac=1.0, random_state=4).reset_index(drop=True)
    metric = MlEfficacy(n_estimators=30)
    a = metric.compute(adult.train, adult.train.head(200), adult.spec, test=adult.test, seed=2)
    b = metric.compute(adult.train, shuffled.head(200), adult.spec, test=adult.test, seed=2)
    c = metric.compute(shuffled, adult.train.head(200).iloc[::-1], adult.spec, test=adult.test, seed=2)
    assert a["roc_auc"].baseline == c["roc_auc"].baseline  # TRTR: same rows, other order
    assert a["roc_auc"].value == c["roc_auc"].value
    assert b["roc_auc"].baseline == a["roc_auc"].baseline


def test_multiclass_macro_one_vs_rest(adult: ContractData) -> None:
    spec = dataclasses.replace(adult.spec, target="race", task="multiclass")
    out = MlEfficacy(classifier="logistic_regression").compute(
        adult.train, adult.train, spec, test=adult.test
    )
    assert out["roc_auc"].details["averaging"] == "macro_ovr"
    assert 0.5 < out["roc_auc"].value <= 1.0


def test_roc_auc_helper_matches_sklearn() -> None:
    rng = np.random.default_rng(0)
    classes = ["a", "b", "c"]
    y = np.array(classes)[rng.integers(0, 3, 200)]
    proba = rng.dirichlet(np.ones(3), size=200)
    expected = roc_auc_score(y, proba, multi_class="ovr", average="macro", labels=classes)
    assert _roc_auc(y, proba, classes, classes) == pytest.approx(expected, abs=1e-12)
    # binary: probability of the last sorted class
    yb = np.where(y == "a", "a", "b")
    pb = proba[:, :2] / proba[:, :2].sum(axis=1, keepdims=True)
    assert _roc_auc(yb, pb, ["a", "b"], ["a", "b"]) == roc_auc_score(yb == "b", pb[:, 1])
    # a class the model never saw scores a constant 0 in one-vs-rest
    assert 0.0 <= _roc_auc(y, pb, ["a", "b"], classes) <= 1.0


def test_regression_and_one_class_test_are_incomputable(adult: ContractData) -> None:
    spec = dataclasses.replace(adult.spec, target="age", task="regression")
    with pytest.raises(IncomputableMetricError, match="regression"):
        MlEfficacy().compute(adult.train, adult.train, spec, test=adult.test)
    one_class = adult.test.assign(**{adult.spec.target: "<=50K"})
    with pytest.raises(IncomputableMetricError, match="test split has 1 class"):
        MlEfficacy().compute(adult.train, adult.train, adult.spec, test=one_class)


def test_params() -> None:
    assert build_metric("ml_efficacy").get_params() == {"classifier": "random_forest", "n_estimators": 100}
    with pytest.raises(ConfigError, match="`classifier` must be one of"):
        MlEfficacy(classifier="svm").validate_params()
    with pytest.raises(ConfigError, match="`n_estimators` must be an integer >= 1"):
        MlEfficacy(n_estimators=0).validate_params()
