"""R-ROBINHOOD: the simulation findings (§3.2, Figs 3–4) as claims.

Every claim's uncertainty comes from the repetitions (simulated populations, the data seed):
paired bootstrap intervals over the repetitions for comparisons between methods (all methods
de-identify the same populations), bootstrap intervals of means over the repetitions, Wilson
intervals for shares. "Accuracy" is the metric's absolute log odds-ratio error against the raw
data of the same repetition, averaged over the two minority levels.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from experiments.reproductions.robin_hood_2024_data import (
    LABELS,
    METHODS,
    NOSUPP,
    RH,
    SUPP,
    errors_by_seed,
    paired,
    releases,
    s1,
    s2,
    thresholds,
)
from harness.datasets.simulations.robin_hood import TRUE_ODDS_RATIOS
from harness.reproduction import Check, ReproductionRun, not_evaluable, trend, unavailable, within
from harness.reproduction import uncertainty as unc

S1_EVIDENCE = ["tables/s1_odds_ratios.md", "tables/s1_errors.md", "figures/fig3_s1_odds_ratios.png"]
S2_EVIDENCE = ["tables/s2_odds_ratios.md", "tables/s2_errors.md", "figures/fig4_s2_odds_ratios.png"]
EQUAL_TO_RAW = 0.05
"""|log OR(Robin Hood) − log OR(raw)| within which S2's "equals that of the raw data" holds."""
FLAT_IN_K = 0.1
"""Largest change of Robin Hood's mean log odds ratio over k_target that counts as "does not change"."""
PAPER_SUPP_THRESHOLD, PAPER_NOSUPP_THRESHOLD = 11, 4
TYPICAL = 0.75
"""Share of repetitions from which a release pattern counts as what the figure's expected line shows."""
S2_UNAVAILABLE = "S2 is paper-profile only (the quick profile runs S1 at one share)"


def _reps(frame: pd.DataFrame) -> str:
    return f"{frame['seed'].nunique()} repetitions" if len(frame) else "no repetition"


def _method(n: int) -> str:
    return f"paired bootstrap (95 %) over {n} repetitions (simulated populations)"


# ---------------------------------------------------------------------- S1 (Fig. 3)
S1_PAPER_SUPP = (
    '"k-anonymity with suppression supports the most accurate odds ratio estimates up to k = 11. Afterward, '
    'the minority and super-minority race values are generalized to \\"Other\\""'
)
S1_PAPER_NOSUPP = '"k-anonymity without suppression runs into the same problem at k = 5"'


def _threshold_claim(run: ReproductionRun, method: str, id: str, paper_value: int, paper: str) -> Check:
    part = s1(run)
    rows = part[part["method"] == method] if len(part) else part
    claim = f"S1, {LABELS[method]}: race released exactly up to k = {paper_value} (then generalised)"
    if rows.empty:
        return unavailable(id, claim, paper, "tolerance", "no S1 trial of this method", kind="claim")
    grid = sorted(int(k) for k in rows["k"].unique())
    needed = [k for k in (paper_value - 1, paper_value, paper_value + 1) if k >= 2]
    if not set(needed) <= set(grid):
        return not_evaluable(
            id, claim, paper, f"the grid k ∈ {grid} cannot place a threshold at k = {paper_value} (needs k = "
            f"{', '.join(map(str, needed))})", level="tolerance",
        )  # fmt: skip
    per_seed = thresholds(rows)
    entry = unc.bootstrap_mean(per_seed, "threshold k")
    return within(
        id, claim, paper, float(per_seed.mean()), paper_value - 1, paper_value + 1, kind="claim", digits=1,
        reason=f"per repetition: the largest k of the grid {grid} up to which both minority levels are released "
        f"as themselves at every k ({grid[0] - 1} when not even at k = {grid[0]}); band ±1 (the grid step); "
        f"values {sorted(per_seed.astype(int).value_counts().to_dict().items())}",
        evidence=S1_EVIDENCE,
        uncertainty=unc.record(f"bootstrap (95 %) of the mean over {len(per_seed)} repetitions", [entry] if entry else [], n=len(per_seed)),
    )  # fmt: skip


