"""R-SPECTRAL checks (``spec/reproductions.md`` §9): spectral anonymisation's simulation study.

Paper: ``004_…`` *Asymptotic Utility of Spectral Anonymization* (Perkonoja, Virta), §2
(Theorems 1–2), §3 (Figs 2–5) and Appendix B (Fig. 6). Every trial of ``spectral_2024`` is
one cell (DGP, p, n) with its M replicates stacked; ``asymptotic_moment_re`` carries, per
cell, the sufficient statistics of √n(x̄_A − μ) and √n·vec(S_A − Σ) over the replicates,
``grouped_exact_match`` the within-replicate matches and EUC. Cells run as several blocks
of replicates (data seeds) are pooled exactly from those statistics.

What is checked and how:

* **Exact.** P-SA's mean equals the original mean (max |x̄_A − x̄| over replicates and columns
  ≤ 1e-12); O-SA produces no match (δ = 1e-6).
* **Tolerance (derived from the algorithm, not printed).** A J-SA row reproduces its original
  row iff all its p signs are +1: match rate 2^(−p). A P-SA row i equals original row j iff
  all p permutations send i to j: rate n·n^(−p) = n^(1−p). Both within 3 binomial standard
  errors, on the continuous DGPs (1–2; Poisson data have tied rows, so more matches, as the
  paper notes). The asymptotic efficiencies of §2 (mean 100 % for P-SA and 50 % for J-SA /
  O-SA; variances 100 %, covariances 50 % for all three) are measured at the largest n of
  DGP 1 as the limit variance of the original data over our replicate variance, within
  3·√(2/(M−1)) (the relative standard error of a variance over M normal replicates).
* **Trend.** The covariance RE decreases with n under DGP 1 (Fig. 2); under DGP 2 (Assumption 1
  violated) it stays above DGP 1's (Fig. 3); under Poisson data the original data's covariance
  RE does not vanish (Fig. 6); matches fall with p, to none for P-SA at p = 6 while J-SA keeps a
  small rate (paper "≈ 0.03", read from a histogram; the algorithm gives 2^(−6) = 0.016); O-SA
  has the largest EUC in every cell (Fig. 4); runtime ordering (O-SA 2.44 s ≫ P-SA 0.002 s >
  J-SA 0.001 s at n = 1000, p = 6).

Differences from the paper (explained, not tuned):

* M = 1,000 replicates (**Decision** of §9; the paper used 10,000; run the paper profile with
  ``dataset.source.params.seed=range(10)`` for 10 × 1,000). Monte Carlo noise of an RE over M
  replicates is about √(2/M)·(something of order 1), so the curves flatten at ≈ 0.05 instead of
  ≈ 0.02; the quick profile's M = 200 leaves ≈ 0.1.
* Our O-SA draws z_k ~ N(0, I_n) (``spec/generators.md`` §6.9; equal in distribution to a Haar
  rotation of u_k, O(np)) instead of an n × n Haar matrix (O(n³)): it runs for every n (the paper
  stopped at n = 400) and costs about as much as P-SA and J-SA, so the paper's runtime ordering is
  not expected to hold — the check reports it.
* \\widehat{Cov}_M is the sample covariance over the replicates (centred, ddof = 1), S_A the
  sample covariance with ddof = 1 (R's defaults; the paper does not say).
* The paper's J-SA "≈ 0.03" at p = 6 is twice 2^(−6); our rate matches the algorithm.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from harness.reproduction import Check, ReproductionRun, exact, trend, unavailable, within

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
    """One row per (release, DGP, p, n): blocks pooled; RE against the applicable theorem."""
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


def _note(run: ReproductionRun) -> str:
    return "quick profile: DGP 1, p ∈ {2, 6}, n ∈ {25, 400}, M = 200" if run.quick else ""


# ---------------------------------------------------------------------- exact checks
def check_psa_mean(run: ReproductionRun) -> Check:
    """P-SA's sample mean equals the original sample mean (Theorem 1) to 1e-12."""
    table = pooled(run)
    part = table[table["release"] == "p_sa"] if len(table) else table
    claim = "P-SA: max |x̄_A − x̄| over replicates and columns ≤ 1e-12"
    paper = 'Theorem 1: √n(x̄_P − μ) = √n(x̄ − μ) ("the two estimators are always exactly the same")'
    if part.empty:
        return unavailable("psa-mean-exact", claim, paper, "exact", "no P-SA cell")
    return exact(
        "psa-mean-exact", claim, paper, float(part["mean_shift"].max()), 0.0, tol=1e-12, digits=3,
        reason=f"over {int(part['M'].sum()):,} replicates in {len(part)} cells (unrounded continuous columns)",
        evidence=["tables/matches.md"],
    )  # fmt: skip


