"""R-SAFEPUB: the run as a trial table (one row per SafePub release) and the cell helpers.

Used by the checks (:mod:`experiments.reproductions.safepub_2024`,
:mod:`~experiments.reproductions.safepub_2024_claims`) and the regenerated Table 1 / Fig. 3
(:mod:`~experiments.reproductions.safepub_2024_artifacts`).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from experiments.reproductions.safepub_2024_paper import EPSILON_SEARCH_SHARE, TABLE_1, BetaKey, beta_label
from generators.kanon.safepub import beta_max
from harness.reproduction import ReproductionRun

GENERATOR = "safepub"
DATASET = "adult_complete"
RA_METRICS = {"marital": "relative_accuracy_marital", "income": "relative_accuracy_income"}
TARGETS = {"marital": "marital-status", "income": "income"}
DETAILS = ("beta", "beta_max", "k", "n_train", "n_sampled", "n_classes", "n_suppressed", "suppressed_share")
TABLE_EVIDENCE = {item.epsilon: f"tables/table{item.label}.md" for item in TABLE_1}
FIGURE = "figures/relative_accuracy.png"


def beta_key(value: object) -> BetaKey:
    """``"max"`` or the sampling rate rounded to 4 decimals."""
    return "max" if value == "max" else round(float(value), 4)  # type: ignore[arg-type]


def trials(run: ReproductionRun) -> pd.DataFrame:
    """One row per ok ``safepub`` trial: ε, β key, seed, the generator's Table 1 details, the two
    relative accuracies and the k-anonymity ``reid_score`` measured on the release."""
    fit = run.rows("fit_seconds", generator=GENERATOR)
    columns = ["epsilon", "beta_key", "gen_seed", *DETAILS, "ra_marital", "ra_income", "release_k"]
    if fit.empty:
        return pd.DataFrame(columns=columns)
    details = [json.loads(text).get("generator", {}) for text in fit["details"]]
    frame = pd.DataFrame([{key: d.get(key) for key in DETAILS} for d in details])
    frame.insert(0, "epsilon", fit["param.epsilon"].astype(float).to_numpy())
    frame.insert(1, "beta_key", [beta_key(v) for v in fit["param.beta"]])
    frame.insert(2, "gen_seed", fit["gen_seed"].astype(int).to_numpy())
    keys = fit["trial_key"].to_numpy()
    for name, metric in RA_METRICS.items():
        frame[f"ra_{name}"] = _by_trial(run, metric, "relative_accuracy", keys)
    frame["release_k"] = _by_trial(run, "reid_score", "k_anonymity", keys)
    return frame[columns]


def _by_trial(run: ReproductionRun, metric: str, variant: str, keys: np.ndarray) -> np.ndarray:
    rows = run.rows(metric, variant, generator=GENERATOR)
    values = rows.groupby("trial_key")["value"].mean()
    return pd.Series(keys).map(values).to_numpy(dtype=float)


def cell(frame: pd.DataFrame, epsilon: float, beta: BetaKey) -> pd.DataFrame:
    """The trials of one (ε, β) cell."""
    mask = np.isclose(frame["epsilon"].astype(float), epsilon) & frame["beta_key"].map(lambda b: b == beta)
    return frame[mask.to_numpy(dtype=bool)]


def eps_anon(epsilon: float) -> float:
    """ε_anon as the generator computes it (ε − share·ε)."""
    return epsilon - EPSILON_SEARCH_SHARE * epsilon


def rate(epsilon: float, beta: BetaKey) -> float:
    """The sampling rate of a β key (β_max of ε_anon for ``"max"``)."""
    return beta_max(eps_anon(epsilon)) if beta == "max" else float(beta)


def cell_id(epsilon: float, beta: BetaKey) -> str:
    return f"eps{epsilon:g}-beta{beta if beta == 'max' else f'{beta:g}'}"


def where(epsilon: float, beta: BetaKey) -> str:
    return f"ε = {epsilon:g}, β = {beta_label(beta, epsilon)}"


def quick_note(run: ReproductionRun) -> str:
    return "quick profile: " if run.quick else ""


__all__ = [
    "DATASET",
    "DETAILS",
    "FIGURE",
    "GENERATOR",
    "RA_METRICS",
    "TABLE_EVIDENCE",
    "TARGETS",
    "beta_key",
    "cell",
    "cell_id",
    "eps_anon",
    "quick_note",
    "rate",
    "trials",
    "where",
]
