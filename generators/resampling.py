"""Resampling methods of imbalanced-learn: RUS, SMOTE and Borderline-SMOTE.

``spec/generators.md`` §4.1–§4.3, the sampling baselines of ε-PrivateSMOTE (seed paper
``000_06874021c9588b45.txt`` §4.1; reference ``tmcarvalho/k-smote``,
``code/transformations/re-sampling.py``). The reference wraps every configuration in
``try/except: pass``; here an infeasible configuration raises
:class:`InfeasibleConfigError`, which the runner records as status ``skipped`` with
``infeasible: <reason>``.

``ratio`` is imbalanced-learn's float ``sampling_strategy``: N_minority / N_majority after
resampling, for binary targets only. The helpers shared with SMOTE-NC (class counts,
feature columns, integer rounding, assembly) come from :mod:`generators.smotenc`.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pandas as pd

from generators.smotenc import (
    SmoteNC,
    assemble,
    check_class_sizes,
    class_counts,
    class_labels,
    feature_columns,
    require_classification,
)
from harness.errors import ConfigError, InfeasibleConfigError
from harness.generator import BaseGenerator, GeneratorInfo
from harness.params import check_choice, check_int
from harness.seeding import MAX_SEED

ON_CATEGORICAL: tuple[str, ...] = ("error", "smotenc")
"""Values of :class:`Smote`'s and :class:`BorderlineSmote`'s ``on_categorical``."""


# ====================================================================== helpers
def check_ratio(ratio: Any) -> None:
    """Raise :class:`ConfigError` unless ``ratio`` is a number in (0, 1]."""
    if (
        isinstance(ratio, bool)
        or not isinstance(ratio, (int, float, np.integer, np.floating))
        or not 0 < ratio <= 1
    ):
        raise ConfigError(f"`ratio` must be a number in (0, 1]; got {ratio!r}")


def binary_counts(labels: np.ndarray, generator: str) -> dict[Any, int]:
    """Rows per class; :class:`InfeasibleConfigError` unless there are exactly two classes.

    imbalanced-learn accepts a float ``sampling_strategy`` for binary targets only.
    """
    counts = class_counts(labels)
    if len(counts) != 2:
        listed = ", ".join(f"{c!r} ({n} rows)" for c, n in counts.items())
        raise InfeasibleConfigError(
            f"{generator} with a float ratio needs a binary target (imbalanced-learn's "
            f"sampling_strategy); the training target has {len(counts)} class(es): {listed}"
        )
    return counts


def minority_majority(counts: dict[Any, int]) -> tuple[Any, Any]:
    """(minority, majority) class as imbalanced-learn picks them (first in sorted order on ties)."""
    return min(counts, key=lambda c: counts[c]), max(counts, key=lambda c: counts[c])


def undersample_counts(counts: dict[Any, int], ratio: float) -> dict[Any, int]:
    """Rows kept per class: the majority cut to ``int(n_minority / ratio)`` (imbalanced-learn).

    :class:`InfeasibleConfigError` when that exceeds the majority's size, i.e. when ``ratio``
    is below the current minority/majority ratio (under-sampling cannot add rows).
    """
    minority, majority = minority_majority(counts)
    n_min, n_maj = counts[minority], counts[majority]
    kept = {c: (n if c == minority else int(n_min / ratio)) for c, n in counts.items()}
    if kept[majority] > n_maj:
        raise InfeasibleConfigError(
            f"ratio {ratio} is below the current minority/majority ratio {n_min}/{n_maj} = "
            f"{n_min / n_maj:.4f}; it would need {kept[majority]} rows of majority class "
            f"{majority!r}, which has {n_maj} (under-sampling cannot add rows)"
        )
    return kept


def oversample_new(counts: dict[Any, int], ratio: float) -> dict[Any, int]:
    """New rows per class for a float ``ratio`` (imbalanced-learn's binary over-sampling rule).

    The minority gets ``int(ratio · n_majority) − n_minority`` new rows; like
    imbalanced-learn, :class:`InfeasibleConfigError` unless that is positive.
    """
    minority, majority = minority_majority(counts)
    n_min, n_maj = counts[minority], counts[majority]
    extra = int(n_maj * ratio - n_min)
    if extra <= 0:
        raise InfeasibleConfigError(
            f"ratio {ratio} asks for {int(n_maj * ratio)} rows of minority class {minority!r}, which "
            f"already has {n_min} (majority {majority!r}: {n_maj}); over-sampling needs a ratio above "
            f"the current {n_min / n_maj:.4f}"
        )
    return {c: (extra if c == minority else 0) for c in counts}


class _SeedMixin:
    """``random_state`` of successive ``sample`` calls: the trial seed, then draws from ``rng_``."""

    seed_: int
    rng_: np.random.Generator
    n_sample_calls_: int

    def _next_seed(self) -> int:
        self.n_sample_calls_ += 1
        if self.n_sample_calls_ == 1:
            return self.seed_ % MAX_SEED
        return int(self.rng_.integers(MAX_SEED))


# ====================================================================== RUS
class RandomUnderSampling(_SeedMixin, BaseGenerator):
    """Random under-sampling of the majority class (``spec/generators.md`` §4.1).

    ``RandomUnderSampler(sampling_strategy=ratio, random_state=seed)``: the minority class
    is kept whole and ``int(n_minority / ratio)`` majority rows are drawn without
    replacement. The output is a subset of the training rows, in training order.

    Parameters
    ----------
    ratio : float
        N_minority / N_majority after resampling, in (0, 1] (``000_…`` grid
        {0.25, 0.5, 0.75, 1}). Binary targets only.

    Notes
    -----
    Infeasible (:class:`InfeasibleConfigError`): a regression target, missing labels, a
    target without exactly two classes, and a ``ratio`` below the current
    minority/majority ratio. The output size is fixed (``sample()`` only); a second
    ``sample`` call draws a fresh ``random_state`` from ``rng_``.
    """

    capabilities: ClassVar[GeneratorInfo] = GeneratorInfo(
        output_kind="subset", releases_original_records=True, needs_target=True, fixed_size=True
    )

    def __init__(self, ratio: float = 1.0) -> None:
        self.ratio = ratio

    def _validate_params(self) -> None:
        check_ratio(self.ratio)

    def _fit(self, train: pd.DataFrame, control: pd.DataFrame | None) -> None:
        target = require_classification(self.spec_, "rus")
        self.labels_ = class_labels(train, target)
        self.counts_ = binary_counts(self.labels_, "rus")
        self.kept_ = undersample_counts(self.counts_, float(self.ratio))
        self.train_ = train
        self.n_sample_calls_ = 0

    def _expected_rows(self, n_rows: int | None) -> int | None:
        return sum(self.kept_.values())

    def _sample(self, n_rows: int | None) -> pd.DataFrame:
        from imblearn.under_sampling import RandomUnderSampler

        seed = self._next_seed()
        sampler = RandomUnderSampler(sampling_strategy=float(self.ratio), random_state=seed)
        # The rows' content plays no role in which rows are drawn: resample positions only.
        positions = np.arange(self.n_train_).reshape(-1, 1)
        sampler.fit_resample(positions, self.labels_)
        index = np.sort(np.asarray(sampler.sample_indices_))
        out = self.train_.iloc[index].reset_index(drop=True)
        self.n_out_ = len(out)
        self.details_ = {
            "sampler": "RandomUnderSampler",
            "ratio": float(self.ratio),
            "random_state": seed,
            "class_counts": {str(c): int(v) for c, v in self.counts_.items()},
            "kept_rows": {str(c): int(v) for c, v in self.kept_.items()},
            "n_out": int(len(out)),
        }
        return out

    def details(self) -> dict[str, Any]:
        """Class counts before and after, the sampler's ``random_state``."""
        return dict(getattr(self, "details_", {}))

    def artifacts(self) -> dict[str, pd.DataFrame]:
        """``row_origin`` (every row ``original``)."""
        if not hasattr(self, "n_out_"):
            return {}
        return {"row_origin": pd.DataFrame({"row_origin": ["original"] * self.n_out_})}


# ====================================================================== SMOTE
class Smote(_SeedMixin, BaseGenerator):
    """SMOTE over-sampling of the minority class (``spec/generators.md`` §4.2).

    ``SMOTE(k_neighbors=knn, sampling_strategy=ratio, random_state=seed)`` on the numeric
    features (unscaled, as the reference). A new minority row is ``x + u·(x_nn − x)`` with
    ``x`` a minority row, ``x_nn`` one of its ``knn`` nearest minority neighbours
    (Euclidean) and ``u ~ U[0, 1)`` one scalar per row; integer columns are rounded half to
    even. Output: all training rows, then the new minority rows.

    Parameters
    ----------
    knn : int
        ``k_neighbors`` (``000_…`` grid {1, 3, 5}); the minority class needs more rows.
    ratio : float
        N_minority / N_majority after resampling, in (0, 1] (grid {0.5, 0.75, 1}); must be
        above the current ratio (imbalanced-learn rejects a ratio that adds no row).
    on_categorical : {"error", "smotenc"}
        What to do when the table has categorical or ordinal features (target excluded).
        ``error`` (reference quirk: plain SMOTE fails on string columns, so the
        configuration is skipped): :class:`InfeasibleConfigError`. ``smotenc``: delegate to
        ``smotenc`` (§4.4) in ``oversample`` mode with the same ``knn`` and ``ratio`` and
        its default min–max scaling.

    Notes
    -----
    Infeasible: regression targets, missing labels, a non-binary target, missing numeric
    features, datetime columns, no numeric feature, a minority class with ``knn`` rows or
    fewer, and a ``ratio`` at or below the current ratio. The output size is fixed
    (``sample()`` only); a second ``sample`` call draws a fresh ``random_state``.
    """

    capabilities: ClassVar[GeneratorInfo] = GeneratorInfo(
        output_kind="mixed", releases_original_records=True, needs_target=True, fixed_size=True
    )
    _name: ClassVar[str] = "smote"

    def __init__(self, knn: int = 5, ratio: float = 1.0, on_categorical: str = "error") -> None:
        self.knn = knn
        self.ratio = ratio
        self.on_categorical = on_categorical

    def _validate_params(self) -> None:
        check_int("knn", self.knn, 1)
        check_ratio(self.ratio)
        check_choice("on_categorical", self.on_categorical, ON_CATEGORICAL)

    # ------------------------------------------------------------------ fit
    def _fit(self, train: pd.DataFrame, control: pd.DataFrame | None) -> None:
        spec = self.spec_
        name = self._name
        self.target_ = require_classification(spec, name)
        self.labels_ = class_labels(train, self.target_)
        self.numeric_, categorical = feature_columns(spec, train, name)
        if categorical and self.on_categorical == "error":
            raise InfeasibleConfigError(
                f"{name} interpolates numeric columns only (on_categorical: error, the reference "
                f"behaviour); dataset {spec.name!r} has categorical feature(s) {', '.join(categorical)} "
                "(set on_categorical: smotenc to use SMOTE-NC)"
            )
        if not self.numeric_:
            raise InfeasibleConfigError(
                f"{name} needs at least one numeric feature; dataset {spec.name!r} has none"
            )
        self.counts_ = binary_counts(self.labels_, name)
        self.new_ = oversample_new(self.counts_, float(self.ratio))
        check_class_sizes(self.counts_, self.new_, int(self.knn), "knn")
        self._check_extra(train)
        self.train_ = train
        self.n_sample_calls_ = 0
        self.delegate_: SmoteNC | None = None
        if categorical:
            self.delegate_ = SmoteNC(knn=int(self.knn), mode="oversample", ratio=float(self.ratio))
            self.delegate_.fit(train, spec, seed=self.seed_)
        else:
            self.features_ = train[list(self.numeric_)].to_numpy(dtype=np.float64)

    def _check_extra(self, train: pd.DataFrame) -> None:
        """Further feasibility checks of subclasses."""

    def _make_sampler(self, seed: int) -> Any:
        from imblearn.over_sampling import SMOTE

        return SMOTE(k_neighbors=int(self.knn), sampling_strategy=float(self.ratio), random_state=seed)

    # ------------------------------------------------------------------ sample
    def _expected_rows(self, n_rows: int | None) -> int | None:
        return self.n_train_ + sum(self.new_.values())

    def _sample(self, n_rows: int | None) -> pd.DataFrame:
        if self.delegate_ is not None:
            out = self.delegate_.sample()
            self.details_ = {**self.delegate_.details(), "on_categorical": "smotenc"}
            self.row_origin_ = self.delegate_.artifacts()["row_origin"]
            return out
        seed = self._next_seed()
        sampler = self._make_sampler(seed)
        X_res, y_res = sampler.fit_resample(self.features_, self.labels_)
        X_new = np.asarray(X_res, dtype=np.float64)[self.n_train_ :]
        y_new = np.asarray(y_res)[self.n_train_ :]
        synthetic = assemble(
            self.spec_,
            numeric=X_new,
            numeric_columns=self.numeric_,
            categorical=pd.DataFrame(index=range(len(X_new))),
            categorical_columns=(),
            target=self.target_,
            labels=y_new,
            truncate=False,
        )
        self.n_new_ = len(synthetic)
        self.details_ = {
            "sampler": type(sampler).__name__,
            "knn": int(self.knn),
            "ratio": float(self.ratio),
            "random_state": seed,
            "class_counts": {str(c): int(v) for c, v in self.counts_.items()},
            "new_rows": {str(c): int(v) for c, v in class_counts(y_new).items()} if len(y_new) else {},
            "n_out": int(self.n_train_ + len(synthetic)),
        }
        self.row_origin_ = pd.DataFrame(
            {"row_origin": ["original"] * self.n_train_ + ["synthetic"] * len(synthetic)}
        )
        return pd.concat([self.train_, synthetic], ignore_index=True)

    # ------------------------------------------------------------------ hooks
    def details(self) -> dict[str, Any]:
        """Sampler, ``knn``, ``ratio``, ``random_state``, class counts and new rows per class."""
        return dict(getattr(self, "details_", {}))

    def artifacts(self) -> dict[str, pd.DataFrame]:
        """``row_origin`` (``original`` / ``synthetic``) of every output row."""
        origin = getattr(self, "row_origin_", None)
        return {} if origin is None else {"row_origin": origin.copy()}


# ====================================================================== Borderline-SMOTE
class BorderlineSmote(Smote):
    """Borderline-SMOTE 1 (``spec/generators.md`` §4.3).

    ``BorderlineSMOTE(kind="borderline-1", k_neighbors=knn, m_neighbors=10,
    sampling_strategy=ratio, random_state=seed)``: only minority rows "in danger" (at least
    half, but not all, of their 10 nearest neighbours over all rows are majority rows) are
    interpolated towards one of their ``knn`` nearest minority neighbours. Same parameters,
    infeasible cases and ``on_categorical`` handling as :class:`Smote` (``smotenc``
    delegates to plain SMOTE-NC, which has no borderline variant); additionally the
    training table needs more than ``m_neighbors`` rows.

    Notes
    -----
    imbalanced-learn generates no row when no minority row is in danger; the output is then
    the training table alone (``details()["new_rows"]`` is empty), so the output size is
    known only after ``sample``.
    """

    _name: ClassVar[str] = "borderline_smote"
    m_neighbors: ClassVar[int] = 10

    def _check_extra(self, train: pd.DataFrame) -> None:
        if len(train) <= self.m_neighbors:
            raise InfeasibleConfigError(
                f"borderline_smote needs more than m_neighbors={self.m_neighbors} training rows to "
                f"find each row's {self.m_neighbors} neighbours; got {len(train)}"
            )

    def _make_sampler(self, seed: int) -> Any:
        from imblearn.over_sampling import BorderlineSMOTE

        return BorderlineSMOTE(
            kind="borderline-1",
            k_neighbors=int(self.knn),
            m_neighbors=self.m_neighbors,
            sampling_strategy=float(self.ratio),
            random_state=seed,
        )

    def _expected_rows(self, n_rows: int | None) -> int | None:
        if self.delegate_ is None and hasattr(self, "n_new_"):
            return self.n_train_ + int(self.n_new_)
        return super()._expected_rows(n_rows)
