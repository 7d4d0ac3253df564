"""R-ANALYTIC checks (``spec/reproductions.md`` §14): closed-form claims of three ``004_…`` papers.

No trials: every check calls our implementation of the paper's formula.

* Jackson, Mitra, Francis & Dove, *Obtaining (ε, δ)-Differential Privacy Guarantees When Using a
  Poisson Mechanism to Synthesize Contingency Tables*, §4–5: δ(α, ε) = 1 − F_{Poisson(1+α)}(
  ⌊(1 + ε)/ln((1 + α)/α)⌋) (Eq. 9) via :func:`generators.poisson_counts.poisson_delta`.
* Altman, Cohen, Nissim & Wood, *From Isolation to Identification*, §3–4 and Fig. 1: the
  no-release isolation baseline via :mod:`metrics.privacy.isolation`.
* Little, Elliot, Allmendinger & Samani, *The Production of Bespoke Synthetic Teaching Datasets
  Without Access to the Original Data*, Table 10: calibrated TCAP = (TCAP − B)/(1 − B) via
  :func:`metrics.privacy.tcap.calibrate`.

What differs from the papers, and why:

* **"(1.5, 0.6)"**: Jackson et al. say α = 0.1 "satisfies approximately (3,0.3)-probabilistic DP
  and (1.5,0.6)-probabilistic DP". Their Eq. 9 gives δ = 0.301 at ε = 1.5, as at ε = 3:
  ⌊2.5/ln 11⌋ = ⌊4/ln 11⌋ = 1. δ ≈ 0.6 needs ⌊(1 + ε)/ln 11⌋ = 0, i.e. ε < ln 11 − 1 = 1.40 (then
  δ = 1 − e^(−1.1) = 0.667). The claim disagrees with the paper's own equation
  (``poisson-alpha0.1-eps1.5-claim``).
* **"11.7 times"**: e^(−1)·2^5 = 11.77, which the paper truncates (rounding gives 11.8).
* **Table 10, holdout row**: (0.719 − 0.502)/(1 − 0.502) = 0.4357, printed 0.437. The printed
  inputs are rounded to three decimals, which moves the result by up to ±0.0016, so 0.437 is
  consistent with them; the check compares with the formula's 0.436 (reproductions.md §14).
* **The baseline 0.502 itself** (Σ p_j² of the CARS target) needs the UK SARs, which are
  safeguarded: not reproducible offline.
* **"20n" / "100n" guesses**: n/ln(1/α) gives 19.5n and 99.5n ("approximately").
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from scipy import stats

from generators.poisson_counts import poisson_delta
from harness.reproduction import Check, ReproductionRun, exact, not_reproducible, trend, within
from metrics.privacy.isolation import (
    expected_isolations,
    guesses_for_share,
    isolation_probability,
    max_isolation_probability,
    population_unique_probability,
)
from metrics.privacy.tcap import calibrate

POISSON = "Jackson et al. (Poisson mechanism)"
ISOLATION = "Altman et al. (From Isolation to Identification)"
TCAP = "Little et al. (Bespoke teaching datasets)"

# reproductions.md §14: δ of Eq. 9 at three decimals, α -> {ε: δ}
DELTA_TARGETS: dict[float, dict[float, float]] = {
    0.1: {1.5: 0.301, 2.0: 0.301, 2.5: 0.301, 3.0: 0.301},
    0.5: {1.5: 0.191, 2.0: 0.191, 2.5: 0.066, 3.0: 0.066},
    1.0: {1.5: 0.143, 2.0: 0.053, 2.5: 0.017, 3.0: 0.017},
}
ALPHA_GRID = (0.1, 0.2, 0.5, 1.0)
"""α values of the paper's Fig. 2."""

# Fig. 1 of Altman et al. (n = 5): k -> expected isolations, as reproductions.md §14 lists them
FIG1_N = 5
FIG1_TARGETS: dict[int, float] = {10: 3.28, 20: 4.07, 100: 4.80}

