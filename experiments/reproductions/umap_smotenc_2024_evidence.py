"""R-UMAP evidence: the per-(dataset, run) values every claim of §5 is judged on.

:func:`evidence_of` gathers, once per run, what the claims read: the adequacy gates
(:mod:`~.umap_smotenc_2024_gates`), the rows at adequate budgets
(:func:`~.umap_smotenc_2024_budget.budgets`), the 300-epoch runs the profile schedules
(:func:`~.umap_smotenc_2024_budget.scheduled`), and the trade-off score (U6, ``002_…`` Eq. 5).

The trade-off is min-max normalised over the generators compared in a (dataset, run), so a
score means something only with its generator set. Each claim therefore names a **fixed
set** (:data:`BASE`: GC, SMOTE-NC and UMAP-SMOTENC, run as published on every dataset, plus
the CTGAN/TVAE the claim is about, at SDV's 300 epochs; :data:`ALL`: the five) and is judged
on the (dataset, run)s that have every member (:func:`set_scores`): a (dataset, run) where
only some runs have TVAE at 300 epochs never mixes scores normalised over different sets.
``full=True`` puts the cut-budget CTGAN/TVAE rows back (all five in every (dataset, run)): the
sensitivity view of :mod:`~.umap_smotenc_2024_compare`.

:func:`values` returns one generator's score per (dataset, split seed, fold), leaving out the
datasets where that generator, at the budget used there, failed its ``learns`` gate;
:func:`privacy` the same for one privacy distance, from the rows whose budget gate for that
distance passed (:func:`~.umap_smotenc_2024_budget.privacy_frame`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from experiments.reproductions.umap_smotenc_2024_budget import (
    BUDGET_GENERATORS,
    PAPER_EPOCHS,
    UNIT,
    UTILITY_MEASURE,
    Budgets,
    budgets,
    cost_table,
    privacy_frame,
    scheduled,
)
from experiments.reproductions.umap_smotenc_2024_compare import MIN_DATASETS, by_unit
from experiments.reproductions.umap_smotenc_2024_gates import failed_learns, learns_key, run_gates
from experiments.reproductions.umap_smotenc_2024_paper import GENERATORS
from harness.errors import PrivbenchError
from harness.report.tradeoff import tradeoff_scores
from harness.reproduction import Gate, ReproductionRun

LABELS = GENERATORS
NAMES = {label: name for name, label in GENERATORS.items()}
GC, CTGAN, TVAE, SMOTE, UMAP = "sdv_gaussian_copula", "sdv_ctgan", "sdv_tvae", "smotenc", "umap_smotenc"
BASE: tuple[str, ...] = (GC, SMOTE, UMAP)
"""The generators run as published on every dataset: every trade-off claim's normalisation holds them."""
ALL: tuple[str, ...] = (GC, CTGAN, TVAE, SMOTE, UMAP)


def among(*generators: str) -> tuple[str, ...]:
    """The fixed normalisation set of a claim about ``generators``: :data:`BASE` plus them, in paper order."""
    wanted = set(BASE) | set(generators)
    return tuple(g for g in ALL if g in wanted)


def set_label(members: tuple[str, ...]) -> str:
    """``GC, SMOTE-NC, UMAP-SMOTENC + TVAE (300 epochs)`` for a set's text."""
    extra = [LABELS[g] for g in members if g not in BASE]
    text = ", ".join(LABELS[g] for g in BASE)
    return text + (f" + {' and '.join(extra)} ({PAPER_EPOCHS} epochs)" if extra else "")


