"""wasserstein and hellinger (spec/metrics.md F6)."""

from __future__ import annotations

import builtins
import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import wasserstein_distance

from harness.checks import ContractData, contract_data, uniform_release
from harness.errors import ConfigError
from harness.instantiate import build_metric
from harness.spec import ColumnSpec, DatasetSpec
from metrics.fidelity.hellinger import Hellinger, hellinger_distance
from metrics.fidelity.wasserstein import Wasserstein

SPEC = DatasetSpec(
    name="tiny",
    columns=(ColumnSpec("x", "continuous"), ColumnSpec("y", "integer"), ColumnSpec("c", "categorical")),
)


@pytest.fixture(scope="module")
def adult() -> ContractData:
    return contract_data("adult", n_train=300, n_control=100, n_test=100, seed=0)


def test_hellinger_by_hand() -> None:
    real = pd.Series(["a", "a", "b", "b"])
    syn = pd.Series(["a", "a", "a", "a"])
    # p = (1/2, 1/2), q = (1, 0): BC = sqrt(1/2)
    assert hellinger_distance(real, syn) == pytest.approx(math.sqrt(1 - math.sqrt(0.5)), abs=1e-15)
    # NA is a category of its own
    assert hellinger_distance(pd.Series(["a", None]), pd.Series(["a", "a"])) == pytest.approx(
        math.sqrt(1 - math.sqrt(0.5)), abs=1e-15
    )
    assert hellinger_distance(pd.Series(["a"]), pd.Series(["b"])) == 1.0
    assert hellinger_distance(real, real.sample(frac=1, random_state=0)) == 0.0


def test_hellinger_metric_is_the_column_mean() -> None:
    real = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0], "y": [1, 2, 3, 4], "c": ["a", "a", "b", "b"]})
    syn = real.assign(c=["a", "a", "a", "a"])
    out = Hellinger().compute(real, syn, SPEC)
    assert out.value == pytest.approx(math.sqrt(1 - math.sqrt(0.5)))
    assert Hellinger().compute(real, real.copy(), SPEC).value == 0.0


def test_wasserstein_per_column_by_hand() -> None:
    real = pd.DataFrame({"x": [0.0, 10.0], "y": [0, 4], "c": ["a", "b"]})
    syn = pd.DataFrame({"x": [5.0, 15.0], "y": [0, 4], "c": ["a", "b"]})
    # x scaled with T's range: T (0, 1), S (0.5, 1.5) -> W1 = 0.5 (not clipped); y identical -> 0
    out = Wasserstein().compute(real, syn, SPEC)
    assert out.details["columns"] == pytest.approx({"x": 0.5, "y": 0.0}, abs=1e-15)
    assert out.value == pytest.approx(0.25, abs=1e-15)
    assert Wasserstein().compute(real, real.copy(), SPEC).value == 0.0


def test_wasserstein_per_column_on_adult(adult: ContractData) -> None:
    out = Wasserstein().compute(adult.train, adult.test, adult.spec)
    for col, value in out.details["columns"].items():
        r, s = adult.train[col].astype(float), adult.test[col].astype(float)
        lo, hi = r.min(), r.max()
        assert value == pytest.approx(wasserstein_distance((r - lo) / (hi - lo), (s - lo) / (hi - lo)))


def test_sum_w_h_adds_the_per_column_terms(adult: ContractData) -> None:
    per_column = Wasserstein().compute(adult.train, adult.test, adult.spec)
    hellinger = Hellinger().compute(adult.train, adult.test, adult.spec)
    total = Wasserstein(variant="sum_w_h").compute(adult.train, adult.test, adult.spec)
    expected = sum(per_column.details["columns"].values()) + sum(hellinger.details["columns"].values())
    assert total.value == pytest.approx(expected, abs=1e-12)


def test_joint_by_hand() -> None:
    real = pd.DataFrame({"x": [0.0, 1.0], "y": [0, 1], "c": ["a", "a"]})
    syn = pd.DataFrame({"x": [0.0, 1.0], "y": [3, 2], "c": ["a", "a"]})
    # E: (x, y, c=a); T = (0,0,1), (1,1,1); S = (0,3,1), (1,2,1): best matching costs 3 and 1
    out = Wasserstein(variant="joint").compute(real, syn, SPEC)
    assert out.value == pytest.approx(2.0, abs=1e-12)
    assert out.details["n_used"] == 2


def test_joint_solvers_agree(adult: ContractData, monkeypatch: pytest.MonkeyPatch) -> None:
    degraded = uniform_release(adult.train, adult.spec, seed=0)
    metric = Wasserstein(variant="joint", n_subsample=120)
    with_pot = metric.compute(adult.train, degraded, adult.spec, seed=2)
    real_import = builtins.__import__

    def no_pot(name, *args, **kwargs):
        if name == "ot":
            raise ImportError("no POT")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pot)
    without_pot = metric.compute(adult.train, degraded, adult.spec, seed=2)
    assert with_pot.details["solver"] == "pot.emd2"
    assert without_pot.details["solver"] == "scipy.linear_sum_assignment"
    assert with_pot.value == pytest.approx(without_pot.value, rel=1e-9)
    assert with_pot.details["n_used"] == 120 and with_pot.details["subsample_seed"] == 2
    closer = metric.compute(adult.train, adult.test, adult.spec, seed=2)
    assert closer.value < with_pot.value
    assert np.isfinite(closer.value)


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"variant": "sliced"}, "`variant` must be one of"),
        ({"n_subsample": 0}, "`n_subsample` must be an integer >= 1"),
    ],
)
def test_bad_params_are_one_line_config_errors(params, match: str) -> None:
    with pytest.raises(ConfigError, match=match) as err:
        Wasserstein(**params).validate_params()
    assert "\n" not in str(err.value)


def test_built_from_yaml() -> None:
    assert build_metric("wasserstein").get_params() == {"variant": "per_column", "n_subsample": 2000}
    assert isinstance(build_metric("hellinger"), Hellinger)
