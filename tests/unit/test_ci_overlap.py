"""ci_overlap (spec/metrics.md U4; Karr et al. 2006)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

from harness.checks import ContractData, contract_data
from harness.errors import ConfigError, IncomputableMetricError
from harness.spec import DatasetSpec
from metrics.utility.ci_overlap import CiOverlap, interval_overlap


@pytest.mark.parametrize(
    ("orig", "release", "expected"),
    [
        ((0.0, 2.0), (1.0, 3.0), 1 / 4 + 1 / 4),
        ((0.0, 4.0), (1.0, 2.0), 1 / 8 + 1 / 2),
        ((1.0, 2.0), (0.0, 4.0), 1 / 2 + 1 / 8),
        ((0.0, 1.0), (0.0, 1.0), 1.0),
        ((0.0, 1.0), (2.0, 3.0), 0.0),
        ((0.0, 1.0), (1.0, 2.0), 0.0),
        ((-3.0, -1.0), (-2.0, 5.0), 1 / 4 + 1 / 14),
    ],
)
def test_karr_formula(orig: tuple[float, float], release: tuple[float, float], expected: float) -> None:
    assert interval_overlap(orig, release) == pytest.approx(expected)


def _toy() -> tuple[DatasetSpec, pd.DataFrame, pd.DataFrame]:
    spec = DatasetSpec.from_dict(
        {
            "name": "toy",
            "columns": {"x": "continuous", "g": "categorical", "y": "continuous"},
            "target": "y",
            "task": "regression",
            "qi_sets": {"default": ["x", "g"]},
        }
    )
    rng = np.random.default_rng(0)
    n = 40
    x = rng.normal(size=n)
    g = np.where(np.arange(n) % 3 == 0, "b", "a")
    y = 1.0 + 2.0 * x + 0.5 * (g == "b") + rng.normal(size=n)
    real = pd.DataFrame({"x": x, "g": g, "y": y})
    x2 = rng.normal(size=n)
    g2 = np.where(np.arange(n) % 2 == 0, "b", "a")
    synthetic = pd.DataFrame({"x": x2, "g": g2, "y": 0.5 + 1.0 * x2 + rng.normal(size=n)})
    return spec, real, synthetic


def test_ols_on_a_tiny_table_matches_statsmodels_by_hand() -> None:
    spec, real, synthetic = _toy()
    out = CiOverlap().compute(real, synthetic, spec)

    def cis(frame: pd.DataFrame) -> pd.DataFrame:
        design = sm.add_constant(pd.DataFrame({"x": frame["x"], "g=b": (frame["g"] == "b").astype(float)}))
        return sm.OLS(frame["y"], design).fit().conf_int(alpha=0.05)

    ci_o, ci_s = cis(real), cis(synthetic)
    expected = {
        name: interval_overlap(tuple(ci_o.loc[col]), tuple(ci_s.loc[col]))
        for name, col in (("Intercept", "const"), ("x", "x"), ("g=b", "g=b"))
    }
    assert set(out) == {"mean", "coef:Intercept", "coef:x", "coef:g=b"}
    for name, value in expected.items():
        assert out[f"coef:{name}"].value == pytest.approx(value, abs=1e-9)
    assert out["mean"].value == pytest.approx(np.mean(list(expected.values())), abs=1e-9)
    assert out["mean"].details["model"] == "ols" and out["mean"].details["references"] == {"g": "a"}
    assert CiOverlap().compute(real, real.copy(), spec)["mean"].value == pytest.approx(1.0)


def test_custom_formula_and_per_coefficient_off() -> None:
    spec, real, synthetic = _toy()
    out = CiOverlap(formula="y ~ x", per_coefficient=False).compute(real, synthetic, spec)
    assert set(out) == {"mean"}
    assert out["mean"].details["n_coefficients"] == 2


def test_missing_level_scores_zero() -> None:
    spec, real, synthetic = _toy()
    only_a = real.assign(g="a")  # same x slope, level b gone
    out = CiOverlap().compute(real, only_a, spec)
    assert out["coef:g=b"].value == 0.0
    assert out["coef:x"].value > 0.0


@pytest.fixture(scope="module")
def adult() -> ContractData:
    return contract_data("adult", n_train=300, n_control=10, n_test=10, seed=3)


def test_logit_on_the_binary_target(adult: ContractData) -> None:
    metric = CiOverlap(covariates=["age", "sex", "hours-per-week"])
    same = metric.compute(adult.train, adult.train.copy(), adult.spec)
    assert same["mean"].value == pytest.approx(1.0)
    assert same["mean"].details["model"] == "logit"
    assert {"coef:Intercept", "coef:age", "coef:sex=Female", "coef:hours-per-week"} == set(same) - {"mean"}
    shuffled = adult.train.assign(
        income=np.random.default_rng(0).permutation(adult.train["income"].to_numpy())
    )
    assert metric.compute(adult.train, shuffled, adult.spec)["mean"].value < 0.9


def test_incomputable(adult: ContractData) -> None:
    spec = adult.spec.__class__.from_dict({**adult.spec.to_dict(), "target": "race", "task": "multiclass"})
    with pytest.raises(IncomputableMetricError, match="multiclass"):
        CiOverlap().compute(adult.train, adult.train, spec)
    no_target = adult.spec.__class__.from_dict({**adult.spec.to_dict(), "target": None, "task": "none"})
    with pytest.raises(IncomputableMetricError, match="needs a target"):
        CiOverlap().compute(adult.train, adult.train, no_target)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"formula": "y + x"}, "`formula` must be null or a patsy formula"),
        ({"covariates": "age"}, "`covariates` must be null or a non-empty list"),
        ({"model": "probit"}, "`model` must be one of"),
        ({"level": 95}, "`level` must be a number in \\(0, 1\\)"),
        ({"per_coefficient": 1}, "`per_coefficient` must be true or false"),
    ],
)
def test_bad_params(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        CiOverlap(**kwargs).validate_params()