@dataclass
class Evidence:
    """What the claims of one run read (see the module docstring)."""

    gates: list[Gate]
    budgets: Budgets
    failed: set[str]
    datasets: list[str] = field(default_factory=list)
    n_runs: int = 0
    planned: dict[str, dict[str, int]] = field(default_factory=dict)
    hours: dict[str, float] = field(default_factory=dict)
    sdv_version: str = ""
    _groups: dict[str, dict[tuple[str, str, str], pd.DataFrame]] = field(default_factory=dict, repr=False)
    _bad: dict[tuple[str, str], set[tuple[str, Any, Any]]] = field(default_factory=dict, repr=False)
    _cache: dict[tuple[Any, ...], Any] = field(default_factory=dict, repr=False)

    def frame(self, full: bool = False) -> pd.DataFrame:
        return self.budgets.full if full else self.budgets.rows

    def _frame(self, which: str) -> pd.DataFrame:
        if which == "full":
            return self.budgets.full
        if which.startswith("privacy:"):
            return privacy_frame(self.budgets, which.split(":", 1)[1])
        return self.budgets.rows

    def group(self, generator: str, metric: str, variant: str, which: str = "rows") -> pd.DataFrame:
        """The ok rows of one (generator, metric, variant) of a frame (``rows``, ``full``,
        ``privacy:<distance>``): unit columns, value, baseline, epochs."""
        if which not in self._groups:
            rows = self._frame(which)
            slim = rows.loc[
                rows["status"] == "ok",
                [*UNIT, "generator", "metric", "variant", "value", "baseline", "epochs"],
            ]
            slim = slim.assign(
                dataset=slim["dataset"].astype(str),
                value=pd.to_numeric(slim["value"], errors="coerce").astype(float),
                baseline=pd.to_numeric(slim["baseline"], errors="coerce").astype(float),
            )
            self._groups[which] = {
                (str(g), str(m), str(v)): part
                for (g, m, v), part in slim.groupby(["generator", "metric", "variant"])
            }
        empty = pd.DataFrame(columns=[*UNIT, "value", "baseline", "epochs"])
        return self._groups[which].get((generator, metric, variant), empty)

    def bad_units(self, generator: str, which: str = "rows") -> set[tuple[str, Any, Any]]:
        """(dataset, split seed, fold) where ``generator``, at the budget used, failed its learns gate."""
        key = (generator, which)
        if key not in self._bad:
            if which.startswith("privacy:"):  # the epochs of the privacy rows decide which gate applies
                rows = self.group(generator, "dcr_nndr", which.split(":", 1)[1], which)
            else:
                rows = self.group(generator, "ml_efficacy", UTILITY_MEASURE, which)
            self._bad[key] = {
                (str(d), s, f)
                for d, s, f, e in zip(rows["dataset"], rows["split_seed"], rows["fold"], rows["epochs"])
                if learns_key(generator, e, str(d)) in self.failed
            }
        return self._bad[key]

    def learns_keys(self, generator: str, which: str = "rows") -> list[str]:
        """The passed ``learns`` gate keys of the rows of ``generator`` a claim reads."""
        metric, variant = ("ml_efficacy", UTILITY_MEASURE)
        if which.startswith("privacy:"):
            metric, variant = "dcr_nndr", which.split(":", 1)[1]
        rows = self.group(generator, metric, variant, which)
        keys = {learns_key(generator, e, str(d)) for d, e in zip(rows["dataset"], rows["epochs"])}
        return sorted(k for k in keys if k not in self.failed)

    def left_out(self, generator: str) -> list[str]:
        """Datasets where ``generator`` failed its ``learns`` gate at the budget used."""
        return sorted({d for d, _, _ in self.bad_units(generator)})

    def paper_runs(self, generator: str) -> dict[str, int]:
        """Dataset -> runs of ``generator`` at SDV's 300 epochs (CTGAN, TVAE)."""
        rows = self.budgets.results
        rows = rows[(rows["generator"] == generator) & (rows["epochs"].round() == PAPER_EPOCHS)]
        return {
            str(d): int(len(p[["split_seed", "fold"]].drop_duplicates())) for d, p in rows.groupby("dataset")
        }

    def schedule(self, generator: str) -> dict[str, int]:
        """Dataset -> runs the profile plans for ``generator`` at 300 epochs (done or to do)."""
        return dict(self.planned.get(generator, {}))


_MEMO: dict[int, tuple[Any, Evidence]] = {}


def evidence_of(run: ReproductionRun) -> Evidence:
    """The run's :class:`Evidence` (computed once per results table and gates)."""
    gates = run_gates(run)
    stamp = (id(run.results), tuple((g.key, g.gate, g.passed) for g in gates))
    hit = _MEMO.get(id(run))
    if hit is not None and hit[0] == stamp:
        return hit[1]
    out = Evidence(gates=gates, budgets=budgets(run, gates), failed=failed_learns(gates))
    if len(run.results):
        ok = run.results[run.results["generator"].isin(list(GENERATORS))]
        out.datasets = sorted(set(ok["dataset"].astype(str)))
        out.n_runs = int(ok[["split_seed", "fold"]].drop_duplicates().shape[0])
        out.sdv_version = _version(ok, "sdv")
    out.planned = scheduled(run)
    table = cost_table(run)
    if not table.empty:
        out.hours = {str(g): float(p["trial h to do"].sum()) for g, p in table.groupby("generator")}
    _MEMO.clear()
    _MEMO[id(run)] = (stamp, out)
    return out


def _version(results: pd.DataFrame, package: str) -> str:
    """The version of ``package`` the run's rows record ('' when none does)."""
    if "versions" not in results:
        return ""
    for text in results["versions"].dropna().astype(str).unique()[:20]:
        try:
            found = json.loads(text).get(package)
        except (ValueError, AttributeError):
            continue
        if found:
            return str(found)
    return ""


