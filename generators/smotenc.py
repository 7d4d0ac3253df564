"""SMOTE-NC (imbalanced-learn) as a full-synthetic generator or an oversampler.

``spec/generators.md`` §4.4. The default ``full_synthetic`` mode is the "plain SMOTE-NC"
baseline of the UMAP-SMOTENC paper (seed paper ``002_c8ae6a68da26419b.txt`` §4.3;
reference ``gdalmeida99/UMAP-SMOTENC``, ``generative_functions.py::smotenc_model``) and
stage G1 of SMOTE-DP (``001_…``, with ``knn=1``): one new row per original row, every
class, originals dropped. ``oversample`` is imbalanced-learn's usual class balancing.

The helpers at the bottom (class counts, feasibility, categorical encoding, integer
rounding, the SMOTE-NC / SMOTE choice) are shared with ``generators.umap_smotenc``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from sklearn.preprocessing import MinMaxScaler

from harness.errors import ConfigError, InfeasibleConfigError
from harness.generator import BaseGenerator, GeneratorInfo
from harness.params import check_bool, check_choice, check_int
from harness.seeding import MAX_SEED
from harness.spec import DatasetSpec

MODES: tuple[str, ...] = ("full_synthetic", "oversample")
"""Values of :class:`SmoteNC`'s ``mode``."""
SCALINGS: tuple[str, ...] = ("minmax", "none")
"""Values of :class:`SmoteNC`'s ``scale_numeric``."""
SMALL_CLASS_POLICIES: tuple[str, ...] = ("error", "drop")
"""Values of :class:`SmoteNC`'s ``small_classes``."""
MISSING_LABEL = "\x00privbench:missing"
"""Stands for a missing category inside imbalanced-learn (mapped back to NaN on output)."""


