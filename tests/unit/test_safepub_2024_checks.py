"""R-SAFEPUB checks (experiments/reproductions/safepub_2024*.py): kinds, the paper's own
inconsistencies found by arithmetic, and claim verdicts from the runs' replication."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from experiments.reproductions import safepub_2024, safepub_2024_claims
from harness.reproduction import ReproductionPlan, ReproductionRun


def _run(profile: str = "paper", results: pd.DataFrame | None = None) -> ReproductionRun:
    plan = ReproductionPlan("safepub_2024", "R-SAFEPUB", "p", "t", "s", "m", profile, "", (), ())
    return ReproductionRun(plan, Path("/nonexistent"), results if results is not None else pd.DataFrame())


def _trials(cells: dict[tuple[float, object], list[float]], target: str = "marital") -> pd.DataFrame:
    """fit_seconds rows (the generator's details) and relative-accuracy rows, one per run."""
    rows = []
    for (epsilon, beta), values in cells.items():
        for seed, value in enumerate(values):
            key = f"{epsilon}-{beta}-{seed}"
            params = json.dumps({"epsilon": epsilon, "beta": beta})
            details = json.dumps({"generator": {"k": 10, "n_train": 30162, "n_sampled": 6000, "n_classes": 40,
                                                "n_suppressed": 50, "suppressed_share": 0.01, "beta": 0.2}})  # fmt: skip
            base = {
                "generator": "safepub",
                "generator_params": params,
                "gen_seed": seed,
                "status": "ok",
                "trial_key": key,
            }
            rows.append({**base, "metric": "fit_seconds", "variant": "", "value": 1.0, "details": details})
            rows.append(
                {
                    **base,
                    "metric": f"relative_accuracy_{target}",
                    "variant": "relative_accuracy",
                    "value": value,
                    "details": "",
                }
            )
    return pd.DataFrame(rows)


def test_arithmetic_finds_the_papers_own_inconsistencies() -> None:
    run = _run()
    checks = {c.id: c for f in (safepub_2024.check_k_printed, safepub_2024.check_text_vs_table,
                                safepub_2024.check_beta_max_printed) for c in f(run)}  # fmt: skip
    checks["suppressed-ratio"] = safepub_2024.check_suppressed_ratio_printed(run)
    assert all(c.kind == "arithmetic" for c in checks.values())
    assert checks["k-printed-table1a"].verdict == checks["k-printed-table1b"].verdict == "passes"
    assert (
        checks["k-printed-table1c"].verdict == "fails"
        and "β = 0.9: printed 59, formula + 1 = 89" in checks["k-printed-table1c"].reason
    )
    text = checks["text-vs-table-marital"]
    assert text.verdict == "fails" and "63.1" in text.paper and "57.6" in text.paper  # visible in the report
    assert checks["text-improvement-22"].verdict == "passes"  # 76.7/63.1 − 1 = 21.6 %
    assert checks["beta-max-sign"].verdict == "fails"  # 1 − e^(0.9) < 0
    assert checks["beta-max-printed-eps3"].verdict == "passes"
    assert (
        checks["suppressed-ratio"].verdict == "fails" and "486.5/28149" in checks["suppressed-ratio"].reason
    )


def test_k_growth_is_a_deterministic_claim() -> None:
    check = safepub_2024_claims.check_k_growth(_run())
    assert (
        check.kind == "claim" and check.verdict == "reproduced" and (check.uncertainty or {})["deterministic"]
    )


def test_relative_accuracy_gain_needs_runs_beyond_noise() -> None:
    clear = _trials(
        {
            (3.0, "max"): [60, 61, 59, 62, 58],
            (3.0, 0.3): [75, 76, 74, 77, 73],
            (3.0, 0.2): [78, 79, 77, 80, 76],
        }
    )
    gains = {c.id: c for c in safepub_2024_claims.check_ra_gains(_run(results=clear))}
    assert gains["ra-marital-eps3"].verdict == "reproduced" and gains["ra-marital-eps3"].depends_on == (
        "relative-accuracy:marital",
    )
    noisy = _trials({(3.0, "max"): [60, 80, 70], (3.0, 0.3): [72, 62, 78], (3.0, 0.2): [70, 75, 66]})
    assert {c.id: c for c in safepub_2024_claims.check_ra_gains(_run(results=noisy))}[
        "ra-marital-eps3"
    ].verdict == "inconclusive"
    single = _trials({(3.0, "max"): [60], (3.0, 0.2): [80]})
    check = {c.id: c for c in safepub_2024_claims.check_ra_gains(_run("quick", single))}["ra-marital-eps3"]
    assert check.passed and check.verdict == "inconclusive"  # one run per cell: no interval


def test_gate_fails_when_the_qis_cannot_move_the_classifier(monkeypatch: pytest.MonkeyPatch) -> None:
    run = _run(results=_trials({(3.0, "max"): [90, 91, 92]}))
    monkeypatch.setattr(safepub_2024_claims, "suppressed_qi_floor", lambda target: 89.8)
    gates = {(g.key, g.gate): g for g in safepub_2024_claims.gate_relative_accuracy(run)}
    assert gates[("relative-accuracy:marital", "learns")].passed
    qis = gates[("relative-accuracy:marital", "the QIs decide it")]
    assert (
        not qis.passed and "10.2 points" in qis.detail and "21.7" in qis.detail
    )  # Table 1c's range 79.3 − 57.6
    monkeypatch.setattr(safepub_2024_claims, "suppressed_qi_floor", lambda target: 40.0)
    assert all(g.passed for g in safepub_2024_claims.gate_relative_accuracy(run) if g.key.endswith("marital"))
