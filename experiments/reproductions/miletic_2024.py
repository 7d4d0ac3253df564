"""R-MILETIC checks (``spec/reproductions.md`` §13): CTGAN on Adult, column AD.

Paper: Miletic & Sariyar, "Assessing the Potentials of LLMs and GANs as State-of-the-Art
Tabular Synthetic Data Generation Methods" (PSD 2024, seed file ``004_…``), Tables 2–5, A2–A4,
§3–4. Only the CTGAN rows of column AD can be run: the LLM (Tabula with a randomly initialised
DistilGPT2) is not a privbench generator and the other eight datasets are not shipped, so every
LLM-vs-CTGAN finding — the paper's headline — is *not evaluable* here.

Checks by kind:

* **claim** — CTGAN on AD: TSTR rises with the epochs and stays below TRTR; the TRTR value .856;
  TSTR, ε-identifiability and SNI within a band of the printed values per setting; the AD
  column's orderings over the epochs for Wasserstein, A2, A3, ε-identifiability and SNI; SNI below
  ε-identifiability in every setting; lower Wasserstein goes with higher TSTR (§4); higher utility
  with higher SNI (§4, "as utility increases, more risk must be accepted"); CTGAN's spread
  growing with the epochs (§3.1). Not evaluable: the LLM findings, the other datasets', the
  absolute Wasserstein / A2 / A3 values (their computation is not specified).
* **arithmetic** — §3's trend statements against the printed AD column: ε-identifiability and
  SNI "increase" and the correlation distance "consistently decreases" with the epochs, but AD's
  values are .244 / .204 / .283, .113 / .107 / .117 and 1.191 / 1.021 / 1.740.
* **setup** — 30,162 complete rows split 24,129 / 6,033 (Table 1).

Uncertainty: the training seeds (the paper's "100 synthetic datasets per model" read as 10
training seeds × 1 sample, spec **Decision**); settings differ by their own trainings, so
comparisons across epochs are two-sample bootstraps over seeds, and within a setting (SNI vs
ε-identifiability) paired by seed. The paper's ± are SDs over its 100 datasets, ours over the seeds.

Adequacy gates ``sdv_ctgan@epochs=E``: the random forest trained on CTGAN's data beats the
majority class (income ≤ 50K) beyond noise, and E is one of the paper's settings; claims resting
on a setting that fails are not evaluable (the quick profile's 1–2-epoch CTGAN on 400 rows).

Other notes: the paper's "F1" of .856 is the accuracy (micro-averaged F1; the caption reads "Mean
Random Forest Accuracy"; on our split the tuned forest's positive-class F1 is ≈ .67), so TSTR/TRTR
compare accuracies; ε-identifiability's and SNI's open settings are fixed by spec P12/P13
**Decisions**; A2 cannot be a sum over Adult's 15 columns (.101 would need a mean per-column
distance below .007); §3.3 calls the ε-identifiability table "Table 5" (it is Table 4).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from experiments.reproductions.experiment_data import experiment_split, experiment_table
from experiments.reproductions.miletic_2024_paper import PAPER_CHECKS
from experiments.reproductions.miletic_2024_table import (
    DATASET,
    EPOCHS,
    EXPERIMENT,
    NOISE_NOTE,
    NOT_SPECIFIED,
    PAPER,
    PAPER_TRTR,
    QUICK_NOTE,
    artifacts,
    epochs_label,
    fmt_stats,
    measures,
    summary,
)
from harness.reproduction import (
    Check,
    Gate,
    ReproductionRun,
    exact,
    trend,
    unavailable,
    within,
)
from harness.reproduction import uncertainty as unc
from harness.reproduction.adequacy import trivial_score, utility_gate

GENERATOR = "sdv_ctgan"
TRTR_TOL, TSTR_TOL, RISK_TOL = 0.01, 0.03, 0.05
PAPER_ROWS, PAPER_TRAIN, PAPER_TEST = 30_162, 24_129, 6_033
EVIDENCE = ["tables/ad_column.md"]
DATASETS_NOTE = (
    "adult: UCI adult.data without rows holding '?' (30,162), seeded stratified 80/20 split (24,129 / 6,033), "
    "the paper's column AD; the other eight datasets of the paper are not used."
)


def gate_key(epochs: int) -> str:
    return f"{GENERATOR}@epochs={epochs}"


def _epochs_run(frame: pd.DataFrame) -> list[int]:
    return sorted(int(e) for e in frame["epochs"].dropna().unique())


def _series(frame: pd.DataFrame, column: str, epochs: int) -> pd.Series:
    part = frame[(frame["epochs"] == epochs)].dropna(subset=[column])
    return pd.Series(part[column].to_numpy(dtype=float), index=part["gen_seed"].to_numpy())


def _seeds(frame: pd.DataFrame) -> int:
    return int(frame.groupby("epochs")["gen_seed"].nunique().min()) if len(frame) else 0


def _method(frame: pd.DataFrame, what: str = "two-sample bootstrap (95 %) over the training seeds") -> str:
    return f"{what} ({_seeds(frame)} per setting)"


# ---------------------------------------------------------------------- gates
def gate_ctgan_learns(run: ReproductionRun) -> list[Gate]:
    """Per epochs setting: TSTR accuracy above the majority class beyond noise."""
    frame = measures(run)
    spec, table = experiment_table(EXPERIMENT, DATASET)
    shares = table[spec.target].astype(str).value_counts(normalize=True)
    trivial = trivial_score("accuracy", shares)
    return [
        utility_gate(
            run, GENERATOR, trivial, variant="random_forest:accuracy", params={"epochs": e}, key=gate_key(e),
            label=f"TSTR accuracy at {epochs_label(e)} epochs above the majority class ({shares.idxmax()})",
        )
        for e in _epochs_run(frame)
    ]  # fmt: skip


def gate_ctgan_budget(run: ReproductionRun) -> list[Gate]:
    """Per epochs setting: it is one of the paper's (300, 1,000, 10,000); a shorter CTGAN says nothing about them."""
    return [
        Gate(
            gate_key(e),
            "trained at the paper's budgets",
            e in EPOCHS,
            f"{epochs_label(e)} epochs; the paper: 300, 1,000, 10,000",
        )
        for e in _epochs_run(measures(run))
    ]