def check_osa_no_matches(run: ReproductionRun) -> Check:
    """O-SA never reproduces an original record (δ = 1e-6)."""
    table = pooled(run)
    part = table[table["release"] == "o_sa"] if len(table) else table
    claim = "O-SA: matches (nearest distance < 1e-6) over all cells = 0"
    paper = '"O-SA did not produce any matches … with a proportion of zero observed across all datasets"'
    if part.empty or part["n_matches"].isna().all():
        return unavailable("osa-no-matches", claim, paper, "exact", "no O-SA cell")
    rows = int(part["n_rows"].sum())
    return exact(
        "osa-no-matches", claim, paper, int(part["n_matches"].sum()), 0, digits=0,
        reason=f"{rows:,} released rows in {len(part)} cells", evidence=["tables/matches.md", "figures/fig5_matches.png"],
    )  # fmt: skip


# ---------------------------------------------------------------------- match rates
def expected_match_rate(variant: str, p: int, n: int) -> float:
    """Probability that a released row equals an original row: 2^(−p) (J-SA), n^(1−p) (P-SA)."""
    if variant == "j_sa":
        return 0.5**p
    if variant == "p_sa":
        return float(n) ** (1 - p)
    return 0.0


def _rate_check(run: ReproductionRun, variant: str, p: int) -> Check:
    table = pooled(run)
    check_id = f"{variant.replace('_', '')}-match-rate-p{p}"
    formula = "2^(−p)" if variant == "j_sa" else "n^(1−p)"
    claim = f"{LABELS[variant]}, p = {p}: match rate = {formula} within 3 binomial SE (DGPs 1-2, all n)"
    paper = (
        "derived from the algorithm (not printed): a row is reproduced iff all p signs are +1"
        if variant == "j_sa"
        else "derived from the algorithm (not printed): all p permutations send the row to the same index"
    )
    part = table[
        (table["release"] == variant) & (table["p"] == p) & table["dgp"].isin(CONTINUOUS_DGPS)
    ] if len(table) else table  # fmt: skip
    if part.empty:
        return unavailable(check_id, claim, paper, "tolerance", f"no {LABELS[variant]} cell with p = {p}")
    q = np.array([expected_match_rate(variant, p, n) for n in part["n"]])
    rows = part["n_rows"].to_numpy(dtype=float)
    expected = float(np.sum(q * rows))
    se = float(np.sqrt(np.sum(rows * q * (1 - q))))
    observed = int(part["n_matches"].sum())
    total = float(rows.sum())
    check = within(
        check_id, claim, paper, observed / total, (expected - 3 * se) / total, (expected + 3 * se) / total,
        digits=5,
        reason=(
            f"{observed:,} matches in {int(total):,} rows; expected {expected:,.1f} ± {se:,.1f} (1 SE)"
            + (f"; {_note(run)}" if run.quick else "")
        ),
        evidence=["tables/matches.md"],
    )  # fmt: skip
    return check


def check_match_rates(run: ReproductionRun) -> list[Check]:
    """J-SA and P-SA match rates against 2^(−p) and n^(1−p), for every p that ran."""
    table = pooled(run)
    ps = sorted(set(table["p"])) if len(table) else [2, 6]
    return [_rate_check(run, variant, p) for variant in ("j_sa", "p_sa") for p in ps]


