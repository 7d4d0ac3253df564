"""Hand-checked properties of the reference generators (``spec/generators.md`` §3)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from generators.baselines import Identity, IndependentMarginals, RealHoldout, Subsample, Uniform
from harness.dtypes import conform
from harness.errors import ConfigError, InfeasibleConfigError
from harness.spec import DatasetSpec

SPEC = DatasetSpec.from_dict(
    {
        "name": "toy",
        "columns": {"age": "integer", "score": "continuous", "colour": "categorical", "shade": "categorical"},
    }
)


def make_table(n: int, seed: int) -> pd.DataFrame:
    """``shade`` is a function of ``colour`` (perfect dependence); ``colour`` has NA."""
    rng = np.random.default_rng(seed)
    colour = rng.choice(
        np.array(["red", "green", "blue", None], dtype=object), size=n, p=[0.5, 0.25, 0.15, 0.1]
    )
    shade = pd.Series(colour).map({"red": "warm", "green": "cool", "blue": "cool"}).fillna("none")
    frame = pd.DataFrame(
        {
            "age": rng.integers(18, 91, size=n),
            "score": rng.normal(size=n),  # all distinct: identifies rows
            "colour": colour,
            "shade": shade,
        }
    )
    return conform(frame, SPEC)


@pytest.fixture(scope="module")
def train() -> pd.DataFrame:
    return make_table(1000, seed=1)


@pytest.fixture(scope="module")
def control() -> pd.DataFrame:
    return make_table(200, seed=2)


def shares(values: pd.Series) -> pd.Series:
    return values.value_counts(dropna=False, normalize=True)


# ---------------------------------------------------------------------- identity
def test_identity_returns_the_training_table(train: pd.DataFrame) -> None:
    out = Identity().fit(train, SPEC, seed=3).sample()
    pd.testing.assert_frame_equal(out, train)
    assert out is not train
    assert Identity().info().releases_original_records
    assert not Identity().info().randomised


def test_identity_rejects_n_rows(train: pd.DataFrame) -> None:
    gen = Identity().fit(train, SPEC, seed=0)
    with pytest.raises(ConfigError, match="n_rows must be None"):
        gen.sample(10)


# ---------------------------------------------------------------------- independent marginals
def test_independent_marginals_preserves_marginals_and_breaks_dependence(train: pd.DataFrame) -> None:
    out = IndependentMarginals().fit(train, SPEC, seed=0).sample(50_000)
    assert len(out) == 50_000
    for col in ("colour", "shade"):
        expected, observed = shares(train[col]), shares(out[col])
        assert set(observed.index.dropna()) <= set(expected.index.dropna())
        diff = observed.reindex(expected.index, fill_value=0.0) - expected
        assert diff.abs().max() < 0.01, col
    assert out["colour"].isna().mean() == pytest.approx(train["colour"].isna().mean(), abs=0.01)
    assert out["age"].mean() == pytest.approx(train["age"].mean(), abs=0.5)
    assert set(out["score"]) <= set(train["score"])
    # shade is a function of colour in training; independently drawn it matches by chance only
    mapping = train.drop_duplicates("colour").set_index("colour")["shade"]
    agree = out["shade"].to_numpy() == out["colour"].map(mapping).fillna("none").to_numpy()
    p_shade = shares(train["shade"])
    p_by_colour = shares(train["colour"].map(mapping).fillna("none"))
    chance = float((p_shade * p_by_colour.reindex(p_shade.index, fill_value=0)).sum())
    assert agree.mean() == pytest.approx(chance, abs=0.01)
    assert chance < 0.6


def test_independent_marginals_default_size(train: pd.DataFrame) -> None:
    assert len(IndependentMarginals().fit(train, SPEC, seed=0).sample()) == len(train)


# ---------------------------------------------------------------------- uniform
def test_uniform_observed_emits_only_observed_values_uniformly(train: pd.DataFrame) -> None:
    out = Uniform().fit(train, SPEC, seed=0).sample(40_000)
    for col in SPEC.table_columns:
        assert set(out[col].dropna()) <= set(train[col].dropna()), col
    # colour: red, green, blue and NA, each with probability 1/4
    observed = shares(out["colour"])
    assert len(observed) == 4
    assert np.allclose(observed.to_numpy(), 0.25, atol=0.01)
    # age: uniform over the distinct observed ages
    assert shares(out["age"]).max() < 2.0 / train["age"].nunique()


def test_uniform_range_mode_draws_within_the_range(train: pd.DataFrame) -> None:
    out = Uniform(numeric_mode="range").fit(train, SPEC, seed=0).sample(20_000)
    assert out["age"].dtype == np.int64
    assert out["age"].between(train["age"].min(), train["age"].max()).all()
    assert out["score"].between(train["score"].min(), train["score"].max()).all()
    assert not set(out["score"]) & set(train["score"])  # continuous U[min, max]: new values
    middle = (train["score"].min() + train["score"].max()) / 2
    assert (out["score"] < middle).mean() == pytest.approx(0.5, abs=0.02)
    assert set(out["colour"].dropna()) <= set(train["colour"].dropna())


def test_uniform_range_mode_keeps_missing_share(train: pd.DataFrame) -> None:
    data = train.copy()
    data["score"] = data["score"].where(np.arange(len(data)) % 5 != 0)  # 20 % missing
    out = Uniform(numeric_mode="range").fit(data, SPEC, seed=0).sample(20_000)
    assert out["score"].isna().mean() == pytest.approx(0.2, abs=0.01)


def test_uniform_rejects_unknown_mode() -> None:
    with pytest.raises(ConfigError, match="`numeric_mode` must be one of 'observed', 'range'; got 'grid'"):
        Uniform(numeric_mode="grid").validate_params()


# ---------------------------------------------------------------------- real holdout
@pytest.mark.parametrize(("n_rows", "expected"), [(None, 200), (50, 50), (200, 200), (5000, 200)])
def test_real_holdout_emits_min_n_control_rows_of_control(
    train: pd.DataFrame, control: pd.DataFrame, n_rows: int | None, expected: int
) -> None:
    gen = RealHoldout()
    out = gen.fit(train, SPEC, seed=0, control=control).sample(n_rows)
    assert len(out) == expected == gen.n_out_
    assert out["score"].is_unique  # without replacement
    assert set(out["score"]) <= set(control["score"])
    assert not set(out["score"]) & set(train["score"])
    merged = out.merge(control, how="left", indicator=True)
    assert (merged["_merge"] == "both").all()  # whole rows, unchanged


def test_real_holdout_natural_size_is_min_of_train_and_control(control: pd.DataFrame) -> None:
    small_train = make_table(30, seed=4)
    assert len(RealHoldout().fit(small_train, SPEC, seed=0, control=control).sample()) == 30


def test_real_holdout_needs_control(train: pd.DataFrame) -> None:
    with pytest.raises(ConfigError, match="needs the control split"):
        RealHoldout().fit(train, SPEC, seed=0)


def test_real_holdout_accepts_control_only_categories(train: pd.DataFrame) -> None:
    control = make_table(50, seed=5)
    control.loc[0, "colour"] = "violet"
    out = RealHoldout().fit(train, SPEC, seed=0, control=control).sample()
    assert "violet" in set(out["colour"])


# ---------------------------------------------------------------------- subsample
@pytest.mark.parametrize(
    ("p", "n", "expected"), [(0.4, 1000, 400), (0.29, 100, 29), (1, 10, 10), (0.5, 3, 1)]
)
def test_subsample_size_is_floor_p_n(p: float, n: int, expected: int) -> None:
    data = make_table(n, seed=6)
    out = Subsample(p=p).fit(data, SPEC, seed=0).sample()
    assert len(out) == expected == math.floor(round(p * n, 9))
    assert out["score"].is_unique
    merged = out.merge(data, how="left", indicator=True)
    assert (merged["_merge"] == "both").all()


def test_subsample_rejects_n_rows_and_empty_output(train: pd.DataFrame) -> None:
    with pytest.raises(ConfigError, match="n_rows must be None"):
        Subsample().fit(train, SPEC, seed=0).sample(10)
    with pytest.raises(InfeasibleConfigError, match="rounds down to 0 rows"):
        Subsample(p=0.1).fit(train.iloc[:5], SPEC, seed=0)


@pytest.mark.parametrize("p", [0, 1.5, -0.1, float("nan"), True, "0.4"])
def test_subsample_rejects_bad_p(p: object) -> None:
    with pytest.raises(ConfigError, match=r"`p` must be in \(0, 1\]; got"):
        Subsample(p=p).validate_params()  # type: ignore[arg-type]


def test_seeded_baselines_are_reproducible(train: pd.DataFrame, control: pd.DataFrame) -> None:
    for make in (IndependentMarginals, Uniform, RealHoldout, Subsample):
        a = make().fit(train, SPEC, seed=7, control=control).sample()
        b = make().fit(train, SPEC, seed=7, control=control).sample()
        c = make().fit(train, SPEC, seed=8, control=control).sample()
        pd.testing.assert_frame_equal(a, b)
        assert not a.equals(c)
