"""ε-PrivateSMOTE: Laplace-weighted interpolation of the highest-risk records.

Port of ``spec/generators.md`` §5.1 (normative) of Carvalho, Moniz, Antunes & Chawla,
*Differentially-Private Data Synthetisation for Efficient Re-Identification Risk Control*
(seed paper ``000_06874021c9588b45.txt``, §3, Definitions 2–3, Algorithm 1, §4.1). The
reference code ``tmcarvalho/privateSMOTE`` (``code/privatesmote.py``) states no licence: this
module is a re-implementation from the specification, vectorised (one batched neighbour
query, all draws as arrays).
"""

from __future__ import annotations

import math
import warnings
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from generators.eps_private_smote_neighbours import (
    NeighbourQuery,
    drop_self,
    neighbour_space,
    risky_mask,
    risky_neighbours,
)
from harness.errors import ConfigError, InfeasibleConfigError
from harness.generator import BaseGenerator, GeneratorInfo
from harness.spec import CATEGORICAL_KINDS, DatasetSpec

MODES: tuple[str, ...] = ("fixed", "reference")
"""Values of the ``mode`` alias of ``reference_quirks``."""


class EpsPrivateSmote(BaseGenerator):
    r"""ε-PrivateSMOTE (``spec/generators.md`` §5.1; paper ``000_…`` §3, Algorithm 1).

    Records whose equivalence class on the QI set has fewer than ``k`` rows ("highest
    risk", Definition 2: a QI combination occurring at most twice when ``k = 3``) are each
    replaced by ``per`` (the paper's N) synthetic records; every other record is released
    unchanged. A synthetic record is built from its risky source record ``a`` and its
    ``knn`` nearest neighbours (Euclidean, on the one-hot (``drop_first``) categoricals and
    the numeric columns, target excluded, every column standardised over all rows):

    * numeric column j, neighbour ``b`` drawn uniformly among the ``knn``:
      ``c = a_j + λ (b_j − a_j)`` with ``λ ~ Laplace(0, 1/ε)`` when ``b_j ≠ a_j``; otherwise
      the "flip" ``c = a_j + σ · std_j · λ'`` with ``σ ~ U{−1, +1}``, ``λ' ~ Laplace(0, 1/ε)``
      and ``std_j`` the population standard deviation of column j;
    * categorical column j: uniform over the distinct values of column j among the ``knn``
      neighbours when there are at least two, else uniform over all categories of the
      column (so with ``knn = 1`` always over the whole domain). The draw may return
      ``a_j`` itself, as in the paper's Algorithm 1 and the reference code;
    * target: the source record's value, unchanged.

    Output: the ``per · n_risky`` synthetic rows (each risky record's ``per`` rows
    consecutive, risky records in table order) followed by the ``n − n_risky`` low-risk
    training rows in table order: ``n − n_risky + per · n_risky`` rows. With no risky
    record the output is the training table itself (nothing is drawn).

    Parameters
    ----------
    qi : str or int, optional
        Name of the dataset's QI set used for the risk rule (an int is read as its
        position). None = the trial's active QI set (``spec.qi``; the runner sets it from
        this parameter when given).
    qi_index : int, optional
        Position of the QI set (alias of ``qi``; both may be given only if they agree).
    k : int
        Records whose QI equivalence class has fewer than ``k`` rows are replaced (>= 2).
    knn : int
        Nearest neighbours per risky record (>= 1 and < number of training rows). It may exceed
        the minority class: the neighbours are searched over the entire sample "without any
        class discrimination, i.e. focusing solely on case proximity" (paper §3), unlike SMOTE's,
        so a ``knn`` larger than a class is a legal setting, not an infeasible one.
    per : int
        Synthetic records per risky record (the paper's N; >= 1).
    epsilon : float
        Scale parameter of the Laplace weights, ``λ ~ Laplace(0, 1/epsilon)`` (> 0).
    reference_quirks : bool
        False (default, "fixed"): Algorithm 1 of the paper with the known bugs of the
        reference code fixed. True ("reference"): the behaviour of the authors' code,
        bugs included (see Notes), for reproductions.
    mode : {"fixed", "reference"}, optional
        Alias of ``reference_quirks`` (``spec/generators.md`` §1.3); must agree with it
        when both are given.

    Notes
    -----
    **ε is not a differential-privacy budget.** The Laplace draw is an interpolation
    weight with mean 0, nothing is calibrated to a sensitivity nor composed over columns,
    records or ``per``, and the low-risk records are released verbatim. Hence
    ``formal_dp=None``; ε is recorded only as a parameter. Large ε (10) gives near-copies
    of the risky records (|λ| ≈ 0.1), small ε (0.1) pushes most numeric values far out of
    the observed range (|λ| ≈ 10).

    *Fixed mode* (``reference_quirks=False``):

    1. columns typed by the schema: categorical/ordinal vs continuous/integer (datetime
       columns are interpolated as numbers, in nanoseconds; **Decision**, the spec is
       silent);
    2. missing values in QI columns form their own value in the risk groups
       (``groupby(dropna=False)``);
    3. ``knn + 1`` neighbours are queried and the record's *own index* is dropped (with
       exact duplicates the first result may be another row; when the own index is not
       among the results the farthest one is dropped);
    4. a fresh neighbour is drawn for every attribute (Algorithm 1, line 17);
    5. no range check: values may leave ``[min_j, max_j]`` (as the paper's §4.3 reports);
    6. computed in float64; integer columns rounded half to even, floats unrounded.

    *Reference mode* (``reference_quirks=True``), the authors' code:

    1. categorical = pandas ``object`` dtype only, everything else numeric. Tables built
       by privbench hold categoricals as ``object`` (``harness.dtypes``), so on them this
       coincides with the schema typing; the reference's interpolation of integer-coded
       categoricals comes from its CSV reading, which privbench does not reproduce;
    2. a row with a missing QI value is never risky (pandas drops NaN groups);
    3. the first neighbour result is dropped, whatever it is;
    4. one neighbour per synthetic record, used for all attributes;
    5. interpolated values outside ``[min_j, max_j]`` revert to ``a_j`` (the intended
       "reflect" branch tests ``min_j > c > max_j``, never true); a flip outside the range
       is mirrored to ``a_j − σ · std_j · λ'`` without a further check;
    6. values pass through a ``float32`` buffer; integer columns are truncated
       (``astype(int)``); float columns are rounded to the number of decimals of the
       column's first value (``str(v)[::-1].find('.')``, so ``-1`` = tens when the text
       has no point). Float columns whose first value is integral are truncated like
       integers: the reference script's ``keep_numbers`` casts them to ``int`` before
       synthesis (an extension of ``spec/generators.md`` §5.1 step 8, which omits it).

    Not reproduced in either mode: the reference's ``keep_numbers`` truncation of the
    *input* table itself, and its assembly bug that drops the low-risk records when
    ``per · n_risky`` happens to equal ``n``.

    Differences between the paper and its code (documented in ``spec/generators.md``
    §5.1): Definition 3 writes the mechanism as additive noise ``ϑ + Laplace(1/ε)`` while
    Algorithm 1 (and the code) use the Laplace draw as an interpolation weight (both
    modes follow Algorithm 1); the text says the whole-domain categorical draw prevents
    the new value from equalling the original, which neither Algorithm 1 nor the code
    enforces; Algorithm 1 draws a neighbour per attribute, the code one per record; the
    code's range check/revert and its ``float32``/truncation typing are not in the paper.

    Cost (departure from the reference code, not from its output): the neighbour graph of
    the risky records depends on the training rows, the QI set, ``k``, ``knn`` and the mode
    but not on ``epsilon`` or ``per``, so the 15 (ε, per) variants of one knn share it
    through the cross-trial memo (:mod:`harness.memo`, namespace ``eps_private_smote``; a
    trial with ``runtime.use_cache=false`` searches afresh). Served and searched graphs are
    the same integer arrays, so the outputs are byte-identical.

    Missing values (**Decision**, the spec is silent): a missing categorical value is a
    category of its own (in the neighbour space — fixed mode — and in the draws); a
    missing numeric value is mean-imputed for the neighbour search only; a risky record's
    missing numeric value stays missing, and a missing neighbour value triggers the flip.
    Column statistics ignore missing values.

    References
    ----------
    Carvalho, T., Moniz, N., Antunes, L. & Chawla, N. *Differentially-Private Data
    Synthetisation for Efficient Re-Identification Risk Control* (ε-PrivateSMOTE),
    seed paper ``000_06874021c9588b45.txt``.
    """

    capabilities: ClassVar[GeneratorInfo] = GeneratorInfo(
        output_kind="mixed",
        releases_original_records=True,
        formal_dp=None,
        supports_categorical=True,
        supports_missing=True,
        needs_target=True,
        needs_qi=True,
        fixed_size=True,
        randomised=True,
    )

    def __init__(
        self,
        qi: str | int | None = None,
        qi_index: int | None = None,
        k: int = 3,
        knn: int = 1,
        per: int = 1,
        epsilon: float = 0.5,
        reference_quirks: bool = False,
        mode: str | None = None,
    ) -> None:
        self.qi = qi
        self.qi_index = qi_index
        self.k = k
        self.knn = knn
        self.per = per
        self.epsilon = epsilon
        self.reference_quirks = reference_quirks
        self.mode = mode

    # ------------------------------------------------------------------ parameters
    def _validate_params(self) -> None:
        _check_int("k", self.k, 2)
        _check_int("knn", self.knn, 1)
        _check_int("per", self.per, 1)
        eps = self.epsilon
        if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not math.isfinite(eps) or eps <= 0:
            raise ConfigError(f"`epsilon` must be a finite number > 0; got {eps!r}")
        if not isinstance(self.reference_quirks, bool):
            raise ConfigError(f"`reference_quirks` must be true or false; got {self.reference_quirks!r}")
        if self.mode is not None:
            if self.mode not in MODES:
                raise ConfigError(f"`mode` must be one of {', '.join(MODES)} or null; got {self.mode!r}")
            if self.reference_quirks and self.mode == "fixed":
                raise ConfigError("`mode` is 'fixed' but `reference_quirks` is true; set one of them")
        if self.qi is not None and (isinstance(self.qi, bool) or not isinstance(self.qi, (str, int))):
            raise ConfigError(f"`qi` must be the name of a QI set; got {self.qi!r}")
        if self.qi_index is not None:
            _check_int("qi_index", self.qi_index, 0)

    @property
    def reference(self) -> bool:
        """True when the reference code's behaviour is requested (``reference_quirks`` or ``mode``)."""
        return bool(self.reference_quirks) or self.mode == "reference"

    # ------------------------------------------------------------------ fit
    def _fit(self, train: pd.DataFrame, control: pd.DataFrame | None) -> None:
        spec = self._active_spec(self.spec_)
        self.spec_ = spec
        n = len(train)
        if self.knn >= n:
            raise InfeasibleConfigError(  # data-dependent, as SMOTE's: the trial is skipped, not an error
                f"`knn` must be < the number of training rows ({n}); got {self.knn}"
            )
        train = train.reset_index(drop=True)
        target = spec.target
        assert target is not None  # needs_target is checked by BaseGenerator.fit
        predictors = [c for c in spec.table_columns if c != target]
        if self.reference:
            categorical = [c for c in predictors if train[c].dtype == object]
        else:
            categorical = [c for c in predictors if spec.kind(c) in CATEGORICAL_KINDS]
        numeric = [c for c in predictors if c not in categorical]

        self.train_ = train
        self.numeric_ = numeric
        self.categorical_ = categorical
        self.x_ = np.column_stack([_as_float(train[c]) for c in numeric]) if numeric else np.empty((n, 0))
        codes, self.categories_ = _encode_categories(train, categorical)
        self.codes_ = codes

        risky = risky_mask(train, spec.qi, self.k, missing_is_value=not self.reference)
        self.risky_ = np.flatnonzero(risky)
        self.low_ = np.flatnonzero(~risky)

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-missing columns
            self.min_ = np.nanmin(self.x_, axis=0) if n else np.empty(0)
            self.max_ = np.nanmax(self.x_, axis=0) if n else np.empty(0)
            self.std_ = np.nanstd(self.x_, axis=0)
        self.neighbours_ = self._neighbours(train)
        self.details_: dict[str, Any] = {}
        self.row_origin_: pd.DataFrame | None = None

    def _active_spec(self, spec: DatasetSpec) -> DatasetSpec:
        if self.qi is None and self.qi_index is None:
            return spec
        chosen = spec.with_active_qi(self.qi if self.qi is not None else self.qi_index)
        if self.qi is not None and self.qi_index is not None:
            other = spec.with_active_qi(self.qi_index)
            if other.qi_set_name != chosen.qi_set_name:
                raise ConfigError(
                    f"`qi` ({self.qi!r}) and `qi_index` ({self.qi_index!r}) name different QI sets "
                    f"({chosen.qi_set_name!r} vs {other.qi_set_name!r}); set one of them"
                )
        if spec.active_qi is not None and spec.active_qi != chosen.qi_set_name:
            raise ConfigError(
                f"the generator's QI set {chosen.qi_set_name!r} differs from the trial's active QI set "
                f"{spec.active_qi!r}; set one of them"
            )
        return chosen

    def _neighbours(self, train: pd.DataFrame) -> np.ndarray:
        """Indices (n_risky, knn) of each risky record's neighbours, itself excluded (memoised)."""
        found, self.neighbour_source_ = risky_neighbours(
            NeighbourQuery(
                train=train,
                numeric=tuple(self.numeric_),
                categorical=tuple(self.categorical_),
                x=self.x_,
                risky=self.risky_,
                qi=tuple(self.spec_.qi),
                k=int(self.k),
                knn=int(self.knn),
                reference=self.reference,
            )
        )
        return found

    def _expected_rows(self, n_rows: int | None) -> int | None:
        return len(self.low_) + self.per * len(self.risky_)

    # ------------------------------------------------------------------ sample
    def _sample(self, n_rows: int | None) -> pd.DataFrame:
        n_risk, n_low = len(self.risky_), len(self.low_)
        target = self.spec_.target
        assert target is not None
        if n_risk == 0:
            out = self.train_.copy(deep=True)
            self._record(np.empty((0, len(self.numeric_))), 0, 0, 0)
            return out
        per = int(self.per)
        draw_row = np.repeat(np.arange(n_risk), per)  # risky record (0..n_risk-1) of each draw
        sources = self.risky_[draw_row]
        numbers, n_flip, n_reverted = self._numeric_draws(draw_row)
        cat_codes = self._categorical_draws(draw_row)

        synthetic: dict[str, Any] = {}
        for j, col in enumerate(self.numeric_):
            synthetic[col] = _from_float(numbers[:, j], self.train_[col])
        for j, col in enumerate(self.categorical_):
            synthetic[col] = self.categories_[j][cat_codes[:, j]]
        synthetic[target] = self.train_[target].to_numpy()[sources]
        synthetic_frame = pd.DataFrame(synthetic, columns=list(self.spec_.table_columns))
        low = self.train_.iloc[self.low_].reset_index(drop=True)
        out = pd.concat([synthetic_frame, low], ignore_index=True)

        self.row_origin_ = pd.DataFrame(
            {
                "row_origin": np.array(["synthetic"] * len(sources) + ["original"] * n_low, dtype=object),
                "source_row": np.concatenate([sources, self.low_]).astype(np.int64),
            }
        )
        self._record(numbers, n_flip, n_reverted, len(sources))
        return out

    def _numeric_draws(self, draw_row: np.ndarray) -> tuple[np.ndarray, int, int]:
        """Synthetic numeric values (R, m_num), the number of flips and of reverted values."""
        rng = self.rng_
        r, m = len(draw_row), len(self.numeric_)
        a = self.x_[self.risky_[draw_row]]
        if self.reference:  # one neighbour per synthetic record
            choice = rng.integers(0, self.knn, size=r)
            b = self.x_[self.neighbours_[draw_row, choice]]
        else:  # a fresh neighbour per attribute (Algorithm 1, line 17)
            choice = rng.integers(0, self.knn, size=(r, m))
            b = self.x_[self.neighbours_[draw_row[:, None], choice], np.arange(m)[None, :]]
        lam = rng.laplace(0.0, 1.0 / float(self.epsilon), size=(r, m))
        sign = rng.choice(np.array([-1.0, 1.0]), size=(r, m))
        flip = (b == a) | (np.isnan(b) & ~np.isnan(a))
        shift = sign * self.std_[None, :] * lam
        interpolated = a + lam * (b - a)
        flipped = a + shift
        n_reverted = 0
        if self.reference:
            low, high = self.min_[None, :], self.max_[None, :]
            inside = (low <= interpolated) & (interpolated <= high)
            n_reverted = int((~flip & ~inside & ~np.isnan(a)).sum())
            interpolated = np.where(inside, interpolated, a)
            flipped = np.where((low <= flipped) & (flipped <= high), flipped, a - shift)
        values = np.where(flip, flipped, interpolated)
        if self.reference:
            values = self._reference_types(values)
        return values, int((flip & ~np.isnan(a)).sum()), n_reverted

    def _reference_types(self, values: np.ndarray) -> np.ndarray:
        """float32 buffer, truncated integers, floats rounded to their first value's decimals."""
        values = values.astype(np.float32).astype(np.float64)
        for j, col in enumerate(self.numeric_):
            decimals = _reference_decimals(self.train_[col], self.spec_.kind(col))
            if decimals is None:
                values[:, j] = np.trunc(values[:, j])
            else:
                values[:, j] = np.round(values[:, j], decimals)
        return values

    def _categorical_draws(self, draw_row: np.ndarray) -> np.ndarray:
        """Category codes (R, m_cat): uniform over the neighbours' distinct values if >= 2, else the domain."""
        m = len(self.categorical_)
        if m == 0:
            return np.empty((len(draw_row), 0), dtype=np.intp)
        neighbour_codes = np.sort(self.codes_[self.neighbours_], axis=1)  # (n_risk, knn, m_cat)
        first = np.ones(neighbour_codes.shape, dtype=bool)
        first[:, 1:, :] = neighbour_codes[:, 1:, :] != neighbour_codes[:, :-1, :]
        n_distinct = first.sum(axis=1)  # (n_risk, m_cat)
        rank = np.cumsum(first, axis=1) - 1  # rank of each position's distinct value
        domain = np.array([len(c) for c in self.categories_])
        from_neighbours = n_distinct[draw_row] >= 2
        high = np.where(from_neighbours, n_distinct[draw_row], domain[None, :])
        pick = self.rng_.integers(0, high)  # (R, m_cat)
        hit = first[draw_row] & (rank[draw_row] == pick[:, None, :])
        position = hit.argmax(axis=1)
        chosen = np.take_along_axis(neighbour_codes[draw_row], position[:, None, :], axis=1)[:, 0, :]
        return np.where(from_neighbours, chosen, pick)

    def _record(self, numbers: np.ndarray, n_flip: int, n_reverted: int, n_synthetic: int) -> None:
        finite = ~np.isnan(numbers)
        n_values = int(finite.sum())
        outside = (numbers < self.min_[None, :]) | (numbers > self.max_[None, :])
        self.details_ = {
            "mode": "reference" if self.reference else "fixed",
            "qi_set": self.spec_.qi_set_name,
            "qi_columns": list(self.spec_.qi),
            "n_train": len(self.train_),
            "n_risky": len(self.risky_),
            "n_low": len(self.low_),
            "n_synthetic": n_synthetic,
            "n_out": len(self.low_) + n_synthetic,
            "share_out_of_range": float(outside[finite].mean()) if n_values else 0.0,
            "share_flip": n_flip / n_values if n_values else 0.0,
            "n_reverted": n_reverted,
            "neighbours": getattr(self, "neighbour_source_", "computed"),
        }
        if n_synthetic == 0:
            self.row_origin_ = pd.DataFrame(
                {
                    "row_origin": np.array(["original"] * len(self.train_), dtype=object),
                    "source_row": np.arange(len(self.train_), dtype=np.int64),
                }
            )

    # ------------------------------------------------------------------ hooks
    def details(self) -> dict[str, Any]:
        """Diagnostics of the last sample.

        ``n_risky``, ``n_low`` (released unchanged), ``n_synthetic``, ``n_out``, the QI set
        (``qi_set``, ``qi_columns``), ``share_out_of_range`` (synthetic numeric values
        outside the training ``[min, max]`` of their column), ``share_flip`` (numeric values
        from the ``b == a`` branch), ``n_reverted`` (reference mode: interpolations
        reverted to the original value), the ``mode`` and ``neighbours`` (``computed``, ``memo``
        when the cross-trial memo served the neighbour graph, ``none`` without risky records).
        """
        return dict(getattr(self, "details_", {}))

    def artifacts(self) -> dict[str, pd.DataFrame]:
        """``row_origin``: per output row, ``synthetic``/``original`` and its training ``source_row``."""
        origin = getattr(self, "row_origin_", None)
        return {} if origin is None else {"row_origin": origin.copy()}


