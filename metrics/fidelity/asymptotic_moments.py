"""``asymptotic_moment_re``: finite-sample covariances of the moments vs their asymptotic limits.

Source: ``004_…`` *Asymptotic Utility of Spectral Anonymization* (Perkonoja, Virta), §3.1;
``spec/reproductions.md`` §9. Over M independent replicates (the groups of ``by``) of a
release, the empirical covariance matrices of √n(x̄_A − μ) and √n·vec(S_A − Σ) are compared
with the limits of Theorems 1–2 (:mod:`metrics.fidelity.spectral_asymptotics`) by the
paper's relative error RE = ‖Ĉ_M − C‖_F / ‖C‖_F.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from harness.datasets.simulated import population_moments, resolve_params
from harness.errors import ConfigError, IncomputableMetricError
from harness.metric import BaseMetric, Family, Goal, MetricResult
from harness.params import check_column_list
from harness.spec import DatasetSpec
from metrics.fidelity import spectral_asymptotics as theory
from metrics.replicates import float_matrix, group_positions, numeric_group_columns

POPULATIONS: tuple[str, ...] = ("auto", "simulation", "train")


class AsymptoticMomentRE(BaseMetric):
    """RE of the replicate covariance of the release's mean and covariance (Theorems 1–2).

    For every group r of ``by`` in the release S (n_r ≥ 2 rows; smaller groups are left
    out and counted), with μ, Σ the population mean and covariance:

    * a_r = √n_r (x̄_r − μ) (p values) and b_r = √n_r vec(S_r − Σ) (p² values, S_r the
      sample covariance, ddof = 1, ``vec`` column-major);
    * Ĉ_a, Ĉ_b = the sample covariances (ddof = 1) of the a_r and of the b_r over the M
      groups — the paper's \\widehat{Cov}_M (**Decision:** centred at the replicate average,
      as R's ``cov``; the paper does not say).

    Outputs (``variant``; goal ``none``: agreement with a limit theorem, not a quality
    ranking — each release is compared with the theorem that applies to it):

    ``re_mean_sigma`` / ``re_mean_2sigma``
        RE of Ĉ_a against Σ (original data, P-SA) and against 2Σ (J-SA, O-SA), Theorem 1.
    ``re_cov_original`` / ``re_cov_spectral``
        RE of Ĉ_b against Tyler's (I + K) limit (original data) and against Theorem 2's
        (2I + 2K − 2V) limit (every SA variant).
    ``max_abs_mean_shift``
        max over groups and columns of |x̄_r(S) − x̄_r(T)| (T's group with the same label;
        0 up to rounding for P-SA, Theorem 1's "always exactly the same").

    The details of the mean (covariance) outputs carry the sufficient statistics M, Σ a_r
    and Σ a_r a_rᵀ (Σ b_r, Σ b_r b_rᵀ) so that blocks of replicates run as separate trials
    pool exactly (the paper's M = 10,000 as ten blocks of 1,000).

    Parameters
    ----------
    by : str, optional
        The replicate label column; None = the whole release is one replicate (then M = 1
        and the metric is incomputable).
    columns : list of str, optional
        Numeric columns; None = every numeric column except ``by``.
    population : {"auto", "simulation", "train"}
        Where μ and Σ come from: ``simulation`` = the simulated dataset's population
        moments (``spectral_sim_p*``); ``train`` = T's overall mean and pooled within-group
        covariance (an estimate, for data without known moments); ``auto`` = the simulation's
        when the dataset defines them, else ``train``.
    """

    name: ClassVar[str] = "asymptotic_moment_re"
    family: ClassVar[Family] = "fidelity"
    goal: ClassVar[Goal] = "none"
    min_value: ClassVar[float] = 0.0
    max_value: ClassVar[float] = math.inf

    def __init__(
        self, by: str | None = "replicate", columns: list[str] | None = None, population: str = "auto"
    ) -> None:
        self.by = by
        self.columns = columns
        self.population = population

    def _validate_params(self) -> None:
        if self.by is not None and (not isinstance(self.by, str) or not self.by):
            raise ConfigError(f"`by` must be null or a column name; got {self.by!r}")
        check_column_list("columns", self.columns)
        if self.population not in POPULATIONS:
            raise ConfigError(
                f"`population` must be one of {', '.join(map(repr, POPULATIONS))}; got {self.population!r}"
            )

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
        columns = numeric_group_columns(spec, self.by, self.columns)
        groups_s = self._groups(synthetic)
        groups_t = self._groups(real)
        release, train = float_matrix(synthetic, columns), float_matrix(real, columns)
        if np.isnan(release).any() or np.isnan(train).any():
            raise IncomputableMetricError(f"metric {self.name}: the numeric columns have missing values")
        mean, sigma, source = self._population(spec, columns, train, groups_t)
        simulation = spec.source.get("params") if source == "simulation" else None
        kept = {label: rows for label, rows in groups_s.items() if len(rows) >= 2}
        if len(kept) < 2:
            raise IncomputableMetricError(
                f"metric {self.name} needs at least 2 replicates with >= 2 rows; got {len(kept)}"
            )
        means, covs, sizes = _group_moments(release, list(kept.values()))
        root_n = np.sqrt(sizes)[:, None]
        a = root_n * (means - mean)
        b = root_n * theory.vec(covs - sigma)
        paired = [label for label in kept if label in groups_t and len(groups_t[label]) >= 2]
        shift = 0.0
        if paired:
            train_means, _, _ = _group_moments(train, [groups_t[label] for label in paired])
            position = {label: i for i, label in enumerate(kept)}
            shift = float(np.abs(means[[position[label] for label in paired]] - train_means).max())
        cov_a = np.atleast_2d(np.cov(a, rowvar=False, ddof=1))
        cov_b = np.atleast_2d(np.cov(b, rowvar=False, ddof=1))
        common: dict[str, Any] = {
            "columns": columns,
            "by": self.by,
            "population": source,
            "simulation": {
                "generator": spec.source.get("generator"),
                **resolve_params(str(spec.source.get("generator")), simulation or {}, where=spec.name),
            }
            if source == "simulation"
            else None,
            "mu": mean.tolist(),
            "sigma": sigma.tolist(),
            "n_replicates": len(kept),
            "n_skipped": len(groups_s) - len(kept),
            "n_min": int(min(len(r) for r in kept.values())),
            "n_max": int(max(len(r) for r in kept.values())),
        }
        mean_stats = {**common, **_sufficient(a, "a")}
        cov_stats = {**common, **_sufficient(b, "b")}
        return {
            "re_mean_sigma": MetricResult(
                theory.relative_error(cov_a, theory.mean_covariance(sigma, 1)), details=mean_stats
            ),
            "re_mean_2sigma": MetricResult(
                theory.relative_error(cov_a, theory.mean_covariance(sigma, 2)), details=mean_stats
            ),
            "re_cov_original": MetricResult(
                theory.relative_error(cov_b, theory.covariance_covariance(sigma, spectral=False)),
                details=cov_stats,
            ),
            "re_cov_spectral": MetricResult(
                theory.relative_error(cov_b, theory.covariance_covariance(sigma, spectral=True)),
                details=cov_stats,
            ),
            "max_abs_mean_shift": MetricResult(shift, details=common),
        }

    # ------------------------------------------------------------------ helpers
    def _groups(self, frame: pd.DataFrame) -> dict[str, np.ndarray]:
        if self.by is None:
            return {"all": np.arange(len(frame))}
        return group_positions(frame, self.by)

    def _population(
        self, spec: DatasetSpec, columns: Sequence[str], train: np.ndarray, groups: dict[str, np.ndarray]
    ) -> tuple[np.ndarray, np.ndarray, str]:
        """μ, Σ of ``columns`` and where they come from (``simulation`` or ``train``)."""
        if self.population in ("auto", "simulation"):
            known = population_moments(spec.source)
            if known is not None:
                mean, sigma = known
                names = [c for c in spec.numeric_columns if c != self.by]
                if len(names) == len(mean):
                    index = [names.index(c) for c in columns]
                    return mean[index], sigma[np.ix_(index, index)], "simulation"
            if self.population == "simulation":
                raise IncomputableMetricError(
                    f"metric {self.name}: dataset {spec.name!r} is not a simulation with known population moments"
                )
        sizes = [len(rows) for rows in groups.values() if len(rows) >= 2]
        if not sizes:
            raise IncomputableMetricError(f"metric {self.name}: no training group has 2 rows")
        scatter = sum(
            (len(rows) - 1) * np.cov(train[rows], rowvar=False, ddof=1).reshape(len(columns), -1)
            for rows in groups.values()
            if len(rows) >= 2
        )
        sigma = np.asarray(scatter) / (sum(sizes) - len(sizes))
        return train.mean(axis=0), sigma, "train"


def _group_moments(values: np.ndarray, groups: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per group: mean (G × p), sample covariance (G × p × p, ddof = 1) and size (G).

    Groups of one size are reduced in one batched pass (the stacked replicates of a
    simulation), so the cost does not grow with a Python loop over groups.
    """
    sizes = np.array([len(rows) for rows in groups])
    p = values.shape[1]
    means, covs = np.empty((len(groups), p)), np.empty((len(groups), p, p))
    for size in np.unique(sizes):
        which = np.flatnonzero(sizes == size)
        block = values[np.concatenate([groups[i] for i in which])].reshape(len(which), int(size), p)
        centre = block.mean(axis=1)
        deviations = block - centre[:, None, :]
        means[which] = centre
        covs[which] = np.einsum("gni,gnj->gij", deviations, deviations) / (size - 1)
    return means, covs, sizes


def _sufficient(values: np.ndarray, name: str) -> dict[str, Any]:
    """M, Σ v_r and Σ v_r v_rᵀ of the per-replicate vectors ``values`` (M × d)."""
    return {
        f"sum_{name}": values.sum(axis=0).tolist(),
        f"sum_{name}{name}": (values.T @ values).tolist(),
    }
