"""``association_distance``: distance between the association matrices of T and S.

Source: ``004_…`` *Assessing the Potentials of LLMs and GANs as State-of-the-Art Tabular
Synthetic Data Generation Methods*, §2.3 ("General Utility"), Fig. 1 and Table A3 ("Mean
absolute L² correlation matrix distance"); ``spec/reproductions.md`` §13 ("correlation-matrix
distance"). ``spec/metrics.md`` does not define this measure: the **Decisions** below are this
module's and are recorded in the class docstring.

The paper's association matrix: "For numerical-numerical correlations, we use the Pearson
correlation coefficient. In cases involving both categorical and numerical variables, we
utilize the correlation ratio. For categorical-categorical correlations, the Uncertainty
coefficient is employed." (the scheme of ``dython.nominal.associations`` with
``nom_nom_assoc="theil"``).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pandas as pd

from harness.errors import IncomputableMetricError
from harness.metric import BaseMetric, Family, Goal, MetricResult
from harness.spec import DatasetSpec
from metrics.fidelity.sdmetrics_pairs import numeric_as_float
from metrics.fidelity.sdmetrics_shapes import CATEGORICAL_KINDS, NUMERIC_KINDS

NA_LABEL = "\x00<NA>"


def category_codes(col: pd.Series) -> tuple[np.ndarray, int]:
    """Integer codes of a categorical column (NA is a category of its own) and their count."""
    labels = col.astype(object).where(col.isna(), col.astype(str)).fillna(NA_LABEL)
    codes, uniques = pd.factorize(labels, sort=True)
    return codes.astype(np.int64), len(uniques)


def pearson(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson's r over the rows where both values are present; 0 when undefined.

    Undefined means fewer than two complete rows or a constant column (**Decision**: no
    linear association is measurable, so none is reported).
    """
    keep = ~(np.isnan(x) | np.isnan(y))
    x, y = x[keep], y[keep]
    if x.size < 2:
        return 0.0
    dx, dy = x - x.mean(), y - y.mean()
    denom = float(np.sqrt(np.dot(dx, dx) * np.dot(dy, dy)))
    return float(np.clip(np.dot(dx, dy) / denom, -1.0, 1.0)) if denom > 0 else 0.0


def correlation_ratio(codes: np.ndarray, n_categories: int, values: np.ndarray) -> float:
    """Correlation ratio η of a numeric column on a categorical one, in [0, 1].

    η² = Σ_c n_c (ȳ_c − ȳ)² / Σ_i (y_i − ȳ)² over the rows where ``values`` is present; 0 when
    the numeric column is constant or has no value.

    Parameters
    ----------
    codes : ndarray of int
        Category code of every row (:func:`category_codes`).
    n_categories : int
        Number of codes.
    values : ndarray of float
        The numeric column (NaN = missing).
    """
    keep = ~np.isnan(values)
    codes, values = codes[keep], values[keep]
    if values.size == 0:
        return 0.0
    mean = values.mean()
    total = float(np.sum((values - mean) ** 2))
    if total <= 0:
        return 0.0
    counts = np.bincount(codes, minlength=n_categories).astype(np.float64)
    sums = np.bincount(codes, weights=values, minlength=n_categories)
    present = counts > 0
    between = float(np.sum(counts[present] * (sums[present] / counts[present] - mean) ** 2))
    return float(np.sqrt(np.clip(between / total, 0.0, 1.0)))


def theils_u(x: tuple[np.ndarray, int], y: tuple[np.ndarray, int]) -> float:
    """Uncertainty coefficient U(x | y) = (H(x) − H(x | y)) / H(x), in [0, 1].

    The share of the entropy of ``x`` explained by ``y`` (asymmetric). A constant ``x``
    (H(x) = 0) gives 1, as ``dython`` does.

    Parameters
    ----------
    x, y : tuple of (codes, n_categories)
        Two categorical columns as returned by :func:`category_codes`.
    """
    (cx, nx), (cy, ny) = x, y
    n = cx.size
    if n == 0:
        return 0.0
    joint = np.bincount(cx * ny + cy, minlength=nx * ny).reshape(nx, ny).astype(np.float64) / n
    px, py = joint.sum(axis=1), joint.sum(axis=0)
    h_x = -float(np.sum(px[px > 0] * np.log(px[px > 0])))
    if h_x <= 0:
        return 1.0
    nz = joint > 0
    conditional = np.broadcast_to(py, joint.shape)[nz]
    h_x_given_y = -float(np.sum(joint[nz] * np.log(joint[nz] / conditional)))
    return float(np.clip((h_x - h_x_given_y) / h_x, 0.0, 1.0))


