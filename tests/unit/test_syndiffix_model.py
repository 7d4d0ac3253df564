"""SynDiffix wrapper (``spec/generators.md`` §7.8): seed → salt determinism, output size near
n, categories from training only, and the multi-table mode's artifacts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from generators.syndiffix_model import SynDiffix, salt_for_seed
from harness.dtypes import conform
from harness.errors import ConfigError
from harness.spec import DatasetSpec

SPEC = DatasetSpec.from_dict(
    {
        "name": "toy",
        "columns": {
            "age": "integer",
            "income": "continuous",
            "colour": "categorical",
            "label": "categorical",
        },
        "target": "label",
    }
)


def make_table(n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 80, size=n)
    frame = pd.DataFrame(
        {
            "age": age,
            "income": np.round(1000 + 40 * age + rng.normal(0, 200, size=n), 2),
            "colour": rng.choice(
                np.array(["red", "green", "blue", "rare"], dtype=object), size=n, p=[0.5, 0.3, 0.19, 0.01]
            ),
            "label": np.where(age > 45, "1", "0").astype(object),
        }
    )
    return conform(frame, SPEC)


@pytest.fixture(scope="module")
def train() -> pd.DataFrame:
    return make_table(400)


def test_same_seed_identical_other_seed_differs(train: pd.DataFrame) -> None:
    a = SynDiffix().fit(train, SPEC, seed=11).sample()
    b = SynDiffix().fit(train, SPEC, seed=11).sample()
    c = SynDiffix().fit(train, SPEC, seed=12).sample()
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(c)
    assert salt_for_seed(11) == salt_for_seed(11) != salt_for_seed(12)


def test_output_near_n_with_spec_dtypes_and_training_categories(train: pd.DataFrame) -> None:
    gen = SynDiffix().fit(train, SPEC, seed=0)
    out = gen.sample()
    assert abs(len(out) - len(train)) <= 0.05 * len(train)
    pd.testing.assert_frame_equal(out, conform(out, SPEC))
    assert set(out["colour"].dropna()) <= set(train["colour"])
    assert set(out["label"].dropna()) <= {"0", "1"}
    assert gen.details()["anonymization"]["mean_threshold"] == 5.0
    assert len(gen.sample(123)) == 123 and len(gen.sample(2 * len(train))) == 2 * len(train)


def test_multi_table_mode_artifacts(train: pd.DataFrame) -> None:
    gen = SynDiffix(columns=[["age", "label"], ["colour"]]).fit(train, SPEC, seed=0)
    out = gen.sample()
    assert list(out.columns) == list(SPEC.table_columns)  # the released table has all columns
    tables = gen.artifacts()
    assert set(tables) == {"table_0", "table_1"}
    assert list(tables["table_0"].columns) == ["age", "label"]
    assert list(tables["table_1"].columns) == ["colour"]
    for table in tables.values():
        assert abs(len(table) - len(train)) <= 0.05 * len(train)
    assert gen.details()["tables"]["table_0"]["columns"] == ["age", "label"]
    # low-dimensional tables are more accurate: the 2-column table keeps the age/label rule better
    two = tables["table_0"]
    assert ((two["age"] > 45) == (two["label"] == "1")).mean() >= 0.8


def test_aid_column_is_withheld() -> None:
    spec = DatasetSpec.from_dict(
        {"name": "toy_aid", "columns": {"person": "categorical", "age": "integer", "colour": "categorical"}}
    )
    rng = np.random.default_rng(0)
    frame = conform(
        pd.DataFrame(
            {
                "person": [f"p{i // 2}" for i in range(300)],
                "age": rng.integers(18, 80, size=300),
                "colour": rng.choice(np.array(["red", "blue"], dtype=object), size=300),
            }
        ),
        spec,
    )
    out = SynDiffix(aid_column="person").fit(frame, spec, seed=0).sample()
    assert out["person"].isna().all() and out["age"].notna().all()


@pytest.mark.parametrize(
    "params",
    [
        {"columns": ["age", "label"]},
        {"columns": []},
        {"aid_column": 3},
        {"layer_sd": -1.0},
        {"max_weight": 1.0},
        {"layer_sd": -1.0},
        {"solver_alpha": 0.0},
    ],
)
def test_bad_params(params: dict[str, object]) -> None:
    with pytest.raises(ConfigError) as err:
        SynDiffix(**params).validate_params()  # type: ignore[arg-type]
    assert "\n" not in str(err.value)
