"""R-BLOG checks on hand-made result rows: kinds, the not-evaluable claim, the premise, the notes, artifacts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from experiments.reproductions import data_anonymizer_2023 as mod
from harness.reproduction import Check, ReproductionRun
from harness.reproduction.plan import load_plan
from harness.reproduction.referee import referee_summary
from harness.reproduction.verdict import KINDS
from harness.schema import to_results_frame

N_TRAIN = 32561
CURVES = {
    "identity": [1.0, 0.93, 0.90, 0.88, 0.86, 0.85, 0.84],
    "data_anonymizer_default": [1.0, 0.997, 0.992, 0.990, 0.987, 0.98, 0.975],
    "data_anonymizer_user": [1.0, 1.0, 1.0, 1.0, 1.0, 0.985, 0.970],  # below Default at k = 7
    "kanon_fulldomain": [1.0, 1.0, 1.0, 1.0, 1.0, 0.995, 0.99],
}
K = {"identity": 1, "data_anonymizer_default": 1, "data_anonymizer_user": 5, "kanon_fulldomain": 5}
RELEASED = {"data_anonymizer_user": 31163, "kanon_fulldomain": 32473}
PLANS: dict[str, dict[str, dict[str, Any]]] = {
    "data_anonymizer_default": {
        "age": {"technique": "binning", "n_bins": 10},
        "sex": {"technique": "rare", "rare_threshold": 3},
        "marital-status": {"technique": "hierarchy", "level": 1},
    },
    "data_anonymizer_user": {
        "age": {"technique": "binning", "n_bins": 5},
        "sex": {"technique": "rare", "rare_threshold": 5},
        "marital-status": {"technique": "rare", "rare_threshold": 5},
    },
}


def _results(
    curves: dict[str, list[float]] = CURVES,
    k: dict[str, int] = K,
    plans: dict[str, dict[str, dict[str, Any]]] = PLANS,
) -> pd.DataFrame:
    rows = []
    for generator, curve in curves.items():
        n_rows = RELEASED.get(generator, N_TRAIN)
        base = {
            "run_id": "r", "experiment": "data_anonymizer_2023", "dataset": "adult", "status": "ok",
            "generator": generator, "generator_params": "{}", "gen_seed": 0, "trial_key": generator,
            "n_train": N_TRAIN, "qi_set": "data_anonymizer", "metric": "reid_score", "family": "privacy",
        }  # fmt: skip
        details = json.dumps(
            {
                "k_threshold_curve": {"k": list(range(1, len(curve) + 1)), "release": curve},
                "n_rows": n_rows,
                "n_train": N_TRAIN,
                "qi": ["age", "sex", "marital-status"],
            }  # fmt: skip
        )
        rows.append({**base, "variant": "reid_mean", "value": 0.01, "details": details})
        rows.append({**base, "variant": "reid_max", "value": 1 / k[generator], "details": "{}"})
        rows.append({**base, "variant": "k_anonymity", "value": float(k[generator]), "details": "{}"})
        if n_rows < N_TRAIN:
            rows.append(
                {**base, "variant": "suppression_rate", "value": 1 - n_rows / N_TRAIN, "details": "{}"}
            )
        if generator in plans:
            rows.append({**base, "metric": "fit_seconds", "variant": "", "family": "cost", "value": 0.1,
                         "details": json.dumps({"generator": {"columns": plans[generator]}})})  # fmt: skip
    return to_results_frame(rows)


def _checks(run: ReproductionRun) -> dict[str, Check]:
    out: list[Check] = []
    for function in mod.CHECKS:
        produced = function(run)
        out.extend([produced] if isinstance(produced, Check) else list(produced))
    return {c.id: c for c in out}


def _run(tmp_path: Path, results: pd.DataFrame) -> ReproductionRun:
    return ReproductionRun(load_plan("data_anonymizer_2023", "paper"), tmp_path, results)


def test_the_one_claim_is_not_evaluable_and_says_why_up_front(tmp_path: Path) -> None:
    checks = _checks(_run(tmp_path, _results()))
    assert all(c.kind in KINDS for c in checks.values())
    assert [i for i, c in checks.items() if c.is_claim] == [mod.CLAIM_ID]
    claim = checks[mod.CLAIM_ID]
    assert claim.verdict == "not evaluable" and claim.not_evaluable.startswith("our presets, not the blog's")
    summary = " ".join(referee_summary(list(checks.values()), []))
    assert "Holds" not in summary and "Cannot be tested here** (1 of 1 claims)" in summary
    # the denominator is in the summary's first clause: 1.000 × 31,163 / 32,561 = 0.957 against 0.987
    assert "its share at least 5-anonymous is 0.957 against Default's 0.987" in summary
    assert "User lies below Default at 1 of 7 thresholds (k = 7; by up to 0.005" in claim.observed
    assert "of all training rows (suppressed = unprotected) User 0.957, Default 0.987" in claim.observed


def test_other_kinds_definitions_arithmetic_and_the_presets(tmp_path: Path) -> None:
    checks = _checks(_run(tmp_path, _results()))
    assert {
        checks[i].kind for i in ("blog-reid-one-third", "blog-max-score-gives-k", "blog-class-of-three")
    } == {"arithmetic"}
    assert "33.3 %" in checks["blog-reid-one-third"].observed
    assert checks["curve-identity"].kind == "sanity" and checks["setup-releases"].kind == "setup"
    preset = checks["presets-user-at-or-above-default"]
    assert preset.kind == "sanity" and preset.verdict == "passes" and "by construction" in preset.reason
    failing = [i for i, c in checks.items() if not c.is_claim and c.verdict != "passes"]
    assert failing == ["setup-user-premise"]


def test_premise_needs_more_generalisation_on_every_qi_and_more_suppression(tmp_path: Path) -> None:
    premise = _checks(_run(tmp_path, _results()))["setup-user-premise"]
    assert not premise.passed and "marital-status: User values seen < 5 times grouped, Default hierarchy" in (
        premise.observed
    )
    assert "(Default coarser)" in premise.observed and "age: User 5 bins, Default 10 bins (User coarser)" in (
        premise.observed
    )
    coarser = {**PLANS, "data_anonymizer_user": {**PLANS["data_anonymizer_user"],
                                                 "marital-status": {"technique": "hierarchy", "level": 2}}}  # fmt: skip
    assert _checks(_run(tmp_path, _results(plans=coarser)))["setup-user-premise"].passed


def test_referee_notes_give_both_denominators_and_the_whole_curve(tmp_path: Path) -> None:
    run = _run(tmp_path, _results())
    notes = " ".join(mod.referee_notes(run, list(_checks(run).values())))
    assert "counting the 4.3% of rows User suppresses as unprotected" in notes
    assert "over all training rows User lies below Default at k = 1–7" in notes
    assert "the two lines cross and overlap" in notes and "no noise to test" in notes
    assert "more suppression but not more generalisation" in notes
    above = {**CURVES, "data_anonymizer_user": [1.0] * 7}
    run = _run(tmp_path, _results(above))
    notes = " ".join(mod.referee_notes(run, list(_checks(run).values())))
    assert "cross" not in notes and "stays on or above Default" in notes


def test_artifacts_name_what_they_show(tmp_path: Path) -> None:
    run = _run(tmp_path, _results())
    mod.artifacts(run)
    summary = (run.out_dir / "tables" / "reid_summary.md").read_text()
    assert (
        "Fig. 4" not in summary.splitlines()[0] and "Summary statistics of re-identification score" in summary
    )
    curves = pd.read_csv(run.out_dir / "tables" / "k_threshold_curves.csv")
    assert len(curves) == 7 and curves["User − Default"].iloc[-1] < 0
    assert (run.out_dir / "figures" / "k_threshold_user_vs_default.png").is_file()
