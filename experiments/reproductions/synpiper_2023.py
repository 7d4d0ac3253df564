"""R-SYNPIPER checks (``spec/reproductions.md`` §16): the DSTA blog's *Project SynPiper*
(``003_…``, "Project SynPiper", "Evaluation Criteria", Figs 8–9).

**What the blog says.** SynPiper wraps three generators — DataSynthesizer's differentially
private Bayesian network, SDV's CTGAN and TVAE — behind one pipeline and evaluates a release by
fidelity (Fig. 8, an image of SDMetrics' overview) and utility (train on synthetic / test on real
against train on real / test on real, Fig. 9). It publishes no number, names no dataset and
says that "in the current development — we focus on the Fidelity metrics. The evaluation of
Utility and Privacy metrics will be in the next phase": it reports no result of its evaluation,
so no claim can hold. Its one statement a run can test is that deep-learning samples "are not
exact copies of the real data"; "high-fidelity", "high-quality synthetic samples" once "fully
trained" and "distribution similar to the original data" name no level. "This parameter [ε]
decides how much noise is added to the model" defines ε: a sanity check, not a finding.

**Claims** (``synpiper_2023_claims``): CTGAN's and TVAE's share of rows copied from the training
split is no higher than that of new real rows (``exact_match``, computed only by the protocol's
appended 300-epoch and ``copies_reference`` sweeps: *not run yet* until they have run); the two
fidelity statements (not evaluable at any budget: no level named). **Setup** (read from the
run): releases and seeds, SDV's default 300 epochs, both evaluation families computed, the ε
grid. **Sanity**: PrivBayes's Quality score and TSTR ROC AUC rise with nominal ε
(``synpiper_2023_protocol``; F1 shown, not judged), the identity release scores TSTR = TRTR and
fidelity 1, the Quality score is the mean of its two properties, TRTR is shared by every
generator of a seed, every fidelity score is in [0, 1], and TSTR does not exceed TRTR (no
leakage of the test split). **Gates** (``synpiper_2023_gates``): learns at every setting (ROC AUC
above 0.5; F1 above the constant predictor's, separately), budget suffices (each cut budget
against 300 epochs; not evaluated without 300-epoch rows). **Notes**: ``synpiper_2023_notes``.

**Decisions of the spec**: Adult (48,842 rows) with a seeded 80/20 split stratified on income;
PrivBayes at nominal ε = 1 (DataSynthesizer's noise scales, k = 1, 20 bins: it spends 1.5·ε under
replace-one neighbours); SDV defaults (300 epochs, batch 500); generator seeds 0–2 (every
interval rests on these 3 seeds); fidelity = KS/TV complements, correlation and contingency
similarity, Quality score; utility = ``ml_efficacy`` (RF of 100 trees and LR, F1 and ROC AUC).

**Protocol profile** (committed, ``results/reproductions/runs/synpiper_2023/protocol``): CTGAN
at 20 epochs and TVAE at 50 (plus 5 and 15) instead of 300; the committed fits cost 15–21 s per
CTGAN epoch and 2.3–6 s per TVAE epoch of wall-clock fit_s (one thread, 39,073 rows), so SDV's
300 epochs are about 1.1–1.6 h per CTGAN seed: the appended ``budget_ctgan_300``,
``budget_tvae_300`` and ``copies_reference`` sweeps run them (the yaml gives the estimate).
Until they have run the run is incomplete, the budget gates are not evaluated, the copies claim
is not run and the headline CTGAN/TVAE rows are the cut budgets. **Quick profile**: 1,000 rows,
one seed, 1-epoch CTGAN/TVAE: a smoke test.
"""

