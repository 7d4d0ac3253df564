"""ml_efficacy protocol presets and grids (spec/metrics.md U1; 000_… Table 1; 002_… pipeline; 004_… Table A4)."""

from __future__ import annotations

import pytest
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor

from metrics.utility.protocols import (
    CLASSIFIERS,
    PRESETS,
    PROTOCOLS,
    carvalho_hidden_layers,
    grid_size,
    make_estimator,
    param_grid,
)

# 000_… §4.1 Table 1 (grid: paper) and the reference code's values (grid: reference).
CARVALHO_PAPER = {
    "random_forest": {"n_estimators": [100, 250, 500], "max_depth": [4, 7, 10]},
    "xgboost": {"n_estimators": [100, 250, 500], "max_depth": [4, 7, 10], "learning_rate": [0.1, 0.01]},
    "logistic_regression": {"C": [0.001, 1, 10000], "max_iter": [10e5, 10e6]},
    "mlp": {
        "hidden_layer_sizes": [(12,), (6,), (8,), (12, 6), (12, 8), (6, 8), (12, 6, 8)],
        "alpha": [0.005, 0.001, 0.0001],
        "max_iter": [10000, 100000],
    },
}
CARVALHO_REFERENCE_LR = {"C": [1e-4, 1, 1e4], "max_iter": [10000, 100000]}
ALMEIDA = {
    "logistic_regression": {"solver": ["liblinear", "lbfgs"], "max_iter": [200, 500, 1500]},
    "naive_bayes": {"var_smoothing": [1e-9]},
    "decision_tree": {"max_depth": [15, 25, None]},
    "random_forest": {"n_estimators": [150, 250], "max_depth": [15, 25, None]},
    "xgboost": {"max_depth": [6, 10, 15], "n_estimators": [100, 150, 250]},
    "mlp": {
        "learning_rate": ["constant", "adaptive"],
        "hidden_layer_sizes": [(100,), (100, 100), (200,), (150, 100)],
        "max_iter": [200, 500, 1500],
    },
}
MILETIC = {
    "n_estimators": [50, 100, 200],
    "max_depth": [None, 10, 20],
    "min_samples_split": [2, 5, 10],
    "min_samples_leaf": [1, 2, 4],
    "max_features": ["sqrt"],
    "bootstrap": [True, False],
}


@pytest.mark.parametrize("classifier", sorted(CARVALHO_PAPER))
def test_carvalho_paper_grid_is_table_1(classifier: str) -> None:
    assert param_grid("carvalho2024", classifier, "paper", n_features=12) == CARVALHO_PAPER[classifier]


@pytest.mark.parametrize("classifier", sorted(CARVALHO_PAPER))
def test_carvalho_reference_grid_differs_only_for_logistic_regression(classifier: str) -> None:
    expected = CARVALHO_REFERENCE_LR if classifier == "logistic_regression" else CARVALHO_PAPER[classifier]
    assert param_grid("carvalho2024", classifier, "reference", n_features=12) == expected


def test_carvalho_grid_sizes() -> None:
    sizes = {c: grid_size(param_grid("carvalho2024", c, n_features=12)) for c in CARVALHO_PAPER}
    assert sizes == {"random_forest": 9, "xgboost": 18, "logistic_regression": 6, "mlp": 42}


def test_carvalho_hidden_layers_integer_division() -> None:
    assert carvalho_hidden_layers(14) == [(14,), (7,), (9,), (14, 7), (14, 9), (7, 9), (14, 7, 9)]
    assert carvalho_hidden_layers(1) == [(1,), (1,), (1,), (1, 1), (1, 1), (1, 1), (1, 1, 1)]


@pytest.mark.parametrize("classifier", sorted(ALMEIDA))
def test_almeida_paper_grid(classifier: str) -> None:
    assert param_grid("almeida2024", classifier, "paper") == ALMEIDA[classifier]


def test_almeida_reference_grid_keeps_the_misspelt_learning_rate() -> None:
    grid = param_grid("almeida2024", "mlp", "reference")
    assert grid["learning_rate"] == ["constant", "adaptative"]


def test_miletic_grid_is_table_a4() -> None:
    assert param_grid("miletic2024", "random_forest", "paper") == MILETIC
    # 'auto' meant all features for regressors (removed from scikit-learn 1.3)
    assert param_grid("miletic2024", "random_forest", regression=True)["max_features"] == [1.0, "sqrt"]
    assert param_grid("miletic2024", "xgboost") == {}


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("classifier", CLASSIFIERS)
def test_small_grid_is_a_subset_of_the_paper_grid(protocol: str, classifier: str) -> None:
    small = param_grid(protocol, classifier, "small", n_features=12)
    paper = param_grid(protocol, classifier, "paper", n_features=12)
    assert set(small) <= set(paper)
    for key, values in small.items():
        assert set(values) <= set(paper[key]), (key, values)
    assert grid_size(small) <= max(2, grid_size(paper))


def test_grid_overrides_replace_single_parameters() -> None:
    grid = param_grid("carvalho2024", "random_forest", overrides={"random_forest": {"max_depth": [3]}})
    assert grid == {"n_estimators": [100, 250, 500], "max_depth": [3]}
    mlp = param_grid("carvalho2024", "mlp", n_features=4, overrides={"mlp": {"hidden_layer_sizes": [[5, 2]]}})
    assert mlp["hidden_layer_sizes"] == [(5, 2)]


def test_presets() -> None:
    assert PRESETS["carvalho2024"].classifiers == ("random_forest", "xgboost", "logistic_regression", "mlp")
    assert (PRESETS["carvalho2024"].cv_folds, PRESETS["carvalho2024"].cv_repeats) == (5, 2)
    assert PRESETS["carvalho2024"].scores == ("roc_auc",)
    assert len(PRESETS["almeida2024"].classifiers) == 6 and PRESETS["almeida2024"].scores == ("f1",)
    assert PRESETS["almeida2024"].drop == ("fnlwgt",) and PRESETS["almeida2024"].scaling == "minmax"
    assert PRESETS["stadler"].scores == ("accuracy",) and PRESETS["stadler"].selection == "none"
    assert PRESETS["miletic2024"].selection == "cv_on_real" and PRESETS["miletic2024"].regression_scores == (
        "r2",
    )
    assert PRESETS["simple"].classifiers == ("random_forest",)


def test_estimators() -> None:
    rf = make_estimator("random_forest", regression=False, seed=3, protocol="simple", n_estimators=7)
    assert isinstance(rf, RandomForestClassifier) and rf.n_estimators == 7 and rf.random_state == 3
    assert make_estimator("random_forest", regression=False, seed=0, protocol="stadler").n_estimators == 100
    assert isinstance(make_estimator("random_forest", regression=True, seed=0), RandomForestRegressor)
    with pytest.raises(ValueError, match="no regression counterpart"):
        make_estimator("naive_bayes", regression=True, seed=0)