# ---------------------------------------------------------------------- helpers
def _check_int(name: str, value: Any, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ConfigError(f"`{name}` must be an integer >= {minimum}; got {value!r}")
    if value < minimum:
        raise ConfigError(f"`{name}` must be >= {minimum}; got {value!r}")


def _as_float(values: pd.Series) -> np.ndarray:
    """A numeric (or datetime, in ns) column as float64 with NaN for missing."""
    if pd.api.types.is_datetime64_any_dtype(values.dtype):
        missing = values.isna().to_numpy()
        out = values.to_numpy(dtype="datetime64[ns]").astype(np.int64).astype(np.float64)
        out[missing] = np.nan
        return out
    return pd.to_numeric(values, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)


def _from_float(values: np.ndarray, like: pd.Series) -> Any:
    """Inverse of :func:`_as_float` for the dtype of ``like`` (rounding is left to ``conform``)."""
    if pd.api.types.is_datetime64_any_dtype(like.dtype):
        ns = np.rint(values)
        representable = (ns >= pd.Timestamp.min.value) & (ns <= pd.Timestamp.max.value)
        ns = np.where(representable, ns, np.nan)  # beyond the datetime64[ns] range: missing
        return pd.to_datetime(pd.array(ns, dtype="Float64").astype("Int64"), unit="ns")
    return values


def _encode_categories(train: pd.DataFrame, columns: list[str]) -> tuple[np.ndarray, list[np.ndarray]]:
    """Integer codes (n, m_cat) over sorted categories, missing as the last category when present."""
    codes = np.empty((len(train), len(columns)), dtype=np.intp)
    categories: list[np.ndarray] = []
    for j, col in enumerate(columns):
        values = train[col]
        missing = values.isna().to_numpy()
        present = np.array(sorted(values[~missing].unique(), key=str), dtype=object)
        col_codes = pd.Categorical(values, categories=present).codes.astype(np.intp)
        if missing.any():
            col_codes[missing] = len(present)
            present = np.append(present, np.nan).astype(object)
        codes[:, j] = col_codes
        categories.append(present)
    return codes, categories


def _reference_decimals(values: pd.Series, kind: str) -> int | None:
    """Rounding of the reference code for a numeric column: None = truncate to integer.

    Integer columns (and datetimes) are truncated by ``astype(int)``; a float column whose
    first value is integral was cast to ``int`` by the reference's ``keep_numbers``;
    other float columns keep the decimals of their first value, ``str(v)[::-1].find('.')``.
    """
    if kind == "integer" or not pd.api.types.is_float_dtype(values.dtype) or len(values) == 0:
        return None
    first = float(values.iloc[0])
    if math.isfinite(first) and first.is_integer():
        return None
    return str(first)[::-1].find(".")


__all__ = ["MODES", "EpsPrivateSmote", "drop_self", "neighbour_space"]
