"""``mondrian`` (``spec/generators.md`` §6.3): hand-checked partitions and Adult properties."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd
import pytest

from generators.kanon.mondrian import Mondrian
from harness.datasets import load_dataset, load_spec
from harness.dtypes import conform
from harness.errors import ConfigError, InfeasibleConfigError
from harness.instantiate import build_generator
from harness.spec import DatasetSpec

TOY = DatasetSpec.from_dict(
    {
        "name": "toy",
        "columns": {
            "age": "integer",
            "colour": "categorical",
            "size": {"kind": "ordinal", "categories": ["S", "M", "L"]},
        },
        "qi_sets": {"age": ["age"], "colour": ["colour"], "both": ["age", "colour"], "size": ["size"]},
    }
)


def toy(ages: list[int], colours: list[str] | None = None, sizes: list[str] | None = None) -> pd.DataFrame:
    n = len(ages)
    frame = pd.DataFrame({"age": ages, "colour": colours or ["red"] * n, "size": sizes or ["S"] * n})
    return conform(frame, TOY)


def fit(frame: pd.DataFrame, qi: str, **params: Any) -> Mondrian:
    gen = Mondrian(**params)
    gen.fit(frame, TOY.with_active_qi(qi), seed=0)
    return gen


def test_hand_checked_median_splits() -> None:
    """Ages 1..10, k = 2: median 5 -> {1..5} {6..10}; {1..5}: median 3 -> {1,2,3} {4,5}; likewise
    {6,7,8} {9,10}; partitions of 3 or 2 rows cannot be cut again."""
    gen = fit(toy(list(range(1, 11))), "age", k=2)
    labels = gen.artifacts()["generalised"]["age"].tolist()
    assert labels == ["[1, 3]"] * 3 + ["[4, 5]"] * 2 + ["[6, 8]"] * 3 + ["[9, 10]"] * 2
    assert gen.sample()["age"].tolist() == [1, 1, 1, 4, 4, 6, 6, 6, 9, 9]
    mid = fit(toy(list(range(1, 11))), "age", k=2, decode="midpoint")
    assert mid.sample()["age"].tolist() == [2, 2, 2, 4, 4, 7, 7, 7, 10, 10]  # 4.5 -> 4, 9.5 -> 10
    details = gen.details()
    assert json.loads(json.dumps(details)) == details
    assert details["n_partitions"] == 4 and details["achieved_k"] == 2 and details["n_suppressed"] == 0
    assert details["information_loss"]["ncp"] == pytest.approx((3 * 2 + 2 * 1 + 3 * 2 + 2 * 1) / 9 / 10)


def test_strict_cut_keeps_equal_values_together() -> None:
    """Six 1s and two 2s: the median (1) leaves two rows right: allowable for k = 2, not for
    k = 3, where strict Mondrian keeps one partition; relaxed cuts the sorted rows 4 / 4, so the
    value 1 straddles the cut."""
    ages = [1, 1, 1, 1, 1, 1, 2, 2]
    assert fit(toy(ages), "age", k=2).artifacts()["generalised"]["age"].tolist() == ["1"] * 6 + ["2"] * 2
    assert set(fit(toy(ages), "age", k=3).artifacts()["generalised"]["age"]) == {"[1, 2]"}
    relaxed = fit(toy(ages), "age", k=3, relaxed=True).artifacts()["generalised"]["age"].tolist()
    assert relaxed == ["1"] * 4 + ["[1, 2]"] * 4


def test_categorical_sets_and_ordinal_order() -> None:
    colours = ["red", "red", "blue", "blue", "green", "green", "amber", "amber"]
    gen = fit(toy([1] * 8, colours), "colour", k=2)
    # alphabetical order amber, blue, green, red: median code = blue -> {amber, blue} | {green, red}
    labels = gen.artifacts()["generalised"]["colour"].tolist()
    assert labels == ["red"] * 2 + ["blue"] * 2 + ["green"] * 2 + ["amber"] * 2
    labels = fit(toy([1] * 8, colours), "colour", k=3).artifacts()["generalised"]["colour"].tolist()
    assert (
        labels == ["{green, red}"] * 2 + ["{amber, blue}"] * 2 + ["{green, red}"] * 2 + ["{amber, blue}"] * 2
    )
    assert fit(toy([1] * 8, colours), "colour", k=3).sample()["colour"].tolist() == labels
    # ordinal: declared order S < M < L (alphabetically M < S); median M -> {S, M} (5 rows) | {L} (3)
    sizes = ["L", "L", "M", "M", "S", "S", "M", "L"]
    labels = fit(toy([1] * 8, sizes=sizes), "size", k=3).artifacts()["generalised"]["size"].tolist()
    assert labels == ["L", "L", "{S, M}", "{S, M}", "{S, M}", "{S, M}", "{S, M}", "L"]


def test_infeasible_below_k_rows() -> None:
    with pytest.raises(InfeasibleConfigError, match="k=5 exceeds the 3 training rows"):
        fit(toy([1, 2, 3]), "age", k=5)


@pytest.fixture(scope="module")
def adult() -> tuple[DatasetSpec, pd.DataFrame]:
    spec = load_spec("adult")
    frame = load_dataset(spec).frame
    rows = np.random.default_rng(2).choice(len(frame), size=3000, replace=False)
    return spec, frame.iloc[rows].reset_index(drop=True)


@pytest.mark.parametrize("k", [2, 3, 5, 10])
@pytest.mark.parametrize("relaxed", [False, True])
def test_release_is_k_anonymous_on_adult(adult, k: int, relaxed: bool) -> None:  # type: ignore[no-untyped-def]
    spec, frame = adult
    qi = list(spec.qi)
    gen = Mondrian(k=k, relaxed=relaxed).fit(frame, spec, seed=0)
    out = gen.sample()
    labels = gen.artifacts()["generalised"]
    assert len(out) == len(frame) == len(labels)
    assert labels.groupby(qi, dropna=False).size().min() >= k
    assert out.groupby(qi, dropna=False).size().min() >= k
    details = gen.details()
    assert details["achieved_k"] >= k and details["n_suppressed"] == 0
    assert details["n_classes"] <= details["n_partitions"] <= len(frame) // k
    # every released age lies in its label's range, and the non-QI columns are unchanged
    bounds = labels["age"].str.extract(r"^\[(\d+), (\d+)\]$").astype(float)
    exact = bounds[0].isna()
    assert (labels["age"][exact].astype(int) == frame["age"][exact]).all()
    assert ((bounds[0][~exact] <= frame["age"][~exact]) & (frame["age"][~exact] <= bounds[1][~exact])).all()
    assert (out["age"][~exact] == bounds[0][~exact]).all()
    pd.testing.assert_series_equal(out["income"], frame["income"])


def test_strict_partitions_never_split_a_value_on_one_qi(adult) -> None:  # type: ignore[no-untyped-def]
    spec, frame = adult
    only_age = DatasetSpec.from_dict({**spec.to_dict(), "qi_sets": {"age": ["age"]}}, name="adult")
    labels = Mondrian(k=10).fit(frame, only_age, seed=0).artifacts()["generalised"]["age"]
    assert frame.groupby("age")["age"].size().index.size > 0
    assert (labels.groupby(frame["age"]).nunique() == 1).all()  # each age in exactly one partition
    relaxed = Mondrian(k=10, relaxed=True).fit(frame, only_age, seed=0).artifacts()["generalised"]["age"]
    assert (relaxed.groupby(frame["age"]).nunique() > 1).any()


def test_hierarchy_lca_labels(adult) -> None:  # type: ignore[no-untyped-def]
    spec, frame = adult
    lca = Mondrian(k=5).fit(frame, spec, seed=0).artifacts()["generalised"]
    sets = Mondrian(k=5, categorical="set").fit(frame, spec, seed=0).artifacts()["generalised"]
    countries = {"North America", "South America", "Europe", "Asia", "Africa", "*"} | set(
        frame["native-country"].dropna()
    )
    assert set(lca["native-country"].dropna()) <= countries
    assert sets["native-country"].dropna().str.startswith("{").any()
    assert not lca["native-country"].dropna().str.startswith("{").any()
    # ages are recoded the same way in both modes (same partitions)
    assert lca["age"].equals(sets["age"])


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"k": 1}, "`k` must be an integer >= 2"),
        ({"relaxed": "yes"}, "`relaxed` must be true or false"),
        ({"decode": "max"}, "`decode` must be one of"),
        ({"categorical": "tree"}, "`categorical` must be one of"),
    ],
)
def test_bad_parameters(params: dict[str, Any], match: str) -> None:
    with pytest.raises(ConfigError, match=match) as info:
        build_generator("mondrian", {"_target_": "generators.kanon.mondrian.Mondrian", **params})
    assert "\n" not in str(info.value)
