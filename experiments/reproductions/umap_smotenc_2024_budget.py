"""R-UMAP: the CTGAN/TVAE training budgets of a run, and which rows stand for the paper's.

The paper trains CTGAN and TVAE with SDV's defaults (300 epochs, ``002_…`` §4.3). A profile
that cannot afford that (``protocol``: 2 CPU cores) trains them for fewer epochs in its main
sweeps (the *cut* budget, the ``generator_overrides.<name>.epochs`` override of its plan) and
adds sweeps at 300 epochs on some datasets (``budget``: CTGAN and TVAE on Loan;
``budget_tvae*``: TVAE on the other five). Rows of the two budgets are never pooled:

* :func:`main_results` — the rows at the profile's budget: Tables 2-6 as the profile ran them
  (the artifacts, labelled with their budget);
* :func:`budgets` — the rows the claims read (:class:`Budgets`): per (dataset, run) a
  generator's 300-epoch rows where they exist; its cut-budget rows elsewhere only when the cut
  budget passed every budget gate (:mod:`~.umap_smotenc_2024_gates`: mean F1 and the three
  distances the same at both budgets within ±0.05 on every dataset where both ran; a gate
  without two paired runs is not evaluated and does not count). Otherwise that generator is
  absent there, and claims about it are judged on the datasets where it ran at 300 epochs.
  ``full`` also keeps the cut-budget rows: a trade-off claim whose verdict changes when they
  enter the normalisation rests on them (:mod:`~.umap_smotenc_2024_compare`);
  :func:`privacy_frame` — the rows of the privacy-only claims: per distance, a cut budget's
  rows also stand in where that distance's budget gate passed on every dataset measured
  (e.g. NNDR moves by −0.010 for CTGAN and −0.024 for TVAE between 30 and 300 epochs on Loan,
  while their F1 moves by +0.23 and +0.56);
* :func:`scheduled` — the 300-epoch runs the profile's sweeps plan (done or still to run), so a
  claim can say whether resuming the run decides it;
* :func:`cost_table` — what the missing 300-epoch runs would cost, measured from the
  committed rows (fit seconds per epoch, sample and metric seconds per trial).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from harness.reproduction import Gate, ReproductionRun

BUDGET_GENERATORS: tuple[str, ...] = ("sdv_ctgan", "sdv_tvae")
"""Generators whose training budget (``epochs``) a profile may cut."""
PAPER_EPOCHS = 300
"""SDV's default, which the paper keeps (§4.3)."""
UNIT: tuple[str, ...] = ("dataset", "split_seed", "fold")
"""One (dataset, run): the pairing unit of every comparison."""
BUDGET_GATE = "budget suffices"
UTILITY_MEASURE = "mean:f1"
"""The budget gate's utility measure (the trade-off's utility: mean F1 over the classifiers)."""
PRIVACY_MEASURES: tuple[str, ...] = ("dcr_mean", "nndr_mean", "ratio_1_10_mean")
"""The privacy distances of Table 6, each with its own budget gate."""


def plan_epochs(run: ReproductionRun) -> dict[str, int]:
    """``epochs`` of CTGAN and TVAE set by the profile's overrides (absent: SDV's 300)."""
    out: dict[str, int] = {}
    for override in run.plan.overrides:
        key, _, value = override.lstrip("+").partition("=")
        for name in BUDGET_GENERATORS:
            if key == f"generator_overrides.{name}.epochs":
                out[name] = int(value)
    return out


def cut_epochs(run: ReproductionRun) -> dict[str, int]:
    """The profile's budgets that are below the paper's (generator -> epochs)."""
    return {name: e for name, e in plan_epochs(run).items() if e != PAPER_EPOCHS}


def row_epochs(results: pd.DataFrame) -> pd.Series:
    """``epochs`` of every CTGAN/TVAE row (SDV's 300 when unset), NaN for the other generators."""
    import json

    def parse(text: object) -> float:
        try:
            value = json.loads(text).get("epochs") if isinstance(text, str) and text else None
        except (ValueError, AttributeError):
            value = None
        return float(value) if value is not None else float(PAPER_EPOCHS)

    epochs = results["generator_params"].map(parse).astype(float)
    return epochs.where(results["generator"].isin(BUDGET_GENERATORS), np.nan)


def budget_key(generator: str, epochs: float | None) -> str:
    """``sdv_tvae@epochs=30`` for CTGAN/TVAE, the generator name for the others."""
    if generator in BUDGET_GENERATORS and epochs is not None and not math.isnan(float(epochs)):
        return f"{generator}@epochs={int(epochs)}"
    return generator


