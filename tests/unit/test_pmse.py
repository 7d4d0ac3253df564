"""pMSE family (``spec/metrics.md`` F2): hand-computed values, the logit null expectation,
identical data, a dependence-breaking release and parameter errors."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from harness.dtypes import conform
from harness.errors import ConfigError, IncomputableMetricError
from harness.spec import DatasetSpec
from metrics.fidelity.pmse import Pmse, identified_columns, logit_null

TINY = DatasetSpec.from_dict({"name": "tiny", "columns": {"g": "categorical"}})
SPEC = DatasetSpec.from_dict(
    {"name": "toy", "columns": {"x": "continuous", "y": "continuous", "g": "categorical"}}
)


def tiny_tables() -> tuple[pd.DataFrame, pd.DataFrame]:
    real = conform(pd.DataFrame({"g": ["a", "a", "a", "b"]}), TINY)
    synthetic = conform(pd.DataFrame({"g": ["a", "b", "b", "b"]}), TINY)
    return real, synthetic


def correlated(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    y = x + 0.3 * rng.normal(size=n)
    g = np.where(x + 0.5 * rng.normal(size=n) > 0, "hi", "lo")
    return conform(pd.DataFrame({"x": x, "y": y, "g": g}), SPEC)


def independent(frame: pd.DataFrame, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({c: frame[c].to_numpy()[rng.permutation(len(frame))] for c in frame.columns})


def test_logit_pmse_equals_the_hand_computed_value() -> None:
    # one binary factor: the logit is saturated, p = share of synthetic rows per level
    # level a: 3 real, 1 synthetic -> p = 1/4; level b: 1 real, 3 synthetic -> p = 3/4
    # pMSE = (1/8)·8·(1/4)² = 1/16; k = 2, c = 1/2, N = 8: E0 = (1/4)(1/2)/8 = 1/64
    real, synthetic = tiny_tables()
    out = Pmse(model="logit", maxorder=0).compute(real, synthetic, TINY, seed=0)
    assert out["pmse"].value == pytest.approx(1 / 16, abs=1e-10)
    assert out["pmse"].baseline == pytest.approx(1 / 64)
    assert out["pmse_ratio"].value == pytest.approx(4.0, abs=1e-8)
    sd0 = math.sqrt(2) * (1 / 4) * (1 / 2) / 8
    assert out["pmse_standardised"].value == pytest.approx((1 / 16 - 1 / 64) / sd0, abs=1e-8)


def test_cart_pmse_equals_the_hand_computed_value() -> None:
    real, synthetic = tiny_tables()
    out = Pmse(model="cart", cp=0.0, min_samples_leaf=1, nperms=3).compute(real, synthetic, TINY, seed=0)
    assert out["pmse"].value == pytest.approx(1 / 16, abs=1e-12)  # one split on g: same leaves


def test_logit_null_expectation_formula() -> None:
    assert logit_null(5, 0.25, 400) == pytest.approx(
        (4 * 0.75**2 * 0.25 / 400, math.sqrt(8) * 0.75**2 * 0.25 / 400)
    )
    real, synthetic = correlated(300, 0), correlated(100, 1)  # unequal sizes: c = 1/4
    out = Pmse(model="logit", maxorder=0).compute(real, synthetic, SPEC, seed=0)
    k = 1 + 1 + 1 + 1  # intercept, x, y, one dummy of g
    n, c = 400, 0.25
    assert out["pmse"].details["per_copy"][0]["k"] == k
    assert out["pmse"].baseline == pytest.approx((k - 1) * (1 - c) ** 2 * c / n)
    assert out["pmse_ratio"].value == pytest.approx(out["pmse"].value / ((k - 1) * (1 - c) ** 2 * c / n))


def test_aliased_columns_are_not_counted() -> None:
    x = np.column_stack([np.ones(6), [0, 1, 0, 1, 0, 1], [1, 0, 1, 0, 1, 0], [1, 2, 3, 4, 5, 6]])
    assert len(identified_columns(x)) == 3  # the two dummies and the intercept are collinear


@pytest.mark.parametrize("model", ["logit", "cart"])
def test_identical_data_scores_near_zero(model: str) -> None:
    real = correlated(300, 0)
    out = Pmse(model=model, maxorder=0, nperms=5).compute(real, real.copy(), SPEC, seed=0)
    assert out["pmse"].value == pytest.approx(0.0, abs=1e-12)
    assert out["pmse_ratio"].value < 1e-6


@pytest.mark.parametrize("model", ["logit", "cart"])
def test_independent_marginals_score_worse_than_a_fresh_sample(model: str) -> None:
    real = correlated(600, 0)
    fresh = correlated(600, 1)  # a correct synthesis: same distribution
    broken = independent(correlated(600, 2), seed=3)  # marginals kept, dependence destroyed
    metric = Pmse(model=model, maxorder=1, nperms=10)
    good = metric.compute(real, fresh, SPEC, seed=0)
    bad = metric.compute(real, broken, SPEC, seed=0)
    assert bad["pmse"].value > 1.5 * good["pmse"].value
    assert bad["pmse_ratio"].value > 1.5 * good["pmse_ratio"].value
    # an independent sample scores about 2: synthpop's null (logit theory, permutations / 2) is
    # that of a synthesis from the original, half the null of two independent samples
    assert good["pmse_ratio"].value < 5


def test_pairs_null_from_stacked_copies() -> None:
    real = correlated(200, 0)
    copies = pd.concat([correlated(200, s) for s in (1, 2, 3)], ignore_index=True)
    out = Pmse(model="cart", resamp_method="pairs", copies=3).compute(real, copies, SPEC, seed=0)
    details = out["pmse"].details
    assert details["copies"] == 3 and details["nperms"] == 3 and len(details["per_copy"]) == 3
    assert out["pmse"].value == pytest.approx(np.mean([e["pmse"] for e in details["per_copy"]]))
    with pytest.raises(IncomputableMetricError, match="copies=7"):
        Pmse(copies=7).compute(real, copies, SPEC, seed=0)  # 600 rows: not 7 equal copies


def test_too_many_logit_parameters_is_incomputable() -> None:
    real = correlated(100, 0)
    with pytest.raises(IncomputableMetricError, match="max_params"):
        Pmse(model="logit", maxorder=1, max_params=5).compute(real, correlated(100, 1), SPEC, seed=0)


@pytest.mark.parametrize(
    ("params", "key"),
    [
        ({"model": "forest"}, "model"),
        ({"maxorder": 2}, "maxorder"),
        ({"maxorder": True}, "maxorder"),
        ({"max_params": 0}, "max_params"),
        ({"maxit": 0}, "maxit"),
        ({"cp": -1.0}, "cp"),
        ({"min_samples_leaf": 0}, "min_samples_leaf"),
        ({"nperms": 0}, "nperms"),
        ({"resamp_method": "bootstrap"}, "resamp_method"),
        ({"copies": 0}, "copies"),
        ({"resamp_method": "pairs", "copies": 1}, "resamp_method"),
    ],
)
def test_bad_parameters_raise_one_line_config_error(params: dict, key: str) -> None:
    with pytest.raises(ConfigError, match=key) as info:
        Pmse(**params).validate_params()
    assert "\n" not in str(info.value)