GATES: list[Callable[[ReproductionRun], Gate | list[Gate]]] = [gate_ctgan_learns, gate_ctgan_budget]


# ---------------------------------------------------------------------- setup
def check_data(run: ReproductionRun) -> list[Check]:
    """Adult's training file without NA rows has 30,162 rows, split 24,129 / 6,033."""
    spec, frame = experiment_table(EXPERIMENT, DATASET)
    split = experiment_split(EXPERIMENT, spec, frame)
    paper = "Table 1: AD 24,129 train (80 %), 6,033 test (20 %)"
    return [
        exact("complete-rows", "Adult's training file without the rows that have a missing value", paper + " = 30,162",
              len(frame), PAPER_ROWS, kind="setup"),
        exact("split-train-rows", "seeded stratified 80/20 split: training rows", paper, len(split.train), PAPER_TRAIN,
              kind="setup", reason="split_seed 0; the test split is also the privacy holdout (control = test)"),
        exact("split-test-rows", "seeded stratified 80/20 split: test rows", paper, len(split.test), PAPER_TEST, kind="setup"),
    ]  # fmt: skip


# ---------------------------------------------------------------------- claims: Table 3
def check_trtr(run: ReproductionRun) -> Check:
    """TRTR of the tuned random forest: .856 ± .001 (accuracy = micro F1)."""
    frame = measures(run)
    acc = frame["trtr_accuracy"].dropna()
    paper = 'Table 3, AD "original": .856 ± .001 ("Mean Random Forest Accuracy"; text: F1)'
    claim = "TRTR accuracy (= micro-averaged F1) of the Table A4 random forest within ±0.01 of .856"
    if acc.empty:
        return unavailable("trtr-accuracy", claim, paper, "tolerance", "no ml_efficacy row", kind="claim")
    if run.quick:
        return unavailable(
            "trtr-accuracy", claim, paper, "tolerance",
            f"{QUICK_NOTE}: the forest is trained on a 400-row sample, not the paper's 24,129 rows", kind="claim",
        )  # fmt: skip
    binary = frame["trtr_f1"].dropna()
    n_test = PAPER_TEST
    value = float(acc.mean())
    entry = unc.wilson(round(value * n_test), n_test, "TRTR accuracy")
    return within(
        "trtr-accuracy", claim, paper, value, PAPER_TRTR[0] - TRTR_TOL, PAPER_TRTR[0] + TRTR_TOL, kind="claim",
        reason="Table 3's caption reads 'Mean Random Forest Accuracy' and micro F1 = accuracy; the positive-class F1 "
        f"is {binary.mean():.3f}, far from .856; mean over {len(acc)} trials (the real-data forest is refitted per trial)",
        evidence=EVIDENCE,
        uncertainty=unc.record(f"Wilson interval (95 %) over the {n_test:,} test rows", [entry] if entry else [], n=n_test),
    )  # fmt: skip