class SmoteNC(BaseGenerator):
    """SMOTE-NC over every class (``spec/generators.md`` §4.4), wrapping imbalanced-learn.

    ``SMOTENC(categorical_features=<positions>, k_neighbors=knn, sampling_strategy=...,
    random_state=seed)``, or ``SMOTE`` when the table has no categorical feature. A new row
    of class c is ``x + u·(x_nn − x)`` on the numeric columns, with ``x`` a random row of
    class c, ``x_nn`` one of its ``knn`` nearest same-class neighbours and ``u ~ U[0, 1)``
    one scalar per row; each categorical column takes the most frequent category among the
    ``knn`` neighbours of ``x`` (ties broken at random). Categorical mismatches enter the
    neighbour distance as the median standard deviation of the class's numeric columns.

    Parameters
    ----------
    knn : int
        ``k_neighbors`` of SMOTE-NC (``002_…`` default 5; SMOTE-DP uses 1). Every class that
        receives new rows needs more than ``knn`` rows (else :class:`InfeasibleConfigError`).
    mode : {"full_synthetic", "oversample"}
        ``full_synthetic``: ``sampling_strategy = {c: 2·n_c}``, only the appended rows are
        kept, so the output has the training size and class counts and no original row.
        ``sample(n)`` spreads ``n`` new rows over the classes in proportion to their counts
        (largest remainders). ``oversample``: every class except the majority is brought to
        ``int(ratio · n_majority)`` rows (imbalanced-learn's float ``sampling_strategy`` for
        binary targets, applied per class for multiclass ones); the output is the original
        rows followed by the new rows, and its size is fixed (``sample()`` only).
    ratio : float
        ``oversample`` only: N_minority / N_majority after resampling, in (0, 1].
    scale_numeric : {"minmax", "none"}
        ``minmax``: numeric features are min–max scaled (fit on the training table) before
        SMOTE-NC and unscaled afterwards (``002_…`` §4.4); ``none`` leaves them as they are.
        The scale changes the neighbour search and the categorical penalty, not the
        interpolation itself.
    reference_quirks : bool
        True truncates the new rows' integer columns toward zero (the reference's
        ``astype(int)``); False rounds half to even (``spec/generators.md`` §1.2.3).
    small_classes : {"error", "drop"}
        What to do with a class of at most ``knn`` rows, which has too few same-class
        neighbours to interpolate: ``error`` (imbalanced-learn's behaviour) raises
        :class:`InfeasibleConfigError`; ``drop`` gives such classes no new rows, so the
        output is smaller than the training table by their size and contains none of their
        records (their names are in ``details()["dropped_classes"]``). ``drop`` is for
        protocols that fit SMOTE on many small random subsets (membership-inference games),
        where a rare class is bound to shrink to a single row in some of them.

    Notes
    -----
    Categorical and ordinal columns are cast to ``str`` for imbalanced-learn; a missing
    category is a category of its own and comes back as NaN. Numeric features with missing
    values, datetime columns, a table without numeric features (SMOTE-NC requires one), a
    target with a single class or missing labels, and regression targets raise
    :class:`InfeasibleConfigError`. imbalanced-learn draws the base row of every new row
    at random (with replacement), so "one new row per original row" holds for the counts,
    not row by row. ``sample`` calls after the first draw a fresh ``random_state`` from
    ``rng_``; the first uses the trial seed itself (the reference's ``random_state=seed``).
    """

    def __init__(
        self,
        knn: int = 5,
        mode: str = "full_synthetic",
        ratio: float = 1.0,
        scale_numeric: str = "minmax",
        reference_quirks: bool = False,
        small_classes: str = "error",
    ) -> None:
        self.knn = knn
        self.mode = mode
        self.ratio = ratio
        self.scale_numeric = scale_numeric
        self.reference_quirks = reference_quirks
        self.small_classes = small_classes

    # ------------------------------------------------------------------ parameters
    def info(self) -> GeneratorInfo:
        """Full synthetic: no original row, any size. Oversample: originals + new rows, fixed size."""
        if self.mode == "oversample":
            return GeneratorInfo(
                output_kind="mixed", releases_original_records=True, needs_target=True, fixed_size=True
            )
        return GeneratorInfo(output_kind="synthetic", needs_target=True)

    def _validate_params(self) -> None:
        check_int("knn", self.knn, 1)
        check_choice("mode", self.mode, MODES)
        check_choice("scale_numeric", self.scale_numeric, SCALINGS)
        check_bool("reference_quirks", self.reference_quirks)
        check_choice("small_classes", self.small_classes, SMALL_CLASS_POLICIES)
        ratio = self.ratio
        if isinstance(ratio, bool) or not isinstance(ratio, (int, float)) or not 0 < ratio <= 1:
            raise ConfigError(f"`ratio` must be a number in (0, 1]; got {ratio!r}")

    # ------------------------------------------------------------------ fit
    def _fit(self, train: pd.DataFrame, control: pd.DataFrame | None) -> None:
        spec = self.spec_
        self.target_ = require_classification(spec, "smotenc")
        self.labels_ = class_labels(train, self.target_)
        self.numeric_, self.categorical_ = feature_columns(spec, train, "smotenc")
        if not self.numeric_:
            raise InfeasibleConfigError(
                "smotenc needs at least one numeric feature (imbalanced-learn's SMOTENC does "
                f"not accept categorical features only); dataset {spec.name!r} has none"
            )
        self.counts_ = class_counts(self.labels_)
        self.natural_new_ = (
            dict(self.counts_)
            if self.mode == "full_synthetic"
            else oversample_counts(self.counts_, self.ratio)
        )
        self.dropped_ = self._small_classes_dropped()
        self.natural_new_ = {c: (0 if c in self.dropped_ else v) for c, v in self.natural_new_.items()}
        check_class_sizes(self.counts_, self.natural_new_, self.knn, "knn")
        self.train_ = train
        self.scaler_ = MinMaxScaler() if self.scale_numeric == "minmax" else None
        numeric = train[list(self.numeric_)].to_numpy(dtype=np.float64)
        if self.scaler_ is not None:
            numeric = self.scaler_.fit_transform(numeric)
        self.features_ = feature_frame(numeric, train, self.categorical_)
        self.n_sample_calls_ = 0

    def _small_classes_dropped(self) -> list[Any]:
        """Classes of at most ``knn`` rows when ``small_classes="drop"`` (else none)."""
        if self.small_classes != "drop":
            return []
        dropped = [c for c, n in self.counts_.items() if n <= self.knn]
        if len(dropped) == len(self.counts_):
            raise InfeasibleConfigError(
                f"every class has at most knn={self.knn} rows; small_classes='drop' would leave no class"
            )
        return dropped

    # ------------------------------------------------------------------ sample
    def _expected_rows(self, n_rows: int | None) -> int | None:
        if n_rows is not None:
            return n_rows
        new = sum(self.natural_new_.values())
        return new if self.mode == "full_synthetic" else self.n_train_ + new

    def _sample(self, n_rows: int | None) -> pd.DataFrame:
        kept = {c: n for c, n in self.counts_.items() if c not in self.dropped_}
        new = self.natural_new_ if n_rows is None else allocate(kept, n_rows)
        if n_rows is not None:
            check_class_sizes(self.counts_, new, self.knn, "knn")
        seed = self._next_seed()
        sampler = make_sampler(self.knn, self.counts_, new, len(self.numeric_), len(self.categorical_), seed)
        X_res, y_res = sampler.fit_resample(self.features_, self.labels_)
        X_new = pd.DataFrame(X_res).iloc[self.n_train_ :].reset_index(drop=True)
        y_new = np.asarray(y_res)[self.n_train_ :]
        numeric = X_new.iloc[:, : len(self.numeric_)].to_numpy(dtype=np.float64)
        if self.scaler_ is not None:
            numeric = self.scaler_.inverse_transform(numeric)
        synthetic = assemble(
            self.spec_,
            numeric=numeric,
            numeric_columns=self.numeric_,
            categorical=X_new.iloc[:, len(self.numeric_) :],
            categorical_columns=self.categorical_,
            target=self.target_,
            labels=y_new,
            truncate=bool(self.reference_quirks),
        )
        self.details_ = {
            "mode": self.mode,
            "sampler": type(sampler).__name__,
            "knn": int(self.knn),
            "random_state": seed,
            "class_counts": {str(c): int(v) for c, v in self.counts_.items()},
            "new_rows": {str(c): int(v) for c, v in new.items()},
            "dropped_classes": [str(c) for c in self.dropped_],
            "n_out": int(len(synthetic) + (self.n_train_ if self.mode == "oversample" else 0)),
        }
        if self.mode == "full_synthetic":
            self.row_origin_ = None
            return synthetic
        self.row_origin_ = pd.DataFrame(
            {"row_origin": ["original"] * self.n_train_ + ["synthetic"] * len(synthetic)}
        )
        return pd.concat([self.train_, synthetic], ignore_index=True)

    def _next_seed(self) -> int:
        """The trial seed for the first ``sample`` (as the reference), then fresh draws from ``rng_``."""
        self.n_sample_calls_ += 1
        if self.n_sample_calls_ == 1:
            return self.seed_ % MAX_SEED
        return int(self.rng_.integers(MAX_SEED))

    # ------------------------------------------------------------------ hooks
    def details(self) -> dict[str, Any]:
        """Class counts, new rows per class, the sampler used and its ``random_state``."""
        return dict(getattr(self, "details_", {}))

    def artifacts(self) -> dict[str, pd.DataFrame]:
        """``oversample``: ``row_origin`` (``original`` / ``synthetic``) of every output row."""
        origin = getattr(self, "row_origin_", None)
        return {} if origin is None else {"row_origin": origin.copy()}


