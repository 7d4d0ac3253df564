"""R-UMAP protocol profile: the CTGAN/TVAE budget sweep is kept out of Tables 2-6 and checked.

The hand-made table of ``test_umap_smotenc_2024.py`` (two datasets, one run, trade-off
UMAP-SMOTENC 0.774 > TVAE 0.429 > CTGAN 0.381), with CTGAN and TVAE at the profile's 30
epochs, plus a ``budget`` sweep: CTGAN and TVAE again on dataset ``a`` at 300 epochs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from experiments.reproductions import umap_smotenc_2024 as checks
from experiments.reproductions.umap_smotenc_2024_budget import (
    budget_pairs,
    budget_table,
    check_budget_stability,
    main_results,
    plan_epochs,
)
from experiments.reproductions.umap_smotenc_2024_tables import tables
from harness.reproduction.checks import Check
from harness.reproduction.plan import ReproductionPlan, load_plan
from harness.reproduction.view import ReproductionRun
from harness.schema import to_results_frame

UTILITY = {"sdv_gaussian_copula": 0.2, "sdv_ctgan": 0.4, "sdv_tvae": 0.5, "smotenc": 0.9, "umap_smotenc": 0.8}
PRIVACY = {"sdv_gaussian_copula": 1.0, "sdv_ctgan": 0.8, "sdv_tvae": 0.5, "smotenc": 0.1, "umap_smotenc": 0.8}
CLASSIFIERS = ("logistic_regression", "naive_bayes", "decision_tree", "random_forest", "xgboost", "mlp")
OVERRIDES = (
    "+generator_overrides.sdv_ctgan.epochs=30",
    "+generator_overrides.sdv_tvae.epochs=30",
    "+metric_overrides.ml_efficacy.param_grid={mlp: {hidden_layer_sizes: [[100]]}}",
)


def _rows(
    dataset: str, generator: str, utility: float, privacy: float, epochs: int | None
) -> list[dict[str, Any]]:
    params = {} if epochs is None else {"epochs": epochs}
    base = {
        "run_id": "r", "experiment": "umap_smotenc_2024", "dataset": dataset, "qi_set": "default",
        "split_seed": 220, "fold": 0, "gen_seed": 220, "generator": generator,
        "generator_params": json.dumps(params), "status": "ok", "trial_key": f"{dataset}-{generator}-{epochs}",
    }  # fmt: skip
    out: list[dict[str, Any]] = []
    for variant in ("mean:f1", *(f"{c}:f1" for c in CLASSIFIERS)):
        out.append({**base, "metric": "ml_efficacy", "variant": variant, "family": "utility",
                    "goal": "maximise", "value": utility, "baseline": 1.0})  # fmt: skip
    for variant in ("dcr_mean", "nndr_mean", "ratio_1_10_mean"):
        out.append({**base, "metric": "dcr_nndr", "variant": variant, "family": "privacy",
                    "goal": "maximise", "value": privacy, "baseline": 0.3})  # fmt: skip
    return out


def _run(
    tmp_path: Path,
    budget_values: dict[str, tuple[float, float]] | None,
    overrides: tuple[str, ...] = OVERRIDES,
) -> ReproductionRun:
    rows: list[dict[str, Any]] = []
    for dataset in ("a", "b"):
        for generator in UTILITY:
            epochs = 30 if generator in ("sdv_ctgan", "sdv_tvae") else None
            rows += _rows(dataset, generator, UTILITY[generator], PRIVACY[generator], epochs)
    for generator, (utility, privacy) in (budget_values or {}).items():
        rows += _rows("a", generator, utility, privacy, 300)
    plan = ReproductionPlan(
        "umap_smotenc_2024", "R-UMAP", "002.txt", "t", "s", "experiments.reproductions.umap_smotenc_2024",
        "protocol", "", tuple(overrides), (), persist=True,
    )  # fmt: skip
    return ReproductionRun(plan, tmp_path, to_results_frame(rows))


def _by_id(run: ReproductionRun) -> dict[str, Check]:
    produced: list[Check] = []
    for function in checks.CHECKS:
        out = function(run)
        produced.extend([out] if isinstance(out, Check) else out)
    return {c.id: c for c in produced}


def test_plan_epochs_reads_the_profile_overrides(tmp_path: Path) -> None:
    assert plan_epochs(_run(tmp_path, None)) == {"sdv_ctgan": 30, "sdv_tvae": 30}
    assert plan_epochs(_run(tmp_path, None, overrides=())) == {}


def test_budget_rows_stay_out_of_tables_2_to_6(tmp_path: Path) -> None:
    run = _run(tmp_path, {"sdv_ctgan": (0.85, 0.9), "sdv_tvae": (0.1, 0.1)})
    kept = main_results(run)
    assert len(kept) == len(run.results) - 2 * 10  # 7 utility + 3 privacy rows per budget trial
    t = tables(run)
    # the hand-computed trade-off of the main rows (test_umap_smotenc_2024.py), budget rows ignored
    assert t.summary("tradeoff", "CTGAN") == pytest.approx(0.380952, abs=1e-6)
    assert t.summary("tradeoff", "UMAP-SMOTENC") == pytest.approx(0.774194, abs=1e-6)
    assert t.n_runs == 1 and t.datasets == ("a", "b")


def test_budget_pairs_share_the_other_generators(tmp_path: Path) -> None:
    run = _run(tmp_path, {"sdv_ctgan": (0.45, 0.8), "sdv_tvae": (0.55, 0.5)})
    pairs = budget_pairs(run)
    assert list(pairs) == [300]
    main, alt = pairs[300]
    assert set(main.results["dataset"]) == set(alt.results["dataset"]) == {"a"}
    assert set(main.results["generator"]) == set(alt.results["generator"]) == set(UTILITY)
    ctgan = alt.rows("ml_efficacy", "mean:f1", generator="sdv_ctgan")
    assert ctgan["value"].tolist() == [0.45] and ctgan["param.epochs"].tolist() == [300]


def test_stable_ordering_passes(tmp_path: Path) -> None:
    # 300 epochs: CTGAN and TVAE a little better, UMAP-SMOTENC still above both everywhere
    run = _run(tmp_path, {"sdv_ctgan": (0.45, 0.8), "sdv_tvae": (0.55, 0.5)})
    by_id = _by_id(run)
    check = by_id["budget-stability-300"]
    assert check.passed and check.level == "trend", check.reason
    assert "30 epochs" in check.observed and "300 epochs" in check.observed
    assert check.value["300"]["umap_above_gans"] and check.value["main"]["MLP"]
    table = budget_table(run)
    assert set(table["CTGAN/TVAE epochs"]) == {"30", "300"} and len(table) == 10
    checks.artifacts(run)
    assert (run.out_dir / "tables" / "budget_stability.md").is_file()


def test_a_budget_that_flips_the_ordering_fails_with_the_relations_that_changed(tmp_path: Path) -> None:
    # 300 epochs: CTGAN beats UMAP-SMOTENC on utility and privacy
    run = _run(tmp_path, {"sdv_ctgan": (0.85, 0.9), "sdv_tvae": (0.5, 0.5)})
    check = check_budget_stability(run)[0]
    assert not check.passed and check.verdict == "differs"
    assert "umap_above_gans" in check.reason and "DT" in check.reason


def test_protocol_reasons_name_the_profile_and_the_budget(tmp_path: Path) -> None:
    by_id = _by_id(_run(tmp_path, {"sdv_ctgan": (0.45, 0.8), "sdv_tvae": (0.55, 0.5)}))
    assert "protocol profile" in by_id["table3-umap-highest"].reason
    assert "30 of 300 epochs" in by_id["table3-umap-highest"].reason
    assert "CTGAN trained 30 of the paper's 300 epochs" in by_id["table4-f1-ctgan-rf"].reason
    assert "trained" not in by_id["table4-f1-smote-nc-rf"].reason
    assert "instead of the paper's 24" in by_id["table4-f1-smote-nc-mlp"].reason
    assert "instead of the paper's 24" in by_id["table4-order-mlp"].reason
    assert "param_grid" not in by_id["table4-order-rf"].reason
    assert not any(c.error for c in by_id.values())
    assert not any("not run" in c.reason for c in by_id.values() if c.verdict == "differs")


def test_no_budget_sweep_no_budget_check(tmp_path: Path) -> None:
    run = _run(tmp_path, None, overrides=())
    assert main_results(run) is run.results
    assert budget_pairs(run) == {} and check_budget_stability(run) == []


def test_protocol_profile_of_the_experiment_declares_the_budget_sweep() -> None:
    plan = load_plan("umap_smotenc_2024", "protocol")
    assert plan.persist
    sweeps = {s.name: s.overrides for s in plan.sweeps}
    assert set(sweeps) == {"main", "magic", "budget"}
    assert "generator_overrides.sdv_ctgan.epochs=300" in sweeps["budget"]
    assert any(o.endswith("sdv_ctgan.epochs=30") for o in plan.overrides)
    assert "dataset=loan" in sweeps["budget"] and "30 of SDV's 300" in plan.description
