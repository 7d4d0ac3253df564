"""R-UMAP checks (``spec/reproductions.md`` §3): UMAP-SMOTENC, Almeida & Bacao (``002_…``, Tables 2-6).

Protocol (``experiments/experiment/umap_smotenc_2024.yaml``): six datasets × seeds {220, 320,
420} × ``StratifiedKFold(5)``; on each training part GC, CTGAN, TVAE (SDV defaults, n_c rows
per class), SMOTE-NC and UMAP-SMOTENC release a fully synthetic table; ``ml_efficacy``
(``almeida2024``, reference tuning) and ``dcr_nndr`` (numeric columns, test-fold baseline)
score it; the trade-off score, ranks, Friedman and Wilcoxon–Holm come from ``harness.report``
(aggregation in :mod:`experiments.reproductions.umap_smotenc_2024_tables`).

Checks: the spec's §3.4 list (Table 6 ordering and UMAP-SMOTENC within ±0.05, Table 4
ordering for DT/RF/XGB/MLP, Table 2 best/worst mean rank, Table 3 UMAP-SMOTENC ≥ 0.75 and
GC ≤ 0.35, Holm p-values not reproducible), plus every other number of Tables 2-6 at a
stated tolerance (``tolerance`` level; a miss is reported, never tuned away):

* F1 (Table 4) and the privacy scores (Table 6): ±0.05, the spec's band for Table 6;
* trade-off scores (Table 3): ±0.10 — the score is min-max normalised within each unit, so
  it moves with the set of datasets more than the raw scores do;
* mean ranks (Table 2): ±0.5 rank.

What differs from the paper, and why:

* **Datasets.** The paper averages over 8 datasets; Credit Card and Cover Type are not
  available offline, so every mean here is over 6 (checks ``data-*``). Means of scores that
  differ a lot between datasets (F1, d₁) move accordingly.
* **Holm p-values.** With 6 datasets the smallest exact two-sided Wilcoxon p is 2/2⁶ =
  0.031; Holm over 4 comparisons (Tables 3, 5) makes it 0.125 and over 5 (Table 6) 0.156,
  so the paper's 3.1e-02 / 3.9e-02 (8 datasets) cannot be reached; the direction of every
  comparison is checked instead (``table5-sign-pattern``, ``table6-sign-pattern``).
* **SDV.** The paper used the legacy ``sdv.tabular`` API; SDV 1.x/2.x changed the Gaussian
  copula's default marginals (``beta``; legacy: a per-column best-fit search) and the
  conditional sampling, so GC's numbers may shift the most.
* **The ± convention** is our reading (sd over the 15 runs of the across-dataset mean; see
  the tables module); checks compare means only.
* **Magic Gamma's positive class** is ``g`` (the reference maps h → 0, g → 1); the dataset
  YAML declares ``[g, h]``, so the experiment reorders it (``magic`` sweep).
* **Quick profile**: Adult and Occupancy, 400 rows, one fold, CTGAN and TVAE 2 epochs
  (TVAE sampled without class conditions: an undertrained TVAE rarely emits the minority
  class, and SDV's rejection sampling then spins through ~100 tries), UMAP 50 epochs, a small
  ML grid, reference tuning only: its numbers only exercise the pipeline; the orderings that
  hold even there are :data:`QUICK_MUST_PASS`.
* **Protocol profile** (2 CPU cores, about three hours; its departures are listed in the
  experiment YAML): the six datasets at full size, fewer (seed, fold) runs than the paper's
  15 and CTGAN/TVAE trained for fewer than SDV's 300 epochs. Every check is evaluated on it;
  the CTGAN/TVAE value checks say which budget they saw, and ``budget-stability-300`` reads the
  profile's ``budget`` sweep (CTGAN and TVAE at the paper's 300 epochs on Loan, same runs)
  to show whether the orderings depend on the budget
  (:mod:`experiments.reproductions.umap_smotenc_2024_budget`; those rows are kept out of
  Tables 2-6).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from experiments.reproductions.umap_smotenc_2024_budget import (
    PAPER_EPOCHS,
    check_budget_stability,
    plan_epochs,
)
from experiments.reproductions.umap_smotenc_2024_compare import (
    friedman_note,
    holm_reason,
    p_list,
    sign_pattern,
    utility_order,
)
from experiments.reproductions.umap_smotenc_2024_paper import (
    CLASSIFIERS,
    GENERATORS,
    IMPROVEMENT_TEXT,
    ORIGINAL,
    PRIVACY,
    TABLE2,
    TABLE2_FRIEDMAN_P,
    TABLE3,
    TABLE4,
    TABLE5,
    TABLE6,
    TABLE6_P,
    TEST_BASELINE,
    UNAVAILABLE,
)
from experiments.reproductions.umap_smotenc_2024_tables import (
    Tables,
    fmt_pm,
    tables,
)
from harness.reproduction import Check, ReproductionRun, not_reproducible, ordered, trend, within
from harness.reproduction.checks import fmt

GC, CTGAN, TVAE, SMOTE, UMAP = GENERATORS.values()
F1_BAND, PRIVACY_BAND, TRADEOFF_BAND, RANK_BAND = 0.05, 0.05, 0.10, 0.5
ORDER_CLASSIFIERS: tuple[str, ...] = ("DT", "RF", "XGB", "MLP")
EVIDENCE = {
    2: "tables/table2_mean_rank.md",
    3: "tables/table3_tradeoff.md",
    4: "tables/table4_ml_utility.md",
    5: "tables/table5_wilcoxon_holm.md",
    6: "tables/table6_privacy.md",
}
SLUG = {GC: "gc", CTGAN: "ctgan", TVAE: "tvae", SMOTE: "smote-nc", UMAP: "umap-smotenc",
        ORIGINAL: "original", TEST_BASELINE: "test-baseline"}  # fmt: skip
VARIANT_SLUG = {"dcr_mean": "dcr", "nndr_mean": "nndr", "ratio_1_10_mean": "ratio"}

QUICK_MUST_PASS: frozenset[str] = frozenset({"table6-order-dcr", "table6-order-nndr", "table6-order-ratio"})
"""Orderings that hold even on the quick profile's 400-row samples (SMOTE-NC interpolates
between close neighbours, so its records lie closer to the training rows than the test fold's
do; UMAP-SMOTENC's decoded records lie farther). Quick values: d₁ 0.026 < 0.044 < 0.114,
NNDR 0.544 < 0.663 < 0.889, d₁/d₁₀ 0.190 < 0.320 < 0.646."""
ALLOWED_STATUSES: frozenset[str] = frozenset()


def _context(run: ReproductionRun, t: Tables) -> str:
    """Where our means come from (datasets, runs, profile, the SDV budget where it was shrunk)."""
    if run.quick:
        return f"quick profile: {len(t.datasets)} datasets ({', '.join(t.datasets)}), {t.n_runs} run, 400-row samples"
    text = f"{run.profile} profile: {len(t.datasets)} of the paper's 8 datasets, {t.n_runs} runs"
    epochs = plan_epochs(run)
    if epochs:
        text += (
            ", CTGAN/TVAE "
            + "/".join(str(e) for e in sorted(set(epochs.values())))
            + f" of {PAPER_EPOCHS} epochs"
        )
    return text


def _gen_note(run: ReproductionRun, label: str) -> str:
    """Why one generator's numbers may move: GC's SDV defaults, CTGAN/TVAE's shrunk budget."""
    if label == GC:
        return "GC: current SDV copula defaults differ from the legacy API"
    name = {CTGAN: "sdv_ctgan", TVAE: "sdv_tvae"}.get(label)
    epochs = plan_epochs(run).get(name or "")
    if epochs is not None and epochs != PAPER_EPOCHS and not run.quick:
        return (
            f"{label} trained {epochs} of the paper's {PAPER_EPOCHS} epochs (more epochs usually raise its "
            "F1 and lower its distances; budget-stability-* checks the ordering at both budgets)"
        )
    return ""


