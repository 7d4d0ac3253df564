"""R-BLOG checks on hand-made result rows: kinds, the User-versus-Default claim, the notes."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from experiments.reproductions import data_anonymizer_2023 as mod
from harness.reproduction import Check, ReproductionRun
from harness.reproduction.plan import load_plan
from harness.reproduction.verdict import KINDS
from harness.schema import to_results_frame

CURVES = {
    "identity": [1.0, 0.93, 0.90, 0.88, 0.86, 0.85],
    "data_anonymizer_default": [1.0, 0.997, 0.992, 0.990, 0.987, 0.98],
    "data_anonymizer_user": [1.0, 1.0, 1.0, 1.0, 1.0, 0.99],
    "kanon_fulldomain": [1.0, 1.0, 1.0, 1.0, 1.0, 0.995],
}
K = {"identity": 1, "data_anonymizer_default": 1, "data_anonymizer_user": 5, "kanon_fulldomain": 5}


def _results(curves: dict[str, list[float]] = CURVES, k: dict[str, int] = K) -> pd.DataFrame:
    rows = []
    for generator, curve in curves.items():
        base = {
            "run_id": "r", "experiment": "data_anonymizer_2023", "dataset": "adult", "status": "ok",
            "generator": generator, "generator_params": "{}", "gen_seed": 0, "trial_key": generator,
            "n_train": 32561, "qi_set": "data_anonymizer", "metric": "reid_score", "family": "privacy",
        }  # fmt: skip
        details = json.dumps({"k_threshold_curve": {"k": list(range(1, len(curve) + 1)), "release": curve}})
        rows.append({**base, "variant": "reid_mean", "value": 0.01, "details": details})
        rows.append({**base, "variant": "reid_max", "value": 1 / k[generator], "details": "{}"})
        rows.append({**base, "variant": "k_anonymity", "value": float(k[generator]), "details": "{}"})
        if generator == "data_anonymizer_user":
            rows.append({**base, "variant": "suppression_rate", "value": 0.043, "details": "{}"})
    return to_results_frame(rows)


def _checks(run: ReproductionRun) -> dict[str, Check]:
    out: list[Check] = []
    for function in mod.CHECKS:
        produced = function(run)
        out.extend([produced] if isinstance(produced, Check) else list(produced))
    return {c.id: c for c in out}


def _run(tmp_path: Path, results: pd.DataFrame) -> ReproductionRun:
    return ReproductionRun(load_plan("data_anonymizer_2023", "paper"), tmp_path, results)


def test_one_claim_the_rest_definitions_and_arithmetic(tmp_path: Path) -> None:
    checks = _checks(_run(tmp_path, _results()))
    assert all(c.kind in KINDS for c in checks.values())
    assert [i for i, c in checks.items() if c.is_claim] == ["user-higher-anonymity-than-default"]
    assert {checks["blog-reid-one-third"].kind, checks["blog-max-score-gives-k"].kind} == {"arithmetic"}
    assert checks["curve-identity"].kind == "sanity" and checks["setup-releases"].kind == "setup"
    assert all(c.verdict == "passes" for c in checks.values() if not c.is_claim)
    claim = checks["user-higher-anonymity-than-default"]
    assert claim.verdict == "reproduced" and claim.why == "a deterministic value: no noise"
    assert "k-anonymity User 5, Default 1" in claim.observed


def test_claim_fails_when_the_default_is_as_anonymous(tmp_path: Path) -> None:
    curves = {**CURVES, "data_anonymizer_default": CURVES["data_anonymizer_user"]}
    checks = _checks(_run(tmp_path, _results(curves, {**K, "data_anonymizer_default": 5})))
    assert checks["user-higher-anonymity-than-default"].verdict == "not reproduced"


def test_referee_notes_say_what_the_curves_count(tmp_path: Path) -> None:
    run = _run(tmp_path, _results())
    notes = " ".join(mod.referee_notes(run, list(_checks(run).values())))
    assert "4.3% of the training rows" in notes and "1.3% of the Default release's rows" in notes
    assert "more rows removed than the Default left at risk" in notes and "presets" in notes
