"""R-SMOTEDP Figs 4-7: the x-axis positions and the selections the checks read (``001_…`` §4.2).

The nine x-axis positions of the paper's Figs 4-7, reconstructed from the text
(``spec/reproductions.md`` §2.2, Decision), plus PrivBayes ε = 1 and PATE-GAN ε = 0.1; the rows of
a position (PATE-GAN positions at the run's main training budget, :func:`main_budget`), its mean
privacy gain over targets, per-target values, standard errors and RF accuracy. Used by
:mod:`experiments.reproductions.smote_dp_2025` (checks and artifacts). Departure: PATE-GAN's
training budget is matched, not fixed, because the protocol profile trains it with a reduced
iteration count and repeats one dataset at a second budget.
"""

from __future__ import annotations

import json
import math
from collections import Counter

import numpy as np
import pandas as pd

from harness.registry import read_config
from harness.reproduction import ReproductionRun
from harness.reproduction.checks import fmt

ACCURACY = "random_forest:accuracy"
COVERAGE = "category_coverage"

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
DP_POSITIONS = ("2 PrivBayes ε=0.1", "3 PrivBayes ε=50", "4 PATE-GAN ε=1", "5 PATE-GAN ε=50",
                "7 SMOTE-PrivBayes ε=50", "8 SMOTE-PATE-GAN ε=50")  # fmt: skip
NON_DP_POSITIONS = ("1 BayesianNet", "6 SMOTE", "9 NHS sanitiser")
PATEGAN_POSITIONS = ("4 PATE-GAN ε=1", "5 PATE-GAN ε=50", "8 SMOTE-PATE-GAN ε=50", "PATE-GAN ε=0.1")
FIG_DATASETS = {"texas": "Texas", "german_credit_kaggle": "German Credit", "employee": "Employee"}
BUDGET_DATASET = "german_credit_kaggle"  # the protocol's second PATE-GAN budget runs here
QUICK_SCOPE = "quick profile: Texas with PrivBayes, SMOTE and the sanitiser only and a 2-game attack"


def missing_reason(run: ReproductionRun, what: str) -> str:
    """Why ``what`` has no rows: the quick profile's scope, else failed or timed-out trials."""
    if run.quick:
        return f"{QUICK_SCOPE} ({what} runs in the protocol profile)"
    return f"no rows for {what}: its trials failed or timed out (run statuses {run.statuses()})"


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


def main_budget(run: ReproductionRun) -> float:
    """The PATE-GAN iteration count of most PATE-GAN trials (ties: the smaller); NaN without any."""
    rows = run.rows("fit_seconds", "", generator=["pategan", "smote_dp"])
    per_trial = rows.drop_duplicates("trial_key")
    counts = Counter(v for v in per_trial.apply(pategan_iterations, axis=1) if math.isfinite(v))
    if not counts:
        return math.nan
    return float(min(counts, key=lambda v: (-counts[v], v)))


def position_rows(
    run: ReproductionRun, label: str, metric: str, variant: str, dataset: str, budget: float | None = None
) -> pd.DataFrame:
    """Rows of a position; PATE-GAN positions at ``budget`` iterations (default :func:`main_budget`)."""
    generator, params = POSITIONS[label]
    rows = run.rows(metric, variant, generator=generator, dataset=dataset, params=params)
    if label not in PATEGAN_POSITIONS or rows.empty:
        return rows
    wanted = main_budget(run) if budget is None else budget
    if not math.isfinite(wanted):
        return rows
    return rows[rows.apply(pategan_iterations, axis=1) == wanted]


def mean_of(values: pd.Series) -> float:
    values = pd.Series(values, dtype=float).dropna()
    return float(values.mean()) if len(values) else math.nan


def mean_pg(run: ReproductionRun, label: str, dataset: str, group: str, budget: float | None = None) -> float:
    """Mean PG of a position over its targets of ``group`` (outliers / random / all) and seeds."""
    return mean_of(position_rows(run, label, "mia_privacy_gain", group, dataset, budget)["value"])


def targets_of(
    run: ReproductionRun, label: str, dataset: str, budget: float | None = None
) -> list[dict[str, float]]:
    out = []
    for details in position_rows(run, label, "mia_privacy_gain", "all", dataset, budget)["details"]:
        out.extend(json.loads(details).get("targets", {}).values())
    return out


def per_target_pg(
    run: ReproductionRun, label: str, dataset: str, group: str | None = None, budget: float | None = None
) -> list[float]:
    targets = targets_of(run, label, dataset, budget)
    return [float(t["pg_mean"]) for t in targets if group is None or t["group"] == group]


def pg_se(run: ReproductionRun, label: str, dataset: str, group: str) -> float:
    """Standard error of a group's mean PG from the per-target SDs over the games."""
    rows = position_rows(run, label, "mia_privacy_gain", "all", dataset)
    sds, games = [], []
    for details in rows["details"]:
        parsed = json.loads(details)
        for target in parsed.get("targets", {}).values():
            if group == "all" or target["group"] == group.rstrip("s"):
                sds.append(float(target["pg_sd"]))
        games.append(parsed.get("n_iter") or run_games(run))
    if not sds:
        return math.nan
    return float(math.sqrt(np.mean(np.square(sds)) / max(np.mean(games), 1) / len(sds)))


def run_games(run: ReproductionRun) -> int:
    """Evaluation games per target of the run's attack (``mia_privacy_gain`` metric parameters)."""
    rows = run.rows("mia_privacy_gain", "all")
    if rows.empty:
        return 0
    return int(json.loads(rows["metric_params"].iloc[0] or "{}").get("n_iter", 15))


def mean_accuracy(run: ReproductionRun, label: str, dataset: str) -> float:
    return mean_of(position_rows(run, label, "ml_efficacy", ACCURACY, dataset)["value"])


def nanmax(*values: float) -> float:
    """The largest finite value (NaN when none): PATE-GAN ε = 0.1 may be absent (infeasible at n = 1,000)."""
    finite = [v for v in values if math.isfinite(v)]
    return max(finite) if finite else math.nan


def variance(values: list[float]) -> float:
    return float(np.var(values, ddof=1)) if len(values) > 1 else math.nan


def noise_note(run: ReproductionRun, *labels: str, dataset: str = "texas", group: str = "outliers") -> str:
    parts = [f"{label[2:] if label[0].isdigit() else label} ±{fmt(pg_se(run, label, dataset, group), 2)}"
             for label in labels]  # fmt: skip
    return "PG standard errors over games and targets: " + ", ".join(parts)
