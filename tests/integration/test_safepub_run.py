"""``safepub`` through the real CLI on Adult (``spec/generators.md`` §6.4): the trial runs, the
configured (ε, δ) is the recorded ``formal_dp`` and k, β and the sample are in the details."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from harness.storage import read_parquet
from tests.conftest import Runner


def test_safepub_trial_on_adult(privbench: Runner, tmp_path: Path) -> None:
    privbench(
        "run", "generator=safepub", "dataset=adult", "data.max_rows=1500", "suite=fast", "generator.epsilon=2.0",
    )  # fmt: skip
    (run_dir,) = (p for p in (tmp_path / "results" / "default").iterdir() if p.is_dir())
    rows = read_parquet(run_dir / "rows.parquet")
    assert (rows["status"] == "ok").all(), rows.loc[rows["status"] != "ok", ["metric", "error"]]
    assert "fit_seconds" in set(rows["metric"])
    details = json.loads(rows[rows["metric"] == "fit_seconds"].iloc[0]["details"])
    formal_dp = details["generator_info"]["formal_dp"]
    assert formal_dp == {"epsilon": 2.0, "delta": 1e-4, "unit": "original_records"}
    gen = details["generator"]
    assert gen["epsilon"] == formal_dp["epsilon"]
    assert gen["epsilon_anon"] == pytest.approx(1.8) and gen["epsilon_search"] == pytest.approx(0.2)
    assert gen["beta"] == pytest.approx(1 - math.exp(-1.8)) and gen["beta_is_max"]
    assert gen["k"] == 78  # Table 1b, β_max column
    assert gen["score_sensitivity_validated"] is True
    n_train = int(rows["n_train"].iloc[0])
    assert abs(gen["n_sampled"] / n_train - gen["beta"]) < 4 * math.sqrt(
        gen["beta"] * (1 - gen["beta"]) / n_train
    )
    assert rows["n_synthetic"].iloc[0] == gen["n_released"] == gen["n_sampled"] - gen["n_suppressed"]
    assert gen["achieved_k"] >= gen["k"] and gen["suppressed_share"] <= 0.05
