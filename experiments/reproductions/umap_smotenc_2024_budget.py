"""R-UMAP: the SDV training budget of a run, and the check that the claims are stable to it.

The paper trains CTGAN and TVAE with SDV's defaults (300 epochs, ``002_…`` §4.3). A profile
that cannot afford that (the ``protocol`` profile: 2 CPU cores, about three hours) trains them
for fewer epochs in its main sweeps and adds a ``budget`` sweep: CTGAN and TVAE at the paper's
300 epochs on one dataset, for the same (seed, fold) runs as the main sweep there. This module

* tells the main rows from the budget rows (:func:`main_results`): a CTGAN/TVAE row belongs to
  the main tables when its ``epochs`` is the profile's (the ``generator_overrides.<name>.epochs``
  override of the plan; every row when the plan has none);
* rebuilds Tables 2-6 on the budget sweep's dataset and runs once per budget
  (:func:`budget_pairs`) and checks that the claim's ordering is the same under both
  (:func:`check_budget_stability`): UMAP-SMOTENC's trade-off score above CTGAN's and TVAE's
  (Tables 2-3) and, per classifier of the Table 4 ordering check, GC < max(CTGAN, TVAE) <
  UMAP-SMOTENC.

Departure: none from the paper (it has one budget); the check exists because our protocol
profile departs from the paper's budget.
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING

import pandas as pd

from experiments.reproductions.umap_smotenc_2024_paper import GENERATORS
from harness.reproduction import Check, ReproductionRun, trend
from harness.reproduction.checks import fmt

if TYPE_CHECKING:
    from experiments.reproductions.umap_smotenc_2024_tables import Tables

BUDGET_GENERATORS: tuple[str, ...] = ("sdv_ctgan", "sdv_tvae")
"""Generators whose training budget (``epochs``) a profile may shrink."""
PAPER_EPOCHS = 300
"""SDV's default, which the paper keeps (§4.3)."""
ORDER_CLASSIFIERS: tuple[str, ...] = ("DT", "RF", "XGB", "MLP")
GC, CTGAN, TVAE, SMOTE, UMAP = GENERATORS.values()


def plan_epochs(run: ReproductionRun) -> dict[str, int]:
    """``epochs`` of CTGAN and TVAE set by the profile's overrides (absent: the generator default)."""
    out: dict[str, int] = {}
    for override in run.plan.overrides:
        key, _, value = override.lstrip("+").partition("=")
        for name in BUDGET_GENERATORS:
            if key == f"generator_overrides.{name}.epochs":
                out[name] = int(value)
    return out


def _epochs(run: ReproductionRun) -> pd.Series:
    """The ``epochs`` generator parameter of every row (NaN where the generator has none)."""
    params = run.params()
    if "epochs" not in params:
        return pd.Series(math.nan, index=run.results.index)
    return pd.to_numeric(params["epochs"], errors="coerce")


def _other_budget(run: ReproductionRun) -> pd.Series:
    """Rows of CTGAN/TVAE trained with another budget than the profile's main one."""
    main = plan_epochs(run)
    epochs = _epochs(run)
    mask = pd.Series(False, index=run.results.index)
    for name, wanted in main.items():
        mask |= (run.results["generator"] == name) & (epochs != wanted)
    return mask


def with_results(run: ReproductionRun, results: pd.DataFrame) -> ReproductionRun:
    """A view of ``run`` on other rows (parameters re-parsed)."""
    return dataclasses.replace(run, results=results, _params=None)


def main_results(run: ReproductionRun) -> pd.DataFrame:
    """The rows of the main tables: every row but CTGAN/TVAE at a budget other than the profile's."""
    if run.results.empty:
        return run.results
    other = _other_budget(run)
    return run.results if not other.any() else run.results[~other]


def budget_pairs(run: ReproductionRun) -> dict[int, tuple[ReproductionRun, ReproductionRun]]:
    """Per alternative budget: (main-budget view, alternative-budget view) of the same runs.

    Both views hold the budget sweep's datasets and (seed, fold) runs only; the three other
    generators' rows are shared, CTGAN and TVAE come from the main or the alternative budget.
    """
    if run.results.empty:
        return {}
    other = _other_budget(run)
    if not other.any():
        return {}
    results, epochs = run.results, _epochs(run)
    out = {}
    for budget in sorted(int(b) for b in epochs[other].dropna().unique()):
        alt = results[other & (epochs == budget)]
        units = alt[["dataset", "split_seed", "fold"]].drop_duplicates()
        keyed = results.merge(units, on=["dataset", "split_seed", "fold"], how="left", indicator=True)
        same_units = pd.Series((keyed["_merge"] == "both").to_numpy(), index=results.index)
        shared = same_units & ~results["generator"].isin(BUDGET_GENERATORS)
        main = same_units & results["generator"].isin(BUDGET_GENERATORS) & ~other
        out[budget] = (
            with_results(run, results[shared | main]),
            with_results(run, results[shared | (other & (epochs == budget))]),
        )
    return out


