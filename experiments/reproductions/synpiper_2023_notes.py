"""R-SYNPIPER referee notes (``spec/reproductions.md`` §16): plain words computed from the run.

What the blog states and what this run can say about it (no claim holds: the blog reports no
result); what is not run yet and what it leaves open; the measured training cost; PrivBayes across
ε (sanity checks, F1 with its true path); why the Quality score is not a ranking of the
generators; nominal ε; how much replication every interval rests on.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from experiments.reproductions.synpiper_2023_gates import cost_notes
from experiments.reproductions.synpiper_2023_select import (
    BUDGET_SWEEPS,
    BUDGETED,
    CLASSIFIERS,
    CLF_LABELS,
    GENERATORS,
    HOLDOUT,
    LABELS,
    MAIN_EPSILON,
    SDV_DEFAULT_EPOCHS,
    budgets,
    epsilon_spent,
    epsilons,
    label_of,
    per_seed,
    release_params,
    seeds_of,
)
from harness.reproduction import Check, ReproductionRun

WHAT_THE_BLOG_CLAIMS = (
    "**What the blog claims.** Its SynPiper section publishes no number and names no dataset; it describes "
    'three generators and an evaluation plan, and leaves utility and privacy evaluation to "the next phase": it '
    "reports no result of fidelity, utility or privacy, so no claim here can hold. It makes one testable "
    'statement, that deep-learning samples "are not exact copies of the real data" (the copies claim); '
    '"high-fidelity", "high-quality" once "fully trained" and a "distribution similar to the original" name no '
    'level and cannot be tested by any run. Its sentence that ε "decides how much noise is added" defines ε; '
    "PrivBayes across ε is therefore a sanity check that the configured ε reaches DataSynthesizer, not a finding. "
    "TSTR ≤ TRTR, the identity release and the score ranges are sanity checks of this pipeline; Adult, ε = 1, the "
    "classifiers and the seeds are the spec's choices."
)


def _missing_sweeps(run: ReproductionRun) -> list[str]:
    """The protocol's appended sweeps whose rows this run lacks (only where the profile has them)."""
    names = {s.name for s in run.plan.sweeps}
    missing = [
        BUDGET_SWEEPS[g]
        for g in BUDGETED
        if BUDGET_SWEEPS[g] in names and SDV_DEFAULT_EPOCHS not in budgets(run, g)
    ]
    if "copies_reference" in names and run.rows("exact_match", generator=HOLDOUT).empty:
        missing.append("copies_reference")
    return missing


def _incomplete(run: ReproductionRun) -> list[str]:
    missing = _missing_sweeps(run)
    cut = {g: release_params(run, g).get("epochs") for g in BUDGETED}
    cut = {g: int(e) for g, e in cut.items() if e is not None and int(e) < SDV_DEFAULT_EPOCHS}
    parts = []
    if missing:
        parts.append(
            f"**Not run yet.** The sweeps {', '.join(missing)} of this profile have no rows: the run is "
            "incomplete. Until they run, the copies claim is not run (its exact_match rows come only from them) "
            "and the budget gates are not evaluated (no 300-epoch rows to compare with)."
        )
    if cut:
        parts.append(
            "**Cut budgets.** "
            + " and ".join(
                f"{LABELS[g]} is trained {e} of SDV's {SDV_DEFAULT_EPOCHS} epochs" for g, e in cut.items()
            )
            + " in this run, so the CTGAN and TVAE rows of the fidelity and utility tables are partly trained "
            "networks; they decide no verdict (the two fidelity statements are not evaluable at any budget, and "
            "the copies claim reads 300-epoch rows only)."
        )
    return parts


def _f1_words(run: ReproductionRun, found: list[float]) -> str:
    """The F1 paths of PrivBayes across ε, as they are (rises, falls), with the constant predictor's F1."""
    parts = []
    for clf in CLASSIFIERS:
        means = [per_seed(run, "ml_efficacy", f"{clf}:f1", "privbayes", {"epsilon": e}).mean() for e in found]
        path = " → ".join(f"{m:.3f}" for m in means)
        falls = [
            f"falls {a:.3f} → {b:.3f} between ε = {ea:g} and {eb:g}"
            for (ea, a), (eb, b) in zip(zip(found, means), list(zip(found, means))[1:])
            if b < a
        ]
        parts.append(f"{CLF_LABELS[clf]} {path}" + (f" ({'; '.join(falls)})" if falls else ""))
    return "; ".join(parts)


def _key(epsilon: float) -> str:
    """The learns gate key of PrivBayes at nominal ``epsilon`` (bare at the headline ε)."""
    return "privbayes" if epsilon == MAIN_EPSILON else f"privbayes@epsilon={epsilon:g}"


def _failed(run: ReproductionRun, key: str) -> bool:
    gate = run.gate(key)
    return gate is not None and not gate.passed


