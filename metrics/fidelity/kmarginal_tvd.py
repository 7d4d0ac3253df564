"""``kmarginal_tvd``: mean total variation distance over k-way marginals of binned tables.

Specification: ``spec/metrics.md`` F7 (variant ``platzer``: Platzer & Reutterer 2021,
``mostly-ai/paper-fidelity-accuracy`` ``fidelity.ipynb``, reference values in
``shared/datasets/adult_mostly_synthetic/tradeoff.csv``). Reproduction: ``spec/reproductions.md``
§11. The NIST SDNist k-marginal score, once this metric's ``sdnist`` variant, is the metric
``sdnist_kmarginal`` (:mod:`metrics.fidelity.sdnist_kmarginal`): that variant sampled 100
marginals of this module's binning and was 94 % to 20 % off SDNist's published scores.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from harness.errors import ConfigError, IncomputableMetricError
from harness.metric import BaseMetric, Family, Goal, MetricResult
from harness.params import check_choice, check_int
from harness.spec import DatasetSpec
from metrics.fidelity.hellinger import NA_KEY
from metrics.fidelity.sdmetrics_pairs import numeric_as_float
from metrics.fidelity.sdmetrics_shapes import CATEGORICAL_KINDS, NUMERIC_KINDS
from metrics.fidelity.subsample import check_optional_size

VARIANTS: tuple[str, ...] = ("platzer",)
REMOVED_SDNIST = (
    "`variant: sdnist` was removed: NIST SDNist's k-marginal score is the metric sdnist_kmarginal "
    "(experiments/metric/sdnist_kmarginal.yaml, metrics/fidelity/sdnist_kmarginal.py)"
)
MAX_DENSE_CELLS = 1 << 22
"""Marginals with more cells than this are counted with ``np.unique`` instead of ``bincount``."""
N_WORST = 10


@dataclass(frozen=True)
class _Binning:
    """How one column is discretised (learnt from T): codes 0..n_levels−1."""

    name: str
    numeric: bool
    breaks: np.ndarray  # numeric: unique quantile breaks of T
    top: tuple[str, ...]  # categorical: the kept labels

    @property
    def n_levels(self) -> int:
        # numeric: bins + "_other_" (outside T's range) + NA; categorical: top + "_other_"
        if self.numeric:
            return max(len(self.breaks) - 1, 1) + 2
        return len(self.top) + 1


def _labels(col: pd.Series) -> np.ndarray:
    """Categorical labels as str with NA as ``<NA>`` (a category of its own)."""
    return col.astype(object).where(col.isna(), col.astype(str)).fillna(NA_KEY).to_numpy(dtype=object)


def fit_binning(
    real: pd.DataFrame, spec: DatasetSpec, columns: list[str], bins: int, top: int | None
) -> list[_Binning]:
    """Learn each column's discretisation from T.

    Numeric columns (``continuous``, ``integer``, ``datetime``): the unique values of T's
    quantiles at 0, 1/bins, …, 1 (linear interpolation, as pandas ``quantile``) are the breaks
    of right-closed bins, the lowest including T's minimum (``pd.cut(include_lowest=True)``).
    Categorical columns: the ``top`` most frequent labels of T (ties broken by label; NA counts
    as a label), all labels when ``top`` is None.
    """
    numeric_cols = [c for c in columns if spec.kind(c) in NUMERIC_KINDS]
    as_float = numeric_as_float(real, numeric_cols)
    out: list[_Binning] = []
    for col in columns:
        if col in numeric_cols:
            values = as_float[col].to_numpy(dtype=np.float64, na_value=np.nan)
            values = values[~np.isnan(values)]
            breaks = (
                np.unique(np.quantile(values, np.linspace(0.0, 1.0, bins + 1)))
                if values.size
                else np.empty(0)
            )
            out.append(_Binning(col, True, breaks, ()))
        else:
            counts = pd.Series(_labels(real[col])).value_counts(sort=False)
            ranked = sorted(counts.items(), key=lambda kv: (-kv[1], str(kv[0])))
            keep = ranked if top is None else ranked[:top]
            out.append(_Binning(col, False, np.empty(0), tuple(str(k) for k, _ in keep)))
    return out


def apply_binning(frame: pd.DataFrame, spec: DatasetSpec, binnings: list[_Binning]) -> np.ndarray:
    """Integer codes (rows × columns) of ``frame`` under ``binnings``.

    Numeric: bin index; values outside T's range → ``_other_``; NA → its own level.
    Categorical: index among the kept labels, everything else → ``_other_``.
    """
    numeric_cols = [b.name for b in binnings if b.numeric]
    as_float = numeric_as_float(frame, numeric_cols)
    # column-major: every marginal gathers whole columns
    codes = np.empty((len(frame), len(binnings)), dtype=np.int64, order="F")
    for j, b in enumerate(binnings):
        if b.numeric:
            v = as_float[b.name].to_numpy(dtype=np.float64, na_value=np.nan)
            n_bins = max(len(b.breaks) - 1, 1)
            other, missing = n_bins, n_bins + 1
            col = np.full(len(v), other, dtype=np.int64)
            isna = np.isnan(v)
            col[isna] = missing
            if b.breaks.size:
                inside = ~isna & (v >= b.breaks[0]) & (v <= b.breaks[-1])
                idx = np.searchsorted(b.breaks, v[inside], side="left") - 1
                col[inside] = np.clip(idx, 0, n_bins - 1)
            codes[:, j] = col
        else:
            found = pd.Index(b.top, dtype=object).get_indexer(_labels(frame[b.name]))
            codes[:, j] = np.where(found < 0, len(b.top), found)  # not kept -> _other_
    return codes


def _cell_index(codes: np.ndarray, levels: tuple[int, ...]) -> np.ndarray:
    """Mixed-radix cell number of every row of a code matrix (C order, as ``np.ravel_multi_index``)."""
    key = codes[:, 0].copy()
    for j in range(1, codes.shape[1]):
        key = key * levels[j] + codes[:, j]
    return key


def marginal_tvd(a: np.ndarray, b: np.ndarray, levels: tuple[int, ...]) -> float:
    """TVD = ½Σ|p_a − p_b| between the joint frequencies of two code matrices (same columns)."""
    cells = math.prod(levels)
    if cells <= MAX_DENSE_CELLS:
        ka, kb = _cell_index(a, levels), _cell_index(b, levels)
        pa = np.bincount(ka, minlength=cells) / len(a)
        pb = np.bincount(kb, minlength=cells) / len(b)
        return float(0.5 * np.abs(pa - pb).sum())
    stacked = np.vstack([a, b])
    _, inverse = np.unique(stacked, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    n_cells = int(inverse.max()) + 1
    pa = np.bincount(inverse[: len(a)], minlength=n_cells) / len(a)
    pb = np.bincount(inverse[len(a) :], minlength=n_cells) / len(b)
    return float(0.5 * np.abs(pa - pb).sum())


def marginal_tvds(
    reference: np.ndarray, others: list[np.ndarray], levels: list[int], marginals: list[tuple[int, ...]]
) -> list[list[float]]:
    """:func:`marginal_tvd` of every marginal between ``reference`` and each of ``others``.

    The same values, computed faster: the reference's frequencies are counted once per marginal,
    and the cell index of a marginal's leading columns is shared by the consecutive marginals
    that start with them (``itertools.combinations`` order).
    """
    tables = [reference, *others]
    heads: dict[tuple[int, ...], list[np.ndarray]] = {}
    out: list[list[float]] = [[] for _ in others]
    for m in marginals:
        shape = tuple(levels[j] for j in m)
        cells = math.prod(shape)
        if cells > MAX_DENSE_CELLS:
            for values, other in zip(out, others):
                values.append(marginal_tvd(reference[:, list(m)], other[:, list(m)], shape))
            continue
        head = m[:-1]
        if head not in heads:
            heads.clear()
            heads[head] = [
                _cell_index(t[:, list(head)], shape[:-1]) if head else np.zeros(len(t), dtype=np.int64)
                for t in tables
            ]
        keys = [h * shape[-1] + t[:, m[-1]] for h, t in zip(heads[head], tables)]
        p_ref = np.bincount(keys[0], minlength=cells) / len(reference)
        for values, key, other in zip(out, keys[1:], others):
            values.append(float(0.5 * np.abs(p_ref - np.bincount(key, minlength=cells) / len(other)).sum()))
    return out


class KMarginalTVD(BaseMetric):
    """Mean total variation distance between T and S over k-way marginals (k = 3 default).

    ``spec/metrics.md`` F7. Every column is discretised with rules learnt from T
    (:func:`fit_binning`): numeric columns (``continuous``, ``integer``, ``datetime``) into
    ``bins`` quantile bins of T (values outside T's range → ``_other_``, NA its own level),
    categorical columns (``categorical``, ``ordinal``) to T's ``top_categories`` most frequent
    values plus ``_other_`` (NA counts as a value). Per marginal, TVD = ½Σ|p_T − p_S| over the
    joint cells. Variant ``platzer`` (the only one): mean over **all** k-column combinations.
    Outputs ``tvd`` (goal ``minimise``, range [0, 1]; ``baseline`` = the same TVD of the
    control split H against T when a control split is given) and, with a control split whose
    TVD is positive, ``tvd_ratio`` = TVD(S) / TVD(H) (goal ``minimise``).

    ``details`` holds the number of marginals, the binning settings, the mean TVD and the
    ``N_WORST`` marginals with the largest TVD (columns joined by ``|``).

    Parameters
    ----------
    variant : {"platzer"}
        ``sdnist`` was removed (a :class:`ConfigError` names its replacement, the metric
        ``sdnist_kmarginal``: SDNist v2.2's own marginals, bins and score).
    k : int
        Columns per marginal (Platzer & Reutterer: 3).
    bins : int
        Quantile bins of a numeric column (Platzer & Reutterer, k = 3: 5).
    top_categories : int or None
        Kept values of a categorical column (Platzer & Reutterer, k = 3: 5); None keeps all.
    """

    name: ClassVar[str] = "kmarginal_tvd"
    family: ClassVar[Family] = "fidelity"
    goal: ClassVar[Goal] = "minimise"
    min_value: ClassVar[float] = 0.0
    max_value: ClassVar[float] = math.inf  # tvd in [0, 1]; tvd_ratio >= 0

    def __init__(
        self,
        variant: str = "platzer",
        k: int = 3,
        bins: int = 5,
        top_categories: int | None = 5,
    ) -> None:
        self.variant = variant
        self.k = k
        self.bins = bins
        self.top_categories = top_categories

    def _validate_params(self) -> None:
        if self.variant == "sdnist":
            raise ConfigError(REMOVED_SDNIST)
        check_choice("variant", self.variant, VARIANTS)
        check_int("k", self.k, 1)
        check_int("bins", self.bins, 1)
        check_optional_size("top_categories", self.top_categories, 1)

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
        kinds = NUMERIC_KINDS + CATEGORICAL_KINDS
        columns = [c for c in spec.table_columns if c in real.columns and spec.kind(c) in kinds]
        k = int(self.k)
        if len(columns) < k:
            raise IncomputableMetricError(
                f"metric {self.name}: {k}-way marginals need at least {k} columns; dataset "
                f"{spec.name!r} has {len(columns)}"
            )
        if len(real) == 0:
            raise IncomputableMetricError(f"metric {self.name}: the training split is empty")
        binnings = fit_binning(real, spec, columns, int(self.bins), self.top_categories)
        levels = [b.n_levels for b in binnings]
        marginals = list(combinations(range(len(columns)), k))
        codes_t = apply_binning(real, spec, binnings)
        codes_s = apply_binning(synthetic, spec, binnings)

        others = [codes_s]
        if control is not None and len(control):
            others.append(apply_binning(control, spec, binnings))
        per_table = marginal_tvds(codes_t, others, levels, marginals)
        tvd, per_marginal = float(np.mean(per_table[0])), per_table[0]
        worst = np.argsort(-np.asarray(per_marginal), kind="stable")[:N_WORST]
        details: dict[str, Any] = {
            "variant": self.variant,
            "k": k,
            "bins": int(self.bins),
            "top_categories": self.top_categories,
            "n_marginals": len(marginals),
            "mean_tvd": tvd,
            "worst_marginals": {"|".join(columns[j] for j in marginals[i]): per_marginal[i] for i in worst},
        }
        out: dict[str, MetricResult] = {}
        baseline: float | None = None
        if len(per_table) > 1:
            baseline = float(np.mean(per_table[1]))
            details["holdout_tvd"] = baseline
        out["tvd"] = MetricResult(value=tvd, baseline=baseline, details=details)
        if baseline is not None and baseline > 0:
            out["tvd_ratio"] = MetricResult(value=tvd / baseline, baseline=1.0, details=details)
        return out
