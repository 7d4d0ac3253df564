"""R-TRINDADE facts of the shipped Credit Risk file (``spec/reproductions.md`` §8, step 1).

Deterministic functions of the vendored table (no trial needed), so they hold in every
profile: the complete-case count, the 80 % training split whose size is the paper's
"22.910 records", the outliers of the union z-score rule (``spec/metrics.md`` P9: |z| > 3 on
``person_age`` or ``person_income`` with the table's own mean and standard deviation,
ddof = 1) and where the paper's Table 5 record lies.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd

from experiments.reproductions.experiment_data import experiment_split, experiment_table
from harness.datasets import load_dataset, load_spec
from harness.spec import DatasetSpec
from metrics.privacy.outlier_linkage import PAPER_NUMERIC_QIS, OutlierLinkage

EXPERIMENT = "trindade_2024"
DATASET = "credit_risk"
Z = 3.0
#: Table 5's original record (004_… *Synthetic Data Outliers*, §4.2).
TABLE5_RECORD: dict[str, object] = {
    "person_age": 54,
    "person_income": 170000,
    "person_home_ownership": "MORTGAGE",
    "person_emp_length": 12.0,
    "loan_intent": "PERSONAL",
    "loan_grade": "A",
    "loan_amnt": 11000,
    "loan_int_rate": 6.62,
    "loan_status": "0",
    "loan_percent_income": 0.06,
    "cb_person_default_on_file": "N",
    "cb_person_cred_hist_length": 20,
}


@dataclass(frozen=True)
class OutlierCount:
    """Outliers of a table under the union rule: the total and per numeric QI."""

    total: int
    per_qi: dict[str, int]


@lru_cache(maxsize=1)
def complete_cases() -> tuple[DatasetSpec, pd.DataFrame, int]:
    """The spec, the complete-case table (the experiment's ``preprocess.drop_na_rows``) and the raw row count."""
    spec, frame = experiment_table(EXPERIMENT, DATASET)
    return spec, frame, len(load_dataset(load_spec(DATASET)).frame)


def training_positions(frame: pd.DataFrame, spec: DatasetSpec, split_seed: int = 0) -> np.ndarray:
    """Row positions of the experiment's training split (what a trial with ``split_seed`` uses)."""
    return experiment_split(EXPERIMENT, spec, frame, split_seed).train


def metric_outliers(frame: pd.DataFrame, spec: DatasetSpec) -> OutlierCount:
    """The outliers ``outlier_linkage`` (paper defaults) finds in ``frame`` taken as T."""
    out = OutlierLinkage().compute(frame, frame.iloc[:1], spec, seed=0)
    assert isinstance(out, dict)
    details = out["n_outliers"].details
    return OutlierCount(
        int(out["n_outliers"].value), {k: int(v) for k, v in details["n_outliers_per_qi"].items()}
    )


def outlier_mask(frame: pd.DataFrame) -> np.ndarray:
    """|z| > 3 on any of the paper's numeric QIs, with ``frame``'s mean and sd (ddof = 1).

    The same rule as ``outlier_linkage`` (a unit test checks they agree), vectorised for the
    split-spread computation of :func:`split_spread`.
    """
    values = frame[list(PAPER_NUMERIC_QIS)].to_numpy(dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):  # a constant column has no outlier
        z = np.abs(values - values.mean(axis=0)) / values.std(axis=0, ddof=1)
    return np.asarray((z > Z).any(axis=1))


def split_spread(frame: pd.DataFrame, size: int, draws: int = 200, seed: int = 0) -> np.ndarray:
    """Outlier counts of ``draws`` seeded random subsets of ``size`` rows of ``frame``.

    Which training rows (and so which of the extreme incomes that inflate σ) the paper's split
    held is unknown; this is the spread of the count over training sets of the same size
    (uniform subsets: the paper's split method is not stated).
    """
    values = frame[list(PAPER_NUMERIC_QIS)].to_numpy(dtype=np.float64)
    rng = np.random.default_rng(seed)
    counts = np.empty(draws, dtype=np.int64)
    for i in range(draws):
        sub = values[rng.choice(len(values), size=size, replace=False)]
        with np.errstate(invalid="ignore", divide="ignore"):
            z = np.abs(sub - sub.mean(axis=0)) / sub.std(axis=0, ddof=1)
        counts[i] = int((z > Z).any(axis=1).sum())
    return counts


def find_record(frame: pd.DataFrame, record: dict[str, object]) -> np.ndarray:
    """Positions of the rows of ``frame`` equal to ``record`` on every column (floats to 1e-9)."""
    hit = np.ones(len(frame), dtype=bool)
    for column, value in record.items():
        col = frame[column]
        if isinstance(value, float):
            hit &= np.isclose(col.to_numpy(dtype=np.float64, na_value=np.nan), value, rtol=0, atol=1e-9)
        else:
            hit &= (col.astype(str) == str(value)).to_numpy()
    return np.flatnonzero(hit)


def z_scores(frame: pd.DataFrame, row: int) -> dict[str, float]:
    """z-score of row ``row`` on each of the paper's numeric QIs (``frame``'s mean, sd ddof = 1)."""
    out = {}
    for column in PAPER_NUMERIC_QIS:
        values = frame[column].to_numpy(dtype=np.float64)
        sd = values.std(ddof=1)
        out[column] = float((values[row] - values.mean()) / sd) if sd > 0 else float("nan")
    return out
