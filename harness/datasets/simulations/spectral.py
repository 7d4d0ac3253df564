"""Perkonoja & Virta's simulation designs (``spec/reproductions.md`` §9).

``004_…`` *Asymptotic Utility of Spectral Anonymization*, §3.1: data sets of ``n`` rows of
``p`` variables with i.i.d. rows from one of four data-generating processes (DGPs):

1. N_p(3·1, diag(p, p−1, …, 1))  (meets Assumption 1: distinct eigenvalues);
2. N_p(3·1, I_p)                  (violates Assumption 1);
3. independent Poisson(λ = (p, p−1, …, 1)) marginals;
4. independent Poisson(1) marginals.

``replicates`` (the paper's M) independent data sets are stacked into one table so that a
single trial anonymises and evaluates all of them: column ``replicate`` (the labels
``"0"`` … ``"M−1"``, replicate-major order) and then ``x1`` … ``xp``.

**Decisions.** All draws come from ``numpy.random.default_rng(seed)`` in one call per table
(``standard_normal`` or ``poisson`` of shape (M·n, p)). Poisson counts are stored as floats
(the dataset YAMLs declare them ``continuous``): the paper's spectral anonymisation is not
rounded, and rounding would break both the moment results and the match counts of §3.2.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

DGPS: tuple[int, ...] = (1, 2, 3, 4)
DGP_LABELS: dict[int, str] = {
    1: "N(3·1, diag(p..1))",
    2: "N(3·1, I)",
    3: "Poisson(p..1)",
    4: "Poisson(1)",
}
REPLICATE = "replicate"
"""Name of the replicate label column."""
NORMAL_MEAN = 3.0


def spectral_columns(p: int) -> list[str]:
    """The variable columns ``x1`` … ``xp``."""
    return [f"x{j + 1}" for j in range(p)]


def population_moments(dgp: int, p: int) -> tuple[np.ndarray, np.ndarray]:
    """The population mean μ (p) and covariance Σ (p × p) of DGP ``dgp``.

    Parameters
    ----------
    dgp : {1, 2, 3, 4}
    p : int

    Returns
    -------
    (ndarray, ndarray)
        μ and Σ (diagonal for every DGP).
    """
    decreasing = np.arange(p, 0, -1, dtype=float)
    variances = decreasing if dgp in (1, 3) else np.ones(p)
    if dgp in (1, 2):
        mean = np.full(p, NORMAL_MEAN)
    else:
        mean = variances.copy()  # Poisson: mean = variance = λ
    return mean, np.diag(variances)


def spectral_dgp(
    *, dgp: int = 1, p: int = 2, n: int = 100, replicates: int = 100, seed: int = 0
) -> pd.DataFrame:
    """``replicates`` stacked data sets of ``n`` rows from DGP ``dgp`` (module docstring).

    Parameters
    ----------
    dgp : {1, 2, 3, 4}
        The data-generating process.
    p : int
        Number of variables.
    n : int
        Rows per replicate.
    replicates : int
        Number of replicates M.
    seed : int
        Data seed.

    Returns
    -------
    DataFrame
        ``replicates * n`` rows: ``replicate`` (str) and ``x1`` … ``xp`` (float64).
    """
    rng = np.random.default_rng(seed)
    mean, cov = population_moments(dgp, p)
    shape = (replicates * n, p)
    if dgp in (1, 2):
        values = mean + rng.standard_normal(shape) * np.sqrt(np.diag(cov))
    else:
        values = rng.poisson(mean, size=shape).astype(np.float64)
    labels = np.repeat(np.arange(replicates), n).astype(str)
    frame = pd.DataFrame(values, columns=spectral_columns(p))
    frame.insert(0, REPLICATE, labels.astype(object))
    return frame
