"""moment_frobenius (spec/metrics.md F4) and covariance_contraction (F5) on hand-computed tables."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from harness.errors import IncomputableMetricError
from harness.instantiate import build_metric
from harness.spec import ColumnSpec, DatasetSpec
from metrics.fidelity.covariance_contraction import CovarianceContraction
from metrics.fidelity.moment_frobenius import MomentFrobenius

SPEC = DatasetSpec(
    name="tiny",
    columns=(ColumnSpec("x", "continuous"), ColumnSpec("y", "integer"), ColumnSpec("c", "categorical")),
)


def test_moment_frobenius_by_hand() -> None:
    real = pd.DataFrame({"x": [0.0, 2.0], "y": [0, 4], "c": ["a", "b"]})
    syn = pd.DataFrame({"x": [1.0, 1.0], "y": [1, 5], "c": ["a", "a"]})
    # mu_T = (1, 2), mu_S = (1, 3); Sigma_T = [[2, 4], [4, 8]], Sigma_S = [[0, 0], [0, 8]]
    out = MomentFrobenius().compute(real, syn, SPEC)
    assert out["mean_norm"].value == pytest.approx(1.0, abs=1e-12)
    assert out["cov_norm"].value == pytest.approx(6.0, abs=1e-12)  # sqrt(4 + 16 + 16)
    same = MomentFrobenius().compute(real, real.copy(), SPEC)
    assert same["mean_norm"].value == 0.0 and same["cov_norm"].value == 0.0


def test_moment_frobenius_needs_numeric_columns() -> None:
    spec = DatasetSpec(name="cats", columns=(ColumnSpec("c", "categorical"),))
    frame = pd.DataFrame({"c": ["a", "b"]})
    with pytest.raises(IncomputableMetricError, match="no numeric column"):
        MomentFrobenius().compute(frame, frame, spec)


def test_covariance_contraction_by_hand() -> None:
    real = pd.DataFrame({"x": [0.0, 2.0, 4.0], "y": [7, 7, 7], "c": ["a", "b", "a"]})
    syn = pd.DataFrame({"x": [1.0, 2.0, 3.0], "y": [1, 2, 3], "c": ["a", "a", "a"]})
    out = CovarianceContraction().compute(real, syn, SPEC)
    # T's x: mean 2, sd 2 -> S's z-scores (-0.5, 0, 0.5) have variance 0.25; y is constant in T
    assert out.value == pytest.approx(0.25, abs=1e-12)
    assert out.details["variance_ratios"] == pytest.approx({"x": 0.25})
    assert out.details["constant_columns"] == ["y"]
    assert CovarianceContraction.goal == "none"


def test_covariance_contraction_is_the_mean_variance_ratio() -> None:
    rng = np.random.default_rng(0)
    real = pd.DataFrame({"x": rng.normal(size=50), "y": rng.integers(0, 9, 50), "c": "a"})
    syn = pd.DataFrame({"x": 0.5 * rng.normal(size=60), "y": rng.integers(0, 9, 60), "c": "a"})
    out = CovarianceContraction().compute(real, syn, SPEC)
    ratios = [syn[c].var() / real[c].var() for c in ("x", "y")]
    assert out.value == pytest.approx(np.mean(ratios), rel=1e-12)
    assert CovarianceContraction().compute(real, real.copy(), SPEC).value == pytest.approx(1.0)
    assert math.isfinite(out.value)


def test_built_from_yaml() -> None:
    assert isinstance(build_metric("moment_frobenius"), MomentFrobenius)
    assert isinstance(build_metric("covariance_contraction"), CovarianceContraction)