def _mlp_note(run: ReproductionRun, clf: str) -> str:
    """The MLP column when the profile replaces the almeida2024 MLP grid (``param_grid``)."""
    shrunk = any(
        o.lstrip("+").startswith("metric_overrides.ml_efficacy.param_grid=") and "mlp" in o
        for o in run.plan.overrides
    )
    if clf != "MLP" or not shrunk or run.quick:
        return ""
    return (
        "MLP with one configuration (the profile's param_grid) instead of the paper's 24, which are "
        "tuned on the test fold: the paper's best-of-grid F1 can be higher, for every generator alike"
    )


def _with(reason: str, extra: str) -> str:
    return f"{reason}; {extra}" if extra else reason


# ---------------------------------------------------------------------------------- data
def check_unavailable_datasets(run: ReproductionRun) -> list[Check]:
    """Credit Card and Cover Type are part of every published mean but not available offline."""
    return [
        not_reproducible(
            f"data-{key}",
            f"{name} contributes to every mean of Tables 2-6",
            "one of the paper's 8 datasets (§4.1, Table 1)",
            "not available offline (spec/reproductions.md §3.1); every mean here is over the other 6 datasets",
        )
        for key, name in UNAVAILABLE.items()
    ]


# ---------------------------------------------------------------------------------- table 6
def check_table6(run: ReproductionRun) -> list[Check]:
    """Table 6: SMOTE-NC < test baseline < UMAP-SMOTENC per column; every mean within ±0.05."""
    t = tables(run)
    out: list[Check] = []
    context = _context(run, t)
    for variant, column in PRIVACY.items():
        values = {label: t.cell("privacy", variant, label) for label in (SMOTE, TEST_BASELINE, UMAP)}
        paper = ", ".join(
            f"{label} {TABLE6[label][variant][0]:.2f}" for label in (SMOTE, TEST_BASELINE, UMAP)
        )
        out.append(
            ordered(
                f"table6-order-{VARIANT_SLUG[variant]}",
                f"Table 6 {column}: SMOTE-NC < Test Set Baseline < UMAP-SMOTENC",
                paper,
                values,
                [SMOTE, TEST_BASELINE, UMAP],
                reason=context,
                evidence=[EVIDENCE[6]],
            )
        )
        for label in [*GENERATORS.values(), TEST_BASELINE]:
            mean, sd = TABLE6[label][variant]
            note = _gen_note(run, label)
            out.append(
                within(
                    f"table6-{VARIANT_SLUG[variant]}-{SLUG[label]}",
                    f"Table 6 {column}, {label}: within ±{PRIVACY_BAND:.2f} of the published mean",
                    f"{mean:.2f}±{sd:.2f}",
                    t.cell("privacy", variant, label),
                    mean - PRIVACY_BAND,
                    mean + PRIVACY_BAND,
                    reason=_with(context, note),
                    evidence=[EVIDENCE[6]],
                )
            )
    return out