def tradeoff(frame: pd.DataFrame) -> pd.DataFrame:
    """Trade-off score and rank per (dataset, run) and generator over the generators present."""
    columns = [*UNIT, "generator", "tradeoff", "rank", "n_compared"]
    if frame.empty or not (frame["metric"] == "dcr_nndr").any():
        return pd.DataFrame(columns=columns)
    try:
        scores = tradeoff_scores(
            frame.drop(columns=["epochs"], errors="ignore"), utility_metric="ml_efficacy",
            utility_variant=UTILITY_MEASURE, privacy_metric="dcr_nndr", treatment="label",
        )  # fmt: skip
    except (PrivbenchError, ValueError, KeyError):
        return pd.DataFrame(columns=columns)
    scores = scores[scores["generator"].isin(list(GENERATORS))]
    return scores.assign(dataset=scores["dataset"].astype(str))[columns].reset_index(drop=True)


def set_scores(ev: Evidence, members: tuple[str, ...], full: bool = False) -> pd.DataFrame:
    """Trade-off scores normalised over ``members`` only, on the (dataset, run)s that have all of them."""
    key = ("set", members, full)
    if key not in ev._cache:
        frame = ev.frame(full)
        scores = tradeoff(frame[frame["generator"].isin(list(members))])
        ev._cache[key] = scores[scores["n_compared"] == len(members)].reset_index(drop=True)
    out: pd.DataFrame = ev._cache[key]
    return out


def _drop_failed(ev: Evidence, series: pd.Series, generator: str, which: str) -> pd.Series:
    bad = ev.bad_units(generator, which)
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
    which = "full" if full else "rows"
    key = ("values", generator, metric, variant, column, gated, which)
    if key not in ev._cache:
        series = by_unit(ev.group(generator, metric, variant, which), column)
        ev._cache[key] = _drop_failed(ev, series, generator, which) if gated else series
    out: pd.Series = ev._cache[key]
    return out


def privacy(
    ev: Evidence, generator: str, variant: str, *, column: str = "value", gated: bool = True
) -> pd.Series:
    """One privacy distance per (dataset, run), from the rows whose budget gate for it passed."""
    which = f"privacy:{variant}"
    key = ("privacy", generator, variant, column, gated)
    if key not in ev._cache:
        series = by_unit(ev.group(generator, "dcr_nndr", variant, which), column)
        ev._cache[key] = _drop_failed(ev, series, generator, which) if gated else series
    out: pd.Series = ev._cache[key]
    return out


def score(
    ev: Evidence,
    generator: str,
    which: str = "tradeoff",
    *,
    members: tuple[str, ...] = ALL,
    gated: bool = True,
    full: bool = False,
) -> pd.Series:
    """Trade-off score (or its ``rank``) of ``generator`` per (dataset, run), normalised over ``members``."""
    key = ("score", generator, which, members, gated, full)
    if key not in ev._cache:
        scores = set_scores(ev, members, full)
        series = by_unit(scores[scores["generator"] == generator], which)
        ev._cache[key] = _drop_failed(ev, series, generator, "full" if full else "rows") if gated else series
    out: pd.Series = ev._cache[key]
    return out


def cost(ev: Evidence, generator: str, epochs: float | None = None) -> pd.Series:
    """Fit + sample seconds per (dataset, split seed, fold) of ``generator`` (at ``epochs``; any budget)."""
    return _seconds(ev, generator, epochs, ("fit_s", "sample_s"))


def fit_seconds(ev: Evidence, generator: str, epochs: float | None = None) -> pd.Series:
    """Fit seconds per (dataset, split seed, fold) of ``generator`` (at ``epochs``)."""
    return _seconds(ev, generator, epochs, ("fit_s",))


def _seconds(ev: Evidence, generator: str, epochs: float | None, columns: tuple[str, ...]) -> pd.Series:
    rows = ev.budgets.results
    rows = rows[rows["generator"] == generator]
    if epochs is not None:
        rows = rows[rows["epochs"].round() == round(epochs)]
    trials = rows.drop_duplicates("trial_key")
    total = sum(trials[c].astype(float) for c in columns)
    return by_unit(trials.assign(cost=total), "cost")


def _runs_text(runs: dict[str, int]) -> str:
    return ", ".join(f"{d} ({n} run{'s' if n != 1 else ''})" for d, n in sorted(runs.items())) or "no dataset"