def check_s1_thresholds(run: ReproductionRun) -> list[Check]:
    """Where each k-anonymity variant stops releasing race exactly (paper: k = 11 and k = 5)."""
    part = s1(run)
    out = [
        _threshold_claim(run, SUPP, "s1-supp-threshold", PAPER_SUPP_THRESHOLD, S1_PAPER_SUPP),
        _threshold_claim(run, NOSUPP, "s1-nosupp-threshold", PAPER_NOSUPP_THRESHOLD, S1_PAPER_NOSUPP),
    ]
    claim = "S1: without suppression race is generalised at a smaller k than with suppression"
    if part.empty or not {SUPP, NOSUPP} <= set(part["method"]):
        out.append(
            unavailable(
                "s1-nosupp-earlier", claim, S1_PAPER_NOSUPP, "trend", "no S1 k-anonymity trials", kind="claim"
            )
        )
        return out
    supp, nosupp = thresholds(part[part["method"] == SUPP]), thresholds(part[part["method"] == NOSUPP])
    entry = paired(supp, nosupp, "threshold(suppression) − threshold(no suppression)")
    out.append(
        trend(
            "s1-nosupp-earlier",
            claim,
            S1_PAPER_NOSUPP + " (and with suppression at k = 12)",
            f"mean threshold k: suppression {supp.mean():.1f}, no suppression {nosupp.mean():.1f}",
            bool(supp.mean() > nosupp.mean()),
            kind="claim",
            evidence=S1_EVIDENCE,
            uncertainty=unc.record(_method(len(supp)), [entry] if entry else [], n=len(supp)),
        )  # fmt: skip
    )
    return out


def check_s1_other_beyond(run: ReproductionRun) -> Check:
    """Beyond its threshold, suppression generalises minority and super-minority to "Other"."""
    part = s1(run)
    rows = part[part["method"] == SUPP] if len(part) else part
    claim = "S1, k-anon. with suppression at the largest k: minority and super-minority merged into 'Other'"
    if rows.empty:
        return unavailable(
            "s1-supp-other-beyond", claim, S1_PAPER_SUPP, "tolerance", "no S1 trial", kind="claim"
        )
    k_max = int(rows["k"].max())
    top = rows[rows["k"] == k_max]
    merged = top.groupby("seed")["release_level"].apply(lambda s: bool((s == "merged into 'Other'").all()))
    entry = unc.wilson(int(merged.sum()), len(merged), "share merged into 'Other'")
    return within(
        "s1-supp-other-beyond", claim, S1_PAPER_SUPP, float(merged.mean()), TYPICAL, 1.0, kind="claim",
        reason=f"k = {k_max}: {releases(top)}; band: in at least {TYPICAL:.0%} of the repetitions (the typical release)",
        evidence=S1_EVIDENCE,
        uncertainty=unc.record(f"Wilson interval (95 %) over {len(merged)} repetitions", [entry] if entry else [], n=len(merged)),
    )  # fmt: skip


def check_s1_supp_most_accurate(run: ReproductionRun) -> Check:
    """Up to k = 11, k-anonymity with suppression has the lowest odds-ratio error."""
    part = s1(run)
    claim = (
        "S1: k-anon. with suppression has a lower mean |log OR error| than each other method at every k ≤ 11"
    )
    if part.empty or SUPP not in set(part["method"]):
        return unavailable(
            "s1-supp-most-accurate", claim, S1_PAPER_SUPP, "trend", "no S1 trial", kind="claim"
        )
    entries, shown = [], []
    for k in sorted(int(k) for k in part["k"].dropna().unique() if k <= PAPER_SUPP_THRESHOLD):
        supp = errors_by_seed(part, SUPP, k=k)
        for other in (NOSUPP, RH):
            rival = errors_by_seed(part, other, k=k)
            if len(rival) and len(supp):
                entry = paired(rival, supp, f"k={k}: {LABELS[other]} − suppression")
                if entry:
                    entries.append(entry)
                shown.append(f"k={k} {LABELS[other]} {rival.mean():.3f}")
        shown.append(f"k={k} suppression {supp.mean():.3f}")
    estimates = [e["estimate"] for e in entries]
    return trend(
        "s1-supp-most-accurate", claim, S1_PAPER_SUPP, "; ".join(shown), bool(estimates) and min(estimates) > 0,
        kind="claim", reason=f"{_reps(part)}; Robin Hood from k_target = 3", evidence=S1_EVIDENCE,
        uncertainty=unc.record(_method(part["seed"].nunique()), entries, n=int(part["seed"].nunique())),
    )  # fmt: skip


RH_PAPER_DIRECTIONS = (
    '"The expected odds ratio estimates from the datasets transformed via Robin Hood are less than the true value '
    '… for the super-minority race and greater than the true value for the minority race"'
)


