"""RUS / SMOTE through the real CLI: one SMOTE trial on numeric-only MAGIC (1,500 rows, the
fast suite), and SMOTE on Adult (categorical columns) recorded as an infeasible skip."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from harness.storage import read_parquet
from tests.conftest import Runner


def run_rows(tmp_path: Path) -> pd.DataFrame:
    (run_dir,) = (p for p in (tmp_path / "results" / "default").iterdir() if p.is_dir())
    return read_parquet(run_dir / "rows.parquet")


def test_smote_trial_on_magic(privbench: Runner, tmp_path: Path) -> None:
    privbench("run", "generator=smote", "dataset=magic", "data.max_rows=1500", "suite=fast")
    rows = run_rows(tmp_path)
    assert (rows["status"] == "ok").all(), rows.loc[rows["status"] != "ok", ["metric", "error"]]
    details = json.loads(rows[rows["metric"] == "fit_seconds"].iloc[0]["details"])["generator"]
    assert details["sampler"] == "SMOTE" and details["knn"] == 5
    counts = details["class_counts"]
    assert sum(details["new_rows"].values()) == max(counts.values()) - min(counts.values())
    assert (rows["n_synthetic"] == rows["n_train"] + sum(details["new_rows"].values())).all()


def test_smote_on_adult_is_skipped_as_infeasible(privbench: Runner, tmp_path: Path) -> None:
    privbench("run", "generator=smote", "dataset=adult", "data.max_rows=600", "suite=fast")
    rows = run_rows(tmp_path)
    assert (rows["status"] == "skipped").all()
    assert rows["error"].str.startswith("infeasible: smote interpolates numeric columns only").all()