def check_table6_signs(run: ReproductionRun) -> Check:
    """Table 6: GC, CTGAN, TVAE, UMAP-SMOTENC above the test baseline and SMOTE-NC below it, per column."""
    t = tables(run)
    expected = {label: ("control" if label == SMOTE else "treatment") for label in GENERATORS.values()}
    return sign_pattern(
        "table6-sign-pattern",
        "Table 6: direction of every generator vs the test set baseline (3 columns × 5 generators)",
        "GC, CTGAN, TVAE, UMAP-SMOTENC above the baseline; SMOTE-NC below (all p = 3.9e-02)",
        {VARIANT_SLUG[v]: (t.privacy_tests.get(v), expected) for v in PRIVACY},
        _context(run, t),
    )


def check_table6_holm(run: ReproductionRun) -> Check:
    """Table 6's Holm p-values (3.9e-02 for all 15 comparisons) need 8 datasets."""
    t = tables(run)
    observed = "; ".join(
        f"{VARIANT_SLUG[v]}: " + p_list(t.privacy_tests.get(v))
        for v in PRIVACY
        if t.privacy_tests.get(v) is not None
    )
    return not_reproducible(
        "table6-holm-p",
        "Table 6: Wilcoxon–Holm p vs the test set baseline = 3.9e-02 / True for every generator and column",
        f"{TABLE6_P:.1e} / True (×15)",
        f"with {len(t.datasets)} datasets the smallest exact two-sided Wilcoxon p is 2/2^{len(t.datasets)}, "
        "Holm over 5 comparisons makes it 0.156 for 6 datasets (spec/metrics.md S3); the paper's "
        "3.9e-02 needs 8 datasets. The direction of every comparison is checked by table6-sign-pattern",
        observed=observed,
    )


