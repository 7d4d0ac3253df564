"""ε-PrivateSMOTE through the real CLI: one trial on ds38 (the paper's protocol: predefined
split, control = test) with a named QI set, and the bad-parameter error."""

from __future__ import annotations

import json
from pathlib import Path

from harness.storage import read_parquet
from tests.conftest import Runner
from tests.integration.test_cli_errors import assert_one_line_error


def test_trial_on_ds38_with_a_named_qi_set(privbench: Runner, tmp_path: Path) -> None:
    privbench(
        "run", "generator=eps_private_smote", "dataset=ds38", "generator.qi=qi1", "generator.knn=3",
        "generator.per=2", "split.kind=predefined", "split.control=test", "suite=fast",
    )  # fmt: skip
    (run_dir,) = (p for p in (tmp_path / "results" / "default").iterdir() if p.is_dir())
    rows = read_parquet(run_dir / "rows.parquet")
    assert (rows["status"] == "ok").all(), rows.loc[rows["status"] != "ok", ["metric", "error"]]
    assert set(rows["metric"]) >= {"dcr_nndr", "ks_complement", "tv_complement", "fit_seconds"}
    assert (rows["qi_set"] == "qi1").all()
    assert rows["n_train"].iloc[0] == 5626  # the shipped ds38 training file

    details = json.loads(rows[rows["metric"] == "fit_seconds"].iloc[0]["details"])
    gen = details["generator"]
    assert gen["qi_set"] == "qi1" and gen["mode"] == "fixed"
    assert 0 < gen["n_risky"] <= 5626
    assert gen["n_out"] == gen["n_low"] + 2 * gen["n_risky"] == rows["n_synthetic"].iloc[0]
    assert 0.0 <= gen["share_out_of_range"] <= 1.0
    assert details["artifacts"] == ["row_origin"]
    (artifact,) = (tmp_path / "cache" / "variants").rglob("*.row_origin.parquet")
    origin = read_parquet(artifact)["row_origin"]
    assert origin.eq("synthetic").sum() == 2 * gen["n_risky"] and origin.eq("original").sum() == gen["n_low"]
    assert json.loads(rows["generator_params"].iloc[0])["epsilon"] == 0.5


def test_bad_parameter_is_a_one_line_error(privbench: Runner) -> None:
    proc = privbench("run", "generator=eps_private_smote", "generator.k=1", "data.max_rows=400", check=False)
    assert_one_line_error(proc, "`k` must be >= 2; got 1")
    proc = privbench(
        "run", "generator=eps_private_smote", "generator.epsilon=0", "data.max_rows=400", check=False
    )
    assert_one_line_error(proc, "`epsilon` must be a finite number > 0; got 0")