def check_s1_robin_hood(run: ReproductionRun) -> list[Check]:
    """Robin Hood in S1: directions against the truth, flat in k_target, the most accurate at high k."""
    part = s1(run)
    rows = part[part["method"] == RH] if len(part) else part
    deps = ["robin_hood@S1"]
    out: list[Check] = []
    for level, relation in (("super-minority", "below"), ("minority", "above")):
        truth = TRUE_ODDS_RATIOS[level]
        claim = (
            f"S1, Robin Hood: mean odds ratio of the {level} {relation} the true {truth:g} (over k_target)"
        )
        check_id = f"s1-rh-{level}-{relation}-truth"
        level_rows = rows[rows["level"] == level] if len(rows) else rows
        if level_rows.empty:
            out.append(
                unavailable(
                    check_id, claim, RH_PAPER_DIRECTIONS, "trend", "no S1 Robin Hood trial", kind="claim"
                )
            )
            continue
        per_seed = level_rows.groupby("seed")["or_release"].mean()
        sign = -1.0 if relation == "below" else 1.0
        entry = unc.bootstrap_mean(sign * (per_seed - truth), f"{'truth − OR' if sign < 0 else 'OR − truth'}")
        out.append(
            trend(
                check_id,
                claim,
                RH_PAPER_DIRECTIONS,
                f"{per_seed.mean():.3f} (raw data {level_rows['or_orig'].mean():.3f})",
                bool(sign * (per_seed.mean() - truth) > 0),
                kind="claim",
                value=float(per_seed.mean()),
                expected={"true": truth},
                reason=f"released as: {releases(level_rows)}",
                evidence=S1_EVIDENCE,
                depends_on=deps,
                uncertainty=unc.record(
                    f"bootstrap (95 %) over {len(per_seed)} repetitions",
                    [entry] if entry else [],
                    n=len(per_seed),
                ),
            )  # fmt: skip
        )
    paper_flat = (
        '"increasing the number of records masked (i.e., as k_target increases …) does not change the odds ratios '
        'estimates at expectation"'
    )
    claim = f"S1, Robin Hood: mean log OR per level changes by less than {FLAT_IN_K} from the smallest to the largest k_target"
    if rows.empty or rows["k"].nunique() < 2:
        out.append(
            unavailable(
                "s1-rh-flat-in-k", claim, paper_flat, "tolerance", "fewer than two k_target", kind="claim"
            )
        )
    else:
        k_lo, k_hi = int(rows["k"].min()), int(rows["k"].max())
        entries, shown = [], []
        for level, level_rows in rows.groupby("level"):
            hi = level_rows[level_rows["k"] == k_hi].groupby("seed")["log_or_release"].mean()
            lo = level_rows[level_rows["k"] == k_lo].groupby("seed")["log_or_release"].mean()
            entry = paired(hi, lo, f"{level}: k {k_hi} − k {k_lo}")
            if entry:
                entries.append(entry)
            shown.append(f"{level}: {float((hi - lo).mean()):+.3f}")
        worst = max((abs(e["estimate"]) for e in entries), default=float("nan"))
        out.append(
            within(
                "s1-rh-flat-in-k",
                claim,
                paper_flat,
                worst,
                0.0,
                FLAT_IN_K,
                kind="claim",
                reason="change of the mean log OR, " + ", ".join(shown),
                evidence=S1_EVIDENCE,
                depends_on=deps,
                uncertainty=unc.record(
                    _method(rows["seed"].nunique()),
                    entries,
                    n=int(rows["seed"].nunique()),
                    band=[-FLAT_IN_K, FLAT_IN_K],
                ),
            )  # fmt: skip
        )
    paper_best = (
        '"on average, Robin Hood supports the most accurate odds ratio estimation at higher k values"'
    )
    claim = "S1, largest k: Robin Hood's mean |log OR error| below both k-anonymity variants'"
    if part.empty or not set(METHODS) <= set(part["method"]):
        out.append(
            unavailable(
                "s1-rh-best-high-k", claim, paper_best, "trend", "a method has no S1 trial", kind="claim"
            )
        )
        return out
    k_max = int(part["k"].max())
    rh = errors_by_seed(part, RH, k=k_max)
    entries = [
        e
        for e in (
            paired(errors_by_seed(part, m, k=k_max), rh, f"{LABELS[m]} − Robin Hood") for m in (SUPP, NOSUPP)
        )
        if e
    ]
    at_k = ", ".join(f"{LABELS[m]} {errors_by_seed(part, m, k=k_max).mean():.3f}" for m in METHODS)
    out.append(
        trend(
            "s1-rh-best-high-k",
            claim,
            paper_best,
            f"k = {k_max}: {at_k}",
            bool(entries) and min(e["estimate"] for e in entries) > 0,
            kind="claim",
            evidence=S1_EVIDENCE,
            depends_on=deps,
            uncertainty=unc.record(_method(len(rh)), entries, n=len(rh)),
        )  # fmt: skip
    )
    return out


