"""R-RAAB checks (``spec/reproductions.md`` §6): Raab's disclosure measures, Tables 1-3.

Paper: Raab, *Privacy Risk from Synthetic Data: Practical Proposals* (PSD 2024, seed file
``004_…``), §3.4, §4, §5, Tables 1-3 and Appendices 1-2; the measures are ``raab_disclosure``
(``spec/metrics.md`` P10); the releases are ``cart_synthpop`` (our Python port of synthpop's
CART synthesis) and ``identity`` (the GT itself).

Kinds (issue 27)
----------------
* ``sanity``: every GT-only number (Table 2 "orig", UiO = 2.68 %, SD2011 Dorig 53.3 %, CAPd
  74 %, 3,459 q levels, 23 depress levels, 89 % never worked abroad), the nesting of the
  measures and what the column settings imply by construction. They validate the data and
  the formulas, not a finding about synthesis.
* ``claim``: every finding about a synthesis: Table 1 and the §3.4 rates (tolerance bands),
  the target orders of Figs 1-2, the income grouping, the one-way flags (SD2011 workab;
  Adult's three targets and no other), Table 2's syn < orig per column and the §4 statements
  about Columns 1-4, Table 3 (Train > Ctrl, small R, marital and workab the largest Ctrl) and
  §5's workab exclusion. Their uncertainty is a bootstrap over the syntheses (generator seeds:
  5 for SD2011, 3 for Adult in the paper profile; the paper prints one synthesis except in
  Table 1). Claims the setup cannot test (two-way checks, Anonymeter's measures, leaf-size
  tuning) are ``not evaluable`` with what would test them.
* ``arithmetic``: Table 3's R from its Train and Ctrl columns; §3.4's rounded rates against
  Table 1; §5's "Ctrl values of 12.5 % and 13.3 %" against Table 3 (they disagree: 12.53 is
  ls's DCAP Ctrl, Table 3's workab Ctrl values are 31.30 and 33.31).
* ``setup``: the number of syntheses and the rows the Adult release is made from.

Adequacy gates: ``cart_synthpop@sd2011`` and ``cart_synthpop@adult`` ("learns"): among the GT
records whose q the release contains, DCAP (the release's correct-attribution rate) exceeds
baseCAPd (guessing the target from its marginal) for every target beyond the spread of the
syntheses. Every release claim rests on its gate.

Discrepancies found (also in the check reasons)
-----------------------------------------------
* The R code of Appendix 2 as printed closes ``cont.na = list(...)`` after ``models = TRUE``,
  so ``method = c("sample", rep("ctree", 12))``, ``visit.sequence`` and ``models`` are
  elements of ``cont.na``, not arguments of ``syn()``; the text says "synthesised with the
  default method (CART)". We follow the spec: first variable sampled, CART for the rest,
  education.num last (no ``ctree``).
* ``cont.na`` (capital.gain = 99999, hours.per.week = 99; SD2011 income = -8): cart_synthpop
  has no special-value option; those values are ordinary donor values of the trees.
* ``denom_lim``: the prose applies the limit to SD denominators (s_tq), synthpop 1.8 to d_tq;
  Table 2 uses ``denom_source: original`` (synthpop) and the suite also runs the prose variant
  (``raab_c3_sd``, ``raab_c4_sd``; shown in the Table 2 artifact).
* §3.4 gives marital 9 distinct values; SD2011 has 6 levels + NA = 7 (ls 8, workab 3 and
  income 407 agree).
* Paper profile (3 Adult and 5 SD2011 syntheses): our CART port keeps more of the GT's key
  structure than R synthpop's release: SD2011 UiS ≈ 32 % (paper "almost 50 %"), iS 67.5 %
  (paper 64 %), workab R 0.30 / 0.34 (paper 0.26 / 0.29); AdultUCI C0 syn exceeds orig for
  capital.gain, capital.loss and workclass (the paper's syn is 14-19 % below orig there), C4
  syn is 0.53-1.35 % (paper 0.14-0.93), hours.per.week is flagged one-way (DiSCO 2 %, paper
  0.19 %). Everything else of Tables 1 and 3 lies within 1-2 points of the paper.
* Quick profile: the Adult CART release comes from a seeded 4,000-row sample, so its Table 2
  claims are not evaluable there; SD2011 has two syntheses instead of five.
"""

