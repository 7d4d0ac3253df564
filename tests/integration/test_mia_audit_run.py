"""The membership-inference audit through the real CLI: a trial's audit rows (computed in the
metric's child process), the report's audit section with its tables and figures, and what may
leave the machine (issue 29): the run and its report pass the leak check, and only the key's
owner resolves the named records (a private file)."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pandas as pd

from harness.record_keys import references
from harness.records_command import run_datasets
from harness.storage import read_parquet
from tests.conftest import Runner

M = "suite.metrics.mia_audit"
QUICK = [
    f"+metric@{M}=mia_audit", f"{M}.n_outliers=1", f"{M}.n_random=1", f"{M}.n_games=8",
    f"{M}.n_shadows=2", f"{M}.n_syn_A=2", f"{M}.size_raw_T=100", f"{M}.n_estimators=20",
]  # fmt: skip


def test_audit_rows_and_report_section(privbench: Runner, tmp_path: Path) -> None:
    privbench(
        "run", "-m", "generator=identity,privbayes", "dataset=adult", "data.max_rows=600", "suite=fast",
        "runtime.calibrate=false", *QUICK,
    )  # fmt: skip
    (run_dir,) = (p for p in (tmp_path / "results" / "default").iterdir() if p.is_dir())
    rows = read_parquet(next(run_dir.rglob("rows.parquet")).parent.parent / "0" / "rows.parquet")
    audit = rows[rows["metric"] == "mia_audit"].set_index("variant")
    assert (audit["status"] == "ok").all(), audit["error"].tolist()
    assert {"auc", "epsilon_lb", "tpr_at_fpr_1pct", "privacy_gain", "auc_shadow_model"} <= set(audit.index)
    details = json.loads(audit.loc["auc", "details"])
    assert details["n_fits"] == (1 + 2) * (8 + 2) and len(details["records"]) == 2
    assert audit.loc["auc", "metric_s"] > 0
    privbench("report", str(run_dir))
    report = (run_dir / "report" / "report.md").read_text()
    assert "Privacy audit (membership inference)" in report
    assert (run_dir / "report" / "tables" / "mia_audit.csv").exists()
    assert (run_dir / "report" / "figures" / "mia_roc.png").exists()
    assert (run_dir / "report" / "figures" / "mia_epsilon.png").exists()  # privbayes declares formal DP

    # what may leave this machine: no public hash, membership label or real row anywhere
    checked = privbench("leak-check", str(run_dir))
    assert checked.returncode == 0 and "0 finding(s)" in checked.stdout
    assert "split" not in json.dumps(details["records"]) and "row_hash" not in json.dumps(details["records"])
    # the owner resolves every named record, into a file only they can read
    out = privbench("records", str(run_dir)).stdout
    assert "4 of 4 named record(s) resolved" in out  # 2 targets x 2 generators
    private = run_dir / "private" / "exposed_records.csv"
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    assert stat.S_IMODE(private.parent.stat().st_mode) == 0o700
    resolved = pd.read_csv(private)
    assert set(resolved["record"]) == {r["record"] for r in details["records"]} | set(
        resolved.loc[resolved["generator"] == "privbayes", "record"]
    )
    assert resolved["row"].notna().all() and "age" in resolved.columns  # its own data, for the owner
    # the report is checked the same way, with the run's data; and another key names other rows
    other = privbench("leak-check", str(run_dir / "report"), "--data-from", str(run_dir))
    assert other.returncode == 0
    rows_data = run_datasets(run_dir)["adult"]
    assert not set(references(rows_data, key=bytes(32))) & {r["record"] for r in details["records"]}
