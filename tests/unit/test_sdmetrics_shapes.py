"""ks_complement and tv_complement (spec/metrics.md F1) against direct SDMetrics calls."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from sdmetrics.single_column import KSComplement as SdmKS
from sdmetrics.single_column import TVComplement as SdmTV

from harness.checks import ContractData, contract_data
from harness.errors import IncomputableMetricError
from harness.instantiate import build_metric
from harness.spec import ColumnSpec
from metrics.fidelity.sdmetrics_shapes import KSComplement, TVComplement

CASES = [(KSComplement, SdmKS, "numeric_columns"), (TVComplement, SdmTV, "categorical_columns")]


@pytest.fixture(scope="module")
def adult() -> ContractData:
    return contract_data("adult", n_train=300, n_control=100, n_test=100, seed=0)


@pytest.mark.parametrize(("metric_cls", "sdm_cls", "kind"), CASES)
def test_equals_direct_sdmetrics(adult: ContractData, metric_cls, sdm_cls, kind: str) -> None:
    out = metric_cls().compute(adult.train, adult.test, adult.spec, seed=0)
    columns = getattr(adult.spec, kind)
    expected = {c: sdm_cls.compute(adult.train[c], adult.test[c]) for c in columns}
    assert out.details["columns"] == pytest.approx(expected, abs=0)
    assert out.value == pytest.approx(np.mean(list(expected.values())), abs=1e-15)
    assert 0.0 < out.value < 1.0


@pytest.mark.parametrize(("metric_cls", "sdm_cls", "kind"), CASES)
def test_identical_data_scores_one(adult: ContractData, metric_cls, sdm_cls, kind: str) -> None:
    assert metric_cls().compute(adult.train, adult.train.copy(), adult.spec).value == 1.0


def test_missing_values_follow_sdmetrics(adult: ContractData) -> None:
    synthetic = adult.test.copy()
    synthetic.loc[:49, "workclass"] = np.nan
    synthetic["occupation"] = np.nan  # nothing left to compare: left out of the mean
    out = TVComplement().compute(adult.train, synthetic, adult.spec)
    assert out.details["incomputable_columns"] == ["occupation"]
    assert "occupation" not in out.details["columns"]
    assert out.details["columns"]["workclass"] == SdmTV.compute(
        adult.train["workclass"], synthetic["workclass"]
    )


def test_no_column_of_the_kind_is_incomputable(adult: ContractData) -> None:
    only_categorical = tuple(
        c if not c.is_numeric else ColumnSpec(name=c.name, kind="categorical") for c in adult.spec.columns
    )
    spec = dataclasses.replace(adult.spec, columns=only_categorical)
    with pytest.raises(IncomputableMetricError, match="no numeric column"):
        KSComplement().compute(adult.train, adult.test, spec)


def test_built_from_yaml() -> None:
    assert isinstance(build_metric("ks_complement"), KSComplement)
    assert isinstance(build_metric("tv_complement"), TVComplement)
    assert build_metric("ks_complement").get_params() == {}
