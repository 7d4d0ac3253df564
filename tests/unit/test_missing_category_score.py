"""missing_category_score (spec/metrics.md F8) on hand-computed tables."""

from __future__ import annotations

import pandas as pd
import pytest

from harness.errors import IncomputableMetricError
from harness.instantiate import build_metric
from harness.spec import ColumnSpec, DatasetSpec
from metrics.fidelity.missing_category_score import MissingCategoryScore

SPEC = DatasetSpec(
    name="tiny",
    columns=(ColumnSpec("c", "categorical"), ColumnSpec("d", "ordinal"), ColumnSpec("x", "continuous")),
)


def test_by_hand() -> None:
    real = pd.DataFrame({"c": ["a", "a", "b", None], "d": ["x", "y", "y", "y"], "x": [1.0, 2.0, 3.0, 4.0]})
    syn = pd.DataFrame({"c": ["a", "a", "a", "a"], "d": ["x", "x", "x", "x"], "x": [1.0, 1.0, 1.0, 1.0]})
    out = MissingCategoryScore().compute(real, syn, SPEC)
    # c: "b" (1/4) and NA (1/4) never released; d: "y" (3/4) -> 1.25 (may exceed 1)
    assert out.value == pytest.approx(1.25, abs=1e-15)
    assert out.details["columns"] == pytest.approx({"c": 0.5, "d": 0.75})
    assert out.details["missing"] == {"c": ["<NA>", "b"], "d": ["y"]}


def test_identical_and_new_categories_score_zero() -> None:
    real = pd.DataFrame({"c": ["a", "b"], "d": ["x", "y"], "x": [1.0, 2.0]})
    assert MissingCategoryScore().compute(real, real.copy(), SPEC).value == 0.0
    extra = pd.DataFrame({"c": ["a", "b", "z"], "d": ["x", "y", "w"], "x": [1.0, 2.0, 3.0]})
    assert MissingCategoryScore().compute(real, extra, SPEC).value == 0.0


def test_no_categorical_column_is_incomputable() -> None:
    spec = DatasetSpec(name="num", columns=(ColumnSpec("x", "continuous"),))
    frame = pd.DataFrame({"x": [1.0]})
    with pytest.raises(IncomputableMetricError, match="no categorical column"):
        MissingCategoryScore().compute(frame, frame, spec)


def test_built_from_yaml() -> None:
    assert isinstance(build_metric("missing_category_score"), MissingCategoryScore)
