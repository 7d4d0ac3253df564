"""univariate_error (004_… SynDiffix multi-table paper §4.2, Table 3 "Univariate")."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from harness.errors import ConfigError
from harness.spec import ColumnSpec, DatasetSpec
from metrics.fidelity.univariate_error import UnivariateError, composite_errors, value_counts

SPEC = DatasetSpec(name="tiny", columns=(ColumnSpec("x", "continuous"), ColumnSpec("c", "categorical")))
REAL = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "c": ["a", "a", "a", "b"]})
SYN = pd.DataFrame({"x": [1.0, 1.0, 4.0, 9.0], "c": ["a", "b", "b", "c"]})


def test_composite_error_by_hand() -> None:
    e_abs, e_comp = composite_errors(np.array([3, 1, 0, 200]), np.array([1, 2, 1, 190]))
    assert e_abs.tolist() == [2, 1, 1, 10]
    # rel: 66.7 %, 100 %, inf (absent from T), 5 %
    assert e_comp.tolist() == pytest.approx([2.0, 1.0, 1.0, 5.0])


def test_value_counts_take_the_union_with_na_as_a_value() -> None:
    counts = value_counts(pd.Series(["a", None, "a"]), pd.Series(["b", None]))
    assert counts.loc["a"].tolist() == [2, 0] and counts.loc["b"].tolist() == [0, 1]
    assert counts.loc["<NA>"].tolist() == [1, 1]


def test_metric_by_hand() -> None:
    out = UnivariateError(bins=2).compute(REAL, SYN, SPEC)
    # c: a 3 vs 1 -> 2; b 1 vs 2 -> 1; c 0 vs 1 -> 1.
    # x: T breaks (1, 2.5, 4): bin0 2 vs 2 -> 0; bin1 2 vs 1 -> min(1, 50) = 1; outside 0 vs 1 -> 1.
    assert out["composite_median"].value == pytest.approx(1.0)
    assert out["composite_mean"].value == pytest.approx(6 / 6)
    assert out["abs_median"].value == pytest.approx(1.0)
    details = out["composite_median"].details
    assert details["n_values"] == 6
    assert details["column_median_composite"] == {"x": 1.0, "c": 1.0}


def test_identical_is_zero_and_columns_select() -> None:
    assert UnivariateError().compute(REAL, REAL.copy(), SPEC)["composite_median"].value == 0.0
    only_c = UnivariateError(columns=["c"]).compute(REAL, SYN, SPEC)
    assert only_c["composite_mean"].value == pytest.approx(4 / 3)


def test_bad_parameters() -> None:
    with pytest.raises(ConfigError, match="bins"):
        UnivariateError(bins=0).compute(REAL, SYN, SPEC)
    with pytest.raises(ConfigError, match="unknown column"):
        UnivariateError(columns=["nope"]).compute(REAL, SYN, SPEC)
    with pytest.raises(ConfigError, match="columns"):
        UnivariateError(columns="c").compute(REAL, SYN, SPEC)  # type: ignore[arg-type]
