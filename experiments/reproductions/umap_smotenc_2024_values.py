"""R-UMAP claims about the published values (Tables 3, 4, 6) and the tests this setup cannot reach.

One rule for values, as for directions: a published mean is judged on our datasets when a
tolerance is stated for it, labelled as over 6 of the paper's 8 datasets. spec §3.4 sets the
tolerances for exactly this setting ("6 of 8 datasets; averages move"): UMAP-SMOTENC's Table 6
means within ±0.05, Table 3's UMAP-SMOTENC ≥ 0.75 and GC ≤ 0.35. The same ±0.05 band is
applied alike to the other generators run as published (SMOTE-NC in Tables 4 and 6,
UMAP-SMOTENC in Table 4). The band absorbs the choice of datasets, so each interval resamples
only the runs within our (fixed) datasets — provided it can: a table's generator-free row
(Table 6's test set, Table 4's original training set) must itself lie within the band over our
datasets, else the dataset mix alone moves the values beyond it and the claim is not
evaluable. GC's values (a different SDV version) and CTGAN's/TVAE's (cut budgets) are not
evaluable, and so are the Holm-adjusted p-values (8 datasets needed).
"""

from __future__ import annotations

import math

from experiments.reproductions.umap_smotenc_2024_claims import gc_forced, gc_mismatch, scope_why
from experiments.reproductions.umap_smotenc_2024_compare import MIN_DATASETS, Part, nested_interval
from experiments.reproductions.umap_smotenc_2024_evidence import (
    ALL,
    CTGAN,
    SMOTE,
    TVAE,
    UMAP,
    Evidence,
    evidence_of,
    not_run,
    score,
    values,
)
from experiments.reproductions.umap_smotenc_2024_paper import (
    CLASSIFIERS,
    GC_NOTE,
    HOLM_COMPARISONS,
    ORIGINAL,
    PAPER_DATASETS,
    SPEC_TOLERANCE,
    TABLE3,
    TABLE3_SPEC,
    TABLE4,
    TABLE6,
    TABLE6_P,
    TEST_BASELINE,
    UNAVAILABLE,
)
from experiments.reproductions.umap_smotenc_2024_privacy import SHORT
from harness.reproduction import Check, ReproductionRun, not_evaluable
from harness.reproduction import uncertainty as unc

MISSING = ", ".join(name.split(" (")[0] for name in UNAVAILABLE.values())
FIXED = (
    "percentile bootstrap (95 %) over the runs within each of our datasets, the datasets fixed (the band absorbs "
    "their choice, spec §3.4), of the mean over the datasets minus the paper's value"
)


def min_holm_p(comparisons: int, datasets: int) -> float:
    """Smallest Holm-adjusted exact two-sided Wilcoxon p: ``comparisons`` · 2 / 2^``datasets``."""
    return min(1.0, comparisons * 2.0 / 2**datasets)


def datasets_needed(comparisons: int, alpha: float = 0.05) -> int:
    """Fewest datasets for which the smallest Holm-adjusted Wilcoxon p is below ``alpha``."""
    n = 1
    while min_holm_p(comparisons, n) >= alpha:
        n += 1
    return n


def dataset_mix(
    ev: Evidence, metric: str, variants: dict[str, str], paper: dict[str, float], tol: float
) -> str:
    """Why a band cannot test generators here: the generator-free row (the run's ``baseline``) outside it."""
    outside = []
    for variant, label in variants.items():
        base = values(ev, UMAP, metric, variant, column="baseline", gated=False)
        if base.empty:
            continue
        ours = float(base.groupby(level="dataset").mean().mean())
        if abs(ours - paper[variant]) > tol + 1e-12:
            outside.append(f"{label} {ours:.3f} vs {paper[variant]:.2f}")
    if not outside:
        return ""
    return (
        "the dataset mix alone exceeds the band: our datasets' own generator-free values (no synthetic data involved) "
        f"are already outside ±{tol:g} of the paper's on "
        + ", ".join(outside)
        + ", so a band over 6 of the 8 datasets cannot tell a generator's departure from the datasets' (setup checks)"
    )


