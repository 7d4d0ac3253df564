"""``wasserstein``: Wasserstein-1 distances between T and S, per column or joint.

Specification: ``spec/metrics.md`` F6 (``004_…`` *Assessing the Potentials of LLMs and GANs*,
Tables 2 and A2).
"""

from __future__ import annotations

import warnings
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from harness.encoding import TableEncoder
from harness.errors import IncomputableMetricError
from harness.metric import BaseMetric, Family, Goal, MetricResult
from harness.params import check_choice, check_int
from harness.spec import DatasetSpec
from metrics.fidelity.hellinger import hellinger_per_column
from metrics.fidelity.sdmetrics_pairs import numeric_as_float
from metrics.fidelity.sdmetrics_shapes import CATEGORICAL_KINDS, NUMERIC_KINDS
from metrics.fidelity.subsample import subsample_rows

VARIANTS: tuple[str, ...] = ("per_column", "joint", "sum_w_h")
EMD_MAX_ITER = 100_000_000
"""Iteration cap of POT's network simplex (its default, 1e5, can stop short at 2,000 points)."""


def scaled_wasserstein(real: pd.Series, synthetic: pd.Series) -> float:
    """W₁ between two numeric columns min–max scaled with ``real``'s range.

    Values of ``synthetic`` outside the range are not clipped; a constant ``real`` column is
    only shifted (scale 1), as in the shared encoding E. NAs are dropped; NaN if a side has no
    value left.
    """
    from scipy.stats import wasserstein_distance

    r = real.to_numpy(dtype=np.float64, na_value=np.nan)
    s = synthetic.to_numpy(dtype=np.float64, na_value=np.nan)
    r, s = r[~np.isnan(r)], s[~np.isnan(s)]
    if r.size == 0 or s.size == 0:
        return float("nan")
    low, high = float(r.min()), float(r.max())
    scale = high - low if high > low else 1.0
    return float(wasserstein_distance((r - low) / scale, (s - low) / scale))


def exact_w1(x: np.ndarray, y: np.ndarray) -> tuple[float, str]:
    """Exact W₁ between two equal-size uniform point clouds, Euclidean ground cost.

    With equal sizes and uniform weights an optimal transport plan is a permutation
    (Birkhoff–von Neumann), so POT's ``ot.emd2`` and the assignment problem
    (``scipy.optimize.linear_sum_assignment``) give the same optimum; POT is used when it is
    installed.

    Returns
    -------
    value : float
    solver : str
        ``"pot.emd2"`` or ``"scipy.linear_sum_assignment"``.
    """
    from scipy.spatial.distance import cdist

    if len(x) != len(y):
        raise ValueError("exact_w1 needs point clouds of equal size")
    cost = cdist(x, y, metric="euclidean")
    try:
        import ot
    except ImportError:
        from scipy.optimize import linear_sum_assignment

        rows, cols = linear_sum_assignment(cost)
        return float(cost[rows, cols].mean()), "scipy.linear_sum_assignment"
    weights = np.full(len(x), 1.0 / len(x))
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # never accept a stopped-short simplex
        value = ot.emd2(weights, weights, cost, numItermax=EMD_MAX_ITER)
    return float(value), "pot.emd2"


