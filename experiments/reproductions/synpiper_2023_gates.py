"""R-SYNPIPER adequacy gates and the measured training cost (``spec/reproductions.md`` §16).

Gates (evaluated before the checks; claims name the keys they rest on):

* **learns** — at *every* setting the run holds (PrivBayes at each nominal ε, CTGAN and TVAE at
  each budget), Random Forest and Logistic Regression trained on the release score a ROC AUC on
  the real test split above the trivial 0.5 beyond noise (the bootstrap over the 3 generator
  seeds). Keys: the generator for its headline release (PrivBayes at ε = 1, CTGAN / TVAE at their
  largest budget), ``<generator>@epsilon=<ε>`` / ``<generator>@epochs=<budget>`` for the others.
  F1 against the trivial F1 of always predicting ``>50K`` (2p/(1 + p), p the class share: 0.386
  on Adult) is a separate gate of each setting (key ``<key>:f1``): F1 depends on the classifier's
  threshold and the release's class balance. The claims rest on the headline CTGAN and TVAE keys
  only; no claim rests on PrivBayes (its ε checks are sanity checks), so its failed gates void
  nothing and are shown for the tables.
* **budget suffices** — CTGAN and TVAE at each budget below SDV's default 300 epochs score the same
  Quality score and RF ROC AUC as at 300 epochs, within ±0.02, paired by seed (key
  ``<generator>@epochs=<budget>``). Until the ``budget_ctgan_300`` / ``budget_tvae_300`` sweeps have
  run the gate is *not evaluated* ("no 300-epoch rows"): not passed, not failed.

There is no "responds to ε" gate: it would gate PrivBayes claims, and there are none (the
``privbayes-*-responds-to-epsilon`` sanity checks show the same evidence step by step).

:func:`cost_notes` turns the run's ``fit_s`` per epoch into the cost of SDV's default budget.
"""

from __future__ import annotations

import functools
import math

import pandas as pd

from experiments.reproductions.synpiper_2023_select import (
    BUDGET_SWEEPS,
    BUDGETED,
    CLASSIFIERS,
    CLF_LABELS,
    GENERATORS,
    LABELS,
    MAIN_EPSILON,
    SDV_DEFAULT_EPOCHS,
    budgets,
    epsilons,
    label_of,
    release_params,
)
from harness.reproduction import Gate, ReproductionRun, budget_gate, utility_gate
from harness.reproduction.adequacy import class_shares, trivial_score

BUDGET_TOLERANCE = 0.02
BUDGET_MEASURES = (("quality_score", ""), ("ml_efficacy", "random_forest:roc_auc"))


@functools.lru_cache(maxsize=4)
def _trivial_f1(dataset: str) -> float:
    """F1 of always predicting the minority class (``>50K`` on Adult) on the whole bundled table."""
    return trivial_score("f1", class_shares(dataset))


def _dataset(run: ReproductionRun) -> str | None:
    names = run.rows("ml_efficacy")["dataset"].dropna().astype(str).unique()
    return str(names[0]) if len(names) else None


def _merged(gates: list[Gate]) -> Gate:
    """One gate of one key from several (RF and LR): passes when every one passes, details joined;
    not evaluated when a part lacks its evidence."""
    return Gate(
        gates[0].key, gates[0].gate, all(g.passed for g in gates), " | ".join(g.detail for g in gates),
        evaluated=all(g.evaluated for g in gates),
    )  # fmt: skip


def settings(run: ReproductionRun, generator: str) -> list[tuple[str, dict[str, float]]]:
    """``(gate key, parameter filter)`` of every setting of ``generator`` in the run, headline first."""
    headline = release_params(run, generator)
    if generator == "privbayes":
        others = [{"epsilon": e} for e in epsilons(run) if not math.isclose(e, MAIN_EPSILON)]
        return [(generator, headline)] + [(f"{generator}@epsilon={p['epsilon']:g}", p) for p in others]
    if generator in BUDGETED:
        others = [{"epochs": b} for b in budgets(run, generator) if b != headline.get("epochs")]
        return [(generator, headline)] + [(f"{generator}@epochs={p['epochs']:g}", p) for p in others]
    return [(generator, headline)]


def learn_gates(run: ReproductionRun) -> list[Gate]:
    """At every setting: ROC AUC above 0.5 (key) and F1 above the constant predictor's (``<key>:f1``)."""
    dataset = _dataset(run)
    trivial_f1 = _trivial_f1(dataset) if dataset else math.nan
    out = []
    for g in GENERATORS:
        for key, params in settings(run, g):
            label = label_of(run, g, params)
            out.append(
                _merged(
                    [
                        utility_gate(
                            run,
                            g,
                            0.5,
                            metric="ml_efficacy",
                            variant=f"{clf}:roc_auc",
                            params=params,
                            key=key,
                            label=f"{label}: {CLF_LABELS[clf]} ROC AUC (TSTR) above the trivial 0.5",
                        )  # fmt: skip
                        for clf in CLASSIFIERS
                    ]
                )
            )
            if math.isfinite(trivial_f1):
                out.append(
                    _merged(
                        [
                            utility_gate(
                                run,
                                g,
                                trivial_f1,
                                metric="ml_efficacy",
                                variant=f"{clf}:f1",
                                params=params,
                                key=f"{key}:f1",
                                label=f"{label}: {CLF_LABELS[clf]} F1 (TSTR) above always predicting >50K",
                            )  # fmt: skip
                            for clf in CLASSIFIERS
                        ]
                    )
                )
    return out


