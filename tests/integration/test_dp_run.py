"""DP generators through the real CLI (``spec/generators.md`` §7.2, §7.4, §7.5): one small Adult
trial each, with the budget recorded in the results equal to the configured total ε; strict mode
(public domain from the dataset spec) on Adult, and its one-line preflight error on a dataset
without declared bounds."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from harness.storage import read_parquet
from tests.conftest import Runner

pytest.importorskip("snsynth")

SMALL = ["dataset=adult", "data.max_rows=600", "suite=fast"]


def only_rows(tmp_path: Path) -> pd.DataFrame:
    (run_dir,) = (p for p in (tmp_path / "results" / "default").iterdir() if p.is_dir())
    rows = read_parquet(run_dir / "rows.parquet")
    assert (rows["status"] == "ok").all(), rows.loc[rows["status"] != "ok", ["metric", "error"]]
    assert set(rows["metric"]) >= {"dcr_nndr", "ks_complement", "tv_complement", "fit_seconds"}
    return rows


def details_of(rows: pd.DataFrame) -> dict[str, Any]:
    return dict(json.loads(rows[rows["metric"] == "fit_seconds"].iloc[0]["details"]))


def check_budget(rows: pd.DataFrame, epsilon: float) -> dict[str, Any]:
    details = details_of(rows)
    formal = details["generator_info"]["formal_dp"]
    assert formal["epsilon"] == epsilon and formal["unit"] == "original_records"
    assert formal["neighbours"] == "add_remove"
    budget = details["generator"]["budget"]
    assert budget["epsilon_total"] == epsilon
    assert math.isclose(budget["preprocessor_epsilon"] + budget["synthesizer_epsilon"], epsilon)
    return details


@pytest.mark.parametrize(
    ("generator", "epsilon", "overrides"),
    [
        ("dpgan", 5.0, ["generator.n_iter=2", "generator.batch_size=50"]),
        ("pategan", 0.5, ["generator.n_iter=3", "generator.teacher_iters=1", "generator.student_iters=1"]),
    ],
)
def test_gan_trial(
    privbench: Runner, tmp_path: Path, generator: str, epsilon: float, overrides: list[str]
) -> None:
    privbench("run", f"generator={generator}", f"generator.epsilon={epsilon}", *overrides, *SMALL)
    rows = only_rows(tmp_path)
    details = check_budget(rows, epsilon)
    n_train = int(rows["n_train"].iloc[0])
    assert details["generator_info"]["formal_dp"]["delta"] == pytest.approx(1 / n_train**2)
    gen = details["generator"]
    assert gen["epsilon_spent"] <= gen["budget"]["synthesizer_epsilon"]
    assert "bounds learned from data: DP claim excludes bounds" in gen["dp_caveats"]
    formal = details["generator_info"]["formal_dp"]
    assert formal["end_to_end"] is False and "bounds learned from data" in formal["reason"]


def test_dpgan_trial_with_preprocessor_budget(privbench: Runner, tmp_path: Path) -> None:
    privbench(
        "run", "generator=dpgan", "generator.epsilon=5.0", "generator.preprocessor_eps=1.0",
        "generator.n_iter=1", "generator.batch_size=50", *SMALL,
    )  # fmt: skip
    gen = check_budget(only_rows(tmp_path), 5.0)["generator"]
    assert gen["budget"]["preprocessor_epsilon"] == pytest.approx(1.0)
    assert gen["budget"]["synthesizer_epsilon"] == pytest.approx(4.0)
    assert len(gen["budget"]["preprocessor_per_column"]) == 5  # Adult's numeric columns
    assert gen["bounds_from_data"] == []


@pytest.mark.slow
@pytest.mark.parametrize(
    ("generator", "overrides"),
    [("mst", ["generator.n_bins=4"]), ("aim", ["generator.n_bins=4", "generator.rounds=16"])],
)
def test_marginal_trial(privbench: Runner, tmp_path: Path, generator: str, overrides: list[str]) -> None:
    privbench("run", f"generator={generator}", "generator.epsilon=1.0", *overrides, *SMALL)
    rows = only_rows(tmp_path)
    details = check_budget(rows, 1.0)
    assert details["generator_info"]["formal_dp"]["delta"] == 1e-9
    assert details["generator"]["budget"]["preprocessor_epsilon"] == 0.0


# ---------------------------------------------------------------------- strict mode, PrivBayes
def test_privbayes_strict_trial_on_adult_records_the_spent_epsilon(privbench: Runner, tmp_path: Path) -> None:
    privbench("run", "generator=privbayes", "generator.strict=true", "generator.epsilon=2.0", *SMALL)
    rows = only_rows(tmp_path)
    details = details_of(rows)
    formal = details["generator_info"]["formal_dp"]
    assert formal == {
        "epsilon": 2.0, "delta": 0.0, "unit": "original_records", "neighbours": "replace_one", "end_to_end": True,
    }  # fmt: skip
    gen = details["generator"]
    assert gen["accounting"]["epsilon_spent"] == 2.0 and gen["dp_caveats"] == []
    assert (
        gen["bins"]["age"]["left_edges"][0] == 17.0 and gen["bins"]["age"]["max"] == 90.0
    )  # adult.yaml bounds
    assert gen["bins"]["workclass"] == {"type": "categorical", "n_bins": 8, "missing_bin": True}


def test_datasynthesizer_accounting_records_one_and_a_half_epsilon(privbench: Runner, tmp_path: Path) -> None:
    privbench("run", "generator=privbayes", "generator.accounting=datasynthesizer", *SMALL)
    formal = details_of(only_rows(tmp_path))["generator_info"]["formal_dp"]
    assert formal["epsilon"] == 1.5 and formal["epsilon_configured"] == 1.0
    assert formal["neighbours"] == "replace_one" and formal["end_to_end"] is False


@pytest.mark.parametrize("generator", ["privbayes", "mst"])
def test_strict_without_public_bounds_fails_preflight(
    privbench: Runner, tmp_path: Path, generator: str
) -> None:
    proc = privbench(
        "run", f"generator={generator}", "generator.strict=true", "dataset=german_credit_kaggle",
        "data.max_rows=200", "suite=fast", check=False,
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("privbench: error:")]
    assert len(errors) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert f"{generator} strict mode" in errors[0] and "dataset 'german_credit_kaggle' column" in errors[0]
    assert "declare the public domain in the dataset YAML" in errors[0]
    assert not (tmp_path / "results").exists() or not list((tmp_path / "results").rglob("rows.parquet"))