def check_matches_fall_with_p(run: ReproductionRun) -> list[Check]:
    """Matches decrease as p grows; none for P-SA at p = 6, J-SA keeps a small rate."""
    table = pooled(run)
    paper = (
        '"as p increased, the number of matches decreased, ultimately leading to no matches for P-SA and '
        'approximately rate of 0.03 for J-SA"'
    )
    out: list[Check] = []
    if table.empty:
        return [unavailable("matches-fall-with-p", "match rates fall with p", paper, "trend", "no cells")]
    cont = table[table["dgp"].isin(CONTINUOUS_DGPS) & table["release"].isin(["p_sa", "j_sa"])]
    sums = cont.groupby(["release", "p"])[["n_matches", "n_rows"]].sum()
    rates = sums["n_matches"] / sums["n_rows"]
    shown = {f"{LABELS[r]} p={p}": float(v) for (r, p), v in rates.items()}
    falling = all(
        bool(np.all(np.diff(rates.loc[r].sort_index().to_numpy()) < 0))
        for r in ("p_sa", "j_sa")
        if r in rates
    )
    out.append(
        trend(
            "matches-fall-with-p",
            "P-SA and J-SA match rates decrease as p grows (DGPs 1-2)",
            paper,
            ", ".join(f"{k} {v:.4f}" for k, v in shown.items()),
            falling,
            value=shown,
            evidence=["tables/matches.md", "figures/fig5_matches.png"],
        )  # fmt: skip
    )
    p_max = int(cont["p"].max()) if len(cont) else 6
    psa = cont[(cont["release"] == "p_sa") & (cont["p"] == p_max)]
    jsa = cont[(cont["release"] == "j_sa") & (cont["p"] == p_max)]
    n_psa = int(psa["n_matches"].sum()) if len(psa) else None
    rate_jsa = float(jsa["n_matches"].sum() / jsa["n_rows"].sum()) if len(jsa) else math.nan
    out.append(
        trend(
            f"psa-no-matches-p{p_max}",
            f"P-SA at p = {p_max}: no match",
            paper,
            f"{n_psa} matches" if n_psa is not None else "",
            n_psa == 0,
            value=n_psa,
            reason=f"expected n^(1−p) ≤ {25.0 ** (1 - p_max):.1e} per row",
            evidence=["tables/matches.md"],
        )  # fmt: skip
    )
    out.append(
        trend(
            f"jsa-small-rate-p{p_max}",
            f"J-SA at p = {p_max}: a small positive match rate (0 < rate < 0.05)",
            paper,
            f"{rate_jsa:.4f}",
            bool(0 < rate_jsa < 0.05),
            value=rate_jsa,
            expected={"paper": 0.03},
            reason=(
                f"the algorithm gives 2^(−{p_max}) = {0.5**p_max:.4f}; the paper's ≈ 0.03 (read from the Fig. 5 "
                "histogram) is about twice that"
            ),
            evidence=["tables/matches.md", "figures/fig5_matches.png"],
        )  # fmt: skip
    )
    return out


# ---------------------------------------------------------------------- RE trends
def check_re_decreases(run: ReproductionRun) -> Check:
    """Under DGP 1 the covariance RE of every SA variant decreases from the smallest to the largest n."""
    table = pooled(run)
    paper = 'Fig. 2: "all curves … approach zero when n grows"'
    claim = "DGP 1: RE of Cov(√n vec(S_A − Σ)) vs Theorem 2 lower at the largest n than at the smallest, every SA variant and p"
    part = table[(table["dgp"] == 1) & table["release"].isin(VARIANTS)] if len(table) else table
    if part.empty or part["n"].nunique() < 2:
        return unavailable("re-cov-decreases-dgp1", claim, paper, "trend", "fewer than two n under DGP 1")
    pairs = {}
    for (release, p), group in part.groupby(["release", "p"]):
        ordered = group.sort_values("n")
        pairs[f"{LABELS[release]} p={p}"] = (
            float(ordered["re_cov"].iloc[0]),
            float(ordered["re_cov"].iloc[-1]),
        )
    n_lo, n_hi = int(part["n"].min()), int(part["n"].max())
    passed = all(hi < lo for lo, hi in pairs.values())
    return trend(
        "re-cov-decreases-dgp1", claim, paper,
        "; ".join(f"{k}: {lo:.3f} → {hi:.3f}" for k, (lo, hi) in pairs.items()) + f" (n {n_lo} → {n_hi})",
        passed, value={k: list(v) for k, v in pairs.items()},
        reason=f"M = {int(part['M'].max()):,} replicates per cell" + (f"; {_note(run)}" if run.quick else ""),
        evidence=["tables/relative_errors.md", "figures/fig2_re_dgp1.png"],
    )  # fmt: skip


