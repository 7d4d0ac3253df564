"""Simulated datasets (``source: {kind: simulated, generator: <name>, params: {...}}``).

The simulations themselves live in :mod:`harness.datasets.simulations` (one module each:
``two_gaussians``, ``spectral_dgp``, ``robin_hood_population``); this module is the loader's
entry point: :func:`resolve_params` validates a ``source.params`` mapping (unknown keys,
types and ranges raise a one-line :class:`ConfigError` naming ``source.params.<key>``),
:func:`simulate` builds the table and :func:`population_moments` returns the population
mean and covariance of the simulations that define them (``spectral_dgp``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from harness.datasets.simulations import SIMULATIONS
from harness.datasets.simulations.two_gaussians import (
    TWO_GAUSSIANS_COVS,
    TWO_GAUSSIANS_MEANS,
    two_gaussians,
)
from harness.errors import ConfigError

GENERATORS: dict[str, Callable[..., pd.DataFrame]] = {name: s.function for name, s in SIMULATIONS.items()}


def resolve_params(generator: str, params: Mapping[str, Any], *, where: str) -> dict[str, Any]:
    """Return the generator's parameters with defaults filled in, validated.

    Raises
    ------
    ConfigError
        If the generator or a parameter name is unknown, or a value is of the wrong type or
        out of range.
    """
    if generator not in SIMULATIONS:
        raise ConfigError(
            f"{where}: source.generator must be one of {', '.join(sorted(SIMULATIONS))}; got {generator!r}"
        )
    simulation = SIMULATIONS[generator]
    unknown = sorted(set(params) - set(simulation.params))
    if unknown:
        raise ConfigError(
            f"{where}: unknown source.params key(s) {', '.join(unknown)} for {generator!r}; "
            f"expected some of: {', '.join(simulation.params)}"
        )
    resolved: dict[str, Any] = {}
    for key, spec in simulation.params.items():
        try:
            resolved[key] = spec.check(key, params.get(key, spec.default), where)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
    problem = simulation.check(resolved) if simulation.check is not None else None
    if problem:
        raise ConfigError(f"{where}: source.params: {problem}")
    return resolved


def simulate(generator: str, params: Mapping[str, Any], *, where: str = "simulated data") -> pd.DataFrame:
    """Generate the table of ``generator`` with ``params`` (validated by :func:`resolve_params`)."""
    return SIMULATIONS[generator].function(**resolve_params(generator, params, where=where))


def population_moments(source: Mapping[str, Any]) -> tuple[np.ndarray, np.ndarray] | None:
    """Population mean and covariance of one row of a simulated dataset's ``source`` block.

    Returns None when the source is not a simulation or the simulation defines no moments.
    """
    if source.get("kind") != "simulated" or source.get("generator") not in SIMULATIONS:
        return None
    simulation = SIMULATIONS[str(source["generator"])]
    if simulation.moments is None:
        return None
    params = resolve_params(
        str(source["generator"]), dict(source.get("params") or {}), where="simulated data"
    )
    return simulation.moments(**params)


__all__ = [
    "GENERATORS",
    "TWO_GAUSSIANS_COVS",
    "TWO_GAUSSIANS_MEANS",
    "population_moments",
    "resolve_params",
    "simulate",
    "two_gaussians",
]
