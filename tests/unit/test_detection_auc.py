"""detection_auc (spec/metrics.md F3)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import StratifiedKFold
from xgboost import XGBClassifier

from harness.checks import ContractData, contract_data, uniform_release
from harness.encoding import TableEncoder, canonical_row_order
from harness.errors import ConfigError, IncomputableMetricError
from harness.instantiate import build_metric
from metrics.fidelity.detection_auc import DetectionAUC


@pytest.fixture(scope="module")
def adult() -> ContractData:
    return contract_data("adult", n_train=200, n_control=100, n_test=100, seed=0)


def test_matches_a_direct_cross_validation(adult: ContractData) -> None:
    degraded = uniform_release(adult.train, adult.spec, seed=0)
    out = DetectionAUC(group_duplicates=False).compute(adult.train, degraded, adult.spec, seed=7)
    real, syn = canonical_row_order(adult.train), canonical_row_order(degraded)
    enc = TableEncoder(adult.spec).fit(real, syn)
    x = np.vstack([enc.transform(real), enc.transform(syn)])
    y = np.r_[np.zeros(len(real)), np.ones(len(syn))]
    aucs = []
    for tr, te in StratifiedKFold(5, shuffle=True, random_state=7).split(x, y):
        model = XGBClassifier(random_state=7, n_jobs=1).fit(x[tr], y[tr])
        aucs.append(roc_auc_score(y[te], model.predict_proba(x[te])[:, 1]))
    assert out["auc"].value == pytest.approx(np.mean(aucs), abs=1e-12)
    assert out["auc_gap"].value == pytest.approx(abs(np.mean(aucs) - 0.5), abs=1e-12)
    assert out["auc_gap"].goal == "minimise" and out["auc"].goal is None
    assert out["auc"].value > 0.8  # a uniform release is easy to detect
    assert len(out["auc"].details["fold_auc"]) == 5


def test_a_copy_of_the_training_rows_is_indistinguishable(adult: ContractData) -> None:
    grouped = DetectionAUC().compute(adult.train, adult.train.copy(), adult.spec, seed=0)
    assert grouped["auc"].value == pytest.approx(0.5, abs=0.05)
    plain = DetectionAUC(group_duplicates=False).compute(adult.train, adult.train.copy(), adult.spec, seed=0)
    assert plain["auc"].value < 0.2  # twins with the other label in the training folds invert the model


def test_holdout_is_hard_to_detect(adult: ContractData) -> None:
    out = DetectionAUC().compute(adult.train, adult.test, adult.spec, seed=0)
    assert out["auc_gap"].value < 0.2


def test_too_few_rows_is_incomputable(adult: ContractData) -> None:
    with pytest.raises(IncomputableMetricError, match="5-fold"):
        DetectionAUC().compute(adult.train, adult.test.iloc[:3], adult.spec)


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"n_folds": 1}, "`n_folds` must be an integer >= 2"),
        ({"max_rows": 0}, "`max_rows` must be null or an integer >= 2"),
        ({"n_jobs": 0}, "`n_jobs` must be an integer >= 1"),
        ({"group_duplicates": "yes"}, "`group_duplicates` must be true or false"),
    ],
)
def test_bad_params_are_one_line_config_errors(params, match: str) -> None:
    with pytest.raises(ConfigError, match=match) as err:
        DetectionAUC(**params).validate_params()
    assert "\n" not in str(err.value)


def test_built_from_yaml() -> None:
    assert build_metric("detection_auc").get_params() == {
        "n_folds": 5,
        "group_duplicates": True,
        "max_rows": None,
        "n_jobs": 1,
    }
