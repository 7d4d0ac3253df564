"""R-SYNPIPER checks (``spec/reproductions.md`` §16): the DSTA blog's *Project SynPiper*
(``003_…``, "Project SynPiper", "Evaluation Criteria", Figs 8–9).

**Protocol.** The blog integrates three generators — DataSynthesizer's differentially private
Bayesian network, SDV's CTGAN and TVAE — and evaluates a release by *fidelity* (an overview
figure of SDMetrics measures, Fig. 8, an image) and *utility* (train on synthetic / test on
real against train on real / test on real, Fig. 9). It publishes no numbers and names no
dataset, so the spec fixes the rest (**Decisions**): Adult (``adult.data`` + ``adult.test``,
48,842 rows), a seeded 80/20 split stratified on income (the 20 % is the real test split),
``privbayes`` with ε = 1 (DataSynthesizer's correlated mode, our YAML's k = 1 and 20 bins),
``sdv_ctgan`` / ``sdv_tvae`` with SDV's defaults (300 epochs, batch 500), generator seeds 0–2;
fidelity = ``ks_complement``, ``tv_complement``, ``correlation_similarity``,
``contingency_similarity`` and ``quality_score``; utility = ``ml_efficacy`` (``simple``
protocol: a 100-tree Random Forest and a Logistic Regression, F1 of ``>50K`` and ROC AUC). The
``identity`` release (the training split itself) is the reference row.

**Checks.** With no published number there is nothing to agree with; the checks are the
properties the blog's evaluation must have and our run can show: real data is at least as
useful as every synthetic release (TRTR ≥ TSTR, the blog's benchmark reading), every fidelity
score is in [0, 1], and three exact properties of the evaluation itself — the identity release
scores TSTR = TRTR and fidelity 1, the Quality score is the mean of its two properties, and the
TRTR baseline is the same for every generator of a seed (one split, one seeded classifier).

**Protocol profile** (``protocol``, persisted): the spec's protocol on all of Adult with SDV's
300 epochs shrunk for CTGAN (the profile's description gives the budgets and the run time),
plus two sweeps whose checks live in ``synpiper_2023_protocol``: PrivBayes at ε = 0.01 and
0.1 (the blog's "ε decides how much noise is added") and CTGAN/TVAE at a second, smaller
budget (is the TRTR ≥ TSTR reading, and the fidelity ranking, stable to the shrinking?). Every
table and the checks above read each generator's headline release only (PrivBayes at ε = 1,
CTGAN/TVAE at their largest budget: ``synpiper_2023_select.release_params``).

**Quick profile.** 1,000 rows (800 train, 200 test), one seed, CTGAN and TVAE with one epoch,
20-tree forests: the generators are barely trained (a 1-epoch TVAE may release one income class
only, whose TSTR F1 is 0 and AUC 0.5), which the TRTR ≥ TSTR checks tolerate by design.
"""

import json
import math
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from experiments.reproductions.synpiper_2023_protocol import check_budget, check_epsilon, protocol_artifacts
from experiments.reproductions.synpiper_2023_select import (
    BLOG_UTILITY,
    CLASSIFIERS,
    CLF_LABELS,
    FIDELITY,
    FIDELITY_TABLE,
    GENERATORS,
    LABELS,
    REFERENCE,
    SCORES,
    UTILITY_FIGURE,
    UTILITY_TABLE,
    describe,
    pairs,
    release_params,
    seeds_of,
    setting_of,
)
from harness.reproduction import Check, ReproductionRun, exact, trend, unavailable

__all__ = ["CHECKS", "UTILITY_FIGURE", "artifacts"]


