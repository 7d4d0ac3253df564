"""R-ROBINHOOD checks (experiments/reproductions/robin_hood_2024*.py): per-repetition thresholds,
the Robin Hood gate and claim verdicts from the repetitions, on a synthetic run directory."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from experiments.reproductions import robin_hood_2024_data as data
from experiments.reproductions import robin_hood_2024_simulation as simulation
from harness.reproduction import ReproductionPlan, ReproductionRun
from harness.schema import to_results_frame


def _frame(seed: int, k: int, method: str, level: str, release: str, error: float) -> dict[str, object]:
    return {"dataset": data.SIMULATION, "method": method, "k": k, "x": 0.01, "seed": seed, "gen_seed": 0,
            "level": level, "release_level": release, "error": error}  # fmt: skip


def test_thresholds_per_repetition() -> None:
    rows = []
    for seed, last_exact in ((0, 11), (1, 12), (2, 3)):
        for k in (2, 3, 4, 10, 11, 12, 13):
            for level in ("minority", "super-minority"):
                rows.append(
                    _frame(
                        seed, k, data.SUPP, level, "exact" if k <= last_exact else "merged into 'Other'", 0.0
                    )
                )
    per_seed = data.thresholds(pd.DataFrame(rows))
    assert per_seed.to_dict() == {0: 11.0, 1: 12.0, 2: 3.0}
    none = pd.DataFrame(
        [_frame(0, k, data.NOSUPP, "minority", "merged into reference '*'", 1.0) for k in (2, 3)]
    )
    assert data.thresholds(none).to_dict() == {0: 1.0}  # not exact even at the grid's smallest k


def _write_run(
    tmp_path: Path, trials: list[tuple[str, int, int, dict[str, tuple[str, float, float]]]]
) -> ReproductionRun:
    """Job directories (rows.parquet + .hydra/config.yaml with the population seed) and the results frame.

    ``trials``: (generator, k, seed, {level: (release_level, or_release, error)}).
    """
    records = []
    for i, (generator, k, seed, levels) in enumerate(trials):
        key = f"t{i}"
        job = tmp_path / "s1" / str(i)
        (job / ".hydra").mkdir(parents=True)
        (job / ".hydra" / "config.yaml").write_text(f"dataset:\n  source:\n    params:\n      seed: {seed}\n")
        pd.DataFrame({"trial_key": [key]}).to_parquet(job / "rows.parquet")
        details = {"levels": {
            level: {"or_orig": 2.0, "or_release": o, "log_or_orig": 0.69, "log_or_release": 0.0, "release_level": r,
                    "error": e, "sign_flip": False}
            for level, (r, o, e) in levels.items()
        }}  # fmt: skip
        param = "k_target" if generator == data.RH else "k"
        records.append({
            "run_id": "r", "experiment": "robin_hood_2024", "status": "ok", "family": "utility", "split_seed": 0,
            "fold": 0, "gen_seed": 0, "dataset": data.SIMULATION, "generator": generator, "trial_key": key,
            "generator_params": json.dumps({param: k}), "metric": data.METRIC, "variant": data.HEADLINE,
            "value": 0.0, "n_train": 100_000, "details": json.dumps(details),
        })  # fmt: skip
    plan = ReproductionPlan("robin_hood_2024", "R-ROBINHOOD", "p", "t", "s", "m", "paper", "", (), ())
    data._job_params.cache_clear()
    return ReproductionRun(plan, tmp_path, to_results_frame(records))


def test_robin_hood_claims_not_evaluable_when_its_start_generalised_race(tmp_path: Path) -> None:
    star = {lvl: ("merged into reference '*'", 1.0, 1.0) for lvl in ("minority", "super-minority")}
    exact = {lvl: ("exact", 2.0, 0.01) for lvl in ("minority", "super-minority")}
    trials = []
    for seed in range(4):
        for k in (3, 30):
            trials.append((data.RH, k, seed, star))
            trials.append((data.SUPP, k, seed, exact))
            trials.append((data.NOSUPP, k, seed, star))
    run = _write_run(tmp_path, trials)
    run.gates = data.gate_robin_hood(run)
    gate = run.gate("robin_hood@S1")
    assert gate is not None and not gate.passed and "0 of 8" in gate.detail
    from harness.reproduction.adequacy import apply_gates

    checks = {c.id: c for c in apply_gates(simulation.check_s1_robin_hood(run), run.gates)}
    assert checks["s1-rh-best-high-k"].verdict == "not evaluable"
    assert "robin_hood@S1" in checks["s1-rh-best-high-k"].why
    # suppression beats both others at k = 3 in every repetition: reproduced with 4 blocks
    most = simulation.check_s1_supp_most_accurate(run)
    assert most.kind == "claim" and most.verdict == "reproduced" and (most.uncertainty or {})["n"] == 4


def test_threshold_claim_needs_grid_points_around_the_papers_value(tmp_path: Path) -> None:
    exact = {lvl: ("exact", 2.0, 0.01) for lvl in ("minority", "super-minority")}
    run = _write_run(tmp_path, [(data.SUPP, k, s, exact) for k in (5, 30) for s in range(2)])
    checks = {c.id: c for c in simulation.check_s1_thresholds(run)}
    assert (
        checks["s1-supp-threshold"].verdict == "not evaluable"
        and "needs k = 10, 11, 12" in checks["s1-supp-threshold"].why
    )
