"""Simulated datasets (``source: {kind: simulated, generator: <name>, params: {...}}``).

Each generator is a pure function of its parameters (the data seed included), so a
simulated table is as reproducible as a bundled file. Generators:

``two_gaussians``
    SMOTE-DP's artificial 2-D data (``spec/reproductions.md`` §2.1, **Decision**):
    ``n_per_class`` rows per class (default 1,000); class 0 ~ N((0, 0), [[1, 0.5], [0.5, 1]]),
    class 1 ~ N((3, 3), [[1, -0.3], [-0.3, 1]]); columns ``x1``, ``x2`` (continuous) and
    ``label`` (``"0"`` / ``"1"``); class-0 rows first. Draws come from
    ``numpy.random.default_rng(seed)``: all class-0 rows, then all class-1 rows, each with
    ``Generator.multivariate_normal``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from harness.errors import ConfigError

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


GENERATORS: dict[str, Callable[..., pd.DataFrame]] = {"two_gaussians": two_gaussians}
_PARAMS: dict[str, dict[str, Any]] = {"two_gaussians": {"seed": 0, "n_per_class": 1000}}
_POSITIVE = {"n_per_class"}


def resolve_params(generator: str, params: Mapping[str, Any], *, where: str) -> dict[str, Any]:
    """Return the generator's parameters with defaults filled in, validated.

    Raises
    ------
    ConfigError
        If the generator or a parameter name is unknown, or a value is not a valid integer.
    """
    if generator not in GENERATORS:
        raise ConfigError(
            f"{where}: source.generator must be one of {', '.join(sorted(GENERATORS))}; got {generator!r}"
        )
    defaults = _PARAMS[generator]
    unknown = sorted(set(params) - set(defaults))
    if unknown:
        raise ConfigError(
            f"{where}: unknown source.params key(s) {', '.join(unknown)} for {generator!r}; "
            f"expected some of: {', '.join(defaults)}"
        )
    resolved = {**defaults, **params}
    for key, value in resolved.items():
        low = 1 if key in _POSITIVE else 0
        if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < low:
            raise ConfigError(f"{where}: source.params.{key} must be an integer >= {low}; got {value!r}")
        resolved[key] = int(value)
    return resolved


def simulate(generator: str, params: Mapping[str, Any], *, where: str = "simulated data") -> pd.DataFrame:
    """Generate the table of ``generator`` with ``params`` (validated by :func:`resolve_params`)."""
    return GENERATORS[generator](**resolve_params(generator, params, where=where))