def check_assumption1_violated(run: ReproductionRun) -> Check:
    """Under DGP 2 (equal eigenvalues) the SA covariance RE stays above DGP 1's at the largest n."""
    table = pooled(run)
    paper = 'Fig. 3: "converges to a different constant than outlined in Theorem 2"'
    claim = "largest n: RE_cov of every SA variant and p higher under DGP 2 (Σ = I) than under DGP 1"
    if table.empty or not {1, 2} <= set(table["dgp"]):
        return unavailable(
            "re-cov-dgp2-above-dgp1", claim, paper, "trend", "DGP 2 not run (quick profile: DGP 1 only)"
        )
    part = table[table["release"].isin(VARIANTS)]
    n_hi = int(part["n"].max())
    top = part[part["n"] == n_hi].pivot_table(index=["release", "p"], columns="dgp", values="re_cov")
    shown = {f"{LABELS[r]} p={p}": (float(v[1]), float(v[2])) for (r, p), v in top.iterrows()}
    return trend(
        "re-cov-dgp2-above-dgp1", claim, paper,
        "; ".join(f"{k}: DGP1 {a:.3f}, DGP2 {b:.3f}" for k, (a, b) in shown.items()),
        all(b > a for a, b in shown.values()), value={k: list(v) for k, v in shown.items()},
        evidence=["tables/relative_errors.md", "figures/fig3_re_dgp2.png"],
    )  # fmt: skip


def check_poisson_original(run: ReproductionRun) -> Check:
    """Poisson data: the original data's covariance RE stays above the normal-data one (Fig. 6)."""
    table = pooled(run)
    paper = 'Appendix B, Fig. 6: "the sample covariance curves, even for the original data, failed to converge to zero"'
    claim = "largest n: RE_cov of the original data higher under Poisson data (DGPs 3, 4) than under DGP 1, every p"
    poisson = sorted({3, 4} & set(table["dgp"])) if len(table) else []
    if table.empty or 1 not in set(table["dgp"]) or not poisson or "original" not in set(table["release"]):
        return unavailable(
            "re-cov-poisson-original",
            claim,
            paper,
            "trend",
            "original data under DGP 1 and a Poisson DGP not run (paper profile)",
        )
    part = table[table["release"] == "original"]
    n_hi = int(part["n"].max())
    top = part[part["n"] == n_hi].pivot_table(index="p", columns="dgp", values="re_cov")
    shown = {
        int(p): {int(d): float(v[d]) for d in [1, *poisson] if d in v and pd.notna(v[d])}
        for p, v in top.iterrows()
    }
    passed = all(all(row[d] > row[1] for d in poisson if d in row) for row in shown.values() if 1 in row)
    return trend(
        "re-cov-poisson-original", claim, paper,
        "; ".join(f"p={p}: " + ", ".join(f"DGP{d} {v:.3f}" for d, v in row.items()) for p, row in shown.items()),
        passed, value={str(k): v for k, v in shown.items()},
        reason=(
            "Tyler's limit assumes normal fourth moments: for Poisson(λ) marginals Var(√n S_kk) → 2λ² + λ instead of "
            f"2λ², so the RE tends to a positive constant (n = {n_hi})"
        ),
        evidence=["tables/relative_errors.md", "figures/fig6_re_dgp3.png"],
    )  # fmt: skip