def check_tstr(run: ReproductionRun) -> list[Check]:
    """TSTR accuracy per epochs within ±0.03 of the paper, rising with the epochs, below TRTR."""
    frame = measures(run)
    ran = _epochs_run(frame)
    out = []
    for epochs in EPOCHS:
        mean, sd = PAPER["tstr_accuracy"][epochs]
        claim = f"CTGAN {epochs_label(epochs)} epochs: TSTR accuracy within ±{TSTR_TOL} of the paper"
        paper = f"Table 3, AD: {mean:.3f} ± {sd:.3f}"
        values = _series(frame, "tstr_accuracy", epochs)
        if values.empty:
            out.append(
                unavailable(
                    f"tstr-accuracy-{epochs}", claim, paper, "tolerance", _missing(run, epochs), kind="claim"
                )
            )
            continue
        out.append(
            within(
                f"tstr-accuracy-{epochs}",
                claim,
                paper,
                None,
                mean - TSTR_TOL,
                mean + TSTR_TOL,
                kind="claim",
                samples=values,
                method=f"{len(values)} training seeds",
                evidence=EVIDENCE,
                reason=f"ours {fmt_stats(*summary(frame, 'tstr_accuracy')[epochs])}",
                depends_on=[gate_key(epochs)],
            )  # fmt: skip
        )
    paper_order = 'Table 3, AD: .825 < .832 < .839 (300, 1,000, 10,000 epochs); §3.2 "increased epochs generally resulting in better performance, particularly notable in the CTGAN model"'
    out.append(
        _direction(
            run,
            frame,
            "tstr-vs-epochs",
            "CTGAN TSTR accuracy rises with the epochs",
            paper_order,
            "tstr_accuracy",
            rising=True,
        )
    )
    entries, shown = [], []
    for epochs in ran:
        gap = _series(frame, "trtr_accuracy", epochs) - _series(frame, "tstr_accuracy", epochs)
        if (entry := unc.bootstrap_mean(gap.dropna(), f"{epochs_label(epochs)}: TRTR − TSTR")) is not None:
            entries.append(entry)
        shown.append(
            f"{epochs_label(epochs)}: TSTR {_series(frame, 'tstr_accuracy', epochs).mean():.3f}, TRTR {_series(frame, 'trtr_accuracy', epochs).mean():.3f}"
        )
    out.append(
        trend(
            "tstr-below-trtr", "every CTGAN setting: TSTR accuracy below TRTR", "Table 3, AD: .825, .832, .839 < .856",
            "; ".join(shown), bool(entries) and all(e["estimate"] > 0 for e in entries), kind="claim",
            reason=QUICK_NOTE if run.quick else "", evidence=EVIDENCE, depends_on=[gate_key(e) for e in ran],
            uncertainty=unc.record(_method(frame, "bootstrap (95 %) over the training seeds, paired by trial"), entries, n=_seeds(frame)),
        )
    )  # fmt: skip
    return out