class Wasserstein(BaseMetric):
    """Wasserstein-1 distance between T and S (lower is better; 0 for S = T).

    ``spec/metrics.md`` F6. Variants (``variant``):

    ``per_column`` (**Decision**, default)
        Mean over the numeric columns (``continuous``, ``integer``, ``datetime``) of
        ``scipy.stats.wasserstein_distance`` on values min–max scaled with T's range (S not
        clipped; NAs dropped). Per-column values in ``details["columns"]``.
    ``joint``
        W₁ between the uniform point clouds of T and S in the shared space E (numeric min–max
        with T's range, categorical one-hot, NA indicators; the encoder is fit on the whole of
        T and S), Euclidean ground cost, on seeded subsamples of m = min(``n_subsample``, |T|,
        |S|) rows of each table. **Decision:** both clouds have the same size m so the optimum
        is an assignment and the value does not depend on the solver (POT ``ot.emd2`` when
        installed, otherwise ``scipy.optimize.linear_sum_assignment``; ``details["solver"]``).
    ``sum_w_h``
        Σ over numeric columns of the scaled W₁ of ``per_column`` + Σ over categorical
        columns of the Hellinger distance (``hellinger``); per-column terms in ``details``.

    Parameters
    ----------
    variant : {"per_column", "joint", "sum_w_h"}
    n_subsample : int
        ``joint`` only: rows of T and of S used (spec: 2,000).
    """

    name: ClassVar[str] = "wasserstein"
    family: ClassVar[Family] = "fidelity"
    goal: ClassVar[Goal] = "minimise"
    min_value: ClassVar[float] = 0.0
    max_value: ClassVar[float] = float("inf")

    def __init__(self, variant: str = "per_column", n_subsample: int = 2000) -> None:
        self.variant = variant
        self.n_subsample = n_subsample

    def _validate_params(self) -> None:
        check_choice("variant", self.variant, VARIANTS)
        check_int("n_subsample", self.n_subsample, 1)

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
        if len(real) == 0:
            raise IncomputableMetricError(f"metric {self.name}: the training split is empty")
        if self.variant == "joint":
            return self._joint(real, synthetic, spec, seed)
        numeric = [c.name for c in spec.columns if c.kind in NUMERIC_KINDS and c.name in real.columns]
        w1, incomputable = self._per_column(real, synthetic, numeric)
        if self.variant == "per_column":
            if not w1:
                raise IncomputableMetricError(
                    f"metric {self.name}: no numeric column could be scored (dataset {spec.name!r})"
                )
            details: dict[str, Any] = {"columns": w1, "n_columns": len(w1)}
            if incomputable:
                details["incomputable_columns"] = incomputable
            return MetricResult(value=float(np.mean(list(w1.values()))), details=details)
        categorical = [c.name for c in spec.columns if c.kind in CATEGORICAL_KINDS and c.name in real.columns]
        h = hellinger_per_column(real, synthetic, categorical)
        if not w1 and not h:
            raise IncomputableMetricError(
                f"metric {self.name}: dataset {spec.name!r} has no numeric or categorical column to score"
            )
        details = {"wasserstein_columns": w1, "hellinger_columns": h}
        if incomputable:
            details["incomputable_columns"] = incomputable
        return MetricResult(value=float(sum(w1.values()) + sum(h.values())), details=details)

    @staticmethod
    def _per_column(
        real: pd.DataFrame, synthetic: pd.DataFrame, columns: list[str]
    ) -> tuple[dict[str, float], list[str]]:
        real_f = numeric_as_float(real, columns)
        syn_f = numeric_as_float(synthetic, columns)
        scores: dict[str, float] = {}
        incomputable: list[str] = []
        for col in columns:
            value = scaled_wasserstein(real_f[col], syn_f[col])
            if np.isnan(value):
                incomputable.append(col)
            else:
                scores[col] = value
        return scores, incomputable

    def _joint(
        self, real: pd.DataFrame, synthetic: pd.DataFrame, spec: DatasetSpec, seed: int
    ) -> MetricResult:
        encoder = TableEncoder(spec, columns="all").fit(real, synthetic)
        if encoder.n_features == 0:
            raise IncomputableMetricError(f"metric {self.name}: dataset {spec.name!r} has no usable column")
        m = min(int(self.n_subsample), len(real), len(synthetic))
        rng = np.random.default_rng(seed)
        x = encoder.transform(subsample_rows(real, m, rng))
        y = encoder.transform(subsample_rows(synthetic, m, rng))
        value, solver = exact_w1(x, y)
        details = {
            "n_used": m,
            "n_subsample": int(self.n_subsample),
            "subsample_seed": seed,
            "n_features": encoder.n_features,
            "solver": solver,
        }
        return MetricResult(value=max(0.0, value), details=details)
