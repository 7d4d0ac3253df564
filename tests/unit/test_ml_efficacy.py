"""ml_efficacy (spec/metrics.md U1/U2): TSTR vs TRTR under the protocol presets."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

from harness.checks import ContractData, contract_data
from harness.errors import ConfigError, IncomputableMetricError
from harness.instantiate import build_metric
from metrics.utility.ml_efficacy import MlEfficacy

SMALL: dict[str, dict[str, Any]] = {
    "simple": {"classifiers": ["random_forest", "logistic_regression"], "n_estimators": 20},
    "carvalho2024": {
        "grid": "small",
        "cv_folds": 3,
        "cv_repeats": 1,
        "classifiers": ["random_forest", "logistic_regression"],
    },
    "almeida2024": {"grid": "small", "classifiers": ["naive_bayes", "decision_tree", "logistic_regression"]},
    "stadler": {},
    "miletic2024": {"grid": "small"},
}


@pytest.fixture(scope="module")
def adult() -> ContractData:
    return contract_data("adult", n_train=300, n_control=10, n_test=300, seed=1)


@pytest.mark.parametrize("protocol", sorted(SMALL))
def test_tstr_on_the_training_split_equals_trtr(adult: ContractData, protocol: str) -> None:
    metric = MlEfficacy(protocol=protocol, **SMALL[protocol])
    out = metric.compute(adult.train, adult.train.copy(), adult.spec, test=adult.test, seed=5)
    scored = [k for k in out if not k.endswith((":pct_diff", ":rope_outcome"))]
    assert scored
    for key in scored:
        assert out[key].value == out[key].baseline, key
    for key in (k for k in out if k.endswith(":pct_diff")):
        assert out[key].value == 0.0
        assert out[key.replace("pct_diff", "rope_outcome")].value == 0.0  # a draw


def test_default_outputs_and_adult_is_easy(adult: ContractData) -> None:
    out = MlEfficacy().compute(adult.train, adult.train, adult.spec, test=adult.test)
    assert set(out) == {"random_forest:roc_auc", "random_forest:pct_diff", "random_forest:rope_outcome"}
    assert out["random_forest:roc_auc"].value > 0.75
    assert out["random_forest:rope_outcome"].goal == "none"
    details = out["random_forest:roc_auc"].details
    assert details["protocol"] == "simple" and details["averaging"] == "binary"
    assert details["tstr_scores"] == details["trtr_scores"]


def test_random_labels_lose(adult: ContractData) -> None:
    synthetic = adult.train.copy()
    labels = synthetic[adult.spec.target].to_numpy()
    synthetic[adult.spec.target] = np.random.default_rng(0).permutation(labels)
    out = MlEfficacy(n_estimators=30).compute(adult.train, synthetic, adult.spec, test=adult.test, seed=0)
    auc = out["random_forest:roc_auc"]
    assert abs(auc.value - 0.5) < 0.1
    assert out["random_forest:pct_diff"].value == pytest.approx(
        100 * (auc.value - auc.baseline) / auc.baseline
    )
    assert out["random_forest:pct_diff"].value < -20
    assert out["random_forest:rope_outcome"].value == -1.0
    assert out["random_forest:rope_outcome"].details["outcome"] == "lose"


def test_summaries_over_classifiers(adult: ContractData) -> None:
    metric = MlEfficacy(
        classifiers=["random_forest", "naive_bayes", "decision_tree"],
        scores=["f1", "accuracy"],
        n_estimators=20,
    )
    out = metric.compute(adult.train, adult.train.head(150), adult.spec, test=adult.test, seed=1)
    tstr = {c: out[f"{c}:f1"].value for c in ("random_forest", "naive_bayes", "decision_tree")}
    trtr = {c: out[f"{c}:f1"].baseline for c in tstr}
    assert out["mean:f1"].value == pytest.approx(np.mean(list(tstr.values())))
    assert out["mean:f1"].baseline == pytest.approx(np.mean(list(trtr.values())))
    assert out["best:f1"].value == max(tstr.values()) and out["best:f1"].baseline == max(trtr.values())
    assert out["mean:pct_diff"].value == pytest.approx(
        100 * (out["mean:f1"].value / out["mean:f1"].baseline - 1)
    )
    assert "mean:accuracy" not in out  # summaries use the headline score only
    assert {"random_forest:accuracy", "best:rope_outcome", "mean:rope_outcome"} <= set(out)


def test_single_class_release_is_a_constant_classifier(adult: ContractData) -> None:
    synthetic = adult.train.assign(**{adult.spec.target: ">50K"})
    out = MlEfficacy(scores=["roc_auc", "accuracy"]).compute(
        adult.train, synthetic, adult.spec, test=adult.test
    )
    assert out["random_forest:roc_auc"].value == 0.5
    share = float(np.mean(adult.test[adult.spec.target].astype(str) == ">50K"))
    assert out["random_forest:accuracy"].value == pytest.approx(share)
    assert "constant classifier" in out["random_forest:roc_auc"].details["tstr_note"]


def test_row_order_does_not_matter(adult: ContractData) -> None:
    shuffled = adult.train.sample(frac=1.0, random_state=4).reset_index(drop=True)
    metric = MlEfficacy(
        protocol="carvalho2024", classifiers=["random_forest"], grid="small", cv_folds=3, cv_repeats=1
    )
    a = metric.compute(adult.train, adult.train.head(200), adult.spec, test=adult.test, seed=2)
    c = metric.compute(shuffled, adult.train.head(200).iloc[::-1], adult.spec, test=adult.test, seed=2)
    assert a["random_forest:roc_auc"].baseline == c["random_forest:roc_auc"].baseline
    assert a["random_forest:roc_auc"].value == c["random_forest:roc_auc"].value


def test_multiclass_target(adult: ContractData) -> None:
    spec = dataclasses.replace(adult.spec, target="race", task="multiclass")
    metric = MlEfficacy(classifiers=["logistic_regression"], scores=["roc_auc", "f1", "f1_macro", "g_mean"])
    out = metric.compute(adult.train, adult.train, spec, test=adult.test)
    assert out["logistic_regression:roc_auc"].details["averaging"] == "macro"
    assert 0.5 < out["logistic_regression:roc_auc"].value <= 1.0
    assert out["logistic_regression:f1"].value == out["logistic_regression:f1_macro"].value


def test_regression_target(adult: ContractData) -> None:
    spec = dataclasses.replace(adult.spec, target="hours-per-week", task="regression")
    metric = MlEfficacy(classifiers=["random_forest", "naive_bayes"], n_estimators=20)
    out = metric.compute(adult.train, adult.train.head(150), spec, test=adult.test, seed=0)
    assert {"random_forest:r2", "random_forest:rmse", "random_forest:pct_diff"} <= set(out)
    assert out["random_forest:rmse"].goal == "minimise" and out["random_forest:r2"].goal is None
    assert out["random_forest:rmse"].value > 0
    details = out["random_forest:r2"].details
    assert details["skipped_classifiers"] == {"naive_bayes": "no regression counterpart; skipped"}
    assert details["averaging"] == "regression"
    same = metric.compute(adult.train, adult.train, spec, test=adult.test, seed=0)
    assert same["random_forest:r2"].value == same["random_forest:r2"].baseline
    # an error score as headline: pct_diff > 0 means worse, so the rope flips
    rmse = MlEfficacy(scores=["rmse"], n_estimators=10).compute(
        adult.train, adult.train.head(60), spec, test=adult.test
    )
    diff = rmse["random_forest:pct_diff"]
    assert diff.goal == "minimise"
    expected = 1.0 if diff.value < -1 else (-1.0 if diff.value > 1 else 0.0)
    assert rmse["random_forest:rope_outcome"].value == expected


def test_miletic_regression_uses_r2(adult: ContractData) -> None:
    spec = dataclasses.replace(adult.spec, target="age", task="regression")
    out = MlEfficacy(protocol="miletic2024", grid="small").compute(
        adult.train, adult.train.head(150), spec, test=adult.test
    )
    assert set(out) == {"random_forest:r2", "random_forest:pct_diff", "random_forest:rope_outcome"}
    details = out["random_forest:r2"].details
    assert details["tstr_params"] == details["trtr_params"]  # tuned on the real training split
    assert details["tstr_note"] == "parameters tuned on the real training split"


def test_tuning_reference_is_at_least_as_good_as_inner_cv(adult: ContractData) -> None:
    kwargs: dict[str, Any] = {"protocol": "almeida2024", "classifiers": ["decision_tree"]}
    synthetic = adult.train.head(150)
    inner = MlEfficacy(**kwargs).compute(adult.train, synthetic, adult.spec, test=adult.test, seed=0)
    ref = MlEfficacy(tuning="reference", **kwargs).compute(
        adult.train, synthetic, adult.spec, test=adult.test, seed=0
    )
    assert ref["decision_tree:f1"].value >= inner["decision_tree:f1"].value
    assert ref["decision_tree:f1"].details["tstr_configs"] == 3
    assert inner["decision_tree:f1"].details["dropped_columns"] == ["fnlwgt"]
    assert "tstr_cv_score" in inner["decision_tree:f1"].details


def test_reference_grid_misspelling_fails_half_the_mlp_grid(adult: ContractData) -> None:
    metric = MlEfficacy(
        protocol="almeida2024",
        classifiers=["mlp"],
        grid="reference",
        tuning="reference",
        param_grid={"mlp": {"hidden_layer_sizes": [[4]], "max_iter": [30]}},
    )
    out = metric.compute(adult.train, adult.train.head(100), adult.spec, test=adult.test)
    details = out["mlp:f1"].details
    assert (details["tstr_configs"], details["tstr_failed_configs"]) == (2, 1)
    assert details["tstr_params"]["learning_rate"] == "constant"


def test_reference_encoding_and_auc_variant(adult: ContractData) -> None:
    metric = MlEfficacy(
        classifiers=["random_forest"], n_estimators=20, encoding="reference", auc_variant="reference"
    )
    out = metric.compute(adult.train, adult.train.head(150), adult.spec, test=adult.test)
    details = out["random_forest:roc_auc"].details
    assert details["encoding"] == "reference" and details["auc_variant"] == "reference"
    assert 0.0 <= out["random_forest:roc_auc"].value <= 1.0
    spec = dataclasses.replace(adult.spec, target="race", task="multiclass")
    with pytest.raises(IncomputableMetricError, match="needs a binary target"):
        metric.compute(adult.train, adult.train, spec, test=adult.test)


def test_incomputable_cases(adult: ContractData) -> None:
    one_class = adult.test.assign(**{adult.spec.target: "<=50K"})
    with pytest.raises(IncomputableMetricError, match="test split has 1 class"):
        MlEfficacy().compute(adult.train, adult.train, adult.spec, test=one_class)
    spec = dataclasses.replace(adult.spec, target="age", task="regression")
    with pytest.raises(IncomputableMetricError, match="do not apply to the regression target"):
        MlEfficacy(scores=["roc_auc"]).compute(adult.train, adult.train, spec, test=adult.test)
    with pytest.raises(IncomputableMetricError, match="regression counterpart"):
        MlEfficacy(classifiers=["naive_bayes"]).compute(adult.train, adult.train, spec, test=adult.test)


def test_default_params() -> None:
    params = build_metric("ml_efficacy").get_params()
    assert params["protocol"] == "simple" and params["classifiers"] is None and params["n_estimators"] == 100
    assert params["grid"] == "paper" and params["rope"] == 1.0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"protocol": "chen2025"}, "`protocol` must be one of"),
        ({"classifiers": ["svm"]}, "`classifiers` has unknown name"),
        ({"classifiers": "random_forest"}, "`classifiers` must be null or a non-empty list"),
        ({"classifiers": ["mlp", "mlp"]}, "`classifiers` lists a name twice"),
        ({"scores": []}, "`scores` must be null or a non-empty list"),
        ({"scores": ["auc"]}, "`scores` has unknown name"),
        ({"headline": "f1", "scores": ["roc_auc"]}, "`headline` must be one of `scores`"),
        ({"headline": "auc"}, "`headline` must be one of"),
        ({"n_estimators": 0}, "`n_estimators` must be an integer >= 1"),
        ({"cv_folds": 1}, "`cv_folds` must be an integer >= 2"),
        ({"cv_repeats": 0}, "`cv_repeats` must be an integer >= 1"),
        ({"grid": "huge"}, "`grid` must be one of"),
        ({"tuning": "test"}, "`tuning` must be one of"),
        ({"auc_variant": "pr"}, "`auc_variant` must be one of"),
        ({"encoding": "ordinal"}, "`encoding` must be one of"),
        ({"scaling": "robust"}, "`scaling` must be one of"),
        ({"param_grid": {"svm": {"C": [1]}}}, "`param_grid` names unknown classifier"),
        ({"param_grid": {"mlp": {"alpha": []}}}, "`param_grid.mlp` must map parameter names"),
        ({"param_grid": [1]}, "`param_grid` must be null or"),
        ({"drop_columns": "fnlwgt"}, "`drop_columns` must be null or a list"),
        ({"rope": -1}, "`rope` must be a number >= 0"),
    ],
)
def test_bad_params(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message) as info:
        MlEfficacy(**kwargs).validate_params()
    assert "\n" not in str(info.value)
