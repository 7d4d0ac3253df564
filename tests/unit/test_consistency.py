"""``consistency`` (spec/metrics.md F9) with hand-computed shares."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from harness.errors import ConfigError, IncomputableMetricError
from harness.instantiate import build_metric
from harness.spec import DatasetSpec
from metrics.fidelity.consistency import Consistency

LABELS = ["16-24", "25-34", "35-44", "45-59", "60-64", "65+"]
RULES: dict[str, dict[str, object]] = {
    "agegr": {"kind": "cut", "source": "age", "breaks": [16, 25, 35, 45, 60, 65], "labels": LABELS},
    "bmi": {"kind": "product", "factors": {"weight": 1, "height": -2}, "scale": 10000},
}
SPEC = DatasetSpec.from_dict(
    {
        "name": "people",
        "columns": {
            "age": "integer",
            "agegr": "categorical",
            "height": "integer",
            "weight": "continuous",
            "bmi": "continuous",
        },  # fmt: skip
    }
)
# T: consistent except row 3, whose bmi (99) does not match 70 / 1.75² = 22.857...
REAL = pd.DataFrame(
    {"age": [20, 30, 40, 70], "agegr": ["16-24", "25-34", "35-44", "65+"], "height": [200, 100, 170, 175],
     "weight": [80.0, 50.0, 60.0, 70.0], "bmi": [20.0, 50.0, 60 / 1.7**2, 99.0]}
)  # fmt: skip
# S: row 0 breaks bmi (21 != 20), row 1 breaks agegr (30 is 25-34), row 2 breaks both, row 3 has
# missing agegr and weight (not checkable), row 4 is consistent.
SYNTHETIC = pd.DataFrame(
    {"age": [20, 30, 50, 70, 64], "agegr": ["16-24", "16-24", "35-44", None, "60-64"],
     "height": [200, 100, 100, 175, 100], "weight": [80.0, 50.0, 40.0, np.nan, 30.0],
     "bmi": [21.0, 50.0, 41.0, 22.0, 30.0]}
)  # fmt: skip


def _compute(metric: Consistency, synthetic: pd.DataFrame = SYNTHETIC, spec: DatasetSpec = SPEC) -> dict:
    out = metric.compute(REAL, synthetic, spec, seed=0)
    assert isinstance(out, dict)
    return out


def test_shares_match_hand_counts() -> None:
    out = _compute(Consistency(rules=RULES))
    assert out["agegr"].value == pytest.approx(2 / 5)  # rows 1 and 2
    assert out["bmi"].value == pytest.approx(2 / 5)  # rows 0 and 2
    assert out["any"].value == pytest.approx(3 / 5)  # rows 0, 1, 2
    assert out["agegr"].baseline == 0.0 and out["bmi"].baseline == pytest.approx(1 / 4)
    assert out["any"].baseline == pytest.approx(1 / 4)
    agegr = out["agegr"].details
    assert agegr["n_checked"] == 4 and agegr["n_violations"] == 2
    assert agegr["mismatches"] == [
        {"observed": "16-24", "expected": "25-34", "n": 1},
        {"observed": "35-44", "expected": "45-59", "n": 1},
    ]
    assert out["bmi"].details["n_checked"] == 4 and "mismatches" not in out["bmi"].details


def test_identical_release_scores_its_own_baseline() -> None:
    out = _compute(Consistency(rules=RULES), synthetic=REAL.copy())
    assert {k: r.value for k, r in out.items()} == {k: r.baseline for k, r in out.items()}


def test_rules_default_to_the_declared_derived_columns() -> None:
    declared = DatasetSpec.from_dict({**SPEC.to_dict(), "preprocess": {"derived_columns": RULES}})
    assert _compute(Consistency(), spec=declared)["any"].value == pytest.approx(3 / 5)
    with pytest.raises(IncomputableMetricError, match="no derivation rules"):
        _compute(Consistency())


def test_bad_rules_are_one_line_config_errors() -> None:
    with pytest.raises(ConfigError, match=r"`rules`\.agegr\.kind must be one of cut, product, lookup"):
        Consistency(rules={"agegr": {"kind": "bins"}}).validate_params()
    with pytest.raises(
        ConfigError, match=r"`rules`\.agegr: column 'years' is not a column of dataset 'people'"
    ):
        _compute(Consistency(rules={"agegr": {**RULES["agegr"], "source": "years"}}))


def test_built_from_its_yaml() -> None:
    metric = build_metric("consistency")
    assert isinstance(metric, Consistency) and metric.rules is None