# ---------------------------------------------------------------------- S2 (Fig. 4)
def _by_x(part: pd.DataFrame, method: str) -> dict[float, pd.Series]:
    rows = part[part["method"] == method]
    return {float(x): g.groupby("seed")["error"].mean() for x, g in rows.groupby("x")}


def check_s2_orderings(run: ReproductionRun) -> list[Check]:
    """S2: Robin Hood the most accurate at every x; suppression the least accurate."""
    part = s2(run)
    specs: tuple[tuple[str, str, str, str, str, list[str]], ...] = (
        ("s2-rh-most-accurate", RH, "below", "S2 (k = 30): Robin Hood's mean |log OR error| below both k-anonymity "
         "variants' at every share x", '"Robin Hood supports the most accurate odds ratio estimates at all proportion values"', ["robin_hood@S2"]),
        ("s2-supp-least-accurate", SUPP, "above", "S2: k-anon. with suppression has the largest mean |log OR error| "
         "at every x", '"k-anonymization with suppression supports the least accurate disparity estimation performance"', []),
    )  # fmt: skip
    out = []
    for check_id, method, side, claim, paper, deps in specs:
        if part.empty or not set(METHODS) <= set(part["method"]):
            out.append(unavailable(check_id, claim, paper, "trend", S2_UNAVAILABLE, kind="claim"))
            continue
        own = _by_x(part, method)
        entries, wins = [], 0
        for x, mine in own.items():
            for other in (m for m in METHODS if m != method):
                rival = _by_x(part, other).get(x, pd.Series(dtype=float))
                a, b = (rival, mine) if side == "below" else (mine, rival)
                entry = paired(a, b, f"x={x:g}: {LABELS[other]} vs {LABELS[method]}")
                if entry:
                    entries.append(entry)
            rivals = [_by_x(part, m).get(x, pd.Series(dtype=float)).mean() for m in METHODS if m != method]
            wins += int(mine.mean() < min(rivals)) if side == "below" else int(mine.mean() > max(rivals))
        out.append(
            trend(
                check_id,
                claim,
                paper,
                f"{'lowest' if side == 'below' else 'largest'} at {wins} of {len(own)} shares",
                wins == len(own),
                kind="claim",
                evidence=S2_EVIDENCE,
                depends_on=deps,
                uncertainty=unc.record(
                    _method(part["seed"].nunique()), entries, n=int(part["seed"].nunique())
                ),
            )  # fmt: skip
        )
    return out


def check_s2_robin_hood_equals_raw(run: ReproductionRun) -> Check:
    """For x ≥ 0.02 Robin Hood's odds ratios equal the raw data's."""
    paper = '"Robin Hood\'s performance equals that of the raw data when the proportion values are ≥ 0.02"'
    claim = f"S2, x ≥ 0.02: mean log OR of Robin Hood within ±{EQUAL_TO_RAW} of the raw data's, both levels"
    part = s2(run)
    rows = part[(part["method"] == RH) & (part["x"] >= 0.02 - 1e-12)] if len(part) else part
    if rows.empty:
        return unavailable("s2-rh-equals-raw", claim, paper, "tolerance", S2_UNAVAILABLE, kind="claim")
    entries = []
    for (x, level), group in rows.groupby(["x", "level"]):
        gap = group.groupby("seed").apply(lambda g: float((g["log_or_release"] - g["log_or_orig"]).mean()))
        entry = unc.bootstrap_mean(gap, f"x={x:g} {level}")
        if entry:
            entries.append(entry)
    worst = max(entries, key=lambda e: abs(e["estimate"])) if entries else None
    return within(
        "s2-rh-equals-raw", claim, paper, worst["estimate"] if worst else None, -EQUAL_TO_RAW, EQUAL_TO_RAW,
        kind="claim", reason=f"largest gap at {worst['name']}" if worst else "", evidence=S2_EVIDENCE,
        depends_on=["robin_hood@S2"],
        uncertainty=unc.record(f"bootstrap (95 %) of the mean gap over {rows['seed'].nunique()} repetitions", entries, n=int(rows["seed"].nunique())),
    )  # fmt: skip


