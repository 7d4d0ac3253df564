"""The whole fidelity suite (``spec/metrics.md`` F1-F8) through the real CLI on Adult."""

from __future__ import annotations

from pathlib import Path

from harness.registry import read_config
from harness.storage import read_parquet
from tests.conftest import Runner


def test_fidelity_suite_on_adult(privbench: Runner, tmp_path: Path) -> None:
    privbench(
        "run", "generator=independent_marginals", "dataset=adult", "profile=quick", "data.max_rows=1500",
        "suite=fidelity",
    )  # fmt: skip
    (run_dir,) = (p for p in (tmp_path / "results" / "default").iterdir() if p.is_dir())
    rows = read_parquet(run_dir / "rows.parquet")
    fidelity = rows[rows["family"] == "fidelity"]
    suite = read_config("suite", "fidelity")
    expected = {name for entry in suite["defaults"] for name in entry.values()}
    assert len(expected) == 18 and set(fidelity["metric"]) == expected
    assert (fidelity["status"] == "ok").all(), fidelity.loc[fidelity["status"] != "ok", ["metric", "error"]]
    # independent marginals keep the columns' shapes but lose their dependence
    value = fidelity.set_index(["metric", "variant"])["value"]
    assert value[("ks_complement", "")] > 0.9 and value[("tv_complement", "")] > 0.9
    assert value[("contingency_similarity", "")] < value[("tv_complement", "")]
