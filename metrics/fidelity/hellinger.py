"""``hellinger``: Hellinger distance between the category frequencies of T and S.

Specification: ``spec/metrics.md`` F6 (``004_…`` *Assessing the Potentials of LLMs and GANs*,
Tables 2 and A2).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pandas as pd

from harness.errors import IncomputableMetricError
from harness.metric import BaseMetric, Family, Goal, MetricResult
from harness.spec import DatasetSpec
from metrics.fidelity.sdmetrics_shapes import CATEGORICAL_KINDS

NA_KEY = "<NA>"


def category_frequencies(col: pd.Series) -> pd.Series:
    """Relative frequency of every category of ``col`` (labels as str; NA is the category ``<NA>``)."""
    labels = col.astype(object).where(col.isna(), col.astype(str)).fillna(NA_KEY)
    return labels.value_counts(normalize=True, sort=False)


def hellinger_distance(real: pd.Series, synthetic: pd.Series) -> float:
    """H(p, q) = √(1 − Σ_i √(p_i q_i)) over the category frequencies of two columns.

    Categories absent from one side have frequency 0 there; NA is a category of its own
    (``spec/metrics.md`` §0.2). Range [0, 1]; 0 = equal frequencies.

    Parameters
    ----------
    real, synthetic : Series
        Non-empty columns.
    """
    p = category_frequencies(real)
    q = category_frequencies(synthetic)
    p, q = p.align(q, fill_value=0.0)
    bc = float(np.sum(np.sqrt(p.to_numpy(dtype=np.float64) * q.to_numpy(dtype=np.float64))))
    return float(np.sqrt(max(0.0, 1.0 - bc)))


def hellinger_per_column(real: pd.DataFrame, synthetic: pd.DataFrame, columns: list[str]) -> dict[str, float]:
    """:func:`hellinger_distance` of every column in ``columns``."""
    return {c: hellinger_distance(real[c], synthetic[c]) for c in columns}


class Hellinger(BaseMetric):
    """Mean over categorical columns of the Hellinger distance of category frequencies.

    ``spec/metrics.md`` F6: per ``categorical`` / ``ordinal`` column H(p, q) =
    √(1 − Σ_i √(p_i q_i)), p and q the category frequencies in T and S (NA a category of its
    own, as in the shared encoding E); the headline is the mean over columns, per-column values
    in ``details["columns"]``. Range [0, 1]; lower is better, 0 = identical frequencies.
    """

    name: ClassVar[str] = "hellinger"
    family: ClassVar[Family] = "fidelity"
    goal: ClassVar[Goal] = "minimise"
    min_value: ClassVar[float] = 0.0
    max_value: ClassVar[float] = 1.0

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
        columns = [c.name for c in spec.columns if c.kind in CATEGORICAL_KINDS and c.name in real.columns]
        if not columns:
            raise IncomputableMetricError(
                f"metric {self.name}: dataset {spec.name!r} has no categorical column"
            )
        if len(real) == 0:
            raise IncomputableMetricError(f"metric {self.name}: the training split is empty")
        scores = hellinger_per_column(real, synthetic, columns)
        return MetricResult(
            value=float(np.mean(list(scores.values()))),
            details={"columns": scores, "n_columns": len(scores)},
        )
