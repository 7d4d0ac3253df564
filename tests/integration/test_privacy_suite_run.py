"""The whole per-release privacy suite (``spec/metrics.md`` P1-P13) through the real CLI:
every metric computes on a real Adult trial in the quick profile."""

from __future__ import annotations

from pathlib import Path

from harness.storage import read_parquet
from tests.conftest import Runner

PRIVACY_METRICS = {
    "anonymeter_singling_out", "anonymeter_linkability", "anonymeter_inference", "reid_score", "dcr_nndr",
    "exact_match", "dcr_share", "raab_disclosure", "tcap", "outlier_linkage", "eps_identifiability", "sni",
}  # fmt: skip


def test_privacy_suite_on_adult(privbench: Runner, tmp_path: Path) -> None:
    privbench(
        "run", "generator=independent_marginals", "dataset=adult", "profile=quick", "data.max_rows=1500",
        "suite=privacy",
    )  # fmt: skip
    (run_dir,) = (p for p in (tmp_path / "results" / "default").iterdir() if p.is_dir())
    rows = read_parquet(run_dir / "rows.parquet")
    privacy = rows[rows["family"] == "privacy"]
    assert set(privacy["metric"]) == PRIVACY_METRICS
    assert (privacy["status"] == "ok").all(), privacy.loc[privacy["status"] != "ok", ["metric", "error"]]
    so = privacy[privacy["metric"] == "anonymeter_singling_out"].set_index("variant")
    assert set(so.index) == {"univariate", "multivariate"}
    assert (so["ci_low"] <= so["value"]).all() and (so["value"] <= so["ci_high"]).all()
    inference = privacy[privacy["metric"] == "anonymeter_inference"]
    assert set(inference["variant"]) == {"income", "capital-gain", "capital-loss", "max"}
