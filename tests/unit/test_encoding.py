"""The shared encoding space E (spec/metrics.md §0.2) and the canonical row order."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from harness.checks import contract_data
from harness.encoding import TableEncoder, canonical_row_order
from harness.errors import ConfigError, DataError
from harness.spec import DatasetSpec

SPEC = DatasetSpec.from_dict(
    {"name": "toy", "columns": {"x": "continuous", "c": "categorical", "n": "integer"}}
)


def _frames() -> tuple[pd.DataFrame, pd.DataFrame]:
    real = pd.DataFrame({"x": [0.0, 10.0, 5.0, 4.0], "c": ["a", "b", np.nan, "a"], "n": [1, 1, 1, 1]}).astype(
        {"c": object}
    )
    synthetic = pd.DataFrame({"x": [20.0, np.nan], "c": ["z", "a"], "n": [3, 1]}).astype({"c": object})
    return real, synthetic


def test_hand_computed_encoding() -> None:
    real, synthetic = _frames()
    enc = TableEncoder(SPEC).fit(real, synthetic)
    assert enc.feature_names == ["x", "x__isna", "c=a", "c=b", "c=z", "c=<NA>", "n"]
    # x: min 0, max 10, T median 4.5 -> 0.45; n: constant in T -> scale 1 (x - 1)
    expected_real = [
        [0.0, 0, 1, 0, 0, 0, 0],
        [1.0, 0, 0, 1, 0, 0, 0],
        [0.5, 0, 0, 0, 0, 1, 0],
        [0.4, 0, 1, 0, 0, 0, 0],
    ]
    expected_syn = [
        [2.0, 0, 0, 0, 1, 0, 2],  # outside T's range: not clipped; category only in S has a column
        [0.45, 1, 1, 0, 0, 0, 0],  # numeric NA: T's median plus indicator
    ]
    np.testing.assert_allclose(enc.transform(real), expected_real)
    np.testing.assert_allclose(enc.transform(synthetic), expected_syn)
    assert enc.transform(real).dtype == np.float64


def test_scaling_uses_real_only_and_unseen_category_is_zero() -> None:
    real, synthetic = _frames()
    alone = TableEncoder(SPEC).fit(real)
    both = TableEncoder(SPEC).fit(real, synthetic)
    x_alone = alone.transform(real)[:, alone.feature_names.index("x")]
    x_both = both.transform(real)[:, both.feature_names.index("x")]
    np.testing.assert_array_equal(x_alone, x_both)
    unseen = pd.DataFrame({"x": [1.0], "c": ["never"], "n": [1]}).astype({"c": object})
    row = both.transform(unseen)[0]
    cat = [i for i, n in enumerate(both.feature_names) if n.startswith("c=")]
    assert not row[cat].any()


def test_numeric_mode_and_exclude() -> None:
    real, synthetic = _frames()
    assert TableEncoder(SPEC, columns="numeric").fit(real, synthetic).feature_names == ["x", "x__isna", "n"]
    assert TableEncoder(SPEC, exclude=("c",)).fit(real).feature_names == ["x", "n"]


def test_datetime_is_numeric() -> None:
    spec = DatasetSpec.from_dict({"name": "t", "columns": {"d": "datetime"}})
    frame = pd.DataFrame({"d": pd.to_datetime(["2020-01-01", "2020-01-03", None])})
    np.testing.assert_allclose(TableEncoder(spec).fit_transform(frame), [[0, 0], [1, 0], [0.5, 1]])


def test_errors() -> None:
    real, _ = _frames()
    with pytest.raises(ConfigError, match="`columns` must be one of"):
        TableEncoder(SPEC, columns="everything")
    with pytest.raises(RuntimeError, match="before fit"):
        TableEncoder(SPEC).transform(real)
    with pytest.raises(DataError, match="'c'"):
        TableEncoder(SPEC).fit(real.drop(columns="c"))


def test_adult_space() -> None:
    data = contract_data("adult", n_train=300, n_control=100, n_test=100, seed=0)
    enc = TableEncoder(data.spec).fit(data.train, data.control)
    x = enc.transform(data.train)
    assert x.shape == (300, enc.n_features)
    assert np.isfinite(x).all()
    for col in data.spec.numeric_columns:
        values = x[:, enc.feature_names.index(col)]
        assert values.min() == 0.0 and values.max() == 1.0
    for col in data.spec.categorical_columns:
        block = [i for i, n in enumerate(enc.feature_names) if n.startswith(f"{col}=")]
        np.testing.assert_array_equal(x[:, block].sum(axis=1), 1.0)


@pytest.mark.parametrize("dataset", ["adult", "texas", "sd2011", "german_credit"])
def test_vocabulary_is_the_text_of_every_value(dataset: str) -> None:
    """The one-hot vocabulary (built from distinct values) is the set of per-row ``str`` labels."""
    data = contract_data(dataset, n_train=400, n_control=100, n_test=100, seed=0)
    enc = TableEncoder(data.spec).fit(data.train, data.control)
    for col in data.spec.categorical_columns:
        both = pd.concat([data.train[col], data.control[col]])
        labels = set(both.dropna().astype(str))
        expected = sorted(labels) + (["<NA>"] if both.isna().any() else [])
        assert [n.split("=", 1)[1] for n in enc.feature_names if n.startswith(f"{col}=")] == expected


def test_mixed_type_values_share_a_label_with_their_encoding() -> None:
    """Equal values of different Python types (1 and 1.0) get one column, the one they are encoded in."""
    spec = DatasetSpec.from_dict({"name": "mixed", "columns": {"c": "categorical"}})
    real = pd.DataFrame({"c": pd.Series([1, 1.0, "a"], dtype=object)})
    enc = TableEncoder(spec).fit(real)
    x = enc.transform(real)
    assert enc.feature_names == ["c=1", "c=a"]
    np.testing.assert_array_equal(x, [[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])


def test_canonical_row_order_ignores_input_order() -> None:
    data = contract_data("adult", n_train=300, n_control=100, n_test=100, seed=0)
    shuffled = data.train.sample(frac=1.0, random_state=1)
    pd.testing.assert_frame_equal(canonical_row_order(data.train), canonical_row_order(shuffled))
    assert sorted(canonical_row_order(data.train).index) == list(range(300))
