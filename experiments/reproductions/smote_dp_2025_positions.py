"""R-SMOTEDP Figs 4-7: the x-axis positions and the selections the checks read (``001_…`` §4.2).

The nine x-axis positions of the paper's Figs 4-7, reconstructed from the text
(``spec/reproductions.md`` §2.2, Decision), plus PrivBayes ε = 1 and PATE-GAN ε = 0.1; the rows of
a position (PATE-GAN positions at the run's main training budget, :func:`main_budget`), its
per-target privacy gains (mean and SD over the attack's games, indexed by the target's row in
the attacker's population, so two generators attacked on the same targets pair up) and its RF
accuracy with the test-split size and the accuracy of the same classifier trained on the real
data. Used by the claim modules of :mod:`experiments.reproductions.smote_dp_2025`. Departure:
PATE-GAN's training budget is matched, not fixed, because the protocol profile trains it with a
reduced iteration count and repeats German Credit at a second budget.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import pandas as pd

from harness.registry import read_config
from harness.reproduction import ReproductionRun

T = TypeVar("T")
ACCURACY = "random_forest:accuracy"
COVERAGE = "category_coverage"
PG = "mia_privacy_gain"

# x-axis positions of Figs 4-7 (spec Decision) and the extra epsilons: label -> (generator, params)
POSITIONS: dict[str, tuple[str, dict[str, object]]] = {
    "1 BayesianNet": ("privbayes", {"epsilon": 0.0}),
    "2 PrivBayes ε=0.1": ("privbayes", {"epsilon": 0.1}),
    "3 PrivBayes ε=50": ("privbayes", {"epsilon": 50.0}),
    "4 PATE-GAN ε=1": ("pategan", {"epsilon": 1.0}),
    "5 PATE-GAN ε=50": ("pategan", {"epsilon": 50.0}),
    "6 SMOTE": ("smotenc", {}),
    "7 SMOTE-PrivBayes ε=50": ("smote_dp", {"g2": "privbayes", "epsilon": 50.0}),
    "8 SMOTE-PATE-GAN ε=50": ("smote_dp", {"g2": "pategan", "epsilon": 50.0}),
    "9 NHS sanitiser": ("nhs_sanitiser", {}),
    "PrivBayes ε=1": ("privbayes", {"epsilon": 1.0}),
    "PATE-GAN ε=0.1": ("pategan", {"epsilon": 0.1}),
}
PRIVBAYES_DP = ("2 PrivBayes ε=0.1", "3 PrivBayes ε=50", "7 SMOTE-PrivBayes ε=50")
PATEGAN_DP = ("4 PATE-GAN ε=1", "5 PATE-GAN ε=50", "8 SMOTE-PATE-GAN ε=50")
NON_DP_POSITIONS = ("1 BayesianNet", "6 SMOTE", "9 NHS sanitiser")
PATEGAN_POSITIONS = (*PATEGAN_DP, "PATE-GAN ε=0.1")
FIG_DATASETS = {"texas": "Texas", "german_credit_kaggle": "German Credit", "employee": "Employee"}
QUICK_SCOPE = "quick profile: Texas with PrivBayes, SMOTE and the sanitiser only and a 2-game attack"
_CACHE: dict[tuple[object, ...], tuple[ReproductionRun, object]] = {}


def cached(run: ReproductionRun, key: tuple[object, ...], compute: Callable[[], T]) -> T:
    """``compute()`` once per run object and ``key`` (the checks read the same selections many times)."""
    full = (id(run), len(run.results), *key)
    hit = _CACHE.get(full)
    if hit is None or hit[0] is not run:
        if len(_CACHE) > 4096:
            _CACHE.clear()
        hit = _CACHE[full] = (run, compute())
    return hit[1]  # type: ignore[return-value]


def short(label: str) -> str:
    """The label without its position number (``3 PrivBayes ε=50`` → ``PrivBayes ε=50``)."""
    return label.split(" ", 1)[1] if label[0].isdigit() else label


def missing_reason(run: ReproductionRun, what: str) -> str:
    """Why ``what`` has no rows: the quick profile's scope, else the protocol's scope or failed trials."""
    if run.quick:
        return f"{QUICK_SCOPE} ({what} runs in the protocol profile)"
    return f"no rows for {what} in this run (not in the profile's sweeps, or its trials failed: statuses {run.statuses()})"


# ---------------------------------------------------------------------- PATE-GAN budgets
def pategan_iterations(row: pd.Series) -> float:
    """PATE-GAN iterations of a row (PATE-GAN or SMOTE-PATE-GAN); NaN for other generators."""
    if row["generator"] == "pategan":
        return float(row.get("param.n_iter", math.nan))
    if row["generator"] == "smote_dp" and row.get("param.g2") == "pategan":
        g2 = row.get("param.g2_params")
        given = g2.get("n_iter") if isinstance(g2, dict) else None
        return float(given if given is not None else read_config("generator", "pategan")["n_iter"])
    return math.nan


def pategan_budgets(run: ReproductionRun) -> list[float]:
    """The PATE-GAN iteration counts of the run's PATE-GAN and SMOTE-PATE-GAN trials, ascending."""
    rows = run.rows("fit_seconds", "", generator=["pategan", "smote_dp"]).drop_duplicates("trial_key")
    return (
        sorted({v for v in rows.apply(pategan_iterations, axis=1) if math.isfinite(v)}) if len(rows) else []
    )