def _epsilon_note(run: ReproductionRun) -> list[str]:
    found = epsilons(run)
    if len(found) < 2:
        return []
    quality = [per_seed(run, "quality_score", "", "privbayes", {"epsilon": e}).mean() for e in found]
    auc = {
        clf: [
            per_seed(run, "ml_efficacy", f"{clf}:roc_auc", "privbayes", {"epsilon": e}).mean() for e in found
        ]
        for clf in CLASSIFIERS
    }
    chance = [e for e in found if _failed(run, _key(e))]
    f1_low = [e for e in found if _failed(run, f"{_key(e)}:f1")]
    text = (
        f"**PrivBayes across nominal ε = {', '.join(f'{e:g}' for e in found)}** (sanity checks, not claims). "
        f"Quality {' → '.join(f'{q:.3f}' for q in quality)}; TSTR ROC AUC "
        + "; ".join(f"{CLF_LABELS[c]} {' → '.join(f'{v:.3f}' for v in values)}" for c, values in auc.items())
        + f"; TSTR F1 {_f1_words(run, found)}."
    )
    if chance:
        text += (
            f" At ε = {', '.join(f'{e:g}' for e in chance)} the classifiers trained on the release do not beat "
            "chance (ROC AUC learns gate fails): the first step starts from no signal."
        )
    if f1_low:
        text += (
            f" F1 does not clear always predicting >50K beyond noise at ε = {', '.join(f'{e:g}' for e in f1_low)} "
            "(F1 learns gates), so the ROC AUC check, which does not depend on the classifier's threshold, is the utility "
            "sanity check; F1 was the measure an earlier version judged and is shown, not judged. No claim rests "
            "on PrivBayes, so its failed gates void nothing."
        )
    return [text]


def _quality_note(run: ReproductionRun) -> list[str]:
    """Why PrivBayes's Quality can exceed CTGAN's and TVAE's with a much lower KS complement."""
    params = release_params(run, "privbayes")
    quality = {g: per_seed(run, "quality_score", "", g, release_params(run, g)).mean() for g in GENERATORS}
    ks = per_seed(run, "ks_complement", "", "privbayes", params)
    tv = per_seed(run, "tv_complement", "", "privbayes", params)
    if ks.empty or tv.empty or not all(pd.notna(list(quality.values()))):
        return []
    columns: dict[str, list[float]] = {}
    for details in run.details("ks_complement", generator="privbayes", params=params):
        for column, value in (details.get("columns") or {}).items():
            columns.setdefault(str(column), []).append(float(value))
    worst = sorted(((sum(v) / len(v), c) for c, v in columns.items()))[:2]
    categorical: set[str] = set()
    for details in run.details("tv_complement", generator="privbayes", params=params):
        categorical |= {str(c) for c in details.get("columns") or {}}
    n_numeric, n_categorical = len(columns), len(categorical)
    shown = ", ".join(f"{label_of(run, g)} {q:.3f}" for g, q in quality.items())
    text = (
        f"**The Quality score is not a ranking of the generators.** Quality: {shown}. PrivBayes's KS complement "
        f"is {ks.mean():.3f} against its TV complement {tv.mean():.3f}: SDMetrics's Quality averages Column Shapes "
        f"over all {n_numeric + n_categorical} columns ({n_categorical} categorical, scored by TV) with Column "
        "Pair Trends, so a release that misses a few numeric columns can still score high."
    )
    if worst:
        text += (
            " The low KS complement comes from "
            + " and ".join(f"{c} ({v:.3f})" for v, c in worst)
            + ": DataSynthesizer draws numeric values uniformly within their sampled histogram bin, so a point "
            "mass (most rows at 0) is spread over the first bin. The fidelity table is read column by column, "
            "not by its Quality score."
        )
    return [text]


def _other_notes(run: ReproductionRun) -> list[str]:
    notes = []
    spent = epsilon_spent(run, MAIN_EPSILON)
    if spent is not None:
        notes.append(
            f"**ε labels are nominal.** Every ε shown is the value DataSynthesizer is configured with; with its "
            f"noise scales (accounting: datasynthesizer, correlated mode, k = 1) nominal ε = {MAIN_EPSILON:g} spends "
            f"{spent:g} under replace-one neighbours (recorded with the rows"
            + ("; the ε table lists both)." if len(epsilons(run)) >= 2 else ").")
        )
    seeds = sorted({len(seeds_of(run, g, release_params(run, g))) for g in GENERATORS} - {0})
    if seeds and max(seeds) < 2:
        notes.append(
            "**Replication.** One generator seed per release: no interval can be formed (a stochastic value of "
            "one seed has no noise estimate), so this profile is a smoke test of the pipeline."
        )
    elif seeds:
        n = "/".join(map(str, seeds))
        notes.append(
            f"**Replication.** Every interval here (the learns and budget gates, the ε sanity checks, the copies "
            f'claim once run) is a bootstrap over {n} generator seeds on one split: "beyond noise" means beyond '
            f"the spread of {n} seeds, not beyond the variation of other splits or datasets."
        )
    return notes


def referee_notes(run: ReproductionRun, checks: Sequence[Check]) -> list[str]:
    """What the blog states and what this run can say about it; what is not run; cost; PrivBayes; noise."""
    return [
        WHAT_THE_BLOG_CLAIMS,
        *_incomplete(run),
        *cost_notes(run),
        *_epsilon_note(run),
        *_quality_note(run),
        *_other_notes(run),
    ]


__all__ = ["WHAT_THE_BLOG_CLAIMS", "referee_notes"]
