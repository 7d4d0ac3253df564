"""R-SYNPIPER checks on hand-made result rows: headline selection, the ε and budget sweeps."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from experiments.reproductions import synpiper_2023 as mod
from experiments.reproductions.synpiper_2023_select import CLASSIFIERS, FIDELITY, SCORES, release_params
from harness.reproduction import Check, ReproductionRun
from harness.reproduction.plan import load_plan
from harness.reproduction.runner import count_jobs
from harness.schema import to_results_frame

TRTR = 0.8


def _trial(
    generator: str, params: dict[str, Any], seed: int, quality: float, gap: float
) -> list[dict[str, Any]]:
    """The rows of one trial: every fidelity score at ``quality``, TSTR = TRTR + ``gap``."""
    key = f"{generator}-{json.dumps(params, sort_keys=True)}-{seed}"
    base = {
        "run_id": "r", "experiment": "synpiper_2023", "dataset": "adult", "status": "ok", "generator": generator,
        "generator_params": json.dumps(params), "gen_seed": seed, "trial_key": key, "n_train": 39073,
    }  # fmt: skip
    rows = []
    for metric in FIDELITY:
        details = json.dumps({"properties": {"Column Shapes": quality, "Column Pair Trends": quality}})
        rows.append({**base, "metric": metric, "variant": "", "family": "fidelity", "value": quality,
                     "details": details if metric == "quality_score" else ""})  # fmt: skip
    for clf in CLASSIFIERS:
        for score in SCORES:
            rows.append({**base, "metric": "ml_efficacy", "variant": f"{clf}:{score}", "family": "utility",
                         "value": TRTR + gap, "baseline": TRTR})  # fmt: skip
    return rows


def _results(
    *, pb_quality: dict[float, float], low_gap: float = -0.05, low_tvae_q: float = 0.83
) -> pd.DataFrame:
    rows = _trial("identity", {}, 0, 1.0, 0.0)
    for seed in (0, 1, 2):
        for eps, q in pb_quality.items():
            rows += _trial("privbayes", {"epsilon": eps, "k": 1}, seed, q, -0.1)
        rows += _trial("sdv_ctgan", {"epochs": 100}, seed, 0.85, -0.02)
        rows += _trial("sdv_tvae", {"epochs": 300}, seed, 0.9, -0.01)
        rows += _trial("sdv_ctgan", {"epochs": 30}, seed, 0.82, low_gap)
        rows += _trial("sdv_tvae", {"epochs": 30}, seed, low_tvae_q, low_gap)
    return to_results_frame(rows)


def _run(tmp_path: Path, results: pd.DataFrame, profile: str = "protocol") -> ReproductionRun:
    return ReproductionRun(load_plan("synpiper_2023", profile), tmp_path, results)


def _checks(run: ReproductionRun) -> dict[str, Check]:
    out: list[Check] = []
    for function in mod.CHECKS:
        produced = function(run)
        out.extend([produced] if isinstance(produced, Check) else list(produced))
    return {c.id: c for c in out}


def test_protocol_profile_composes_with_its_sweeps() -> None:
    plan = load_plan("synpiper_2023", "protocol")
    assert plan.persist and "departures" in plan.description.lower()
    assert count_jobs(plan) == {
        "reference": 1,
        "releases": 9,
        "epsilon": 6,
        "budget_ctgan": 3,
        "budget_tvae": 3,
    }


def test_headline_release_leaves_the_sweeps_out(tmp_path: Path) -> None:
    run = _run(tmp_path, _results(pb_quality={0.01: 0.5, 0.1: 0.7, 1.0: 0.8}))
    assert release_params(run, "privbayes") == {"epsilon": 1.0}
    assert release_params(run, "sdv_ctgan") == {"epochs": 100}
    assert release_params(run, "identity") == {}
    checks = _checks(run)
    assert all(checks[f"trtr-ge-tstr-{g}"].passed for g in mod.GENERATORS)
    assert "100 epochs" in checks["trtr-ge-tstr-sdv_ctgan"].claim
    assert "seeds [0, 1, 2]" in checks["trtr-ge-tstr-sdv_ctgan"].reason
    for exact_id in ("identity-tstr-equals-trtr", "identity-fidelity-one", "quality-is-mean-of-properties",
                     "trtr-same-for-every-generator", "fidelity-in-unit-interval"):  # fmt: skip
        assert checks[exact_id].passed, checks[exact_id]
    mod.artifacts(run)
    fidelity = pd.read_csv(run.out_dir / "tables" / "fidelity.csv")
    assert fidelity.set_index("release").loc["CTGAN", "quality_score"] == pytest.approx(0.85)
    budget = pd.read_csv(run.out_dir / "tables" / "training_budget.csv")
    assert budget["epochs"].tolist() == [30, 100, 30, 300]
    epsilon = pd.read_csv(run.out_dir / "tables" / "privbayes_epsilon.csv")
    assert epsilon["quality_score"].tolist() == pytest.approx([0.5, 0.7, 0.8])


def test_epsilon_check_reads_the_order(tmp_path: Path) -> None:
    good = _checks(_run(tmp_path, _results(pb_quality={0.01: 0.5, 0.1: 0.7, 1.0: 0.8})))
    assert good["privbayes-fidelity-rises-with-epsilon"].passed
    flat = _checks(_run(tmp_path, _results(pb_quality={0.01: 0.5, 0.1: 0.8, 1.0: 0.79})))
    check = flat["privbayes-fidelity-rises-with-epsilon"]
    assert not check.passed and check.verdict == "differs"
    assert "order broken at ε = 0.1 vs ε = 1" in check.reason and "seed-to-seed" in check.reason


def test_budget_checks_read_both_budgets(tmp_path: Path) -> None:
    stable = _checks(_run(tmp_path, _results(pb_quality={0.01: 0.5, 0.1: 0.7, 1.0: 0.8})))
    assert stable["trtr-ge-tstr-budget-stable-sdv_ctgan"].passed
    assert stable["fidelity-ranking-budget-stable"].passed
    assert "30 epochs" in stable["trtr-ge-tstr-budget-stable-sdv_tvae"].observed
    # TSTR above TRTR at the small budget only, and TVAE falls below PrivBayes at 30 epochs
    unstable = _checks(_run(tmp_path, _results(pb_quality={1.0: 0.8}, low_gap=0.01, low_tvae_q=0.6)))
    check = unstable["trtr-ge-tstr-budget-stable-sdv_ctgan"]
    assert not check.passed and "holds at 100 epochs only" in check.reason
    ranking = unstable["fidelity-ranking-budget-stable"]
    assert not ranking.passed and "property of its budget" in ranking.reason
    eps = unstable["privbayes-fidelity-rises-with-epsilon"]
    assert not eps.passed and "incomplete" in eps.reason


def test_quick_and_paper_profiles_have_no_sweep_checks(tmp_path: Path) -> None:
    results = _results(pb_quality={1.0: 0.8})
    for profile in ("quick", "paper"):
        ids = set(_checks(_run(tmp_path, results, profile)))
        assert "privbayes-fidelity-rises-with-epsilon" not in ids
        assert not any(i.startswith("trtr-ge-tstr-budget") for i in ids)
        assert {f"trtr-ge-tstr-{g}" for g in mod.GENERATORS} <= ids
