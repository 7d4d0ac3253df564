"""Reference generators (``spec/generators.md`` §3): identity, independent marginals,
uniform, real holdout and subsample.

They bound every comparison: ``identity`` is the utility ceiling and privacy floor,
``uniform`` the "any useful generator should do better" floor, ``real_holdout`` an unseen
real sample, ``independent_marginals`` keeps every marginal and no dependence, and
``subsample`` is the ``Sample40`` reference. All randomness comes from ``self.rng_``.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from harness.errors import ConfigError, DataError, InfeasibleConfigError
from harness.generator import BaseGenerator, GeneratorInfo

NUMERIC_MODES: tuple[str, ...] = ("observed", "range")


class Identity(BaseGenerator):
    """Release the training table unchanged (``spec/generators.md`` §3.1).

    Upper bound for utility and lower bound for privacy; every sweep includes it. The
    output is the training table itself, so the size is fixed (``sample`` accepts only
    ``n_rows=None``) and the seed plays no role (``randomised=False``).
    """

    capabilities: ClassVar[GeneratorInfo] = GeneratorInfo(
        output_kind="transformed",
        releases_original_records=True,
        fixed_size=True,
        randomised=False,
    )

    def __init__(self) -> None:
        pass

    def _fit(self, train: pd.DataFrame, control: pd.DataFrame | None) -> None:
        self.train_ = train

    def _sample(self, n_rows: int | None) -> pd.DataFrame:
        return self.train_.copy(deep=True)


class IndependentMarginals(BaseGenerator):
    """Resample every column independently (``spec/generators.md`` §3.2).

    ``fit`` stores each column's training values (missing values included); ``sample(n)``
    draws ``n`` values with replacement per column, independently across columns. Every
    marginal is preserved in expectation and all dependence between columns is destroyed.
    ``sample(None)`` returns as many rows as the training table.

    A sampled row may coincide with a training row by chance (likely for few, coarse
    columns), but no row is copied, so ``releases_original_records`` is False.
    """

    capabilities: ClassVar[GeneratorInfo] = GeneratorInfo(output_kind="synthetic")

    def __init__(self) -> None:
        pass

    def _fit(self, train: pd.DataFrame, control: pd.DataFrame | None) -> None:
        self.values_ = {col: train[col].to_numpy(copy=True) for col in train.columns}

    def _sample(self, n_rows: int | None) -> pd.DataFrame:
        n = self.n_train_ if n_rows is None else n_rows
        return pd.DataFrame(
            {col: values[self.rng_.integers(0, len(values), size=n)] for col, values in self.values_.items()}
        )


class Uniform(BaseGenerator):
    """Sample each column uniformly and independently (``spec/generators.md`` §3.3).

    The "MD" benchmark of the Synthcity evaluation (``004_…``): any useful generator
    should do better.

    Parameters
    ----------
    numeric_mode : {"observed", "range"}
        ``observed``: numeric columns are uniform over their distinct observed values;
        ``range``: U[min, max] of the training column (integer columns rounded half to
        even), the SDGym convention.

    Notes
    -----
    Categorical, ordinal and datetime columns are always uniform over their distinct
    observed values, with NA one of the values when the column has missing values.
    **Decision** (the spec is silent): in ``range`` mode a numeric column with missing
    values emits NA with the column's training missing share; an all-missing column
    stays missing.
    """

    capabilities: ClassVar[GeneratorInfo] = GeneratorInfo(output_kind="synthetic")

    def __init__(self, numeric_mode: str = "observed") -> None:
        self.numeric_mode = numeric_mode

    def _validate_params(self) -> None:
        if self.numeric_mode not in NUMERIC_MODES:
            raise ConfigError(
                f"`numeric_mode` must be one of {', '.join(map(repr, NUMERIC_MODES))}; "
                f"got {self.numeric_mode!r}"
            )

    def _fit(self, train: pd.DataFrame, control: pd.DataFrame | None) -> None:
        use_range = set(self.spec_.numeric_columns) if self.numeric_mode == "range" else set()
        self.distinct_: dict[str, np.ndarray] = {}
        self.ranges_: dict[str, tuple[float, float, float]] = {}
        for col in train.columns:
            values = train[col]
            if col in use_range and values.notna().any():
                self.ranges_[col] = (float(values.min()), float(values.max()), float(values.isna().mean()))
            else:
                self.distinct_[col] = pd.unique(values.to_numpy())

    def _sample(self, n_rows: int | None) -> pd.DataFrame:
        n = self.n_train_ if n_rows is None else n_rows
        out: dict[str, Any] = {}
        for col in self.spec_.table_columns:
            if col in self.ranges_:
                low, high, missing_share = self.ranges_[col]
                values = self.rng_.uniform(low, high, size=n)
                if self.spec_.kind(col) == "integer":
                    values = np.rint(values)
                values[self.rng_.random(n) < missing_share] = np.nan
                out[col] = values
            else:
                distinct = self.distinct_[col]
                out[col] = distinct[self.rng_.integers(0, len(distinct), size=n)]
        return pd.DataFrame(out)


class RealHoldout(BaseGenerator):
    """Release a sample of the control split (``spec/generators.md`` §3.4).

    The "privacy floor" and "second real sample" reference: the *Test Set Baseline* of
    ``002_…`` §4.4 and the holdout comparator of ``004_…`` *Bespoke Synthetic Teaching
    Datasets*. It is the one generator given the control split (``needs_control``).

    ``sample(n)`` draws ``n_out = min(n, |control|)`` control rows without replacement
    (seeded; recorded as ``n_out_``); ``sample(None)`` uses ``n = |train|``.

    Notes
    -----
    The output consists of real records, but of the control split, never of the training
    table: ``output_kind="subset"`` (of the control split) and
    ``releases_original_records=False`` (no *training* row is released). The released
    categories are those of train and control together; categories that occur only in the
    control split are therefore accepted by the output check.
    """

    capabilities: ClassVar[GeneratorInfo] = GeneratorInfo(
        output_kind="subset",
        releases_original_records=False,
        needs_control=True,
    )

    def __init__(self) -> None:
        pass

    def _fit(self, train: pd.DataFrame, control: pd.DataFrame | None) -> None:
        if control is None or len(control) == 0:
            raise DataError("real_holdout: the control split is empty; expected at least one row")
        if list(control.columns) != list(train.columns):
            raise DataError(
                f"real_holdout: control columns {list(control.columns)} differ from the training "
                f"columns {list(train.columns)}"
            )
        self.control_ = control.reset_index(drop=True)
        # Real control records may hold categories the training split lacks (§3.4 releases them).
        self.training_categories_ = {
            col: seen | frozenset(self.control_[col].dropna().unique())
            for col, seen in self.training_categories_.items()
        }

    def _expected_rows(self, n_rows: int | None) -> int | None:
        return min(self.n_train_ if n_rows is None else n_rows, len(self.control_))

    def _sample(self, n_rows: int | None) -> pd.DataFrame:
        n_out = self._expected_rows(n_rows)
        assert n_out is not None
        self.n_out_ = n_out
        rows = self.rng_.choice(len(self.control_), size=n_out, replace=False)
        return self.control_.iloc[rows].reset_index(drop=True)


class Subsample(BaseGenerator):
    """Simple random sample of the training rows (``spec/generators.md`` §3.5).

    ``Sample40`` of ``004_…`` *A Comparison of SynDiffix Multi-table Versus Single-table
    Synthetic Data*: ``floor(p * n_train)`` training rows drawn without replacement, in
    the (random) order drawn. The size is set by ``p``, so ``sample`` accepts only
    ``n_rows=None`` (``fixed_size``).

    Parameters
    ----------
    p : float
        Fraction of training rows released, in (0, 1].

    Raises
    ------
    InfeasibleConfigError
        From ``fit`` when ``floor(p * n_train)`` is 0.
    """

    capabilities: ClassVar[GeneratorInfo] = GeneratorInfo(
        output_kind="subset",
        releases_original_records=True,
        fixed_size=True,
    )

    def __init__(self, p: float = 0.4) -> None:
        self.p = p

    def _validate_params(self) -> None:
        p = self.p
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not math.isfinite(p) or not 0 < p <= 1:
            raise ConfigError(f"`p` must be in (0, 1]; got {p!r}")

    def _fit(self, train: pd.DataFrame, control: pd.DataFrame | None) -> None:
        # Exact decimal arithmetic: 0.29 * 100 is 28.999... in floating point.
        self.n_out_ = math.floor(Fraction(str(self.p)) * len(train))
        if self.n_out_ == 0:
            raise InfeasibleConfigError(
                f"subsample: p * n = {self.p} * {len(train)} rounds down to 0 rows; "
                f"need at least {math.ceil(1 / self.p)} training rows"
            )
        self.train_ = train

    def _expected_rows(self, n_rows: int | None) -> int | None:
        return self.n_out_

    def _sample(self, n_rows: int | None) -> pd.DataFrame:
        rows = self.rng_.choice(self.n_train_, size=self.n_out_, replace=False)
        return self.train_.iloc[rows].reset_index(drop=True)
