"""UMAP-SMOTENC and SMOTE-NC through the real CLI: one Adult trial each (1,500 rows, the
fast suite) with the generators' YAML defaults."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from harness.storage import read_parquet
from tests.conftest import Runner

SMALL = ["dataset=adult", "data.max_rows=1500", "suite=fast"]


def trial_rows(tmp_path: Path) -> pd.DataFrame:
    (run_dir,) = (p for p in (tmp_path / "results" / "default").iterdir() if p.is_dir())
    rows = read_parquet(run_dir / "rows.parquet")
    assert (rows["status"] == "ok").all(), rows.loc[rows["status"] != "ok", ["metric", "error"]]
    assert set(rows["metric"]) >= {"dcr_nndr", "ks_complement", "tv_complement", "fit_seconds"}
    assert (rows["n_synthetic"] == rows["n_train"]).all()  # one new record per training record
    return rows


def generator_details(rows: pd.DataFrame) -> dict:
    return json.loads(rows[rows["metric"] == "fit_seconds"].iloc[0]["details"])["generator"]


def test_umap_smotenc_trial_on_adult(privbench: Runner, tmp_path: Path) -> None:
    privbench("run", "generator=umap_smotenc", *SMALL)
    rows = trial_rows(tmp_path)
    details = generator_details(rows)
    assert sum(details["class_counts"].values()) == rows["n_train"].iloc[0]
    assert details["new_rows"] == details["class_counts"]
    assert details["umap"]["n_neighbors"] == 15 and details["umap"]["knn"] == "exact"
    assert details["sampler"] == "SMOTENC" and details["mode"] == "fixed"
    assert set(details["seconds"]) == {"umap_fit", "smote", "inverse_transform"}


def test_smotenc_trial_on_adult(privbench: Runner, tmp_path: Path) -> None:
    privbench("run", "generator=smotenc", "generator.knn=1", *SMALL)
    rows = trial_rows(tmp_path)
    details = generator_details(rows)
    assert details["mode"] == "full_synthetic" and details["knn"] == 1 and details["sampler"] == "SMOTENC"
    assert details["new_rows"] == details["class_counts"]
    assert json.loads(rows["generator_params"].iloc[0])["knn"] == 1


def test_class_too_small_for_k_is_a_skipped_trial(privbench: Runner, tmp_path: Path) -> None:
    privbench("run", "generator=umap_smotenc", "generator.smote_k=400", "dataset=adult", "data.max_rows=600")
    (run_dir,) = (p for p in (tmp_path / "results" / "default").iterdir() if p.is_dir())
    rows = read_parquet(run_dir / "rows.parquet")
    assert (rows["status"] == "skipped").all()
    assert rows["error"].str.startswith("infeasible: every class needs more than smote_k=400 rows").all()