def gate_key(generator: str, epochs: float, dataset: str, measure: str = UTILITY_MEASURE) -> str:
    """Key of one budget gate: ``sdv_tvae@epochs=30@loan`` (mean F1), ``…@loan:nndr_mean`` (a distance)."""
    base = f"{budget_key(generator, epochs)}@{dataset}"
    return base if measure == UTILITY_MEASURE else f"{base}:{measure}"


def gate_measure(key: str) -> str:
    """The measure a budget gate key tests (inverse of :func:`gate_key`)."""
    tail = key.rsplit("@", 1)[-1]
    return tail.split(":", 1)[1] if ":" in tail else UTILITY_MEASURE


def with_results(run: ReproductionRun, results: pd.DataFrame) -> ReproductionRun:
    """A view of ``run`` on other rows (parameters re-parsed)."""
    return dataclasses.replace(run, results=results, _params=None)


def main_results(run: ReproductionRun) -> pd.DataFrame:
    """The rows at the profile's budget: every row but CTGAN/TVAE trained with other epochs."""
    if run.results.empty:
        return run.results
    main = plan_epochs(run)
    epochs = row_epochs(run.results)
    other = pd.Series(False, index=run.results.index)
    for name, wanted in main.items():
        other |= (run.results["generator"] == name) & (epochs != wanted)
    return run.results if not other.any() else run.results[~other]


@dataclass
class Budgets:
    """The rows the claims read, one budget per (generator, dataset, run).

    Attributes
    ----------
    rows : DataFrame
        Adequate rows: every row of GC, SMOTE-NC and UMAP-SMOTENC; CTGAN/TVAE at 300 epochs,
        and at the cut budget where no 300-epoch row exists and the cut budget passed its gates.
        Column ``epochs`` as in :func:`row_epochs`.
    full : DataFrame
        ``rows`` plus the cut-budget rows that failed their gates (where no 300-epoch row exists).
    results : DataFrame
        Every row of the run, with ``epochs`` (costs read both budgets).
    cut : dict
        Generator -> the profile's cut epochs.
    cut_ok : dict
        Generator -> whether its cut budget passed every budget gate (and had one to pass).
    failed : dict
        Generator -> the failed budget gates of its cut budget.
    paper_datasets : dict
        Generator -> datasets with a 300-epoch run (CTGAN and TVAE).
    measure_ok : dict
        (generator, measure) -> whether the cut budget passed that measure's budget gate on every
        dataset where it was evaluated (and was evaluated somewhere); measures: mean F1 and the
        three privacy distances.
    measure_gates : dict
        (generator, measure) -> the evaluated budget gates of that measure.
    filled : dict
        Generator -> mask (over ``full``) of its cut-budget rows in (dataset, run)s without a
        300-epoch row.
    """

    rows: pd.DataFrame
    full: pd.DataFrame
    results: pd.DataFrame = field(default_factory=pd.DataFrame)
    cut: dict[str, int] = field(default_factory=dict)
    cut_ok: dict[str, bool] = field(default_factory=dict)
    failed: dict[str, list[Gate]] = field(default_factory=dict)
    paper_datasets: dict[str, list[str]] = field(default_factory=dict)
    measure_ok: dict[tuple[str, str], bool] = field(default_factory=dict)
    measure_gates: dict[tuple[str, str], list[Gate]] = field(default_factory=dict)
    filled: dict[str, pd.Series] = field(default_factory=dict)

    def failed_keys(self, generator: str) -> list[str]:
        return [g.key for g in self.failed.get(generator, [])]

    def stands_in(self, generator: str, measure: str) -> bool:
        """Whether ``generator``'s cut-budget rows stand in for ``measure`` where no 300-epoch row exists."""
        return generator in self.cut and bool(self.measure_ok.get((generator, measure)))