def sdv_budget_gates(run: ReproductionRun) -> list[Gate]:
    """Each CTGAN/TVAE budget below 300 epochs against 300 epochs ("not evaluated" without 300-epoch rows)."""
    out, sweeps = [], {s.name for s in run.plan.sweeps}
    for g in BUDGETED:
        found = budgets(run, g)
        for low in [b for b in found if b < SDV_DEFAULT_EPOCHS]:
            key = f"{g}@epochs={low}"
            if SDV_DEFAULT_EPOCHS not in found:
                out.append(
                    Gate(
                        key,
                        "budget suffices",
                        False,
                        f"no {SDV_DEFAULT_EPOCHS}-epoch rows (SDV's default; sweep {BUDGET_SWEEPS[g]} "
                        + (
                            "not run yet)"
                            if BUDGET_SWEEPS[g] in sweeps
                            else f"is not in the {run.profile} profile)"
                        ),
                        evaluated=False,
                    )  # fmt: skip
                )
                continue
            out.append(
                _merged(
                    [
                        budget_gate(
                            run,
                            g,
                            param="epochs",
                            low=low,
                            high=SDV_DEFAULT_EPOCHS,
                            metric=metric,
                            variant=variant,
                            tolerance=BUDGET_TOLERANCE,
                            key=key,
                        )  # fmt: skip
                        for metric, variant in BUDGET_MEASURES
                    ]
                )
            )
    return out


GATES = [learn_gates, sdv_budget_gates]


# ---------------------------------------------------------------------- cost
def fit_seconds(run: ReproductionRun, generator: str) -> pd.DataFrame:
    """``fit_s`` (wall clock of the fit) by seed (rows) and epochs (columns) for one SDV generator."""
    rows = run.rows("quality_score", generator=generator)
    if rows.empty or "param.epochs" not in rows:
        return pd.DataFrame()
    rows = rows.assign(epochs=rows["param.epochs"].astype(int))
    return rows.pivot_table(index="gen_seed", columns="epochs", values="fit_s", aggfunc="mean")


def cost_notes(run: ReproductionRun) -> list[str]:
    """The measured fit cost per epoch and what SDV's default 300 epochs cost, per SDV generator."""
    parts = []
    for g in BUDGETED:
        table = fit_seconds(run, g)
        found = [int(c) for c in table.columns]
        if len(found) < 2 and SDV_DEFAULT_EPOCHS not in found:
            continue  # one cut budget: its fit time is mostly the fixed cost, no rate per epoch
        per_epoch = {e: (table[e] / e).dropna() for e in found}
        text = f"{LABELS[g]}: fit_s / epochs " + ", ".join(
            f"{_span(per_epoch[e], 1)} s at {e} epochs" for e in found if len(per_epoch[e])
        )
        if SDV_DEFAULT_EPOCHS in found:
            full = table[SDV_DEFAULT_EPOCHS].dropna()
            text += f"; measured at {SDV_DEFAULT_EPOCHS} epochs: {_span(full, 0)} s of fit per seed"
        else:
            low, high = found[0], found[-1]
            both = table[[low, high]].dropna()
            if len(both):
                slope = (both[high] - both[low]) / (high - low)
                fixed = both[low] - slope * low
                projected = fixed + slope * SDV_DEFAULT_EPOCHS
                text += (
                    f"; the marginal cost from {low} to {high} epochs is {_span(slope, 1)} s per epoch plus "
                    f"{_span(fixed, 0)} s fixed, so SDV's {SDV_DEFAULT_EPOCHS} epochs would take about "
                    f"{_span(projected, 0)} s of fit per seed ({_span(projected / 3600, 1)} h; at the larger "
                    f"fit_s / epochs of {high} epochs up to {per_epoch[high].max() * SDV_DEFAULT_EPOCHS:,.0f} s)"
                )
        parts.append(text)
    if not parts:
        return []
    return [
        "**Training cost measured in this run** (wall-clock fit_s of one trial, one thread, "
        f"{int(run.rows('quality_score')['n_train'].max()):,} training rows): " + "; ".join(parts) + "."
    ]


def _span(values: pd.Series, digits: int) -> str:
    """``13.5–18.9`` (one number when all are equal at ``digits``)."""
    low, high = f"{values.min():,.{digits}f}", f"{values.max():,.{digits}f}"
    return low if low == high else f"{low}–{high}"


__all__ = ["GATES", "cost_notes", "fit_seconds", "learn_gates", "sdv_budget_gates", "settings"]
