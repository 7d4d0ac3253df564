"""R-EPS protocol profile: its checks on a synthetic results table (no trial runs).

``experiments/reproductions/privatesmote_2024_budget.py``: the paper-budget GAN trials of the
``budget`` sweeps are kept out of the main analysis, Fig. 5's blocks are (dataset, QI set)
pairs that hold every technique, and ``gan-budget-stability`` compares the two budgets.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from experiments.reproductions import privatesmote_2024 as checks
from experiments.reproductions.privatesmote_2024_budget import (
    PROTOCOL_BUDGETS,
    check_budget_stability,
    main_results,
    sign_test_blocks,
)
from harness.reproduction import ReproductionRun, load_plan
from harness.schema import to_results_frame

QI_SETS = ("qi0", "qi1", "qi2")


def _trial(
    dataset: str, qi: str, generator: str, params: dict[str, object], link: float, auc: float
) -> list[dict]:
    key = f"{dataset}-{qi}-{generator}-{json.dumps(params, sort_keys=True)}"
    base = {
        "run_id": "r", "experiment": "privatesmote_2024", "status": "ok", "dataset": dataset, "qi_set": qi,
        "generator": generator, "generator_params": json.dumps(params, sort_keys=True), "trial_key": key,
        "fit_s": 1.0, "sample_s": 0.1,
    }  # fmt: skip
    return [
        {**base, "metric": "linkability", "variant": "", "family": "privacy", "value": link, "goal": "minimise"},
        {**base, "metric": "ml_efficacy", "variant": "best:roc_auc", "family": "utility", "value": auc,
         "goal": "maximise"},
        {**base, "metric": "fit_seconds", "variant": "", "family": "cost", "value": 1.0, "goal": "minimise"},
    ]  # fmt: skip


def _results(paper_gan_auc: float) -> pd.DataFrame:
    """ds3 (two budgets) and ds55 (shrunk only); ε-PrivateSMOTE's AUC 0.9, the GANs' 0.7 at the shrunk budget."""
    rows: list[dict] = []
    for dataset in ("ds3", "ds55"):
        for qi in QI_SETS:
            rows += _trial(dataset, qi, "eps_private_smote", {"epsilon": 0.5, "knn": 3}, 0.01, 0.90)
            rows += _trial(dataset, qi, "rus", {"ratio": 1.0}, 0.20, 0.95)
            for generator, (param, shrunk, paper) in PROTOCOL_BUDGETS.items():
                rows += _trial(dataset, qi, generator, {param: shrunk}, 0.005, 0.70)
                if dataset == "ds3":
                    rows += _trial(dataset, qi, generator, {param: paper}, 0.001, paper_gan_auc)
    rows += _trial("ds38", "qi0", "eps_private_smote", {"epsilon": 0.5, "knn": 3}, 0.01, 0.8)  # no baselines
    return to_results_frame(rows)


def _run(tmp_path: Path, results: pd.DataFrame, profile: str = "protocol") -> ReproductionRun:
    return ReproductionRun(load_plan("privatesmote_2024", profile), tmp_path, results)


def test_the_protocol_profile_is_persistent_and_its_header_names_its_departures() -> None:
    plan = load_plan("privatesmote_2024", "protocol")
    assert plan.persist
    for words in ("ds55", "ds43", "ds3", "budget", "n_attacks", "XGBoost", "Expected run time"):
        assert words in plan.description, words
    sweeps = {s.name for s in plan.sweeps}
    assert {"eps_private_smote", "budget_sdv", "budget_dp_gans", "smote_ds38"} <= sweeps


def test_main_results_drop_the_paper_budget_trials_only_in_the_protocol_profile(tmp_path: Path) -> None:
    results = _results(paper_gan_auc=0.72)
    paper_rows = 3 * len(PROTOCOL_BUDGETS) * len(QI_SETS)  # ds3 only, 3 rows a trial
    assert len(main_results(_run(tmp_path, results))) == len(results) - paper_rows
    assert len(main_results(_run(tmp_path, results, "quick"))) == len(results)
    assert sign_test_blocks(_run(tmp_path, results)) == ("dataset", "qi_set")
    assert sign_test_blocks(_run(tmp_path, results, "quick")) == ("dataset",)


def test_sign_test_blocks_are_dataset_qi_pairs_holding_every_technique(tmp_path: Path) -> None:
    table = checks.sign_tests(_run(tmp_path, _results(paper_gan_auc=0.72))).set_index("technique")
    assert set(table.index) == {"ε-PrivateSMOTE", "RUS", *(checks.TECHNIQUES[g] for g in PROTOCOL_BUDGETS)}
    assert (table["n"] == 2 * len(QI_SETS)).all()  # ds3 and ds55 × 3 QI sets; ds38 lacks the baselines
    fig5 = {c.id: c for c in checks.check_fig5(_run(tmp_path, _results(paper_gan_auc=0.72)))}
    assert "6 blocks = (dataset, QI set) pairs" in fig5["fig5-draw"].reason
    draw = fig5["fig5-draw"].value
    assert not fig5["fig5-draw"].passed  # RUS is every block's oracle (δ 0), ε-PrivateSMOTE is 5.3 % below
    assert draw["RUS"] > draw["ε-PrivateSMOTE"]
    # the reason says what the privacy-first path kept and which datasets had no complete block
    reason = fig5["fig5-draw"].reason
    assert "ε-PrivateSMOTE linkability 0.010, δ -5.26 % (its kept variants: ε = 0.5 in 6 blocks)" in reason
    assert "RUS linkability 0.200, δ +0.00 %" in reason and "SMOTE absent" in reason
    assert "no SMOTE variants: ds38)" in reason


@pytest.mark.parametrize(("paper_auc", "stable"), [(0.72, True), (0.99, False)])
def test_budget_stability_compares_the_two_budgets_on_ds3(
    tmp_path: Path, paper_auc: float, stable: bool
) -> None:
    (check,) = check_budget_stability(_run(tmp_path, _results(paper_gan_auc=paper_auc)))
    assert check.id == "gan-budget-stability" and check.level == "trend"
    assert check.passed is stable and not check.error
    gans = sorted(checks.TECHNIQUES[g] for g in PROTOCOL_BUDGETS)
    assert check.value["protocol"]["eps_at_least"] == gans  # 0.9 vs 0.7 at the shrunk budget
    assert check.value["paper"]["eps_at_least"] == (gans if stable else [])
    if not stable:
        assert "depends on the GANs' training budget" in check.reason
    assert check_budget_stability(_run(tmp_path, _results(paper_gan_auc=paper_auc), "quick")) == []


def test_cost_ordering_reads_the_paper_budget_on_ds3_in_the_protocol_profile(tmp_path: Path) -> None:
    results = _results(paper_gan_auc=0.72)
    at_paper = (results["dataset"] == "ds3") & results["generator_params"].str.contains('": 100')
    results.loc[at_paper, "fit_s"] = 60.0  # the paper-budget GANs take a minute
    check = checks.check_cost_ordering(_run(tmp_path, results))
    assert check.passed is False  # PATE-GAN = DPGAN here: the strict order fails ...
    assert check.value["PATE-GAN"] == pytest.approx(60.1 / 60)  # ... on the paper-budget rows only
    assert "GANs at the paper's smallest budget" in check.reason
