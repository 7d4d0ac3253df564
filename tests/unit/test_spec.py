"""DatasetSpec parsing and validation: every bad key gives a one-line message naming it."""

from __future__ import annotations

from typing import Any

import pytest

from harness.errors import ConfigError
from harness.spec import DatasetSpec


def spec_dict(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "name": "toy",
        "columns": {
            "age": "integer",
            "sex": "categorical",
            "income": {"kind": "continuous"},
            "y": "categorical",
        },
        "target": "y",
        "task": "binary",
        "qi_sets": {"demo": ["age", "sex"], "age_only": ["age"]},
        "sensitive": ["income"],
    }
    base.update(changes)
    return base


def test_round_trip_and_queries() -> None:
    spec = DatasetSpec.from_dict(spec_dict())
    assert spec.numeric_columns == ("age", "income")
    assert spec.categorical_columns == ("sex", "y")
    assert spec.qi == ("age", "sex") and spec.qi_set_name == "demo"
    assert spec.with_active_qi("age_only").qi == ("age",)
    assert spec.with_active_qi(1).qi_set_name == "age_only"
    assert DatasetSpec.from_dict(spec.to_dict()) == spec
    assert spec.digest() == DatasetSpec.from_dict(spec_dict()).digest()


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"target": "label"}, "target 'label' is not a declared column"),
        ({"qi_sets": {"demo": ["age", "zip"]}}, "QI set 'demo' names column 'zip'"),
        ({"columns": {"age": "number"}}, "column 'age' has kind 'number'; expected one of"),
        ({"colums": {}}, "unknown key(s) colums"),
        ({"task": "clustering"}, "task must be one of"),
        ({"sensitive": ["salary"]}, "sensitive column 'salary'"),
        ({"columns": {}}, "key 'columns' is missing or empty"),
        ({"target": None, "task": "binary"}, "needs a 'target' column"),
    ],
)
def test_bad_specs(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as info:
        DatasetSpec.from_dict(spec_dict(**changes))
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_unknown_qi_set_lists_valid_names() -> None:
    spec = DatasetSpec.from_dict(spec_dict())
    with pytest.raises(ConfigError, match="unknown QI set 'zz'; expected one of: demo, age_only"):
        spec.with_active_qi("zz")
    with pytest.raises(ConfigError, match="qi_index 5 is out of range"):
        spec.with_active_qi(5)