import json
import math
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from experiments.reproductions.synpiper_2023_claims import (
    check_copies,
    check_fidelity_statements,
    copies_artifacts,
)
from experiments.reproductions.synpiper_2023_gates import GATES
from experiments.reproductions.synpiper_2023_notes import referee_notes
from experiments.reproductions.synpiper_2023_protocol import (
    check_epsilon,
    check_epsilon_grid,
    protocol_artifacts,
)
from experiments.reproductions.synpiper_2023_select import (
    BLOG_UTILITY,
    BUDGETED,
    CLASSIFIERS,
    CLF_LABELS,
    FIDELITY,
    FIDELITY_TABLE,
    GENERATORS,
    HOLDOUT,
    LABELS,
    REFERENCE,
    SCORE_LABELS,
    SCORES,
    SDV_DEFAULT_EPOCHS,
    UTILITY_FIGURE,
    UTILITY_TABLE,
    describe,
    label_of,
    pairs,
    release_params,
    seeds_of,
)
from harness.reproduction import Check, ReproductionRun, exact, trend, unavailable

__all__ = ["CHECKS", "DATASETS_NOTE", "GATES", "UTILITY_FIGURE", "artifacts", "referee_notes"]

DATASETS_NOTE = (
    "Adult (UCI adult.data + adult.test, 48,842 rows) stands in for the blog's data: the blog names no "
    "dataset (spec §16 Decision)."
)


# ---------------------------------------------------------------------- setup
def check_releases(run: ReproductionRun) -> Check:
    """Setup: every generator's headline release and the identity reference ran, on one training split."""
    seeds = {g: seeds_of(run, g, release_params(run, g)) for g in GENERATORS}
    identity = seeds_of(run, REFERENCE, {})
    n_train = sorted(
        {int(n) for n in run.rows("quality_score", generator=(REFERENCE, *GENERATORS))["n_train"]}
    )
    ok = (
        bool(identity)
        and all(seeds.values())
        and len({tuple(s) for s in seeds.values()}) == 1
        and len(n_train) == 1
    )
    return trend(
        "setup-releases",
        "the identity reference and each generator's headline release ran on one training split, the same "
        "generator seeds for every generator",
        "SynPiper's three generators (DataSynthesizer, CTGAN, TVAE); the blog names no data or seeds",
        "; ".join(f"{label_of(run, g)}: seeds {s}" for g, s in seeds.items())
        + f"; identity: {len(identity)} release; training rows {', '.join(f'{n:,}' for n in n_train)}",
        ok, kind="setup", level="exact", value={"seeds": seeds, "n_train": n_train},
        if_failed="a release is missing or the generators ran on different seeds or splits (resume the run)",
        evidence=[FIDELITY_TABLE],
    )  # fmt: skip


def check_sdv_budget(run: ReproductionRun) -> list[Check]:
    """Setup: CTGAN's and TVAE's headline releases are trained for SDV's default 300 epochs (not in quick)."""
    if run.quick:
        return []
    epochs = {g: release_params(run, g).get("epochs") for g in BUDGETED}
    shown = "; ".join(f"{LABELS[g]} {int(e) if e is not None else '–'} epochs" for g, e in epochs.items())
    return [
        trend(
            "setup-sdv-default-epochs",
            f"CTGAN and TVAE are trained for SDV's default {SDV_DEFAULT_EPOCHS} epochs (the blog runs SDV's "
            "synthesizers and names no other budget)",
            "SynPiper integrates SDV's CTGAN and TVAE (no budget stated)",
            shown,
            all(e is not None and int(e) >= SDV_DEFAULT_EPOCHS for e in epochs.values()),
            kind="setup",
            level="exact",
            value={g: e for g, e in epochs.items()},
            if_failed=f"the {run.profile} run cuts the budget; until the 300-epoch sweeps run, the tables' CTGAN "
            "and TVAE rows are partly trained networks (budget gates)",
        )  # fmt: skip
    ]


