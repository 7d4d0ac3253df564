"""Column-pair fidelity metrics wrapping SDMetrics: ``correlation_similarity`` and
``contingency_similarity``.

Specification: ``spec/metrics.md`` F1 (SDMetrics column-pair metrics ``CorrelationSimilarity``
and ``ContingencySimilarity``; the two "Column Pair Trends" metrics of the SDMetrics Quality
Report).
"""

from __future__ import annotations

import math
import warnings
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from harness.errors import IncomputableMetricError
from harness.metric import BaseMetric, Family, Goal, MetricResult
from harness.params import check_choice, check_int
from harness.spec import DatasetSpec
from metrics.fidelity.sdmetrics_lazy import preload_sdmetrics, sdmetrics_module
from metrics.fidelity.sdmetrics_shapes import (
    CATEGORICAL_KINDS,
    NUMERIC_KINDS,
    mean_of_scores,
    sdmetrics_incomputable_errors,
)
from metrics.fidelity.subsample import check_optional_size, column_pairs, subsample_items, subsample_rows

COEFFICIENTS: tuple[str, ...] = ("Pearson", "Spearman")


def pair_key(a: str, b: str) -> str:
    """The ``details`` key of the column pair (a, b)."""
    return f"{a}|{b}"


def numeric_as_float(frame: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """``frame[columns]`` with datetime columns as float seconds since the epoch (a copy)."""
    out = frame[columns].copy()
    for col in columns:
        if pd.api.types.is_datetime64_any_dtype(out[col]):
            values = out[col]
            seconds = (values - pd.Timestamp(0, tz=getattr(values.dt, "tz", None))).dt.total_seconds()
            out[col] = seconds.astype(np.float64)
    return out


class ColumnPairMetric(BaseMetric):
    """Mean over column pairs of an SDMetrics column-pair metric (T vs S).

    Each pair's score is SDMetrics' ``compute(real[[a, b]], synthetic[[a, b]], **kwargs)``; a
    pair SDMetrics cannot score (e.g. a constant column, so no correlation) is listed in
    ``details["incomputable_pairs"]`` and left out of the mean. ``details["pairs"]`` maps every
    scored pair ``"a|b"`` to its value. On wide or long tables the work can be bounded by a
    seeded subsample of rows (``max_rows`` rows of T and of S each) and of pairs
    (``max_pairs``); the sizes, the number of candidate pairs and the seed are recorded in
    ``details``. Rows are drawn from each table's canonical row order, so the value does not
    depend on the order of the rows.

    Parameters
    ----------
    max_rows : int or None
        Rows of T and of S each kept (seeded); None = all.
    max_pairs : int or None
        Column pairs scored (seeded); None = all.
    """

    family: ClassVar[Family] = "fidelity"
    goal: ClassVar[Goal] = "maximise"
    min_value: ClassVar[float] = 0.0
    max_value: ClassVar[float] = 1.0
    column_kinds: ClassVar[tuple[str, ...]] = ()
    kind_label: ClassVar[str] = ""

    def __init__(self, max_rows: int | None = None, max_pairs: int | None = None) -> None:
        preload_sdmetrics("column_pairs", "errors")  # imported when built, not in a timed compute
        self.max_rows = max_rows
        self.max_pairs = max_pairs

    def _validate_params(self) -> None:
        check_optional_size("max_rows", self.max_rows, 2)
        check_optional_size("max_pairs", self.max_pairs, 1)

    def _sdmetrics_class(self) -> Any:
        raise NotImplementedError

    def _sdmetrics_kwargs(self, pair: tuple[str, str], spec: DatasetSpec) -> dict[str, Any]:
        return {}

    def _compute(
        self,
        real: pd.DataFrame,
        synthetic: pd.DataFrame,
        spec: DatasetSpec,
        *,
        control: pd.DataFrame | None,
        test: pd.DataFrame | None,
        seed: int,
    ) -> MetricResult:
        columns = [c.name for c in spec.columns if c.kind in self.column_kinds and c.name in real.columns]
        candidates = column_pairs(columns)
        if not candidates:
            raise IncomputableMetricError(
                f"metric {self.name}: dataset {spec.name!r} has fewer than two {self.kind_label} columns"
            )
        rng = np.random.default_rng(seed)
        pairs = subsample_items(candidates, self.max_pairs, rng)
        used = sorted({c for pair in pairs for c in pair}, key=columns.index)
        real_used = numeric_as_float(subsample_rows(real, self.max_rows, rng), used)
        syn_used = numeric_as_float(subsample_rows(synthetic, self.max_rows, rng), used)
        metric = self._sdmetrics_class()
        errors = sdmetrics_incomputable_errors()
        scores: dict[str, float] = {}
        incomputable: list[str] = []
        for a, b in pairs:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # SDMetrics' chained assignment, constant input
                    value = float(
                        metric.compute(
                            real_used[[a, b]], syn_used[[a, b]], **self._sdmetrics_kwargs((a, b), spec)
                        )
                    )
            except errors:
                value = math.nan
            if math.isnan(value):
                incomputable.append(pair_key(a, b))
            else:
                scores[pair_key(a, b)] = value
        result = mean_of_scores(self.name, scores, incomputable, "pairs", f"{self.kind_label} column pair")
        result.details.update(
            n_pairs_total=len(candidates),
            n_rows_real=len(real_used),
            n_rows_synthetic=len(syn_used),
            max_rows=self.max_rows,
            max_pairs=self.max_pairs,
            subsample_seed=seed,
        )
        return result


class CorrelationSimilarity(ColumnPairMetric):
    """Mean over numeric column pairs of SDMetrics ``CorrelationSimilarity``.

    ``spec/metrics.md`` F1: per pair 1 − |ρ_S − ρ_T| / 2 (``000_…`` "Correlation"), ρ the
    Pearson or Spearman coefficient on the rows where both columns are present. Numeric columns
    are the ``continuous``, ``integer`` and ``datetime`` columns. Range [0, 1].

    Parameters
    ----------
    coefficient : {"Pearson", "Spearman"}
    max_rows, max_pairs : int or None
        Seeded subsample sizes (see :class:`ColumnPairMetric`).
    """

    name: ClassVar[str] = "correlation_similarity"
    column_kinds: ClassVar[tuple[str, ...]] = NUMERIC_KINDS
    kind_label: ClassVar[str] = "numeric"

    def __init__(
        self, coefficient: str = "Pearson", max_rows: int | None = None, max_pairs: int | None = None
    ) -> None:
        super().__init__(max_rows=max_rows, max_pairs=max_pairs)
        self.coefficient = coefficient

    def _validate_params(self) -> None:
        check_choice("coefficient", self.coefficient, COEFFICIENTS)
        super()._validate_params()

    def _sdmetrics_class(self) -> Any:
        return sdmetrics_module("column_pairs").CorrelationSimilarity

    def _sdmetrics_kwargs(self, pair: tuple[str, str], spec: DatasetSpec) -> dict[str, Any]:
        return {"coefficient": self.coefficient}


class ContingencySimilarity(ColumnPairMetric):
    """Mean over all column pairs of SDMetrics ``ContingencySimilarity``.

    ``spec/metrics.md`` F1: per pair 1 − ½Σ_{α,β}|R_αβ − S_αβ| over the joint frequencies of
    the two columns (NA a value of its own). Every ``continuous``, ``integer``, ``datetime``,
    ``categorical`` and ``ordinal`` column takes part; numeric ones are cut by SDMetrics into
    ``num_discrete_bins`` equal-width bins of T's range (open-ended outer bins). Range [0, 1].

    Parameters
    ----------
    num_discrete_bins : int
        Bins of a numeric column (SDMetrics default 10).
    max_rows, max_pairs : int or None
        Seeded subsample sizes (see :class:`ColumnPairMetric`); SDMetrics' own unseeded row
        subsampling is never used.
    """

    name: ClassVar[str] = "contingency_similarity"
    column_kinds: ClassVar[tuple[str, ...]] = NUMERIC_KINDS + CATEGORICAL_KINDS
    kind_label: ClassVar[str] = "numeric or categorical"

    def __init__(
        self, num_discrete_bins: int = 10, max_rows: int | None = None, max_pairs: int | None = None
    ) -> None:
        super().__init__(max_rows=max_rows, max_pairs=max_pairs)
        self.num_discrete_bins = num_discrete_bins

    def _validate_params(self) -> None:
        check_int("num_discrete_bins", self.num_discrete_bins, 1)
        super()._validate_params()

    def _sdmetrics_class(self) -> Any:
        return sdmetrics_module("column_pairs").ContingencySimilarity

    def _sdmetrics_kwargs(self, pair: tuple[str, str], spec: DatasetSpec) -> dict[str, Any]:
        continuous = [c for c in pair if spec.kind(c) in NUMERIC_KINDS]
        return {
            "continuous_column_names": continuous or None,
            "num_discrete_bins": int(self.num_discrete_bins),
        }
