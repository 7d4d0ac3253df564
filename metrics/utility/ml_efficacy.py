"""``ml_efficacy``: train-synthetic-test-real (TSTR) against train-real-test-real (TRTR).

Specification: ``spec/metrics.md`` U1 (scores) and U2 (``pct_diff``). This first version trains
one fixed classifier (no grid search; the protocol presets of U1 come later).
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import RandomForestClassifier
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from harness.encoding import canonical_row_order
from harness.errors import ConfigError, IncomputableMetricError
from harness.metric import BaseMetric, Family, Goal, MetricResult
from harness.spec import DatasetSpec

CLASSIFIERS: tuple[str, ...] = ("random_forest", "logistic_regression")


class MlEfficacy(BaseMetric):
    """ROC AUC of a classifier trained on S (TSTR) vs trained on T (TRTR), both tested on H.

    ``spec/metrics.md`` U1/U2. The classifier is fitted once on the release S and once on the
    training split T, and both models score the real test split. Outputs (``variant``):

    ``roc_auc``
        TSTR ROC AUC (binary: probability of the positive class; multiclass: macro-averaged
        one-vs-rest); ``baseline`` = the TRTR AUC. Higher is better.
    ``pct_diff``
        100·(TSTR − TRTR)/TRTR (``spec/metrics.md`` U2); 0 = as useful as the real data.

    The class range [-100, ∞) covers both outputs (``roc_auc`` lies in [0, 1]); ``pct_diff`` is
    left out when the TRTR AUC is 0. Training rows are put in
    :func:`~harness.encoding.canonical_row_order` first, so the forest's bootstrap (and hence
    the value) does not depend on the order of the rows.

    Preprocessing is fitted on the training side only (S for TSTR, T for TRTR): categorical
    features one-hot encoded (``handle_unknown="ignore"``, NA a category), numeric features
    median-imputed and standard-scaled; datetime features enter as seconds since the epoch.
    Rows whose target is missing are dropped (counts in ``details``). A training table with a
    single class yields a constant classifier, AUC 0.5, with a note in ``details``.

    Parameters
    ----------
    classifier : {"random_forest", "logistic_regression"}
        ``random_forest``: ``RandomForestClassifier(n_estimators, random_state=seed, n_jobs=1)``;
        ``logistic_regression``: ``LogisticRegression(max_iter=1000, random_state=seed)``.
    n_estimators : int
        Trees of the random forest (ignored by logistic regression).

    Raises
    ------
    IncomputableMetricError
        For regression targets (not supported by this version), or when the test split has
        fewer than two classes.
    """

    name: ClassVar[str] = "ml_efficacy"
    family: ClassVar[Family] = "utility"
    goal: ClassVar[Goal] = "maximise"
    # The class range covers both outputs: roc_auc in [0, 1], pct_diff in [-100, inf).
    min_value: ClassVar[float] = -100.0
    max_value: ClassVar[float] = math.inf
    needs_target: ClassVar[bool] = True
    needs_test: ClassVar[bool] = True

    def __init__(self, classifier: str = "random_forest", n_estimators: int = 100) -> None:
        self.classifier = classifier
        self.n_estimators = n_estimators

    def _validate_params(self) -> None:
        if self.classifier not in CLASSIFIERS:
            raise ConfigError(
                f"`classifier` must be one of {', '.join(CLASSIFIERS)}; got {self.classifier!r}"
            )
        n = self.n_estimators
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ConfigError(f"`n_estimators` must be an integer >= 1; got {n!r}")

    def _compute(
        self,
        real: pd.DataFrame,
        synthetic: pd.DataFrame,
        spec: DatasetSpec,
        *,
        control: pd.DataFrame | None,
        test: pd.DataFrame | None,
        seed: int,
    ) -> dict[str, MetricResult]:
        assert test is not None and spec.target is not None  # checked by BaseMetric.compute
        if spec.task == "regression":
            raise IncomputableMetricError(
                "metric ml_efficacy: regression targets are not supported yet (classification only)"
            )
        target = spec.target
        test_rows = test[test[target].notna()]
        classes = sorted(test_rows[target].astype(str).unique())
        if len(classes) < 2:
            raise IncomputableMetricError(
                f"metric ml_efficacy: the test split has {len(classes)} class(es) of {target!r}; ROC AUC needs 2"
            )
        tstr, tstr_note = self._score(synthetic, test_rows, spec, classes, seed)
        trtr, trtr_note = self._score(real, test_rows, spec, classes, seed)
        details: dict[str, Any] = {
            "classifier": self.classifier,
            "tstr_roc_auc": tstr,
            "trtr_roc_auc": trtr,
            "n_train_synthetic": int(synthetic[target].notna().sum()),
            "n_train_real": int(real[target].notna().sum()),
            "n_test": len(test_rows),
            "n_test_dropped_na_target": len(test) - len(test_rows),
            "averaging": "binary" if len(classes) == 2 else "macro_ovr",
        }
        if tstr_note:
            details["tstr_note"] = tstr_note
        if trtr_note:
            details["trtr_note"] = trtr_note
        out = {"roc_auc": MetricResult(value=tstr, baseline=trtr, details=dict(details))}
        if trtr > 0:  # pct_diff is undefined for a TRTR AUC of 0
            pct = 100.0 * (tstr - trtr) / trtr
            out["pct_diff"] = MetricResult(value=pct, baseline=0.0, details=dict(details))
        return out

    # ------------------------------------------------------------------ helpers
    def _score(
        self, train: pd.DataFrame, test: pd.DataFrame, spec: DatasetSpec, classes: list[str], seed: int
    ) -> tuple[float, str]:
        """ROC AUC on ``test`` of the model fitted on ``train``, and a note ("" if none)."""
        target = spec.target
        assert target is not None
        train = canonical_row_order(train[train[target].notna()])
        y_train = train[target].astype(str).to_numpy()
        seen = np.unique(y_train)
        if len(seen) < 2:
            return 0.5, f"training table has {len(seen)} class(es); constant classifier, AUC 0.5"
        model = Pipeline([("prep", _preprocessor(spec)), ("model", self._estimator(seed))])
        model.fit(_features(train, spec), y_train)
        proba = model.predict_proba(_features(test, spec))
        y_test = test[target].astype(str).to_numpy()
        return _roc_auc(y_test, proba, list(model.classes_), classes), ""

    def _estimator(self, seed: int) -> Any:
        if self.classifier == "random_forest":
            return RandomForestClassifier(n_estimators=int(self.n_estimators), random_state=seed, n_jobs=1)
        return LogisticRegression(max_iter=1000, random_state=seed)


def _feature_columns(spec: DatasetSpec) -> tuple[list[str], list[str]]:
    """(numeric, categorical) feature columns in table order; the target excluded."""
    numeric_kinds = ("continuous", "integer", "datetime")
    cols = [c for c in spec.columns if c.kind != "identifier" and c.name != spec.target]
    numeric = [c.name for c in cols if c.kind in numeric_kinds]
    categorical = [c.name for c in cols if c.is_categorical]
    return numeric, categorical


def _features(frame: pd.DataFrame, spec: DatasetSpec) -> pd.DataFrame:
    numeric, categorical = _feature_columns(spec)
    out = frame[numeric + categorical].copy()
    for name in numeric:
        col = out[name]
        if pd.api.types.is_datetime64_any_dtype(col):
            out[name] = (col - pd.Timestamp(0, tz=getattr(col.dt, "tz", None))).dt.total_seconds()
        else:
            out[name] = pd.to_numeric(col, errors="coerce").astype("float64")
    for name in categorical:
        out[name] = out[name].astype(object).where(out[name].isna(), out[name].astype(str))
    return out


def _preprocessor(spec: DatasetSpec) -> ColumnTransformer:
    numeric, categorical = _feature_columns(spec)
    num = Pipeline([("impute", SimpleImputer(strategy="median")), ("scale", StandardScaler())])
    cat = OneHotEncoder(handle_unknown="ignore", sparse_output=False)
    return ColumnTransformer([("num", num, numeric), ("cat", cat, categorical)], remainder="drop")


def _roc_auc(y_true: np.ndarray, proba: np.ndarray, model_classes: list[str], classes: list[str]) -> float:
    """Binary AUC of the positive (last sorted) class, or macro one-vs-rest AUC.

    ``classes`` are the test split's classes; a class the model never saw scores a constant 0.
    """
    column = {c: i for i, c in enumerate(model_classes)}

    def score(label: str) -> np.ndarray:
        return proba[:, column[label]] if label in column else np.zeros(len(y_true))

    if len(classes) == 2:
        return float(roc_auc_score(y_true == classes[1], score(classes[1])))
    return float(np.mean([roc_auc_score(y_true == c, score(c)) for c in classes]))