def check_families(run: ReproductionRun) -> Check:
    """Setup: every release has the five fidelity scores and the four TSTR/TRTR pairs (per seed)."""
    missing = []
    for g in (REFERENCE, *GENERATORS):
        params = release_params(run, g)
        seeds: list[int | None] = list(seeds_of(run, g, params)) or [None]
        for seed in seeds:
            rows = (
                run.rows(generator=g, params=params)
                if seed is None
                else run.rows(generator=g, params=params, gen_seed=seed)
            )
            have = set(rows["metric"]) | {
                f"ml_efficacy:{v}" for v in rows.loc[rows["metric"] == "ml_efficacy", "variant"]
            }
            wanted = {*FIDELITY, *(f"ml_efficacy:{c}:{s}" for c in CLASSIFIERS for s in SCORES)}
            if not wanted <= have:
                missing.append(f"{label_of(run, g, params)} seed {seed}: {', '.join(sorted(wanted - have))}")
    return trend(
        "setup-evaluation-families",
        "every release is scored by both of the blog's evaluation families: fidelity (five SDMetrics scores) and "
        "utility (TSTR and TRTR of RF and LR, F1 and ROC AUC); privacy is not one of them (the blog leaves it to "
        "the next phase) — the only privacy measure here, exact_match, serves the copies claim and is computed "
        "by the appended 300-epoch and copies_reference sweeps",
        '"we focus on the Fidelity metrics. The evaluation of Utility and Privacy metrics will be in the next '
        'phase of development" (Evaluation Criteria)',
        "complete" if not missing else "missing: " + "; ".join(missing),
        not missing, kind="setup", level="exact", evidence=[FIDELITY_TABLE, UTILITY_TABLE],
    )  # fmt: skip


# ---------------------------------------------------------------------- sanity
def check_tstr_at_most_trtr(run: ReproductionRun) -> list[Check]:
    """Sanity (no test-set leakage): for every headline release, TSTR <= TRTR for RF and LR, F1 and ROC AUC."""
    out = []
    for g in GENERATORS:
        claim = (
            f"{label_of(run, g)}: TSTR ≤ TRTR for RF and LR, F1 and ROC AUC (no leakage of the test split)"
        )
        found = pairs(run, g)
        if len(found) < len(CLASSIFIERS) * len(SCORES):
            out.append(
                unavailable(
                    f"tstr-at-most-trtr-{g}",
                    claim,
                    BLOG_UTILITY,
                    "trend",
                    f"no complete ml_efficacy rows of {LABELS[g]} in this {run.profile} run",
                    kind="sanity",
                )  # fmt: skip
            )
            continue
        above = [f"{CLF_LABELS[c]} {s}" for (c, s), (tstr, trtr) in found.items() if tstr > trtr + 1e-12]
        seeds = seeds_of(run, g, release_params(run, g))
        out.append(
            trend(
                f"tstr-at-most-trtr-{g}",
                claim,
                BLOG_UTILITY,
                describe(found),
                not above,
                kind="sanity",
                value={f"{c}:{s}": list(v) for (c, s), v in found.items()},
                reason=f"{run.profile} profile, mean over generator seeds {seeds}; the blog reads TRTR as the "
                "benchmark and states no result",
                if_failed=f"TSTR above TRTR for {', '.join(above)}: a release trained a better classifier of the "
                "held-out real rows than the real training split did — check for leakage of the test split "
                "before reading the utility table",
                evidence=[UTILITY_TABLE],
            )  # fmt: skip
        )
    return out


def check_fidelity_range(run: ReproductionRun) -> Check:
    """Sanity: every fidelity score of every release is in [0, 1]."""
    rows = run.rows(generator=(REFERENCE, HOLDOUT, *GENERATORS))
    rows = rows[rows["metric"].isin(FIDELITY)]
    values = rows["value"].astype(float)
    expected = len(FIDELITY) * rows["trial_key"].nunique()
    low, high = (float(values.min()), float(values.max())) if len(values) else (math.nan, math.nan)
    passed = bool(len(values) == expected and len(values) and values.between(0.0, 1.0).all())
    return trend(
        "fidelity-in-unit-interval",
        "every fidelity score (KS/TV complements, correlation and contingency similarity, Quality score) is "
        "in [0, 1]",
        "Fig. 8: SDMetrics fidelity overview (scores in [0, 1])",
        f"{len(values)} scores from {low:.3f} to {high:.3f}",
        passed, kind="sanity", value={"min": low, "max": high, "n": len(values)},
        reason="" if len(values) == expected else f"expected {expected} scores", evidence=[FIDELITY_TABLE],
    )  # fmt: skip


