"""Sequential CART synthesis (``spec/generators.md`` §7.7): donors, leaf-conditional relations,
visit sequence, missing values, seeding, copies, smoothing and parameter errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from generators.cart_synthpop import CartSynthpop, sj_bandwidth
from harness.dtypes import conform
from harness.errors import ConfigError
from harness.spec import DatasetSpec

SPEC = DatasetSpec.from_dict(
    {
        "name": "toy",
        "columns": {
            "a": "categorical",
            "b": "categorical",
            "x": "integer",
            "y": "integer",
            "z": "continuous",
            "w": "continuous",
        },
    }
)
LEVELS = np.array(["p", "q", "r", "s"], dtype=object)
B_OF_A = {"p": "one", "q": "one", "r": "two", "s": "three"}


def make_table(n: int = 400, seed: int = 0) -> pd.DataFrame:
    """b = f(a), y = 2·x (x in 1..6), z missing iff a == 's', w noise with some NA."""
    rng = np.random.default_rng(seed)
    a = rng.choice(LEVELS, size=n)
    x = rng.integers(1, 7, size=n)
    z = rng.normal(10.0, 2.0, size=n).round(2)
    z[a == "s"] = np.nan
    w = rng.normal(size=n).round(3)
    w[rng.random(n) < 0.3] = np.nan
    frame = pd.DataFrame({"a": a, "b": [B_OF_A[v] for v in a], "x": x, "y": 2 * x, "z": z, "w": w})
    return conform(frame, SPEC)


def test_donor_values_are_observed_values_of_the_same_column() -> None:
    train = make_table()
    out = CartSynthpop().fit(train, SPEC, seed=0).sample()
    assert len(out) == len(train)
    for col in SPEC.table_columns:
        observed = set(train[col].dropna().tolist())
        assert set(out[col].dropna().tolist()) <= observed, col


def test_leaf_conditional_relations_are_preserved() -> None:
    train = make_table()
    out = CartSynthpop().fit(train, SPEC, seed=3).sample(1000)
    assert (out["b"] == out["a"].map(B_OF_A)).all()  # categorical function of a categorical
    assert (out["y"] == 2 * out["x"]).all()  # numeric function of a numeric
    assert out.loc[out["a"] == "s", "z"].isna().all()  # missingness driven by a
    assert out.loc[out["a"] != "s", "z"].notna().all()


def test_default_visit_sequence_moves_many_level_categoricals_last() -> None:
    spec = DatasetSpec.from_dict(
        {
            "name": "wide",
            "columns": {"many": "categorical", "ord": "ordinal", "num": "continuous", "few": "categorical"},
        }
    )
    rng = np.random.default_rng(0)
    n = 300
    frame = conform(
        pd.DataFrame(
            {
                "many": rng.integers(0, 25, size=n).astype(str),
                "ord": rng.integers(0, 25, size=n).astype(str),
                "num": rng.normal(size=n),
                "few": rng.choice(["u", "v"], size=n),
            }
        ),
        spec,
    )
    gen = CartSynthpop().fit(frame, spec, seed=0)
    assert gen.details()["visit_sequence"] == ["ord", "num", "few", "many"]
    assert gen.details()["many_level_columns_last"] == ["many"]
    user = CartSynthpop(visit_sequence=["few", "many"]).fit(frame, spec, seed=0)
    assert user.details()["visit_sequence"] == ["few", "many", "ord", "num"]
    assert user.details()["columns"]["few"]["method"] == "sample"


def test_missing_values() -> None:
    train = make_table(600, seed=1)
    out = CartSynthpop().fit(train, SPEC, seed=0).sample(3000)
    # numeric NA: indicator synthesised first, then values among non-missing rows
    assert out["w"].isna().mean() == pytest.approx(train["w"].isna().mean(), abs=0.05)
    assert out["w"].notna().any()
    # categorical NA is a category
    train_cat = train.copy()
    train_cat.loc[train_cat["a"] == "p", "b"] = np.nan
    out_cat = CartSynthpop().fit(train_cat, SPEC, seed=0).sample(2000)
    assert out_cat.loc[out_cat["a"] == "p", "b"].isna().all()
    assert out_cat.loc[out_cat["a"] != "p", "b"].notna().all()
    # a column missing everywhere stays missing
    train_all = train.copy()
    train_all["w"] = np.nan
    assert CartSynthpop().fit(train_all, SPEC, seed=0).sample()["w"].isna().all()


def test_same_seed_same_output_other_seed_differs() -> None:
    train = make_table()
    first = CartSynthpop().fit(train, SPEC, seed=7).sample()
    again = CartSynthpop().fit(train, SPEC, seed=7).sample()
    other = CartSynthpop().fit(train, SPEC, seed=8).sample()
    pd.testing.assert_frame_equal(first, again)
    assert not first.equals(other)


def test_copies_are_stacked_and_numbered() -> None:
    gen = CartSynthpop(m=3).fit(make_table(), SPEC, seed=0)
    out = gen.sample(10)
    assert len(out) == 30
    assert gen.artifacts()["synthetic_copy"]["copy"].tolist() == [1] * 10 + [2] * 10 + [3] * 10
    assert len(gen.sample()) == 3 * 400


def test_density_smoothing_stays_in_range() -> None:
    train = make_table()
    gen = CartSynthpop(smoothing="density").fit(train, SPEC, seed=0)
    out = gen.sample(2000)
    z_obs = train["z"].dropna()
    z_syn = out["z"].dropna()
    bw = gen.details()["smoothing_bandwidth"]["z"]
    assert bw is not None and bw > 0
    assert not set(z_syn) <= set(z_obs)  # values were smoothed
    assert z_syn.min() >= z_obs.min() and z_syn.max() <= z_obs.max() + bw
    assert (out["y"] == out["y"].round()).all()


def test_sj_bandwidth_of_a_normal_sample() -> None:
    x = np.random.default_rng(0).normal(size=2000)
    assert 0.15 < sj_bandwidth(x) < 0.35  # near the normal-reference 1.06·n^(-1/5) ≈ 0.23


@pytest.mark.parametrize(
    ("params", "key"),
    [
        ({"visit_sequence": "a"}, "visit_sequence"),
        ({"visit_sequence": ["a", "a"]}, "visit_sequence"),
        ({"first_method": "cart"}, "first_method"),
        ({"min_samples_leaf": 0}, "min_samples_leaf"),
        ({"min_samples_leaf": 2.5}, "min_samples_leaf"),
        ({"ccp_alpha": -0.1}, "ccp_alpha"),
        ({"ccp_alpha": "big"}, "ccp_alpha"),
        ({"smoothing": "spline"}, "smoothing"),
        ({"m": 0}, "m"),
    ],
)
def test_bad_parameters_raise_one_line_config_error(params: dict, key: str) -> None:
    with pytest.raises(ConfigError, match=key) as info:
        CartSynthpop(**params).validate_params()
    assert "\n" not in str(info.value)


def test_unknown_visit_sequence_column_raises_at_fit() -> None:
    with pytest.raises(ConfigError, match="visit_sequence.*'nope'"):
        CartSynthpop(visit_sequence=["nope"]).fit(make_table(), SPEC, seed=0)
