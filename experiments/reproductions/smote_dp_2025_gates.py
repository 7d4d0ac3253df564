"""R-SMOTEDP adequacy gates: does each generator learn, does ε enter PATE-GAN's computation? (issue 27)

**One "learns" rule for every generator, relative to TRTR.** A release learns when its RF
accuracy (TSTR, ``ml_efficacy`` preset ``stadler``) is above the majority-class share of the
dataset (the trivial predictor; the splits are stratified) beyond the test split's binomial noise
(95 % Wilson interval), *measured where the real data (TRTR: the same classifier trained on the
real training split, tested on the same test split) shows the test split can tell*; every gate's
text names TRTR and the share of TRTR's gain over the majority share the release recovers: when the real data's own
accuracy (TRTR, same split) does not clear the majority share beyond noise, no release can be
shown to learn there and the gate is *not evaluated* (German Credit: 200 test rows, real data
0.725 vs 0.700), unless the release is below the majority share beyond noise (then it fails). The
rule is applied to every generator on every dataset at the settings where DP noise cannot explain
a utility at the trivial rate: BayesianNet (no noise), PrivBayes at ε = 50 (its gate ``privbayes@<dataset>``
stands for PrivBayes at every ε: same implementation, same structure), SMOTE, SMOTE-PrivBayes
ε = 50, the NHS sanitiser, and PATE-GAN / SMOTE-PATE-GAN at every ε of the claims' budget (the
budget never binds there). At ε ≤ 1, where the budget binds, an accuracy at the trivial rate is
the cost of DP the claims measure (PrivBayes ε = 0.1 on Texas: 0.616 vs 0.618), not an
inadequacy of the implementation. Keys: ``<generator>@<dataset>``; PATE-GAN by budget
(``pategan@n_iter=3``, ``smote_pategan@n_iter=3``), as its claims read one budget.

**PATE-GAN** (``generators/smartnoise.py``) takes one generator step (Adam, lr 1e-4) per iteration
after 5 teacher and 5 student steps, and stops when the next student query would exceed ε: at
ε = 1 that happens after 16-19 iterations whatever the budget requested (sweep
``pategan_learning``: spent 1.00 at 30, 100, 300 and 1000 requested iterations), so the ε = 1 arm
can never train in this implementation; at ε = 50, 1,000 iterations (ε spent 8.2) reach RF
accuracy 0.595 on German Credit (majority 0.700). Its further gates: **responds to ε** (the
release changes between ε = 1 and ε = 50 and ε binds) and **budget suffices** (read at ε = 50,
where the budget does not stop training: the accuracy at the claims' budget equals that of the
longest run within ±0.02 *and* it learns at both).

PrivBayes also has a structural gate (``privbayes``): the Laplace scale its fits record changes
with ε. A claim resting on a failed or not evaluated gate is ``not evaluable``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from experiments.reproductions.smote_dp_2025_positions import (
    ACCURACY,
    COVERAGE,
    FIG_DATASETS,
    PG,
    accuracy,
    gate_key,
    main_budget,
    pategan_iterations,
    pategan_keys,
)
from harness.reproduction import Gate, ReproductionRun, epsilon_gate
from harness.reproduction import uncertainty as unc
from harness.reproduction.adequacy import class_shares, trivial_score
from harness.reproduction.checks import fmt

BUDGET_TOLERANCE = 0.02
# the gate of each position (its key's prefix) and the release that decides it
GATED: dict[str, tuple[str, str]] = {
    "1 BayesianNet": ("bayesiannet", "1 BayesianNet"),
    "2 PrivBayes ε=0.1": ("privbayes", "3 PrivBayes ε=50"),
    "3 PrivBayes ε=50": ("privbayes", "3 PrivBayes ε=50"),
    "PrivBayes ε=1": ("privbayes", "3 PrivBayes ε=50"),
    "6 SMOTE": ("smote", "6 SMOTE"),
    "7 SMOTE-PrivBayes ε=50": ("smote_privbayes", "7 SMOTE-PrivBayes ε=50"),
    "9 NHS sanitiser": ("sanitiser", "9 NHS sanitiser"),
}
PATEGAN_LABELS = ("4 PATE-GAN ε=1", "5 PATE-GAN ε=50", "PATE-GAN ε=0.1")


def majority_shares(run: ReproductionRun) -> dict[str, float]:
    """Majority-class share (the trivial accuracy) of every figure dataset the run holds."""
    present = set(run.results["dataset"].astype(str)) if len(run.results) else set()
    return {d: trivial_score("accuracy", class_shares(d)) for d in FIG_DATASETS if d in present}


def shares_text(dataset: str) -> str:
    """The class shares of a dataset's target in words (``good 0.700, bad 0.300``)."""
    return ", ".join(f"{k} {fmt(float(v))}" for k, v in class_shares(dataset).items())


