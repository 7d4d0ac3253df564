"""``preprocess: {drop_duplicate_rows: true}``: the first of identical rows, after the NA rows
(``harness/datasets/loader.py``; ``spec/reproductions.md`` §10.4: the Robin Hood Adult table)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from harness.datasets import load_dataset
from harness.errors import ConfigError
from harness.spec import DatasetSpec

TRAIN = "age,sex,y\n30,F,0\n30,F,0\n?,M,1\n?,M,1\n60,M,1\n"  # rows 0/1 and 2/3 are duplicates (NA = NA)
TEST = "age,sex,y\n60,M,1\n70,F,1\n"  # row 0 duplicates train row 4 (across files)


def _spec(tmp_path: Path, preprocess: dict[str, Any]) -> DatasetSpec:
    (tmp_path / "train.csv").write_text(TRAIN)
    (tmp_path / "test.csv").write_text(TEST)
    return DatasetSpec.from_dict(
        {
            "name": "user",
            "columns": {"age": "integer", "sex": "categorical", "y": "categorical"},
            "target": "y",
            "source": {
                "kind": "path",
                "files": [{"path": "train.csv", "role": "train"}, {"path": "test.csv", "role": "test"}],
                "na_values": ["?"],
            },
            "preprocess": preprocess,
        }
    )


def test_first_occurrence_kept_and_test_mask_follows(tmp_path: Path) -> None:
    data = load_dataset(_spec(tmp_path, {"drop_duplicate_rows": True}), base_dir=tmp_path)
    assert data.frame["age"].tolist()[:1] == [30] and np.isnan(data.frame["age"].iloc[1])
    assert data.frame["age"].tolist()[2:] == [60, 70]
    assert data.test_mask is not None and data.test_mask.tolist() == [False, False, False, True]


def test_after_drop_na_rows(tmp_path: Path) -> None:
    data = load_dataset(
        _spec(tmp_path, {"drop_na_rows": True, "drop_duplicate_rows": True}), base_dir=tmp_path
    )
    assert data.frame["age"].tolist() == [30, 60, 70]
    assert data.test_mask is not None and data.test_mask.tolist() == [False, False, True]


def test_bad_value_is_a_one_line_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="preprocess.drop_duplicate_rows must be true or false; got 'yes'"):
        load_dataset(_spec(tmp_path, {"drop_duplicate_rows": "yes"}), base_dir=tmp_path)
