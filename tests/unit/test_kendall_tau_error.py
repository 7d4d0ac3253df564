"""kendall_tau_error (004_… SynDiffix multi-table paper §4.3, Table 3 "Correlation")."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
import pytest

from harness.errors import ConfigError, IncomputableMetricError
from harness.spec import ColumnSpec, DatasetSpec
from metrics.fidelity.kendall_tau_error import KendallTauError, kendall_tau, ordered_values

SPEC = DatasetSpec(
    name="tiny",
    columns=(
        ColumnSpec("x", "integer"),
        ColumnSpec("y", "continuous"),
        ColumnSpec("z", "ordinal", categories=("low", "mid", "high", "top")),
        ColumnSpec("c", "categorical"),
    ),
)
REAL = pd.DataFrame(
    {
        "x": [1, 2, 3, 4],
        "y": [1.0, 2.0, 3.0, 4.0],
        "z": ["low", "mid", "top", "high"],
        "c": ["1", "2", "N", "2"],
    }
)


def test_tau_by_hand() -> None:
    x = np.array([1.0, 2.0, 3.0, 4.0])
    assert kendall_tau(x, x) == pytest.approx(1.0)
    assert kendall_tau(x, x[::-1]) == pytest.approx(-1.0)
    # z positions 0, 1, 3, 2: 5 concordant, 1 discordant pair -> 4/6
    assert kendall_tau(x, np.array([0.0, 1.0, 3.0, 2.0])) == pytest.approx(2 / 3)
    assert np.isnan(kendall_tau(x, np.ones(4)))


def test_ordered_values() -> None:
    assert ordered_values(REAL["z"], "ordinal", ("low", "mid", "high", "top")).tolist() == [0, 1, 3, 2]
    values = ordered_values(REAL["c"], "categorical")
    assert values[:2].tolist() == [1.0, 2.0] and np.isnan(values[2])  # "N" = not applicable -> missing


def test_metric_by_hand() -> None:
    syn = REAL.assign(y=[4.0, 3.0, 2.0, 1.0])
    out = KendallTauError(columns=["x", "y", "z"]).compute(REAL, syn, SPEC)
    # T: tau(x,y) = 1, tau(x,z) = tau(y,z) = 2/3; S: tau(x,y) = -1, tau(x,z) = 2/3, tau(y,z) = -2/3
    assert out["median_abs_diff"].value == pytest.approx(4 / 3)
    assert out["mean_abs_diff"].value == pytest.approx((2 + 0 + 4 / 3) / 3)
    assert out["median_abs_diff"].details["n_pairs"] == 3


def test_matches_pandas_kendall_as_sdnist() -> None:
    rng = np.random.default_rng(0)
    real = pd.DataFrame({"x": rng.integers(0, 5, 200), "y": rng.normal(size=200)})
    real["y"] += real["x"]
    syn = pd.DataFrame({"x": rng.integers(0, 5, 200), "y": rng.normal(size=200)})
    spec = DatasetSpec(name="r", columns=(ColumnSpec("x", "integer"), ColumnSpec("y", "continuous")))
    out = KendallTauError().compute(real, syn, spec)
    expected = abs(syn["x"].corr(syn["y"], method="kendall") - real["x"].corr(real["y"], method="kendall"))
    assert out["median_abs_diff"].value == pytest.approx(expected, abs=1e-12)


def test_default_columns_and_undefined_tau() -> None:
    out = KendallTauError().compute(REAL, REAL.copy(), SPEC)
    assert out["median_abs_diff"].value == 0.0
    assert out["median_abs_diff"].details["columns"] == ["x", "y", "z", "c"]
    assert out["median_abs_diff"].details["n_pairs"] == len(list(combinations("xyzc", 2)))
    # a column constant in S only: tau_S = 0, so the difference is |tau_T|
    flat = REAL.assign(y=[2.0, 2.0, 2.0, 2.0])
    diffs = KendallTauError(columns=["x", "y"]).compute(REAL, flat, SPEC)
    assert diffs["median_abs_diff"].value == pytest.approx(1.0)
    # a column constant in T: its pairs are skipped
    with pytest.raises(IncomputableMetricError):
        KendallTauError(columns=["x", "y"]).compute(flat, REAL, SPEC)


def test_bad_parameters() -> None:
    with pytest.raises(ConfigError, match="unknown column"):
        KendallTauError(columns=["x", "nope"]).compute(REAL, REAL, SPEC)
    with pytest.raises(ConfigError, match="columns"):
        KendallTauError(columns=[]).compute(REAL, REAL, SPEC)