# ---------------------------------------------------------------------- the one "learns" rule
@dataclass(frozen=True)
class Learns:
    """Outcome of the learns rule for one release: passed, evaluated and the numbers in words."""

    passed: bool
    evaluated: bool
    text: str


def learns(value: float, n_test: int, real: float, trivial: float) -> Learns:
    """Accuracy above ``trivial`` beyond the test split's noise, where the real data's (TRTR) is.

    The text always names the real data's accuracy on the same split and the share of its gain
    over the majority share the release recovers, (value − trivial)/(real − trivial).
    """
    entry = unc.wilson(round(value * n_test), n_test) if n_test else None
    low, high = (entry["low"], entry["high"]) if entry else (value, value)
    text = f"{fmt(value)} [{fmt(low)}, {fmt(high)}]"
    gain = real - trivial if math.isfinite(real) else math.nan
    relative = (f"; TRTR {fmt(real)}, so the release recovers {fmt(100 * (value - trivial) / gain, 0)} % of the real "
                "data's gain over the majority share" if math.isfinite(gain) and gain > 0 else
                f"; TRTR {fmt(real)}")  # fmt: skip
    if high < trivial:
        return Learns(False, True, f"{text} below the majority share {fmt(trivial)} beyond noise{relative}")
    if low > trivial:
        return Learns(True, True, f"{text} above the majority share {fmt(trivial)}{relative}")
    real_entry = unc.wilson(round(real * n_test), n_test) if n_test and math.isfinite(real) else None
    if real_entry is None or real_entry["low"] <= trivial:
        return Learns(False, False, f"this split cannot show any release learning: the real data's own (TRTR) "
                      f"{fmt(real)} (lower bound {fmt(real_entry['low'] if real_entry else math.nan)}) does not clear "
                      f"the majority share {fmt(trivial)} on {n_test} test rows either (this release {text})")  # fmt: skip
    return Learns(False, True, f"{text} at the majority share {fmt(trivial)} within noise, while the real "
                  f"data's (TRTR) {fmt(real)} clears it{relative}")  # fmt: skip


def stops(run: ReproductionRun) -> dict[str, int]:
    """Per dataset: the iterations PATE-GAN's ε = 1 fits ran when more were requested (its ε spent)."""
    curve = learning_curve(run)
    if curve.empty:
        return {}
    low = curve[(curve["epsilon"] < curve["epsilon"].max()) & (curve["iterations"] < curve["requested"])]
    return {FIG_DATASETS.get(str(d), str(d)): int(g["iterations"].max()) for d, g in low.groupby("dataset")}


def stops_text(run: ReproductionRun) -> str:
    """``16 (Employee) and 19 (German Credit)`` iterations, from the learning curve ('' without one)."""
    found = stops(run)
    return " and ".join(f"{v} ({k})" for k, v in sorted(found.items(), key=lambda kv: kv[1]))


def position_keys(run: ReproductionRun, label: str, dataset: str) -> tuple[str, ...]:
    """The gate keys a claim on ``label`` (a position) on ``dataset`` rests on."""
    if label in PATEGAN_LABELS:
        return pategan_keys(run)
    if label == "8 SMOTE-PATE-GAN ε=50":
        return pategan_keys(run, smote=True)
    name = GATED[label][0]
    return (("privbayes",) if "PrivBayes" in label else ()) + (f"{name}@{dataset}",)


def keys_of(run: ReproductionRun, labels: Sequence[str], dataset: str) -> tuple[str, ...]:
    """The union of :func:`position_keys` of ``labels`` on ``dataset`` (ordered, no repeats)."""
    out: list[str] = []
    for label in labels:
        out += [k for k in position_keys(run, label, dataset) if k not in out]
    return tuple(out)