def check_identity(run: ReproductionRun) -> list[Check]:
    """Sanity: the identity release has TSTR = TRTR and every fidelity score is 1."""
    tstr_trtr = pairs(run, REFERENCE)
    gap = max((abs(tstr - trtr) for tstr, trtr in tstr_trtr.values()), default=math.nan)
    fidelity = [run.mean(m, generator=REFERENCE) for m in FIDELITY]
    worst = min(fidelity) if all(np.isfinite(fidelity)) else math.nan
    return [
        exact(
            "identity-tstr-equals-trtr", "identity release: TSTR = TRTR (largest |TSTR − TRTR| over RF/LR, F1/AUC)",
            "TRTR is the benchmark TSTR is compared with", gap if tstr_trtr else None, 0.0, kind="sanity",
            tol=1e-12, evidence=[UTILITY_TABLE],
        ),
        exact(
            "identity-fidelity-one", "identity release: every fidelity score is 1 (smallest shown)",
            "fidelity measures how closely the synthetic data resembles the original", worst, 1.0,
            kind="sanity", tol=1e-12, evidence=[FIDELITY_TABLE],
        ),
    ]  # fmt: skip


def check_quality_is_mean(run: ReproductionRun) -> Check:
    """Sanity: the Quality score is the mean of its Column Shapes and Column Pair Trends properties."""
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
        max(gaps) if gaps and len(gaps) == len(rows) else None, 0.0, kind="sanity", tol=1e-12,
        reason=f"{len(gaps)} releases", evidence=[FIDELITY_TABLE],
    )  # fmt: skip


def check_trtr_shared(run: ReproductionRun) -> Check:
    """Sanity: the TRTR baseline is the same for every generator of a seed (it varies between seeds)."""
    rows = run.rows("ml_efficacy", generator=(REFERENCE, *GENERATORS))
    rows = rows[rows["variant"].isin([f"{c}:{s}" for c in CLASSIFIERS for s in SCORES])]
    spread = rows.groupby(["gen_seed", "variant"])["baseline"].agg(lambda b: float(b.max() - b.min()))
    n_generators = rows.groupby("gen_seed")["generator"].nunique()
    return exact(
        "trtr-same-for-every-generator",
        "TRTR of each classifier and score is the same for every generator of a seed (largest spread shown); "
        "between seeds it varies with the classifier's seed, so a mean over seeds 0–2 differs from seed 0's",
        "TRTR: trained on the real data, tested on the unseen real split",
        float(spread.max()) if len(spread) else None, 0.0, kind="sanity", tol=1e-12,
        reason=f"generators per seed: {dict(n_generators.astype(int))}; {_trtr_by_seed(run)}",
        evidence=[UTILITY_TABLE],
    )  # fmt: skip


def _trtr_by_seed(run: ReproductionRun) -> str:
    """``RF F1 TRTR by seed: 0.684 / 0.680 / 0.677``: how the baseline moves with the classifier's seed."""
    parts = []
    for clf in CLASSIFIERS:
        for score in SCORES:
            rows = run.rows("ml_efficacy", f"{clf}:{score}", generator=(REFERENCE, *GENERATORS))
            by_seed = rows.groupby("gen_seed")["baseline"].mean().dropna()
            if len(by_seed) > 1 and float(by_seed.max() - by_seed.min()) > 1e-12:
                values = " / ".join(f"{v:.3f}" for v in by_seed)
                seeds = "/".join(str(int(s)) for s in by_seed.index)
                parts.append(f"{CLF_LABELS[clf]} {SCORE_LABELS[score]} {values} (seeds {seeds})")
    return "TRTR by seed: " + "; ".join(parts) if parts else "TRTR equal across seeds"


