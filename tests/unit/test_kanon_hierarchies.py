"""Generalisation hierarchies and label decoding of the k-anonymity generators (§6.0, §1.2 rule 6)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from generators.kanon.hierarchies import (
    BinHierarchy,
    DateHierarchy,
    FlatHierarchy,
    FrequencyHierarchy,
    IntervalHierarchy,
    TableHierarchy,
    apply_level,
    column_hierarchy,
    decode_datetime,
    decode_numeric,
    default_width,
)
from generators.kanon.lattice import encode
from harness.datasets import load_dataset, load_hierarchy, load_spec
from harness.errors import ConfigError, DataError
from harness.spec import DatasetSpec


@pytest.fixture(scope="module")
def adult_spec() -> DatasetSpec:
    return load_spec("adult")


def test_default_age_hierarchy_has_seven_levels() -> None:
    """§6.0: age uses w = 5: exact, 5, 10, 20, 40, 80, * (17–90 spans 73 <= 80)."""
    ages = pd.Series([17, 23, 39, 90])
    h = column_hierarchy(load_spec("adult"), "age", ages, source="default")
    assert isinstance(h, IntervalHierarchy)
    assert h.widths == (5, 10, 20, 40, 80)
    assert h.n_levels == 7
    values = np.array([17, 23, 39, 90, np.nan], dtype=object)
    assert list(h.generalise(values, 1)) == ["[15, 20)", "[20, 25)", "[35, 40)", "[90, 95)", "*"]
    assert list(h.generalise(values, 3)) == ["[0, 20)", "[20, 40)", "[20, 40)", "[80, 100)", "*"]
    assert list(h.generalise(values, 5)) == ["[0, 80)", "[0, 80)", "[0, 80)", "[80, 160)", "*"]
    assert set(h.generalise(values, 6)) == {"*"}
    assert h.generalise(values, 0)[2] == 39


def test_default_width_of_other_numeric_columns() -> None:
    assert default_width("hours", pd.Series([1, 99])) == 5  # 98 / 32 = 3.06 -> 5
    assert default_width("gain", pd.Series([0, 99999])) == 5000
    assert default_width("x", pd.Series([0.0, 1.0])) == 0.05
    assert default_width("x", pd.Series([3, 3])) == 1


def test_interval_widths_must_nest() -> None:
    IntervalHierarchy([5, 10, 30])
    with pytest.raises(ConfigError, match="nest"):
        IntervalHierarchy([5, 12])


def test_categorical_default_is_value_then_star(adult_spec: DatasetSpec) -> None:
    h = column_hierarchy(adult_spec, "relationship", pd.Series(["Wife"]), source="default")
    assert isinstance(h, FlatHierarchy) and h.n_levels == 2
    assert list(h.generalise(np.array(["Wife", np.nan], dtype=object), 1)) == ["*", "*"]


def test_arx_age_labels_are_kept_off_by_one(adult_spec: DatasetSpec) -> None:
    """PROVENANCE.md: ARX's age bands are labelled one below their content (20 -> 15-19)."""
    h = column_hierarchy(adult_spec, "age", pd.Series([20, 21]), source="arx")
    assert isinstance(h, TableHierarchy) and h.n_levels == 5
    values = np.array([20, 21, 40, 90], dtype=object)
    assert list(h.generalise(values, 1)) == ["15-19", "20-24", "35-39", "85-89"]
    assert list(h.generalise(values, 2)) == ["10-19", "20-29", "30-39", "80-89"]
    assert list(h.generalise(values, 3)) == ["0-19", "20-39", "20-39", "80-99"]
    # decoding reads the label as published: "15-19" -> 15 (lower) or 17 (midpoint)
    assert list(decode_numeric(["15-19", "85-89"], "lower")) == [15, 85]
    assert list(decode_numeric(["15-19", "85-89"], "midpoint")) == [17, 87]


def test_values_missing_from_a_hierarchy_become_star(adult_spec: DatasetSpec) -> None:
    """Adult's '?' (NaN after loading) has no hierarchy row: itself at level 0, '*' above."""
    h = column_hierarchy(adult_spec, "native-country", pd.Series(["Cuba"]), source="arx")
    values = np.array(["Cuba", np.nan, "Atlantis"], dtype=object)
    assert h.generalise(values, 0)[0] == "Cuba" and pd.isna(h.generalise(values, 0)[1])
    assert list(h.generalise(values, 1)) == ["North America", "*", "*"]
    assert list(h.generalise(values, 2)) == ["*", "*", "*"]


