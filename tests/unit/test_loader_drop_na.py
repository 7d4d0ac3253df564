"""``preprocess: {drop_na_rows: true}``: complete cases only, the predefined test mask following
(``harness/datasets/loader.py``; ``spec/reproductions.md`` §5.1: Adult without NA rows)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from harness.datasets import load_dataset, load_spec
from harness.errors import ConfigError, DataError
from harness.spec import DatasetSpec

COLUMNS = {"age": "integer", "sex": "categorical", "y": "categorical"}
TRAIN = "age,sex,y\n30,F,0\n?,M,1\n50,?,0\n60,M,1\n"  # rows 1 and 2 have a missing value
TEST = "age,sex,y\n70,F,1\n80,?,0\n90,M,0\n"  # row 1 has a missing value


def _spec(tmp_path: Path, preprocess: dict[str, Any]) -> DatasetSpec:
    (tmp_path / "train.csv").write_text(TRAIN)
    (tmp_path / "test.csv").write_text(TEST)
    return DatasetSpec.from_dict(
        {
            "name": "user",
            "columns": COLUMNS,
            "target": "y",
            "source": {
                "kind": "path",
                "files": [{"path": "train.csv", "role": "train"}, {"path": "test.csv", "role": "test"}],
                "na_values": ["?"],
            },
            "preprocess": preprocess,
        }
    )


def test_drop_na_rows_keeps_complete_cases_and_their_test_mask(tmp_path: Path) -> None:
    full = load_dataset(_spec(tmp_path, {}), base_dir=tmp_path)
    assert len(full.frame) == 7 and int(full.test_mask.sum()) == 3  # type: ignore[union-attr]
    complete = load_dataset(_spec(tmp_path, {"drop_na_rows": True}), base_dir=tmp_path)
    # train rows 0 and 3, test rows 0 and 2 survive, in file order
    assert complete.frame["age"].tolist() == [30, 60, 70, 90]
    assert complete.frame["sex"].tolist() == ["F", "M", "F", "M"]
    assert complete.test_mask is not None
    assert complete.test_mask.tolist() == [False, False, True, True]
    assert list(complete.frame.index) == [0, 1, 2, 3]
    assert str(complete.frame["age"].dtype) in ("int64", "float64")
    assert complete.digest != full.digest  # the switch is part of the content key


def test_adult_complete_is_the_papers_30162_training_rows() -> None:
    adult = load_dataset(load_spec("adult_complete"))
    assert adult.test_mask is not None
    assert int((~adult.test_mask).sum()) == 30_162 and int(adult.test_mask.sum()) == 15_060
    assert not adult.frame.isna().any().any()
    reference = load_dataset(load_spec("adult"))
    assert reference.test_mask is not None
    expected = reference.frame[~reference.test_mask].dropna().reset_index(drop=True)
    got = adult.frame[~adult.test_mask].reset_index(drop=True)
    assert np.array_equal(got.to_numpy(dtype=object), expected.to_numpy(dtype=object))


def test_bad_drop_na_rows_value_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(
        ConfigError, match=r"preprocess\.drop_na_rows must be true or false; got 'yes'"
    ) as info:
        load_dataset(_spec(tmp_path, {"drop_na_rows": "yes"}), base_dir=tmp_path)
    assert "\n" not in str(info.value)


def test_drop_na_rows_that_leaves_nothing_fails(tmp_path: Path) -> None:
    spec = _spec(tmp_path, {"drop_na_rows": True})
    (tmp_path / "train.csv").write_text("age,sex,y\n?,M,1\n50,?,0\n")
    (tmp_path / "test.csv").write_text("age,sex,y\n80,?,0\n")
    with pytest.raises(DataError, match=r"preprocess\.drop_na_rows leaves no rows") as info:
        load_dataset(spec, base_dir=tmp_path)
    assert "\n" not in str(info.value)


def test_drop_na_target_drops_only_unlabelled_rows(tmp_path: Path) -> None:
    spec = _spec(tmp_path, {"drop_na_target": True})
    (tmp_path / "train.csv").write_text("age,sex,y\n30,F,0\n?,M,1\n50,?,?\n60,M,1\n")
    labelled = load_dataset(spec, base_dir=tmp_path)
    # only train row 2 (missing label) goes; row 1's missing age stays, as do the test rows
    assert labelled.frame["y"].notna().all() and len(labelled.frame) == 6
    assert labelled.frame["age"].isna().sum() == 1 and labelled.frame["sex"].isna().sum() == 1
    assert labelled.test_mask is not None and labelled.test_mask.tolist() == [False] * 3 + [True] * 3


def test_a_drop_that_leaves_one_class_is_named(tmp_path: Path) -> None:
    spec = _spec(tmp_path, {"drop_na_rows": True})
    (tmp_path / "train.csv").write_text("age,sex,y\n30,F,0\n?,M,1\n50,M,0\n")
    (tmp_path / "test.csv").write_text("age,sex,y\n70,?,1\n")
    with pytest.raises(
        DataError, match=r"after preprocess\.drop_na_rows: target 'y' has a single class"
    ) as info:
        load_dataset(spec, base_dir=tmp_path)
    assert "\n" not in str(info.value)


def test_unknown_preprocess_key_and_target_less_drop(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"unknown preprocess key\(s\) drop_na; expected some of: "):
        load_dataset(_spec(tmp_path, {"drop_na": True}), base_dir=tmp_path)
    no_target = DatasetSpec.from_dict(
        {
            "name": "user",
            "columns": COLUMNS,
            "source": {"kind": "path", "files": [{"path": "train.csv"}], "na_values": ["?"]},
            "preprocess": {"drop_na_target": True},
        }
    )
    with pytest.raises(ConfigError, match="drop_na_target needs a target column"):
        load_dataset(no_target, base_dir=tmp_path)
