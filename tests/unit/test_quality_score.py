"""quality_score (spec/metrics.md F1) against a direct SDMetrics QualityReport."""

from __future__ import annotations

import warnings

import pytest
from sdmetrics.reports import QualityReport

from generators.sdv_models import metadata_dict
from harness.checks import ContractData, contract_data
from harness.errors import ConfigError
from harness.instantiate import build_metric
from metrics.fidelity.quality_score import QualityScore


@pytest.fixture(scope="module")
def adult() -> ContractData:
    return contract_data("adult", n_train=300, n_control=100, n_test=100, seed=0)


def _direct(adult: ContractData, corr: float | None = None, assoc: float | None = None) -> QualityReport:
    report = QualityReport()
    if corr is not None:
        report.real_correlation_threshold = corr
    if assoc is not None:
        report.real_association_threshold = assoc
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report.generate(
            {"t": adult.train}, {"t": adult.test}, {"tables": {"t": metadata_dict(adult.spec)}}, verbose=False
        )
    return report


def test_equals_direct_quality_report(adult: ContractData) -> None:
    out = QualityScore().compute(adult.train, adult.test, adult.spec)
    report = _direct(adult)  # SDMetrics' default thresholds
    assert out.value == pytest.approx(report.get_score(), abs=1e-12)
    props = report.get_properties().set_index("Property")["Score"]
    assert out.details["properties"]["Column Shapes"] == pytest.approx(props["Column Shapes"], abs=1e-12)
    assert out.details["properties"]["Column Pair Trends"] == pytest.approx(
        props["Column Pair Trends"], abs=1e-12
    )
    assert len(out.details["columns"]) == 15
    assert 0 < len(out.details["pairs"]) < out.details["n_pairs_total"] == 105


def test_thresholds_are_passed_on(adult: ContractData) -> None:
    out = QualityScore(real_correlation_threshold=0, real_association_threshold=0).compute(
        adult.train, adult.test, adult.spec
    )
    assert out.value == pytest.approx(_direct(adult, 0, 0).get_score(), abs=1e-12)
    assert len(out.details["pairs"]) == 105


def test_identical_data_scores_one(adult: ContractData) -> None:
    assert QualityScore().compute(adult.train, adult.train.copy(), adult.spec).value == pytest.approx(1.0)


def test_row_subsample_is_recorded(adult: ContractData) -> None:
    out = QualityScore(max_rows=120).compute(adult.train, adult.test, adult.spec, seed=5)
    assert (out.details["n_rows_real"], out.details["n_rows_synthetic"]) == (120, 100)
    assert out.details["max_rows"] == 120 and out.details["subsample_seed"] == 5


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"real_correlation_threshold": 1.5}, "`real_correlation_threshold` must be a number in"),
        ({"real_association_threshold": "high"}, "`real_association_threshold` must be a number in"),
        ({"max_rows": 1}, "`max_rows` must be null or an integer >= 2"),
    ],
)
def test_bad_params_are_one_line_config_errors(params, match: str) -> None:
    with pytest.raises(ConfigError, match=match) as err:
        QualityScore(**params).validate_params()
    assert "\n" not in str(err.value)


def test_built_from_yaml() -> None:
    assert build_metric("quality_score").get_params() == {
        "real_correlation_threshold": 0.5,
        "real_association_threshold": 0.3,
        "max_rows": None,
    }
