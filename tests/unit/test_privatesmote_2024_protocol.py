"""R-EPS protocol profile: its budgets, blocks and cost scope on a synthetic results table (no trial runs).

``experiments/reproductions/privatesmote_2024_budget.py``: the paper-budget GAN trials of the
``budget_*`` sweeps are kept out of the main analysis; Fig. 5's blocks are (dataset, QI set)
pairs that hold every technique; the *budget suffices* gate compares the GANs' AUC at the two
budgets on ds3; the cost claims read the paper-budget GANs on ds3.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from experiments.reproductions.privatesmote_2024_budget import PROTOCOL_BUDGETS, main_results
from experiments.reproductions.privatesmote_2024_common import TECHNIQUES
from experiments.reproductions.privatesmote_2024_cost import check_cost_ordering, minutes
from experiments.reproductions.privatesmote_2024_figures import sign_tests
from experiments.reproductions.privatesmote_2024_gates import gate_budget
from harness.reproduction import ReproductionRun, load_plan
from harness.schema import to_results_frame

QI_SETS = ("qi0", "qi1", "qi2")


def _trial(
    dataset: str,
    qi: str,
    generator: str,
    params: dict[str, object],
    link: float,
    auc: float,
    fit: float = 1.0,
) -> list[dict]:
    key = f"{dataset}-{qi}-{generator}-{json.dumps(params, sort_keys=True)}"
    base = {
        "run_id": "r", "experiment": "privatesmote_2024", "status": "ok", "dataset": dataset, "qi_set": qi,
        "generator": generator, "generator_params": json.dumps(params, sort_keys=True), "trial_key": key,
        "fit_s": fit, "sample_s": 0.1, "details": json.dumps({"n_test": 400}),
    }  # fmt: skip
    return [
        {**base, "metric": "linkability", "variant": "", "family": "privacy", "value": link, "goal": "minimise"},
        {**base, "metric": "ml_efficacy", "variant": "best:roc_auc", "family": "utility", "value": auc,
         "goal": "maximise"},
        {**base, "metric": "fit_seconds", "variant": "", "family": "cost", "value": fit, "goal": "minimise"},
    ]  # fmt: skip


def _results(paper_gan_auc: float) -> pd.DataFrame:
    """ds3 (two budgets) and ds55 (shrunk only); ε-PrivateSMOTE's AUC 0.9, the GANs' 0.7 at the shrunk budget."""
    rows: list[dict] = []
    for dataset in ("ds3", "ds55"):
        for qi in QI_SETS:
            rows += _trial(dataset, qi, "eps_private_smote", {"epsilon": 0.5, "knn": 3}, 0.01, 0.90, fit=0.1)
            rows += _trial(dataset, qi, "rus", {"ratio": 1.0}, 0.20, 0.95)
            for generator, (param, shrunk, paper) in PROTOCOL_BUDGETS.items():
                for bs in (50, 100):
                    rows += _trial(
                        dataset, qi, generator, {param: shrunk, "batch_size": bs}, 0.005, 0.70 + bs / 1e4
                    )
                    if dataset == "ds3":
                        rows += _trial(
                            dataset, qi, generator, {param: paper, "batch_size": bs}, 0.001,
                            paper_gan_auc + bs / 1e4, fit=60.0,
                        )  # fmt: skip
    rows += _trial("ds38", "qi0", "eps_private_smote", {"epsilon": 0.5, "knn": 3}, 0.01, 0.8)  # no baselines
    return to_results_frame(rows)


def _run(tmp_path: Path, results: pd.DataFrame, profile: str = "protocol") -> ReproductionRun:
    return ReproductionRun(load_plan("privatesmote_2024", profile), tmp_path, results)


def test_the_protocol_profile_is_persistent_and_its_header_names_its_departures() -> None:
    plan = load_plan("privatesmote_2024", "protocol")
    assert plan.persist
    for words in (
        "ds55",
        "ds43",
        "ds3",
        "budget",
        "n_attacks",
        "XGBoost",
        "Expected run time",
        "adequacy gates",
    ):
        assert words in plan.description, words
    sweeps = {s.name for s in plan.sweeps}
    assert {"eps_private_smote", "budget_sdv", "budget_dp_gans", "smote_ds38"} <= sweeps


def test_main_results_drop_the_paper_budget_trials_only_in_the_protocol_profile(tmp_path: Path) -> None:
    results = _results(paper_gan_auc=0.72)
    paper_rows = 3 * len(PROTOCOL_BUDGETS) * len(QI_SETS) * 2  # ds3 only, 3 rows a trial, two batch sizes
    assert len(main_results(_run(tmp_path, results))) == len(results) - paper_rows
    assert len(main_results(_run(tmp_path, results, "quick"))) == len(results)


def test_fig5_blocks_are_dataset_qi_pairs_holding_every_technique(tmp_path: Path) -> None:
    table = sign_tests(_run(tmp_path, _results(paper_gan_auc=0.72))).set_index("technique")
    assert set(table.index) == {"ε-PrivateSMOTE", "RUS", *(TECHNIQUES[g] for g in PROTOCOL_BUDGETS)}
    assert (table["n"] == 2 * len(QI_SETS)).all()  # ds3 and ds55 × 3 QI sets; ds38 lacks the baselines
    assert table.loc["RUS", "share_draw"] == 1.0  # RUS is every block's oracle
    assert table.loc["ε-PrivateSMOTE", "share_draw"] == 0.0  # 0.90 against 0.95: 5.3 % below


@pytest.mark.parametrize(("paper_auc", "suffices"), [(0.705, True), (0.99, False)])
def test_the_budget_gate_compares_the_two_budgets_on_ds3(
    tmp_path: Path, paper_auc: float, suffices: bool
) -> None:
    gates = {g.key: g for g in gate_budget(_run(tmp_path, _results(paper_gan_auc=paper_auc)))}
    assert set(gates) == {f"{g}@{p}={s}" for g, (p, s, _) in PROTOCOL_BUDGETS.items()}
    assert all(g.passed is suffices and g.gate == "budget suffices" for g in gates.values())
    assert "over 2 paired variants" in gates["sdv_tvae@epochs=10"].detail
    assert gate_budget(_run(tmp_path, _results(paper_gan_auc=paper_auc), "quick")) == []


def test_cost_claims_read_the_paper_budget_on_ds3_in_the_protocol_profile(tmp_path: Path) -> None:
    run = _run(tmp_path, _results(paper_gan_auc=0.72))
    assert minutes(run, "pategan").tolist() == pytest.approx([60.1 / 60] * 2)  # the two batch sizes at 100
    assert len(minutes(run, "eps_private_smote")) == len(QI_SETS)  # one variant per QI set of ds3
    check = check_cost_ordering(run)
    assert check.kind == "claim" and "GANs at the paper's smallest budget" in check.reason
    assert (
        not check.passed and check.verdict == "inconclusive"
    )  # PATE-GAN = DPGAN: no difference beyond noise