def check_trtr_benchmark(run: ReproductionRun) -> list[Check]:
    """For every generator's headline release, TRTR >= TSTR for RF and LR, F1 and ROC AUC."""
    out = []
    for g in GENERATORS:
        setting = setting_of(run, g)
        claim = f"{LABELS[g]}{f' ({setting})' if setting else ''}: TRTR >= TSTR for RF and LR, F1 and ROC AUC"
        tstr_trtr = pairs(run, g)
        if len(tstr_trtr) < len(CLASSIFIERS) * len(SCORES):
            out.append(
                unavailable(
                    f"trtr-ge-tstr-{g}",
                    claim,
                    BLOG_UTILITY,
                    "trend",
                    f"no ok ml_efficacy row of {LABELS[g]} in this {run.profile} run (failed or not yet run "
                    "trials: the comparison needs all four classifier/score pairs)",
                )
            )
            continue
        worse = [f"{CLF_LABELS[c]} {s}" for (c, s), (tstr, trtr) in tstr_trtr.items() if tstr > trtr + 1e-12]
        seeds = seeds_of(run, g, release_params(run, g))
        note = f"{run.profile} profile, {setting or 'defaults'}, mean over generator seeds {seeds}"
        if run.quick:
            note = "quick profile (1-epoch CTGAN/TVAE, 200 test rows); mean over generator seeds"
        out.append(
            trend(
                f"trtr-ge-tstr-{g}",
                claim,
                BLOG_UTILITY,
                describe(tstr_trtr),
                not worse,
                value={f"{c}:{s}": list(v) for (c, s), v in tstr_trtr.items()},
                reason=note,
                if_failed=f"TSTR above TRTR for {', '.join(worse)}: this release trains a better classifier "
                "for the held-out real 20 % than the real training split does, so on Adult the blog's "
                "reading of TRTR as the benchmark TSTR approaches from below does not bound that score "
                "(a gap inside the seed-to-seed spread of the utility table is sampling noise, not a "
                "better release)",
                evidence=[UTILITY_TABLE],
            )
        )
    return out


def check_fidelity_range(run: ReproductionRun) -> Check:
    """Every fidelity score of every release is in [0, 1]."""
    rows = run.rows(generator=(REFERENCE, *GENERATORS))
    rows = rows[rows["metric"].isin(FIDELITY)]
    values = rows["value"].astype(float)
    expected = len(FIDELITY) * rows["trial_key"].nunique()
    low, high = (float(values.min()), float(values.max())) if len(values) else (math.nan, math.nan)
    passed = bool(len(values) == expected and len(values) and values.between(0.0, 1.0).all())
    return trend(
        "fidelity-in-unit-interval",
        "every fidelity score (KS/TV complements, correlation and contingency "
        "similarity, Quality score) is in [0, 1]",
        "Fig. 8: SDMetrics fidelity overview (scores in [0, 1])",
        f"{len(values)} scores in [{low:.3f}, {high:.3f}]",
        passed,
        value={"min": low, "max": high, "n": len(values)},
        reason="" if len(values) == expected else f"expected {expected} scores",
        evidence=[FIDELITY_TABLE],
    )


def check_identity(run: ReproductionRun) -> list[Check]:
    """The identity release: TSTR = TRTR and every fidelity score is 1."""
    tstr_trtr = pairs(run, REFERENCE)
    gap = max((abs(tstr - trtr) for tstr, trtr in tstr_trtr.values()), default=math.nan)
    fidelity = [run.mean(m, generator=REFERENCE) for m in FIDELITY]
    worst = min(fidelity) if all(np.isfinite(fidelity)) else math.nan
    return [
        exact(
            "identity-tstr-equals-trtr",
            "identity release: TSTR = TRTR (largest |TSTR - TRTR| over RF/LR, F1/AUC)",
            "TRTR is the benchmark TSTR is compared with",
            gap if tstr_trtr else None,
            0.0,
            tol=1e-12,
            evidence=[UTILITY_TABLE],
        ),
        exact(
            "identity-fidelity-one",
            "identity release: every fidelity score is 1 (smallest shown)",
            "fidelity measures how closely the synthetic data resembles the original",
            worst,
            1.0,
            tol=1e-12,
            evidence=[FIDELITY_TABLE],
        ),
    ]


def check_quality_is_mean(run: ReproductionRun) -> Check:
    """The Quality score is the mean of its Column Shapes and Column Pair Trends properties."""
    rows = run.rows("quality_score", generator=(REFERENCE, *GENERATORS))
    gaps = []
    for value, details in zip(rows["value"], rows["details"]):
        props = json.loads(details).get("properties", {})
        parts = [props.get("Column Shapes"), props.get("Column Pair Trends")]
        if all(p is not None for p in parts):
            gaps.append(abs(float(value) - float(np.mean(parts))))
    return exact(
        "quality-is-mean-of-properties",
        "Quality score = mean(Column Shapes, Column Pair Trends), every release (largest gap shown)",
        "SDMetrics Quality Report (the blog's fidelity overview)",
        max(gaps) if gaps and len(gaps) == len(rows) else None,
        0.0,
        tol=1e-12,
        digits=3,
        reason=f"{len(gaps)} releases",
        evidence=[FIDELITY_TABLE],
    )