def _direction(
    run: ReproductionRun,
    frame: pd.DataFrame,
    check_id: str,
    claim: str,
    paper: str,
    column: str,
    *,
    rising: bool,
) -> Check:
    """The stated direction between every pair of adjacent epoch settings that ran (two-sample intervals)."""
    ran = [e for e in _epochs_run(frame) if len(_series(frame, column, e))]
    if len(ran) < 2:
        return unavailable(check_id, claim, paper, "trend", "fewer than two epoch values ran", kind="claim")
    entries, means = [], {epochs_label(e): float(_series(frame, column, e).mean()) for e in ran}
    for lo, hi in zip(ran, ran[1:]):
        a, b = _series(frame, column, hi), _series(frame, column, lo)
        entry = unc.two_sample_difference(a, b, f"{epochs_label(hi)} − {epochs_label(lo)}")
        if entry is not None:
            entries.append(entry if rising else unc.negate(entry, f"{epochs_label(lo)} − {epochs_label(hi)}"))
    values = list(means.values())
    ok = all((b > a) if rising else (b < a) for a, b in zip(values, values[1:]))
    sign = " < " if rising else " > "
    return trend(
        check_id, claim, paper, sign.join(f"{k}: {v:.3f}" for k, v in means.items()), ok, kind="claim",
        reason=QUICK_NOTE if run.quick else "", evidence=EVIDENCE, depends_on=[gate_key(e) for e in ran],
        uncertainty=unc.record(
            _method(frame) + ("" if entries else "; fewer than two seeds per setting"),
            [e for e in entries if e is not None],
            n=_seeds(frame),
        ),
    )  # fmt: skip


# ---------------------------------------------------------------------- claims: Tables 4 and 5
def check_risk(run: ReproductionRun) -> list[Check]:
    """ε-identifiability and SNI per setting (±0.05) and SNI < ε-identifiability in every setting."""
    frame = measures(run)
    out = []
    tables = {"eps_identifiability": ("ε-identifiability", "Table 4"), "sni": ("SNI", "Table 5")}
    for key, (name, table) in tables.items():
        for epochs in EPOCHS:
            mean, sd = PAPER[key][epochs]
            check_id = f"{key.replace('_', '-')}-{epochs}"
            claim = f"CTGAN {epochs_label(epochs)} epochs: {name} within ±{RISK_TOL} of the paper"
            paper = f"{table}, AD: {mean:.3f} ± {sd:.3f}"
            values = _series(frame, key, epochs)
            if values.empty:
                out.append(
                    unavailable(check_id, claim, paper, "tolerance", _missing(run, epochs), kind="claim")
                )
                continue
            out.append(
                within(
                    check_id,
                    claim,
                    paper,
                    None,
                    mean - RISK_TOL,
                    mean + RISK_TOL,
                    kind="claim",
                    samples=values,
                    method=f"{len(values)} training seeds",
                    evidence=EVIDENCE,
                    depends_on=[gate_key(epochs)],
                    reason=f"ours {fmt_stats(*summary(frame, key)[epochs])}; band ±{RISK_TOL} (Decision): the definitions' "
                    "open settings are fixed by spec P12/P13 Decisions (entropy bins, encoding E, k = 10)"
                    + (NOISE_NOTE if key == "sni" else ""),
                )  # fmt: skip
            )
    ran = _epochs_run(frame)
    entries, shown = [], []
    for epochs in ran:
        gap = _series(frame, "eps_identifiability", epochs) - _series(frame, "sni", epochs)
        if (
            entry := unc.bootstrap_mean(gap.dropna(), f"{epochs_label(epochs)}: ε-identifiability − SNI")
        ) is not None:
            entries.append(entry)
        shown.append(
            f"{epochs_label(epochs)}: SNI {_series(frame, 'sni', epochs).mean():.3f}, ε-id. {_series(frame, 'eps_identifiability', epochs).mean():.3f}"
        )
    out.append(
        trend(
            "sni-below-eps", "every CTGAN setting: SNI below ε-identifiability",
            '"SNI values consistently appear lower than the corresponding ε-identifiability values" (AD: .113 < .244, '
            ".107 < .204, .117 < .283)", "; ".join(shown), bool(entries) and all(e["estimate"] > 0 for e in entries),
            kind="claim", evidence=EVIDENCE, depends_on=[gate_key(e) for e in ran],
            reason=(QUICK_NOTE + "; " if run.quick else "") + "sni excludes noise points (the metric's headline; "
            "sni_noise_at_risk in tables/ad_column.md counts them)",
            uncertainty=unc.record(_method(frame, "bootstrap (95 %) over the training seeds, paired by trial"), entries, n=_seeds(frame)),
        )
    )  # fmt: skip
    return out


