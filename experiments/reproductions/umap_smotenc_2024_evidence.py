"""R-UMAP evidence: the per-(dataset, run) values every claim of §5 is judged on.

:func:`evidence_of` gathers, once per run, what the claims read: the adequacy gates
(:mod:`~.umap_smotenc_2024_gates`), the rows at adequate budgets
(:func:`~.umap_smotenc_2024_budget.budgets`), and the trade-off score (U6, ``002_…`` Eq. 5)
computed on those rows (``scores``) and on the rows with the inadequate cut-budget CTGAN/TVAE
put back (``full_scores``). The trade-off is min-max normalised over the generators compared
in a (dataset, run): where a generator has no adequate row it is left out of the
normalisation, and :mod:`~.umap_smotenc_2024_compare` reports whether a verdict depends on that.

:func:`values` returns one generator's score per (dataset, split seed, fold), leaving out the
datasets where that generator, at the budget used there, failed its ``learns`` gate.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from experiments.reproductions.umap_smotenc_2024_budget import (
    PAPER_EPOCHS,
    UNIT,
    Budgets,
    budgets,
)
from experiments.reproductions.umap_smotenc_2024_compare import by_unit
from experiments.reproductions.umap_smotenc_2024_gates import failed_learns, learns_key, run_gates
from experiments.reproductions.umap_smotenc_2024_paper import GENERATORS
from harness.errors import PrivbenchError
from harness.report.tradeoff import tradeoff_scores
from harness.reproduction import Gate, ReproductionRun

LABELS = GENERATORS
NAMES = {label: name for name, label in GENERATORS.items()}


@dataclass
class Evidence:
    """What the claims of one run read (see the module docstring)."""

    gates: list[Gate]
    budgets: Budgets
    failed: set[str]
    scores: pd.DataFrame
    full_scores: pd.DataFrame
    datasets: list[str] = field(default_factory=list)
    n_runs: int = 0
    _groups: dict[bool, dict[tuple[str, str, str], pd.DataFrame]] = field(default_factory=dict, repr=False)
    _bad: dict[tuple[str, bool], set[tuple[str, Any, Any]]] = field(default_factory=dict, repr=False)
    _cache: dict[tuple[Any, ...], pd.Series] = field(default_factory=dict, repr=False)

    def frame(self, full: bool = False) -> pd.DataFrame:
        return self.budgets.full if full else self.budgets.rows

    def group(self, generator: str, metric: str, variant: str, full: bool = False) -> pd.DataFrame:
        """The ok rows of one (generator, metric, variant): unit columns, value, baseline, epochs."""
        if full not in self._groups:
            rows = self.frame(full)
            slim = rows.loc[
                rows["status"] == "ok",
                [*UNIT, "generator", "metric", "variant", "value", "baseline", "epochs"],
            ]
            slim = slim.assign(
                dataset=slim["dataset"].astype(str),
                value=pd.to_numeric(slim["value"], errors="coerce").astype(float),
                baseline=pd.to_numeric(slim["baseline"], errors="coerce").astype(float),
            )
            self._groups[full] = {
                (str(g), str(m), str(v)): part
                for (g, m, v), part in slim.groupby(["generator", "metric", "variant"])
            }
        empty = pd.DataFrame(columns=[*UNIT, "value", "baseline", "epochs"])
        return self._groups[full].get((generator, metric, variant), empty)

    def bad_units(self, generator: str, full: bool = False) -> set[tuple[str, Any, Any]]:
        """(dataset, split seed, fold) where ``generator``, at the budget used, failed its learns gate."""
        key = (generator, full)
        if key not in self._bad:
            rows = self.group(generator, "ml_efficacy", "mean:f1", full)
            self._bad[key] = {
                (str(d), s, f)
                for d, s, f, e in zip(rows["dataset"], rows["split_seed"], rows["fold"], rows["epochs"])
                if learns_key(generator, e, str(d)) in self.failed
            }
        return self._bad[key]

    def learns_keys(self, generator: str, full: bool = False) -> list[str]:
        """The ``learns`` gate keys of the rows of ``generator`` a claim reads."""
        rows = self.group(generator, "ml_efficacy", "mean:f1", full)
        keys = {learns_key(generator, e, str(d)) for d, e in zip(rows["dataset"], rows["epochs"])}
        return sorted(k for k in keys if k not in self.failed)

    def left_out(self, generator: str) -> list[str]:
        """Datasets where ``generator`` failed its ``learns`` gate at the budget used."""
        return sorted({d for d, _, _ in self.bad_units(generator)})


_MEMO: dict[int, tuple[Any, Evidence]] = {}


def evidence_of(run: ReproductionRun) -> Evidence:
    """The run's :class:`Evidence` (computed once per results table and gates)."""
    gates = run_gates(run)
    stamp = (id(run.results), tuple((g.key, g.gate, g.passed) for g in gates))
    hit = _MEMO.get(id(run))
    if hit is not None and hit[0] == stamp:
        return hit[1]
    chosen = budgets(run, gates)
    out = Evidence(
        gates=gates,
        budgets=chosen,
        failed=failed_learns(gates),
        scores=tradeoff(chosen.rows),
        full_scores=tradeoff(chosen.full),
    )
    if len(run.results):
        ok = run.results[run.results["generator"].isin(list(GENERATORS))]
        out.datasets = sorted(set(ok["dataset"].astype(str)))
        out.n_runs = int(ok[["split_seed", "fold"]].drop_duplicates().shape[0])
    _MEMO.clear()
    _MEMO[id(run)] = (stamp, out)
    return out


