"""Poisson count synthesis (``spec/generators.md`` §7.9; ``004_…`` Jackson et al.): expected
size n + αK, δ of Eq. 9 and of the Gaussian mechanism on hand-computed values, the
multinomial-Dirichlet condition, the max_cells refusal and parameter errors."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from generators.poisson_counts import (
    NOT_END_TO_END,
    PoissonCounts,
    contingency_counts,
    dirichlet_min_alpha,
    gaussian_delta,
    poisson_delta,
)
from harness.dtypes import conform
from harness.errors import ConfigError, InfeasibleConfigError
from harness.spec import DatasetSpec

SPEC = DatasetSpec.from_dict(
    {
        "name": "toy",
        "columns": {"age": "integer", "colour": "categorical", "size": "categorical", "label": "categorical"},
        "target": "label",
        "qi_sets": {"default": ["colour", "size"]},
    }
)


def make_table(n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    colour = rng.choice(np.array(["red", "green", "blue"], dtype=object), size=n, p=[0.6, 0.3, 0.1])
    colour[:5] = None  # missing is a level: 3 colours + NaN
    frame = pd.DataFrame(
        {
            "age": rng.integers(18, 91, size=n),
            "colour": colour,
            "size": rng.choice(np.array(["S", "M", "L"], dtype=object), size=n),
            "label": rng.choice(np.array(["0", "1"], dtype=object), size=n),
        }
    )
    return conform(frame, SPEC)


def test_eq9_delta_hand_computed() -> None:
    # ε = 2, α = 1: ⌊3 / ln 2⌋ = 4, δ = 1 − e^{-2}(1 + 2 + 2 + 4/3 + 2/3) = 1 − 7e^{-2}
    assert poisson_delta(2.0, 1.0) == pytest.approx(1 - 7 * math.exp(-2), rel=1e-12)
    # ε = 3, α = 0.1: ⌊4 / ln 11⌋ = 1, δ = 1 − e^{-1.1}(1 + 1.1) ≈ 0.30 (the paper's "(3, 0.3)")
    assert poisson_delta(3.0, 0.1) == pytest.approx(1 - 2.1 * math.exp(-1.1), rel=1e-12)
    assert poisson_delta(3.0, 0.1) == pytest.approx(0.30, abs=0.005)
    with pytest.raises(ValueError):
        poisson_delta(0.5, 1.0)  # the paper leaves 0 < ε < 1 open


def test_gaussian_delta_formula() -> None:
    def phi(x: float) -> float:
        return 0.5 * (1 + math.erf(x / math.sqrt(2)))

    # σ = 1, ε = 2: 1 − δ = Φ(1.5) − Φ(−2.5)
    assert gaussian_delta(2.0, 1.0) == pytest.approx(1 - (phi(1.5) - phi(-2.5)), rel=1e-12)
    assert gaussian_delta(2.0, 2.0) == pytest.approx(1 - (phi(3.75) - phi(-4.25)), rel=1e-12)


def test_dirichlet_condition_and_reported_epsilon() -> None:
    train = make_table(200)
    need = dirichlet_min_alpha(2.0, 200)
    assert need == pytest.approx(200 / (math.e**2 - 1))
    ok = PoissonCounts(mechanism="multinomial_dirichlet", alpha=need + 1, epsilon=2.0).fit(
        train, SPEC, seed=0
    )
    dp = ok.info().formal_dp
    assert dp is not None and dp["epsilon"] == 2.0 and ok.details()["dp"]["condition_met"]
    assert len(ok.sample()) == 200  # b ~ Multinomial(n, p)
    weak = PoissonCounts(mechanism="multinomial_dirichlet", alpha=1.0, epsilon=2.0).fit(train, SPEC, seed=0)
    assert not weak.details()["dp"]["condition_met"]
    dp = weak.info().formal_dp
    assert dp is not None and dp["epsilon"] == pytest.approx(math.log(201.0))  # the ε it does achieve


def test_expected_size_is_n_plus_alpha_k() -> None:
    train = make_table(200)
    alpha, seeds = 5.0, range(150)
    sizes = []
    for seed in seeds:
        gen = PoissonCounts(alpha=alpha, epsilon=2.0).fit(train, SPEC, seed=seed)
        sizes.append(len(gen.sample()))
    k = gen.details()["K"]
    assert k == 4 * 3  # colour (3 + missing) x size (3)
    expected = 200 + alpha * k
    assert gen.details()["expected_rows"] == expected
    # total ~ Poisson(n + αK): the mean of 150 draws is within 4 standard errors
    assert abs(np.mean(sizes) - expected) < 4 * math.sqrt(expected / len(sizes))


def test_contingency_counts_mixed_radix() -> None:
    codes = [np.array([0, 1, 1, 2]), np.array([1, 0, 0, 1])]
    a = contingency_counts(codes, [3, 2])
    assert a.tolist() == [0, 1, 2, 0, 0, 1]


def test_output_columns_levels_and_withheld() -> None:
    train = make_table(300)
    gen = PoissonCounts(columns=["age", "colour", "label"], bins=4).fit(train, SPEC, seed=1)
    out = gen.sample()
    assert list(out.columns) == list(SPEC.table_columns)
    assert out["size"].isna().all()  # withheld
    assert gen.details()["withheld_columns"] == ["size"]
    reps = gen.details()["bins"]["age"]["representatives"]
    assert set(out["age"].unique()) <= set(reps) and len(reps) <= 4
    assert set(out["colour"].dropna()) <= {"red", "green", "blue"} and out["colour"].isna().any()
    assert len(gen.sample(57)) == 57


@pytest.mark.parametrize("mechanism", ["poisson", "laplace", "gaussian", "multinomial_dirichlet"])
def test_same_seed_identical_other_seed_differs(mechanism: str) -> None:
    train = make_table(300)
    a = PoissonCounts(mechanism=mechanism).fit(train, SPEC, seed=7).sample()
    b = PoissonCounts(mechanism=mechanism).fit(train, SPEC, seed=7).sample()
    c = PoissonCounts(mechanism=mechanism).fit(train, SPEC, seed=8).sample()
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(c)


def test_max_cells_refusal_names_the_size() -> None:
    with pytest.raises(InfeasibleConfigError, match=r"K=12 cells .*max_cells=10") as err:
        PoissonCounts(max_cells=10).fit(make_table(100), SPEC, seed=0)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"mechanism": "binomial"}, "`mechanism` must be one of"),
        ({"alpha": 0}, "`alpha` must be a positive finite number"),
        ({"epsilon": -1.0}, "`epsilon` must be a positive finite number"),
        ({"epsilon": 0.5}, "`epsilon` must be >= 1 for mechanism 'poisson'"),
        ({"sigma": "1"}, "`sigma` must be a positive finite number"),
        ({"max_cells": 0}, "`max_cells` must be an integer >= 1"),
        ({"bins": 0}, "`bins` must be an integer >= 1"),
        ({"columns": "colour"}, "`columns` must be null, 'all' or a list"),
        ({"columns": []}, "`columns` must be null or a non-empty list"),
    ],
)
def test_bad_params_one_line_config_error(params: dict[str, object], message: str) -> None:
    gen = PoissonCounts(**params)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=message) as err:
        gen.validate_params()
    assert "\n" not in str(err.value)


def test_laplace_epsilon_below_one_is_allowed() -> None:
    gen = PoissonCounts(mechanism="laplace", epsilon=0.5).fit(make_table(100), SPEC, seed=0)
    assert gen.info().formal_dp == {
        "epsilon": 0.5,
        "delta": 0.0,
        "unit": "original_records",
        "notion": "pure",
        **NOT_END_TO_END,
    }


def test_unknown_and_datetime_columns_refused() -> None:
    with pytest.raises(ConfigError, match="unknown column"):
        PoissonCounts(columns=["nope"]).fit(make_table(50), SPEC, seed=0)
