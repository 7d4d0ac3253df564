"""Helpers of the R-TRINDADE and R-MILETIC checks (experiments/reproductions/): hand-computed values."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from experiments.reproductions import miletic_2024, trindade_2024
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


def test_trindade_variants_pivot_and_demo_fallback() -> None:
    rows = []
    for epochs, unique in ((1, 0.0), (2, 3.0)):
        params = f'{{"epochs": {epochs}, "batch_size": 50, "embedding_dim": 12}}'
        for metric, variant, value in (
            ("outlier_linkage", "n_unique_matches", unique),
            ("outlier_linkage", "n_outliers", 10.0),
            ("statistic_similarity", "", 0.9),
        ):
            rows.append(
                {"generator": "sdv_tvae", "generator_params": params, "metric": metric, "variant": variant,
                 "value": value, "status": "ok"}
            )  # fmt: skip
    run = _run("quick", pd.DataFrame(rows))
    frame = trindade_2024.variants(run)
    assert frame["unique_matches"].tolist() == [0.0, 3.0] and frame["epochs"].tolist() == [1, 2]
    check = trindade_2024.check_unique_matches_vs_epochs(run)[0]
    assert check.id == "unique-matches-epochs-sdv_tvae" and check.passed
    row, label = trindade_2024._demo(frame)
    assert row is not None and int(row["epochs"]) == 1 and "in place of" in label


def test_miletic_summary_mean_and_sd() -> None:
    frame = pd.DataFrame({"epochs": [1, 1, 2], "gen_seed": [0, 1, 0], "sni": [0.1, 0.3, 0.5]})
    out = miletic_2024.summary(frame, "sni")
    assert out[1] == pytest.approx((0.2, math.sqrt(0.02), 2))  # sd of (0.1, 0.3), ddof 1
    assert out[2] == (0.5, 0.0, 1)


@pytest.mark.parametrize(
    ("key", "found", "expected_pass", "level_ok"),
    [
        # Table 2 falls with the epochs: over epochs 1 and 2 the same direction is checked
        ("wasserstein", {1: (3.0, 0.0, 1), 2: (2.5, 0.0, 1)}, True, True),
        ("wasserstein", {1: (2.5, 0.0, 1), 2: (3.0, 0.0, 1)}, False, True),
        # Table 4's AD ordering (1,000 < 300 < 10,000) is not monotone: not checkable on epochs 1, 2
        ("eps_identifiability", {1: (0.1, 0.0, 1), 2: (0.2, 0.0, 1)}, False, False),
        # on the paper's epochs the printed ordering itself
        ("eps_identifiability", {300: (0.24, 0, 1), 1000: (0.20, 0, 1), 10000: (0.28, 0, 1)}, True, True),
    ],
)
def test_miletic_paper_order(key: str, found: dict, expected_pass: bool, level_ok: bool) -> None:
    check = miletic_2024._paper_order(_run("quick"), "id", "claim", "Table", key, found)
    assert check.passed is expected_pass
    assert bool(check.observed) is level_ok  # unavailable checks have no observed value