from __future__ import annotations

import math

import pandas as pd

from experiments.reproductions import raab_2024_adult as adult
from experiments.reproductions import raab_2024_sd2011 as sd2011
from experiments.reproductions.raab_2024_artifacts import artifacts
from experiments.reproductions.raab_2024_view import ADULT, CART, SD2011, measures, series
from harness.reproduction import Check, Gate, ReproductionRun, not_evaluable, within
from harness.reproduction import uncertainty as unc
from harness.reproduction.checks import fmt

DATASETS_NOTE = (
    "adult_uci is R arules' AdultUCI rebuilt from UCI adult.data + adult.test (48,842 rows; income is missing "
    "for the 16,281 test rows, as in AdultUCI); sd2011_raab is synthpop's SD2011 restricted to the nine "
    "variables of Raab's example"
)


# ---------------------------------------------------------------------- adequacy gates
def _learns(run: ReproductionRun, dataset: str, metric: str, key: str) -> Gate:
    frame = measures(run, dataset, CART)
    if frame.empty:
        return Gate(key, "learns", False, f"no CART release of {dataset}")
    frame = frame[(frame["metric"] == metric) & (frame["part"] == "all")]
    parts, passed = [], True
    for target in sorted(set(frame["target"])):
        rows = frame[frame["target"] == target]
        lift = series(rows, "DCAP") * 100.0 / series(rows, "iS") - series(rows, "baseCAPd")
        entry = unc.bootstrap_mean(lift.dropna(), target)
        low = entry["low"] if entry else (float(lift.iloc[0]) if len(lift) else math.nan)
        ok = math.isfinite(low) and low > 0
        passed &= ok
        parts.append(
            f"{target} {fmt(float(lift.mean()), 2)} (lower bound {fmt(low, 2)}{'' if entry else ', 1 synthesis'})"
        )
    detail = ("DCAP among the GT records whose q the release contains minus baseCAPd (the target's marginal guess), "
              f"points, over {len(series(frame, 'iS'))} syntheses: " + "; ".join(parts))  # fmt: skip
    return Gate(key, "learns", passed and bool(parts), detail)


def gate_sd2011(run: ReproductionRun) -> Gate:
    """cart_synthpop on SD2011 carries key-target information beyond the targets' marginals."""
    return _learns(run, SD2011, "raab", sd2011.GATE)


def gate_adult(run: ReproductionRun) -> Gate:
    """cart_synthpop on AdultUCI (C0) carries key-target information beyond the targets' marginals."""
    return _learns(run, ADULT, "raab_c0", adult.GATE)


GATES = [gate_sd2011, gate_adult]


# ---------------------------------------------------------------------- setup and untestable claims
def check_setup(run: ReproductionRun) -> list[Check]:
    """The syntheses this run holds (read from the run, not from a profile)."""
    sd = measures(run, SD2011, CART)
    whole = len(series(sd[(sd["part"] == "all") & (sd["metric"] == "raab")], "DiSCO")) if len(sd) else 0
    train = len(series(sd[sd["part"] == "train"], "DiSCO")) if len(sd) else 0
    ad = measures(run, ADULT, CART)
    rows = int(pd.to_numeric(ad["n_train"]).max()) if len(ad) else 0
    return [
        within("setup-sd2011-syntheses", "SD2011: at least five CART syntheses on the whole table and five on the 80 % split",
               "Table 1: five syntheses; Table 3: Train/Ctrl from one", min(whole, train), 5, None, kind="setup", digits=0,
               reason=f"{whole} on the whole table, {train} on the training split"),
        within("setup-adult-rows", "AdultUCI: the CART releases are made from all 48,842 rows", "Table 2: the whole AdultUCI",
               rows, adult.ADULT_ROWS, None, kind="setup", digits=0,
               reason=f"{len(series(ad[ad['metric'] == 'raab_c0'], 'DiSCO')) if len(ad) else 0} synthes(es) of {rows:,} rows"),
    ]  # fmt: skip


