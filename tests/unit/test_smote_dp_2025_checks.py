"""R-SMOTEDP checks (issue 27): PG intervals over targets and games, one learns gate for every generator,
Fig. 3's DP draws, verdict-aware wording and the claims on what SMOTE adds to DP.

Synthetic :class:`ReproductionRun` objects built from result rows (the real schema, no mocks):
a PG ordering inside the game noise is inconclusive, a PATE-GAN that predicts one label and
ignores ε fails its gates and makes its claims not evaluable, a generator at the majority share
fails the same gate (or is not evaluated where the real data cannot clear it), a Fig. 3 ordering
is decided on the trials with their own DP draw (values and intervals alike), and a note never
states what its verdict calls within noise.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import yaml

from experiments.reproductions import smote_dp_2025 as module
from experiments.reproductions import smote_dp_2025_evidence as evidence
from experiments.reproductions import smote_dp_2025_fig3 as fig3
from experiments.reproductions import smote_dp_2025_gates as gates
from experiments.reproductions import smote_dp_2025_pg as pg
from experiments.reproductions import smote_dp_2025_population as population
from experiments.reproductions import smote_dp_2025_tradeoff as tradeoff
from harness.collect import write_table
from harness.reproduction import Check
from harness.reproduction.adequacy import apply_gates
from harness.reproduction.plan import ReproductionPlan
from harness.reproduction.verdict import CLAIM_VERDICTS, KINDS
from harness.reproduction.view import ReproductionRun
from harness.schema import to_results_frame

PLAN = ReproductionPlan("smote_dp_2025", "R-SMOTEDP", "p.txt", "SMOTE-DP", "§4", "m", "protocol", "", (), ())
BASE = {
    "run_id": "r",
    "experiment": "smote_dp_2025",
    "status": "ok",
    "split_seed": 0,
    "fold": 0,
    "gen_seed": 0,
}


def _frame(pg: list[float], sd: float = 0.2, games: int = 10, prefix: str = "t") -> pd.DataFrame:
    index = [f"{prefix}{i}" for i in range(len(pg))]
    return pd.DataFrame({"pg": pg, "sd": sd, "games": games}, index=index)


# ---------------------------------------------------------------------- PG evidence
def test_pg_difference_inside_game_noise_includes_zero() -> None:
    a, b = _frame([1.0, 0.9, 1.1, 1.0, 0.95]), _frame([0.97, 0.88, 1.05, 0.99, 0.93])
    entry = evidence.pg_difference(a, b, "a − b")
    assert entry is not None and entry["estimate"] == pytest.approx(0.026)
    assert entry["low"] < 0 < entry["high"]  # SD 0.2 over 10 games: ±0.06 per target


def test_pg_difference_beyond_noise_and_unpaired_targets() -> None:
    a, b = _frame([1.0, 1.05, 0.95, 1.0, 1.02], sd=0.05), _frame([0.5, 0.55, 0.45, 0.5, 0.52], sd=0.05)
    paired = evidence.pg_difference(a, b, "a − b")
    assert paired is not None and paired["low"] > 0.4
    other = _frame([0.5, 0.55, 0.45, 0.5, 0.52], sd=0.05, prefix="u")  # other targets: two-sample
    assert not evidence.paired_targets(a, other)
    unpaired = evidence.pg_difference(a, other, "a − b")
    assert unpaired is not None and unpaired["low"] > 0.3
    assert evidence.pg_difference(_frame([1.0]), b, "x") is None


def test_game_noise_is_counted_as_shared_by_the_targets() -> None:
    # no spread over targets: the interval is the two positions' game noise, not divided by the targets
    a, b = _frame([1.0] * 10, sd=0.5), _frame([0.8] * 10, sd=0.5)
    entry = evidence.pg_difference(a, b, "a − b")
    assert entry is not None
    half = 1.96 * (2 * 0.5**2 / 10) ** 0.5  # ±0.31, not ±0.10 as with independent games
    assert (entry["high"] - entry["low"]) / 2 == pytest.approx(half, rel=0.08)
    assert entry["low"] < 0 < entry["high"]


def test_variance_from_game_noise_alone_is_no_ordering() -> None:
    rng = np.random.default_rng(0)
    # both spreads are the game noise (SD 0.3 / √10 ≈ 0.095), one by chance a little larger
    a = _frame(list(1 + rng.normal(0, 0.095, 10)), sd=0.3)
    b = _frame(list(1 + rng.normal(0, 0.12, 10)), sd=0.3)
    entry = evidence.variance_difference(a, b, "var b − var a")
    assert entry is not None and entry["low"] < 0 < entry["high"]
    assert entry["estimate"] == pytest.approx(evidence.target_variance(b) - evidence.target_variance(a))
    assert evidence.game_noise(a) == pytest.approx(0.009)  # what the games add to each point's variance


def test_variance_difference_detects_a_real_spread() -> None:
    a = _frame([1.0, 1.01, 0.99, 1.0, 1.0, 1.01, 0.99, 1.0], sd=0.02)
    b = _frame([0.2, 1.8, 0.4, 1.6, 0.3, 1.7, 0.5, 1.5], sd=0.02)
    entry = evidence.variance_difference(a, b, "var b − var a")
    assert entry is not None and entry["low"] > 0.1


# ---------------------------------------------------------------------- a synthetic Figs 4-7 run
def _pg_row(generator: str, params: dict[str, Any], dataset: str, pgs: dict[str, float], *, sd: float = 0.2,
            key: str = "") -> dict[str, Any]:  # fmt: skip
    targets = {t: {"group": "outlier" if t.startswith("o") else "random", "pg_mean": v, "pg_sd": sd,
                   "tp_mean": 0.0, "fp_mean": 0.0} for t, v in pgs.items()}  # fmt: skip
    return {**BASE, "generator": generator, "generator_params": json.dumps(params), "dataset": dataset,
            "metric": "mia_privacy_gain", "variant": "all", "value": float(np.mean(list(pgs.values()))),
            "family": "privacy", "metric_params": json.dumps({"n_iter": 10}), "details": json.dumps({"targets": targets}),
            "trial_key": key or f"{generator}-{json.dumps(params, sort_keys=True)}-{dataset}"}  # fmt: skip


def _acc_row(generator: str, params: dict[str, Any], dataset: str, value: float, n_test: int = 1000,
             key: str = "") -> dict[str, Any]:  # fmt: skip
    return {**BASE, "generator": generator, "generator_params": json.dumps(params), "dataset": dataset,
            "metric": "ml_efficacy", "variant": "random_forest:accuracy", "value": value, "family": "utility",
            "details": json.dumps({"n_test": n_test, "trtr_scores": {"accuracy": 0.75}}),
            "trial_key": key or f"{generator}-{json.dumps(params, sort_keys=True)}-{dataset}"}  # fmt: skip


def _fit_row(generator: str, params: dict[str, Any], dataset: str, details: dict[str, Any]) -> dict[str, Any]:
    return {**BASE, "generator": generator, "generator_params": json.dumps(params), "dataset": dataset,
            "metric": "fit_seconds", "variant": "", "value": 1.0, "family": "cost",
            "details": json.dumps({"generator": details}),
            "trial_key": f"{generator}-{json.dumps(params, sort_keys=True)}-{dataset}"}  # fmt: skip


def _run(tmp_path: Path, rows: list[dict[str, Any]]) -> ReproductionRun:
    return ReproductionRun(PLAN, tmp_path, to_results_frame(rows))


OUTLIERS = ["o1", "o2", "o3", "o4", "o5"]


def test_an_untrained_pategan_fails_its_gates_and_its_claims_are_not_evaluable(tmp_path: Path) -> None:
    rows = []
    for eps in (1.0, 50.0):
        params = {"epsilon": eps, "n_iter": 3}
        rows.append(_pg_row("pategan", params, "texas", dict(zip(OUTLIERS, [1.0, 1.1, 0.9, 1.0, 1.2]))))
        rows.append(_acc_row("pategan", params, "texas", 0.156, n_test=10000))
        rows.append(_fit_row("pategan", params, "texas", {"epsilon_spent": 0.5, "iterations": 3}))
    run = _run(tmp_path, rows)
    run.gates = [g for function in gates.GATES for g in function(run)]
    learns = [g for g in run.gates if g.gate == "learns"]
    assert learns and not any(g.passed for g in learns) and learns[0].key == "pategan@n_iter=3"
    assert "below the majority share 0.618 beyond noise" in learns[0].detail
    epsilon = [g for g in run.gates if g.gate == "responds to ε"]
    assert epsilon and not epsilon[0].passed and "ε never binds" in epsilon[0].detail
    checks = apply_gates(pg.check_fig4(run), run.gates)
    claim = next(c for c in checks if c.id == "fig4-pategan-epsilon")
    assert claim.depends_on == ("pategan@n_iter=3",) and claim.verdict == "not evaluable"
    assert "adequacy gate not passed" in claim.not_evaluable


def test_a_learning_pategan_passes_the_learns_gate(tmp_path: Path) -> None:
    rows = [
        _acc_row("pategan", {"epsilon": e, "n_iter": 300}, "texas", v, n_test=10000)
        for e, v in ((1.0, 0.66), (50.0, 0.71))
    ]
    rows += [
        _pg_row("pategan", {"epsilon": e, "n_iter": 300}, "texas", {"o1": 1.0, "o2": 0.9})
        for e in (1.0, 50.0)
    ]
    run = _run(tmp_path, rows)
    (gate,) = gates.gate_pategan_learns(run)
    assert gate.passed and gate.key == "pategan@n_iter=300"


def test_privbayes_claims_read_paired_targets_and_stay_inconclusive_within_noise(tmp_path: Path) -> None:
    random = [f"r{i}" for i in range(10)]
    values = {"1 BayesianNet": 1.03, "2 PrivBayes ε=0.1": 0.97, "3 PrivBayes ε=50": 0.91}
    rng = np.random.default_rng(3)
    rows = []
    for label, mean in values.items():
        params = {
            "epsilon": {"1 BayesianNet": 0.0, "2 PrivBayes ε=0.1": 0.1, "3 PrivBayes ε=50": 50.0}[label]
        }
        pgs = dict(zip(random, mean + rng.normal(0, 0.1, 10)))
        rows.append(_pg_row("privbayes", params, "texas", pgs, sd=0.3))
    run = _run(tmp_path, rows)
    check = next(c for c in pg.check_fig5(run) if c.id == "fig5-bayesnet")
    assert check.kind == "claim" and check.verdict == "inconclusive"
    method = (check.uncertainty or {})["method"]
    assert "paired" in method and "10 targets" in method
    assert "<" not in check.observed  # numbers side by side, never a possibly false inequality


def test_accuracy_claims_use_the_test_split(tmp_path: Path) -> None:
    rows = [_acc_row("smote_dp", {"g2": "privbayes", "epsilon": 50.0}, "texas", 0.744, n_test=10000),
            _acc_row("privbayes", {"epsilon": 0.1}, "texas", 0.616, n_test=10000)]  # fmt: skip
    run = _run(tmp_path, rows)
    check = next(c for c in pg.check_fig4(run) if c.id == "fig4-a-utility")
    assert check.verdict == "reproduced" and (check.uncertainty or {})["intervals"][0]["low"] > 0.1
    near = next(c for c in pg.check_fig4(run) if c.id == "fig4-privbayes-large-epsilon-utility")
    assert near.verdict == "not evaluable"  # PrivBayes ε=50 has no rows in this run


# ---------------------------------------------------------------------- Fig. 3: shared vs own DP draws
def _fig3_job(root: Path, sweep: str, job: int, seed_override: str, generator: str, params: dict[str, Any],
              gen_seed: int, cov: float) -> None:  # fmt: skip
    folder = root / sweep / str(job)
    (folder / ".hydra").mkdir(parents=True)
    (folder / ".hydra" / "overrides.yaml").write_text(
        yaml.safe_dump([f"dataset.source.params.seed={seed_override}"])
    )
    key = f"{sweep}-{job}"
    rows = [{**BASE, "gen_seed": gen_seed, "generator": generator, "generator_params": json.dumps(params),
             "dataset": "two_gaussians", "metric": "moment_frobenius", "variant": variant, "value": value,
             "family": "fidelity", "trial_key": key, "n_train": 2000}
            for variant, value in (("cov_norm", cov), ("mean_norm", 0.05))]  # fmt: skip
    write_table(to_results_frame(rows), folder / "rows.parquet")


def _fig3_run(tmp_path: Path, *, own: bool) -> ReproductionRun:
    arms = {
        "DP": ("privbayes", {}, 0.63),
        "SMOTE": ("smotenc", {}, 0.11),
        "SMOTE-DP": ("smote_dp", {"g2": "privbayes"}, 0.42),
    }
    rng = np.random.default_rng(1)
    for arm, (generator, params, level) in arms.items():
        for job, seed in enumerate(range(1, 11)):
            override = "$\\{gen_seed\\}" if own else str(seed)
            _fig3_job(tmp_path, f"fig3_{arm}", job, override, generator, params, seed if own else 0,
                      level + rng.normal(0, 0.02))  # fmt: skip
    from harness.reproduction.runner import load_results

    return ReproductionRun(PLAN, tmp_path, load_results(tmp_path))


def test_fig3_with_one_dp_draw_for_every_data_seed_is_inconclusive(tmp_path: Path) -> None:
    run = _fig3_run(tmp_path, own=False)
    assert len(fig3.data_seeds(run)) == 30 and fig3.own_draws(run, "privbayes") == 0
    check = fig3.check_fig3_ordering(run)
    assert (
        check.verdict == "inconclusive"
        and "no trial with its own DP draw" in (check.uncertainty or {})["method"]
    )
    assert check.observed.startswith("SMOTE 0.1") and "<" not in check.observed
    setup = next(c for c in fig3.check_fig3_setup(run) if c.id == "setup-fig3-dp-draws")
    assert setup.kind == "setup" and setup.verdict == "fails"


def test_fig3_with_a_dp_draw_per_data_seed_is_decided(tmp_path: Path) -> None:
    run = _fig3_run(tmp_path, own=True)
    assert fig3.own_draws(run, "privbayes") == 10
    check = fig3.check_fig3_ordering(run)
    assert check.verdict == "reproduced", check.uncertainty
    assert "10 data seeds" in (check.uncertainty or {})["method"]


# ---------------------------------------------------------------------- the module on a sparse run
def test_every_check_has_a_kind_and_no_error_on_a_quick_like_run(tmp_path: Path) -> None:
    rows = [_pg_row("privbayes", {"epsilon": e}, "texas", {"o1": 0.9, "r1": 1.0}) for e in (0.0, 0.1, 50.0)]
    rows += [_acc_row("privbayes", {"epsilon": e}, "texas", 0.7) for e in (0.0, 0.1, 50.0)]
    run = _run(tmp_path, rows)
    run.gates = [g for function in module.GATES for g in function(run)]
    checks: list[Check] = []
    for function in module.CHECKS:
        produced = function(run)
        checks.extend([produced] if isinstance(produced, Check) else produced)
    ids = [c.id for c in checks]
    assert len(ids) == len(set(ids))
    for check in checks:
        assert check.kind in KINDS and not check.error, check.id
        if check.is_claim:
            assert check.verdict in CLAIM_VERDICTS
    assert module.referee_notes(run, checks) is not None


# ---------------------------------------------------------------------- one learns rule for every generator
def test_the_learns_rule_reads_the_trivial_predictor_where_the_real_data_clears_it() -> None:
    assert gates.learns(0.75, 10000, 0.78, 0.618).passed  # above the majority share beyond noise
    below = gates.learns(0.156, 10000, 0.78, 0.618)
    assert not below.passed and below.evaluated and "below the majority share" in below.text
    at = gates.learns(
        0.616, 10000, 0.778, 0.618
    )  # PrivBayes ε=0.1 on Texas: at the share, real data clears it
    assert not at.passed and at.evaluated
    unseen = gates.learns(0.700, 200, 0.725, 0.700)  # German Credit: even the real data does not clear 0.700
    assert not unseen.passed and not unseen.evaluated and "cannot show any release learning" in unseen.text
    assert gates.learns(0.315, 200, 0.725, 0.700).evaluated  # below beyond noise: fails on evidence
    # every outcome is stated relative to TRTR: the share of the real data's gain the release recovers
    assert "TRTR 0.780, so the release recovers 81 %" in gates.learns(0.75, 10000, 0.78, 0.618).text
    assert "TRTR" in below.text and "TRTR" in at.text and "TRTR" in unseen.text


def test_every_generator_is_gated_and_a_claim_on_a_non_learning_one_is_not_evaluable(tmp_path: Path) -> None:
    random = [f"r{i}" for i in range(10)]
    rows = []
    for eps in (0.0, 0.1, 1.0, 50.0):
        generator, params = "privbayes", {"epsilon": eps}
        rows.append(_pg_row(generator, params, "employee", dict.fromkeys(random, 1.0)))
        rows.append(
            _acc_row(generator, params, "employee", 0.67, n_test=931)
        )  # majority 0.656, real data 0.75
    run = _run(tmp_path, rows)
    run.gates = [g for function in module.GATES for g in function(run)]
    keys = {g.key: g for g in run.gates if g.gate == "learns"}
    assert {"bayesiannet@employee", "privbayes@employee"} <= set(keys)
    assert not keys["privbayes@employee"].passed and keys["privbayes@employee"].evaluated
    assert gates.position_keys(run, "2 PrivBayes ε=0.1", "employee") == ("privbayes", "privbayes@employee")
    checks = apply_gates(pg.check_fig7(run), run.gates)
    claim = next(c for c in checks if c.id == "fig7-large-epsilon")
    assert claim.verdict == "not evaluable" and "privbayes@employee: learns failed" in claim.not_evaluable


# ---------------------------------------------------------------------- wording follows the verdict
def _privbayes_texas(pgs: dict[str, dict[str, float]], sd: float = 0.5) -> list[dict[str, Any]]:
    eps = {"1 BayesianNet": 0.0, "2 PrivBayes ε=0.1": 0.1, "3 PrivBayes ε=50": 50.0, "PrivBayes ε=1": 1.0}
    rows = []
    for label, values in pgs.items():
        if label == "7 SMOTE-PrivBayes ε=50":
            generator, params = "smote_dp", {"g2": "privbayes", "epsilon": 50.0}
        else:
            generator, params = "privbayes", {"epsilon": eps[label]}
        rows.append(_pg_row(generator, params, "texas", values, sd=sd))
    return rows


def test_a_point_estimate_outside_the_band_within_noise_says_so_and_not_more(tmp_path: Path) -> None:
    run = _run(tmp_path, _privbayes_texas({"3 PrivBayes ε=50": dict(zip(OUTLIERS, [0.97, 0.57, 0.47, 0.93, 0.7])),
                                            "2 PrivBayes ε=0.1": dict(zip(OUTLIERS, [1.13, 1.1, 0.9, 1.37, 1.1]))}))  # fmt: skip
    check = next(c for c in pg.check_fig4(run) if c.id == "fig4-privbayes-large-epsilon")
    assert check.verdict == "inconclusive" and not check.passed
    assert "more exposed" not in check.reason and "within noise" in check.reason
    assert "underpowered by design" in check.reason and "higher is more private" in check.reason
    assert "(PrivBayes ε=50 − PrivBayes ε=0.1 = -0.39" in check.observed  # the difference is named


def test_a_variance_row_names_its_difference(tmp_path: Path) -> None:
    random = [f"r{i}" for i in range(10)]
    rng = np.random.default_rng(5)
    run = _run(tmp_path, _privbayes_texas({
        "7 SMOTE-PrivBayes ε=50": dict(zip(random, 1 + rng.normal(0, 0.1, 10))),
        "3 PrivBayes ε=50": dict(zip(random, 1 + rng.normal(0, 0.15, 10)))}, sd=0.4))  # fmt: skip
    check = next(c for c in pg.check_fig5(run) if c.id == "stability-privbayes")
    assert "(var PrivBayes ε=50 − var SMOTE-PrivBayes ε=50 = " in check.observed
    assert check.verdict == "inconclusive" and "less uniform" not in check.reason


def test_fig4_a_privacy_leaves_out_the_papers_one_exception(tmp_path: Path) -> None:
    run = _run(tmp_path, _privbayes_texas({
        "7 SMOTE-PrivBayes ε=50": dict(zip(OUTLIERS, [1.0, 1.0, 1.0, 1.0, 0.2])),
        "2 PrivBayes ε=0.1": dict(zip(OUTLIERS, [1.02, 0.98, 1.0, 1.01, 1.0]))}, sd=0.05))  # fmt: skip
    check = pg.check_fig4_a_privacy(run)
    assert "target o5" in check.reason and check.uncertainty and check.uncertainty["n"] == 4
    assert check.verdict == "reproduced"


# ---------------------------------------------------------------------- what SMOTE adds to DP
def test_smote_dp_utility_at_the_same_epsilon_is_not_an_enhancement(tmp_path: Path) -> None:
    rows = [_acc_row("smote_dp", {"g2": "privbayes", "epsilon": 50.0}, "texas", 0.744, n_test=10000),
            _acc_row("privbayes", {"epsilon": 50.0}, "texas", 0.748, n_test=10000)]  # fmt: skip
    rows += _privbayes_texas({"7 SMOTE-PrivBayes ε=50": {"o1": 1.0}, "3 PrivBayes ε=50": {"o1": 1.0}})
    check = tradeoff.check_utility_same_epsilon(_run(tmp_path / "a", rows))
    # "better data utility": above beyond noise; -0.004 on 10,000 test rows cannot tell
    assert (
        check.verdict == "inconclusive"
        and "(Texas)" in check.claim
        and "beyond the test split" in check.claim
    )
    assert "that of its large ε" not in check.reason
    rows[0] = _acc_row("smote_dp", {"g2": "privbayes", "epsilon": 50.0}, "texas", 0.71, n_test=10000)
    worse = tradeoff.check_utility_same_epsilon(_run(tmp_path / "b", rows))
    assert (
        worse.verdict == "not reproduced" and "the utility of SMOTE-DP is that of its large ε" in worse.reason
    )


def test_dp_exposure_is_existential_and_family_wise(tmp_path: Path) -> None:
    random = {f"r{i}": 1.0 for i in range(9)}
    exposed = _privbayes_texas(
        {"2 PrivBayes ε=0.1": {**random, "r9": 0.1}, "3 PrivBayes ε=50": dict(random)}, sd=0.3
    )
    check = tradeoff.check_dp_inconsistent(_run(tmp_path / "a", exposed))
    assert (
        check.verdict == "reproduced"
        and "Bonferroni over the 19 DP targets" in (check.uncertainty or {})["method"]
    )
    level = _privbayes_texas(
        {"2 PrivBayes ε=0.1": {**random, "r9": 0.8}, "3 PrivBayes ε=50": dict(random)}, sd=0.5
    )
    assert tradeoff.check_dp_inconsistent(_run(tmp_path / "b", level)).verdict == "inconclusive"


# ---------------------------------------------------------------------- Fig. 3: the same trials, the theorems
def test_fig3_values_and_intervals_come_from_the_same_trials(tmp_path: Path) -> None:
    _fig3_run(tmp_path, own=True)  # own draws: DP 0.63, SMOTE-DP 0.42
    rng = np.random.default_rng(2)
    for arm, (generator, params, level) in {"DP": ("privbayes", {}, 0.20), "SMOTE": ("smotenc", {}, 0.11),
                                             "SMOTE-DP": ("smote_dp", {"g2": "privbayes"}, 0.90)}.items():  # fmt: skip
        for job, seed in enumerate(range(1, 11)):  # a shared draw that orders the arms the other way
            _fig3_job(
                tmp_path,
                f"fig3_shared_{arm}",
                job,
                str(seed),
                generator,
                params,
                0,
                level + rng.normal(0, 0.01),
            )
    from harness.reproduction.runner import load_results

    run = ReproductionRun(PLAN, tmp_path, load_results(tmp_path))
    check = fig3.check_fig3_ordering(run)
    means = {e["name"]: e["estimate"] for e in (check.uncertainty or {})["intervals"]}
    assert check.value["DP"] - check.value["SMOTE-DP"] == pytest.approx(means["DP − SMOTE-DP"])
    assert check.verdict == "reproduced" and "shared-draw trials" in check.reason
    sanity = fig3.check_fig3_smote_closest(run)
    assert sanity.kind == "sanity" and sanity.verdict == "passes"


def _contraction_run(tmp_path: Path, alpha: float) -> ReproductionRun:
    for job, seed in enumerate(range(1, 11)):
        folder = tmp_path / "fig3_smote_seeds" / str(job)
        (folder / ".hydra").mkdir(parents=True)
        (folder / ".hydra" / "overrides.yaml").write_text(
            yaml.safe_dump(["dataset.source.params.seed=$\\{gen_seed\\}"])
        )
        row = {**BASE, "gen_seed": seed, "generator": "smotenc", "generator_params": "{}", "dataset": "two_gaussians",
               "metric": "covariance_contraction", "variant": "", "value": alpha + 0.002 * (job % 3 - 1),
               "family": "fidelity", "trial_key": f"s-{job}", "n_train": 2000}  # fmt: skip
        write_table(to_results_frame([row]), folder / "rows.parquet")
    from harness.reproduction.runner import load_results

    return ReproductionRun(PLAN, tmp_path, load_results(tmp_path))


def test_theorem_31_holds_by_a_small_margin_and_theorem_32s_budget_does_not(tmp_path: Path) -> None:
    run = _contraction_run(tmp_path, 0.9935)
    t31, t32 = fig3.check_theorem31(run), fig3.check_theorem32_budget(run)
    assert t31.verdict == "reproduced" and "% contraction" in t31.observed
    assert t32.verdict == "not reproduced" and "α·50 = 49.7" in t32.observed


# ---------------------------------------------------------------------- Fig. 3 against the population
def test_the_population_moments_are_those_of_the_two_class_mixture() -> None:
    from harness.datasets.simulations.two_gaussians import two_gaussians

    mu, sigma = population.population()
    big = two_gaussians(seed=7, n_per_class=200_000)[["x1", "x2"]].to_numpy(float)
    assert np.allclose(mu, [1.5, 1.5]) and np.allclose(big.mean(axis=0), mu, atol=0.01)
    assert np.allclose(np.cov(big, rowvar=False), sigma, atol=0.02)  # Σ = mean class Σ + spread of the means


def test_population_claims_without_job_configs_are_not_evaluable(tmp_path: Path) -> None:
    run = _fig3_run(
        tmp_path, own=True
    )  # rows and overrides, but no composed config to rebuild a release from
    for function in population.CHECKS:
        check = function(run)
        assert isinstance(check, Check)
        assert (
            check.verdict == "not evaluable"
            and "could be regenerated from its job folder" in check.not_evaluable
        ), check.id


def _population_run(
    tmp_path: Path, means: dict[str, float], covs: dict[str, float], monkeypatch: Any
) -> ReproductionRun:
    run = _run(tmp_path, [_acc_row("privbayes", {"epsilon": 1.0}, "texas", 0.7)])
    rng = np.random.default_rng(4)
    records = [{"trial_key": f"{m}-{s}", "method": m, "dp": "privbayes", "seed": s, "own": True,
                "mean_pop": means[m] + rng.normal(0, 0.005), "cov_pop": covs[m] + rng.normal(0, 0.01),
                "mean_x": 0.0, "x_mean_pop": 0.03, "x_cov_pop": 0.12, "matches": True}
               for m in means for s in range(1, 21)]  # fmt: skip
    frame = pd.DataFrame(records)
    monkeypatch.setattr(population, "population_frame", lambda _run: frame)
    return run


def test_mean_errors_within_a_factor_two_hold_and_a_larger_gap_does_not(
    tmp_path: Path, monkeypatch: Any
) -> None:
    covs = {"DP": 0.54, "SMOTE": 0.15, "SMOTE-DP": 0.40}
    near = _population_run(tmp_path / "a", {"DP": 0.07, "SMOTE": 0.05, "SMOTE-DP": 0.06}, covs, monkeypatch)
    check = population.check_mean_norms(near)
    assert check.level == "tolerance" and check.verdict == "reproduced", check.why
    assert (check.uncertainty or {})["band"] == pytest.approx([-np.log(2), np.log(2)])
    far = _population_run(tmp_path / "b", {"DP": 0.20, "SMOTE": 0.04, "SMOTE-DP": 0.06}, covs, monkeypatch)
    assert population.check_mean_norms(far).verdict == "not reproduced"
    cov = population.check_population_covariance(near)
    assert cov.verdict == "reproduced" and "DP − SMOTE-DP = +0.1" in cov.observed
    assert cov.value["DP"] - cov.value["SMOTE-DP"] == pytest.approx(0.14, abs=0.01)


def test_the_notes_put_the_missing_power_first(tmp_path: Path) -> None:
    run = _run(tmp_path, _privbayes_texas({"3 PrivBayes ε=50": dict(zip(OUTLIERS, [1.0, 0.9, 1.1, 1.0, 0.8])),
                                            "2 PrivBayes ε=0.1": dict(zip(OUTLIERS, [1.0, 1.0, 1.0, 1.1, 0.9]))}))  # fmt: skip
    checks: list[Check] = []
    for function in module.CHECKS:
        produced = function(run)
        checks.extend([produced] if isinstance(produced, Check) else produced)
    from harness.reproduction.referee import Lead

    notes = module.referee_notes(run, checks)
    # a Lead note opens the summary (what the claims that hold test); then the missing power
    leads = [n for n in notes if isinstance(n, Lead)]
    assert all(n.startswith("**What the claims that hold test.**") for n in leads)
    rest = [n for n in notes if not isinstance(n, Lead)]
    assert rest and rest[0].startswith("**Underpowered by design.**") and "needed metric change" in rest[0]
