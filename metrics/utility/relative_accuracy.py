"""``relative_accuracy``: classifier accuracy on the release relative to the original data.

Specification: ``spec/metrics.md`` U3 (``004_…`` *Utility Analysis of Differentially Private
Anonymized Data Based on Random Sampling*, §3.3–4): RA = 100·(acc_anon − acc_base)/(acc_orig −
acc_base), 0 % = the baseline classifier that always predicts the most frequent class, 100 % =
the classifier trained on the original data.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.multiclass import OneVsRestClassifier
from sklearn.pipeline import Pipeline

from harness.encoding import canonical_row_order
from harness.errors import ConfigError, IncomputableMetricError
from harness.metric import BaseMetric, Family, Goal, MetricResult
from harness.params import check_bool, check_int
from harness.spec import DatasetSpec
from metrics.utility.generalisation import generalise_like
from metrics.utility.preprocessing import FeatureColumns, feature_columns, feature_frame, make_preprocessor


def relative_accuracy(acc_anon: float, acc_orig: float, acc_base: float) -> float:
    """RA = 100·(acc_anon − acc_base)/(acc_orig − acc_base).

    Raises
    ------
    ZeroDivisionError
        If ``acc_orig == acc_base``.
    """
    if acc_orig == acc_base:
        raise ZeroDivisionError("relative_accuracy: acc_orig equals acc_base")
    return 100.0 * (acc_anon - acc_base) / (acc_orig - acc_base)


class RelativeAccuracy(BaseMetric):
    """Relative accuracy of a logistic-regression classifier trained on the release.

    ``spec/metrics.md`` U3. acc_orig: the classifier trained on the training split T; acc_anon:
    trained on the release S; acc_base: always predicting T's most frequent class; all three on
    the test split H. **Decision** (ARX's internal set-up is not given):
    ``LogisticRegression(max_iter)``, one-vs-rest for more than two classes; every other column a
    feature, categorical ones one-hot encoded and numeric ones standardised (fitted on the
    training table). For S the test features are first generalised like the release
    (``generalise_test``): a categorical test value that S does not hold becomes the level of
    the dataset's hierarchy (or ``*``) that S holds; numeric columns are used as they are.

    Outputs (``variant``):

    ``relative_accuracy``
        RA in percent (headline; 100 = as good as the original, 0 = no better than the majority
        class; can be negative or exceed 100).
    ``accuracy``
        acc_anon; ``baseline`` = acc_orig.

    Parameters
    ----------
    target : str, optional
        Categorical column predicted (the paper: ``income`` and ``marital-status``); None = the
        dataset target.
    max_iter : int
        Iterations of the logistic regression.
    generalise_test : bool
        Recode the test features to the release's generalisation levels for acc_anon.

    Raises
    ------
    IncomputableMetricError
        Without a categorical target, with fewer than two test classes, or when the classifier
        trained on T is no better than the majority class (the ratio is undefined).
    """

    name: ClassVar[str] = "relative_accuracy"
    family: ClassVar[Family] = "utility"
    goal: ClassVar[Goal] = "maximise"
    min_value: ClassVar[float] = -math.inf
    max_value: ClassVar[float] = math.inf
    needs_test: ClassVar[bool] = True

    def __init__(self, target: str | None = None, max_iter: int = 1000, generalise_test: bool = True) -> None:
        self.target = target
        self.max_iter = max_iter
        self.generalise_test = generalise_test

    def _validate_params(self) -> None:
        if self.target is not None and (not isinstance(self.target, str) or not self.target):
            raise ConfigError(f"`target` must be null or a column name; got {self.target!r}")
        check_int("max_iter", self.max_iter, 1)
        check_bool("generalise_test", self.generalise_test)

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
        assert test is not None
        target = self._target(spec, real)
        columns = feature_columns(spec, target)
        if not len(columns):
            raise IncomputableMetricError(
                f"metric relative_accuracy: dataset {spec.name!r} has no feature columns"
            )
        test_rows = test[test[target].notna()]
        y_test = test_rows[target].astype(str).to_numpy()
        if len(np.unique(y_test)) < 2:
            raise IncomputableMetricError(
                f"metric relative_accuracy: the test split has fewer than 2 classes of {target!r}"
            )
        train = real[real[target].notna()]
        if len(train) == 0:
            raise IncomputableMetricError(
                f"metric relative_accuracy: the training split has no {target!r} values"
            )
        majority = _majority(train[target])
        acc_base = float(np.mean(y_test == majority))
        acc_orig = self._accuracy(train, test_rows, target, columns, seed)
        if acc_orig <= acc_base:
            raise IncomputableMetricError(
                f"metric relative_accuracy: the classifier trained on the training split ({acc_orig:.4f}) is no "
                f"better than the majority class ({acc_base:.4f}); the ratio is undefined"
            )
        release = synthetic[synthetic[target].notna()]
        anon_test = test_rows
        if self.generalise_test and len(release):
            anon_test = generalise_like(spec, test_rows, release, columns.categorical)
        acc_anon = self._accuracy(release, anon_test, target, columns, seed)
        ra = relative_accuracy(acc_anon, acc_orig, acc_base)
        details: dict[str, Any] = {
            "target": target,
            "acc_anon": acc_anon,
            "acc_orig": acc_orig,
            "acc_base": acc_base,
            "majority_class": majority,
            "n_train_release": len(release),
            "n_train_real": len(train),
            "n_test": len(test_rows),
            "generalise_test": bool(self.generalise_test),
            "classifier": f"LogisticRegression(max_iter={int(self.max_iter)})"
            + (", one-vs-rest" if len(np.unique(y_test)) > 2 else ""),
        }
        return {
            "relative_accuracy": MetricResult(ra, baseline=100.0, details=details),
            "accuracy": MetricResult(acc_anon, baseline=acc_orig, details=details),
        }

    def _target(self, spec: DatasetSpec, real: pd.DataFrame) -> str:
        target = self.target or spec.target
        if target is None:
            raise IncomputableMetricError(
                f"metric relative_accuracy needs a target; dataset {spec.name!r} has none"
            )
        kinds = {c.name: c for c in spec.columns}
        if target not in real.columns or target not in kinds:
            raise IncomputableMetricError(
                f"metric relative_accuracy: target {target!r} is not a column of dataset {spec.name!r}"
            )
        if not kinds[target].is_categorical:
            raise IncomputableMetricError(
                f"metric relative_accuracy: target {target!r} must be categorical; it is {kinds[target].kind}"
            )
        return target

    def _accuracy(
        self, train: pd.DataFrame, test: pd.DataFrame, target: str, columns: FeatureColumns, seed: int
    ) -> float:
        """Test accuracy of the logistic regression fitted on ``train`` (a constant for one class)."""
        y_test = test[target].astype(str).to_numpy()
        if len(train) == 0:
            return 0.0
        train = canonical_row_order(train)
        y_train = train[target].astype(str).to_numpy()
        classes = np.unique(y_train)
        if len(classes) < 2:
            return float(np.mean(y_test == classes[0]))
        base = LogisticRegression(max_iter=int(self.max_iter), random_state=seed)
        model = OneVsRestClassifier(base) if len(classes) > 2 else base
        pipeline = Pipeline([("prep", make_preprocessor(columns, "standard")), ("model", model)])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", category=ConvergenceWarning)
            pipeline.fit(feature_frame(train, columns), y_train)
            pred = pipeline.predict(feature_frame(test, columns))
        return float(np.mean(pred == y_test))


def _majority(values: pd.Series) -> str:
    """Most frequent value as a string (ties: the smallest string)."""
    counts = values.astype(str).value_counts()
    top = counts.max()
    return min(str(v) for v, n in counts.items() if n == top)
