"""Robin Hood on Adult and the NHS sanitiser on Texas through the real CLI
(``spec/generators.md`` §6.5–6.6), with their details and artifacts recorded."""

from __future__ import annotations

import json
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


def cached(tmp_path: Path, suffix: str) -> pd.DataFrame:
    (path,) = (tmp_path / "cache" / "variants").rglob(f"*{suffix}")
    return read_parquet(path)


def check_robin_hood(tmp_path: Path, qi: list[str], fairness_attr: str) -> dict[str, Any]:
    """Checks every Robin Hood trial passes; returns the generator details."""
    rows = ok_rows(tmp_path)
    details = details_of(rows)
    gen = details["generator"]
    n_train = int(rows["n_train"].iloc[0])
    assert gen["fairness_attr"] == fairness_attr and gen["k_initial"] == 3
    assert gen["qi"] == qi and set(gen["node"]) == set(qi) and gen["ola"]["node"] == gen["node"]
    assert gen["ola"]["search"] == "ola" and gen["ola"]["loss"] == "entropy"
    assert gen["n_released"] == n_train == rows["n_synthetic"].iloc[0] and gen["n_suppressed"] == 0
    assert (
        gen["n_minority_classes"] == gen["n_minority_masked"] + gen["n_infeasible"] + gen["n_not_processed"]
    )
    assert gen["feasible"] is (gen["n_infeasible"] == 0)
    assert len(gen["infeasible_classes"]) == min(gen["n_infeasible"], 50)
    assert details["generator_info"]["generalised_output"] is True
    assert details["generator_info"]["randomised"] is True
    assert sorted(details["artifacts"]) == ["generalised", "masking", "reid"]
    labels, masking = cached(tmp_path, ".generalised.parquet"), cached(tmp_path, ".masking.parquet")
    assert int((labels[fairness_attr] == "?").sum()) == gen["n_masked"]
    assert len(masking) == gen["n_equivalence_classes"] and int(masking["masked"].sum()) == gen["n_masked"]
    return dict(gen)


def test_robin_hood_trial_on_adult(privbench: Runner, tmp_path: Path) -> None:
    privbench("run", "generator=robin_hood", "dataset=adult", "data.max_rows=1500", "suite=fast")
    qi = ["age", "sex", "race", "marital-status", "native-country", "education", "occupation"]
    gen = check_robin_hood(tmp_path, qi, "race")
    assert gen["k_target"] == 30 and gen["on_infeasible"] == "stop"
    assert gen["threshold_majority"] == 1.0 and gen["threshold_minority"] == 0.5
    if gen["stopped_early"]:  # Algorithm 1 returns at the first infeasible class
        assert gen["n_infeasible"] == 1 and gen["feasible"] is False


def test_robin_hood_masks_on_adult(privbench: Runner, tmp_path: Path) -> None:
    """On the 4-QI ``raab`` set OLA keeps occupation (level 1): its minority classes are masked."""
    privbench(
        "run", "generator=robin_hood", "dataset=adult", "data.max_rows=1500", "suite=fast", "qi_set=raab",
        "generator.fairness_attr=occupation", "generator.on_infeasible=continue",
    )  # fmt: skip
    gen = check_robin_hood(tmp_path, ["age", "occupation", "race", "sex"], "occupation")
    assert gen["n_masked"] > 0 and gen["n_minority_masked"] > 0 and gen["stopped_early"] is False
    assert gen["effective_k_min"] >= 30
    assert gen["n_masked"] == gen["n_masked_majority"] + gen["n_masked_minority"]
    assert sum(gen["masked_by_value"].values()) == gen["n_masked"]
    (release_path,) = (
        p for p in (tmp_path / "cache" / "variants").rglob("*.parquet") if p.name.count(".") == 1
    )
    release = read_parquet(release_path)
    assert int((release["occupation"] == "?").sum()) == gen["n_masked"]


def test_nhs_sanitiser_trial_on_texas(privbench: Runner, tmp_path: Path) -> None:
    privbench(
        "run", "generator=nhs_sanitiser", "dataset=texas", "data.max_rows=1500", "suite=fast",
        "generator.anonymity_set_size=3", "generator.thresh_rare=2",
    )  # fmt: skip
    rows = ok_rows(tmp_path)
    details = details_of(rows)
    gen = details["generator"]
    n_train = int(rows["n_train"].iloc[0])
    assert gen["quids"] == ["PAT_STATE", "SEX_CODE", "RACE", "ETHNICITY", "PAT_AGE"]
    assert gen["anonymity_set_size"] == 3 and gen["thresh_rare"] == 2 and gen["nbins"] == 10
    assert gen["dropped_rare"] > 0 and gen["dropped_anonymity"] > 0
    assert gen["n_dropped"] == gen["dropped_rare"] + gen["dropped_anonymity"]
    assert gen["n_released"] == n_train - gen["n_dropped"] == rows["n_synthetic"].iloc[0]
    assert details["generator_info"]["output_kind"] == "transformed"
