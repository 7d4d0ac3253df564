"""The long results table: one row per (trial, metric, variant).

Every table, statistic and figure of the report is a pure function of a DataFrame with
these columns (DESIGN.md "Core abstractions").
"""

from __future__ import annotations

from typing import Any

import pandas as pd

# column name -> pandas dtype
RESULT_COLUMNS: dict[str, str] = {
    "run_id": "string",
    "experiment": "string",
    "dataset": "string",
    "qi_set": "string",
    "split_seed": "Int64",
    "fold": "Int64",
    "generator": "string",
    "generator_params": "string",  # canonical JSON
    "gen_seed": "Int64",
    "metric": "string",
    "variant": "string",
    "metric_params": "string",  # canonical JSON
    "family": "string",
    "value": "float64",
    "ci_low": "float64",
    "ci_high": "float64",
    "baseline": "float64",
    "calib_raw": "float64",  # privacy metrics: the same metric on the raw training data (harness.calibration)
    "calib_none": "float64",  # ... and on new individuals (a sample of the control split)
    "goal": "string",
    "target_value": "float64",
    "status": "string",  # ok | error | timeout | oom | skipped
    "error": "string",
    "fit_s": "float64",
    "sample_s": "float64",
    "metric_s": "float64",
    "calib_s": "float64",  # privacy metrics: seconds this trial spent on calib_raw/calib_none (0: read from the cache)
    "peak_rss_mb": "float64",
    "n_train": "Int64",
    "n_synthetic": "Int64",
    "cache_hit": "boolean",
    "resumed": "boolean",
    "trial_key": "string",
    "details": "string",  # canonical JSON
    "versions": "string",  # canonical JSON
    "timestamp": "string",  # ISO 8601, UTC
}

STATUSES: tuple[str, ...] = ("ok", "error", "timeout", "oom", "skipped")

# Columns that identify a trial's configuration (used to group seeds/folds).
TRIAL_COLUMNS: tuple[str, ...] = (
    "experiment",
    "dataset",
    "qi_set",
    "split_seed",
    "fold",
    "generator",
    "generator_params",
    "gen_seed",
)


def empty_results() -> pd.DataFrame:
    """An empty results table with the schema's dtypes."""
    return pd.DataFrame({c: pd.Series(dtype=t) for c, t in RESULT_COLUMNS.items()})


def to_results_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """Build a results table from row dicts, filling absent columns and fixing dtypes.

    Raises
    ------
    ValueError
        If a row holds a key that is not in :data:`RESULT_COLUMNS` or a bad ``status``.
    """
    for row in rows:
        unknown = set(row) - set(RESULT_COLUMNS)
        if unknown:
            raise ValueError(f"result row has unknown column(s): {', '.join(sorted(unknown))}")
        if row.get("status") not in STATUSES:
            raise ValueError(f"result row status must be one of {STATUSES}; got {row.get('status')!r}")
    frame = pd.DataFrame(rows, columns=list(RESULT_COLUMNS))
    return conform_results(frame)


def conform_results(frame: pd.DataFrame) -> pd.DataFrame:
    """Return ``frame`` with exactly the schema's columns (missing ones empty) and dtypes."""
    columns: dict[str, pd.Series] = {}
    for col, dtype in RESULT_COLUMNS.items():
        series = frame[col] if col in frame.columns else pd.Series([None] * len(frame), index=frame.index)
        if dtype == "float64":
            columns[col] = pd.to_numeric(series, errors="coerce").astype("float64")
        else:
            columns[col] = series.astype(dtype)
    return pd.DataFrame(columns, index=frame.index).reset_index(drop=True)  # one frame, not 36 inserts
