"""A metric that refits the generator runs in its own child process under the trial's
runtime limits: membership inference through the real CLI, and its timeout as a row."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from harness.storage import read_parquet
from tests.conftest import Runner

M = "suite.metrics.mia_privacy_gain"
TINY = [
    f"+metric@{M}=mia_privacy_gain", f"{M}.n_outliers=1", f"{M}.n_random=1", f"{M}.size_raw_A=200",
    f"{M}.size_raw_T=80", f"{M}.size_syn_T=80", f"{M}.n_shadows=3", f"{M}.n_syn_A=3", f"{M}.n_iter=2",
    f"{M}.n_syn_T=2", f"{M}.n_estimators=20",
]  # fmt: skip


def _rows(tmp_path: Path) -> pd.DataFrame:
    (run_dir,) = (p for p in (tmp_path / "results" / "default").iterdir() if p.is_dir())
    return read_parquet(run_dir / "rows.parquet")


def test_membership_inference_through_the_cli(privbench: Runner, tmp_path: Path) -> None:
    privbench("run", "generator=identity", "dataset=adult", "data.max_rows=800", "suite=fast", *TINY)
    rows = _rows(tmp_path)
    mia = rows[rows["metric"] == "mia_privacy_gain"].set_index("variant")
    assert (mia["status"] == "ok").all(), mia["error"].tolist()
    assert set(mia.index) == {"all", "outliers", "random"}
    assert mia["value"].between(0, 2).all()
    assert mia.loc["all", "goal"] == "maximise"


def test_membership_inference_timeout_is_a_row(privbench: Runner, tmp_path: Path) -> None:
    proc = privbench(
        "run", "generator=independent_marginals", "dataset=adult", "data.max_rows=800", "suite=fast",
        *TINY, f"{M}.n_shadows=200", "runtime.timeout_s=3", check=False,
    )  # fmt: skip
    assert proc.returncode == 1 and "1 metric result(s) failed" in proc.stderr  # the rows are written
    rows = _rows(tmp_path)
    mia = rows[rows["metric"] == "mia_privacy_gain"]
    assert mia["status"].tolist() == ["timeout"]
    assert "runtime.timeout_s" in mia["error"].iloc[0]
    assert (rows.loc[rows["metric"] == "ks_complement", "status"] == "ok").all()  # the trial went on