# ---------------------------------------------------------------------- efficiencies
def _efficiency_rows(run: ReproductionRun) -> pd.DataFrame:
    """Per SA variant and p at DGP 1's largest n: efficiency of the mean, variances, covariances."""
    table = pooled(run)
    if table.empty:
        return table
    part = table[(table["dgp"] == 1) & table["release"].isin(VARIANTS)]
    if part.empty:
        return part
    n_hi = int(part["n"].max())
    rows = []
    for _, cell in part[part["n"] == n_hi].iterrows():
        p = int(cell["p"])
        sigma = cell["sigma"]
        lam = np.diag(sigma)
        cov_a, cov_b = cell["cov_a"], cell["cov_b"]
        diag_b = np.diag(cov_b).reshape(p, p)  # element (k, l): Var of √n (S_kl − Σ_kl), column-major
        var_idx = np.eye(p, dtype=bool)
        original_var = 2 * lam**2
        original_cross = np.outer(lam, lam)
        rows.append(
            {
                "release": cell["release"],
                "p": p,
                "n": n_hi,
                "M": int(cell["M"]),
                "mean": float(np.trace(sigma) / np.trace(cov_a)),
                "variances": float(np.mean(original_var / diag_b.T[var_idx])),
                "covariances": float(np.mean(original_cross[~var_idx] / diag_b.T[~var_idx]))
                if p > 1
                else math.nan,
            }
        )
    return pd.DataFrame(rows)


def check_efficiencies(run: ReproductionRun) -> list[Check]:
    """Asymptotic efficiencies of §2: mean 100 % / 50 %, variances 100 %, covariances 50 %."""
    eff = _efficiency_rows(run)
    paper_text = {
        "mean": "Theorem 1: mean efficiency 100 % (P-SA), 50 % (J-SA, O-SA)",
        "variances": "Theorem 2: variances estimated as efficiently as from the original data (100 %)",
        "covariances": 'Theorem 2: "asymptotic efficiency … in covariance estimation is exactly 50 %"',
    }
    out: list[Check] = []
    for quantity in ("mean", "variances", "covariances"):
        for variant in VARIANTS:
            target = (
                MEAN_EFFICIENCY[variant] if quantity == "mean" else (1.0 if quantity == "variances" else 0.5)
            )
            check_id = f"efficiency-{quantity}-{variant.replace('_', '')}"
            claim = f"{LABELS[variant]}: asymptotic efficiency of the {quantity} = {target:.0%} (DGP 1, largest n, mean over p)"
            part = eff[eff["release"] == variant] if len(eff) else eff
            if part.empty:
                out.append(unavailable(check_id, claim, paper_text[quantity], "tolerance", "no DGP 1 cell"))
                continue
            m = int(part["M"].min())
            band = 3 * math.sqrt(2 / (m - 1))
            value = float(part[quantity].mean())
            out.append(
                within(
                    check_id,
                    claim,
                    paper_text[quantity],
                    value,
                    target * (1 - band),
                    target * (1 + band),
                    reason=(
                        f"limit variance of the original data / our replicate variance at n = {int(part['n'].iloc[0])}, "
                        f"p ∈ {sorted(part['p'].tolist())}; band ±{band:.0%} = 3·√(2/(M−1)), M = {m}"
                        + (
                            "; finite n adds a bias for the covariances at large p"
                            if quantity == "covariances"
                            else ""
                        )
                    ),
                    evidence=["tables/efficiency.md"],
                )  # fmt: skip
            )
    return out


