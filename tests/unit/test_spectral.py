"""Spectral anonymisation (``spec/generators.md`` §6.9): P-SA keeps the sample mean exactly,
every variant keeps the column variances in expectation, O-SA never releases a record."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from generators.spectral import SpectralAnonymization, spectral_anonymize
from harness.dtypes import conform
from harness.errors import ConfigError, DataError
from harness.spec import DatasetSpec

NUMERIC = DatasetSpec.from_dict(
    {"name": "num", "columns": {"a": "continuous", "b": "continuous", "c": "integer", "d": "continuous"}}
)
MIXED = DatasetSpec.from_dict(
    {"name": "mixed", "columns": {"a": "continuous", "b": "continuous", "colour": "categorical"}}
)
VARIANTS = ["p_sa", "j_sa", "o_sa"]


def make_numeric(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    x = rng.multivariate_normal([1.0, -2.0, 50.0, 0.0], np.diag([1.0, 4.0, 100.0, 0.25]), size=n)
    x[:, 1] += 0.8 * x[:, 0]  # correlated columns
    x[:, 3] = rng.exponential(size=n)  # skewed
    return conform(pd.DataFrame(x, columns=["a", "b", "c", "d"]), NUMERIC)


def test_p_sa_reproduces_the_sample_mean_exactly() -> None:
    train = make_numeric(300, seed=1)
    x = train[["a", "b", "c", "d"]].to_numpy(dtype=float)
    for seed in range(5):
        anon = spectral_anonymize(x, "p_sa", np.random.default_rng(seed))
        np.testing.assert_allclose(anon.mean(axis=0), x.mean(axis=0), rtol=1e-12, atol=1e-12)
    gen = SpectralAnonymization(variant="p_sa").fit(train, NUMERIC, seed=0)
    out = gen.sample()
    for col in ["a", "b", "d"]:  # continuous: released unrounded
        assert out[col].mean() == pytest.approx(train[col].mean(), rel=1e-12, abs=1e-12)
    moments = gen.details()["moments"]
    for col in ["a", "b", "c", "d"]:
        assert moments[col]["mean_unrounded"] == pytest.approx(moments[col]["mean"], rel=1e-12, abs=1e-12)
    assert (out["c"] == np.rint(out["c"])).all()  # integer column rounded after the transform


@pytest.mark.parametrize("variant", VARIANTS)
def test_variances_kept_in_expectation(variant: str) -> None:
    train = make_numeric(400, seed=2)
    x = train.to_numpy(dtype=float)
    var = x.var(axis=0, ddof=1)
    runs = [
        spectral_anonymize(x, variant, np.random.default_rng(seed)).var(axis=0, ddof=1) for seed in range(200)
    ]
    ratio = np.mean(runs, axis=0) / var
    np.testing.assert_allclose(ratio, 1.0, atol=0.02)  # sd of the mean ratio over 200 seeds ~ 0.005


@pytest.mark.parametrize("seed", range(5))
def test_o_sa_never_reproduces_an_original_record(seed: int) -> None:
    train = make_numeric(200, seed=3)
    out = (
        SpectralAnonymization(variant="o_sa", columns=["a", "b", "d"]).fit(train, NUMERIC, seed=seed).sample()
    )
    keys = ["a", "b", "d"]
    merged = out[keys].merge(train[keys], how="inner", on=keys)
    assert merged.empty
    x, y = train[keys].to_numpy(), out[keys].to_numpy()
    assert not (np.abs(x[:, None, :] - y[None, :, :]).max(axis=2) < 1e-9).any()
    pd.testing.assert_series_equal(out["c"], train["c"])  # not selected: unchanged


def test_on_categorical() -> None:
    rng = np.random.default_rng(4)
    frame = pd.DataFrame(
        {"a": rng.normal(size=50), "b": rng.normal(size=50), "colour": rng.choice(np.array(["x", "y"]), 50)}
    )
    train = conform(frame, MIXED)
    with pytest.raises(ConfigError, match="supports numeric columns only"):
        SpectralAnonymization().fit(train, MIXED, seed=0)
    gen = SpectralAnonymization(on_categorical="pass_through").fit(train, MIXED, seed=0)
    assert gen.info().supports_categorical and not SpectralAnonymization().info().supports_categorical
    out = gen.sample()
    pd.testing.assert_series_equal(out["colour"], train["colour"])
    assert not out["a"].equals(train["a"])


def test_seeds_and_errors() -> None:
    train = make_numeric(100, seed=5)
    a = SpectralAnonymization().fit(train, NUMERIC, seed=0).sample()
    pd.testing.assert_frame_equal(a, SpectralAnonymization().fit(train, NUMERIC, seed=0).sample())
    assert not a.equals(SpectralAnonymization().fit(train, NUMERIC, seed=1).sample())
    with pytest.raises(ConfigError, match=r"^`variant` must be one of 'p_sa', 'j_sa', 'o_sa'; got 'x_sa'$"):
        SpectralAnonymization(variant="x_sa").validate_params()
    with pytest.raises(ConfigError, match="`on_categorical` must be one of"):
        SpectralAnonymization(on_categorical="drop").validate_params()
    missing = train.copy()
    missing.loc[3, "b"] = np.nan
    with pytest.raises(DataError, match="'b' have missing values"):
        SpectralAnonymization().fit(missing, NUMERIC, seed=0)
