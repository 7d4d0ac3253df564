"""range_coverage, boundary_adherence, category_coverage, attribute_coverage and
statistic_similarity (spec/metrics.md F1) against direct SDMetrics calls."""

from __future__ import annotations

import numpy as np
import pytest
from sdmetrics.single_column import BoundaryAdherence as SdmBoundary
from sdmetrics.single_column import CategoryCoverage as SdmCategoryCoverage
from sdmetrics.single_column import RangeCoverage as SdmRangeCoverage
from sdmetrics.single_column import StatisticSimilarity as SdmStatistic

from harness.checks import ContractData, contract_data
from harness.errors import ConfigError
from harness.instantiate import build_metric
from metrics.fidelity.sdmetrics_coverage import (
    AttributeCoverage,
    BoundaryAdherence,
    CategoryCoverage,
    RangeCoverage,
)
from metrics.fidelity.sdmetrics_statistic import StatisticSimilarity

NUMERIC = ("age", "fnlwgt", "capital-gain", "capital-loss", "hours-per-week")


@pytest.fixture(scope="module")
def adult() -> ContractData:
    return contract_data("adult", n_train=300, n_control=100, n_test=100, seed=0)


def _direct(sdm_cls, adult: ContractData, columns, **kwargs) -> dict[str, float]:
    out = {c: sdm_cls.compute(adult.train[c], adult.test[c], **kwargs) for c in columns}
    return {c: v for c, v in out.items() if not np.isnan(v)}


@pytest.mark.parametrize(
    ("metric", "sdm_cls", "kind", "kwargs"),
    [
        (RangeCoverage(), SdmRangeCoverage, "numeric_columns", {}),
        (BoundaryAdherence(), SdmBoundary, "numeric_columns", {}),
        (CategoryCoverage(), SdmCategoryCoverage, "categorical_columns", {}),
        (StatisticSimilarity("mean"), SdmStatistic, "numeric_columns", {"statistic": "mean"}),
        (StatisticSimilarity("median"), SdmStatistic, "numeric_columns", {"statistic": "median"}),
        (StatisticSimilarity("std"), SdmStatistic, "numeric_columns", {"statistic": "std"}),
    ],
)
def test_equals_direct_sdmetrics(adult: ContractData, metric, sdm_cls, kind: str, kwargs) -> None:
    out = metric.compute(adult.train, adult.test, adult.spec, seed=0)
    expected = _direct(sdm_cls, adult, getattr(adult.spec, kind), **kwargs)
    assert out.details["columns"] == pytest.approx(expected, abs=0)
    assert out.value == pytest.approx(np.mean(list(expected.values())), abs=1e-15)
    assert 0.0 <= out.value <= 1.0


def test_attribute_coverage_pools_range_and_category_coverage(adult: ContractData) -> None:
    out = AttributeCoverage().compute(adult.train, adult.test, adult.spec)
    ranges = _direct(SdmRangeCoverage, adult, adult.spec.numeric_columns)
    cats = _direct(SdmCategoryCoverage, adult, adult.spec.categorical_columns)
    assert out.details["columns"] == pytest.approx({**ranges, **cats}, abs=0)
    assert out.value == pytest.approx(np.mean([*ranges.values(), *cats.values()]), abs=1e-15)


@pytest.mark.parametrize(
    "metric",
    [
        RangeCoverage(),
        BoundaryAdherence(),
        CategoryCoverage(),
        AttributeCoverage(),
        StatisticSimilarity("median"),
    ],
)
def test_identical_data_scores_one(adult: ContractData, metric) -> None:
    assert metric.compute(adult.train, adult.train.copy(), adult.spec).value == 1.0


def test_out_of_range_release_loses_adherence_and_coverage(adult: ContractData) -> None:
    shifted = adult.train.copy()
    shifted["age"] = shifted["age"] + 100  # entirely above T's range
    adherence = BoundaryAdherence().compute(adult.train, shifted, adult.spec)
    coverage = RangeCoverage().compute(adult.train, shifted, adult.spec)
    assert adherence.details["columns"]["age"] == 0.0
    assert coverage.details["columns"]["age"] == 0.0
    assert adherence.value == pytest.approx(0.8)  # 4 of 5 numeric columns untouched


def test_constant_real_column_is_listed_incomputable(adult: ContractData) -> None:
    real = adult.train.copy()
    real["capital-loss"] = 0
    out = RangeCoverage().compute(real, adult.test, adult.spec)
    assert out.details["incomputable_columns"] == ["capital-loss"]
    assert set(out.details["columns"]) == set(NUMERIC) - {"capital-loss"}


def test_bad_statistic_is_a_one_line_config_error(adult: ContractData) -> None:
    with pytest.raises(ConfigError, match="`statistic` must be one of") as err:
        StatisticSimilarity("mode").compute(adult.train, adult.test, adult.spec)
    assert "\n" not in str(err.value)


def test_built_from_yaml() -> None:
    for name, cls in [
        ("range_coverage", RangeCoverage),
        ("boundary_adherence", BoundaryAdherence),
        ("category_coverage", CategoryCoverage),
        ("attribute_coverage", AttributeCoverage),
        ("statistic_similarity", StatisticSimilarity),
    ]:
        assert isinstance(build_metric(name), cls)
    assert build_metric("statistic_similarity").get_params() == {"statistic": "mean"}
