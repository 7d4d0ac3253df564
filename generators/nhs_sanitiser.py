"""``nhs_sanitiser``: the NHS England sanitisation procedure (``spec/generators.md`` §6.6).

The comparator of ``001_…`` §4.2.1 ("the sanitisation procedure by NHS England"), as
implemented by Stadler et al. (``spring-epfl/synthetic_data_release``,
``sanitisation_techniques/sanitiser.py``, ``SanitiserNHS``). Steps, all on the training
table:

1. impute missing values (categorical: most frequent; numeric: median);
2. numeric non-QI columns: cast to integers, cap at the ``max_quantile`` quantile;
3. numeric QI columns: bin into ``nbins`` intervals labelled ``"(a,b]"``;
4. drop the records holding a category (of any categorical or binned column) whose
   frequency is ≤ ``thresh_rare``;
5. drop the records whose QI combination occurs fewer than ``anonymity_set_size`` times.

The algorithm is deterministic: no draw from ``rng_``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from generators.kanon.equivalence import class_sizes
from generators.kanon.hierarchies import DECODE_MODES, decode_numeric, format_number
from harness.errors import ConfigError
from harness.generator import BaseGenerator, GeneratorInfo
from harness.params import check_bool, check_choice, check_column_list, check_int

RARE_REPORTED = 20
"""How many rare categories per column ``details()`` lists."""


def most_frequent(values: pd.Series) -> Any:
    """The most frequent non-missing value (ties: the smallest, as scikit-learn's
    ``SimpleImputer(strategy="most_frequent")``); NaN when every value is missing."""
    counts = values.dropna().value_counts()
    if counts.empty:
        return np.nan
    return min(counts.index[counts.to_numpy() == counts.max()])


def bin_edges(values: np.ndarray, nbins: int) -> np.ndarray:
    """Edges of ``nbins`` equal-width intervals spanning the non-missing ``values`` (one
    interval if they are constant)."""
    finite = values[~np.isnan(values)]
    if finite.size == 0:
        return np.array([0.0, 0.0])
    low, high = float(finite.min()), float(finite.max())
    if low == high:
        return np.array([low, high])
    edges = np.array([float(f"{e:.10g}") for e in np.linspace(low, high, nbins + 1)])
    edges[0], edges[-1] = low, high  # inner edges rounded to 10 significant digits for readable labels
    return edges


def bin_labels(values: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Label ``"(a,b]"`` of the interval holding each value (the lowest interval also holds
    its lower edge, i.e. the minimum); NaN stays NaN."""
    names = np.array(
        [f"({format_number(a)},{format_number(b)}]" for a, b in zip(edges[:-1], edges[1:])], dtype=object
    )
    index = np.clip(np.searchsorted(edges, values, side="left"), 1, len(edges) - 1) - 1
    out = names[index]
    out[np.isnan(values)] = np.nan
    return out


