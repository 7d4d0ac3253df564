"""smartnoise-synth DP generators (``generators/smartnoise.py``): transformer, budget split,
missing values, parameters and tiny fits of ``dpgan``, ``pategan``, ``mst`` and ``aim``."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest

from harness.errors import ConfigError, DataError, InfeasibleConfigError
from harness.spec import DatasetSpec

pytest.importorskip("snsynth")

from generators.smartnoise import (
    BOUNDS_CAVEAT,
    Aim,
    Dpgan,
    Mst,
    Pategan,
    build_transformer,
    dpgan_epochs,
    dpgan_epsilon,
    numeric_bounds,
)

SPEC = DatasetSpec.from_dict(
    {
        "name": "toy",
        "columns": {"age": "integer", "score": "continuous", "colour": "categorical", "label": "categorical"},
        "target": "label",
        "task": "binary",
    }
)
GAN_FAST: dict[str, Any] = {"n_iter": 2, "batch_size": 40}
PATE_FAST: dict[str, Any] = {"n_iter": 2, "batch_size": 40, "teacher_iters": 1, "student_iters": 1}


def toy(n: int = 120, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "age": rng.integers(18, 70, n).astype("int64"),
            "score": rng.normal(50.0, 10.0, n),
            "colour": rng.choice(["red", "green", "blue"], n).astype(object),
            "label": rng.choice(["no", "yes"], n).astype(object),
        }
    )


def with_missing(frame: pd.DataFrame) -> pd.DataFrame:
    out = frame.copy()
    out["age"] = out["age"].astype("float64")
    out.loc[[1, 5], "age"] = np.nan
    out.loc[[2, 7, 9], "colour"] = np.nan
    return out


def budget_sum(details: dict[str, Any]) -> float:
    b = details["budget"]
    return float(b["preprocessor_epsilon"] + b["synthesizer_epsilon"])


def check_release(out: pd.DataFrame, train: pd.DataFrame, n: int) -> None:
    assert list(out.columns) == list(train.columns) and len(out) == n
    for col in ("colour", "label"):
        assert set(out[col].dropna()) <= set(train[col].dropna())
    assert out["age"].dtype == np.int64 or out["age"].isna().any()


# ---------------------------------------------------------------- transformer and bounds
def test_transformer_from_spec_spends_no_epsilon_on_bounds() -> None:
    train = toy().astype({"age": float})
    bounds = numeric_bounds(SPEC, train, {"score": [0, 100]}, estimate_with_dp=False)
    assert bounds["score"] == {"lower": 0.0, "upper": 100.0, "source": "config"}
    assert bounds["age"]["source"] == "data" and bounds["age"]["lower"] == train["age"].min()
    for style in ("cube", "gan"):
        table = build_transformer(SPEC, train, style=style, bounds=bounds, n_bins=5)
        assert table.fit_complete and not table.needs_epsilon
        assert table.odometer.spent[0] == 0.0
    cube = build_transformer(SPEC, train, style="cube", bounds=bounds, n_bins=5)
    assert cube.cardinality == [5, 5, 3, 2]  # bins, bins, levels seen in training


def test_dp_bounds_leave_transformer_unfitted() -> None:
    train = toy().astype({"age": float})
    bounds = numeric_bounds(SPEC, train, {"score": [0, 100]}, estimate_with_dp=True)
    assert bounds["age"]["source"] == "dp" and bounds["score"]["source"] == "config"
    table = build_transformer(SPEC, train, style="cube", bounds=bounds, n_bins=5)
    assert table.needs_epsilon and not table.fit_complete


def test_constant_numeric_column_gets_a_unit_range() -> None:
    train = toy().astype({"age": float})
    train["score"] = 3.0
    assert numeric_bounds(SPEC, train, None, estimate_with_dp=False)["score"]["upper"] == 4.0


# ---------------------------------------------------------------- budget split
def test_budget_without_preprocessor_is_all_synthesizer() -> None:
    gen = Dpgan(epsilon=2.0, **GAN_FAST).fit(toy(), SPEC, seed=0)
    d = gen.details()
    assert d["budget"]["preprocessor_epsilon"] == 0.0
    assert d["budget"]["synthesizer_epsilon"] == 2.0 == budget_sum(d)
    formal = gen.info().formal_dp
    assert formal is not None and {k: formal[k] for k in ("epsilon", "delta", "unit", "neighbours", "end_to_end")} == {
        "epsilon": 2.0, "delta": 1 / 120**2, "unit": "original_records", "neighbours": "add_remove", "end_to_end": False,
    }  # fmt: skip
    assert "bounds learned from data" in formal["reason"]
    assert d["bounds_from_data"] == ["age", "score"] and BOUNDS_CAVEAT in d["dp_caveats"]
    assert d["epsilon_spent"] <= d["budget"]["synthesizer_epsilon"]


def test_budget_split_with_preprocessor_epsilon() -> None:
    gen = Dpgan(epsilon=3.0, preprocessor_eps=0.5, **GAN_FAST).fit(toy(400), SPEC, seed=0)
    d = gen.details()
    b = d["budget"]
    assert b["preprocessor_epsilon"] == pytest.approx(0.5)
    assert b["preprocessor_per_column"] == pytest.approx({"age": 0.25, "score": 0.25})
    assert b["synthesizer_epsilon"] == pytest.approx(2.5)
    assert budget_sum(d) == pytest.approx(3.0, abs=1e-12)
    assert (gen.info().formal_dp or {})["epsilon"] == 3.0
    assert d["bounds_from_data"] == [] and BOUNDS_CAVEAT not in d["dp_caveats"]
    assert {b["source"] for b in d["bounds"].values()} == {"dp"}


def test_preprocessor_share_unused_when_all_bounds_are_public() -> None:
    gen = Dpgan(epsilon=1.0, preprocessor_eps=0.4, bounds={"age": [0, 100], "score": [0, 100]}, **GAN_FAST)
    d = gen.fit(toy(), SPEC, seed=0).details()
    assert d["budget"]["preprocessor_epsilon"] == 0.0 and d["budget"]["synthesizer_epsilon"] == 1.0


def test_dpgan_epochs_never_overspend() -> None:
    n, batch, delta = 300, 50, 1 / 300**2
    epochs, spent = dpgan_epochs(100, n, batch, 1.0, delta)
    assert 0 < epochs < 100 and spent <= 1.0
    assert dpgan_epsilon(2 * (n // batch) * (epochs + 1), batch / n, delta) > 1.0
    assert dpgan_epochs(3, n, batch, 50.0, delta)[0] == 3


def test_pategan_stops_before_exceeding_the_budget() -> None:
    gen = Pategan(epsilon=0.3, n_iter=1000, batch_size=40, teacher_iters=1, student_iters=2)
    d = gen.fit(toy(), SPEC, seed=0).details()
    assert d["budget_exhausted"] and 0 < d["iterations"] < 1000
    assert d["epsilon_spent"] <= d["budget"]["synthesizer_epsilon"] == 0.3
    assert d["num_teachers"] == 1  # smartnoise would build int(120 / 1000) = 0 teachers and fail


def test_pategan_small_epsilon_needs_more_moment_orders() -> None:
    delta = 1e-5  # log(1/δ) / 100 = 0.115 > ε = 0.1
    with pytest.raises(InfeasibleConfigError, match="first student query"):
        Pategan(epsilon=0.1, delta=delta, **PATE_FAST).fit(toy(), SPEC, seed=0)
    gen = Pategan(epsilon=0.1, delta=delta, moment_orders=1000, **PATE_FAST).fit(toy(), SPEC, seed=0)
    assert 0 < gen.details()["epsilon_spent"] <= 0.1


# ---------------------------------------------------------------- missing values
def test_missing_refused_with_one_line_error() -> None:
    with pytest.raises(DataError, match="'age', 'colour'") as info:
        Dpgan(missing="refuse", **GAN_FAST).fit(with_missing(toy()), SPEC, seed=0)
    assert "\n" not in str(info.value)


def test_gan_refuses_to_model_numeric_missing_values() -> None:
    with pytest.raises(DataError, match="numeric column.*'age'.*missing: impute"):
        Dpgan(**GAN_FAST).fit(with_missing(toy()), SPEC, seed=0)


def test_missing_imputed() -> None:
    train = with_missing(toy())
    gen = Pategan(missing="impute", **PATE_FAST).fit(train, SPEC, seed=0)
    out = gen.sample()
    assert not out.isna().any().any()
    imputed = gen.details()["imputed"]
    assert imputed["age"] == {"n": 2, "value": float(np.rint(train["age"].median()))}
    assert imputed["colour"]["n"] == 3 and imputed["colour"]["value"] in {"red", "green", "blue"}


def test_gan_models_categorical_missing_as_a_level() -> None:
    train = toy()
    train.loc[: len(train) // 2, "colour"] = np.nan
    out = Dpgan(**GAN_FAST).fit(train, SPEC, seed=0).sample()
    check_release(out, train, len(train))


# ---------------------------------------------------------------- parameters
@pytest.mark.parametrize(
    ("cls", "params", "match"),
    [
        (Mst, {"epsilon": None}, "no non-private mode"),
        (Mst, {"epsilon": 0}, "`epsilon` must be a finite number > 0"),
        (Aim, {"epsilon": "1"}, "`epsilon` must be a number"),
        (Mst, {"delta": 1.0}, r"`delta` must be in \(0, 1\)"),
        (Aim, {"delta": 0.0}, "`delta` must be a finite number > 0"),
        (Dpgan, {"epsilon": 1.0, "preprocessor_eps": 1.0}, "smaller than `epsilon`"),
        (Dpgan, {"preprocessor_eps": -0.1}, "`preprocessor_eps` must be a finite number >= 0"),
        (Pategan, {"missing": "drop"}, "`missing` must be one of"),
        (Mst, {"bounds": {"age": [5, 1]}}, "lower < upper"),
        (Mst, {"bounds": [1, 2]}, "`bounds` must be null or a mapping"),
        (Mst, {"n_bins": 1}, "`n_bins` must be an integer >= 2"),
        (Mst, {"secure_noise": "no"}, "`secure_noise` must be true or false"),
        (Aim, {"rounds": 0}, "`rounds` must be an integer >= 1"),
        (Aim, {"max_model_size": -1}, "`max_model_size`"),
        (Dpgan, {"n_iter": 0}, "`n_iter` must be an integer >= 1"),
        (Dpgan, {"batch_size": 1}, "`batch_size` must be an integer >= 2"),
        (Pategan, {"teacher_size": 0}, "`teacher_size` must be an integer >= 1"),
        (Pategan, {"student_iters": 1.5}, "`student_iters` must be an integer >= 1"),
        (Pategan, {"moment_orders": 0}, "`moment_orders` must be an integer >= 1"),
    ],
)
def test_bad_params_raise_one_line_config_error(cls: type, params: dict[str, Any], match: str) -> None:
    with pytest.raises(ConfigError, match=match) as info:
        cls(**params).validate_params()
    assert "\n" not in str(info.value)


def test_bounds_must_name_numeric_columns() -> None:
    with pytest.raises(ConfigError, match="'colour'.*not a numeric column"):
        Dpgan(bounds={"colour": [0, 1]}, **GAN_FAST).fit(toy(), SPEC, seed=0)


# ---------------------------------------------------------------- tiny fits
@pytest.mark.parametrize(("cls", "params"), [(Dpgan, GAN_FAST), (Pategan, PATE_FAST)])
def test_gan_tiny_fit(cls: type, params: dict[str, Any]) -> None:
    train = toy()
    gen = cls(epsilon=1.0, **params).fit(train, SPEC, seed=3)
    out = gen.sample()
    check_release(out, train, len(train))
    check_release(gen.sample(7), train, 7)
    assert (out["age"].between(18, 69)).all()  # min-max scaling clips to the bounds
    again = cls(epsilon=1.0, **params).fit(train, SPEC, seed=3).sample()
    pd.testing.assert_frame_equal(out, again)  # seeded: torch, numpy, opacus noise
    assert not out.equals(cls(epsilon=1.0, **params).fit(train, SPEC, seed=4).sample())
    assert budget_sum(gen.details()) == 1.0 == (gen.info().formal_dp or {})["epsilon"]


@pytest.mark.slow
@pytest.mark.parametrize(("cls", "params"), [(Mst, {}), (Aim, {"rounds": 5, "max_model_size": 1})])
def test_marginal_tiny_fit(cls: type, params: dict[str, Any]) -> None:
    train = with_missing(toy(80))
    gen = cls(epsilon=1.0, n_bins=3, bounds={"score": [0, 100]}, **params).fit(train, SPEC, seed=1)
    out = gen.sample()
    check_release(out, train, len(train))
    info = gen.info()
    formal = info.formal_dp
    assert formal is not None and {k: formal[k] for k in ("epsilon", "delta", "unit", "neighbours", "end_to_end")} == {
        "epsilon": 1.0, "delta": 1e-9, "unit": "original_records", "neighbours": "add_remove", "end_to_end": False,
    }  # fmt: skip
    assert "bounds learned from data" in formal["reason"]
    assert info.deterministic
    d = gen.details()
    assert budget_sum(d) == 1.0 and d["budget"]["preprocessor_epsilon"] == 0.0
    assert d["bounds"]["score"]["source"] == "config" and d["bounds_from_data"] == ["age"]
    midpoints = np.array([100 / 6, 50.0, 500 / 6])  # of the 3 public bins
    assert all(np.isclose(midpoints, v).any() for v in out["score"].dropna())
    pd.testing.assert_frame_equal(out, cls(epsilon=1.0, n_bins=3, bounds={"score": [0, 100]}, **params)
                                  .fit(train, SPEC, seed=1).sample())  # fmt: skip
    assert math.isclose(gen.details()["budget"]["synthesizer_epsilon"], 1.0)


def test_secure_noise_is_not_deterministic() -> None:
    assert not Mst(secure_noise=True).info().deterministic
    assert Mst().info().deterministic and Aim().info().deterministic