def gate_utility(run: ReproductionRun) -> list[Gate]:
    """The learns rule for every non-PATE-GAN generator on every dataset it was run on."""
    shares = majority_shares(run)
    gates = []
    for label, (name, decider) in GATED.items():
        if label != decider:
            continue
        for dataset, trivial in shares.items():
            acc = accuracy(run, decider, dataset)
            if not acc.present:
                continue
            out = learns(acc.value, acc.n_test, acc.real, trivial)
            what = decider.split(" ", 1)[1] + (
                " (stands for PrivBayes at every ε)" if name == "privbayes" else ""
            )
            gates.append(Gate(f"{name}@{dataset}", "learns", out.passed, f"{what} on {FIG_DATASETS[dataset]}, RF "
                              f"accuracy [95 % Wilson over {acc.n_test} test rows]: {out.text} (class shares "
                              f"{shares_text(dataset)})", evaluated=out.evaluated))  # fmt: skip
    return gates


# ---------------------------------------------------------------------- PATE-GAN
def _iterations_run(row: pd.Series) -> float:
    """PATE-GAN iterations a fit actually ran (from its details; the requested budget if absent)."""
    details = json.loads(row["details"]) if isinstance(row.get("details"), str) and row["details"] else {}
    gen = details.get("generator") or {}
    if row["generator"] == "smote_dp":
        gen = (gen.get("g2") or {}).get("details") or {}
    return float(gen.get("iterations", pategan_iterations(row)))


def _learns(run: ReproductionRun, key: str, generator: str, base: dict[str, object] | None) -> list[Gate]:
    """The learns gate of PATE-GAN (or SMOTE-PATE-GAN) at the claims' budget, every dataset and ε."""
    shares = majority_shares(run)
    main = main_budget(run)
    rows = run.rows("ml_efficacy", ACCURACY, generator=generator, params=base)
    rows = rows[rows["dataset"].astype(str).isin(shares)] if len(rows) else rows
    if rows.empty or not math.isfinite(main):
        return []
    rows = rows[np.isclose(rows.apply(pategan_iterations, axis=1), main)]
    if rows.empty:
        return []
    parts, outcomes = [], []
    for dataset, group in rows.groupby("dataset"):
        cells = []
        for eps, cell in group.groupby("param.epsilon"):
            details = [json.loads(d) for d in cell["details"]]
            n_test = max(int(d.get("n_test") or 0) for d in details)
            real = float(np.mean([(d.get("trtr_scores") or {}).get("accuracy", math.nan) for d in details]))
            out = learns(float(cell["value"].astype(float).mean()), n_test, real, shares[str(dataset)])
            outcomes.append(out)
            cells.append((f"{float(eps):g}", out.text))
        texts = list(dict.fromkeys(text for _, text in cells))
        words = "; ".join(f"ε {', '.join(e for e, t in cells if t == text)}: {text}" for text in texts)
        parts.append(f"{FIG_DATASETS[str(dataset)]} {words}")
    passed = all(o.passed for o in outcomes)
    # not evaluated only when no cell failed on evidence and some could not be evaluated
    evaluated = any(o.evaluated and not o.passed for o in outcomes) or all(o.evaluated for o in outcomes)
    what = "SMOTE-PATE-GAN" if generator == "smote_dp" else "PATE-GAN"
    return [Gate(gate_key(key, main), "learns", passed, f"{what} at {int(main)} iterations, RF accuracy [95 % "
                 "Wilson over the test split]: " + "; ".join(parts), evaluated=evaluated)]  # fmt: skip


def gate_pategan_learns(run: ReproductionRun) -> list[Gate]:
    """PATE-GAN's releases at the claims' budget predict better than the majority class (every dataset, ε)."""
    return _learns(run, "pategan", "pategan", None)


def gate_smote_pategan_learns(run: ReproductionRun) -> list[Gate]:
    """SMOTE-PATE-GAN's releases at the claims' budget predict better than the majority class."""
    return _learns(run, "smote_pategan", "smote_dp", {"g2": "pategan"})