# Table 10 of Little et al.: row -> (raw TCAP, calibrated TCAP printed, calibrated TCAP by formula at 3 d.p.)
TCAP_BASELINE = 0.502
TABLE_10: dict[str, tuple[float, float, float]] = {
    "original-original": (1.000, 1.000, 1.000),
    "original-ea-run1": (0.733, 0.464, 0.464),
    "holdout-ea-run1": (0.719, 0.437, 0.436),
    "original-general": (0.777, 0.552, 0.552),
    "cap-baseline": (0.502, 0.000, 0.000),
}


# ====================================================================== Poisson mechanism
def check_poisson_delta(run: ReproductionRun) -> list[Check]:
    """δ of Eq. 9 for α ∈ {0.1, 0.5, 1} and ε ∈ {1.5, 2, 2.5, 3}."""
    out = []
    for alpha, targets in DELTA_TARGETS.items():
        for epsilon, target in targets.items():
            bound = math.floor((1.0 + epsilon) / math.log((1.0 + alpha) / alpha))
            out.append(
                exact(
                    f"poisson-delta-alpha{alpha:g}-eps{epsilon:g}",
                    f"δ of Eq. 9 at α = {alpha:g}, ε = {epsilon:g}",
                    f"{POISSON}, Eq. 9 / Fig. 1-2 (derived target {target:.3f})",
                    poisson_delta(epsilon, alpha),
                    target,
                    tol=5e-4,
                    reason=f"1 − F_Poisson({1 + alpha:g})({bound})",
                )
            )
    return out


def check_poisson_claims(run: ReproductionRun) -> list[Check]:
    """The text's readings of Eq. 9: (3, 0.3), (1.5, 0.6), α = 1 for δ = 0.05 at ε = 2, ε > 6 at α = 0.1."""
    at3, at15 = poisson_delta(3.0, 0.1), poisson_delta(1.5, 0.1)
    by_alpha = {alpha: poisson_delta(2.0, alpha) for alpha in ALPHA_GRID}
    grid = np.round(np.arange(1.0, 10.0 + 1e-9, 0.01), 2)
    deltas = np.array([poisson_delta(float(e), 0.1) for e in grid])
    first = float(grid[int(np.argmax(deltas <= 0.05))]) if np.any(deltas <= 0.05) else math.nan
    claim_text = (
        '"setting α = 0.1 satisfies approximately (3,0.3)-probabilistic DP and (1.5,0.6)-probabilistic DP"'
    )
    return [
        within(
            "poisson-alpha0.1-eps3-claim",
            "α = 0.1 gives approximately (3, 0.3)-probabilistic DP",
            f"{POISSON}, §4: {claim_text}",
            at3,
            0.25,
            0.35,
            reason="δ(α = 0.1, ε = 3) of Eq. 9; band ±0.05",
        ),
        within(
            "poisson-alpha0.1-eps1.5-claim",
            "α = 0.1 gives approximately (1.5, 0.6)-probabilistic DP",
            f"{POISSON}, §4: {claim_text}",
            at15,
            0.55,
            0.65,
            reason="the paper's own Eq. 9 gives δ = 0.301 at ε = 1.5, as at ε = 3 (⌊2.5/ln 11⌋ = ⌊4/ln 11⌋ = 1); "
            "δ ≈ 0.6 would need ⌊(1 + ε)/ln 11⌋ = 0, i.e. ε < ln 11 − 1 = 1.40 (δ = 1 − e^(−1.1) = 0.667)",
        ),
        trend(
            "poisson-eps2-alpha1",
            "ε = 2: α = 1 gives δ ≈ 0.05 (±0.005), the smaller α of Fig. 2 give δ > 0.1",
            f'{POISSON}, §5: "when ε = 2, an α value of 1 is required to obtain a δ value of 0.05"',
            ", ".join(f"α {a:g}: δ {d:.3f}" for a, d in by_alpha.items()),
            abs(by_alpha[1.0] - 0.05) <= 0.005 and all(by_alpha[a] > 0.1 for a in ALPHA_GRID[:-1]),
            level="tolerance",
            value=by_alpha,
            expected={"alpha_1": [0.045, 0.055], "smaller_alpha": "> 0.1"},
            reason="δ of Eq. 9 at ε = 2 over the α of Fig. 2; the paper's 'a δ value of 0.05' is δ = 0.053",
        ),
        within(
            "poisson-alpha0.1-delta0.05",
            "α = 0.1: the smallest ε with δ ≤ 0.05 exceeds 6",
            f'{POISSON}, §5: "when α = 0.1, a δ value of 0.05 is obtained only for ε values greater than 6"',
            first,
            6.0,
            None,
            level="exact",
            reason="scan of Eq. 9 over ε = 1 … 10 in steps of 0.01; analytically ε = 3·ln 11 − 1 = 6.194, where "
            "⌊(1 + ε)/ln 11⌋ reaches 3 and δ drops from 0.100 to 0.026",
        ),
        exact(
            "poisson-likelihood-ratio",
            "α = 0: a synthetic count 5 is e^(−1)·2^5 times more likely from count 2 than 1",
            f'{POISSON}, §6: "It is 11.7 times more likely"',
            float(stats.poisson.pmf(5, 2.0) / stats.poisson.pmf(5, 1.0)),
            11.7,
            tol=0.1,
            digits=2,
            reason="Eq. 6 with a_k = 2, α = 0, b_k = 5 (Poisson pmf ratio): 11.77, truncated to 11.7 in the paper "
            "(rounding gives 11.8)",
        ),
    ]