def association_matrix(frame: pd.DataFrame, numeric: list[str], categorical: list[str]) -> pd.DataFrame:
    """The paper's mixed association matrix over ``numeric + categorical`` columns.

    Entry (a, b): Pearson's r (numeric, numeric); the correlation ratio η (one numeric, one
    categorical; symmetric); Theil's U(a | b) (categorical, categorical; asymmetric); 1 on
    the diagonal.

    Parameters
    ----------
    frame : DataFrame
        The table (datetime columns count as numeric seconds).
    numeric, categorical : list of str
        Column names of each kind.

    Returns
    -------
    DataFrame
        Square, rows and columns in the order ``numeric + categorical``.
    """
    values = numeric_as_float(frame, numeric) if numeric else pd.DataFrame(index=frame.index)
    num = {c: values[c].to_numpy(dtype=np.float64, na_value=np.nan) for c in numeric}
    cat = {c: category_codes(frame[c]) for c in categorical}
    names = [*numeric, *categorical]
    out = np.eye(len(names))
    for i, a in enumerate(names):
        for j in range(i + 1, len(names)):
            b = names[j]
            if a in num and b in num:
                out[i, j] = out[j, i] = pearson(num[a], num[b])
            elif a in num or b in num:
                c, v = (b, a) if a in num else (a, b)
                out[i, j] = out[j, i] = correlation_ratio(cat[c][0], cat[c][1], num[v])
            else:
                out[i, j] = theils_u(cat[a], cat[b])
                out[j, i] = theils_u(cat[b], cat[a])
    return pd.DataFrame(out, index=names, columns=names)


class AssociationDistance(BaseMetric):
    """Distance between the association matrices of T and S (Miletic & Sariyar, Table A3).

    Both tables get the association matrix of :func:`association_matrix` over the dataset's
    numeric (``continuous``, ``integer``, ``datetime``) and categorical (``categorical``,
    ``ordinal``) columns: Pearson's r, the correlation ratio η and Theil's uncertainty
    coefficient U, as the paper states. Outputs (result ``variant``; lower is better):

    ``l2``
        ‖A_T − A_S‖_F, the L² (Frobenius) norm of the difference matrix — the paper's "mean
        absolute L² correlation matrix distance", the mean being over its synthetic datasets
        (**Decision**: the paper prints no formula; its Table A3 values, up to 2.35, exceed
        the largest possible mean absolute entry difference of [0, 1]-valued associations, so
        the value must be a norm; on Adult's 15 columns a typical CTGAN gap of 0.06–0.08 per
        entry gives ≈ 1.2, the size of the published 1.191).
    ``mean_abs``
        Mean |A_T − A_S| over the off-diagonal entries (range [0, 2]).

    **Decisions** (the paper leaves them open): categorical columns enter as columns, not
    one-hot indicators (the paper also says "all categorical variables have been one-hot
    encoded", which contradicts using the correlation ratio and U for them; with one-hot
    columns only Pearson's r would apply); NA is a category of a categorical column and
    numeric NAs are left out pairwise; an undefined r or η (constant column) is 0, a constant
    column's U is 1 (``dython``'s convention). ``details`` holds the column order, both
    matrices' absolute differences per pair (``"a|b"``) and the largest one.
    """

    name: ClassVar[str] = "association_distance"
    family: ClassVar[Family] = "fidelity"
    goal: ClassVar[Goal] = "minimise"
    min_value: ClassVar[float] = 0.0

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
        numeric = [c.name for c in spec.columns if c.kind in NUMERIC_KINDS and c.name in real.columns]
        categorical = [c.name for c in spec.columns if c.kind in CATEGORICAL_KINDS and c.name in real.columns]
        if len(numeric) + len(categorical) < 2:
            raise IncomputableMetricError(
                f"metric {self.name}: dataset {spec.name!r} has fewer than 2 numeric or categorical columns"
            )
        if len(real) == 0 or len(synthetic) == 0:
            raise IncomputableMetricError(f"metric {self.name}: an empty table has no associations")
        diff = (
            association_matrix(real, numeric, categorical)
            - association_matrix(synthetic, numeric, categorical)
        ).abs()
        d = diff.to_numpy()
        off = ~np.eye(len(d), dtype=bool)
        names = list(diff.columns)
        pairs = {
            f"{a}|{b}": float(diff.iloc[i, j])
            for i, a in enumerate(names)
            for j, b in enumerate(names)
            if i != j
        }
        worst = max(pairs, key=pairs.__getitem__)
        details = {
            "columns": names,
            "n_numeric": len(numeric),
            "n_categorical": len(categorical),
            "largest_pair": worst,
            "largest_difference": pairs[worst],
            "pairs": pairs,
        }
        return {
            "l2": MetricResult(value=float(np.sqrt(np.sum(d**2))), details=details),
            "mean_abs": MetricResult(value=float(d[off].mean()), details={"columns": names}),
        }
