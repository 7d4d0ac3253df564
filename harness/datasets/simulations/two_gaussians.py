"""SMOTE-DP's artificial 2-D data (``spec/reproductions.md`` §2.1, **Decision**).

``n_per_class`` rows per class (default 1,000); class 0 ~ N((0, 0), [[1, 0.5], [0.5, 1]]),
class 1 ~ N((3, 3), [[1, -0.3], [-0.3, 1]]); columns ``x1``, ``x2`` (continuous) and
``label`` (``"0"`` / ``"1"``); class-0 rows first. Draws come from
``numpy.random.default_rng(seed)``: all class-0 rows, then all class-1 rows, each with
``Generator.multivariate_normal``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

TWO_GAUSSIANS_MEANS: tuple[tuple[float, float], ...] = ((0.0, 0.0), (3.0, 3.0))
TWO_GAUSSIANS_COVS: tuple[tuple[tuple[float, float], ...], ...] = (
    ((1.0, 0.5), (0.5, 1.0)),
    ((1.0, -0.3), (-0.3, 1.0)),
)


def two_gaussians(*, seed: int = 0, n_per_class: int = 1000) -> pd.DataFrame:
    """SMOTE-DP's two-class 2-D Gaussian data (see the module docstring).

    Parameters
    ----------
    seed : int
        Data seed for ``numpy.random.default_rng``.
    n_per_class : int
        Rows per class.

    Returns
    -------
    DataFrame
        Columns ``x1``, ``x2`` (float64) and ``label`` (str ``"0"``/``"1"``), ``2 * n_per_class`` rows.
    """
    rng = np.random.default_rng(seed)
    parts = []
    for label, (mean, cov) in enumerate(zip(TWO_GAUSSIANS_MEANS, TWO_GAUSSIANS_COVS)):
        xy = rng.multivariate_normal(np.array(mean), np.array(cov), size=n_per_class)
        parts.append(pd.DataFrame({"x1": xy[:, 0], "x2": xy[:, 1], "label": str(label)}))
    return pd.concat(parts, ignore_index=True)