def test_every_adult_hierarchy_nests_on_the_data(adult_spec: DatasetSpec) -> None:
    frame = load_dataset(adult_spec).frame
    hierarchies = {c: column_hierarchy(adult_spec, c, frame[c], source="arx") for c in adult_spec.hierarchies}
    encoded = encode(frame, hierarchies)  # raises DataError if a level does not nest
    assert dict(zip(encoded.columns, encoded.heights)) == {
        "age": 4, "education": 3, "marital-status": 2, "native-country": 2, "occupation": 2,
        "race": 1, "sex": 1, "workclass": 2, "income": 1,
    }  # fmt: skip
    assert load_hierarchy(adult_spec, "sex").shape == (2, 2)


def test_a_hierarchy_that_does_not_nest_is_rejected() -> None:
    table = pd.DataFrame({"level0": ["a", "b", "c"], "level1": ["x", "x", "y"], "level2": ["p", "q", "q"]})
    frame = pd.DataFrame({"col": ["a", "b", "c"]})
    with pytest.raises(DataError, match="does not nest"):
        encode(frame, {"col": TableHierarchy(table)})


def test_table_without_star_level_gets_one() -> None:
    h = TableHierarchy(pd.DataFrame({"level0": ["a", "b"], "level1": ["x", "y"]}))
    assert h.n_levels == 3
    assert list(h.generalise(np.array(["a", "b"], dtype=object), 2)) == ["*", "*"]


def test_frequency_hierarchy_groups_rare_values() -> None:
    values = pd.Series(["a"] * 5 + ["b"] * 3 + ["c"] + [np.nan])
    h = FrequencyHierarchy.from_values(values, [3, 4])
    labels1 = apply_level(h, values, 1)
    assert list(labels1[[0, 5, 8, 9]]) == ["a", "b", "Other", "*"]
    assert list(apply_level(h, values, 2)[[0, 5, 8]]) == ["a", "Other", "Other"]
    assert set(apply_level(h, values, 3)) == {"*"}


def test_bins_of_integer_data_are_half_open_with_integer_edges() -> None:
    values = np.arange(17, 91, dtype=float)  # 17 .. 90
    h = BinHierarchy.from_values(values, 5, "equal_width", integer=True)
    labels = apply_level(h, values, 1)
    assert labels[0] == "[17, 32)" and labels[-1] == "[76, 91)"
    assert len(set(labels)) == 5
    # same bins as the float edges 17, 31.6, 46.2, 60.8, 75.4, 90
    assert apply_level(h, np.array([31.0, 32.0]), 1).tolist() == ["[17, 32)", "[32, 47)"]
    cont = BinHierarchy.from_values(np.array([0.0, 0.5, 1.0]), 2, "equal_width", integer=False)
    assert apply_level(cont, np.array([0.0, 1.0]), 1).tolist() == ["[0, 0.5)", "[0.5, 1]"]
    q = BinHierarchy.from_values(
        np.array([1, 1, 1, 1, 2, 3, 4, 100], dtype=float), 4, "quantile", integer=True
    )
    assert q.n_bins <= 4


def test_date_truncation() -> None:
    values = pd.Series(pd.to_datetime(["2020-03-04", "2021-12-31", None]))
    h = DateHierarchy()
    assert list(apply_level(h, values, 1)) == ["2020-03", "2021-12", "*"]
    assert list(apply_level(h, values, 2)) == ["2020", "2021", "*"]
    decoded = decode_datetime(
        ["2020", "2020-03", "*", "2020-03-04T00:00:00", "[2020-01-02T00:00:00, 2021-01-01]"]
    )
    assert list(decoded[:2]) == [pd.Timestamp("2020-01-01"), pd.Timestamp("2020-03-01")]
    assert pd.isna(decoded[2])
    assert decoded[3] == pd.Timestamp("2020-03-04") and decoded[4] == pd.Timestamp("2020-01-02")


@pytest.mark.parametrize(
    ("label", "lower", "midpoint"),
    [
        ("[20, 25)", 20, 22.5),
        ("[20, 29]", 20, 24.5),
        ("15-19", 15, 17),
        ("-10--5", -10, -7.5),
        ("[0.5, 1]", 0.5, 0.75),
        ("39", 39, 39),
        ("3.25", 3.25, 3.25),
        ("*", math.nan, math.nan),
        ("Other", math.nan, math.nan),
        ("{a, b}", math.nan, math.nan),
        (None, math.nan, math.nan),
    ],
)
def test_decode_numeric(label: object, lower: float, midpoint: float) -> None:
    got_lower, got_mid = decode_numeric([label], "lower")[0], decode_numeric([label], "midpoint")[0]
    np.testing.assert_equal([got_lower, got_mid], [lower, midpoint])


def test_decode_numeric_rejects_unknown_mode() -> None:
    with pytest.raises(ConfigError, match="decode"):
        decode_numeric(["1"], "upper")