def main_budget(run: ReproductionRun) -> float:
    """The PATE-GAN iteration count of most attacked PATE-GAN trials (ties: the smaller); NaN without any."""
    return cached(run, ("main_budget",), lambda: _main_budget(run))


def _main_budget(run: ReproductionRun) -> float:
    rows = run.rows(PG, "all", generator=["pategan", "smote_dp"])
    per_trial = rows.drop_duplicates("trial_key")
    counts = Counter(v for v in per_trial.apply(pategan_iterations, axis=1) if math.isfinite(v))
    if not counts:
        return math.nan
    return float(min(counts, key=lambda v: (-counts[v], v)))


def gate_key(name: str, budget: float) -> str:
    """The adequacy-gate key of a PATE-GAN-based generator at ``budget`` iterations (``pategan@n_iter=3``)."""
    return f"{name}@n_iter={int(budget)}" if math.isfinite(budget) else name


def pategan_keys(run: ReproductionRun, *, smote: bool = False) -> tuple[str, ...]:
    """The gates a claim on the PATE-GAN positions rests on (at the budget the claims read)."""
    budget = main_budget(run)
    keys = [gate_key("pategan", budget)] + ([gate_key("smote_pategan", budget)] if smote else [])
    return tuple(keys)


def position_rows(
    run: ReproductionRun, label: str, metric: str, variant: str, dataset: str, budget: float | None = None
) -> pd.DataFrame:
    """Rows of a position; PATE-GAN positions at ``budget`` iterations (default :func:`main_budget`)."""
    return cached(run, ("rows", label, metric, variant, dataset, budget),
                  lambda: _position_rows(run, label, metric, variant, dataset, budget))  # fmt: skip


def _position_rows(
    run: ReproductionRun, label: str, metric: str, variant: str, dataset: str, budget: float | None
) -> pd.DataFrame:
    generator, params = POSITIONS[label]
    rows = run.rows(metric, variant, generator=generator, dataset=dataset, params=params)
    if label not in PATEGAN_POSITIONS or rows.empty:
        return rows
    wanted = main_budget(run) if budget is None else budget
    if not math.isfinite(wanted):
        return rows
    return rows[rows.apply(pategan_iterations, axis=1) == wanted]


def has_rows(run: ReproductionRun, label: str, dataset: str) -> bool:
    """Whether the position was attacked on ``dataset`` in this run."""
    return not position_rows(run, label, PG, "all", dataset).empty