# ---------------------------------------------------------------------- claims: the AD column's orderings
ORDER_SOURCES = {
    "wasserstein": ("Wasserstein distance, categoricals one-hot", "Table 2"),
    "a2": ("Σ W₁ (numeric) + Σ Hellinger (categorical)", "Table A2"),
    "a3": ("association-matrix (L²) distance", "Table A3"),
    "eps_identifiability": ("ε-identifiability", "Table 4"),
    "sni": ("SNI", "Table 5"),
}


def check_orders(run: ReproductionRun) -> list[Check]:
    """The AD column's direction between every pair of adjacent epoch settings that ran, per measure."""
    frame = measures(run)
    ran = _epochs_run(frame)
    out = []
    for key, (name, table) in ORDER_SOURCES.items():
        check_id, claim = (
            f"{key.replace('_', '-')}-order",
            f"CTGAN {name}: the AD column's direction between the epoch settings",
        )
        printed = " / ".join(f"{PAPER[key][e][0]:.3f}" for e in EPOCHS)
        paper = f"{table}, AD (300 / 1,000 / 10,000 epochs): {printed}"
        have = [e for e in ran if len(_series(frame, key, e))]
        pairs = [(lo, hi) for lo, hi in zip(have, have[1:]) if lo in EPOCHS and hi in EPOCHS]
        if not pairs:
            out.append(unavailable(check_id, claim, paper, "trend", "the run has no two of the paper's epoch settings"
                                   + (f" ({QUICK_NOTE})" if run.quick else ""), kind="claim"))  # fmt: skip
            continue
        entries, shown, ok = [], [], True
        for lo, hi in pairs:
            up = PAPER[key][hi][0] > PAPER[key][lo][0]
            a, b = _series(frame, key, hi), _series(frame, key, lo)
            entry = unc.two_sample_difference(a, b, f"{epochs_label(hi)} − {epochs_label(lo)}")
            if entry is not None:
                entries.append(entry if up else unc.negate(entry, f"{epochs_label(lo)} − {epochs_label(hi)}"))
            ok &= bool((a.mean() > b.mean()) == up)
            shown.append(
                f"{epochs_label(lo)} → {epochs_label(hi)}: {b.mean():.3f} → {a.mean():.3f} (paper {'up' if up else 'down'})"
            )
        out.append(
            trend(
                check_id, claim, paper, "; ".join(shown), ok, kind="claim", evidence=EVIDENCE,
                reason=("absolute values not comparable (" + NOT_SPECIFIED[key] + "); the direction is")
                if key in NOT_SPECIFIED else "", depends_on=[gate_key(e) for e in ran],
                uncertainty=unc.record(_method(frame), [e for e in entries if e is not None], n=_seeds(frame)),
            )
        )  # fmt: skip
    return out


def _spearman(
    run: ReproductionRun, check_id: str, claim: str, paper: str, x: str, y: str, increasing: bool
) -> Check:
    frame = measures(run).dropna(subset=[x, y])
    entry = unc.spearman_trend(frame, x, y, None, increasing=increasing) if len(frame) >= 3 else None
    return trend(
        check_id, claim, paper, f"Spearman ρ over {len(frame)} trials: {(1 if increasing else -1) * entry['estimate']:+.2f}"
        if entry else f"{len(frame)} trial(s)", bool(entry and entry["estimate"] > 0), kind="claim", evidence=EVIDENCE,
        depends_on=[gate_key(e) for e in _epochs_run(frame)],
        uncertainty=unc.record("Spearman ρ (sign: stated direction > 0), bootstrap over the trials", [entry] if entry else [], n=len(frame)),
    )  # fmt: skip


