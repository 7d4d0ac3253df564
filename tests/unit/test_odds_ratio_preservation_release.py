"""``odds_ratio_preservation``: a numeric covariate generalised to ``*`` everywhere is left out
of the release model (reproductions.md §10: Robin Hood's OLA step may suppress a whole QI)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from harness.spec import DatasetSpec
from metrics.utility.odds_ratio_preservation import OddsRatioPreservation

SPEC = DatasetSpec.from_dict(
    {
        "name": "toy",
        "columns": {
            "age": "integer",
            "race": "categorical",
            "y": {"kind": "categorical", "categories": ["0", "1"]},
        },
        "target": "y",
        "task": "binary",
        "qi_sets": {"default": ["age", "race"]},
    }
)


def _rows(race: str, yes: int, no: int, age: float) -> list[tuple[float, str, str]]:
    return [(age, race, "1")] * yes + [(age, race, "0")] * no


def test_fully_generalised_numeric_covariate_is_dropped() -> None:
    real = pd.DataFrame(
        _rows("a", 10, 30, 30.0) + _rows("a", 5, 5, 50.0) + _rows("b", 20, 20, 40.0),
        columns=["age", "race", "y"],
    )
    release = real.assign(age=np.nan)  # age released as "*" (decoded to NaN) in every row
    out = OddsRatioPreservation(fairness_attr="race", reference_levels={"race": "a"}).compute(
        real, release, SPEC
    )
    details = out["mean_abs_log_or_error"].details
    assert details["release_covariates_dropped"] == ["age"] and details["n_used_release"] == len(real)
    # release model y ~ race: OR_b = (20/20) / (15/35) = 7/3
    assert details["levels"]["b"]["or_release"] == pytest.approx(7 / 3)
    assert details["levels"]["b"]["release_level"] == "exact"
    same = OddsRatioPreservation(fairness_attr="race", reference_levels={"race": "a"}).compute(
        real, real, SPEC
    )
    assert same["mean_abs_log_or_error"].details["release_covariates_dropped"] == []
    assert same["mean_abs_log_or_error"].value == pytest.approx(0.0, abs=1e-9)
