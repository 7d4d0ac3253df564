"""precision_improvement (spec/metrics.md P15; 004_… SynDiffix multi-table paper §4.1, Eq. 2)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from harness.errors import ConfigError, IncomputableMetricError
from harness.instantiate import build_metric
from harness.registry import read_config
from harness.spec import DatasetSpec
from metrics.privacy.precision_improvement import (
    PrecisionImprovement,
    baseline_precision,
    precision_improvement,
    unique_match_attack,
)

SPEC = DatasetSpec.from_dict(
    {
        "name": "tiny",
        "columns": {"q": "categorical", "t": "integer", "u": "categorical"},
        "qi_sets": {"default": ["q"]},
    }
)
# S has q = a and c once (unique), b twice, e only in S; T has d only in T.
T = pd.DataFrame({"q": ["a", "a", "b", "c", "d"], "t": [1, 2, 1, 3, 3], "u": ["x", "x", "y", "y", None]})
S = pd.DataFrame({"q": ["a", "b", "b", "c", "e"], "t": [1, 1, 2, 3, 9], "u": ["x", "y", "y", None, "x"]})


def test_attack_by_hand() -> None:
    attack = unique_match_attack(S, T, ["q"], ["t", "u"])
    # covered: T rows 0, 1 (q = a) and 3 (q = c); b matches two S rows, d none
    assert (attack.n_attacked, attack.n_covered) == (5, 3)
    assert attack.coverage == pytest.approx(3 / 5)
    # t: row 0 (1 = 1) right, row 1 (2 vs 1) wrong, row 3 (3 = 3) right
    assert attack.correct["t"] == 2 and attack.precision("t") == pytest.approx(2 / 3)
    # u: rows 0, 1 x = x right; row 3 y vs NA wrong
    assert attack.correct["u"] == 2


def test_attack_unique_in_both_drops_combinations_repeated_in_t() -> None:
    attack = unique_match_attack(S, T, ["q"], ["t"], unique_in="both")
    assert attack.n_covered == 1 and attack.correct["t"] == 1  # only q = c is unique in T and S


def test_attack_matches_numbers_as_numbers_and_na_as_na() -> None:
    released = pd.DataFrame({"q": ["a", "b"], "t": [1.0, np.nan]})
    attacked = pd.DataFrame({"q": ["a", "b"], "t": [1, np.nan]})
    attack = unique_match_attack(released, attacked, ["q"], ["t"])
    assert attack.correct["t"] == 2


def test_pi_formula() -> None:
    assert precision_improvement(2 / 3, 0.5) == pytest.approx(1 / 3)
    assert precision_improvement(0.25, 0.5) == pytest.approx(-0.5)
    assert precision_improvement(1.0, 0.2) == pytest.approx(1.0)
    assert precision_improvement(0.3, 1.0) == 0.0  # reference quirk: nothing to infer


def test_baseline_predicts_the_majority_under_strong_l1() -> None:
    rng = np.random.default_rng(1)
    real = pd.DataFrame({"q": rng.choice(["a", "b", "c"], size=200), "t": ["x"] * 140 + ["y"] * 60})
    p = baseline_precision(
        real, ["q"], "t", train_fraction=0.7, c=0.01, max_iter=100, max_classes=100, seed=3
    )
    # C = 0.01 zeroes every coefficient: the model predicts the majority class "x" on the held-out 30 %
    held_out = np.random.default_rng(3).permutation(200)[140:]
    assert p == pytest.approx(np.mean(real["t"].to_numpy()[held_out] == "x"))


def test_baseline_learns_a_deterministic_column_with_weak_regularisation() -> None:
    q = np.repeat(["a", "b", "c", "d"], 50)
    real = pd.DataFrame({"q": q, "t": pd.Series(q).map({"a": 1, "b": 2, "c": 3, "d": 4})})
    p = baseline_precision(
        real, ["q"], "t", train_fraction=0.7, c=100.0, max_iter=1000, max_classes=100, seed=0
    )
    assert p == 1.0


def test_baseline_single_class_and_max_classes() -> None:
    real = pd.DataFrame({"q": list("abcdefghij"), "t": [5] * 10})
    assert (
        baseline_precision(real, ["q"], "t", train_fraction=0.7, c=0.01, max_iter=100, max_classes=5, seed=0)
        == 1.0
    )
    # max_classes = 1: only the most frequent value is learnt (and predicted)
    real = pd.DataFrame({"q": ["a"] * 30, "t": [1] * 20 + [2] * 10})
    held_out = np.random.default_rng(0).permutation(30)[21:]
    p = baseline_precision(real, ["q"], "t", train_fraction=0.7, c=0.01, max_iter=100, max_classes=1, seed=0)
    assert p == pytest.approx(np.mean(real["t"].to_numpy()[held_out] == 1))


def test_metric_outputs_and_details() -> None:
    out = PrecisionImprovement(targets=["t", "u"]).compute(T, S, SPEC, seed=0)
    assert set(out) == {"pi_median", "pi_max", "coverage"}
    assert out["coverage"].value == pytest.approx(0.6)
    columns = out["pi_max"].details["columns"]
    assert columns["t"]["p_atk"] == pytest.approx(2 / 3)
    for column in ("t", "u"):
        c = columns[column]
        assert c["pi"] == pytest.approx(precision_improvement(c["p_atk"], c["p_base"]))
    pis = [columns["t"]["pi"], columns["u"]["pi"]]
    assert out["pi_max"].value == pytest.approx(max(pis))
    assert out["pi_median"].value == pytest.approx(np.median(pis))
    assert out["pi_max"].details["qi_matches"] == 3


def test_identical_release_has_pi_one_and_no_cover_gives_zero() -> None:
    rng = np.random.default_rng(0)
    real = pd.DataFrame(
        {"q": [f"k{i}" for i in range(60)], "t": rng.integers(0, 3, 60), "u": rng.choice(["x", "y"], 60)}
    )
    same = PrecisionImprovement().compute(real, real.copy(), SPEC, seed=0)
    assert same["coverage"].value == 1.0 and same["pi_max"].value == 1.0
    disjoint = real.assign(q=[f"z{i}" for i in range(60)])
    none = PrecisionImprovement().compute(real, disjoint, SPEC, seed=0)
    assert none["coverage"].value == 0.0 and none["pi_max"].value == 0.0  # reference: no inference made


def test_default_targets_are_every_non_qi_column() -> None:
    out = PrecisionImprovement().compute(T, S, SPEC, seed=0)
    assert set(out["pi_median"].details["columns"]) == {"t", "u"}


def test_yaml_matches_the_paper_settings() -> None:
    metric = build_metric("precision_improvement", read_config("metric", "precision_improvement"))
    assert (metric.c, metric.max_iter, metric.train_fraction) == (0.01, 100, 0.7)


@pytest.mark.parametrize(
    ("params", "key"),
    [
        ({"unique_in": "target"}, "unique_in"),
        ({"train_fraction": 1.0}, "train_fraction"),
        ({"c": 0}, "`c`"),
        ({"max_iter": 0}, "max_iter"),
        ({"max_classes": 0}, "max_classes"),
        ({"keys": "q"}, "keys"),
    ],
)
def test_bad_parameters_name_the_key(params: dict, key: str) -> None:
    with pytest.raises(ConfigError, match=key) as info:
        PrecisionImprovement(**params).compute(T, S, SPEC)
    assert "\n" not in str(info.value)


def test_unknown_keys_and_missing_qi_set() -> None:
    with pytest.raises(ConfigError, match="unknown column"):
        PrecisionImprovement(keys=["nope"]).compute(T, S, SPEC)
    bare = DatasetSpec.from_dict(
        {"name": "bare", "columns": {"q": "categorical", "t": "integer", "u": "categorical"}}
    )
    with pytest.raises(IncomputableMetricError, match="QI"):
        PrecisionImprovement().compute(T, S, bare)


def test_baseline_max_classes_predicts_the_most_frequent_value_even_when_rare_values_dominate() -> None:
    # 40 singleton values outnumber the 20 zeros; with max_classes = 1 the model learns (predicts) 0
    real = pd.DataFrame({"q": ["a"] * 60, "t": [0] * 20 + list(range(1, 41))})
    held_out = np.random.default_rng(0).permutation(60)[42:]
    p = baseline_precision(real, ["q"], "t", train_fraction=0.7, c=0.01, max_iter=100, max_classes=1, seed=0)
    assert p == pytest.approx(np.mean(real["t"].to_numpy()[held_out] == 0)) and p > 0


# The authors' P_base of the ACS national2019 columns (yoid2000/sdnist-summary, baselines.json;
# mean 0.61 as the paper's §4.1 states; DENSITY is entirely predicted by PUMA).
AUTHORS_BASELINES = {"DENSITY": 1.0, "NOC": 0.6931, "PINCP_DECILE": 0.3964, "DEYE": 0.9728, "PINCP": 0.2626}


@pytest.mark.parametrize(("column", "expected"), AUTHORS_BASELINES.items())
def test_baseline_matches_the_authors_on_acs(column: str, expected: float, acs: pd.DataFrame) -> None:
    keys = ["EDU", "SEX", "RAC1P", "PUMA", "OWN_RENT", "INDP_CAT", "HISP", "MSP"]
    p = baseline_precision(
        acs, keys, column, train_fraction=0.7, c=0.01, max_iter=100, max_classes=100, seed=0
    )
    assert p == pytest.approx(expected, abs=0.015)


@pytest.fixture(scope="module")
def acs() -> pd.DataFrame:
    from harness.datasets import load_dataset, load_spec

    return load_dataset(load_spec("nist_acs_national2019")).frame