# ---------------------------------------------------------------------- EUC and runtime
def check_euc_ordering(run: ReproductionRun) -> Check:
    """O-SA has the largest EUC (mean nearest distance) in every cell."""
    table = pooled(run)
    paper = 'Fig. 4: O-SA "consistently yielding higher distances compared to P-SA and J-SA"'
    claim = "EUC_O-SA > EUC_P-SA and EUC_O-SA > EUC_J-SA in every (DGP, p, n) cell"
    part = table[table["release"].isin(VARIANTS)] if len(table) else table
    if part.empty:
        return unavailable("euc-ordering", claim, paper, "trend", "no SA cell")
    wide = part.pivot_table(index=CELL, columns="release", values="euc")
    wide = wide.dropna(subset=[c for c in VARIANTS if c in wide.columns])
    if not set(VARIANTS) <= set(wide.columns) or wide.empty:
        return unavailable("euc-ordering", claim, paper, "trend", "a variant is missing")
    ok = (wide["o_sa"] > wide["p_sa"]) & (wide["o_sa"] > wide["j_sa"])
    broken = [f"DGP {d} p={p} n={n}" for (d, p, n), good in ok.items() if not good]
    return trend(
        "euc-ordering", claim, paper, f"O-SA largest in {int(ok.sum())}/{len(ok)} cells", bool(ok.all()),
        value={"cells": len(ok), "o_sa_largest": int(ok.sum())},
        reason=("broken at " + ", ".join(broken[:10])) if broken else "",
        evidence=["tables/euc.md", "figures/fig4_euc.png"],
    )  # fmt: skip


def _runtime_cells(run: ReproductionRun) -> tuple[pd.DataFrame, str]:
    table = pooled(run)
    if table.empty:
        return table, ""
    part = table[(table["dgp"] == 1) & table["release"].isin(VARIANTS)]
    exact_cell = part[(part["p"] == RUNTIME_CELL["p"]) & (part["n"] == RUNTIME_CELL["n"])]
    if len(exact_cell):
        return exact_cell, "n = 1000, p = 6"
    p_max = int(part["p"].max())
    near = part[part["p"] == p_max]
    n_near = int(near["n"].max())
    return near[near["n"] == n_near], f"n = {n_near}, p = {p_max} (no n = 1000 cell in this profile)"


def check_runtime(run: ReproductionRun) -> list[Check]:
    """Runtime per data set: O-SA under the paper's 2.44 s; the paper's ordering O-SA ≫ P-SA > J-SA."""
    part, where = _runtime_cells(run)
    paper = '"For a dataset size of n = 1000 and p = 6, the runtime for O-SA is on average 2.44s, while for P-SA and J-SA, it is 0.002 and 0.001s"'
    if part.empty or set(part["release"]) != set(VARIANTS):
        reason = "the runtime cell lacks a variant"
        return [
            unavailable(
                "runtime-osa-below-paper", "O-SA seconds per data set < 2.44", paper, "trend", reason
            ),
            unavailable(
                "runtime-ordering", "O-SA > P-SA > J-SA seconds per data set", paper, "trend", reason
            ),
        ]
    seconds = {r: float(v) for r, v in zip(part["release"], part["seconds_per_dataset"])}
    shown = ", ".join(f"{LABELS[r]} {seconds[r] * 1e3:.2f} ms" for r in ("o_sa", "p_sa", "j_sa"))
    cost = "our O-SA draws z_k ~ N(0, I_n) (O(np)) instead of an n × n Haar matrix (O(n³))"
    return [
        trend(
            "runtime-osa-below-paper",
            f"O-SA seconds per data set ({where}) < the paper's 2.44 s",
            paper,
            shown,
            seconds["o_sa"] < PAPER_RUNTIME["o_sa"],
            value=seconds,
            expected=PAPER_RUNTIME,
            reason=f"{cost}; fit time of the trial / M (includes the per-replicate SVD and bookkeeping)",
            evidence=["tables/runtime.md"],
        ),  # fmt: skip
        trend(
            "runtime-ordering",
            f"seconds per data set ({where}): O-SA > P-SA > J-SA",
            paper,
            shown,
            seconds["o_sa"] > seconds["p_sa"] > seconds["j_sa"],
            value=seconds,
            expected=PAPER_RUNTIME,
            reason=f"{cost}, so the three variants cost about the same and their order is timing noise",
            evidence=["tables/runtime.md"],
        ),  # fmt: skip
    ]


