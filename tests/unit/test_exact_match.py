"""exact_match (spec/metrics.md P6): hand-computed cases, SDMetrics equality, chunking, params."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest

from harness.errors import ConfigError
from harness.instantiate import build_metric
from harness.metric import BaseMetric, MetricResult, as_outputs
from harness.spec import DatasetSpec
from metrics.privacy.exact_match import DEFAULT_TOLERANCES, ExactMatch

SPEC = DatasetSpec.from_dict(
    {"name": "toy", "columns": {"x": "continuous", "n": "integer", "c": "categorical"}}
)
TRAIN = pd.DataFrame(
    {
        "x": [0.0, 10.0, 20.0, np.nan, 20.0],
        "n": [1, 2, 3, 4, 3],
        "c": ["a", "b", None, "a", None],
    }
)
# Row 4 of TRAIN duplicates row 2: TRAIN has 3 unique rows (0, 1, 3).
RELEASE = pd.DataFrame(
    {
        "x": [0.0, 10.0 + 1e-7, 11.0, np.nan, 100.0],
        "n": [1.0, 2.0, 2.0, 4.0, 3.0],
        "c": ["a", "b", "b", "a", "z"],
    }
)


def _run(metric: BaseMetric, *args: Any, **kwargs: Any) -> dict[str, MetricResult]:
    return as_outputs(metric.compute(*args, **kwargs))


def _values(out: dict[str, MetricResult]) -> dict[str, float]:
    return {k: r.value for k, r in out.items()}


def test_hand_computed_outputs() -> None:
    out = _run(ExactMatch(tolerances=[0.0, 0.1]), TRAIN, RELEASE, SPEC, seed=0)
    # Euclidean over (x, n, x__isna), NA x imputed with T's median 15:
    # s0 = T0 (0); s1: 1e-7 from T1; s2 = (11, 2) vs T1 (10, 2): 1; s3 = T3 (NA = NA): 0;
    # s4 = (100, 3) vs T2 (20, 3): 80.
    nearest = np.array([0.0, 1e-7, 1.0, 0.0, 80.0])
    expected = {
        "matches_tol": 3 / 5,  # s0, s1, s3 below delta = 1e-6
        "euc_mean": nearest.mean(),
        "row_copy_rate": 2 / 5,  # s0 and s3 (NA = NA, 1.0 == 1)
        "unique_copy_rate": 2 / 5,  # unique T rows 0 and 3 are copied; |T| = 5
        # tol 0: s0, s3 match; tol 0.1: s1 (|10 - 10.0000001| <= 1.0000001) and s2 (|10 - 11| <= 1.1) too
        "new_row_synthesis_tol0": 3 / 5,
        "new_row_synthesis_tol0.1": 1 / 5,
    }
    assert _values(out) == pytest.approx(expected, abs=1e-12)
    assert out["unique_copy_rate"].details["n_unique_train"] == 3
    assert out["unique_copy_rate"].details["n_unique_copies"] == 2
    assert out["unique_copy_rate"].details["share_of_unique_train"] == pytest.approx(2 / 3)
    assert out["row_copy_rate"].details["n_copies"] == 2
    goals = {k: r.goal for k, r in out.items()}
    assert goals == {
        "matches_tol": None,
        "euc_mean": "maximise",
        "row_copy_rate": None,
        "unique_copy_rate": None,
        "new_row_synthesis_tol0": "maximise",
        "new_row_synthesis_tol0.1": "maximise",
    }
    assert ExactMatch.goal == "minimise"


def test_identity_release_is_all_copies() -> None:
    out = _run(ExactMatch(), TRAIN, TRAIN.copy(), SPEC, seed=0)
    assert out["matches_tol"].value == 1.0 and out["euc_mean"].value == 0.0
    assert out["row_copy_rate"].value == 1.0
    assert out["unique_copy_rate"].value == pytest.approx(3 / 5)
    assert all(out[f"new_row_synthesis_tol{t:g}"].value == 0.0 for t in DEFAULT_TOLERANCES)


def test_no_numeric_columns_omits_distance_outputs() -> None:
    spec = DatasetSpec.from_dict({"name": "cat", "columns": {"c": "categorical", "d": "categorical"}})
    train = pd.DataFrame({"c": ["a", "b", None], "d": ["x", "y", "z"]})
    release = pd.DataFrame({"c": [None, "b", "b"], "d": ["z", "x", "y"]})
    out = _run(ExactMatch(tolerances=[0.5]), train, release, spec, seed=0)
    assert set(out) == {"row_copy_rate", "unique_copy_rate", "new_row_synthesis_tol0.5"}
    assert out["row_copy_rate"].value == pytest.approx(2 / 3)
    assert out["new_row_synthesis_tol0.5"].value == pytest.approx(1 / 3)


def test_generalised_labels_in_numeric_columns_are_not_na() -> None:
    train = pd.DataFrame({"x": [np.nan, 5.0], "n": [1, 2], "c": ["a", "b"]})
    release = pd.DataFrame({"x": ["[0, 10)", np.nan], "n": [1, 2], "c": ["a", "a"]}).astype({"x": object})
    out = _run(ExactMatch(tolerances=[0.0]), train, release, SPEC, seed=0)
    assert out["row_copy_rate"].value == 0.0  # the label is not the NA of T's first row
    assert out["new_row_synthesis_tol0"].value == 1.0


def _random_tables(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = 40
    train = pd.DataFrame(
        {
            "x": np.round(rng.normal(10, 3, n), 2),
            "n": rng.integers(-5, 60, n),
            "c": rng.choice(np.array(["red", "blue", None], dtype=object), n),
        }
    )
    train.loc[[3, 7], "x"] = np.nan
    release = train.sample(30, random_state=seed).reset_index(drop=True)
    release["n"] = release["n"] + rng.choice([0, 1, 2, 5, -3], 30)
    release["x"] = release["x"] * rng.choice([1.0, 1.05, 1.1, 0.7, 1.3, -1.0], 30)
    release.loc[[0], "x"] = np.nan
    return train, release


@pytest.mark.parametrize("seed", [0, 1])
def test_new_row_synthesis_equals_sdmetrics(seed: int) -> None:
    from sdmetrics.single_table import NewRowSynthesis

    train, release = _random_tables(seed)
    metadata = {
        "columns": {
            "x": {"sdtype": "numerical"},
            "n": {"sdtype": "numerical"},
            "c": {"sdtype": "categorical"},
        }
    }
    tolerances = [0.0, 0.01, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0]
    out = _run(ExactMatch(tolerances=tolerances), train, release, SPEC, seed=0)
    values = []
    for tol in tolerances:
        expected = NewRowSynthesis.compute(train, release, metadata, numerical_match_tolerance=tol)
        assert out[f"new_row_synthesis_tol{tol:g}"].value == expected, tol
        values.append(expected)
    assert len(set(values)) > 3  # the sweep is informative on this table


def test_chunking_and_row_order_do_not_change_the_result() -> None:
    train, release = _random_tables(2)
    reference = _values(_run(ExactMatch(), train, release, SPEC, seed=0))
    tiny = _values(_run(ExactMatch(chunk_size=1), train, release, SPEC, seed=0))
    assert tiny == reference
    # tolerance 0 is exact equality on every column, so it mirrors the row-copy rate
    assert reference["new_row_synthesis_tol0"] == pytest.approx(1 - reference["row_copy_rate"])
    shuffled = release.sample(frac=1.0, random_state=5).reset_index(drop=True)
    reordered = _values(_run(ExactMatch(chunk_size=7), train.iloc[::-1], shuffled, SPEC, seed=3))
    assert reordered.keys() == reference.keys()
    for key, value in reference.items():
        assert math.isclose(reordered[key], value, rel_tol=1e-12, abs_tol=1e-12), key


@pytest.mark.parametrize(
    ("params", "key"),
    [
        ({"tolerances": "0.1"}, "`tolerances`"),
        ({"tolerances": []}, "`tolerances`"),
        ({"tolerances": [-0.1]}, "`tolerances`"),
        ({"tolerances": [0.1, 0.1]}, "`tolerances`"),
        ({"tolerances": [float("nan")]}, "`tolerances`"),
        ({"tolerances": [True]}, "`tolerances`"),
        ({"delta": 0.0}, "`delta`"),
        ({"delta": "1e-6"}, "`delta`"),
        ({"chunk_size": 0}, "`chunk_size`"),
    ],
)
def test_bad_params_raise_one_line_config_error(params: dict, key: str) -> None:
    with pytest.raises(ConfigError) as info:
        ExactMatch(**params).validate_params()
    assert key in str(info.value) and "\n" not in str(info.value)


def test_yaml_builds() -> None:
    metric = build_metric("exact_match")
    assert isinstance(metric, ExactMatch)
    assert list(metric.tolerances) == list(DEFAULT_TOLERANCES) and metric.delta == 1e-6
