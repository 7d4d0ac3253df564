"""PRAM (``spec/generators.md`` §6.8): T·P = T for invariant PRAM, frequencies preserved in
expectation, ε₀ on a hand-made column and the uniform variant's keep probability."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from generators.pram import Pram, epsilon0, epsilon0_invariant, transition_matrix
from harness.dtypes import conform
from harness.errors import ConfigError
from harness.spec import DatasetSpec

SPEC = DatasetSpec.from_dict(
    {
        "name": "toy",
        "columns": {"age": "integer", "colour": "categorical", "size": "categorical", "label": "categorical"},
        "target": "label",
        "qi_sets": {"default": ["age", "colour", "size"]},
    }
)
COLOURS = np.array(["red", "green", "blue", "black"], dtype=object)
FREQS = [0.5, 0.3, 0.15, 0.05]


def make_table(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    colour = rng.choice(COLOURS, size=n, p=FREQS)
    colour[:10] = None
    frame = pd.DataFrame(
        {
            "age": rng.integers(18, 91, size=n),
            "colour": colour,
            "size": rng.choice(np.array(["S", "M", "L"], dtype=object), size=n),
            "label": rng.choice(np.array(["0", "1"], dtype=object), size=n),
        }
    )
    return conform(frame, SPEC)


@pytest.mark.parametrize("theta", [0.1, 0.2, 0.3, 1.0])
def test_invariant_pram_keeps_frequencies_exactly(theta: float) -> None:
    t = np.array([500.0, 300.0, 150.0, 50.0, 1.0])
    p = transition_matrix(t, theta, "invariant")
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=0, atol=1e-15)
    np.testing.assert_allclose(t @ p, t, rtol=1e-13, atol=0)  # T·P = T
    assert (p >= 0).all()


def test_empirical_frequencies_preserved_in_expectation() -> None:
    train = make_table(2000, seed=1)
    before = train["colour"].value_counts()
    totals = pd.Series(0.0, index=before.index)
    seeds = range(40)
    for seed in seeds:
        out = Pram(theta=0.3).fit(train, SPEC, seed=seed).sample()
        assert out["colour"].isna().sum() == 10  # missing cells stay missing
        pd.testing.assert_series_equal(out["age"], train["age"])
        pd.testing.assert_series_equal(out["label"], train["label"])  # not a QI
        totals += out["colour"].value_counts().reindex(before.index, fill_value=0)
    mean = totals / len(seeds)
    # sd of a single count is at most sqrt(n * 0.3 / 4) ~ 12; of the mean over 40 seeds ~ 2
    assert (mean - before).abs().max() < 8, (mean - before).to_dict()


def test_eps0_on_hand_made_column() -> None:
    # counts a: 6, b: 3, c: 1, theta 0.5 -> rows: a (11/12, 1/24, 1/24), b (1/12, 5/6, 1/12), c (1/4, 1/4, 1/2)
    spec = DatasetSpec.from_dict({"name": "one", "columns": {"c": "categorical"}})
    train = conform(pd.DataFrame({"c": list("aaaaaabbbc")}), spec)
    gen = Pram(theta=0.5, columns=["c"]).fit(train, spec, seed=0)
    p = np.array(gen.details()["transition_matrices"]["c"])
    expected = np.array([[11 / 12, 1 / 24, 1 / 24], [1 / 12, 5 / 6, 1 / 12], [1 / 4, 1 / 4, 1 / 2]])
    np.testing.assert_allclose(p, expected, rtol=1e-14)
    # closed form: max(p_aa / p_ba, p_bb / p_ab) = max(11, 20); general max ratio agrees
    assert gen.details()["eps0"]["c"] == pytest.approx(math.log(20), rel=1e-12)
    assert epsilon0_invariant(np.array([6, 3, 1]), p) == pytest.approx(math.log(20), rel=1e-12)
    info = gen.info()
    assert info.formal_dp == {
        "epsilon": pytest.approx(math.log(20)),
        "delta": 0.0,
        "unit": "local, per column",
    }
    assert Pram().info().formal_dp is not None and Pram().info().formal_dp["epsilon"] is None  # before fit


def test_eps0_infinite_with_zero_entry() -> None:
    assert epsilon0(np.array([[1.0, 0.0], [0.0, 1.0]])) == math.inf
    assert epsilon0(transition_matrix(np.array([5.0, 5.0]), 1.0, "uniform")) == math.inf
    assert epsilon0(np.ones((1, 1))) == 0.0


def test_uniform_variant_keep_probability() -> None:
    p = transition_matrix(np.array([10.0, 20.0, 30.0, 40.0]), 0.3, "uniform")
    np.testing.assert_allclose(np.diag(p), 0.7)
    np.testing.assert_allclose(p[~np.eye(4, dtype=bool)], 0.1)
    assert epsilon0(p) == pytest.approx(math.log(7.0))
    train = make_table(20000, seed=2)
    out = Pram(theta=0.3, variant="uniform").fit(train, SPEC, seed=0).sample()
    present = train["colour"].notna()
    kept = (out.loc[present, "colour"] == train.loc[present, "colour"]).mean()
    assert kept == pytest.approx(0.7, abs=0.015)
    changed = out.loc[present & (train["colour"] == "red"), "colour"]
    shares = changed[changed != "red"].value_counts(normalize=True)
    np.testing.assert_allclose(shares.to_numpy(), 1 / 3, atol=0.03)


def test_default_columns_and_seed_dependence() -> None:
    train = make_table(300, seed=3)
    a = Pram().fit(train, SPEC, seed=0)
    assert a.details()["columns"] == ["colour", "size"]
    b = Pram().fit(train, SPEC, seed=1)
    assert not a.sample().equals(b.sample())
    pd.testing.assert_frame_equal(a.sample(), Pram().fit(train, SPEC, seed=0).sample())


def test_errors() -> None:
    with pytest.raises(ConfigError, match=r"^`theta` must be a number in \(0, 1\]; got 0$"):
        Pram(theta=0).validate_params()
    with pytest.raises(ConfigError, match="`variant` must be one of"):
        Pram(variant="swap").validate_params()
    with pytest.raises(ConfigError, match="must name categorical columns"):
        Pram(columns=["age"]).fit(make_table(50, seed=4), SPEC, seed=0)
