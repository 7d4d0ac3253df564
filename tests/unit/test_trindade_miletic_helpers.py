"""Helpers of the R-TRINDADE and R-MILETIC checks (experiments/reproductions/): hand-computed values."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from experiments.reproductions import (
    miletic_2024,
    miletic_2024_paper,
    miletic_2024_table,
    trindade_2024_claims,
)
from experiments.reproductions import trindade_2024_data as data
from harness.reproduction import ReproductionPlan, ReproductionRun
from harness.spec import ColumnSpec, DatasetSpec
from metrics.privacy.outlier_linkage import OutlierLinkage

CREDIT = DatasetSpec(
    name="credit_risk",
    columns=(
        ColumnSpec("person_age", "integer"),
        ColumnSpec("person_income", "integer"),
        ColumnSpec("person_home_ownership", "categorical"),
        ColumnSpec("loan_intent", "categorical"),
    ),
)


def _credit(ages: list[int], incomes: list[int]) -> pd.DataFrame:
    n = len(ages)
    return pd.DataFrame(
        {
            "person_age": ages,
            "person_income": incomes,
            "person_home_ownership": ["RENT"] * n,
            "loan_intent": ["PERSONAL"] * n,
        }
    )


def _run(profile: str, results: pd.DataFrame | None = None) -> ReproductionRun:
    plan = ReproductionPlan("x", "R-X", "p", "t", "s", "m", profile, "", (), ())
    return ReproductionRun(plan, Path("/nonexistent"), results if results is not None else pd.DataFrame())


def test_outlier_mask_by_hand_and_as_the_metric() -> None:
    # 20 ages of 30 and one of 100: mean = 700/21 = 33.33, sd = sqrt(20 * 21 * 70^2 / 21^2 / 20) =
    # 70/sqrt(21) = 15.275 -> z(100) = 66.67/15.275 = 4.36 > 3; every 30 has |z| = 0.218
    ages = [30] * 20 + [100]
    incomes = [50_000] * 21
    frame = _credit(ages, incomes)
    mask = data.outlier_mask(frame)
    assert mask.tolist() == [False] * 20 + [True]
    out = OutlierLinkage().compute(frame, frame.iloc[:1], CREDIT, seed=0)
    assert isinstance(out, dict) and out["n_outliers"].value == mask.sum() == 1
    z = data.z_scores(frame, 20)
    assert z["person_age"] == pytest.approx((100 - 700 / 21) / (70 / math.sqrt(21)))
    assert math.isnan(z["person_income"])  # a constant column has no z-score


def test_split_spread_counts_subsets_deterministically() -> None:
    frame = _credit([30] * 40 + [100, 110], [50_000] * 42)
    first, again = data.split_spread(frame, size=30, draws=25), data.split_spread(frame, size=30, draws=25)
    assert first.tolist() == again.tolist() and len(first) == 25
    # a subset holds 0, 1 or 2 of the two old people, and each one it holds is an outlier
    assert set(first.tolist()) <= {0, 1, 2}


def test_find_record_matches_every_column() -> None:
    frame = _credit([54, 54, 30], [170_000, 160_000, 170_000])
    assert data.find_record(frame, {"person_age": 54, "person_income": 170000}).tolist() == [0]
    assert data.find_record(frame, {"person_age": 54, "person_home_ownership": "RENT"}).tolist() == [0, 1]


def _trindade_rows(values: dict[tuple[int, int], float], generator: str = "sdv_tvae") -> pd.DataFrame:
    """Rows of one SDV model: (epochs, seed) -> unique matches (and a constant similarity)."""
    rows = []
    for (epochs, seed), unique in values.items():
        params = f'{{"epochs": {epochs}, "batch_size": 100, "embedding_dim": 12}}'
        for metric, variant, value in (
            ("outlier_linkage", "n_unique_matches", unique),
            ("outlier_linkage", "n_outliers", 10.0),
            ("statistic_similarity", "", 0.9),
        ):
            rows.append(
                {"generator": generator, "generator_params": params, "metric": metric, "variant": variant,
                 "value": value, "status": "ok", "gen_seed": seed}
            )  # fmt: skip
    return pd.DataFrame(rows)


def test_trindade_checks_read_the_protocol_sweeps() -> None:
    # the protocol profile: TVAE at 150/300/500 and CTGAN at 150/300 epochs, 3 seeds each
    tvae = {(e, s): float(e // 50 + s) for e in (150, 300, 500) for s in range(3)}
    ctgan = {(e, s): float(e // 100 + s) for e in (150, 300) for s in range(3)}
    rows = pd.concat([_trindade_rows(tvae), _trindade_rows(ctgan, "sdv_ctgan")], ignore_index=True)
    run = _run("protocol", rows)
    frame = trindade_2024_claims.variants(run)
    assert len(frame) == 15 and sorted(frame["gen_seed"].unique()) == [0, 1, 2]
    checks = {c.id: c for c in trindade_2024_claims.check_epochs(run)}
    for check_id in (
        "unique-matches-epochs-sdv_tvae",
        "unique-matches-epochs-sdv_ctgan",
        "unique-matches-epochs",
    ):
        assert checks[check_id].kind == "claim" and checks[check_id].verdict == "reproduced", check_id
    assert (checks["unique-matches-epochs"].uncertainty or {})["n"] == 6  # model x seed blocks
    assert checks["unique-matches-epochs-sdv_copulagan"].verdict == "not evaluable"  # not in this run
    gates = {(g.key, g.gate): g for g in trindade_2024_claims.gate_sdv_budget(run)}
    assert gates[("sdv_tvae", "trained at the paper's budgets")].passed


def test_trindade_epoch_trends_need_three_blocks() -> None:
    rising = {(150, 0): 1.0, (500, 0): 5.0, (150, 1): 2.0, (500, 1): 6.0}
    check = {c.id: c for c in trindade_2024_claims.check_epochs(_run("protocol", _trindade_rows(rising)))}
    assert (
        check["unique-matches-epochs-sdv_tvae"].passed
        and check["unique-matches-epochs-sdv_tvae"].verdict == "inconclusive"
    )
    mixed = {**rising, (150, 2): 0.0, (500, 2): -3.0}  # one seed against the others: within noise
    check = {c.id: c for c in trindade_2024_claims.check_epochs(_run("protocol", _trindade_rows(mixed)))}
    assert check["unique-matches-epochs-sdv_tvae"].verdict == "inconclusive"
    quick = trindade_2024_claims.gate_sdv_budget(_run("quick", _trindade_rows({(1, 0): 0.0, (2, 0): 1.0})))
    assert not quick[0].passed and "[1, 2]" in quick[0].detail


def test_miletic_summary_mean_and_sd() -> None:
    frame = pd.DataFrame({"epochs": [1, 1, 2], "gen_seed": [0, 1, 0], "sni": [0.1, 0.3, 0.5]})
    out = miletic_2024_table.summary(frame, "sni")
    assert out[1] == pytest.approx((0.2, math.sqrt(0.02), 2))  # sd of (0.1, 0.3), ddof 1
    assert out[2] == (0.5, 0.0, 1)


def _miletic_rows(values: dict[tuple[int, int], dict[tuple[str, str], float]]) -> pd.DataFrame:
    rows = []
    for (epochs, seed), measures in values.items():
        for (metric, variant), value in measures.items():
            rows.append(
                {"generator": "sdv_ctgan", "generator_params": f'{{"epochs": {epochs}}}', "metric": metric,
                 "variant": variant, "value": value, "baseline": 0.856, "status": "ok", "gen_seed": seed}
            )  # fmt: skip
    return pd.DataFrame(rows)


def test_miletic_orders_read_the_protocol_sweep() -> None:
    # the protocol profile runs 300 and 1,000 epochs: AD's ε-identifiability falls (.244 -> .204) there
    values = {}
    for seed, (low, high) in enumerate(((0.25, 0.20), (0.24, 0.21), (0.26, 0.19))):
        values[(300, seed)] = {("eps_identifiability", ""): low, ("sni", "sni"): 0.11}
        values[(1000, seed)] = {("eps_identifiability", ""): high, ("sni", "sni"): 0.10}
    run = _run("protocol", _miletic_rows(values))
    orders = {c.id: c for c in miletic_2024.check_orders(run)}
    eps = orders["eps-identifiability-order"]
    assert eps.kind == "claim" and eps.verdict == "reproduced" and "300 → 1,000" in eps.observed
    assert orders["wasserstein-order"].verdict == "not evaluable"  # no Wasserstein row in this run
    risk = {c.id: c for c in miletic_2024.check_risk(run)}
    assert (
        risk["sni-below-eps"].verdict == "reproduced"
        and len((risk["sni-below-eps"].uncertainty or {})["intervals"]) == 2
    )
    assert risk["eps-identifiability-10000"].verdict == "not evaluable"  # not in the protocol's sweep


def test_miletic_text_trends_against_the_ad_column() -> None:
    checks = {c.id: c for c in miletic_2024_paper.check_text_vs_table(_run("protocol"))}
    assert all(c.kind == "arithmetic" for c in checks.values())
    assert checks["text-eps-id-rises"].verdict == "fails"  # .244 / .204 / .283
    assert checks["text-a3-falls"].verdict == "fails"  # 1.191 / 1.021 / 1.740
    assert checks["text-wasserstein-falls"].verdict == "passes"
    assert checks["text-tstr-rises"].verdict == "passes"