def _spent(
    run: ReproductionRun, generator: str, params: dict[str, object] | None
) -> dict[float, list[float]]:
    """Spent ε of the PATE-GAN fits per configured ε (the main fit of each trial)."""
    out: dict[float, list[float]] = {}
    rows = run.rows("fit_seconds", "", generator=generator, params=params)
    for eps, text in zip(rows["param.epsilon"], rows["details"]):
        details = json.loads(text).get("generator") or {} if isinstance(text, str) and text else {}
        if generator == "smote_dp":
            details = (details.get("g2") or {}).get("details") or {}
        if "epsilon_spent" in details:
            out.setdefault(float(eps), []).append(float(details["epsilon_spent"]))
    return out


def gate_pategan_epsilon(run: ReproductionRun) -> list[Gate]:
    """PATE-GAN's release at the claims' budget changes between its smallest and largest ε, and ε binds."""
    main = main_budget(run)
    if not math.isfinite(main):
        return []
    measures = [("ml_efficacy", ACCURACY), (PG, "all"), (COVERAGE, "")]
    gate = epsilon_gate(run, "pategan", measures, key="pategan", params={"n_iter": int(main)})
    spent = _spent(run, "pategan", {"n_iter": int(main)})
    binds = [eps for eps, values in spent.items() if max(values) >= 0.9 * eps]
    words = "; ".join(f"ε = {eps:g}: spent {fmt(max(v), 2)}" for eps, v in sorted(spent.items()))
    detail = f"{int(main)} iterations — {gate.detail}; budget used by the fits: {words}"
    if not binds:
        detail += " (ε never binds: every ε runs the same iterations with the same seed)"
    return [Gate(gate_key("pategan", main), gate.gate, gate.passed and bool(binds), detail)]


def learning_curve(run: ReproductionRun) -> pd.DataFrame:
    """PATE-GAN's accuracy per dataset, ε and budget: requested and run iterations, spent ε (every sweep)."""
    rows = run.rows("ml_efficacy", ACCURACY, generator="pategan")
    fits = run.rows("fit_seconds", "", generator="pategan")
    if rows.empty:
        return pd.DataFrame()
    spent = {}
    ran = {}
    for _, fit in fits.iterrows():
        details = json.loads(fit["details"]).get("generator") or {}
        spent[fit["trial_key"]] = float(details.get("epsilon_spent", math.nan))
        ran[fit["trial_key"]] = _iterations_run(fit)
    out = pd.DataFrame({
        "dataset": rows["dataset"].astype(str), "epsilon": rows["param.epsilon"].astype(float),
        "requested": rows.apply(pategan_iterations, axis=1), "iterations": rows["trial_key"].map(ran),
        "spent": rows["trial_key"].map(spent), "accuracy": rows["value"].astype(float),
    })  # fmt: skip
    return out.groupby(["dataset", "epsilon", "requested"], as_index=False).mean(numeric_only=True)


def gate_pategan_budget(run: ReproductionRun) -> list[Gate]:
    """At ε = 50 (budget not binding) the accuracy at the claims' budget equals the longest run's, learning at both."""
    main = main_budget(run)
    curve = learning_curve(run)
    if curve.empty or not math.isfinite(main):
        return []
    high_eps = float(curve["epsilon"].max())
    shares = majority_shares(run)
    parts, passed, seen = [], True, False
    for dataset, part in curve[np.isclose(curve["epsilon"], high_eps)].groupby("dataset"):
        at_main = part[np.isclose(part["requested"], main)]
        longest = part[part["iterations"] == part["iterations"].max()].iloc[-1]
        if at_main.empty or str(dataset) not in shares or longest["iterations"] <= main:
            continue
        seen = True
        a, b, trivial = float(at_main["accuracy"].iloc[0]), float(longest["accuracy"]), shares[str(dataset)]
        both = a > trivial and b > trivial
        passed &= both and abs(b - a) <= BUDGET_TOLERANCE
        curve_words = ", ".join(f"{fmt(r.accuracy)} at {int(r.iterations)}" for r in part.itertuples())
        parts.append(f"{FIG_DATASETS[str(dataset)]} at ε {high_eps:g}: {curve_words} iterations (ε spent "
                     f"{fmt(float(longest['spent']), 2)} at {int(longest['iterations'])}; majority share {fmt(trivial)})"
                     + ("" if both else ": it learns at neither budget"))  # fmt: skip
    if not seen:
        return [Gate(gate_key("pategan", main), "budget suffices", False, "no PATE-GAN run at a larger budget "
                     f"than {int(main)} iterations at ε {high_eps:g}", evaluated=False)]  # fmt: skip
    low = curve[curve["epsilon"] < high_eps]
    stops = sorted({int(v) for v, r in zip(low["iterations"], low["requested"]) if v < r})
    stopped = (f"; at ε {', '.join(f'{e:g}' for e in sorted(set(low['epsilon'])))} the fits stop after "
               f"{', '.join(map(str, stops))} iterations whatever the budget requested (its ε is spent), so that arm "
               "cannot train in this implementation") if stops else ""  # fmt: skip
    return [Gate(gate_key("pategan", main), "budget suffices", passed, f"within ±{BUDGET_TOLERANCE:g}: "
                 + "; ".join(parts) + stopped)]  # fmt: skip


