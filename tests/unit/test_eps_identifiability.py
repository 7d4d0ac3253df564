"""eps_identifiability (spec/metrics.md P12): hand-computed cases, entropy weights, reference distances."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest

from harness.checks import uniform_release
from harness.encoding import TableEncoder
from harness.errors import ConfigError, IncomputableMetricError
from harness.instantiate import build_metric
from harness.metric import BaseMetric, MetricResult
from harness.registry import read_config
from harness.spec import DatasetSpec
from metrics.privacy.eps_identifiability import EpsIdentifiability, column_weights

LINE = DatasetSpec.from_dict({"name": "line", "columns": {"x": "continuous"}})
MIXED = DatasetSpec.from_dict(
    {
        "name": "mixed",
        "columns": {"x": "continuous", "n": "integer", "c": "categorical", "d": "categorical"},
    }
)


def _run(metric: BaseMetric, *args: Any, **kwargs: Any) -> MetricResult:
    """``metric.compute`` of a single-output metric (typed for mypy)."""
    out = metric.compute(*args, **kwargs)
    assert isinstance(out, MetricResult)
    return out


def _mixed(rng: np.random.Generator, size: int, n_categories: int = 3) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "x": rng.normal(0, 1, size),
            "n": rng.integers(0, 6, size),
            "c": rng.choice([f"c{i}" for i in range(n_categories)], size, p=None),
            "d": rng.choice(["u", "v"], size, p=[0.9, 0.1]),
        }
    )


def test_hand_computed_line() -> None:
    train = pd.DataFrame({"x": [0.0, 1.0, 3.0, 10.0]})
    synthetic = pd.DataFrame({"x": [0.5, 9.0]})
    out = _run(EpsIdentifiability(), train, synthetic, LINE, seed=0)
    # scaled by T's range 10: r = .1, .1, .2, .7; r_hat = .05, .05, .25, .1 -> 3 of 4 closer
    assert out.value == 0.75
    assert out.details["n_identifiable"] == 3
    # four values in four different bins of 20: H = ln 4
    assert out.details["column_entropy"]["x"] == pytest.approx(math.log(4))
    assert out.details["column_weight"]["x"] == pytest.approx(1 / math.log(4))


def test_copies_versus_far_release() -> None:
    rng = np.random.default_rng(0)
    train = _mixed(rng, 60)
    copies = _run(EpsIdentifiability(), train, train.copy(), MIXED, seed=0)
    duplicates = copies.details["n_train_duplicates"]
    assert copies.value == pytest.approx(1 - duplicates / len(train))  # only T's own duplicates escape
    far = train.assign(x=train["x"] + 100.0)
    assert _run(EpsIdentifiability(), train, far, MIXED, seed=0).value == 0.0


def test_duplicated_training_rows_are_not_identifiable() -> None:
    train = pd.DataFrame({"x": [0.0, 0.0, 5.0, 10.0]})
    out = _run(EpsIdentifiability(), train, train.copy(), LINE, seed=0)
    assert out.value == 0.5  # rows 0 and 1 have r = 0: no release row can be strictly closer
    assert out.details["n_train_duplicates"] == 2


def test_identical_release_is_riskier_than_degraded() -> None:
    rng = np.random.default_rng(1)
    train = _mixed(rng, 80)
    identical = _run(EpsIdentifiability(), train, train.copy(), MIXED, seed=0).value
    degraded = _run(EpsIdentifiability(), train, uniform_release(train, MIXED, seed=0), MIXED, seed=0).value
    assert identical > degraded


def _reference(train: pd.DataFrame, synthetic: pd.DataFrame, spec: DatasetSpec) -> float:
    """Dense implementation: weighted E, full distance matrices."""
    encoder = TableEncoder(spec, columns="all").fit(train, synthetic)
    t = encoder.transform(train)
    weights, _ = column_weights(train, spec, encoder, t, 20)
    t, s = t * weights, encoder.transform(synthetic) * weights
    d_tt = np.sqrt(((t[:, None, :] - t[None, :, :]) ** 2).sum(axis=2))
    np.fill_diagonal(d_tt, np.inf)
    d_ts = np.sqrt(((t[:, None, :] - s[None, :, :]) ** 2).sum(axis=2))
    return float(np.mean(d_ts.min(axis=1) < d_tt.min(axis=1)))


@pytest.mark.parametrize("n_categories", [3, 30])  # 30 categories: > 20 features, brute-force search
@pytest.mark.parametrize("chunk_size", [1, 7, 10_000])
def test_matches_dense_reference(n_categories: int, chunk_size: int) -> None:
    rng = np.random.default_rng(n_categories)
    train, synthetic = _mixed(rng, 70, n_categories), _mixed(rng, 50, n_categories)
    synthetic.iloc[:10] = train.iloc[:10].to_numpy()  # some exact copies
    value = _run(EpsIdentifiability(chunk_size=chunk_size), train, synthetic, MIXED, seed=0).value
    assert value == pytest.approx(_reference(train, synthetic, MIXED), abs=1e-12)


def test_entropy_weights() -> None:
    train = pd.DataFrame(
        {"x": [0.0, 0.0, 10.0, 10.0], "n": [1, 2, 3, None], "c": ["a", "a", "b", None], "d": ["k"] * 4}
    ).astype({"n": "Int64"})
    encoder = TableEncoder(MIXED, columns="all").fit(train)
    weights, entropy = column_weights(train, MIXED, encoder, encoder.transform(train), 20)
    assert entropy["x"] == pytest.approx(math.log(2))  # two bins, half each
    assert entropy["n"] == pytest.approx(math.log(4))  # three bins and the NA bin
    assert entropy["c"] == pytest.approx(-(0.5 * math.log(0.5) + 2 * 0.25 * math.log(0.25)))
    assert entropy["d"] == 0.0
    by_feature = dict(zip(encoder.feature_names, weights))
    assert by_feature["n__isna"] == by_feature["n"] == pytest.approx(1 / math.log(4))
    assert by_feature["c=<NA>"] == by_feature["c=a"] == pytest.approx(1 / entropy["c"])
    assert by_feature["d=k"] == 0.0


def test_constant_training_column_is_ignored() -> None:
    rng = np.random.default_rng(5)
    train = _mixed(rng, 40).assign(d="u")
    synthetic = _mixed(rng, 40).assign(d="v")  # differs from T only in a column T does not vary
    value = _run(EpsIdentifiability(), train, synthetic, MIXED, seed=0).value
    assert value == _run(EpsIdentifiability(), train, synthetic.assign(d="u"), MIXED, seed=0).value


def test_row_order_invariance() -> None:
    rng = np.random.default_rng(2)
    train, synthetic = _mixed(rng, 60), _mixed(rng, 60)
    base = _run(EpsIdentifiability(), train, synthetic, MIXED, seed=0).value
    shuffled = _run(
        EpsIdentifiability(),
        train.sample(frac=1.0, random_state=0),
        synthetic.sample(frac=1.0, random_state=1),
        MIXED,
        seed=0,
    ).value
    assert base == shuffled


def test_single_training_row_is_incomputable() -> None:
    with pytest.raises(IncomputableMetricError, match="at least 2 training rows"):
        _run(EpsIdentifiability(), pd.DataFrame({"x": [1.0]}), pd.DataFrame({"x": [1.0]}), LINE, seed=0)


def test_constant_table_is_incomputable() -> None:
    train = pd.DataFrame({"x": [1.0, 1.0, 1.0]})
    with pytest.raises(IncomputableMetricError, match="constant"):
        _run(EpsIdentifiability(), train, train.copy(), LINE, seed=0)


@pytest.mark.parametrize(
    ("params", "key"),
    [({"n_bins": 1}, "n_bins"), ({"n_bins": "20"}, "n_bins"), ({"chunk_size": 0}, "chunk_size")],
)
def test_bad_params_raise_one_line_config_error(params: dict, key: str) -> None:
    with pytest.raises(ConfigError) as info:
        EpsIdentifiability(**params).validate_params()
    assert f"`{key}`" in str(info.value) and "\n" not in str(info.value)


def test_yaml_builds_with_spec_defaults() -> None:
    metric = build_metric("eps_identifiability", read_config("metric", "eps_identifiability"))
    assert isinstance(metric, EpsIdentifiability)
    assert metric.get_params() == {"n_bins": 20, "chunk_size": 10_000}
