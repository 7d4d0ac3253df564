"""relative_accuracy (spec/metrics.md U3) and the generalisation mapping it uses."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

from harness.checks import ContractData, contract_data
from harness.errors import ConfigError, IncomputableMetricError
from metrics.utility.generalisation import generalise_like, release_level_map
from metrics.utility.relative_accuracy import RelativeAccuracy, relative_accuracy


@pytest.fixture(scope="module")
def adult() -> ContractData:
    return contract_data("adult", n_train=300, n_control=10, n_test=300, seed=2)


def test_formula_hand_computed() -> None:
    assert relative_accuracy(0.80, 0.85, 0.75) == pytest.approx(50.0)
    assert relative_accuracy(0.85, 0.85, 0.75) == pytest.approx(100.0)
    assert relative_accuracy(0.70, 0.85, 0.75) == pytest.approx(-50.0)
    with pytest.raises(ZeroDivisionError):
        relative_accuracy(0.8, 0.75, 0.75)


def test_identical_release_scores_100(adult: ContractData) -> None:
    out = RelativeAccuracy().compute(adult.train, adult.train.copy(), adult.spec, test=adult.test)
    assert out["relative_accuracy"].value == pytest.approx(100.0)
    d = out["relative_accuracy"].details
    assert d["acc_anon"] == d["acc_orig"] == out["accuracy"].value == out["accuracy"].baseline
    majority = adult.train["income"].astype(str).value_counts().idxmax()
    assert d["majority_class"] == majority
    assert d["acc_base"] == pytest.approx(np.mean(adult.test["income"].astype(str) == majority))
    # hand-check RA from the reported accuracies on another release
    other = RelativeAccuracy().compute(adult.train, adult.train.head(80), adult.spec, test=adult.test)
    e = other["relative_accuracy"].details
    assert other["relative_accuracy"].value == pytest.approx(
        100 * (e["acc_anon"] - e["acc_base"]) / (e["acc_orig"] - e["acc_base"])
    )


def test_majority_class_release_scores_0(adult: ContractData) -> None:
    release = adult.train.assign(income="<=50K")
    out = RelativeAccuracy().compute(adult.train, release, adult.spec, test=adult.test)
    assert out["relative_accuracy"].value == pytest.approx(0.0)


def test_multiclass_target_is_one_vs_rest(adult: ContractData) -> None:
    out = RelativeAccuracy(target="marital-status").compute(
        adult.train, adult.train, adult.spec, test=adult.test
    )
    assert out["relative_accuracy"].value == pytest.approx(100.0)
    assert "one-vs-rest" in out["relative_accuracy"].details["classifier"]


def test_release_level_map_uses_the_hierarchy(adult: ContractData) -> None:
    mapping = release_level_map(
        adult.spec,
        "workclass",
        ["Private", "State-gov", "Never-worked"],
        ["Non-Government", "Government", "*"],
    )
    assert mapping == {"Private": "Non-Government", "State-gov": "Government", "Never-worked": "*"}
    assert release_level_map(adult.spec, "sex", ["Male"], ["Female"]) == {"Male": None}


def test_test_features_are_generalised_like_the_release(adult: ContractData) -> None:
    release = adult.train.copy()
    hierarchy = {"Married-civ-spouse": "spouse present", "Married-AF-spouse": "spouse present"}
    release["marital-status"] = [hierarchy.get(v, "spouse not present") for v in release["marital-status"]]
    test = pd.DataFrame(
        {"marital-status": ["Divorced", "Married-civ-spouse", None], "sex": ["Male", "Male", "Female"]}
    )
    out = generalise_like(adult.spec, test, release, ["marital-status"])
    assert out["marital-status"].tolist()[:2] == ["spouse not present", "spouse present"]
    assert pd.isna(out["marital-status"].iloc[2])
    result = RelativeAccuracy().compute(adult.train, release, adult.spec, test=adult.test)
    unmapped = RelativeAccuracy(generalise_test=False).compute(
        adult.train, release, adult.spec, test=adult.test
    )
    assert (
        result["accuracy"].value >= unmapped["accuracy"].value - 0.02
    )  # mapped categories keep their signal
    assert result["relative_accuracy"].details["generalise_test"] is True


def test_incomputable(adult: ContractData) -> None:
    with pytest.raises(IncomputableMetricError, match="must be categorical"):
        RelativeAccuracy(target="age").compute(adult.train, adult.train, adult.spec, test=adult.test)
    with pytest.raises(IncomputableMetricError, match="not a column"):
        RelativeAccuracy(target="salary").compute(adult.train, adult.train, adult.spec, test=adult.test)
    with pytest.raises(IncomputableMetricError, match="needs a test split"):
        RelativeAccuracy().compute(adult.train, adult.train, adult.spec)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"target": 3}, "`target` must be null or a column name"),
        ({"max_iter": 0}, "`max_iter` must be an integer >= 1"),
        ({"generalise_test": "yes"}, "`generalise_test` must be true or false"),
    ],
)
def test_bad_params(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        RelativeAccuracy(**kwargs).validate_params()
