"""SDV synthesizers through the real CLI: one Gaussian-copula trial and one tiny CTGAN trial."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from harness.storage import read_parquet
from tests.conftest import Runner

pytest.importorskip("sdv")
pytest.importorskip("torch")

SMALL = ["dataset=adult", "data.max_rows=1500", "suite=fast"]


def only_rows(tmp_path: Path) -> pd.DataFrame:
    (run_dir,) = (p for p in (tmp_path / "results" / "default").iterdir() if p.is_dir())
    return read_parquet(run_dir / "rows.parquet")


@pytest.mark.parametrize(
    ("generator", "overrides"),
    [
        ("sdv_gaussian_copula", []),
        ("sdv_ctgan", ["generator.epochs=2", "generator.batch_size=50"]),
    ],
)
def test_sdv_trial(privbench: Runner, tmp_path: Path, generator: str, overrides: list[str]) -> None:
    privbench("run", f"generator={generator}", *overrides, *SMALL)
    rows = only_rows(tmp_path)
    assert (rows["status"] == "ok").all(), rows.loc[rows["status"] != "ok", ["metric", "error"]]
    assert set(rows["metric"]) >= {"dcr_nndr", "ks_complement", "tv_complement", "fit_seconds"}
    assert (rows["generator"] == generator).all()
    details = json.loads(rows[rows["metric"] == "fit_seconds"].iloc[0]["details"])
    assert details["generator"]["metadata"] == "from DatasetSpec"
    if overrides:
        assert json.loads(rows["generator_params"].iloc[0])["epochs"] == 2