def check_relations(run: ReproductionRun) -> list[Check]:
    """§4: lower Wasserstein with higher TSTR; higher utility with higher SNI; spread grows with epochs."""
    frame = measures(run)
    out = [
        _spearman(run, "wasserstein-vs-tstr", "over CTGAN's trials, lower Wasserstein distance goes with higher TSTR accuracy",
                  '§4: "we observed a consistent relationship between lower Wasserstein distance and higher specific utility"',
                  "wasserstein", "tstr_accuracy", increasing=False),
        _spearman(run, "sni-vs-utility", "over CTGAN's trials, higher TSTR accuracy goes with higher SNI",
                  '§4: "[SNI] effectively captures the trade-off between risk and utility; in most cases, as utility '
                  'increases, more risk must be accepted"', "tstr_accuracy", "sni", increasing=True),
    ]  # fmt: skip
    ran = [e for e in _epochs_run(frame) if len(_series(frame, "wasserstein", e)) >= 2]
    claim = "CTGAN's spread over the seeds (SD of the Wasserstein distance) larger at the most epochs than at the fewest"
    paper = '§3.1: "CTGAN exhibits more variation in standard deviations, especially at higher epochs" (AD: ± .012 / .011 / .015)'
    if len(ran) < 2:
        out.append(
            unavailable(
                "spread-vs-epochs",
                claim,
                paper,
                "trend",
                "fewer than two settings with two seeds",
                kind="claim",
            )
        )
        return out
    lo, hi = _series(frame, "wasserstein", ran[0]), _series(frame, "wasserstein", ran[-1])
    rng = np.random.default_rng(unc.SEED)
    draws = [
        np.log(np.std(rng.choice(hi, len(hi)), ddof=1) + 1e-12)
        - np.log(np.std(rng.choice(lo, len(lo)), ddof=1) + 1e-12)
        for _ in range(2000)
    ]
    estimate = float(np.log(hi.std(ddof=1)) - np.log(lo.std(ddof=1)))
    low, high = np.percentile(draws, [2.5, 97.5])
    out.append(
        trend(
            "spread-vs-epochs", claim, paper, f"SD {epochs_label(ran[0])}: {lo.std(ddof=1):.4f}, {epochs_label(ran[-1])}: {hi.std(ddof=1):.4f}",
            estimate > 0, kind="claim", evidence=EVIDENCE, depends_on=[gate_key(e) for e in ran],
            uncertainty=unc.record(f"bootstrap (95 %) of the log SD ratio over the seeds ({len(lo)} and {len(hi)})",
                                   [unc.interval("log SD ratio", estimate, float(low), float(high))], n=min(len(lo), len(hi))),
        )
    )  # fmt: skip
    return out


def _missing(run: ReproductionRun, epochs: int) -> str:
    if run.quick:
        return f"the quick profile trains no {epochs_label(epochs)}-epoch model (epochs 1 and 2)"
    return f"no ok trial with {epochs_label(epochs)} epochs in this run (profile {run.profile})"


CHECKS: list[Callable[[ReproductionRun], Check | list[Check]]] = [
    check_tstr,
    check_risk,
    check_orders,
    check_trtr,
    check_relations,
    *PAPER_CHECKS,
    check_data,
]
QUICK_MUST_PASS: frozenset[str] = frozenset({"complete-rows", "split-train-rows", "split-test-rows"})


def referee_notes(run: ReproductionRun, checks: Sequence[Check]) -> list[str]:
    """What this run can and cannot say about the paper, in plain words."""
    frame = measures(run)
    ran = _epochs_run(frame)
    seeds = _seeds(frame)
    notes = [
        "The paper's headline compares an LLM (Tabula) with CTGAN on nine datasets; only CTGAN on Adult (column AD) "
        "runs here, so every LLM finding is not evaluable and the CTGAN findings are tested on one dataset.",
        f"This run trained CTGAN at {', '.join(epochs_label(e) for e in ran) or 'no'} epochs with {seeds} training "
        "seed(s) per setting (the paper: 300, 1,000 and 10,000 epochs, 100 synthetic datasets each).",
    ]
    missing = [e for e in EPOCHS if e not in ran]
    if missing and not run.quick:
        notes.append(
            f"Not run: {', '.join(epochs_label(e) for e in missing)} epochs (≈ 4.6 CPU-s per epoch here: a 10,000-epoch "
            "fit is about 13 CPU-hours). The per-setting checks of those settings are not evaluable and the orderings are "
            "tested only between the settings that ran; in the AD column the 10,000-epoch step reverses ε-identifiability, "
            "SNI and A3 (they rise after falling from 300 to 1,000), so these verdicts can move with it."
        )
    if run.quick:
        notes.append(
            f"{QUICK_NOTE}: a 1–2-epoch CTGAN is not one of the paper's settings (gate), so its claims are not evaluable."
        )
    return notes


__all__ = ["CHECKS", "DATASETS_NOTE", "GATES", "QUICK_MUST_PASS", "artifacts", "referee_notes"]
