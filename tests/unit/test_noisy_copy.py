"""The known-leakage ladder's noisy copies (``generators/noisy_copy.py``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from generators.noisy_copy import NoisyCopy
from harness.errors import ConfigError
from harness.instantiate import build_generator
from tests.unit.test_baselines import SPEC, make_table


@pytest.fixture(scope="module")
def train() -> pd.DataFrame:
    return make_table(4000, seed=5)


def same_cell(a: pd.DataFrame, b: pd.DataFrame) -> pd.DataFrame:
    return a.eq(b) | (a.isna() & b.isna())


def test_p_zero_is_the_identity(train: pd.DataFrame) -> None:
    out = NoisyCopy(p=0).fit(train, SPEC, seed=1).sample()
    pd.testing.assert_frame_equal(out, train)
    assert NoisyCopy(p=0).info().randomised is False


def test_p_one_keeps_only_chance_agreement(train: pd.DataFrame) -> None:
    out = NoisyCopy(p=1).fit(train, SPEC, seed=1).sample()
    # 'score' has distinct values: a kept cell would need the donor to be the row itself (1/n)
    assert same_cell(out, train)["score"].mean() < 0.01
    # every marginal is preserved: each value is a training value of the same column
    assert set(out["colour"].dropna()) <= set(train["colour"].dropna())
    assert abs(out["colour"].isna().mean() - train["colour"].isna().mean()) < 0.03


@pytest.mark.parametrize("p", [0.1, 0.3, 0.5, 0.9])
def test_replacement_rate_is_p(train: pd.DataFrame, p: float) -> None:
    gen = NoisyCopy(p=p).fit(train, SPEC, seed=3)
    out = gen.sample()
    kept = same_cell(out, train)["score"].mean()  # distinct values: changed exactly when replaced
    assert abs((1 - kept) - p) < 4 * np.sqrt(p * (1 - p) / len(train)) + 1 / len(train)
    details = gen.details()
    assert abs(details["replaced_share"] - p) < 0.02
    assert details["changed_share"] <= details["replaced_share"]
    assert list(out.columns) == list(train.columns) and len(out) == len(train)


def test_rows_stay_aligned_and_seeds_differ(train: pd.DataFrame) -> None:
    a = NoisyCopy(p=0.3).fit(train, SPEC, seed=1).sample()
    b = NoisyCopy(p=0.3).fit(train, SPEC, seed=1).sample()
    c = NoisyCopy(p=0.3).fit(train, SPEC, seed=2).sample()
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(c)
    # row i of the release is record i: its unchanged cells are record i's values
    row_share = same_cell(a, train).mean(axis=1)
    assert row_share.mean() > 0.6


@pytest.mark.parametrize("bad", [-0.1, 1.5, "half", True, float("nan")])
def test_bad_p_is_a_config_error(bad: object) -> None:
    with pytest.raises(ConfigError, match="`p` must be a number in \\[0, 1\\]"):
        NoisyCopy(p=bad).validate_params()  # type: ignore[arg-type]


@pytest.mark.parametrize(("name", "p"), [("noisy_copy_10", 0.1), ("noisy_copy_30", 0.3), ("noisy_copy_50", 0.5),
                                         ("noisy_copy_90", 0.9), ("noisy_copy", 0.3)])  # fmt: skip
def test_registered_rungs(name: str, p: float) -> None:
    gen = build_generator(name)
    assert isinstance(gen, NoisyCopy) and gen.p == p
