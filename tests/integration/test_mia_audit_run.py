"""The membership-inference audit through the real CLI: a trial's audit rows (computed in the
metric's child process), and the report's audit section with its tables and figures."""

from __future__ import annotations

import json
from pathlib import Path

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