def tradeoff(frame: pd.DataFrame) -> pd.DataFrame:
    """Trade-off score and rank per (dataset, run) and generator over the generators present."""
    columns = [*UNIT, "generator", "tradeoff", "rank", "n_compared"]
    if frame.empty or not (frame["metric"] == "dcr_nndr").any():
        return pd.DataFrame(columns=columns)
    try:
        scores = tradeoff_scores(
            frame.drop(columns=["epochs"], errors="ignore"), utility_metric="ml_efficacy",
            utility_variant="mean:f1", privacy_metric="dcr_nndr", treatment="label",
        )  # fmt: skip
    except (PrivbenchError, ValueError, KeyError):
        return pd.DataFrame(columns=columns)
    scores = scores[scores["generator"].isin(list(GENERATORS))]
    return scores.assign(dataset=scores["dataset"].astype(str))[columns].reset_index(drop=True)


def _drop_failed(ev: Evidence, series: pd.Series, generator: str, full: bool) -> pd.Series:
    bad = ev.bad_units(generator, full)
    if not bad or series.empty:
        return series
    return series[[key not in bad for key in series.index]]


def values(
    ev: Evidence,
    generator: str,
    metric: str,
    variant: str,
    *,
    column: str = "value",
    gated: bool = True,
    full: bool = False,
) -> pd.Series:
    """``generator``'s ``metric``/``variant`` (or its ``baseline``) per (dataset, split seed, fold)."""
    key = ("values", generator, metric, variant, column, gated, full)
    if key not in ev._cache:
        series = by_unit(ev.group(generator, metric, variant, full), column)
        ev._cache[key] = _drop_failed(ev, series, generator, full) if gated else series
    return ev._cache[key]


def score(
    ev: Evidence, generator: str, which: str = "tradeoff", *, gated: bool = True, full: bool = False
) -> pd.Series:
    """Trade-off score (or its ``rank``) of ``generator`` per (dataset, split seed, fold)."""
    key = ("score", generator, which, gated, full)
    if key not in ev._cache:
        scores = ev.full_scores if full else ev.scores
        series = by_unit(scores[scores["generator"] == generator], which)
        ev._cache[key] = _drop_failed(ev, series, generator, full) if gated else series
    return ev._cache[key]


def cost(ev: Evidence, generator: str, epochs: float | None = None) -> pd.Series:
    """Fit + sample seconds per (dataset, split seed, fold) of ``generator`` (at ``epochs``; any budget)."""
    rows = ev.frame(full=True)
    rows = rows[rows["generator"] == generator]
    if epochs is not None:
        rows = rows[rows["epochs"].round() == round(epochs)]
    trials = rows.drop_duplicates("trial_key")
    return by_unit(
        trials.assign(cost=trials["fit_s"].astype(float) + trials["sample_s"].astype(float)), "cost"
    )


def _runs(ev: Evidence, generator: str, dataset: str) -> int:
    rows = ev.budgets.rows
    rows = rows[(rows["generator"] == generator) & (rows["dataset"].astype(str) == dataset)
                & (rows["epochs"].round() == PAPER_EPOCHS)]  # fmt: skip
    return int(rows[["split_seed", "fold"]].drop_duplicates().shape[0])


def budget_scope(ev: Evidence, generator: str) -> str:
    """Where ``generator`` ran at the paper's budget, in a few words ('' when everywhere usable)."""
    b = ev.budgets
    if generator not in b.cut:
        return ""
    label = LABELS[generator]
    paper = b.paper_datasets.get(generator, [])
    missing = [d for d in ev.datasets if d not in paper]
    if not missing:
        return ""
    if b.cut_ok.get(generator):
        return f"{label} at {b.cut[generator]} epochs on {', '.join(missing)} (its budget gate passed)"
    if not paper:
        return f"{label} never at {PAPER_EPOCHS} epochs"
    runs = ", ".join(
        f"{d} ({_runs(ev, generator, d)} run{'s' if _runs(ev, generator, d) != 1 else ''})" for d in paper
    )
    return f"{label} at {PAPER_EPOCHS} epochs only on {runs}"


def budget_why(ev: Evidence, generator: str) -> str:
    """Why ``generator``'s cut-budget rows are not used (its most informative failed budget gate)."""
    b = ev.budgets
    failed = sorted(b.failed.get(generator, []), key=lambda g: g.detail.startswith(("fewer", "not measured")))
    if generator not in b.cut or b.cut_ok.get(generator) or not failed:
        return ""
    gate = failed[0]
    detail = gate.detail.split(" over ")[0].replace("mean:f1", "mean F1").replace("nndr_mean", "NNDR")
    dataset = gate.key.rsplit("@", 1)[-1]
    return f"its {b.cut[generator]}-epoch rows fail the budget gate ({dataset}: {detail})"


def learns_scope(ev: Evidence, generators: list[str]) -> str:
    """Datasets left out because a generator failed its ``learns`` gate ('' when none)."""
    parts = [f"{LABELS[g]} on {', '.join(ev.left_out(g))}" for g in generators if ev.left_out(g)]
    return ("left out, F1 below the constant predictor's: " + "; ".join(parts)) if parts else ""


__all__ = [
    "LABELS",
    "NAMES",
    "Evidence",
    "budget_scope",
    "budget_why",
    "cost",
    "evidence_of",
    "learns_scope",
    "score",
    "tradeoff",
    "values",
]
