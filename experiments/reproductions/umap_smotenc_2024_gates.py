"""R-UMAP adequacy gates: did each generator learn, and does a cut CTGAN/TVAE budget suffice?

Two gates (:mod:`harness.reproduction.adequacy`), evaluated before the checks:

* **learns** — per generator, budget and dataset (key ``umap_smotenc@adult``,
  ``sdv_tvae@epochs=300@loan``): the mean F1 over the six classifiers (the trade-off's
  utility) is above the constant predictor's beyond noise (bootstrap over the runs). The
  constant predictor's F1 comes from the dataset's class shares: always predicting the
  positive class scores 2p/(1 + p) (binary F1; the positive class is the last of the target's
  order, ``g`` for Magic), the best constant macro-F1 of a multiclass target is
  max 2p/(1 + p) / K. A comparison with a generator that failed it on a dataset leaves that
  dataset out (claims about the generator's own low utility excepted).
* **budget suffices** — per cut budget, dataset where the 300-epoch run exists and measure
  (keys ``sdv_ctgan@epochs=30@loan`` for the mean F1, ``sdv_ctgan@epochs=30@loan:nndr_mean``
  for each privacy distance): the measure at 300 epochs minus at the cut budget, paired by
  run, inside ±0.05 (the F1 band used for Table 4; spec §3.4's band for d₁ and the ratios).
  With fewer than two paired runs, or no 300-epoch run at all, the gate is *not evaluated*
  (``evaluated=False``: not passed, but not failed on evidence either). A cut budget stands in
  for the paper's in the trade-off only when every measure passes everywhere it was
  evaluated; for one privacy distance when that distance passes
  (:mod:`~.umap_smotenc_2024_budget`).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from experiments.reproductions.umap_smotenc_2024_budget import (
    BUDGET_GATE,
    PAPER_EPOCHS,
    PRIVACY_MEASURES,
    UTILITY_MEASURE,
    budget_key,
    cut_epochs,
    gate_key,
    row_epochs,
    with_results,
)
from experiments.reproductions.umap_smotenc_2024_paper import GENERATORS
from harness.reproduction import Gate, ReproductionRun, budget_gate, utility_gate
from harness.reproduction.adequacy import class_shares, trivial_score

UTILITY_VARIANT = UTILITY_MEASURE
POSITIVE: dict[str, str] = {"magic": "g"}
"""Positive class where the run reorders the target (the ``magic`` sweep: h -> 0, g -> 1)."""
F1_TOLERANCE = 0.05
NNDR_TOLERANCE = 0.05
PRIVACY_TOLERANCE = 0.05
"""±0.05 for each distance: spec §3.4's band for d₁ and the ratios."""
LEARNS = "learns"


@cache
def trivial_f1(dataset: str) -> float:
    """F1 of the best constant predictor on ``dataset`` (binary: the positive class; else macro)."""
    from harness.datasets import load_spec

    spec = load_spec(dataset)
    shares = class_shares(dataset)
    if len(shares) == 2:
        column = next((c for c in spec.columns if c.name == spec.target), None)
        order = list(getattr(column, "categories", None) or sorted(shares.index))
        positive = POSITIVE.get(dataset, order[-1])
        return trivial_score("f1", shares, positive=positive)
    return trivial_score("f1_macro", shares)


def learns_key(generator: str, epochs: float | None, dataset: str) -> str:
    """``umap_smotenc@adult``, ``sdv_tvae@epochs=300@loan``."""
    return f"{budget_key(generator, epochs)}@{dataset}"


def learns_gates(run: ReproductionRun) -> list[Gate]:
    """Mean F1 above the constant predictor's, per generator, budget and dataset."""
    if run.results.empty:
        return []
    rows = run.rows("ml_efficacy", UTILITY_VARIANT, generator=list(GENERATORS))
    rows = rows.assign(epochs=row_epochs(rows))
    gates = []
    for (generator, dataset), part in rows.groupby(["generator", "dataset"], sort=True):
        for epochs in sorted(set(part["epochs"].dropna())) or [None]:
            key = learns_key(str(generator), epochs, str(dataset))
            try:
                floor = trivial_f1(str(dataset))
            except Exception as exc:  # an unknown dataset: no constant predictor to compare with
                gates.append(Gate(key, LEARNS, False, f"no class shares for {dataset}: {exc}"))
                continue
            subset = part if epochs is None else part[np.isclose(part["epochs"], epochs)]
            view = with_results(run, run.results.loc[subset.index])
            gates.append(
                utility_gate(
                    view, str(generator), floor, variant=UTILITY_VARIANT, key=key, datasets=[str(dataset)],
                    label="mean F1 over the six classifiers above the constant predictor's",
                )
            )  # fmt: skip
    return gates


def budget_gates(run: ReproductionRun) -> list[Gate]:
    """A cut CTGAN/TVAE budget against its 300-epoch run, per dataset where both ran."""
    if run.results.empty:
        return []
    epochs = row_epochs(run.results)
    gates = []
    for name, low in cut_epochs(run).items():
        mine = run.results["generator"] == name
        paper = set(run.results.loc[mine & np.isclose(epochs, PAPER_EPOCHS), "dataset"].astype(str))
        key = budget_key(name, low)
        if not paper:
            gates.append(
                Gate(
                    key, BUDGET_GATE, False, f"not measured: no run at SDV's {PAPER_EPOCHS} epochs to compare with",
                    evaluated=False,
                )
            )  # fmt: skip
            continue
        for dataset in sorted(paper):
            view = with_results(run, run.results[run.results["dataset"] == dataset])
            measures = [("ml_efficacy", UTILITY_VARIANT, F1_TOLERANCE)]
            measures += [("dcr_nndr", v, PRIVACY_TOLERANCE) for v in PRIVACY_MEASURES]
            for metric, variant, tolerance in measures:
                gate = budget_gate(
                    view, name, param="epochs", low=low, high=PAPER_EPOCHS, metric=metric, variant=variant,
                    tolerance=tolerance, key=gate_key(name, low, dataset, variant),
                )  # fmt: skip
                gates.append(gate)
    return gates


def run_gates(run: ReproductionRun) -> list[Gate]:
    """The run's evaluated gates, or these gates evaluated now (a run built outside the runner)."""
    return list(run.gates) if run.gates else [*learns_gates(run), *budget_gates(run)]


def failed_learns(gates: list[Gate]) -> set[str]:
    """Keys of the failed ``learns`` gates."""
    return {g.key for g in gates if g.gate == LEARNS and not g.passed}


GATES = [learns_gates, budget_gates]

__all__ = [
    "F1_TOLERANCE",
    "GATES",
    "LEARNS",
    "NNDR_TOLERANCE",
    "POSITIVE",
    "PRIVACY_TOLERANCE",
    "budget_gates",
    "failed_learns",
    "learns_gates",
    "learns_key",
    "run_gates",
    "trivial_f1",
]