class NhsSanitiser(BaseGenerator):
    """NHS England sanitisation procedure (``spec/generators.md`` §6.6; reference
    ``SanitiserNHS`` of ``spring-epfl/synthetic_data_release``).

    Parameters
    ----------
    nbins : int
        Intervals of a numeric QI column, >= 1.
    thresh_rare : int
        Records holding a category with frequency ≤ ``thresh_rare`` are dropped (0 = none).
    max_quantile : float
        Numeric non-QI values above this quantile (of the imputed, integer-cast column)
        are capped to it, in [0, 1] (1 = no capping).
    anonymity_set_size : int
        Records whose QI combination occurs fewer times are dropped (the reference's ``k``;
        1 = no filtering), >= 1.
    quids : list of str, optional
        The quasi-identifiers; None = the active QI set of the dataset (none when the
        dataset defines no QI set).
    decode : {"lower", "midpoint"}
        Released value of a binned numeric QI (§1.2 rule 6); the ``"(a,b]"`` labels are the
        ``generalised`` artifact.
    reference_quirks : bool
        True truncates toward zero when casting to integers (the reference's ``astype(int)``);
        False rounds half to even (§1.2 rule 3).

    Notes
    -----
    **Decisions.** The reference bins numeric QIs into the bins of its metadata file (its
    ``nbins`` is unused); the harness has no such bins, so it uses ``nbins`` equal-width
    intervals between the column's minimum and maximum (after imputation). Frequencies
    (step 4) are those of the whole imputed table; the QI combinations (step 5) are counted
    after step 4, as in the reference. Datetime columns are left unchanged (the reference
    has none); a column with no non-missing value stays missing. Released tables keep the
    spec's dtypes, so continuous columns hold integral floats after step 2 and binned
    numeric QIs release the decoded interval. The output has ``n − dropped`` rows.

    Details: the parameters, the QI set, imputed cells, caps, bin edges, the rare
    categories and the rows dropped by each rule.
    """

    capabilities: ClassVar[GeneratorInfo] = GeneratorInfo(
        output_kind="transformed",
        releases_original_records=True,
        generalised_output=True,
        fixed_size=True,
        randomised=False,
    )

    def __init__(
        self,
        nbins: int = 10,
        thresh_rare: int = 0,
        max_quantile: float = 1.0,
        anonymity_set_size: int = 1,
        quids: list[str] | None = None,
        decode: str = "lower",
        reference_quirks: bool = False,
    ) -> None:
        self.nbins = nbins
        self.thresh_rare = thresh_rare
        self.max_quantile = max_quantile
        self.anonymity_set_size = anonymity_set_size
        self.quids = quids
        self.decode = decode
        self.reference_quirks = reference_quirks

    # ------------------------------------------------------------------ parameters
    def _validate_params(self) -> None:
        check_int("nbins", self.nbins, 1)
        check_int("thresh_rare", self.thresh_rare, 0)
        q = self.max_quantile
        if (
            isinstance(q, bool)
            or not isinstance(q, (int, float, np.integer, np.floating))
            or not math.isfinite(float(q))
            or not 0 <= float(q) <= 1
        ):
            raise ConfigError(f"`max_quantile` must be a number in [0, 1]; got {q!r}")
        check_int("anonymity_set_size", self.anonymity_set_size, 1)
        check_column_list("quids", self.quids)
        check_choice("decode", self.decode, DECODE_MODES)
        check_bool("reference_quirks", self.reference_quirks)

    def _quids(self) -> list[str]:
        spec = self.spec_
        if self.quids is None:
            return list(spec.qi)
        unknown = [c for c in self.quids if c not in spec.table_columns]
        if unknown:
            raise ConfigError(
                f"`quids` names unknown column(s) {', '.join(unknown)}; expected columns of dataset "
                f"{spec.name!r}: {', '.join(spec.table_columns)}"
            )
        return list(dict.fromkeys(self.quids))

    # ------------------------------------------------------------------ fit
    def _fit(self, train: pd.DataFrame, control: pd.DataFrame | None) -> None:
        spec = self.spec_
        quids = self._quids()
        data = train.reset_index(drop=True)
        n = len(data)
        out: dict[str, Any] = {}
        labels: dict[str, np.ndarray] = {}  # categorical view for the rare rule and the QI classes
        imputed: dict[str, int] = {}
        capped: dict[str, dict[str, Any]] = {}
        binned: dict[str, list[float]] = {}
        for col in spec.table_columns:
            column = spec.column(col)
            values = data[col]
            n_missing = int(values.isna().sum())
            if column.is_categorical:
                fill = most_frequent(values)
                if n_missing and not _missing(fill):
                    values = values.fillna(fill)
                    imputed[col] = n_missing
                out[col] = labels[col] = values.to_numpy(dtype=object)
            elif column.is_numeric:
                numbers = values.to_numpy(dtype=float)
                if n_missing and n_missing < n:
                    numbers = np.where(np.isnan(numbers), float(np.nanmedian(numbers)), numbers)
                    imputed[col] = n_missing
                if col in quids:
                    edges = bin_edges(numbers, int(self.nbins))
                    labels[col] = bin_labels(numbers, edges)
                    out[col] = decode_numeric(labels[col], self.decode)
                    binned[col] = [float(e) for e in edges]
                else:
                    out[col], cap = self._cap(self._to_int(numbers))
                    if cap is not None:
                        capped[col] = cap
            else:  # datetime: unchanged
                out[col] = values.to_numpy()

        # step 4: records holding a rare category
        rare_rows = np.zeros(n, dtype=bool)
        dropped_rare: dict[str, int] = {}
        rare_values: dict[str, list[Any]] = {}
        if int(self.thresh_rare) > 0:
            for col, lab in labels.items():
                counts = pd.Series(lab, dtype=object).value_counts()
                rare = counts.index[counts.to_numpy() <= int(self.thresh_rare)]
                if len(rare):
                    hit = pd.Series(lab, dtype=object).isin(set(rare)).to_numpy()
                    dropped_rare[col] = int(hit.sum())
                    rare_values[col] = sorted(map(str, rare))[:RARE_REPORTED]
                    rare_rows |= hit
        # step 5: records in QI combinations smaller than anonymity_set_size
        small = np.zeros(n, dtype=bool)
        if quids and int(self.anonymity_set_size) > 1:
            kept = np.flatnonzero(~rare_rows)
            sizes = class_sizes([np.asarray(labels.get(c, out[c]), dtype=object)[kept] for c in quids])
            small[kept[sizes < int(self.anonymity_set_size)]] = True
        keep = ~(rare_rows | small)
        rows = np.flatnonzero(keep)

        self.release_ = pd.DataFrame(
            {col: _take(out[col], rows) for col in spec.table_columns}, index=pd.RangeIndex(len(rows))
        )
        self.generalised_ = pd.DataFrame(
            {c: pd.Series(labels[c][rows], dtype=object) for c in binned}, index=pd.RangeIndex(len(rows))
        )
        self.binned_ = list(binned)
        self.details_ = {
            "quids": quids,
            "nbins": int(self.nbins),
            "thresh_rare": int(self.thresh_rare),
            "max_quantile": float(self.max_quantile),
            "anonymity_set_size": int(self.anonymity_set_size),
            "reference_quirks": bool(self.reference_quirks),
            "decode": self.decode,
            "imputed": imputed,
            "capped": capped,
            "bins": binned,
            "rare_categories": rare_values,
            "dropped_rare_by_column": dropped_rare,
            "dropped_rare": int(rare_rows.sum()),
            "dropped_anonymity": int(small.sum()),
            "n_dropped": int(n - len(rows)),
            "n_released": int(len(rows)),
            "dropped_share": float((n - len(rows)) / n) if n else 0.0,
        }

    def _cap(self, numbers: np.ndarray) -> tuple[np.ndarray, dict[str, Any] | None]:
        """Cap at the ``max_quantile`` quantile (itself cast to an integer); None when not capped."""
        q = float(self.max_quantile)
        if q >= 1 or np.isnan(numbers).all():
            return numbers, None
        cap = float(self._to_int(np.array([np.nanquantile(numbers, q)]))[0])
        over = numbers > cap
        return np.where(over, cap, numbers), {"cap": cap, "n_capped": int(over.sum())}

    def _to_int(self, numbers: np.ndarray) -> np.ndarray:
        """Integer values (as floats, NaN kept): truncated (reference) or rounded half to even."""
        return np.trunc(numbers) if self.reference_quirks else np.rint(numbers)

    # ------------------------------------------------------------------ release
    def _sample(self, n_rows: int | None) -> pd.DataFrame:
        return self.release_.copy(deep=True)

    def _expected_rows(self, n_rows: int | None) -> int | None:
        return len(self.release_) if n_rows is None else n_rows

    def details(self) -> dict[str, Any]:
        """Parameters, QI set, imputed cells, caps, bins and the rows dropped by each rule."""
        return dict(getattr(self, "details_", {}))

    def artifacts(self) -> dict[str, pd.DataFrame]:
        """``generalised``: the ``"(a,b]"`` labels of the binned numeric QIs (when any)."""
        if not getattr(self, "binned_", None):
            return {}
        return {"generalised": self.generalised_.copy()}

    def decode_numeric(self, labels: Any) -> np.ndarray:
        """Numbers for interval labels with this generator's ``decode`` rule (§1.2 rule 6)."""
        return decode_numeric(labels, self.decode)


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _take(values: Sequence[Any] | np.ndarray | pd.Series, rows: np.ndarray) -> Any:
    if isinstance(values, pd.Series):
        return values.iloc[rows].to_numpy()
    return np.asarray(values)[rows]