# ====================================================================== isolation baseline
def check_isolation(run: ReproductionRun) -> list[Check]:
    """Fig. 1 (n = 5) and Theorem 1 of From Isolation to Identification."""
    small = np.arange(1, FIG1_N + 1)
    values = expected_isolations(small, FIG1_N)
    gap = float(np.max(np.abs(values - 0.4096 * small)))
    out = [
        trend(
            "isolation-fig1-k-le-n",
            "n = 5, k ≤ 5 disjoint guesses: expected isolations = k·(1 − 1/5)^4 = 0.4096·k",
            f"{ISOLATION}, §3.2 Observation 1 / Fig. 1",
            " / ".join(f"{v:.4f}" for v in values),
            gap <= 1e-12,
            level="exact",
            value=values.tolist(),
            expected=(0.4096 * small).tolist(),
            reason=f"k = 1 … 5; largest gap to 0.4096·k: {gap:.1e}",
        )
    ]
    for k, target in FIG1_TARGETS.items():
        out.append(
            exact(
                f"isolation-fig1-k{k}",
                f"n = 5, k = {k} disjoint guesses: expected isolations n·(1 − 1/k)^(n−1)",
                f"{ISOLATION}, Theorem 2 / Fig. 1 (derived target {target:.2f})",
                float(expected_isolations(k, FIG1_N)),
                target,
                tol=5e-3,
                digits=2,
            )
        )
    ns = np.arange(2, 10_001)
    best = np.array([max_isolation_probability(int(n)) for n in ns])
    grid = np.linspace(0.0, 1.0, 100_001)
    argmax = float(grid[int(np.argmax(isolation_probability(grid, FIG1_N)))])
    out += [
        exact(
            "isolation-single-guess-max",
            "largest single-guess isolation probability (1 − 1/n)^(n−1) for large n",
            f"{ISOLATION}, §3.1 Theorem 1: (1 − 1/n)^(n−1) ≈ 1/e ≈ 0.37",
            max_isolation_probability(10**6),
            0.37,
            tol=5e-3,
            digits=4,
            reason=f"n = 10^6 (1/e = {1 / math.e:.4f}); the maximum sits at P(B) = 1/n: grid argmax for n = 5 is "
            f"{argmax:g}",
        ),
        within(
            "isolation-one-in-three",
            "a single guess isolates with probability > 1/3 for every n ≥ 2",
            f'{ISOLATION}, §4: "successful in more than one in three trials"',
            float(best.min()),
            1.0 / 3.0,
            None,
            level="exact",
            digits=4,
            reason="minimum of (1 − 1/n)^(n−1) over n = 2 … 10,000 (it decreases towards 1/e)",
        ),
        within(
            "isolation-guesses-95",
            "guesses for 95 % of n isolated in expectation, in units of n",
            f'{ISOLATION}, §3.2: "approximately 20n guesses suffice for α = 0.95"',
            guesses_for_share(0.95, 1),
            19.0,
            21.0,
            digits=2,
            reason="k ≈ n/ln(1/α) = 19.50n; band 20 ± 1 ('approximately')",
        ),
        within(
            "isolation-guesses-99",
            "guesses for 99 % of n isolated in expectation, in units of n",
            f'{ISOLATION}, §3.2: "approximately 100n guesses suffice for α = 0.99"',
            guesses_for_share(0.99, 1),
            95.0,
            105.0,
            digits=2,
            reason="k ≈ n/ln(1/α) = 99.50n; band 100 ± 5 ('approximately')",
        ),
    ]
    return out


