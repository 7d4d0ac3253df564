"""SDC anonymisers through the real CLI: MDAV and PRAM on Adult, spectral anonymisation on
MAGIC (``spec/generators.md`` §6.7–6.9), with their details recorded."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pandas as pd

from harness.storage import read_parquet
from tests.conftest import Runner


def ok_rows(tmp_path: Path) -> pd.DataFrame:
    (run_dir,) = (p for p in (tmp_path / "results" / "default").iterdir() if p.is_dir())
    rows = read_parquet(run_dir / "rows.parquet")
    assert (rows["status"] == "ok").all(), rows.loc[rows["status"] != "ok", ["metric", "error"]]
    assert set(rows["metric"]) >= {"dcr_nndr", "ks_complement", "tv_complement", "fit_seconds"}
    return rows


def details_of(rows: pd.DataFrame) -> dict[str, Any]:
    return dict(json.loads(rows[rows["metric"] == "fit_seconds"].iloc[0]["details"]))


def test_mdav_trial_on_adult(privbench: Runner, tmp_path: Path) -> None:
    privbench("run", "generator=mdav", "dataset=adult", "data.max_rows=1500", "suite=fast")
    rows = ok_rows(tmp_path)
    details = details_of(rows)
    gen = details["generator"]
    n_train = int(rows["n_train"].iloc[0])
    assert gen["k"] == 5 and gen["columns"] == ["age"]  # the numeric QI of Adult's default set
    assert 5 <= gen["min_cluster_size"] <= gen["max_cluster_size"] <= 9
    assert gen["n_clusters"] == n_train // 5
    assert 0 < gen["information_loss"]["sse_sst"] < 0.05
    assert details["generator_info"]["output_kind"] == "transformed"
    assert rows["n_synthetic"].iloc[0] == n_train


def test_pram_trial_on_adult(privbench: Runner, tmp_path: Path) -> None:
    privbench(
        "run", "generator=pram", "dataset=adult", "data.max_rows=1500", "suite=fast", "generator.theta=0.3"
    )
    rows = ok_rows(tmp_path)
    details = details_of(rows)
    gen = details["generator"]
    assert gen["theta"] == 0.3 and gen["variant"] == "invariant"
    assert gen["columns"] == ["sex", "race", "marital-status", "native-country", "education", "occupation"]
    assert all(0 < e < math.inf for e in gen["eps0"].values())
    assert gen["eps0_max"] == max(gen["eps0"].values())
    assert details["generator_info"]["formal_dp"]["epsilon"] == gen["eps0_max"]  # info() after the fit
    # generator_info is recorded after the fit, so the data-dependent ε₀ is in formal_dp
    assert details["generator_info"]["formal_dp"]["unit"] == "local, per column"


def test_spectral_trial_on_magic(privbench: Runner, tmp_path: Path) -> None:
    privbench(
        "run", "generator=spectral_anonymization", "dataset=magic", "data.max_rows=1500", "suite=fast",
        "generator.variant=p_sa", "generator.on_categorical=pass_through",
    )  # fmt: skip
    rows = ok_rows(tmp_path)
    gen = details_of(rows)["generator"]
    assert gen["variant"] == "p_sa" and len(gen["columns"]) == 10
    for moments in gen["moments"].values():
        assert math.isclose(moments["mean_unrounded"], moments["mean"], rel_tol=1e-9, abs_tol=1e-9)