def _band(
    ev: Evidence, id: str, claim: str, paper: str, parts: list[Part], low: float, high: float, evidence: str,
    reason: str, mix: str = "",
) -> Check:  # fmt: skip
    """Every part's interval (ours − the paper's value) inside [low, high], over all our datasets."""
    complete = [p for p in parts if len(p.datasets()) >= len(ev.datasets) > 0]
    intervals = [e for p in complete if (e := nested_interval(p, p.datasets(), resample_datasets=False))]
    short = [p.name.split(":")[0] for p in parts if p not in complete]
    observed = "; ".join(
        f"{i['name']} {i['estimate']:+.3f} [{i['low']:+.3f}, {i['high']:+.3f}]" for i in intervals
    )
    inside = [i for i in intervals if low - 1e-12 <= i["estimate"] <= high + 1e-12]
    return Check(
        id, f"{claim}, over our {len(ev.datasets)} of the paper's {PAPER_DATASETS} datasets ({MISSING} missing)", paper,
        observed or "no value", "tolerance", bool(intervals) and len(inside) == len(intervals), reason,
        {"low": low, "high": high}, {i["name"]: i["estimate"] for i in intervals}, (evidence,), kind="claim",
        uncertainty=unc.record(FIXED, intervals, n=len(ev.datasets), band=[low, high]),
        not_evaluable=mix or ("" if not short else f"no value on every dataset for {', '.join(short)}"),
    )  # fmt: skip


def check_values(run: ReproductionRun) -> list[Check]:
    """spec §3.4's tolerances (Tables 3 and 6) and the same band for the other generators run as published."""
    ev = evidence_of(run)
    tol = SPEC_TOLERANCE
    out = []
    mix6 = dataset_mix(ev, "dcr_nndr", SHORT, {v: TABLE6[TEST_BASELINE][v][0] for v in SHORT}, tol)
    clfs = {f"{name}:f1": clf for name, clf in CLASSIFIERS.items()}
    mix4 = dataset_mix(
        ev, "ml_efficacy", clfs, {f"{n}:f1": TABLE4[ORIGINAL][c][0] for n, c in CLASSIFIERS.items()}, tol
    )
    for generator, label, spec in ((UMAP, "UMAP-SMOTENC", True), (SMOTE, "SMOTE-NC", False)):
        parts = [
            Part(f"{SHORT[v]}: ours − {TABLE6[label][v][0]:.2f}", values(ev, generator, "dcr_nndr", v) - TABLE6[label][v][0])
            for v in SHORT
        ]  # fmt: skip
        out.append(_band(
            ev, f"table6-values-{'umap' if generator == UMAP else 'smote-nc'}",
            f"Table 6: {label}'s mean d₁, NNDR and d₁/d₁₀ within ±{tol:g} of the paper's",
            ", ".join(f"{SHORT[v]} {TABLE6[label][v][0]:.2f}" for v in SHORT), parts, -tol, tol,
            "tables/table6_privacy.md",
            "spec §3.4's band" if spec else f"spec §3.4's ±{tol:g} for UMAP-SMOTENC, applied alike", mix6,
        ))  # fmt: skip
    parts = [
        Part(f"{clf} {short}: ours − {TABLE4[label][clf][0]:.2f}",
             values(ev, generator, "ml_efficacy", f"{name}:f1") - TABLE4[label][clf][0])
        for generator, label, short in ((UMAP, "UMAP-SMOTENC", "UMAP-SMOTENC"), (SMOTE, "SMOTE-NC", "SMOTE-NC"))
        for name, clf in CLASSIFIERS.items()
    ]  # fmt: skip
    out.append(_band(
        ev, "table4-values", f"Table 4: UMAP-SMOTENC's and SMOTE-NC's mean F1 per classifier within ±{tol:g} of the paper's",
        "UMAP-SMOTENC 0.57-0.83, SMOTE-NC 0.53-0.87", parts, -tol, tol, "tables/table4_ml_utility.md",
        f"spec §3.4's ±{tol:g} (set for Table 6), applied alike; the MLP at scikit-learn's defaults here (setup-mlp-grid)",
        mix4,
    ))  # fmt: skip
    out += _table3_values(ev)
    sdv = [
        GC_NOTE + " (spec §3.4: 'GC values may shift most')",
        not_run(ev, (CTGAN,)) or "CTGAN at 300 epochs on every dataset",
        not_run(ev, (TVAE,)) or "TVAE at 300 epochs on every dataset",
    ]
    out.append(not_evaluable(
        "table4-6-values-sdv", "Tables 4 and 6: GC's, CTGAN's and TVAE's mean F1 and privacy distances",
        "GC 0.29-0.39 F1, d₁ 0.18; CTGAN 0.51-0.64, d₁ 0.18; TVAE 0.49-0.66, d₁ 0.11",
        "a different or cut generator: " + "; ".join(sdv), level="tolerance",
        evidence=["tables/table4_ml_utility.md", "tables/table6_privacy.md"],
    ))  # fmt: skip
    return out


