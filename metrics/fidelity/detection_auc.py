"""``detection_auc``: how well a classifier tells the released rows from the training rows.

Specification: ``spec/metrics.md`` F3 (as synthcity ``detection_xgb``).
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from harness.encoding import TableEncoder
from harness.errors import IncomputableMetricError
from harness.metric import BaseMetric, Family, Goal, MetricResult
from harness.params import check_bool, check_int
from harness.spec import DatasetSpec
from metrics.fidelity.subsample import check_optional_size, subsample_rows


def content_groups(real: pd.DataFrame, synthetic: pd.DataFrame) -> np.ndarray:
    """Group label of every stacked row (T then S): equal rows share a label.

    Labels are the ranks of the rows' content hashes, so they do not depend on row order.
    """
    stacked = pd.concat([real, synthetic], ignore_index=True)
    hashes = pd.util.hash_pandas_object(stacked, index=False).to_numpy()
    return np.unique(hashes, return_inverse=True)[1].reshape(-1)


class DetectionAUC(BaseMetric):
    """Cross-validated ROC AUC of an XGBoost classifier separating S from T.

    ``spec/metrics.md`` F3. T (label 0) and S (label 1) are stacked and encoded in the shared
    space E (:class:`~harness.encoding.TableEncoder` fit on T and S: numeric min–max with T's
    range, categorical one-hot, NA indicators); an ``XGBClassifier`` with XGBoost's default
    hyper-parameters is scored by stratified ``n_folds``-fold cross-validation (shuffled with
    the seed), and the headline is the mean ROC AUC over the folds. Outputs:

    ``auc`` (goal ``target`` 0.5)
        0.5 = indistinguishable, 1 = perfectly separable.
    ``auc_gap`` (goal ``minimise``)
        |AUC − 0.5|.

    **Decision** (``group_duplicates``, default True): rows with identical content (a T row
    and its copy in S, or repeated rows) are kept in the same fold (``StratifiedGroupKFold``).
    With the plain ``StratifiedKFold`` of synthcity (``group_duplicates: false``) a copied
    row's twin with the opposite label sits in the training folds and the classifier learns
    to invert it: a copy of T scores an AUC near 0 (0.02 on 300 Adult rows) instead of 0.5.

    Per-fold AUCs are in ``details["fold_auc"]``. Both tables are put in their canonical row
    order first, so the value depends on the rows and the seed only.

    Parameters
    ----------
    n_folds : int
        Folds of the stratified cross-validation (spec: 5).
    group_duplicates : bool
        Keep rows with identical content in one fold (see above); False = synthcity's plain
        stratified folds.
    max_rows : int or None
        Rows of T and of S each kept (seeded subsample, recorded); None = all.
    n_jobs : int
        XGBoost threads (results do not depend on it).
    """

    name: ClassVar[str] = "detection_auc"
    family: ClassVar[Family] = "fidelity"
    goal: ClassVar[Goal] = "target"
    target_value: ClassVar[float | None] = 0.5
    min_value: ClassVar[float] = 0.0
    max_value: ClassVar[float] = 1.0

    def __init__(
        self, n_folds: int = 5, group_duplicates: bool = True, max_rows: int | None = None, n_jobs: int = 1
    ) -> None:
        self.n_folds = n_folds
        self.group_duplicates = group_duplicates
        self.max_rows = max_rows
        self.n_jobs = n_jobs

    def _validate_params(self) -> None:
        check_int("n_folds", self.n_folds, 2)
        check_bool("group_duplicates", self.group_duplicates)
        check_optional_size("max_rows", self.max_rows, 2)
        check_int("n_jobs", self.n_jobs, 1)

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
        from sklearn.metrics import roc_auc_score
        from sklearn.model_selection import StratifiedGroupKFold, StratifiedKFold
        from xgboost import XGBClassifier

        rng = np.random.default_rng(seed)
        real_used = subsample_rows(real, self.max_rows, rng)
        syn_used = subsample_rows(synthetic, self.max_rows, rng)
        n_folds = int(self.n_folds)
        if min(len(real_used), len(syn_used)) < n_folds:
            raise IncomputableMetricError(
                f"metric {self.name}: {n_folds}-fold cross-validation needs at least {n_folds} rows "
                f"of each table; got {len(real_used)} training and {len(syn_used)} released rows"
            )
        encoder = TableEncoder(spec, columns="all").fit(real_used, syn_used)
        if encoder.n_features == 0:
            raise IncomputableMetricError(f"metric {self.name}: dataset {spec.name!r} has no usable column")
        x = np.vstack([encoder.transform(real_used), encoder.transform(syn_used)])
        y = np.concatenate([np.zeros(len(real_used), dtype=np.int64), np.ones(len(syn_used), dtype=np.int64)])
        if self.group_duplicates:
            splits = StratifiedGroupKFold(n_splits=n_folds, shuffle=True, random_state=seed).split(
                x, y, groups=content_groups(real_used, syn_used)
            )
        else:
            splits = StratifiedKFold(n_splits=n_folds, shuffle=True, random_state=seed).split(x, y)
        fold_auc: list[float] = []
        for train_idx, test_idx in splits:
            model = XGBClassifier(random_state=seed, n_jobs=int(self.n_jobs))
            model.fit(x[train_idx], y[train_idx])
            proba = model.predict_proba(x[test_idx])[:, 1]
            fold_auc.append(float(roc_auc_score(y[test_idx], proba)))
        auc = float(np.mean(fold_auc))
        if math.isnan(auc):
            raise IncomputableMetricError(f"metric {self.name}: the ROC AUC is undefined")
        details: dict[str, Any] = {
            "fold_auc": fold_auc,
            "n_folds": n_folds,
            "group_duplicates": bool(self.group_duplicates),
            "n_features": encoder.n_features,
            "n_rows_real": len(real_used),
            "n_rows_synthetic": len(syn_used),
            "max_rows": self.max_rows,
            "seed": seed,
        }
        return {
            "auc": MetricResult(value=auc, details=details),
            "auc_gap": MetricResult(value=abs(auc - 0.5), details=details, goal="minimise"),
        }
