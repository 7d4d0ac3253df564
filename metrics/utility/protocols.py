"""Model factories, hyper-parameter grids and protocol presets of ``ml_efficacy``.

``spec/metrics.md`` U1. A :class:`Preset` fixes the classifiers, the default scores, the model
selection (none, grid search with cross-validation on the training table, selection on the test
split, or tuning on the real training split) and the preprocessing of one published protocol:

``simple``
    The harness default: each classifier with fixed, cheap settings, no tuning, ROC AUC.
``carvalho2024``
    ``000_…`` §4.1, Table 1: RF, XGBoost, LR and MLP tuned by ``GridSearchCV`` with
    ``RepeatedKFold(5, 2)`` on the training table, ROC AUC; numeric columns standardised.
``almeida2024``
    ``002_…`` §4.2–4.4 (``pipeline.py``): LR, NB, DT, RF, XGBoost and MLP, F1 (macro for
    multiclass); one-hot + min–max; Adult's ``fnlwgt`` dropped; tuned with 3-fold CV on the
    training table (``tuning: inner_cv``) or, as the reference code, on the test fold.
``stadler``
    ``001_…`` §4.2.2: ``RandomForestClassifier()`` defaults, accuracy.
``miletic2024``
    ``004_…`` *LLMs and GANs*, Table A4: RF tuned by CV grid search on the *real* training
    split, then trained on S; F1 (macro for multiclass) or R².

Grids (``grid``): ``paper`` (the paper's table), ``reference`` (the authors' code, where it
differs) and ``small`` (a few points, for the quick profile).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB
from sklearn.neural_network import MLPClassifier, MLPRegressor
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

CLASSIFIERS: tuple[str, ...] = (
    "random_forest",
    "xgboost",
    "logistic_regression",
    "mlp",
    "naive_bayes",
    "decision_tree",
)
REGRESSION_CAPABLE: frozenset[str] = frozenset({"random_forest", "xgboost", "mlp", "decision_tree"})
"""Classifiers with a regression counterpart (the others are skipped for numeric targets)."""
PROTOCOLS: tuple[str, ...] = ("simple", "carvalho2024", "almeida2024", "stadler", "miletic2024")
GRIDS: tuple[str, ...] = ("paper", "reference", "small")
TUNINGS: tuple[str, ...] = ("inner_cv", "reference")
SELECTIONS: tuple[str, ...] = ("none", "cv", "cv_on_real")
CV_SCHEMES: tuple[str, ...] = ("repeated_kfold", "stratified_kfold")

Grid = dict[str, list[Any]]


@dataclass(frozen=True)
class Preset:
    """A published ML-evaluation protocol.

    Attributes
    ----------
    name : str
    classifiers : tuple of str
        Default classifiers.
    scores : tuple of str
        Default scores of a classification target (the first is the headline).
    regression_scores : tuple of str
        Default scores of a regression target.
    selection : {"none", "cv", "cv_on_real"}
        ``none``: fixed settings; ``cv``: grid search with CV on the training table (S for
        TSTR, T for TRTR), best configuration refitted on all of it; ``cv_on_real``: grid search
        with CV on T only, its best configuration then trained on S and on T.
    cv_scheme : {"repeated_kfold", "stratified_kfold"}
        Folds of the grid search (regression targets always use plain k-fold).
    cv_folds, cv_repeats : int
        Default folds and repeats.
    scaling : {"standard", "minmax", "none"}
        Numeric scaling of :func:`~metrics.utility.preprocessing.make_preprocessor`.
    drop : tuple of str
        Feature columns left out where present.
    """

    name: str
    classifiers: tuple[str, ...]
    scores: tuple[str, ...]
    regression_scores: tuple[str, ...] = ("r2", "rmse")
    selection: str = "none"
    cv_scheme: str = "stratified_kfold"
    cv_folds: int = 5
    cv_repeats: int = 1
    scaling: str = "standard"
    drop: tuple[str, ...] = ()


PRESETS: dict[str, Preset] = {
    "simple": Preset("simple", ("random_forest",), ("roc_auc",)),
    "carvalho2024": Preset(
        "carvalho2024",
        ("random_forest", "xgboost", "logistic_regression", "mlp"),
        ("roc_auc",),
        selection="cv",
        cv_scheme="repeated_kfold",
        cv_folds=5,
        cv_repeats=2,
        # Decision: standardised numeric columns (the spec's "numeric columns stay numeric" read as
        # "not label-encoded"); unscaled, lbfgs LR and the MLP need thousands of iterations on Adult.
        scaling="standard",
    ),
    "almeida2024": Preset(
        "almeida2024",
        ("logistic_regression", "naive_bayes", "decision_tree", "random_forest", "xgboost", "mlp"),
        ("f1",),
        selection="cv",
        cv_scheme="stratified_kfold",
        cv_folds=3,
        scaling="minmax",
        drop=("fnlwgt",),
    ),
    "stadler": Preset("stadler", ("random_forest",), ("accuracy",), scaling="none"),
    "miletic2024": Preset(
        "miletic2024",
        ("random_forest",),
        ("f1",),
        regression_scores=("r2",),
        selection="cv_on_real",
        cv_scheme="stratified_kfold",
        cv_folds=5,
        scaling="none",
    ),
}


def carvalho_hidden_layers(n_features: int) -> list[tuple[int, ...]]:
    """The MLP ``hidden_layer_sizes`` of ``000_…`` Table 1 for ``f = n_features`` (integer division).

    [f], [f/2], [2f/3], [f, f/2], [f, 2f/3], [f/2, 2f/3], [f, f/2, 2f/3]; every size at least 1.
    """
    f, half, two_thirds = max(1, n_features), max(1, n_features // 2), max(1, (2 * n_features) // 3)
    return [
        (f,),
        (half,),
        (two_thirds,),
        (f, half),
        (f, two_thirds),
        (half, two_thirds),
        (f, half, two_thirds),
    ]


def _carvalho_grid(classifier: str, grid: str, n_features: int) -> Grid:
    if grid == "small":
        small: dict[str, Grid] = {
            "random_forest": {"n_estimators": [100], "max_depth": [4, 10]},
            "xgboost": {"n_estimators": [100], "max_depth": [4, 7], "learning_rate": [0.1]},
            "logistic_regression": {"C": [0.001, 1.0], "max_iter": [1_000_000]},
            # one configuration (the cheapest one-layer net): fitted directly, no CV
            "mlp": {
                "hidden_layer_sizes": carvalho_hidden_layers(n_features)[1:2],
                "alpha": [0.001],
                "max_iter": [10000],
            },
        }
        return small.get(classifier, {})
    if classifier == "random_forest":
        return {"n_estimators": [100, 250, 500], "max_depth": [4, 7, 10]}
    if classifier == "xgboost":
        return {"n_estimators": [100, 250, 500], "max_depth": [4, 7, 10], "learning_rate": [0.1, 0.01]}
    if classifier == "logistic_regression":
        if grid == "reference":  # C = logspace(-4, 4, 3)
            return {"C": [1e-4, 1.0, 1e4], "max_iter": [10000, 100000]}
        return {"C": [0.001, 1.0, 10000.0], "max_iter": [1_000_000, 10_000_000]}  # Table 1: 10e5, 10e6
    if classifier == "mlp":
        return {
            "hidden_layer_sizes": carvalho_hidden_layers(n_features),
            "alpha": [0.005, 0.001, 0.0001],
            "max_iter": [10000, 100000],
        }
    return {}


def _almeida_grid(classifier: str, grid: str) -> Grid:
    if grid == "small":
        small: dict[str, Grid] = {
            "logistic_regression": {"solver": ["lbfgs"], "max_iter": [500]},
            "naive_bayes": {"var_smoothing": [1e-9]},
            "decision_tree": {"max_depth": [15, None]},
            "random_forest": {"n_estimators": [150], "max_depth": [15, None]},
            "xgboost": {"max_depth": [6], "n_estimators": [100]},
            "mlp": {"learning_rate": ["constant"], "hidden_layer_sizes": [(100,)], "max_iter": [200]},
        }
        return small.get(classifier, {})
    grids: dict[str, Grid] = {
        "logistic_regression": {"solver": ["liblinear", "lbfgs"], "max_iter": [200, 500, 1500]},
        "naive_bayes": {"var_smoothing": [1e-9]},
        "decision_tree": {"max_depth": [15, 25, None]},
        "random_forest": {"n_estimators": [150, 250], "max_depth": [15, 25, None]},
        "xgboost": {"max_depth": [6, 10, 15], "n_estimators": [100, 150, 250]},
        "mlp": {
            # the reference code misspells "adaptive", so half of its MLP grid fails to fit
            "learning_rate": ["constant", "adaptative" if grid == "reference" else "adaptive"],
            "hidden_layer_sizes": [(100,), (100, 100), (200,), (150, 100)],
            "max_iter": [200, 500, 1500],
        },
    }
    return grids.get(classifier, {})


def _miletic_grid(classifier: str, grid: str, regression: bool) -> Grid:
    if classifier != "random_forest":
        return {}
    # Table A4 lists max_features {'auto', 'sqrt'}; 'auto' (removed from scikit-learn 1.3) meant
    # 'sqrt' for classifiers (a duplicate) and 1.0 (all features) for regressors.
    max_features: list[Any] = [1.0, "sqrt"] if regression else ["sqrt"]
    if grid == "small":
        return {
            "n_estimators": [100],
            "max_depth": [None, 10],
            "min_samples_split": [2],
            "min_samples_leaf": [1],
            "max_features": max_features[-1:],
            "bootstrap": [True],
        }
    return {
        "n_estimators": [50, 100, 200],
        "max_depth": [None, 10, 20],
        "min_samples_split": [2, 5, 10],
        "min_samples_leaf": [1, 2, 4],
        "max_features": max_features,
        "bootstrap": [True, False],
    }


def param_grid(
    protocol: str,
    classifier: str,
    grid: str = "paper",
    *,
    n_features: int = 1,
    regression: bool = False,
    overrides: Mapping[str, Mapping[str, list[Any]]] | None = None,
) -> Grid:
    """The hyper-parameter grid of ``classifier`` under ``protocol``.

    Parameters
    ----------
    protocol : str
        One of :data:`PROTOCOLS`; ``simple`` and ``stadler`` have no grid (``{}``).
    classifier : str
        One of :data:`CLASSIFIERS`.
    grid : {"paper", "reference", "small"}
        Which version of the grid.
    n_features : int
        Number of feature columns (the ``000_…`` MLP layer sizes depend on it).
    regression : bool
        A numeric target (only ``miletic2024``'s ``max_features`` depends on it).
    overrides : mapping, optional
        ``{classifier: {parameter: [values]}}`` replacing single parameters of the grid.

    Returns
    -------
    dict of str to list
        An empty dict means fixed settings (no search).
    """
    if protocol == "carvalho2024":
        out = _carvalho_grid(classifier, grid, n_features)
    elif protocol == "almeida2024":
        out = _almeida_grid(classifier, grid)
    elif protocol == "miletic2024":
        out = _miletic_grid(classifier, grid, regression)
    else:
        out = {}
    out = {k: list(v) for k, v in out.items()}
    for key, values in ((overrides or {}).get(classifier) or {}).items():
        out[key] = [tuple(v) if isinstance(v, list) else v for v in values]
    return out


def grid_size(grid: Grid) -> int:
    """Number of configurations of ``grid`` (1 for an empty grid)."""
    size = 1
    for values in grid.values():
        size *= len(values)
    return size


def make_estimator(
    classifier: str, *, regression: bool, seed: int, protocol: str = "simple", n_estimators: int = 100
) -> Any:
    """A fresh, seeded, single-threaded estimator with the protocol's fixed settings.

    Parameters
    ----------
    classifier : str
        One of :data:`CLASSIFIERS` (for ``regression`` one of :data:`REGRESSION_CAPABLE`).
    regression : bool
        Build the regressor counterpart.
    seed : int
        ``random_state`` of every randomised estimator.
    protocol : str
        ``simple`` uses ``n_estimators`` trees for the ensembles and ``max_iter=1000`` for
        logistic regression; ``stadler`` uses scikit-learn defaults; the tuned presets start
        from library defaults, which their grids then override.
    n_estimators : int
        Trees of the ``simple`` protocol's random forest and XGBoost.

    Returns
    -------
    estimator
    """
    simple = protocol == "simple"
    if classifier == "random_forest":
        cls = RandomForestRegressor if regression else RandomForestClassifier
        extra = {"n_estimators": int(n_estimators)} if simple else {}
        return cls(random_state=seed, n_jobs=1, **extra)
    if classifier == "xgboost":
        from xgboost import XGBClassifier, XGBRegressor

        xgb_cls = XGBRegressor if regression else XGBClassifier
        extra = {"n_estimators": int(n_estimators)} if simple else {}
        return xgb_cls(random_state=seed, n_jobs=1, tree_method="hist", verbosity=0, **extra)
    if classifier == "mlp":
        mlp_cls = MLPRegressor if regression else MLPClassifier
        return mlp_cls(random_state=seed, **({"max_iter": 500} if simple else {}))
    if classifier == "decision_tree":
        return (DecisionTreeRegressor if regression else DecisionTreeClassifier)(random_state=seed)
    if regression:
        raise ValueError(f"classifier {classifier!r} has no regression counterpart")
    if classifier == "logistic_regression":
        return LogisticRegression(random_state=seed, max_iter=1000)
    if classifier == "naive_bayes":
        return GaussianNB()
    raise ValueError(f"unknown classifier {classifier!r}")
