"""R-SPECTRAL: the run's simulation cells, pooled over blocks of replicates, with their noise.

Every trial of ``spectral_2024`` is one cell (DGP, p, n) with its M replicates stacked;
``asymptotic_moment_re`` carries, per cell, the sufficient statistics of √n(x̄_A − μ) and
√n·vec(S_A − Σ) over the replicates, ``grouped_exact_match`` the within-replicate matches and
EUC. Cells run as several blocks of replicates (data seeds) are pooled exactly from those
statistics. The Monte Carlo noise of a cell's RE and efficiencies comes from
:mod:`~experiments.reproductions.spectral_2024_stats`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from experiments.reproductions.spectral_2024_stats import covariance_draws, relative_error_sd
from harness.reproduction import ReproductionRun

RE_METRIC = "asymptotic_moment_re"
MATCH_METRIC = "grouped_exact_match"
RELEASES: tuple[str, ...] = ("original", "p_sa", "j_sa", "o_sa")
VARIANTS: tuple[str, ...] = ("p_sa", "j_sa", "o_sa")
LABELS = {"original": "original data", "p_sa": "P-SA", "j_sa": "J-SA", "o_sa": "O-SA"}
# which limit of Theorems 1-2 applies to each release (mean output, covariance output)
THEOREM = {
    "original": ("re_mean_sigma", "re_cov_original"),
    "p_sa": ("re_mean_sigma", "re_cov_spectral"),
    "j_sa": ("re_mean_2sigma", "re_cov_spectral"),
    "o_sa": ("re_mean_2sigma", "re_cov_spectral"),
}
MEAN_EFFICIENCY = {"p_sa": 1.0, "j_sa": 0.5, "o_sa": 0.5}
CONTINUOUS_DGPS = (1, 2)
PAPER_RUNTIME = {"o_sa": 2.44, "p_sa": 0.002, "j_sa": 0.001}
RUNTIME_CELL = {"p": 6, "n": 1000}
CELL = ["dgp", "p", "n"]


# ---------------------------------------------------------------------- collected cells
def _release(generator: str, params: str) -> str:
    if generator == "identity":
        return "original"
    variant = json.loads(params).get("variant") if isinstance(params, str) and params else None
    return str(variant)


def cells(run: ReproductionRun) -> pd.DataFrame:
    """One row per trial: release, DGP, p, n, M, seed and the pooled statistics' inputs."""
    rows = run.rows(RE_METRIC, "re_cov_spectral")
    mean_rows = run.rows(RE_METRIC, "re_mean_sigma").set_index("trial_key")
    shift_rows = run.rows(RE_METRIC, "max_abs_mean_shift").set_index("trial_key")
    match_rows = run.rows(MATCH_METRIC, "matches_tol").set_index("trial_key")
    euc_rows = run.rows(MATCH_METRIC, "euc_mean").set_index("trial_key")
    out = []
    for _, row in rows.iterrows():
        details = json.loads(row["details"])
        simulation = details.get("simulation") or {}
        key = row["trial_key"]
        mean_details = json.loads(mean_rows.loc[key, "details"]) if key in mean_rows.index else {}
        match_details = json.loads(match_rows.loc[key, "details"]) if key in match_rows.index else {}
        out.append(
            {
                "trial_key": key,
                "release": _release(str(row["generator"]), row["generator_params"]),
                "dgp": int(simulation.get("dgp", 0)),
                "p": int(simulation.get("p", len(details["columns"]))),
                "n": int(simulation.get("n", details["n_max"])),
                "replicates": int(details["n_replicates"]),
                "seed": int(simulation.get("seed", 0)),
                "sigma": np.asarray(details["sigma"], dtype=float),
                "sum_a": np.asarray(mean_details.get("sum_a", []), dtype=float),
                "sum_aa": np.asarray(mean_details.get("sum_aa", []), dtype=float),
                "sum_b": np.asarray(details["sum_b"], dtype=float),
                "sum_bb": np.asarray(details["sum_bb"], dtype=float),
                "mean_shift": float(shift_rows.loc[key, "value"]) if key in shift_rows.index else math.nan,
                "n_matches": int(match_details.get("n_matches", 0)) if match_details else None,
                "n_rows": int(match_details.get("n_rows", 0)) if match_details else None,
                "matches_per_group": match_details.get("matches_per_group", {}),
                "euc": float(euc_rows.loc[key, "value"]) if key in euc_rows.index else math.nan,
                "fit_s": float(row["fit_s"]) if pd.notna(row["fit_s"]) else math.nan,
            }
        )
    return pd.DataFrame(out)


def _pooled_cov(total: np.ndarray, cross: np.ndarray, m: int) -> np.ndarray:
    mean = total / m
    return np.asarray((cross - m * np.outer(mean, mean)) / (m - 1))


def pooled(run: ReproductionRun) -> pd.DataFrame:
    """One row per (release, DGP, p, n): blocks pooled; RE against the applicable theorem (cached per run)."""
    return _pooled(run.run_dir, len(run.results), run)


_CACHE: dict[tuple[str, int], pd.DataFrame] = {}


def _pooled(run_dir: object, size: int, run: ReproductionRun) -> pd.DataFrame:
    key = (str(run_dir), size)
    if key not in _CACHE:
        _CACHE[key] = _compute_pooled(run)
    return _CACHE[key]