def check_trtr_shared(run: ReproductionRun) -> Check:
    """The TRTR baseline is the same for every generator of a seed."""
    rows = run.rows("ml_efficacy", generator=(REFERENCE, *GENERATORS))
    rows = rows[rows["variant"].isin([f"{c}:{s}" for c in CLASSIFIERS for s in SCORES])]
    spread = rows.groupby(["gen_seed", "variant"])["baseline"].agg(lambda b: float(b.max() - b.min()))
    n_generators = rows.groupby("gen_seed")["generator"].nunique()
    return exact(
        "trtr-same-for-every-generator",
        "TRTR of each classifier and score is the same for every generator of a seed (largest spread shown)",
        "TRTR: trained on the real data, tested on the unseen real split",
        float(spread.max()) if len(spread) else None,
        0.0,
        tol=1e-12,
        reason=f"generators per seed: {dict(n_generators.astype(int))}",
        evidence=[UTILITY_TABLE],
    )


CHECKS: list[Callable[[ReproductionRun], Check | list[Check]]] = [
    check_trtr_benchmark,
    check_fidelity_range,
    check_identity,
    check_quality_is_mean,
    check_trtr_shared,
    check_epsilon,
    check_budget,
]
QUICK_MUST_PASS = {f"trtr-ge-tstr-{g}" for g in GENERATORS} | {"fidelity-in-unit-interval"}
ALLOWED_STATUSES: set[str] = set()


# ---------------------------------------------------------------------- artifacts
def artifacts(run: ReproductionRun) -> None:
    """The fidelity table, the TSTR/TRTR table and its figure."""
    releases = (REFERENCE, *GENERATORS)
    fidelity = []
    for g in releases:
        chosen = release_params(run, g)
        record: dict[str, object] = {
            "release": LABELS[g],
            "setting": setting_of(run, g),
            "seeds": len(seeds_of(run, g, chosen)),
        }
        for m in FIDELITY:
            values = run.values(m, generator=g, params=chosen)
            record[m] = float(values.mean()) if len(values) else math.nan
            if len(values) > 1:
                record[f"{m} sd"] = float(values.std(ddof=1))
        fidelity.append(record)
    suffix = f" ({run.profile} profile)"
    run.write_table(
        "fidelity", pd.DataFrame(fidelity), caption="Fidelity (SDMetrics; mean over generator seeds)" + suffix
    )
    utility = []
    for g in releases:
        for (clf, score), (tstr, trtr) in pairs(run, g).items():
            utility.append(
                {
                    "release": LABELS[g],
                    "classifier": CLF_LABELS[clf],
                    "score": score,
                    "TSTR": tstr,
                    "TRTR": trtr,
                    "TSTR - TRTR": tstr - trtr,
                }
            )
    frame = pd.DataFrame(utility)
    run.write_table(
        "utility_tstr_trtr", frame, caption="Utility: TSTR vs TRTR on the real test split" + suffix
    )
    if len(frame):
        _utility_figure(run, frame, [LABELS[g] for g in releases])
    protocol_artifacts(run)


def _utility_figure(run: ReproductionRun, frame: pd.DataFrame, order: Sequence[str]) -> None:
    from harness.report.style import figure_style, new_figure, palette

    colours = palette(order)
    with figure_style():
        fig = new_figure(7.0, 4.2)
        axes = fig.subplots(2, 2, sharey="row")
        for i, score in enumerate(SCORES):
            for j, clf in enumerate(CLASSIFIERS):
                ax = axes[i][j]
                cell = frame[(frame["score"] == score) & (frame["classifier"] == CLF_LABELS[clf])]
                cell = cell.set_index("release").reindex([r for r in order if r in set(cell["release"])])
                ax.bar(range(len(cell)), cell["TSTR"], color=[colours[r] for r in cell.index])
                if len(cell):
                    ax.axhline(
                        float(cell["TRTR"].iloc[0]), color="0.2", linestyle="--", linewidth=0.9, label="TRTR"
                    )
                ax.set_xticks(
                    range(len(cell)), [r.split(" (")[0].split(" / ")[0] for r in cell.index], fontsize=7
                )
                ax.set_title(f"{CLF_LABELS[clf]}, {score}")
                if j == 0:
                    ax.set_ylabel(f"TSTR {score}")
        axes[0][0].legend(loc="lower left")
        run.save_figure(fig, "utility_tstr_trtr")