def budgets(run: ReproductionRun, gates: Sequence[Gate]) -> Budgets:
    """Choose each generator's rows per (dataset, run) (see the module docstring)."""
    results = run.results.copy()
    results["epochs"] = row_epochs(results) if len(results) else pd.Series(dtype=float)
    cut = cut_epochs(run)
    out = Budgets(rows=results, full=results, results=results, cut=cut)
    if results.empty:
        return out
    keep = pd.Series(True, index=results.index)
    keep_full = pd.Series(True, index=results.index)
    units = results[list(UNIT)].astype(str).agg("|".join, axis=1)
    for name in BUDGET_GENERATORS:
        mine = results["generator"] == name
        paper = mine & np.isclose(results["epochs"], PAPER_EPOCHS)
        out.paper_datasets[name] = sorted(set(results.loc[paper, "dataset"].astype(str)))
        if name not in cut:  # the profile trains it at the paper's budget
            keep &= ~mine | paper
            keep_full &= ~mine | paper
            continue
        low = mine & np.isclose(results["epochs"], cut[name])
        prefix = f"{budget_key(name, cut[name])}"
        own = [
            g for g in gates if g.gate == BUDGET_GATE and (g.key == prefix or g.key.startswith(prefix + "@"))
        ]
        for measure in (UTILITY_MEASURE, *PRIVACY_MEASURES):
            evaluated = [g for g in own if g.evaluated and gate_measure(g.key) == measure]
            out.measure_gates[(name, measure)] = evaluated
            out.measure_ok[(name, measure)] = bool(evaluated) and all(g.passed for g in evaluated)
        # the trade-off needs F1 and the privacy distances: the cut budget stands in only when all pass
        out.failed[name] = [g for g in own if not g.passed and g.evaluated] or [
            g for g in own if not g.passed
        ]
        out.cut_ok[name] = all(out.measure_ok[(name, m)] for m in (UTILITY_MEASURE, *PRIVACY_MEASURES))
        filled = low & ~units.isin(set(units[paper]))
        out.filled[name] = filled
        keep &= ~mine | paper | (filled if out.cut_ok[name] else False)
        keep_full &= ~mine | paper | filled
    out.rows = results[keep]
    out.full = results[keep_full]
    out.filled = {name: mask[keep_full.to_numpy()] for name, mask in out.filled.items()}
    return out


def privacy_frame(b: Budgets, measure: str) -> pd.DataFrame:
    """The rows a privacy-only claim reads for one distance (``measure``).

    ``b.rows``, plus each cut budget's rows in the (dataset, run)s without a 300-epoch row when
    that distance's budget gate passed on every dataset where it was evaluated: the distance
    then does not depend on the budget, even where F1 does. The ``learns`` gate of the budget
    used still applies (:mod:`~.umap_smotenc_2024_evidence`).
    """
    extra = [b.filled[g] for g in b.filled if not b.cut_ok.get(g) and b.stands_in(g, measure)]
    if not extra:
        return b.rows
    # full = rows + every generator's filled rows: keep what is not a filled row, or an admitted one
    any_filled = pd.concat(list(b.filled.values()), axis=1).any(axis=1)
    admitted = pd.concat(extra, axis=1).any(axis=1)
    return b.full[(~any_filled | admitted).to_numpy()]


def _values(text: str) -> list[str]:
    """Values of one sweep override (``a,b,c``; ``range(5)`` as 0..4)."""
    text = text.strip()
    if text.startswith("range(") and text.endswith(")"):
        args = [int(a) for a in text[6:-1].split(",") if a.strip()]
        return [str(v) for v in range(*args)]
    return [v.strip() for v in text.split(",") if v.strip()]


def scheduled(run: ReproductionRun) -> dict[str, dict[str, int]]:
    """Generator -> dataset -> runs the profile's sweeps plan at SDV's 300 epochs (CTGAN, TVAE).

    Read from the plan (every sweep's full override list), not from the rows: it counts what is
    done and what resuming the run would still add. A sweep without a ``dataset=`` override is
    left out (its datasets are not known from the plan alone).
    """
    out: dict[str, dict[str, int]] = {name: {} for name in BUDGET_GENERATORS}
    for sweep in run.plan.sweeps:
        settings: dict[str, str] = {}
        for override in run.plan.sweep_overrides(sweep):
            key, _, value = override.lstrip("+~").partition("=")
            settings[key] = value
        datasets = _values(settings.get("dataset", ""))
        runs = len(_values(settings.get("split_seed", "0"))) * len(_values(settings.get("fold", "0")))
        for name in _values(settings.get("generator", "")):
            if name not in out or not datasets:
                continue
            epochs = settings.get(f"generator_overrides.{name}.epochs")
            if epochs is None or int(float(epochs)) == PAPER_EPOCHS:
                for dataset in datasets:
                    out[name][dataset] = out[name].get(dataset, 0) + runs
    return out