def check_discussion(run: ReproductionRun) -> list[Check]:
    """§5-§6 statements this experiment does not measure."""
    return [
        not_evaluable("s5-anonymeter-identical", "Anonymeter's singling-out and inference risks are the same measures as repU and DCAP (computed by simulation)",
                      '"Their measures of singling out and inference appear to be identical to the measures RepU and DCAP described here"',
                      "the experiment runs no Anonymeter attack; testing it needs Anonymeter's singling-out and inference "
                      "evaluators on the same releases, keys and targets next to repU and DCAP"),
        not_evaluable("s6-leaf-size", "Limiting the number of records in CART's terminal nodes can improve (lower) the disclosure risk",
                      '"An adjustment of the CART method to limit the number of records in the terminal nodes of the tree can improve DR"',
                      "the experiment runs cart_synthpop at its default leaf size only; testing it needs a sweep of the "
                      "minimum leaf size with DiSCO per setting"),
    ]  # fmt: skip


CHECKS = [*sd2011.CHECKS, *adult.CHECKS, check_setup, check_discussion]


# ---------------------------------------------------------------------- referee notes
def referee_notes(run: ReproductionRun, checks: list[Check]) -> list[str]:
    """Plain words on what decides the verdicts: the CART port, the replication, the sample."""
    sd = measures(run, SD2011, CART)
    n_sd = (
        len(
            series(
                sd[(sd["part"] == "all") & (sd["metric"] == "raab") & (sd["target"] == "depress")], "DiSCO"
            )
        )
        if len(sd)
        else 0
    )
    ad = measures(run, ADULT, CART)
    c0 = ad[ad["metric"] == "raab_c0"] if len(ad) else ad
    n_ad = len(series(c0[c0["target"] == "income"], "DiSCO")) if len(c0) else 0
    notes = [
        "Every release is our `cart_synthpop`, a Python port of synthpop's sequential CART (sklearn trees, factors "
        "one-hot, no `ctree`, no `cont.na` special values), not R synthpop 1.8.1: a verdict on a release claim is a "
        "verdict on this port standing in for synthpop. The GT-only numbers (Table 2's orig columns, UiO 2.68 %, "
        "Dorig 53.3 %, CAPd 74 %, 3,459 q levels) are reproduced exactly and counted as sanity checks: they validate "
        "the data and the formulas, not a finding.",
        f"Replication: {n_sd} SD2011 syntheses per segment and {n_ad} AdultUCI syntheses; each claim's interval is a "
        "bootstrap over them (with 3 syntheses it spans roughly their range). The paper prints one synthesis, except "
        "Table 1 (five), so its own numbers carry no noise estimate.",
    ]  # fmt: skip
    moved = [c for c in checks if c.is_claim and c.verdict == "not reproduced"]
    if moved:
        notes.append(
            "Where the claims fail, our port keeps more of the GT's key-target structure than the paper's release "
            "(SD2011 UiS and iS, Table 3 R of workab; AdultUCI syn ≥ orig where one level dominates the disclosive "
            "records, C4 values above 1 %). What fails is the synthesis (our port against R synthpop's), not the "
            "measures, which the sanity checks validate; whether R synthpop's releases show the paper's values cannot "
            "be tested without R. Failing: " + ", ".join(c.id for c in moved) + "."
        )  # fmt: skip
    if adult._sample_reason(ad):
        notes.append("AdultUCI: " + adult._sample_reason(ad) + "; its Table 2 claims are not evaluable here.")
    notes.append(
        "Two-way (key-target) checks are not implemented by the metric (spec P10 has the one-way check only), so the "
        "two-way flags and the exclusion of marital's key-target pairs cannot be tested."
    )
    return notes


QUICK_MUST_PASS: set[str] = {
    "sd-income-grouped",
    "t1-DiSCO",
    "t1-DCAP",
    "t1-nesting",
    "fig1-disco-order",
    "fig2-dcap-order",
    "t3-train-above-ctrl-disco",
    "t3-train-above-ctrl-dcap",
    "t3-ctrl-largest-disco",
    "t3-ctrl-largest-dcap",
    "s5-workab-no-excluded",
    "t2-settings-nested",
}
"""Point estimates that hold in the quick profile too (two SD2011 syntheses; the AdultUCI release is
made from a 4,000-row sample there, so its Table 2 claims are not evaluable)."""
ALLOWED_STATUSES = {"skipped"}
"""raab_control (GT = control split) is skipped in the split-none trials: they have no control records."""

__all__ = [
    "ALLOWED_STATUSES",
    "CHECKS",
    "DATASETS_NOTE",
    "GATES",
    "QUICK_MUST_PASS",
    "artifacts",
    "referee_notes",
]