def _compute_pooled(run: ReproductionRun) -> pd.DataFrame:
    from metrics.fidelity import spectral_asymptotics as theory

    frame = cells(run)
    if frame.empty:
        return frame
    out = []
    for (release, dgp, p, n), group in frame.groupby(["release", *CELL], sort=True):
        m = int(group["replicates"].sum())
        sigma = group["sigma"].iloc[0]
        cov_a = _pooled_cov(np.sum(list(group["sum_a"]), axis=0), np.sum(list(group["sum_aa"]), axis=0), m)
        cov_b = _pooled_cov(np.sum(list(group["sum_b"]), axis=0), np.sum(list(group["sum_bb"]), axis=0), m)
        factor = 2.0 if release in ("j_sa", "o_sa") else 1.0
        limit_b = theory.covariance_covariance(sigma, spectral=release != "original")
        matched = group["n_matches"].dropna()
        out.append(
            {
                "release": release,
                "dgp": int(dgp),
                "p": int(p),
                "n": int(n),
                "M": m,
                "re_mean": theory.relative_error(cov_a, theory.mean_covariance(sigma, factor)),
                "re_cov": theory.relative_error(cov_b, limit_b),
                "limit_a": theory.mean_covariance(sigma, factor),
                "limit_b": limit_b,
                "cov_a": cov_a,
                "cov_b": cov_b,
                "sigma": sigma,
                "mean_shift": float(group["mean_shift"].max()),
                "n_matches": int(matched.sum()) if len(matched) else None,
                "n_rows": int(group["n_rows"].dropna().sum()) if len(matched) else None,
                "euc": float(np.average(group["euc"], weights=group["replicates"])),
                "seconds_per_dataset": float(group["fit_s"].sum() / m),
                "matches_per_group": _merge_counts(group["matches_per_group"]),
            }
        )
    return pd.DataFrame(out)


def _merge_counts(parts: Sequence[dict[str, int]]) -> dict[int, int]:
    total: dict[int, int] = {}
    for part in parts:
        for key, count in (part or {}).items():
            total[int(key)] = total.get(int(key), 0) + int(count)
    return dict(sorted(total.items()))


def expected_match_rate(variant: str, p: int, n: int) -> float:
    """Probability that a released row equals an original row: 2^(−p) (J-SA), n^(1−p) (P-SA)."""
    if variant == "j_sa":
        return 0.5**p
    if variant == "p_sa":
        return float(n) ** (1 - p)
    return 0.0


_NOISE: dict[tuple[object, ...], float] = {}


def noise(row: pd.Series, which: str) -> float:
    """SD of the cell's RE of the mean (``which="mean"``) or the covariance (``"cov"``), computed once."""
    key = (
        row["release"],
        int(row["dgp"]),
        int(row["p"]),
        int(row["n"]),
        which,
        int(row["M"]),
        float(row[f"re_{which}"]),
    )
    if key not in _NOISE:
        cov, limit = (row["cov_a"], row["limit_a"]) if which == "mean" else (row["cov_b"], row["limit_b"])
        _NOISE[key] = relative_error_sd(cov, limit, int(row["M"]))
    return _NOISE[key]


def cell_row(table: pd.DataFrame, release: str, dgp: int, p: int, n: int) -> pd.Series | None:
    """The pooled row of one cell (None when it did not run)."""
    part = table[
        (table["release"] == release) & (table["dgp"] == dgp) & (table["p"] == p) & (table["n"] == n)
    ]
    return part.iloc[0] if len(part) else None


def _efficiencies(cov_a: np.ndarray, cov_b: np.ndarray, sigma: np.ndarray) -> tuple[float, float, float]:
    p = len(sigma)
    lam = np.diag(sigma)
    diag_b = np.diag(cov_b).reshape(p, p)  # element (k, l): Var of √n (S_kl − Σ_kl), column-major
    var_idx = np.eye(p, dtype=bool)
    mean = float(np.trace(sigma) / np.trace(cov_a))
    variances = float(np.mean(2 * lam**2 / diag_b.T[var_idx]))
    cross = float(np.mean(np.outer(lam, lam)[~var_idx] / diag_b.T[~var_idx])) if p > 1 else math.nan
    return mean, variances, cross


def efficiency_rows(run: ReproductionRun) -> pd.DataFrame:
    """Per SA variant and p at DGP 1's largest n: efficiency of the mean, variances, covariances and
    their SDs (Wishart draws of the cell's two covariances)."""
    table = pooled(run)
    if table.empty:
        return table
    part = table[(table["dgp"] == 1) & table["release"].isin(VARIANTS)]
    if part.empty:
        return part
    n_hi = int(part["n"].max())
    rows = []
    for _, cell in part[part["n"] == n_hi].iterrows():
        m = int(cell["M"])
        sigma = cell["sigma"]
        mean, variances, cross = _efficiencies(cell["cov_a"], cell["cov_b"], sigma)
        draws_a, draws_b = covariance_draws(cell["cov_a"], m), covariance_draws(cell["cov_b"], m)
        drawn = np.array([_efficiencies(a, b, sigma) for a, b in zip(draws_a, draws_b)])
        sd = np.nanstd(drawn, axis=0, ddof=1)
        rows.append(
            {
                "release": cell["release"], "p": int(cell["p"]), "n": n_hi, "M": m,
                "mean": mean, "variances": variances, "covariances": cross,
                "sd_mean": float(sd[0]), "sd_variances": float(sd[1]), "sd_covariances": float(sd[2]),
            }
        )  # fmt: skip
    return pd.DataFrame(rows)