def fit_model(rows: pd.DataFrame) -> tuple[float, float] | None:
    """Fit seconds = a + b·epochs from the trials of one generator and dataset at two budgets."""
    per_trial = rows.drop_duplicates("trial_key")
    grouped = per_trial.groupby("epochs")["fit_s"].mean()
    if len(grouped) < 2:
        return None
    x, y = grouped.index.to_numpy(float), grouped.to_numpy(float)
    b = float(np.polyfit(x, y, 1)[0])
    a = float(y.mean() - b * x.mean())
    return (max(a, 0.0), b) if b > 0 else None


def cost_table(run: ReproductionRun, runs: int | None = None) -> pd.DataFrame:
    """What a 300-epoch CTGAN/TVAE sweep would cost per dataset, from the committed rows.

    Per (generator, dataset): the cut-budget fit seconds per epoch, the projected 300-epoch fit
    (``a + 300·b`` fitted on the two budgets where both ran, else ``a`` of another dataset of
    the same generator plus 300 times the per-epoch cost above it, at most 10× the cut fit),
    sample seconds per trial, metric seconds per trial (the 300-epoch trials' where measured,
    else the median trial of the dataset), and the trial hours still to run for ``runs`` runs
    (default: the runs the dataset has at the cut budget). Seconds are the rows' wall-clock
    fit/sample/metric times on the run's machine (one trial per core).
    """
    results = run.results.copy()
    if results.empty:
        return pd.DataFrame()
    results["epochs"] = row_epochs(results)
    metric_s = results.groupby(["trial_key", "metric"])["metric_s"].first().groupby(level=0).sum()
    cut = cut_epochs(run)
    rows = []
    for name, low in cut.items():
        mine = results[results["generator"] == name]
        models = {ds: fit_model(part) for ds, part in mine.groupby("dataset")}
        overheads = [m[0] for m in models.values() if m is not None]
        overhead = float(np.median(overheads)) if overheads else 0.0
        for dataset, part in mine.groupby("dataset"):
            trials = part.drop_duplicates("trial_key")
            at_low = trials[np.isclose(trials["epochs"], low)]
            at_paper = trials[np.isclose(trials["epochs"], PAPER_EPOCHS)]
            if at_low.empty:
                continue
            fit_low = float(at_low["fit_s"].mean())
            model = models.get(dataset)
            if model is not None:
                projected, how = model[0] + PAPER_EPOCHS * model[1], "fitted on both budgets"
            else:
                per_epoch = max(fit_low - overhead, 0.0) / low
                projected = min(overhead + PAPER_EPOCHS * per_epoch, fit_low * PAPER_EPOCHS / low)
                how = f"{low}-epoch fit minus {overhead:.0f} s set-up, ×{PAPER_EPOCHS // low}"
            sample = float(at_low["sample_s"].mean())
            measured = (
                at_paper
                if len(at_paper)
                else results[results["dataset"] == dataset].drop_duplicates("trial_key")
            )
            metrics = float(metric_s.reindex(measured["trial_key"]).median())
            n_runs = (
                runs if runs is not None else int(at_low[["split_seed", "fold"]].drop_duplicates().shape[0])
            )
            done = int(at_paper[["split_seed", "fold"]].drop_duplicates().shape[0])
            todo = max(n_runs - done, 0)
            rows.append(
                {
                    "generator": name,
                    "dataset": str(dataset),
                    f"fit s/epoch ({low} epochs)": fit_low / low,
                    f"fit s ({PAPER_EPOCHS} epochs)": projected,
                    "projection": how,
                    f"measured fit s ({PAPER_EPOCHS} epochs)": float(at_paper["fit_s"].mean())
                    if len(at_paper)
                    else math.nan,
                    "sample s": sample,
                    "metric s": metrics,
                    "runs done": done,
                    "runs to do": todo,
                    "trial h to do": todo * (projected + sample + metrics) / 3600.0,
                }
            )
    return pd.DataFrame(rows)


__all__ = [
    "BUDGET_GATE",
    "BUDGET_GENERATORS",
    "PAPER_EPOCHS",
    "PRIVACY_MEASURES",
    "UNIT",
    "UTILITY_MEASURE",
    "Budgets",
    "budget_key",
    "budgets",
    "cost_table",
    "cut_epochs",
    "fit_model",
    "gate_key",
    "gate_measure",
    "main_results",
    "plan_epochs",
    "privacy_frame",
    "row_epochs",
    "scheduled",
    "with_results",
]