def _table3_values(ev: Evidence) -> list[Check]:
    """spec §3.4: Table 3's UMAP-SMOTENC ≥ 0.75 (all five in the normalisation) and GC ≤ 0.35."""
    low, _ = TABLE3_SPEC["UMAP-SMOTENC"]
    assert low is not None
    part = Part(f"trade-off UMAP-SMOTENC (all five) − {low:.2f}", score(ev, UMAP, members=ALL) - low)
    datasets = part.datasets()
    claim = (f"Table 3: UMAP-SMOTENC's mean trade-off score ≥ {low:.2f} (spec §3.4), normalised over all five "
             f"generators, over our datasets (the paper's 8 include {MISSING})")  # fmt: skip
    paper = f"UMAP-SMOTENC {TABLE3['UMAP-SMOTENC'][0]:.2f}±{TABLE3['UMAP-SMOTENC'][1]:.2f}"
    entry = nested_interval(part, datasets, resample_datasets=False) if datasets else None
    observed = (
        "no value"
        if entry is None
        else f"{entry['name']} {entry['estimate']:+.3f} [{entry['low']:+.3f}, {entry['high']:+.3f}]"
    )
    why = "" if len(datasets) >= MIN_DATASETS else (
        f"{scope_why(ev, (CTGAN, TVAE))}; all five at adequate budgets on {len(datasets)} dataset(s) "
        f"({', '.join(datasets) or 'none'}), needs ≥ {MIN_DATASETS}")  # fmt: skip
    umap = Check(
        "table3-values-umap", claim, paper, observed, "tolerance", entry is not None and entry["estimate"] >= 0,
        "", {"low": 0.0, "high": None}, None if entry is None else entry["estimate"], ("tables/paper_budget_tradeoff.md",),
        kind="claim", uncertainty=unc.record(FIXED, [entry] if entry else [], n=len(datasets), band=[0.0, math.inf]),
        depends_on=(), not_evaluable=why,
    )  # fmt: skip
    _, high = TABLE3_SPEC["GC"]
    gc_claim = f"Table 3: GC's mean trade-off score ≤ {high:.2f} (spec §3.4)"
    gc_paper = f"GC {TABLE3['GC'][0]:.2f}±{TABLE3['GC'][1]:.2f}"
    gc = not_evaluable("table3-values-gc", gc_claim, gc_paper,
                       gc_mismatch(ev) if gc_forced(ev) else "GC's trade-off needs all five generators at adequate budgets",
                       level="tolerance")  # fmt: skip
    return [umap, gc]


def check_holm(run: ReproductionRun) -> list[Check]:
    """Tables 3, 5, 6: the Holm-adjusted Wilcoxon p-values need 8 datasets; we have 6."""
    n = len(evidence_of(run).datasets)
    out = []
    for table, paper, text in (
        ("table3", "3.1e-02 / True (×4)", "Table 3: the trade-off score differs significantly between UMAP-SMOTENC and each baseline"),
        ("table5", "3.1e-02 / True for 19 of 24; NB and SMOTE-NC/LR not significant",
         "Table 5: UMAP-SMOTENC's F1 differs significantly from GC's, CTGAN's, TVAE's (not NB) and SMOTE-NC's (not NB, LR)"),
        ("table6", f"{TABLE6_P:.1e} / True (×15)",
         "Table 6: every generator's privacy differs significantly from the test set baseline's"),
    ):  # fmt: skip
        m = HOLM_COMPARISONS[table]
        need = datasets_needed(m)
        out.append(
            not_evaluable(
                f"{table}-holm-p", f"{text} (Wilcoxon signed-rank, Holm over {m}, α = 0.05)", paper,
                f"untestable here: the test needs ≥ {need} datasets, this run has {n}; with n datasets the smallest exact "
                f"two-sided Wilcoxon p is 2/2ⁿ and Holm over {m} comparisons multiplies it by {m}: "
                f"{min_holm_p(m, need - 1):.3f} with {need - 1}, {min_holm_p(m, need):.3f} with {need}, "
                f"{min_holm_p(m, n):.3f} with {n}. The direction on every dataset, which the paper's p implies, is "
                "judged by the every-dataset claims",
                observed=f"smallest attainable p with {n} datasets: {min_holm_p(m, n):.3f}",
            )
        )  # fmt: skip
    out.append(
        not_evaluable(
            "table5-not-significant",
            "Table 5: no significant F1 difference for Naive Bayes (all four baselines) and for SMOTE-NC with LR",
            "NB 1.6e-01 / 4.5e-01 / 4.5e-01 / 9.5e-01, SMOTE-NC LR 4.6e-01 (all False)",
            f"untestable here: the test needs ≥ 8 datasets, this run has {n}; a non-significant Wilcoxon test is not a "
            f"finding of equality, and with {n} datasets no Holm-adjusted p can fall below 0.05 "
            f"({min_holm_p(4, n):.3f} at best): non-significance is certain here and tests nothing",
        )
    )  # fmt: skip
    return out


__all__ = ["check_holm", "check_values", "datasets_needed", "min_holm_p"]