def budget_scope(ev: Evidence, generator: str) -> str:
    """Where ``generator`` ran at the paper's budget, in a few words ('' when everywhere usable)."""
    b = ev.budgets
    if generator not in b.cut:
        return ""
    label = LABELS[generator]
    paper = ev.paper_runs(generator)
    missing = [d for d in ev.datasets if d not in paper]
    if not missing:
        return ""
    if b.cut_ok.get(generator):
        return f"{label} at {b.cut[generator]} epochs on {', '.join(missing)} (its budget gates passed)"
    if not paper:
        return f"{label} never at {PAPER_EPOCHS} epochs"
    return f"{label} at {PAPER_EPOCHS} epochs only on {_runs_text(paper)}"


def budget_why(ev: Evidence, generator: str) -> str:
    """Why ``generator``'s cut-budget rows are not used (its most informative failed budget gate)."""
    b = ev.budgets
    failed = [
        g for g in b.failed.get(generator, []) if g.evaluated and g.key.rsplit("@", 1)[-1].count(":") == 0
    ]
    failed = failed or [g for g in b.failed.get(generator, []) if g.evaluated]
    if generator not in b.cut or b.cut_ok.get(generator) or not failed:
        return ""
    gate = failed[0]
    detail = gate.detail.split(" over ")[0].replace("mean:f1", "mean F1").replace("nndr_mean", "NNDR")
    dataset = gate.key.rsplit("@", 1)[-1].split(":")[0]
    return f"its {b.cut[generator]}-epoch rows fail the budget gate ({dataset}: {detail})"


def not_run(ev: Evidence, generators: tuple[str, ...], hours: dict[str, float] | None = None) -> str:
    """The first clause of a claim that lacks paper-budget runs: not run, and whether resuming adds them.

    ``not run at the paper's budget, not scheduled: …`` when a generator lacks 300-epoch runs
    on enough datasets and the profile plans no more (a compute choice: ``hours`` of trial time
    to add them); ``not run yet at the paper's budget: …`` when the profile's sweeps plan enough.
    Empty when every generator has its rows.
    """
    short: list[tuple[str, dict[str, int], list[str]]] = []
    open_: list[tuple[str, dict[str, int], list[str]]] = []
    for generator in generators:
        if (
            generator not in BUDGET_GENERATORS
            or generator not in ev.budgets.cut
            or ev.budgets.cut_ok.get(generator)
        ):
            continue
        done = ev.paper_runs(generator)
        if all(d in done for d in ev.datasets):
            continue
        planned = [d for d in ev.schedule(generator) if d in ev.datasets]
        (short if len(planned) < MIN_DATASETS else open_).append((generator, done, planned))
    if short:
        names = " and ".join(LABELS[g] for g, _, _ in short)
        where = ", ".join(f"only on {_runs_text(done)}" if len(short) == 1 else f"{LABELS[g]} only on {_runs_text(done)}"
                          for g, done, _ in short)  # fmt: skip
        total_h = sum((hours or {}).get(g, 0.0) for g, _, _ in short)
        extra = f" (about {total_h:.1f} h of trial time on this machine)" if total_h else ""
        return (
            f"not run at the paper's budget and not scheduled: {names} ran SDV's {PAPER_EPOCHS} epochs {where}, was cut "
            f"to {ev.budgets.cut[short[0][0]]} epochs elsewhere to save compute, and no sweep of the profile runs it at "
            f"{PAPER_EPOCHS} epochs on more datasets{extra}"
        )
    if open_:
        parts = []
        for generator, done, planned in open_:
            todo = sorted(d for d in planned if done.get(d, 0) < ev.schedule(generator)[d])
            parts.append(f"{LABELS[generator]} ran SDV's {PAPER_EPOCHS} epochs so far on {_runs_text(done)}, and the "
                         f"profile's sweeps schedule {', '.join(todo)}")  # fmt: skip
        return f"not run yet at the paper's budget (resuming the run adds it): {' — '.join(parts)}"
    return ""


def learns_scope(ev: Evidence, generators: list[str], which: str = "rows") -> str:
    """Datasets left out because a generator failed its ``learns`` gate ('' when none)."""
    parts = []
    for g in generators:
        left = sorted({d for d, _, _ in ev.bad_units(g, which)})
        if left:
            parts.append(f"{LABELS[g]} on {', '.join(left)}")
    return ("left out, F1 below the constant predictor's: " + "; ".join(parts)) if parts else ""


__all__ = [
    "ALL",
    "BASE",
    "LABELS",
    "NAMES",
    "Evidence",
    "among",
    "budget_scope",
    "budget_why",
    "cost",
    "evidence_of",
    "fit_seconds",
    "learns_scope",
    "not_run",
    "privacy",
    "score",
    "set_label",
    "set_scores",
    "tradeoff",
    "values",
]
