"""k-anonymity generators through the real CLI: a full-domain trial on Adult with its details and
artifacts recorded, an infeasible configuration recorded as ``skipped``, and a bad parameter."""

from __future__ import annotations

import json
from pathlib import Path

from harness.storage import read_parquet
from tests.conftest import Runner
from tests.integration.test_cli_errors import assert_one_line_error


def rows_of(tmp_path: Path):  # type: ignore[no-untyped-def]
    (run_dir,) = (p for p in (tmp_path / "results" / "default").iterdir() if p.is_dir())
    return read_parquet(run_dir / "rows.parquet")


def test_fulldomain_trial_on_adult(privbench: Runner, tmp_path: Path) -> None:
    privbench("run", "generator=kanon_fulldomain", "dataset=adult", "data.max_rows=3000", "suite=fast")
    rows = rows_of(tmp_path)
    assert (rows["status"] == "ok").all(), rows.loc[rows["status"] != "ok", ["metric", "error"]]
    assert set(rows["metric"]) >= {"dcr_nndr", "ks_complement", "tv_complement", "fit_seconds"}
    assert (rows["qi_set"] == "default").all()
    n_train = int(rows["n_train"].iloc[0])

    details = json.loads(rows[rows["metric"] == "fit_seconds"].iloc[0]["details"])
    gen = details["generator"]
    assert gen["k"] == 5 and gen["achieved_k"] >= 5 and gen["reid_max"] <= 0.2
    assert gen["n_suppressed"] <= 0.01 * n_train
    assert gen["n_released"] == n_train - gen["n_suppressed"] == rows["n_synthetic"].iloc[0]
    assert set(gen["node"]) == {
        "age",
        "sex",
        "race",
        "marital-status",
        "native-country",
        "education",
        "occupation",
    }
    assert gen["hierarchy"] == "arx" and gen["loss"] == "entropy"
    assert gen["information_loss"]["entropy"] == gen["loss_value"]
    assert 0 < gen["reid_mean"] <= gen["reid_max"]
    assert details["generator_info"]["generalised_output"] is True
    assert sorted(details["artifacts"]) == ["generalised", "reid"]
    (labels,) = (tmp_path / "cache" / "variants").rglob("*.generalised.parquet")
    (reid,) = (tmp_path / "cache" / "variants").rglob("*.reid.parquet")
    labels, reid = read_parquet(labels), read_parquet(reid)
    assert len(labels) == len(reid) == gen["n_released"]
    assert labels.groupby(list(gen["node"]), dropna=False).size().min() >= 5
    assert reid["reid"].max() == gen["reid_max"]


def test_infeasible_configuration_is_skipped(privbench: Runner, tmp_path: Path) -> None:
    privbench("run", "generator=mondrian", "generator.k=400", "data.max_rows=400", "suite=fast")
    rows = rows_of(tmp_path)
    assert (rows["status"] == "skipped").all()
    assert rows["error"].iloc[0].startswith("infeasible: k=400 exceeds the")
    assert "\n" not in rows["error"].iloc[0]  # the reason only, no traceback


def test_bad_parameter_is_a_one_line_error(privbench: Runner) -> None:
    proc = privbench("run", "generator=kanon_fulldomain", "generator.suppression_limit=2", check=False)
    assert_one_line_error(proc, "suppression_limit", "[0, 1]")