# ---------------------------------------------------------------------------------- table 4
def check_table4_order(run: ReproductionRun) -> list[Check]:
    """Table 4: SMOTE-NC ≥ UMAP-SMOTENC > max(CTGAN, TVAE) > GC for DT, RF, XGB and MLP."""
    t = tables(run)
    return [
        utility_order(
            t, "utility", clf, f"table4-order-{clf.lower()}", _with(_context(run, t), _mlp_note(run, clf))
        )
        for clf in ORDER_CLASSIFIERS
    ]


def check_table4_inner_cv(run: ReproductionRun) -> list[Check]:
    """The Table 4 ordering under honest tuning (inner CV); only when the run has ``ml_efficacy_inner_cv``."""
    t = tables(run)
    if not t.utility_inner_cv:
        return []
    parts = [utility_order(t, "utility_inner_cv", clf, "x", "") for clf in ORDER_CLASSIFIERS]
    return [
        trend(
            "table4-order-inner-cv",
            "Table 4 ordering (DT, RF, XGB, MLP) with hyper-parameters tuned by 3-fold CV on the "
            "training table instead of on the test fold",
            "SMOTE-NC ≥ UMAP-SMOTENC > max(CTGAN, TVAE) > GC (reference tuning)",
            "; ".join(f"{clf}: {c.observed}" for clf, c in zip(ORDER_CLASSIFIERS, parts)),
            all(c.passed for c in parts),
            value={clf: c.value for clf, c in zip(ORDER_CLASSIFIERS, parts)},
            reason=_with(_context(run, t), "spec/metrics.md U1 tuning: inner_cv (not in the paper)"),
            evidence=["tables/table4_ml_utility_inner_cv.md"],
        )
    ]


def check_table4_values(run: ReproductionRun) -> list[Check]:
    """Table 4: every mean F1 (5 generators + the original training set × 6 classifiers) within ±0.05."""
    t = tables(run)
    context = _context(run, t)
    out = []
    for label, row in TABLE4.items():
        for clf, (mean, sd) in row.items():
            note = "; ".join(n for n in (_gen_note(run, label), _mlp_note(run, clf)) if n)
            out.append(
                within(
                    f"table4-f1-{SLUG[label]}-{clf.lower()}",
                    f"Table 4 {clf}, {label}: mean F1 within ±{F1_BAND:.2f} of the published mean",
                    f"{mean:.2f}±{sd:.2f}",
                    t.cell("utility", clf, label),
                    mean - F1_BAND,
                    mean + F1_BAND,
                    reason=_with(context, note),
                    evidence=[EVIDENCE[4]],
                )
            )
    return out


# ---------------------------------------------------------------------------------- table 5
def check_table5_signs(run: ReproductionRun) -> Check:
    """Table 5: the direction of the 19 significant comparisons with UMAP-SMOTENC."""
    t = tables(run)
    groups = {}
    for clf in CLASSIFIERS.values():
        expected = {
            label: ("treatment" if label == SMOTE else "control")
            for label, row in TABLE5.items()
            if row[clf][1]
        }
        groups[clf] = (t.utility_tests.get(clf), expected)
    return sign_pattern(
        "table5-sign-pattern",
        "Table 5: UMAP-SMOTENC better than GC, CTGAN, TVAE (LR, DT, RF, XGB, MLP) and SMOTE-NC better "
        "than UMAP-SMOTENC (DT, RF, XGB, MLP): direction of the per-dataset mean F1",
        "19 comparisons significant at 0.05 (p = 3.1e-02); NB and SMOTE-NC/LR not significant",
        groups,
        _context(run, t),
    )


