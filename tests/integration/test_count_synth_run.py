"""Count-based synthesis through the real CLI on Adult: Poisson count synthesis with its
recorded (ε, δ) and SynDiffix (``spec/generators.md`` §7.8–7.9)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pandas as pd

from generators.poisson_counts import poisson_delta
from harness.storage import read_parquet
from tests.conftest import Runner

SMALL = ["dataset=adult", "data.max_rows=1500", "suite=fast"]


def ok_rows(tmp_path: Path) -> pd.DataFrame:
    (run_dir,) = (p for p in (tmp_path / "results" / "default").iterdir() if p.is_dir())
    rows = read_parquet(run_dir / "rows.parquet")
    assert (rows["status"] == "ok").all(), rows.loc[rows["status"] != "ok", ["metric", "error"]]
    assert set(rows["metric"]) >= {"dcr_nndr", "ks_complement", "tv_complement", "fit_seconds"}
    return rows


def details_of(rows: pd.DataFrame) -> dict[str, Any]:
    return dict(json.loads(rows[rows["metric"] == "fit_seconds"].iloc[0]["details"]))


def test_poisson_counts_trial_on_adult(privbench: Runner, tmp_path: Path) -> None:
    privbench(
        "run", "generator=poisson_counts", *SMALL, "generator.epsilon=2.5", "generator.alpha=0.5",
        "generator.columns=[age,sex,race,relationship,income]",
    )  # fmt: skip
    rows = ok_rows(tmp_path)
    details = details_of(rows)
    gen = details["generator"]
    dp = details["generator_info"]["formal_dp"]
    assert dp["epsilon"] == 2.5 and dp["unit"] == "original_records"
    assert math.isclose(dp["delta"], poisson_delta(2.5, 0.5), rel_tol=1e-12)
    assert gen["dp"]["delta"] == dp["delta"]
    n_train = int(rows["n_train"].iloc[0])
    assert gen["n"] == n_train and gen["columns"] == ["age", "relationship", "race", "sex", "income"]
    assert gen["K"] == math.prod(gen["levels"].values())
    assert gen["expected_rows"] == n_train + 0.5 * gen["K"]
    assert rows["n_synthetic"].iloc[0] == gen["released_rows"] == gen["noisy_total"]


def test_syndiffix_trial_on_adult(privbench: Runner, tmp_path: Path) -> None:
    privbench("run", "generator=syndiffix", "generator.solver_alpha=1.0", *SMALL)
    rows = ok_rows(tmp_path)
    details = details_of(rows)
    assert details["generator_info"]["formal_dp"] is None
    n_train = int(rows["n_train"].iloc[0])
    assert abs(int(rows["n_synthetic"].iloc[0]) - n_train) <= 0.05 * n_train
    assert details["generator"]["rows"] == int(rows["n_synthetic"].iloc[0])