def check_s2_no_suppression(run: ReproductionRun) -> list[Check]:
    """Without suppression: never equal to the raw data, improving as x grows."""
    paper = (
        "\"k-anonymity without suppression's performance never equals that of the raw data but improves as the "
        "super-minority's proportion increases\""
    )
    part = s2(run)
    rows = part[part["method"] == NOSUPP] if len(part) else part
    claims = (
        f"S2, k-anon. without suppression: mean |log OR error| above {EQUAL_TO_RAW} at every x",
        "S2, k-anon. without suppression: error decreases as x grows (Spearman ρ < 0 over repetitions)",
    )
    if rows.empty:
        return [
            unavailable("s2-nosupp-never-raw", claims[0], paper, "tolerance", S2_UNAVAILABLE, kind="claim"),
            unavailable("s2-nosupp-improves", claims[1], paper, "trend", S2_UNAVAILABLE, kind="claim"),
        ]
    per = rows.groupby(["x", "seed"])["error"].mean().reset_index()
    entries = [
        e for x, g in per.groupby("x") if (e := unc.bootstrap_mean(g["error"], f"x={x:g}")) is not None
    ]
    means = per.groupby("x")["error"].mean()
    rho = unc.spearman_trend(per, "x", "error", "seed", increasing=False)
    shown = ", ".join(f"{x:g}: {v:.3f}" for x, v in means.items())
    return [
        within(
            "s2-nosupp-never-raw", claims[0], paper, float(means.min()), EQUAL_TO_RAW, None, kind="claim",
            reason=f"errors {shown}", evidence=S2_EVIDENCE,
            uncertainty=unc.record(f"bootstrap (95 %) of the mean over {per['seed'].nunique()} repetitions per x", entries, n=int(per["seed"].nunique())),
        ),
        trend(
            "s2-nosupp-improves", claims[1], paper, f"errors {shown}; −ρ = {rho['estimate']:.2f}" if rho else shown,
            bool(rho and rho["estimate"] > 0), kind="claim", evidence=S2_EVIDENCE,
            uncertainty=unc.record("Spearman ρ (sign: decrease > 0), bootstrap over repetitions", [rho] if rho else [], n=int(per["seed"].nunique())),
        ),
    ]  # fmt: skip


def check_s2_suppression_removes_super_minority(run: ReproductionRun) -> Check:
    """For x < 0.006 suppression removes every super-minority record (odds ratio 1)."""
    paper = (
        '"When the proportion … of the super-minority group is < 0.006, this k-anonymity implementation wholly '
        "suppresses the super-minority population's representation … (denoted by an estimated odds ratio of 1)\""
    )
    claim = f"S2, k-anon. with suppression, every x < 0.006: the super-minority absent (OR = 1) in ≥ {TYPICAL:.0%} of repetitions"
    part = s2(run)
    rows = (
        part[(part["method"] == SUPP) & (part["x"] < 0.006) & (part["level"] == "super-minority")]
        if len(part)
        else part
    )
    if rows.empty:
        return unavailable(
            "s2-supp-removes-super-minority", claim, paper, "tolerance", S2_UNAVAILABLE, kind="claim"
        )
    absent = rows["release_level"].isin(["absent", "merged into reference '*'"]) | np.isclose(
        rows["or_release"], 1.0
    )
    share = absent.groupby(rows["x"]).mean()
    counts = absent.groupby(rows["x"]).agg(["sum", "size"])
    entries = [
        e for x, c in counts.iterrows() if (e := unc.wilson(int(c["sum"]), int(c["size"]), f"x={x:g}"))
    ]
    return within(
        "s2-supp-removes-super-minority", claim, paper, float(share.min()), TYPICAL, 1.0, kind="claim",
        reason=", ".join(f"x={x:g}: OR = 1 in {v:.0%}" for x, v in share.items()) + f"; released as: {releases(rows)}",
        evidence=S2_EVIDENCE,
        uncertainty=unc.record("Wilson interval (95 %) of the share per x over the repetitions", entries, n=int(counts["size"].min())),
    )  # fmt: skip


CLAIMS: list[Callable[[ReproductionRun], Check | list[Check]]] = [
    check_s1_thresholds,
    check_s1_other_beyond,
    check_s1_supp_most_accurate,
    check_s1_robin_hood,
    check_s2_orderings,
    check_s2_robin_hood_equals_raw,
    check_s2_no_suppression,
    check_s2_suppression_removes_super_minority,
]

__all__ = ["CLAIMS", "EQUAL_TO_RAW", "FLAT_IN_K"]