def check_table5_holm(run: ReproductionRun) -> Check:
    """Table 5's Holm p-values (3.1e-02 for 19 of 24 comparisons) need 8 datasets."""
    t = tables(run)
    observed = "; ".join(f"{clf}: " + p_list(t.utility_tests.get(clf)) for clf in CLASSIFIERS.values()
                         if t.utility_tests.get(clf) is not None)  # fmt: skip
    return not_reproducible(
        "table5-holm-p",
        "Table 5: Wilcoxon–Holm p vs UMAP-SMOTENC per classifier",
        "3.1e-02 / True except NB (1.6e-01, 4.5e-01, 4.5e-01, 9.5e-01) and SMOTE-NC/LR (4.6e-01)",
        holm_reason(len(t.datasets)),
        observed=observed,
    )


# ---------------------------------------------------------------------------------- table 2
def check_table2(run: ReproductionRun) -> list[Check]:
    """Table 2: UMAP-SMOTENC has the best mean trade-off rank and GC the worst; every mean rank within ±0.5."""
    t = tables(run)
    context = _context(run, t)
    ranks = {label: t.summary("rank", label) for label in GENERATORS.values()}
    paper = ", ".join(f"{label} {mean:.2f}" for label, (mean, _) in TABLE2.items())
    finite = {k: v for k, v in ranks.items() if not math.isnan(v)}
    observed = ", ".join(f"{label} {fmt(v, 2)}" for label, v in ranks.items())
    best = min(finite, key=finite.__getitem__) if finite else ""
    worst = max(finite, key=finite.__getitem__) if finite else ""
    passed = len(finite) == len(ranks) and best == UMAP and worst == GC
    out = [
        trend(
            "table2-best-worst",
            "Table 2: UMAP-SMOTENC has the best (lowest) mean rank of the trade-off score, GC the worst",
            paper,
            observed,
            passed,
            value=ranks,
            expected={"best": UMAP, "worst": GC},
            reason=context if passed else _with(context, f"best {best or '–'}, worst {worst or '–'}"),
            evidence=[EVIDENCE[2]],
        )
    ]
    for label, (mean, sd) in TABLE2.items():
        out.append(
            within(
                f"table2-rank-{SLUG[label]}",
                f"Table 2, {label}: mean rank of the trade-off score within ±{RANK_BAND} of the published mean",
                f"{mean:.2f}±{sd:.2f}",
                ranks[label],
                mean - RANK_BAND,
                mean + RANK_BAND,
                digits=2,
                reason=context,
                evidence=[EVIDENCE[2]],
            )
        )
    return out


def check_table2_friedman(run: ReproductionRun) -> Check:
    """Table 2: the Friedman test rejects equal trade-off ranks at α = 0.05."""
    t = tables(run)
    claim = "Table 2: Friedman test on the per-dataset mean ranks rejects 'no difference' at α = 0.05"
    paper = f"p = {TABLE2_FRIEDMAN_P:.1e} / True (8 datasets)"
    result = t.friedman
    if result is None:
        return trend("table2-friedman", claim, paper, "", False,
                     reason=_with(_context(run, t), t.errors.get("friedman", "no trade-off scores")),
                     evidence=[EVIDENCE[2]])  # fmt: skip
    return trend(
        "table2-friedman",
        claim,
        paper,
        f"p = {result.pvalue:.2g} / {result.significant} ({result.n_blocks} datasets, χ² = {result.statistic:.2f})",
        result.significant,
        value=result.pvalue,
        expected={"alpha": result.alpha},
        reason=_with(_context(run, t), friedman_note(len(t.datasets))),
        evidence=[EVIDENCE[2]],
    )


