"""R-SYNPIPER checks on hand-made result rows: kinds, the ε claims, the gates, the copies claim."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from experiments.reproductions import synpiper_2023 as mod
from experiments.reproductions.synpiper_2023_gates import cost_notes
from experiments.reproductions.synpiper_2023_select import CLASSIFIERS, FIDELITY, SCORES, release_params
from harness.reproduction import Check, ReproductionRun
from harness.reproduction.adequacy import apply_gates
from harness.reproduction.plan import load_plan
from harness.reproduction.runner import count_jobs, evaluate_gates
from harness.reproduction.verdict import CLAIM_VERDICTS, KINDS
from harness.schema import to_results_frame

TRTR = {"f1": 0.68, "roc_auc": 0.90}


def _trial(
    generator: str,
    params: dict[str, Any],
    seed: int,
    quality: float,
    auc: float,
    *,
    f1: float = 0.6,
    fit_s: float = 1.0,
    copies: tuple[int, int] | None = None,
) -> list[dict[str, Any]]:
    """The rows of one trial: every fidelity score at ``quality``, TSTR ROC AUC ``auc`` and F1 ``f1``."""
    key = f"{generator}-{json.dumps(params, sort_keys=True)}-{seed}"
    base = {
        "run_id": "r", "experiment": "synpiper_2023", "dataset": "adult", "status": "ok", "generator": generator,
        "generator_params": json.dumps(params), "gen_seed": seed, "trial_key": key, "n_train": 39073,
        "fit_s": fit_s, "split_seed": 0, "fold": 0,
    }  # fmt: skip
    rows = []
    for metric in FIDELITY:
        details = json.dumps({"properties": {"Column Shapes": quality, "Column Pair Trends": quality}})
        rows.append({**base, "metric": metric, "variant": "", "family": "fidelity", "value": quality,
                     "details": details if metric == "quality_score" else ""})  # fmt: skip
    if generator != "real_holdout":
        for clf in CLASSIFIERS:
            for score in SCORES:
                value = auc if score == "roc_auc" else f1
                rows.append({**base, "metric": "ml_efficacy", "variant": f"{clf}:{score}", "family": "utility",
                             "value": value, "baseline": TRTR[score], "details": "{}"})  # fmt: skip
    if copies is not None:
        n, total = copies
        rows.append({**base, "metric": "exact_match", "variant": "row_copy_rate", "family": "privacy",
                     "value": n / total, "details": json.dumps({"n_copies": n, "n_release": total})})  # fmt: skip
    return rows


PB_QUALITY = {0.01: 0.50, 0.1: 0.73, 1.0: 0.88}
PB_AUC = {0.01: 0.50, 0.1: 0.60, 1.0: 0.81}


def _results(
    *,
    pb_quality: dict[float, float] = PB_QUALITY,
    jitter: tuple[float, float, float] = (0.0, 0.01, -0.01),
    full: bool = False,
    tvae_copies: int = 5,
) -> pd.DataFrame:
    """A protocol-like run; ``full`` adds the 300-epoch sweeps with exact_match and the real holdout."""
    rows = _trial("identity", {}, 0, 1.0, TRTR["roc_auc"], f1=TRTR["f1"])
    for seed, j in zip((0, 1, 2), jitter):
        for eps, q in pb_quality.items():
            rows += _trial("privbayes", {"epsilon": eps, "k": 1}, seed, q + j, PB_AUC[eps] + j, f1=0.3)
        rows += _trial("sdv_ctgan", {"epochs": 20}, seed, 0.80 + j / 2, 0.84, fit_s=420.0 + seed)
        rows += _trial("sdv_ctgan", {"epochs": 5}, seed, 0.79 + j / 2, 0.60, f1=0.05, fit_s=140.0 + seed)
        rows += _trial("sdv_tvae", {"epochs": 50}, seed, 0.87 + j / 2, 0.87, fit_s=150.0)
        rows += _trial("sdv_tvae", {"epochs": 15}, seed, 0.82 + j / 2, 0.85, fit_s=82.0)
        if full:
            rows += _trial(
                "sdv_ctgan", {"epochs": 300}, seed, 0.85 + j / 2, 0.86, fit_s=5600.0, copies=(0, 39073)
            )
            rows += _trial(
                "sdv_tvae", {"epochs": 300}, seed, 0.875 + j / 2, 0.875, copies=(tvae_copies, 39073)
            )
    if full:
        rows += _trial("real_holdout", {}, 0, 0.99, 0.0, copies=(18, 9769))
    return to_results_frame(rows)


def _run(tmp_path: Path, results: pd.DataFrame, profile: str = "protocol") -> ReproductionRun:
    return ReproductionRun(load_plan("synpiper_2023", profile), tmp_path, results)


def _evaluate(run: ReproductionRun) -> dict[str, Check]:
    """As the runner does: gates first, then the checks, gate failures applied."""
    run.gates = evaluate_gates(mod, run)
    out: list[Check] = []
    for function in mod.CHECKS:
        produced = function(run)
        out.extend([produced] if isinstance(produced, Check) else list(produced))
    return {c.id: c for c in apply_gates(out, run.gates)}


def test_protocol_profile_appends_the_300_epoch_sweeps() -> None:
    plan = load_plan("synpiper_2023", "protocol")
    assert plan.persist and "departures" in plan.description.lower()
    assert "135 CPU seconds per CTGAN epoch that the committed fits contradict" in plan.description
    assert count_jobs(plan) == {
        "reference": 1, "releases": 9, "epsilon": 6, "budget_ctgan": 3, "budget_tvae": 3,
        "budget_ctgan_300": 3, "budget_tvae_300": 3, "copies_reference": 1,
    }  # fmt: skip
    assert [s.name for s in plan.sweeps][:5] == [
        "reference",
        "releases",
        "epsilon",
        "budget_ctgan",
        "budget_tvae",
    ]
    ctgan = next(s for s in plan.sweeps if s.name == "budget_ctgan_300")
    assert "generator.epochs=300" in ctgan.overrides and "runtime.timeout_s=21600" in ctgan.overrides


def test_every_check_has_a_kind_and_claims_follow_the_rule(tmp_path: Path) -> None:
    checks = _evaluate(_run(tmp_path, _results()))
    assert all(c.kind in KINDS for c in checks.values())
    claims = {i: c for i, c in checks.items() if c.is_claim}
    assert set(claims) == {
        "privbayes-fidelity-rises-with-epsilon", "privbayes-utility-rises-with-epsilon",
        "deep-learning-samples-not-copies", "ctgan-high-fidelity", "tvae-similar-distribution",
    }  # fmt: skip
    assert all(c.verdict in CLAIM_VERDICTS for c in claims.values())
    for check in claims.values():
        assert Check.from_dict(check.to_dict()).verdict == check.verdict
    assert checks["identity-tstr-equals-trtr"].kind == "sanity" and checks["setup-releases"].kind == "setup"


def test_epsilon_claims_need_every_step_beyond_the_seed_noise(tmp_path: Path) -> None:
    checks = _evaluate(_run(tmp_path, _results()))
    fidelity = checks["privbayes-fidelity-rises-with-epsilon"]
    assert fidelity.verdict == "reproduced" and "→" in fidelity.observed and "<" not in fidelity.observed
    assert fidelity.uncertainty is not None and len(fidelity.uncertainty["intervals"]) == 2
    assert fidelity.depends_on == ("privbayes",)
    assert checks["privbayes-utility-rises-with-epsilon"].verdict == "reproduced"
    # ε = 0.1 and ε = 1 tie up to seed noise: the step's interval includes 0
    flat = _run(tmp_path, _results(pb_quality={0.01: 0.5, 0.1: 0.8, 1.0: 0.8}, jitter=(0.0, 0.03, -0.03)))
    check = _evaluate(flat)["privbayes-fidelity-rises-with-epsilon"]
    assert check.verdict == "inconclusive" and "within noise" in check.why


def test_without_300_epoch_rows_the_budget_gates_fail_and_copies_are_not_evaluable(tmp_path: Path) -> None:
    run = _run(tmp_path, _results())
    checks = _evaluate(run)
    assert release_params(run, "sdv_ctgan") == {"epochs": 20}
    gates = {g.key: g for g in run.gates}
    for key in ("sdv_ctgan@epochs=5", "sdv_ctgan@epochs=20", "sdv_tvae@epochs=15", "sdv_tvae@epochs=50"):
        assert not gates[key].passed and "no 300-epoch rows" in gates[key].detail
    assert gates["privbayes"].passed and gates["privbayes@epsilon"].passed
    assert not gates["privbayes:f1"].passed  # F1 0.3 < always predicting >50K (0.386)
    assert gates["sdv_ctgan:f1"].passed  # CTGAN at 20 epochs: F1 0.6
    copies = checks["deep-learning-samples-not-copies"]
    assert copies.verdict == "not evaluable" and "budget_ctgan_300" in copies.not_evaluable
    ctgan = checks["ctgan-high-fidelity"]
    assert ctgan.verdict == "not evaluable" and "no 300-epoch rows" in ctgan.not_evaluable
    assert "CTGAN (20 epochs) Quality 0.800" in ctgan.observed
    assert not checks["setup-sdv-default-epochs"].passed
    notes = " ".join(mod.referee_notes(run, list(checks.values())))
    assert "trained 20 of SDV's 300 epochs" in notes and "privbayes:f1" in notes


def test_300_epoch_rows_become_the_headline_and_decide_gates_and_copies(tmp_path: Path) -> None:
    run = _run(tmp_path, _results(full=True))
    checks = _evaluate(run)
    assert release_params(run, "sdv_tvae") == {"epochs": 300}
    gates = {g.key: g for g in run.gates}
    assert not gates["sdv_ctgan@epochs=5"].passed and "not inside ±0.02" in gates["sdv_ctgan@epochs=5"].detail
    assert gates["sdv_tvae@epochs=50"].passed  # Quality +0.005 and ROC AUC +0.005: inside ±0.02
    copies = checks["deep-learning-samples-not-copies"]
    assert copies.verdict == "reproduced", copies.why  # 0 and 0.013 % against a holdout bound of 0.29 %
    assert copies.expected["high"] == pytest.approx(0.0029, abs=5e-4)
    assert checks["setup-sdv-default-epochs"].passed
    leaky = _evaluate(_run(tmp_path, _results(full=True, tvae_copies=2000)))[
        "deep-learning-samples-not-copies"
    ]
    assert leaky.verdict == "not reproduced" and "TVAE (300 epochs)" in leaky.why


def test_quick_and_paper_profiles_report_the_epsilon_claims_as_not_evaluable(tmp_path: Path) -> None:
    results = _results(pb_quality={1.0: 0.8})
    for profile in ("quick", "paper"):
        checks = _evaluate(_run(tmp_path, results, profile))
        check = checks["privbayes-fidelity-rises-with-epsilon"]
        assert check.verdict == "not evaluable" and "epsilon sweep" in check.not_evaluable
        assert "setup-epsilon-grid" not in checks
        assert {f"tstr-at-most-trtr-{g}" for g in mod.GENERATORS} <= set(checks)
    assert "setup-sdv-default-epochs" not in _evaluate(_run(tmp_path, results, "quick"))


def test_artifacts_and_cost_notes(tmp_path: Path) -> None:
    run = _run(tmp_path, _results(full=True))
    _evaluate(run)
    mod.artifacts(run)
    fidelity = pd.read_csv(run.out_dir / "tables" / "fidelity.csv").set_index("release")
    assert "PrivBayes / DataSynthesizer (ε = 1)" in fidelity.index and "(ε = 1) (ε = 1)" not in "".join(
        fidelity.index
    )
    assert fidelity.loc["CTGAN (300 epochs)", "quality_score"] == pytest.approx(0.85)
    budget = pd.read_csv(run.out_dir / "tables" / "training_budget.csv")
    assert budget["epochs"].tolist() == [5, 20, 300, 15, 50, 300]
    copies = pd.read_csv(run.out_dir / "tables" / "row_copies.csv")
    assert set(copies["release"]) == {"real holdout (new real rows)", "CTGAN", "TVAE"}
    note = cost_notes(_run(tmp_path, _results()))[0]
    assert "18.7 s per epoch" in note and "at 20 epochs" in note
