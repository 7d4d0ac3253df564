"""association_distance (004_… *LLMs and GANs* Table A3; reproductions.md §13): hand-computed values."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from harness.errors import IncomputableMetricError
from harness.instantiate import build_metric
from harness.spec import ColumnSpec, DatasetSpec
from metrics.fidelity.association_distance import (
    AssociationDistance,
    association_matrix,
    category_codes,
    correlation_ratio,
    pearson,
    theils_u,
)

SPEC = DatasetSpec(name="tiny", columns=(ColumnSpec("x", "continuous"), ColumnSpec("c", "categorical")))


def _h(*p: float) -> float:
    return -sum(v * math.log(v) for v in p if v > 0)


def test_pearson_by_hand() -> None:
    # dx = (-1, 0, 1), dy = (-7/3, -1/3, 8/3): r = 5 / sqrt(2 * 114/9) = 15 / sqrt(228)
    r = pearson(np.array([1.0, 2.0, 3.0]), np.array([2.0, 4.0, 7.0]))
    assert r == pytest.approx(15 / math.sqrt(228), abs=1e-15)
    # pairwise complete rows only; a constant column has no correlation (Decision: 0)
    assert pearson(np.array([1.0, np.nan, 3.0]), np.array([1.0, 5.0, 3.0])) == pytest.approx(1.0)
    assert pearson(np.array([1.0, 1.0, 1.0]), np.array([1.0, 2.0, 3.0])) == 0.0


def test_correlation_ratio_by_hand() -> None:
    # groups a = {1, 3} (mean 2), b = {5, 7} (mean 6), overall mean 4: eta^2 = 16 / 20
    codes, n = category_codes(pd.Series(["a", "a", "b", "b"]))
    assert correlation_ratio(codes, n, np.array([1.0, 3.0, 5.0, 7.0])) == pytest.approx(math.sqrt(0.8))
    assert correlation_ratio(codes, n, np.array([2.0, 2.0, 2.0, 2.0])) == 0.0
    # NA is a category of its own: three groups, each constant -> eta = 1
    codes, n = category_codes(pd.Series(["a", None, "b", None]))
    assert n == 3
    assert correlation_ratio(codes, n, np.array([1.0, 5.0, 3.0, 5.0])) == pytest.approx(1.0)


def test_theils_u_by_hand() -> None:
    x = category_codes(pd.Series(["a", "a", "b", "b"]))
    y = category_codes(pd.Series(["u", "u", "u", "v"]))
    # H(x) = ln 2; H(x|y) = 3/4 H(2/3, 1/3) (y = v fixes x = b)
    assert theils_u(x, y) == pytest.approx((math.log(2) - 0.75 * _h(2 / 3, 1 / 3)) / math.log(2))
    # H(y) = H(3/4, 1/4); H(y|x) = 1/2 ln 2 (x = a fixes y = u)
    assert theils_u(y, x) == pytest.approx((_h(0.75, 0.25) - 0.5 * math.log(2)) / _h(0.75, 0.25))
    assert theils_u(x, x) == pytest.approx(1.0)
    constant = category_codes(pd.Series(["k", "k", "k", "k"]))
    assert theils_u(constant, x) == 1.0  # dython's convention for H(x) = 0
    assert theils_u(x, constant) == pytest.approx(0.0)


def test_matrix_layout_and_distance_by_hand() -> None:
    real = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "c": ["a", "a", "b", "b"]})
    syn = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "c": ["a", "b", "a", "b"]})
    matrix = association_matrix(real, ["x"], ["c"])
    assert list(matrix.columns) == ["x", "c"] and list(matrix.index) == ["x", "c"]
    # groups {1, 2} and {3, 4}: eta^2 = 4 / 5; in S groups {1, 3} and {2, 4}: eta^2 = 1 / 5
    assert matrix.loc["x", "c"] == matrix.loc["c", "x"] == pytest.approx(math.sqrt(0.8))
    assert np.diag(matrix.to_numpy()).tolist() == [1.0, 1.0]
    out = AssociationDistance().compute(real, syn, SPEC)
    assert isinstance(out, dict)
    gap = math.sqrt(0.8) - math.sqrt(0.2)
    assert out["l2"].value == pytest.approx(math.sqrt(2) * gap, abs=1e-12)
    assert out["mean_abs"].value == pytest.approx(gap, abs=1e-12)
    assert out["l2"].details["largest_pair"] in ("x|c", "c|x")
    assert out["l2"].details["pairs"]["x|c"] == pytest.approx(gap)
    same = AssociationDistance().compute(real, real.iloc[::-1].reset_index(drop=True), SPEC)
    assert isinstance(same, dict)
    assert same["l2"].value == pytest.approx(0.0, abs=1e-12)


def test_one_column_is_incomputable() -> None:
    spec = DatasetSpec(name="one", columns=(ColumnSpec("x", "continuous"),))
    frame = pd.DataFrame({"x": [1.0, 2.0, 3.0]})
    with pytest.raises(IncomputableMetricError, match="fewer than 2 numeric or categorical columns"):
        AssociationDistance().compute(frame, frame, spec)


def test_unknown_parameter_is_a_config_error() -> None:
    from harness.errors import ConfigError

    with pytest.raises(ConfigError, match="nope"):
        build_metric(
            "association_distance",
            {"_target_": "metrics.fidelity.association_distance.AssociationDistance", "nope": 1},
        )