# ---------------------------------------------------------------------- privacy gain per target
def targets(
    run: ReproductionRun, label: str, dataset: str, group: str = "all", budget: float | None = None
) -> pd.DataFrame:
    """Per target of ``group`` (``outliers``, ``random`` or ``all``): PG mean and SD over the games.

    Indexed by the target's row in the attacker's population (the same targets under every
    generator of a dataset attacked with the same target counts); columns ``pg``, ``sd``,
    ``games``. Several trials of one position (generator seeds) are averaged per target.
    """
    records = []
    rows = position_rows(run, label, PG, "all", dataset, budget)
    for text, params in zip(rows["details"], rows["metric_params"]):
        details = json.loads(text) if isinstance(text, str) and text else {}
        games = int(json.loads(params or "{}").get("n_iter", 15))
        for target, entry in (details.get("targets") or {}).items():
            if group == "all" or entry["group"] == group.rstrip("s"):
                records.append({"target": str(target), "pg": float(entry["pg_mean"]),
                                "sd": float(entry["pg_sd"]), "games": games})  # fmt: skip
    if not records:
        return pd.DataFrame(columns=["pg", "sd", "games"], dtype=float)
    frame = pd.DataFrame(records).groupby("target")[["pg", "sd", "games"]].mean()
    return frame.sort_index()


def mean_pg(run: ReproductionRun, label: str, dataset: str, group: str, budget: float | None = None) -> float:
    """Mean PG of a position over its targets of ``group`` (NaN when it was not attacked there)."""
    frame = targets(run, label, dataset, group, budget)
    return float(frame["pg"].mean()) if len(frame) else math.nan


def per_target_pg(
    run: ReproductionRun, label: str, dataset: str, group: str | None = None, budget: float | None = None
) -> list[float]:
    """The per-target PG means of a position (all targets when ``group`` is None)."""
    return [float(v) for v in targets(run, label, dataset, group or "all", budget)["pg"]]


# ---------------------------------------------------------------------- accuracy
@dataclass(frozen=True)
class Accuracy:
    """RF accuracy of a release (TSTR) on the test split, and the real data's (TRTR) on the same split."""

    value: float
    n_test: int
    real: float

    @property
    def present(self) -> bool:
        return math.isfinite(self.value) and self.n_test > 0


def accuracy(run: ReproductionRun, label: str, dataset: str, budget: float | None = None) -> Accuracy:
    """Mean TSTR accuracy of a position, its test-split size and the TRTR accuracy (NaN when absent)."""
    rows = position_rows(run, label, "ml_efficacy", ACCURACY, dataset, budget)
    if rows.empty:
        return Accuracy(math.nan, 0, math.nan)
    details = [json.loads(t) if isinstance(t, str) and t else {} for t in rows["details"]]
    n_test = int(min(int(d.get("n_test") or 0) for d in details))
    real = [float((d.get("trtr_scores") or {}).get("accuracy", math.nan)) for d in details]
    return Accuracy(float(rows["value"].astype(float).mean()), n_test, float(pd.Series(real).mean()))


def mean_of(values: pd.Series) -> float:
    values = pd.Series(values, dtype=float).dropna()
    return float(values.mean()) if len(values) else math.nan


__all__ = [
    "ACCURACY",
    "COVERAGE",
    "FIG_DATASETS",
    "NON_DP_POSITIONS",
    "PATEGAN_DP",
    "PATEGAN_POSITIONS",
    "PG",
    "POSITIONS",
    "PRIVBAYES_DP",
    "QUICK_SCOPE",
    "Accuracy",
    "accuracy",
    "cached",
    "gate_key",
    "has_rows",
    "main_budget",
    "mean_of",
    "mean_pg",
    "missing_reason",
    "pategan_budgets",
    "pategan_iterations",
    "pategan_keys",
    "per_target_pg",
    "position_rows",
    "short",
    "targets",
]
