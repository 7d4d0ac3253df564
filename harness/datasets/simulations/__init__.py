"""The registry of simulated datasets (``source: {kind: simulated, generator:, params:}``).

One module per simulation; each is a pure function of its parameters (the data seed
included), so a simulated table is as reproducible as a bundled file:

``two_gaussians`` (:mod:`.two_gaussians`)
    SMOTE-DP's artificial 2-D data (``spec/reproductions.md`` §2.1).
``spectral_dgp`` (:mod:`.spectral`)
    Perkonoja & Virta's four DGPs, M replicates stacked (§9).
``robin_hood_population`` (:mod:`.robin_hood`)
    Brown et al.'s age/sex/race/outcome population (§10.1).

:data:`SIMULATIONS` maps each name to its function and the specification of every
parameter (default and valid range); :func:`population_moments` gives the population mean
and covariance of the simulations that define them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from harness.datasets.simulations import spectral
from harness.datasets.simulations.robin_hood import robin_hood_population
from harness.datasets.simulations.two_gaussians import two_gaussians


@dataclass(frozen=True)
class Param:
    """One simulation parameter: its default and valid range.

    Attributes
    ----------
    default : int or float
    low, high : float or None
        Inclusive bounds (None = unbounded).
    integer : bool
        Whether the value must be an integer.
    """

    default: int | float
    low: float | None = 0
    high: float | None = None
    integer: bool = True

    def check(self, key: str, value: Any, where: str) -> int | float:
        """The validated value; :class:`ValueError` with the one-line reason otherwise."""
        number = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
        if self.integer:
            ok = number and float(value).is_integer() and isinstance(value, (int, np.integer))
            ok = ok and (self.low is None or value >= self.low) and (self.high is None or value <= self.high)
            if not ok:
                bound = f">= {self.low:g}" if self.high is None else f"in [{self.low:g}, {self.high:g}]"
                raise ValueError(f"{where}: source.params.{key} must be an integer {bound}; got {value!r}")
            return int(value)
        ok = number and np.isfinite(float(value))
        ok = ok and (self.low is None or value >= self.low) and (self.high is None or value <= self.high)
        if not ok:
            raise ValueError(
                f"{where}: source.params.{key} must be a number in [{self.low:g}, {self.high:g}]; got {value!r}"
            )
        return float(value)


@dataclass(frozen=True)
class Simulation:
    """A registered simulation: its function and parameter specifications."""

    function: Callable[..., pd.DataFrame]
    params: Mapping[str, Param]
    moments: Callable[..., tuple[np.ndarray, np.ndarray]] | None = None
    """``(**params) -> (mean, covariance)`` of one row, for simulations with known moments."""
    check: Callable[[Mapping[str, Any]], str | None] | None = None
    """Cross-parameter check: the one-line reason the combination is invalid, or None."""


def _shares_check(params: Mapping[str, Any]) -> str | None:
    total = float(params["minority_share"]) + float(params["super_minority_share"])
    if total >= 1:
        return (
            f"minority_share + super_minority_share must be < 1 (the majority gets the rest); got {total:g}"
        )
    return None


SIMULATIONS: dict[str, Simulation] = {
    "two_gaussians": Simulation(two_gaussians, {"seed": Param(0), "n_per_class": Param(1000, low=1)}),
    "spectral_dgp": Simulation(
        spectral.spectral_dgp,
        {
            "dgp": Param(1, low=1, high=4),
            "p": Param(2, low=1),
            "n": Param(100, low=2),
            "replicates": Param(100, low=1),
            "seed": Param(0),
        },
        moments=lambda dgp, p, **_: spectral.population_moments(dgp, p),
    ),
    "robin_hood_population": Simulation(
        robin_hood_population,
        {
            "seed": Param(0),
            "n_records": Param(100_000, low=1),
            "minority_share": Param(0.09, low=0.0, high=1.0, integer=False),
            "super_minority_share": Param(0.01, low=0.0, high=1.0, integer=False),
        },
        check=_shares_check,
    ),
}

__all__ = ["SIMULATIONS", "Param", "Simulation"]