CHECKS = [
    check_psa_mean,
    check_osa_no_matches,
    check_match_rates,
    check_matches_fall_with_p,
    check_re_decreases,
    check_assumption1_violated,
    check_poisson_original,
    check_efficiencies,
    check_euc_ordering,
    check_runtime,
]

QUICK_MUST_PASS = {
    "jsa-match-rate-p2",
    "jsa-match-rate-p6",
    "psa-match-rate-p2",
    "psa-match-rate-p6",
    "matches-fall-with-p",
    "psa-no-matches-p6",
    "euc-ordering",
    "efficiency-mean-psa",
    "efficiency-mean-jsa",
    "efficiency-mean-osa",
    "runtime-osa-below-paper",
}


# ---------------------------------------------------------------------- artifacts
def artifacts(run: ReproductionRun) -> None:
    """Tables of RE, matches, EUC, efficiency and runtime; Figs 2-6-like plots."""
    from experiments.reproductions.spectral_2024_figures import draw_figures

    table = pooled(run)
    if table.empty:
        return
    order = {r: i for i, r in enumerate(RELEASES)}
    table = table.sort_values(["dgp", "p", "n"], key=lambda s: s).assign(_o=table["release"].map(order))
    table = table.sort_values(["dgp", "p", "n", "_o"]).drop(columns="_o")
    re_table = table[["dgp", "p", "n", "release", "M", "re_mean", "re_cov"]].copy()
    re_table["release"] = re_table["release"].map(LABELS)
    run.write_table(
        "relative_errors", re_table,
        caption="RE of the replicate covariance of √n(x̄_A − μ) (re_mean) and √n·vec(S_A − Σ) (re_cov) against "
        "the limit that applies (Theorem 1: Σ or 2Σ; Tyler / Theorem 2) — Figs 2, 3, 6",
    )  # fmt: skip
    sa = table[table["release"].isin(VARIANTS)].copy()
    sa["expected_rate"] = [expected_match_rate(r, p, n) for r, p, n in zip(sa["release"], sa["p"], sa["n"])]
    sa["match_rate"] = sa["n_matches"] / sa["n_rows"]
    matches = sa[
        ["dgp", "p", "n", "release", "M", "n_rows", "n_matches", "match_rate", "expected_rate", "mean_shift"]
    ]
    run.write_table(
        "matches", matches.assign(release=matches["release"].map(LABELS)),
        caption="Matches (nearest original row of the same replicate closer than 1e-6) and max |x̄_A − x̄|; "
        "expected rate 2^(−p) (J-SA), n^(1−p) (P-SA), 0 (O-SA) on continuous data — Fig. 5", digits=5,
    )  # fmt: skip
    euc = sa.pivot_table(index=CELL, columns="release", values="euc").reset_index()
    euc.columns = [LABELS.get(str(c), str(c)) for c in euc.columns]
    run.write_table(
        "euc",
        euc,
        caption="EUC_A: mean distance to the nearest original record of the same replicate — Fig. 4",
    )
    eff = _efficiency_rows(run)
    if len(eff):
        run.write_table(
            "efficiency", eff.assign(release=eff["release"].map(LABELS)),
            caption="Asymptotic efficiency (original-data limit variance / replicate variance) at DGP 1's largest n; "
            "theory: mean 1 (P-SA) or 0.5 (J-SA, O-SA), variances 1, covariances 0.5",
        )  # fmt: skip
    runtime, where = _runtime_cells(run)
    if len(runtime):
        rt = runtime[["release", "p", "n", "M", "seconds_per_dataset"]].copy()
        rt["paper_seconds"] = rt["release"].map(PAPER_RUNTIME)
        run.write_table(
            "runtime", rt.assign(release=rt["release"].map(LABELS)),
            caption=f"Seconds per data set ({where}): trial fit time / M; the paper's values for comparison", digits=5,
        )  # fmt: skip
    draw_figures(run, table)