CHECKS: list[Callable[[ReproductionRun], Check | list[Check]]] = [
    check_epsilon,
    check_copies,
    check_fidelity_statements,
    check_releases,
    check_sdv_budget,
    check_epsilon_grid,
    check_families,
    check_tstr_at_most_trtr,
    check_fidelity_range,
    check_identity,
    check_quality_is_mean,
    check_trtr_shared,
]
QUICK_MUST_PASS = {f"tstr-at-most-trtr-{g}" for g in GENERATORS} | {"fidelity-in-unit-interval"}
ALLOWED_STATUSES: set[str] = set()


# ---------------------------------------------------------------------- artifacts
def artifacts(run: ReproductionRun) -> None:
    """The fidelity table, the TSTR/TRTR table and its figure, the sweep tables, the row-copy table."""
    releases = [
        g for g in (REFERENCE, HOLDOUT, *GENERATORS) if not run.rows("quality_score", generator=g).empty
    ]
    fidelity = []
    for g in releases:
        chosen = release_params(run, g)
        record: dict[str, object] = {
            "release": label_of(run, g, chosen),
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
        "fidelity", pd.DataFrame(fidelity),
        caption="Fidelity (SDMetrics; mean over generator seeds; ε is nominal). The Quality score averages Column "
        "Shapes over every column (KS for numeric, TV for categorical) with Column Pair Trends: it is not a "
        "ranking of the generators (read the columns; see the referee notes)" + suffix,
    )  # fmt: skip
    utility = []
    for g in (REFERENCE, *GENERATORS):
        seeds = seeds_of(run, g, release_params(run, g))
        for (clf, score), (tstr, trtr) in pairs(run, g).items():
            utility.append(
                {
                    "release": label_of(run, g),
                    "seeds": _seed_span(seeds),
                    "classifier": CLF_LABELS[clf],
                    "score": score,
                    "TSTR": tstr,
                    "TRTR": trtr,
                    "TSTR - TRTR": tstr - trtr,
                }  # fmt: skip
            )
    frame = pd.DataFrame(utility)
    run.write_table(
        "utility_tstr_trtr", frame,
        caption="Utility: TSTR vs TRTR on the real test split, mean over the generator seeds shown (ε is "
        f"nominal). TRTR uses the trial's classifier seed, so it differs between seeds ({_trtr_by_seed(run)}): "
        "a row over seeds 0–2 and the identity row (one seed) show different TRTR" + suffix,
    )  # fmt: skip
    if len(frame):
        _utility_figure(run, frame, [label_of(run, g) for g in (REFERENCE, *GENERATORS)])
    protocol_artifacts(run)
    copies_artifacts(run)


def _seed_span(seeds: Sequence[int]) -> str:
    """``0–2`` or ``0`` (the generator seeds a row averages)."""
    if not seeds:
        return ""
    if len(seeds) > 1 and list(seeds) == list(range(seeds[0], seeds[-1] + 1)):
        return f"{seeds[0]}–{seeds[-1]}"
    return ", ".join(map(str, seeds))


def _tick(label: str) -> str:
    """``CTGAN\n20 epochs``: a release's short name over its setting (the cut budget stays visible)."""
    name, _, setting = label.partition(" (")
    return name.split(" / ")[0] + (f"\n{setting.rstrip(')')}" if setting else "")


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
                    generators = cell[cell.index != order[0]]["TRTR"]
                    ax.axhline(
                        float(generators.mean() if len(generators) else cell["TRTR"].iloc[0]), color="0.2",
                        linestyle="--", linewidth=0.9, label="TRTR (mean over seeds)",
                    )  # fmt: skip
                ax.set_xticks(range(len(cell)), [_tick(r) for r in cell.index], fontsize=7)
                ax.set_title(f"{CLF_LABELS[clf]}, {score}")
                if j == 0:
                    ax.set_ylabel(f"TSTR {score}")
        axes[0][0].legend(loc="lower left")
        run.save_figure(fig, "utility_tstr_trtr")