# ---------------------------------------------------------------------------------- table 3
def check_table3(run: ReproductionRun) -> list[Check]:
    """Table 3: UMAP-SMOTENC trade-off ≥ 0.75, GC ≤ 0.35, the others within ±0.10; UMAP-SMOTENC the highest."""
    t = tables(run)
    context = _context(run, t)
    means = {label: t.summary("tradeoff", label) for label in GENERATORS.values()}
    out = [
        within("table3-umap-smotenc", "Table 3: UMAP-SMOTENC mean trade-off score ≥ 0.75",
               fmt_pm(*TABLE3[UMAP][:2], digits=2), means[UMAP], 0.75, None, reason=context,
               evidence=[EVIDENCE[3]]),
        within("table3-gc", "Table 3: GC mean trade-off score ≤ 0.35", fmt_pm(*TABLE3[GC][:2], digits=2),
               means[GC], None, 0.35, reason=_with(context, "GC: current SDV copula defaults differ from the legacy API"),
               evidence=[EVIDENCE[3]]),
    ]  # fmt: skip
    for label in (CTGAN, TVAE, SMOTE):
        mean, sd, _ = TABLE3[label]
        out.append(
            within(
                f"table3-{SLUG[label]}",
                f"Table 3, {label}: mean trade-off score within ±{TRADEOFF_BAND:.2f} of the published mean",
                f"{mean:.2f}±{sd:.2f}",
                means[label],
                mean - TRADEOFF_BAND,
                mean + TRADEOFF_BAND,
                reason=_with(context, _gen_note(run, label)),
                evidence=[EVIDENCE[3]],
            )
        )
    finite = {k: v for k, v in means.items() if not math.isnan(v)}
    top = max(finite, key=finite.__getitem__) if finite else ""
    out.append(
        trend(
            "table3-umap-highest",
            "Table 3: UMAP-SMOTENC has the highest mean trade-off score",
            ", ".join(f"{label} {TABLE3[label][0]:.2f}" for label in GENERATORS.values()),
            ", ".join(f"{label} {fmt(v, 3)}" for label, v in means.items()),
            top == UMAP and len(finite) == len(means),
            value=means,
            reason=context if top == UMAP else _with(context, f"highest: {top or '–'}"),
            evidence=[EVIDENCE[3]],
        )
    )
    runner_up = max((means[CTGAN], means[TVAE]), default=math.nan)
    gain = (
        100.0 * (means[UMAP] - runner_up) / runner_up if runner_up and not math.isnan(runner_up) else math.nan
    )
    out.append(
        within(
            "text-improvement",
            "§5.2: UMAP-SMOTENC's mean trade-off score is around 30 % above the better of CTGAN and TVAE "
            "(band 15-45 %)",
            IMPROVEMENT_TEXT,
            gain,
            15.0,
            45.0,
            digits=1,
            reason=_with(context, "improvement = 100·(UMAP-SMOTENC − max(CTGAN, TVAE)) / max(CTGAN, TVAE)"),
            evidence=[EVIDENCE[3]],
        )
    )
    return out


def check_table3_holm(run: ReproductionRun) -> Check:
    """Table 3's Holm p-values (3.1e-02 vs each generator) need 8 datasets."""
    t = tables(run)
    return not_reproducible(
        "table3-holm-p",
        "Table 3: Wilcoxon–Holm p of the trade-off score vs UMAP-SMOTENC = 3.1e-02 / True for all four",
        "3.1e-02 / True (×4)",
        holm_reason(len(t.datasets)),
        observed=p_list(t.tradeoff_tests),
    )


CHECKS: list[Callable[[ReproductionRun], Check | list[Check]]] = [
    check_unavailable_datasets,
    check_table2,
    check_table2_friedman,
    check_table3,
    check_table3_holm,
    check_table4_order,
    check_table4_inner_cv,
    check_table4_values,
    check_table5_signs,
    check_table5_holm,
    check_table6,
    check_table6_signs,
    check_table6_holm,
    check_budget_stability,
]


def artifacts(run: ReproductionRun) -> None:
    """Tables 2-6 regenerated, ours next to the paper's, plus the per-dataset means."""
    from experiments.reproductions.umap_smotenc_2024_artifacts import write_tables

    write_tables(run, tables(run))
