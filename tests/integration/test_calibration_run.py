"""Calibration in a real sweep: every privacy row carries its metric's raw-data and no-leakage values,
computed once per block, and the report shows them next to the generators."""

from __future__ import annotations

from pathlib import Path

from harness.collect import collect
from tests.conftest import Runner
from tests.integration.test_runs import run_dirs

SMALL = ["data.max_rows=600", "suite=fast"]


def test_privacy_rows_carry_their_calibration(privbench: Runner, tmp_path: Path) -> None:
    privbench("run", "-m", "generator=independent_marginals,uniform", "gen_seed=0,1", *SMALL)
    (run_dir,) = run_dirs(tmp_path)
    rows = collect([run_dir])
    privacy = rows[(rows["family"] == "privacy") & (rows["status"] == "ok")]
    assert len(privacy) and privacy["calib_raw"].notna().all() and privacy["calib_none"].notna().all()
    # the references depend on the block only: equal across generators and gen_seeds
    per_output = privacy.groupby("variant")[["calib_raw", "calib_none"]].nunique()
    assert (per_output == 1).all().all()
    duplicates = privacy.set_index("variant").loc["duplicates"].iloc[0]
    assert duplicates["calib_raw"] == 360  # the raw data duplicates every training row
    assert duplicates["calib_none"] == 0
    # other families have none; the entries were computed once and cached
    assert rows.loc[rows["family"] != "privacy", "calib_raw"].isna().all()
    entries = list((tmp_path / "cache" / "calibration").rglob("*.json"))
    assert len(entries) == 1  # one block, one privacy metric (dcr_nndr)
    # its time is recorded in the trial that computed it, 0 in the trials that read it
    per_trial = privacy.groupby("trial_key")["calib_s"].agg(["min", "max"])
    assert (per_trial["min"] == per_trial["max"]).all()  # one value per (trial, metric)
    assert sorted(per_trial["max"] > 0) == [False, False, False, True]
    assert rows.loc[rows["family"] != "privacy", "calib_s"].isna().all()

    privbench("report", str(run_dir))
    report = (run_dir / "report" / "report.md").read_text()
    assert "raw data (reference)" in report and "new individuals (reference)" in report
    assert "## Privacy calibration" in report and "Leakage index" in report


def test_calibration_can_be_switched_off(privbench: Runner, tmp_path: Path) -> None:
    privbench("run", "generator=uniform", "runtime.calibrate=false", *SMALL)
    (run_dir,) = run_dirs(tmp_path)
    rows = collect([run_dir])
    assert rows["calib_raw"].isna().all()
    assert not (tmp_path / "cache" / "calibration").exists()
    assert rows["calib_s"].isna().all()
