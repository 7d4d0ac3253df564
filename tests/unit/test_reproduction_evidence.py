"""Uncertainty records and adequacy gates of reproduction claims (issue 27)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from harness.reproduction import uncertainty as unc
from harness.reproduction.adequacy import budget_gate, epsilon_gate, trivial_score, utility_gate
from harness.reproduction.plan import ReproductionPlan
from harness.reproduction.view import ReproductionRun
from harness.schema import to_results_frame


def test_bootstrap_intervals_are_reproducible_and_need_two_values() -> None:
    values = [0.1, 0.2, 0.3, 0.4]
    first, second = unc.bootstrap_mean(values), unc.bootstrap_mean(values)
    assert first == second and first is not None
    assert first["low"] < 0.25 < first["high"] and first["estimate"] == pytest.approx(0.25)
    assert unc.bootstrap_mean([0.5]) is None and unc.bootstrap_mean([np.nan, 1.0]) is None


def test_paired_difference_uses_shared_blocks_only() -> None:
    a = pd.Series([1.0, 2.0, 3.0, 9.0], index=["x", "y", "z", "only-a"])
    b = pd.Series([0.5, 1.5, 2.5], index=["x", "y", "z"])
    entry = unc.paired_difference(a, b, "a − b")
    assert entry is not None and entry["estimate"] == pytest.approx(0.5)
    assert entry["low"] == pytest.approx(0.5) and entry["high"] == pytest.approx(
        0.5
    )  # constant gap: no noise
    assert unc.difference(a, b, "d")["estimate"] == pytest.approx(0.5)  # paired when blocks are shared


def test_spearman_trend_sign_follows_the_stated_direction() -> None:
    frame = pd.DataFrame(
        {"eps": [0.1, 0.5, 1, 5, 10] * 3, "value": [5, 4, 3, 2, 1] * 3, "block": [0] * 5 + [1] * 5 + [2] * 5}
    )
    down = unc.spearman_trend(frame, "eps", "value", "block", increasing=False)
    assert down is not None and down["estimate"] == pytest.approx(1.0) and down["low"] > 0
    up = unc.spearman_trend(frame, "eps", "value", "block", increasing=True)
    assert up is not None and up["high"] < 0


def test_wilson_interval_contains_the_rate() -> None:
    entry = unc.wilson(36, 100)
    assert entry is not None and entry["low"] < 0.36 < entry["high"] and 0.26 < entry["low"] < 0.28
    assert unc.wilson(0, 0) is None


def test_describe_is_short_text() -> None:
    record = unc.record("paired bootstrap over 6 datasets", [unc.interval("a − b", 0.1234, 0.01, 0.2)], n=6)
    assert unc.describe(record) == "a − b: 0.123 [0.010, 0.200] (paired bootstrap over 6 datasets)"
    assert unc.describe(unc.decided_by_test("Wilcoxon", "undecided")) == "test: undecided (Wilcoxon)"
    with pytest.raises(ValueError, match="decision must be one of"):
        unc.decided_by_test("x", "maybe")


def test_trivial_scores_of_a_constant_predictor() -> None:
    shares = pd.Series({"no": 0.66, "yes": 0.34})
    assert trivial_score("accuracy", shares) == pytest.approx(0.66)
    assert trivial_score("roc_auc", shares) == 0.5
    assert trivial_score("f1", shares) == pytest.approx(2 * 0.34 / 1.34)
    with pytest.raises(ValueError, match="no trivial predictor"):
        trivial_score("brier", shares)


# ---------------------------------------------------------------------- gates on a run
def _run(tmp_path: Path, rows: list[dict[str, object]]) -> ReproductionRun:
    plan = ReproductionPlan("exp", "R-X", "p.txt", "Title", "Table 1", "m", "protocol", "", (), ())
    base = {
        "run_id": "r",
        "experiment": "exp",
        "status": "ok",
        "family": "utility",
        "split_seed": 0,
        "fold": 0,
    }
    return ReproductionRun(plan, tmp_path, to_results_frame([{**base, **r} for r in rows]))


def _utility(generator: str, eps: float, seed: int, value: float, dataset: str = "d") -> dict[str, object]:
    return {
        "generator": generator, "generator_params": json.dumps({"epsilon": eps}), "metric": "ml_efficacy",
        "variant": "random_forest:accuracy", "value": value, "gen_seed": seed, "dataset": dataset,
        "trial_key": f"{generator}-{eps}-{seed}-{dataset}", "details": json.dumps({"n_test": 900}),
    }  # fmt: skip


def test_utility_gate_needs_the_interval_above_the_majority_rate(tmp_path: Path) -> None:
    rows = [_utility("collapsed", 1, s, v) for s, v in enumerate([0.34, 0.35, 0.33])]
    rows += [_utility("learnt", 1, s, v) for s, v in enumerate([0.80, 0.82, 0.81])]
    rows += [_utility("single", 1, 0, 0.67)]  # one value: Wilson over 900 test rows
    run = _run(tmp_path, rows)
    variant = "random_forest:accuracy"
    assert not utility_gate(run, "collapsed", 0.66, variant=variant).passed
    learnt = utility_gate(run, "learnt", 0.66, variant=variant)
    assert learnt.passed and learnt.gate == "learns" and "d: 0.810" in learnt.detail
    single = utility_gate(run, "single", 0.66, variant=variant)
    assert not single.passed and "Wilson over 900 test rows" in single.detail  # 0.67 is within noise of 0.66
    assert not utility_gate(run, "absent", 0.66, variant=variant).passed


def test_epsilon_gate_fails_when_the_output_ignores_epsilon(tmp_path: Path) -> None:
    rows = [_utility("frozen", e, s, 0.35) for e in (1, 50) for s in range(3)]
    rows += [_utility("dp", 1, s, 0.60 + 0.01 * s) for s in range(3)]
    rows += [_utility("dp", 50, s, 0.80 + 0.01 * s) for s in range(3)]
    run = _run(tmp_path, rows)
    measures = [("ml_efficacy", "random_forest:accuracy")]
    frozen = epsilon_gate(run, "frozen", measures)
    assert not frozen.passed and "no measure differs beyond noise" in frozen.detail
    assert epsilon_gate(run, "dp", measures).passed


def test_budget_gate_asks_for_equivalence_between_budgets(tmp_path: Path) -> None:
    def row(epochs: int, seed: int, value: float) -> dict[str, object]:
        return {**_utility("gan", 1, seed, value), "generator_params": json.dumps({"epochs": epochs}),
                "trial_key": f"{epochs}-{seed}"}  # fmt: skip

    moving = _run(
        tmp_path,
        [row(30, s, 0.60 + 0.01 * s) for s in range(3)] + [row(300, s, 0.70 + 0.01 * s) for s in range(3)],
    )
    gate = budget_gate(moving, "gan", param="epochs", low=30, high=300, metric="ml_efficacy",
                       variant="random_forest:accuracy", tolerance=0.02)  # fmt: skip
    assert not gate.passed and gate.key == "gan@epochs=30" and "+0.100" in gate.detail
    still = _run(
        tmp_path,
        [row(30, s, 0.70 + 0.01 * s) for s in range(3)] + [row(300, s, 0.705 + 0.01 * s) for s in range(3)],
    )
    assert budget_gate(still, "gan", param="epochs", low=30, high=300, metric="ml_efficacy",
                       variant="random_forest:accuracy", tolerance=0.02).passed  # fmt: skip


def test_lead_notes_open_the_referee_summary() -> None:
    from harness.reproduction import Check
    from harness.reproduction.referee import Lead, referee_summary
    from harness.reproduction.uncertainty import DETERMINISTIC

    claim = Check("c", "the method wins", "wins", "wins by 0.1", "exact", True, kind="claim",
                  reason="the interval lies above 0", uncertainty=DETERMINISTIC)  # fmt: skip
    lines = referee_summary([claim], [], ["an ordinary note", Lead("at the paper's budget it loses")])
    assert lines[0] == "at the paper's budget it loses"
    assert lines[1].startswith("**Holds** (1 of 1 claims)") and lines[-1] == "an ordinary note"
