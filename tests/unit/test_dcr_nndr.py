"""dcr_nndr (spec/metrics.md P5): hand-computed cases, chunking, baseline, reference distances."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from harness.checks import ContractData, contract_data
from harness.encoding import TableEncoder
from harness.errors import ConfigError, IncomputableMetricError
from harness.instantiate import build_metric
from harness.spec import DatasetSpec
from metrics.privacy.dcr_nndr import STATISTICS, DcrNndr

SPEC = DatasetSpec.from_dict({"name": "square", "columns": {"x": "continuous", "y": "continuous"}})
# T spans [0, 1]^2, so min-max scaling is the identity.
TRAIN = pd.DataFrame({"x": [0.0, 1.0, 0.0, 1.0], "y": [0.0, 0.0, 1.0, 1.0]})
SYNTHETIC = pd.DataFrame({"x": [0.0, 0.5, 0.5], "y": [0.0, 0.0, 0.5]})


@pytest.fixture(scope="module")
def adult() -> ContractData:
    return contract_data("adult", n_train=300, n_control=100, n_test=100, seed=0)


def _values(out: dict) -> dict[str, float]:
    return {k: r.value for k, r in out.items()}


def test_hand_computed_k3() -> None:
    out = DcrNndr(n_neighbors=3).compute(TRAIN, SYNTHETIC, SPEC, seed=0)
    # q1 = (0,0): d = 0, 1, 1;  q2 = (.5,0): .5, .5, sqrt(1.25);  q3 = (.5,.5): sqrt(.5) x3
    d1 = np.array([0.0, 0.5, math.sqrt(0.5)])
    nndr = np.array([0.0, 1.0, 1.0])
    ratio = np.array([0.0, 0.5 / math.sqrt(1.25), 1.0])
    expected = {
        "dcr_mean": d1.mean(),
        "nndr_mean": 2 / 3,
        "ratio_1_10_mean": ratio.mean(),
        "dcr_p10": 0.2 * 0.5,  # linear interpolation at rank 0.2 between 0 and 0.5
        "nndr_p10": 0.2 * 1.0,
        "ratio_1_10_p10": 0.2 * ratio[1],
        "duplicates": 1.0,
    }
    assert set(out) == set(STATISTICS)
    for key, value in expected.items():
        assert out[key].value == pytest.approx(value, abs=1e-12), key
    assert nndr.mean() == pytest.approx(out["nndr_mean"].value)
    assert out["duplicates"].goal == "minimise"
    assert all(r.goal is None for k, r in out.items() if k != "duplicates")
    assert all(r.baseline is None for r in out.values())  # no control split


def test_zero_over_zero_ratios_are_ignored() -> None:
    train = pd.DataFrame({"x": [0.0, 0.0, 1.0], "y": [0.0, 0.0, 1.0]})
    synthetic = pd.DataFrame({"x": [0.0, 1.0], "y": [0.0, 0.0]})
    out = DcrNndr(n_neighbors=2).compute(train, synthetic, SPEC, seed=0)
    # q1 duplicates two T rows: d1 = d2 = 0 -> 0/0 dropped; q2 = (1,0): d = 1, 1 -> ratio 1
    assert out["nndr_mean"].value == 1.0
    assert out["nndr_mean"].details["n_nan_ratios"] == 1
    assert out["duplicates"].value == 1.0
    assert out["dcr_mean"].value == 0.5


def test_baseline_uses_control() -> None:
    control = pd.DataFrame({"x": [1.0, 0.5], "y": [1.0, 1.0]})
    out = DcrNndr(n_neighbors=3).compute(TRAIN, SYNTHETIC, SPEC, control=control, seed=0)
    alone = DcrNndr(n_neighbors=3).compute(TRAIN, control, SPEC, seed=0)
    for key in STATISTICS:
        assert out[key].baseline == alone[key].value, key
    assert out["duplicates"].baseline == 1.0
    assert out["dcr_mean"].baseline == pytest.approx(0.25)
    assert out["dcr_mean"].details["n_control"] == 2


@pytest.mark.parametrize("columns", ["all", "numeric"])
def test_chunking_gives_identical_results(adult: ContractData, columns: str) -> None:
    synthetic, control = adult.test.head(40), adult.control.head(20)
    outs = [
        DcrNndr(columns=columns, chunk_size=size).compute(
            adult.train, synthetic, adult.spec, control=control, seed=0
        )
        for size in (1, 3, 1000)
    ]
    for other in outs[1:]:
        for key in STATISTICS:
            assert other[key].value == outs[0][key].value, key
            assert other[key].baseline == outs[0][key].baseline, key


@pytest.mark.parametrize("columns", ["all", "numeric"])
def test_matches_a_full_distance_matrix(adult: ContractData, columns: str) -> None:
    spec, train, synthetic = adult.spec, adult.train, adult.test
    out = DcrNndr(columns=columns).compute(train, synthetic, spec, control=adult.control, seed=0)
    enc = TableEncoder(spec, columns=columns).fit(train, synthetic, adult.control)
    t, s = enc.transform(train), enc.transform(synthetic)
    dist = np.sort(np.sqrt(((s[:, None, :] - t[None, :, :]) ** 2).sum(axis=2)), axis=1)
    d1, d2, d10 = dist[:, 0], dist[:, 1], dist[:, 9]
    with np.errstate(invalid="ignore"):
        nndr, ratio = d1 / d2, d1 / d10
    assert out["dcr_mean"].value == pytest.approx(d1.mean(), rel=1e-12)
    assert out["nndr_mean"].value == pytest.approx(np.nanmean(nndr), rel=1e-12)
    assert out["ratio_1_10_mean"].value == pytest.approx(np.nanmean(ratio), rel=1e-12)
    assert out["dcr_p10"].value == pytest.approx(np.percentile(d1, 10), rel=1e-12)
    assert out["nndr_p10"].value == pytest.approx(np.nanpercentile(nndr, 10), rel=1e-12)
    assert out["duplicates"].value == np.count_nonzero(d1 == 0)
    expected_algorithm = "kd_tree" if columns == "numeric" else "brute"
    assert out["dcr_mean"].details["algorithm"] == expected_algorithm


def test_identical_release_is_all_duplicates(adult: ContractData) -> None:
    # the brute-force path (one-hot space) must report exact zeros, not ~1e-8
    out = DcrNndr(columns="all").compute(adult.train, adult.train, adult.spec, control=adult.control, seed=0)
    assert out["dcr_mean"].value == 0.0
    assert out["duplicates"].value == len(adult.train)
    assert out["dcr_mean"].baseline > 0.0


def test_max_rows_subsample_is_seeded_and_recorded(adult: ContractData) -> None:
    metric = DcrNndr(max_rows=40)
    a = metric.compute(adult.train, adult.test, adult.spec, control=adult.control, seed=3)
    b = metric.compute(adult.train, adult.test, adult.spec, control=adult.control, seed=3)
    assert _values(a) == _values(b)
    shuffled = adult.test.sample(frac=1.0, random_state=5)
    c = metric.compute(adult.train, shuffled, adult.spec, control=adult.control, seed=3)
    assert _values(c) == pytest.approx(_values(a), rel=1e-12)  # the subsample ignores row order
    assert a["dcr_mean"].details["n_query"] == 40 and a["dcr_mean"].details["n_control"] == 40
    assert a["dcr_mean"].details["subsample_seed"] == 3
    full = DcrNndr().compute(adult.train, adult.test, adult.spec, control=adult.control, seed=3)
    assert full["dcr_mean"].details["n_query"] == 100 and "subsample_seed" not in full["dcr_mean"].details


def test_built_from_yaml() -> None:
    metric = build_metric("dcr_nndr")
    assert metric.get_params() == {
        "columns": "all",
        "n_neighbors": 10,
        "chunk_size": 10_000,
        "max_rows": None,
    }


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"columns": "mixed"}, "`columns` must be one of"),
        ({"n_neighbors": 1}, "`n_neighbors` must be an integer >= 2"),
        ({"chunk_size": 0}, "`chunk_size` must be an integer >= 1"),
        ({"max_rows": 0}, "`max_rows` must be null or an integer >= 1"),
    ],
)
def test_bad_params(params: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        DcrNndr(**params).validate_params()


def test_too_few_training_rows_is_incomputable() -> None:
    with pytest.raises(IncomputableMetricError, match="at least n_neighbors=10"):
        DcrNndr().compute(TRAIN, SYNTHETIC, SPEC, seed=0)
