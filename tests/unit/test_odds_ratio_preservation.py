"""odds_ratio_preservation (spec/metrics.md U5; 004_… Robin Hood §4) on hand-made tables."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
import pytest

from harness.checks import contract_data
from harness.errors import ConfigError, IncomputableMetricError
from harness.spec import DatasetSpec
from metrics.utility.odds_ratio_preservation import OddsRatioPreservation

SPEC = DatasetSpec.from_dict(
    {
        "name": "toy",
        "columns": {
            "race": "categorical",
            "sex": "categorical",
            "outcome": {"kind": "categorical", "categories": ["no", "yes"]},
        },
        "target": "outcome",
        "task": "binary",
        "qi_sets": {"default": ["race", "sex"]},
    }
)


def _table(counts: dict[str, tuple[int, int]]) -> pd.DataFrame:
    """Rows per race level: (yes, no) counts; sex alternates."""
    rows = []
    for race, (yes, no) in counts.items():
        rows += [(race, "yes")] * yes + [(race, "no")] * no
    frame = pd.DataFrame(rows, columns=["race", "outcome"])
    frame.insert(1, "sex", ["M", "F"] * (len(frame) // 2) + ["M"] * (len(frame) % 2))
    return frame


# odds: White 60/40 = 1.5 (reference: most frequent), Black 20/30 = 2/3, Asian 10/10 = 1
REAL = _table({"White": (60, 40), "Black": (20, 30), "Asian": (10, 10)})
OR_BLACK, OR_ASIAN = (2 / 3) / 1.5, 1 / 1.5


def test_saturated_model_matches_hand_computed_odds_ratios() -> None:
    # release: White 50/50 (odds 1), Black 30/20 (1.5), Asian absent -> OR := 1; masked rows left out
    release = pd.concat(
        [_table({"White": (50, 50), "Black": (30, 20)}), _table({"?": (0, 40)})], ignore_index=True
    )
    out = OddsRatioPreservation(covariates=["race"]).compute(REAL, release, SPEC)
    levels = out["mean_abs_log_or_error"].details["levels"]
    assert levels["Black"]["or_orig"] == pytest.approx(OR_BLACK, rel=1e-6)
    assert levels["Asian"]["or_orig"] == pytest.approx(OR_ASIAN, rel=1e-6)
    assert levels["Black"]["or_release"] == pytest.approx(1.5, rel=1e-6)
    assert levels["Asian"]["or_release"] == 1.0 and levels["Asian"]["release_level"] == "absent"
    e_black, e_asian = abs(math.log(1.5) - math.log(OR_BLACK)), abs(math.log(OR_ASIAN))
    assert out["abs_log_or_error:Black"].value == pytest.approx(e_black, rel=1e-6)
    assert out["abs_log_or_error:Asian"].value == pytest.approx(e_asian, rel=1e-6)
    assert out["mean_abs_log_or_error"].value == pytest.approx((e_black + e_asian) / 2, rel=1e-6)
    assert out["sign_flips"].value == 1.0  # Black crosses 1; Asian's OR := 1 does not
    assert out["mean_abs_log_or_error"].details["n_masked_excluded"] == 40
    assert out["mean_abs_log_or_error"].details["reference_levels"] == {"race": "White"}


def test_merged_level_takes_the_generalised_levels_odds_ratio() -> None:
    release = _table({"White": (50, 50), "Black": (20, 30), "*": (15, 5)})  # Asian generalised to '*'
    out = OddsRatioPreservation(covariates=["race"]).compute(REAL, release, SPEC)
    asian = out["mean_abs_log_or_error"].details["levels"]["Asian"]
    assert asian["or_release"] == pytest.approx(3.0, rel=1e-6)  # odds 3 vs 1
    assert asian["release_level"] == "merged into '*'"


def test_identical_release_and_configured_reference() -> None:
    out = OddsRatioPreservation().compute(REAL, REAL.copy(), SPEC)
    assert out["mean_abs_log_or_error"].value == pytest.approx(0.0, abs=1e-9)
    assert out["sign_flips"].value == 0.0
    ref = OddsRatioPreservation(covariates=["race"], reference_levels={"race": "Black"}).compute(
        REAL, REAL, SPEC
    )
    assert set(ref) == {
        "mean_abs_log_or_error",
        "sign_flips",
        "abs_log_or_error:Asian",
        "abs_log_or_error:White",
    }
    levels = ref["mean_abs_log_or_error"].details["levels"]
    assert levels["White"]["or_orig"] == pytest.approx(1.5 / (2 / 3), rel=1e-6)


def test_reference_merged_away_gives_odds_ratio_one() -> None:
    release = _table({"*": (70, 70), "Black": (20, 30)})  # White and Asian generalised to '*'
    out = OddsRatioPreservation(covariates=["race"]).compute(REAL, release, SPEC)
    levels = out["mean_abs_log_or_error"].details["levels"]
    assert levels["Asian"]["or_release"] == 1.0
    assert "reference" in levels["Asian"]["release_level"]
    assert levels["Black"]["or_release"] == pytest.approx((20 / 30) / 1.0, rel=1e-6)


def test_adult_robin_hood_configuration_runs() -> None:
    data = contract_data("adult", n_train=300, n_control=10, n_test=10, seed=4)
    spec = data.spec.with_active_qi("robin_hood")
    metric = OddsRatioPreservation(extra_covariates=["hours-per-week"], as_numeric=["education-num"])
    out = metric.compute(data.train, data.train, spec)
    assert out["mean_abs_log_or_error"].value == pytest.approx(0.0, abs=1e-9)
    details = out["mean_abs_log_or_error"].details
    assert "hours-per-week" in details["covariates"] and details["as_numeric"] == ["education-num"]
    assert details["reference_levels"]["race"] == "White"


def test_incomputable() -> None:
    with pytest.raises(IncomputableMetricError, match="not a column"):
        OddsRatioPreservation(fairness_attr="ethnicity").compute(REAL, REAL, SPEC)
    one_level = REAL.assign(race="White")
    with pytest.raises(IncomputableMetricError, match="single level"):
        OddsRatioPreservation().compute(one_level, one_level, SPEC)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"fairness_attr": ""}, "`fairness_attr` must be a column name"),
        ({"covariates": []}, "`covariates` must be null or a non-empty list"),
        ({"extra_covariates": "age"}, "`extra_covariates` must be null or a list"),
        ({"as_numeric": [1]}, "`as_numeric` must be null or a list"),
        ({"reference_levels": ["White"]}, "`reference_levels` must be null or a mapping"),
        ({"outcome": 5}, "`outcome` must be null or a column name"),
        ({"mask_value": None}, "`mask_value` must be a string"),
    ],
)
def test_bad_params(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        OddsRatioPreservation(**kwargs).validate_params()