# ====================================================================== shared helpers
def require_classification(spec: DatasetSpec, generator: str) -> str:
    """The target column; :class:`InfeasibleConfigError` for regression targets."""
    target = spec.target
    assert target is not None  # BaseGenerator.fit checks needs_target
    if spec.task == "regression":
        raise InfeasibleConfigError(
            f"{generator} needs class labels (SMOTE interpolates within a class); target "
            f"{target!r} of dataset {spec.name!r} is a regression target"
        )
    return target


def class_labels(train: pd.DataFrame, target: str) -> np.ndarray:
    """Target values as an array; :class:`InfeasibleConfigError` if any is missing."""
    y = train[target]
    missing = int(y.isna().sum())
    if missing:
        raise InfeasibleConfigError(
            f"target {target!r} has {missing} missing value(s); SMOTE needs a class label on every row"
        )
    return y.to_numpy()


def feature_columns(
    spec: DatasetSpec, train: pd.DataFrame, generator: str
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(numeric, categorical) feature columns in table order, target excluded.

    Raises :class:`InfeasibleConfigError` for datetime columns and numeric features with
    missing values (SMOTE cannot interpolate them).
    """
    target = spec.target
    datetimes = [c for c in spec.table_columns if spec.kind(c) == "datetime"]
    if datetimes:
        raise InfeasibleConfigError(f"{generator} does not handle datetime column(s) {', '.join(datetimes)}")
    numeric = tuple(c for c in spec.numeric_columns if c != target)
    categorical = tuple(c for c in spec.categorical_columns if c != target)
    with_missing = [c for c in numeric if train[c].isna().any()]
    if with_missing:
        raise InfeasibleConfigError(
            f"{generator} cannot interpolate missing numeric values; column(s) "
            f"{', '.join(with_missing)} have some (impute or recode them first)"
        )
    return numeric, categorical


def class_counts(labels: np.ndarray) -> dict[Any, int]:
    """Rows per class, classes sorted (imbalanced-learn's order)."""
    values, counts = np.unique(labels, return_counts=True)
    return {v.item() if isinstance(v, np.generic) else v: int(n) for v, n in zip(values, counts)}


def oversample_counts(counts: Mapping[Any, int], ratio: float) -> dict[Any, int]:
    """New rows per class that bring each non-majority class to ``int(ratio · n_majority)``.

    The same numbers as imbalanced-learn's float ``sampling_strategy`` for binary targets.
    """
    majority = max(counts, key=lambda c: counts[c])
    n_major = counts[majority]
    new: dict[Any, int] = {}
    for cls, n in counts.items():
        if cls == majority:
            new[cls] = 0
            continue
        extra = int(n_major * ratio - n)
        if extra < 0:
            raise InfeasibleConfigError(
                f"ratio {ratio} asks for {int(n_major * ratio)} rows of class {cls!r}, which already "
                f"has {n} (majority {majority!r}: {n_major}); oversampling cannot remove rows"
            )
        new[cls] = extra
    return new


def allocate(counts: Mapping[Any, int], n_rows: int) -> dict[Any, int]:
    """Split ``n_rows`` over the classes in proportion to ``counts`` (largest remainders).

    Exact integer arithmetic; ties go to the class listed first.
    """
    total = sum(counts.values())
    base = {c: n_rows * k // total for c, k in counts.items()}
    left = n_rows - sum(base.values())
    by_remainder = sorted(counts, key=lambda c: -(n_rows * counts[c] % total))
    for cls in by_remainder[:left]:
        base[cls] += 1
    return base


def check_class_sizes(counts: Mapping[Any, int], new: Mapping[Any, int], k: int, param: str) -> None:
    """:class:`InfeasibleConfigError` unless there are >= 2 classes and each one given new rows has > k rows."""
    if len(counts) < 2:
        (only,) = counts
        raise InfeasibleConfigError(
            f"the target has a single class ({only!r}); imbalanced-learn's SMOTE needs at least two"
        )
    small = {c: counts[c] for c in counts if new.get(c, 0) > 0 and counts[c] <= k}
    if small:
        listed = ", ".join(f"{c!r} ({n} rows)" for c, n in small.items())
        raise InfeasibleConfigError(
            f"every class needs more than {param}={k} rows to find {k} same-class neighbours; "
            f"too small: {listed}"
        )


def categorical_labels(values: pd.Series) -> pd.Series:
    """Categories as ``str`` with missing values as :data:`MISSING_LABEL`."""
    out = values.astype(object).where(values.notna(), MISSING_LABEL)
    return out.map(str).astype(object)


def feature_frame(numeric: np.ndarray, train: pd.DataFrame, categorical: Sequence[str]) -> pd.DataFrame:
    """Features for imbalanced-learn: numeric block, then the categoricals as strings.

    Columns are renamed ``f0, f1, ...`` so names never collide; the categorical features
    are the last ``len(categorical)`` positions (the reference's column order).
    """
    parts = {f"f{j}": numeric[:, j] for j in range(numeric.shape[1])}
    offset = numeric.shape[1]
    for j, col in enumerate(categorical):
        parts[f"f{offset + j}"] = categorical_labels(train[col]).to_numpy()
    return pd.DataFrame(parts)


def make_sampler(
    k: int, counts: Mapping[Any, int], new: Mapping[Any, int], n_numeric: int, n_categorical: int, seed: int
) -> Any:
    """``SMOTENC`` (categorical features last) or ``SMOTE`` with ``{c: n_c + new_c}``."""
    from imblearn.over_sampling import SMOTE, SMOTENC

    strategy = {c: int(counts[c] + new.get(c, 0)) for c in counts}
    if n_categorical:
        positions = list(range(n_numeric, n_numeric + n_categorical))
        return SMOTENC(
            categorical_features=positions, k_neighbors=k, sampling_strategy=strategy, random_state=seed
        )
    return SMOTE(k_neighbors=k, sampling_strategy=strategy, random_state=seed)


def round_integers(values: np.ndarray, *, truncate: bool) -> np.ndarray:
    """Integer-column values: half-to-even rounding, or truncation toward zero (reference quirk)."""
    return np.trunc(values) if truncate else np.rint(values)


def assemble(
    spec: DatasetSpec,
    *,
    numeric: np.ndarray,
    numeric_columns: Sequence[str],
    categorical: pd.DataFrame,
    categorical_columns: Sequence[str],
    target: str,
    labels: np.ndarray,
    truncate: bool,
) -> pd.DataFrame:
    """The released table in training column order (integers rounded, missing categories restored)."""
    out: dict[str, Any] = {}
    for j, col in enumerate(numeric_columns):
        values = numeric[:, j]
        out[col] = round_integers(values, truncate=truncate) if spec.kind(col) == "integer" else values
    for j, col in enumerate(categorical_columns):
        values = categorical.iloc[:, j].astype(object)
        out[col] = values.where(values != MISSING_LABEL, np.nan).to_numpy()
    out[target] = labels
    return pd.DataFrame({col: out[col] for col in spec.table_columns})
