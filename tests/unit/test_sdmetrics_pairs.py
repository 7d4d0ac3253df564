"""correlation_similarity and contingency_similarity (spec/metrics.md F1) against direct
SDMetrics calls; independent marginals lose them."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from sdmetrics.column_pairs import ContingencySimilarity as SdmContingency
from sdmetrics.column_pairs import CorrelationSimilarity as SdmCorrelation

from harness.checks import ContractData, contract_data
from harness.dtypes import conform
from harness.errors import ConfigError
from harness.instantiate import build_generator, build_metric
from harness.spec import ColumnSpec, DatasetSpec
from metrics.fidelity.sdmetrics_pairs import ContingencySimilarity, CorrelationSimilarity

NUMERIC = ["age", "fnlwgt", "capital-gain", "capital-loss", "hours-per-week"]


@pytest.fixture(scope="module")
def adult() -> ContractData:
    return contract_data("adult", n_train=300, n_control=100, n_test=100, seed=0)


def dependent_table(n: int, seed: int) -> tuple[DatasetSpec, pd.DataFrame]:
    """Strongly dependent numeric and categorical columns."""
    spec = DatasetSpec(
        name="dependent",
        columns=(
            ColumnSpec("x", "continuous"),
            ColumnSpec("y", "continuous"),
            ColumnSpec("z", "integer"),
            ColumnSpec("c", "categorical"),
            ColumnSpec("d", "categorical"),
        ),
    )
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    c = np.where(x > 0, "hi", "lo")
    flip = rng.random(n) < 0.1
    frame = pd.DataFrame(
        {
            "x": x,
            "y": x + 0.3 * rng.normal(size=n),
            "z": np.rint(-3 * x + rng.normal(size=n)),
            "c": c,
            "d": np.where(flip, np.where(c == "hi", "lo", "hi"), c),
        }
    )
    return spec, conform(frame, spec)


@pytest.mark.parametrize("coefficient", ["Pearson", "Spearman"])
def test_correlation_equals_direct_sdmetrics(adult: ContractData, coefficient: str) -> None:
    out = CorrelationSimilarity(coefficient=coefficient).compute(adult.train, adult.test, adult.spec)
    expected = {}
    for a, b in itertools.combinations(NUMERIC, 2):
        expected[f"{a}|{b}"] = SdmCorrelation.compute(
            adult.train[[a, b]], adult.test[[a, b]], coefficient=coefficient
        )
    assert out.details["pairs"] == pytest.approx(expected, abs=1e-15)
    assert out.value == pytest.approx(np.mean(list(expected.values())), abs=1e-15)
    assert out.details["n_pairs_total"] == 10


def test_contingency_equals_direct_sdmetrics(adult: ContractData) -> None:
    out = ContingencySimilarity().compute(adult.train, adult.test, adult.spec)
    columns = list(adult.spec.table_columns)
    expected = {}
    for a, b in itertools.combinations(columns, 2):
        continuous = [c for c in (a, b) if c in NUMERIC] or None
        expected[f"{a}|{b}"] = SdmContingency.compute(
            adult.train[[a, b]].copy(), adult.test[[a, b]].copy(), continuous_column_names=continuous
        )
    assert len(expected) == 105
    assert out.details["pairs"] == pytest.approx(expected, abs=1e-12)
    assert out.value == pytest.approx(np.mean(list(expected.values())), abs=1e-12)


@pytest.mark.parametrize("metric", [CorrelationSimilarity(), ContingencySimilarity()])
def test_identical_data_scores_one(adult: ContractData, metric) -> None:
    assert metric.compute(adult.train, adult.train.copy(), adult.spec).value == pytest.approx(1.0, abs=1e-12)


def test_independent_marginals_lose_pair_fidelity() -> None:
    spec, train = dependent_table(400, seed=0)
    _, holdout = dependent_table(400, seed=1)
    independent = build_generator("independent_marginals").fit(train, spec, seed=0).sample()
    for metric in (CorrelationSimilarity(), ContingencySimilarity()):
        same_law = metric.compute(train, holdout, spec).value
        broken = metric.compute(train, independent, spec).value
        assert same_law > 0.85  # a real sample of the same law: only sampling noise
        assert broken < same_law - 0.25, (metric.name, same_law, broken)


def test_subsampling_is_seeded_recorded_and_order_invariant(adult: ContractData) -> None:
    metric = ContingencySimilarity(max_rows=150, max_pairs=12)
    out = metric.compute(adult.train, adult.test, adult.spec, seed=3)
    shuffled = adult.test.sample(frac=1.0, random_state=1).reset_index(drop=True)
    again = metric.compute(adult.train, shuffled, adult.spec, seed=3)
    other_seed = metric.compute(adult.train, adult.test, adult.spec, seed=4)
    assert out.value == again.value
    assert set(out.details["pairs"]) != set(other_seed.details["pairs"])
    assert out.details["n_pairs"] == 12
    assert out.details["n_rows_real"] == 150 and out.details["n_rows_synthetic"] == 100
    assert out.details["subsample_seed"] == 3 and out.details["max_pairs"] == 12


@pytest.mark.parametrize(
    ("metric", "match"),
    [
        (CorrelationSimilarity(coefficient="Kendall"), "`coefficient` must be one of"),
        (CorrelationSimilarity(max_rows=0), "`max_rows` must be null or an integer >= 2"),
        (ContingencySimilarity(num_discrete_bins=0), "`num_discrete_bins` must be an integer >= 1"),
        (ContingencySimilarity(max_pairs="all"), "`max_pairs` must be null or an integer >= 1"),
    ],
)
def test_bad_params_are_one_line_config_errors(adult: ContractData, metric, match: str) -> None:
    with pytest.raises(ConfigError, match=match) as err:
        metric.compute(adult.train, adult.test, adult.spec)
    assert "\n" not in str(err.value)


def test_built_from_yaml() -> None:
    assert build_metric("correlation_similarity").get_params() == {
        "coefficient": "Pearson",
        "max_rows": None,
        "max_pairs": None,
    }
    assert isinstance(build_metric("contingency_similarity"), ContingencySimilarity)
