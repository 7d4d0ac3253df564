"""SMOTE-DP (``spec/generators.md`` §5.3): composition, contraction diagnostics, flags."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from generators.privbayes import PrivBayes
from generators.smote_dp import HEURISTIC_NOTE, SmoteDP, contraction
from harness.dtypes import conform
from harness.errors import ConfigError
from harness.instantiate import build_generator
from harness.seeding import derive_seed
from harness.spec import DatasetSpec

N_FEATURES = 10
SPEC = DatasetSpec.from_dict(
    {
        "name": "gauss10",
        "columns": {
            **{f"x{i}": "continuous" for i in range(N_FEATURES)},
            "colour": "categorical",
            "label": {"kind": "categorical", "categories": ["0", "1"]},
        },
        "target": "label",
        "task": "binary",
    }
)


def make_table(n_per_class: int, seed: int) -> pd.DataFrame:
    """Two 10-D Gaussian classes (identity covariance, means 0 and 2) and a categorical column."""
    rng = np.random.default_rng(seed)
    x = np.vstack([rng.normal(0, 1, (n_per_class, N_FEATURES)), rng.normal(2, 1, (n_per_class, N_FEATURES))])
    frame = pd.DataFrame(x, columns=[f"x{i}" for i in range(N_FEATURES)])
    frame["colour"] = rng.choice(np.array(["red", "blue"], dtype=object), size=2 * n_per_class)
    frame["label"] = np.repeat(["0", "1"], n_per_class)
    return conform(frame, SPEC)


@pytest.fixture(scope="module")
def train() -> pd.DataFrame:
    return make_table(300, seed=0)


# ---------------------------------------------------------------------- contraction
def test_contraction_by_hand() -> None:
    real = pd.DataFrame({"a": [0.0, 1, 2, 3, 4], "b": [1.0, 1, 1, 1, 1], "c": [0.0, 2, 4, 6, 8]})
    smote = pd.DataFrame({"a": [1.0, 2, 3], "b": [1.0, 2, 3], "c": [2.0, 4, np.nan]})
    out = contraction(real, smote, ["a", "b", "c"])
    # a: sd √2.5, var_z(smote) = 1 / 2.5; c: sd √10, smote {2, 4} → var 2 / 10; b constant: left out
    assert out["contraction_columns"] == ["a", "c"]
    assert out["variance_ratios"] == pytest.approx({"a": 0.4, "c": 0.2})
    assert out["alpha_hat"] == pytest.approx((0.4 + 0.2) / 2)
    # means: a 2 → 2 (shift 0); c 4 → 3, z-shift -1/√10
    assert out["mean_shift_l2"] == pytest.approx(1 / np.sqrt(10))


def test_contraction_without_numeric_columns() -> None:
    frame = pd.DataFrame({"a": ["x", "y"]})
    assert contraction(frame, frame, [])["alpha_hat"] is None


def test_alpha_hat_below_one_for_smote_k1(train: pd.DataFrame) -> None:
    # K = 1 interpolates towards the nearest neighbour of the same class: variances shrink.
    alphas = []
    for seed in range(3):
        gen = SmoteDP(epsilon=1.0)
        gen.fit(make_table(300, seed), SPEC, seed=seed)
        alphas.append(gen.details()["alpha_hat"])
        assert gen.details()["n_smote_rows"] == 600
    assert all(a < 1 for a in alphas), alphas


# ---------------------------------------------------------------------- composition
def test_composition_uses_the_configured_stages(train: pd.DataFrame) -> None:
    # g1 = identity: G2 sees the training table itself, so the release equals a plain
    # PrivBayes fit with the derived stage-2 seed and the g2_params overrides.
    gen = SmoteDP(g1="identity", g1_params={}, g2="privbayes", g2_params={"histogram_size": 7}, epsilon=0.5)
    out = gen.fit(train, SPEC, seed=4).sample()
    direct = PrivBayes(epsilon=0.5, histogram_size=7).fit(train, SPEC, seed=derive_seed(4, "g2")).sample()
    pd.testing.assert_frame_equal(out, direct)
    details = gen.details()
    assert details["g1"]["name"] == "identity"
    assert details["g2"]["params"]["histogram_size"] == 7
    assert details["g2"]["params"]["epsilon"] == 0.5
    assert details["alpha_hat"] == pytest.approx(1.0) and details["mean_shift_l2"] == pytest.approx(0.0)


def test_default_stages_are_smotenc_k1_full_synthetic_and_privbayes(train: pd.DataFrame) -> None:
    gen = SmoteDP()
    gen.fit(train, SPEC, seed=0)
    g1, g2 = gen.details()["g1"], gen.details()["g2"]
    assert g1["name"] == "smotenc"
    assert g1["params"]["knn"] == 1 and g1["params"]["mode"] == "full_synthetic"
    assert g2["name"] == "privbayes" and g2["params"]["epsilon"] == 50.0
    assert len(gen.sample()) == len(train)
    assert len(gen.sample(17)) == 17


def test_details_present_and_json(train: pd.DataFrame) -> None:
    gen = SmoteDP(epsilon=2.0)
    gen.fit(train, SPEC, seed=1)
    details = gen.details()
    json.dumps(details)
    assert set(details["variance_ratios"]) == {f"x{i}" for i in range(N_FEATURES)}
    assert details["epsilon_g2"] == 2.0
    assert details["epsilon_times_alpha"] == pytest.approx(2.0 * details["alpha_hat"])
    assert details["epsilon_times_alpha_note"] == HEURISTIC_NOTE == "paper's heuristic, not a guarantee"
    assert details["privacy_unit"] == "smote_output"
    assert details["mean_shift_l2"] >= 0
    assert details["g2"]["details"]["bayesian_network"]


def test_same_seed_identical_different_seed_differs(train: pd.DataFrame) -> None:
    a = SmoteDP().fit(train, SPEC, seed=3).sample()
    b = SmoteDP().fit(train, SPEC, seed=3).sample()
    c = SmoteDP().fit(train, SPEC, seed=5).sample()
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(c)


# ---------------------------------------------------------------------- flags, parameters
def test_formal_dp_unit_is_the_smote_output() -> None:
    formal = SmoteDP().info().formal_dp
    assert formal is not None and {k: formal[k] for k in ("epsilon", "delta", "unit", "neighbours", "end_to_end")} == {
        "epsilon": 50.0, "delta": 0.0, "unit": "smote_output", "neighbours": "replace_one", "end_to_end": False,
    }  # fmt: skip
    assert "not the original records" in formal["reason"]
    assert SmoteDP(epsilon=0).info().formal_dp is None
    assert SmoteDP().info().needs_target


def test_yaml_defaults() -> None:
    gen = build_generator("smote_dp")
    assert gen.get_params() == {
        "g1": "smotenc",
        "g1_params": {"knn": 1, "mode": "full_synthetic"},
        "g2": "privbayes",
        "g2_params": {},
        "epsilon": 50.0,
    }


@pytest.mark.parametrize(
    ("params", "needle"),
    [
        ({"epsilon": -1.0}, "epsilon"),
        ({"g2_params": {"epsilon": 3}}, "epsilon"),
        ({"g2": "identity"}, "g2"),
        ({"g1": "no_such_generator"}, "no_such_generator"),
        ({"g1_params": {"knn": 1, "bogus": 2}}, "bogus"),
        ({"g1_params": [1]}, "g1_params"),
    ],
)
def test_bad_parameters_raise_one_line_config_error(params: dict[str, object], needle: str) -> None:
    with pytest.raises(ConfigError) as err:
        SmoteDP(**params).validate_params()  # type: ignore[arg-type]
    assert "\n" not in str(err.value)
    assert needle in str(err.value)