def gate_privbayes_epsilon(run: ReproductionRun) -> list[Gate]:
    """PrivBayes' recorded Laplace scale changes with ε (ε enters every release; structural)."""
    rows = run.rows("fit_seconds", "", generator="privbayes")
    rows = rows[rows["dataset"].astype(str).isin(FIG_DATASETS)]
    if rows.empty:
        return []
    scales: dict[float, set[float]] = {}
    for eps, text in zip(rows["param.epsilon"], rows["details"]):
        details = (json.loads(text).get("generator") or {}) if isinstance(text, str) and text else {}
        if float(eps) > 0 and details.get("laplace_scale") is not None:
            scales.setdefault(float(eps), set()).add(round(float(details["laplace_scale"]), 6))
    distinct = len({s for v in scales.values() for s in v}) >= min(2, len(scales))
    words = ", ".join(
        f"ε = {eps:g}: {', '.join(fmt(s, 2) for s in sorted(v))}" for eps, v in sorted(scales.items())
    )
    return [Gate("privbayes", "responds to ε", bool(scales) and distinct,
                 f"Laplace scale of the conditionals recorded by the fits: {words or 'none'}")]  # fmt: skip


GATES = [
    gate_utility,
    gate_pategan_learns,
    gate_smote_pategan_learns,
    gate_pategan_epsilon,
    gate_pategan_budget,
    gate_privbayes_epsilon,
]


def gate_summary(run: ReproductionRun) -> pd.DataFrame:
    """PATE-GAN's accuracy per dataset, ε and budget (iterations run, ε spent) next to the class shares."""
    shares = majority_shares(run)
    out = []
    for generator, params, label in (
        ("pategan", None, "PATE-GAN"),
        ("smote_dp", {"g2": "pategan"}, "SMOTE-PATE-GAN"),
    ):
        rows = run.rows("ml_efficacy", ACCURACY, generator=generator, params=params)
        fits = run.rows("fit_seconds", "", generator=generator, params=params)
        fits = fits.drop_duplicates("trial_key").set_index("trial_key")
        for _, row in rows.iterrows():
            ran = _iterations_run(fits.loc[row["trial_key"]]) if row["trial_key"] in fits.index else math.nan
            out.append({"generator": label, "dataset": FIG_DATASETS.get(str(row["dataset"]), row["dataset"]),
                        "epsilon": float(row["param.epsilon"]), "iterations requested": pategan_iterations(row),
                        "iterations run": ran, "RF accuracy": float(row["value"]),
                        "majority share": shares.get(str(row["dataset"]), math.nan),
                        "class shares": shares_text(str(row["dataset"]))})  # fmt: skip
    frame = pd.DataFrame(out)
    if frame.empty:
        return frame
    for column in ("iterations requested", "iterations run"):
        frame[column] = frame[column].astype("Int64")
    return frame.sort_values(["generator", "dataset", "iterations requested", "epsilon"], ignore_index=True)


__all__ = [
    "GATED",
    "GATES",
    "Learns",
    "gate_summary",
    "keys_of",
    "learning_curve",
    "learns",
    "majority_shares",
    "position_keys",
    "shares_text",
    "stops",
    "stops_text",
]