def _orderings(t: Tables) -> dict[str, object]:
    """The claim's relations in one set of tables: trade-off means and the Table 4 chain per classifier."""
    tradeoff = {label: t.summary("tradeoff", label) for label in GENERATORS.values()}
    out: dict[str, object] = {
        "tradeoff": tradeoff,
        "umap_above_gans": bool(tradeoff[UMAP] > tradeoff[CTGAN] and tradeoff[UMAP] > tradeoff[TVAE]),
    }
    for clf in ORDER_CLASSIFIERS:
        f1 = {label: t.cell("utility", clf, label) for label in GENERATORS.values()}
        gan = max(f1[CTGAN], f1[TVAE])
        out[clf] = bool(f1[GC] < gan < f1[UMAP])
    return out


def check_budget_stability(run: ReproductionRun) -> list[Check]:
    """CTGAN/TVAE at the profile's budget and at another: the claim's ordering is the same.

    No check when the run has a single budget (the quick and paper profiles).
    """
    from experiments.reproductions.umap_smotenc_2024_tables import build_tables  # imports this module

    main = plan_epochs(run)
    out = []
    for budget, (main_view, alt_view) in budget_pairs(run).items():
        ours, theirs = _orderings(build_tables(main_view)), _orderings(build_tables(alt_view))
        keys = ["umap_above_gans", *ORDER_CLASSIFIERS]
        stable = all(ours[k] == theirs[k] for k in keys)
        datasets = ", ".join(sorted(alt_view.results["dataset"].unique()))
        n_runs = alt_view.results[["split_seed", "fold"]].drop_duplicates().shape[0]
        budgets = "/".join(str(e) for e in sorted(set(main.values())))

        def describe(o: dict[str, object], epochs: str) -> str:
            trade = o["tradeoff"]
            assert isinstance(trade, dict)
            ranked = " > ".join(f"{k} {fmt(v, 3)}" for k, v in sorted(trade.items(), key=lambda kv: -kv[1]))
            chain = ", ".join(f"{clf} {'holds' if o[clf] else 'broken'}" for clf in ORDER_CLASSIFIERS)
            return f"{epochs} epochs: trade-off {ranked}; GC < max(CTGAN, TVAE) < UMAP-SMOTENC: {chain}"

        changed = [k for k in keys if ours[k] != theirs[k]]
        out.append(
            trend(
                f"budget-stability-{budget}",
                f"CTGAN and TVAE trained {budgets} epochs (this profile) vs {budget} epochs on {datasets}: "
                "UMAP-SMOTENC above both in trade-off score and the Table 4 chain GC < max(CTGAN, TVAE) < "
                "UMAP-SMOTENC (DT, RF, XGB, MLP) come out the same under both budgets",
                f"SDV defaults: {PAPER_EPOCHS} epochs (§4.3); one budget only",
                describe(ours, budgets) + " | " + describe(theirs, str(budget)),
                stable,
                value={"main": {k: ours[k] for k in keys}, str(budget): {k: theirs[k] for k in keys}},
                expected="the same relations under both budgets",
                reason=(
                    f"{datasets}, {n_runs} (seed, fold) runs: the shrunk budget is the protocol profile's "
                    "departure, this sweep tests whether the paper's ordering depends on it"
                ),
                if_failed=f"the relations that change with the budget: {', '.join(changed)}",
                evidence=["tables/budget_stability.md"],
            )
        )
    return out


def budget_table(run: ReproductionRun) -> pd.DataFrame:
    """Per budget and generator: mean trade-off score and mean F1 per classifier on the budget runs."""
    from experiments.reproductions.umap_smotenc_2024_tables import build_tables

    main = "/".join(str(e) for e in sorted(set(plan_epochs(run).values())))
    rows = []
    for budget, (main_view, alt_view) in budget_pairs(run).items():
        for epochs, view in ((main, main_view), (str(budget), alt_view)):
            t = build_tables(view)
            for label in GENERATORS.values():
                row: dict[str, object] = {"CTGAN/TVAE epochs": epochs, "generator": label}
                row["trade-off"] = t.summary("tradeoff", label)
                row.update({f"F1 {clf}": t.cell("utility", clf, label) for clf in ORDER_CLASSIFIERS})
                rows.append(row)
    return pd.DataFrame(rows)


__all__ = [
    "BUDGET_GENERATORS",
    "PAPER_EPOCHS",
    "budget_pairs",
    "budget_table",
    "check_budget_stability",
    "main_results",
    "plan_epochs",
    "with_results",
]