def check_population(run: ReproductionRun) -> list[Check]:
    """§4: a guess of mass 1/(100N) is population-unique w.p. > 0.99; one of mass 1/n w.p. about 1e-43."""
    population, share = 1_000_000, 0.01
    n = int(population * share)
    unique = float(population_unique_probability(1.0 / (100 * population), population - n))
    tiny = float(population_unique_probability(1.0 / n, population - n))
    return [
        within(
            "isolation-population-unique",
            "P(B) ≤ 1/(100N): B distinguishes uniquely in the population w.p. > 0.99",
            f"{ISOLATION}, §4: (1 − P(B))^(N−n) ≈ e^(−(1−r)/100) > 0.99",
            unique,
            0.99,
            None,
            level="exact",
            digits=5,
            reason=f"N = 10^6, r = {share:g} (n = {n:,})",
        ),
        within(
            "isolation-footnote-11",
            "P(B) = 1/n: log10 of the population-uniqueness probability",
            f"{ISOLATION}, footnote 11: r = 0.01 gives about 10^−43",
            math.log10(tiny),
            -43.5,
            -42.5,
            digits=2,
            reason=f"(1 − 1/n)^(N−n) with N = 10^6, n = {n:,}: {tiny:.3g} (bound e^(−(1−r)/r) = {math.exp(-99):.3g})",
        ),
    ]


# ====================================================================== TCAP
def check_tcap(run: ReproductionRun) -> list[Check]:
    """Calibrated TCAP of Table 10 = (TCAP − 0.502)/(1 − 0.502)."""
    out = []
    for row, (raw, printed, formula) in TABLE_10.items():
        reason = f"({raw:.3f} − {TCAP_BASELINE})/(1 − {TCAP_BASELINE})"
        if printed != formula:
            reason += (
                f"; the paper prints {printed:.3f}: its inputs are rounded to 3 decimals, which moves the result by "
                "up to ±0.0016, so the printed value is consistent with them"
            )
        out.append(
            exact(
                f"tcap-{row}",
                f"calibrated TCAP of Table 10 row {row} (raw {raw:.3f}, baseline {TCAP_BASELINE})",
                f"{TCAP}, Table 10: {raw:.3f} → {printed:.3f}",
                calibrate(raw, TCAP_BASELINE),
                formula,
                tol=1e-3,
                reason=reason,
            )
        )
    out.append(
        not_reproducible(
            "tcap-baseline",
            "the CAP baseline Σ p_j² of the target CARS",
            f"{TCAP}, Table 10: CAP baseline 0.502",
            "needs the UK SARs (safeguarded; reproductions.md §15); metrics.privacy.tcap.marginal_baseline computes "
            "it from any table",
        )
    )
    return out


def check_no_trials(run: ReproductionRun) -> Check:
    """A closed-form reproduction runs no trials."""
    return trend(
        "no-trials",
        "closed-form reproduction: the run holds no trial rows",
        "—",
        f"{len(run.results)} rows",
        len(run.results) == 0,
        level="exact",
        reason="sweeps: {} (reproductions.md §14)",
    )


CHECKS: list[Callable[[ReproductionRun], Check | list[Check]]] = [
    check_poisson_delta,
    check_poisson_claims,
    check_isolation,
    check_population,
    check_tcap,
    check_no_trials,
]

QUICK_MUST_PASS = {
    "poisson-alpha0.1-eps3-claim",
    "poisson-eps2-alpha1",
    "isolation-guesses-95",
    "isolation-guesses-99",
    "isolation-footnote-11",
}
ALLOWED_STATUSES: set[str] = set()
