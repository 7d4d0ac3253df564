"""Deterministic splits: holdout, k-fold, predefined; control separate or equal to test."""

from __future__ import annotations

import numpy as np
import pytest

from harness.errors import ConfigError
from harness.splits import SplitConfig, make_split


def labels(n: int = 200) -> np.ndarray:
    return np.array(["a"] * (n * 3 // 4) + ["b"] * (n - n * 3 // 4))


def test_holdout_is_deterministic_and_disjoint() -> None:
    cfg = SplitConfig(kind="holdout", test_size=0.2, control="separate", control_size=0.2)
    a = make_split(200, cfg, split_seed=3, y=labels())
    b = make_split(200, cfg, split_seed=3, y=labels())
    for part in ("train", "control", "test"):
        np.testing.assert_array_equal(getattr(a, part), getattr(b, part))
    assert len(a.test) == 40 and len(a.control) == 40 and len(a.train) == 120
    assert (
        not set(a.train) & set(a.test)
        and not set(a.train) & set(a.control)
        and not set(a.control) & set(a.test)
    )
    assert sorted([*a.train, *a.control, *a.test]) == list(range(200))


def test_different_split_seeds_differ() -> None:
    cfg = SplitConfig()
    assert not np.array_equal(
        make_split(200, cfg, split_seed=0).test, make_split(200, cfg, split_seed=1).test
    )


def test_holdout_is_stratified() -> None:
    y = labels(400)
    split = make_split(400, SplitConfig(test_size=0.25, control="test"), split_seed=0, y=y)
    assert split.details["stratified"]
    assert (y[split.test] == "b").sum() == 25  # exactly a quarter of the 100 minority rows


def test_control_equals_test_when_configured() -> None:
    split = make_split(100, SplitConfig(control="test"), split_seed=0, y=labels(100))
    np.testing.assert_array_equal(split.control, split.test)
    assert len(split.train) == 80


def test_kfold_folds_partition_the_rows() -> None:
    cfg = SplitConfig(kind="kfold", n_folds=5, control="test")
    tests = [make_split(100, cfg, split_seed=7, fold=f, y=labels(100)).test for f in range(5)]
    assert sorted(np.concatenate(tests).tolist()) == list(range(100))


def test_predefined_uses_the_mask() -> None:
    mask = np.zeros(50, dtype=bool)
    mask[40:] = True
    split = make_split(50, SplitConfig(kind="predefined", control="test"), split_seed=0, test_mask=mask)
    np.testing.assert_array_equal(split.test, np.arange(40, 50))
    np.testing.assert_array_equal(split.train, np.arange(40))


def test_tiny_class_falls_back_to_unstratified() -> None:
    y = np.array(["a"] * 99 + ["b"])
    split = make_split(100, SplitConfig(control="test"), split_seed=0, y=y)
    assert not split.details["stratified"]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"kind": "random"}, "split.kind must be one of"),
        ({"test_size": 1.5}, "split.test_size must be in (0, 1)"),
        ({"control": "both"}, "split.control must be"),
        ({"n_folds": 1}, "split.n_folds must be an integer >= 2"),
        ({"test_size": 0.5, "control_size": 0.5}, "must be < 1"),
    ],
)
def test_bad_split_config(kwargs: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        SplitConfig.from_dict(kwargs)


def test_unknown_split_key() -> None:
    with pytest.raises(ConfigError, match="split: unknown key"):
        SplitConfig.from_dict({"test_fraction": 0.2})


def test_bad_fold() -> None:
    with pytest.raises(ConfigError, match="fold must be 0"):
        make_split(100, SplitConfig(), split_seed=0, fold=2)
    with pytest.raises(ConfigError, match="fold must be < split.n_folds"):
        make_split(100, SplitConfig(kind="kfold", n_folds=3), split_seed=0, fold=3)


def test_predefined_without_mask() -> None:
    with pytest.raises(ConfigError, match="predefined test split"):
        make_split(100, SplitConfig(kind="predefined"), split_seed=0)


def test_half_of_test_cuts_control_from_the_test_rows() -> None:
    mask = np.zeros(100, dtype=bool)
    mask[60:] = True
    y = np.array([0, 1] * 50)
    split = make_split(
        100, SplitConfig(kind="predefined", control="half_of_test"), split_seed=0, y=y, test_mask=mask
    )
    assert split.train.tolist() == list(range(60))  # every non-test row trains
    assert len(split.control) == len(split.test) == 20
    assert set(split.control) | set(split.test) == set(range(60, 100)) and not set(split.control) & set(
        split.test
    )
    assert y[split.control].sum() == y[split.test].sum() == 10  # stratified halves
    again = make_split(
        100, SplitConfig(kind="predefined", control="half_of_test"), split_seed=0, y=y, test_mask=mask
    )
    assert again.control.tolist() == split.control.tolist()
