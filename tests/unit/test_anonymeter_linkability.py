"""anonymeter_linkability (spec/metrics.md P1–P3): reference equality, seeding, QI handling."""

from __future__ import annotations

import dataclasses
import sys

import numpy as np
import pandas as pd
import pytest

from harness.checks import ContractData, contract_data
from harness.encoding import canonical_row_order
from harness.errors import ConfigError, IncomputableMetricError
from harness.instantiate import build_metric
from metrics.privacy.anonymeter_linkability import (
    AnonymeterLinkability,
    cast_like,
    enable_numba_cache,
    seeded_anonymeter,
    split_aux_columns,
)

pytestmark = pytest.mark.filterwarnings("ignore:Attack is as good or worse:UserWarning")


@pytest.fixture(scope="module")
def adult() -> ContractData:
    return contract_data("adult", n_train=300, n_control=100, n_test=100, seed=0)


def _released(adult: ContractData) -> pd.DataFrame:
    """A release sharing half its rows with T."""
    return pd.concat([adult.train.iloc[:150], adult.test], ignore_index=True)


def test_equals_a_direct_anonymeter_call(adult: ContractData) -> None:
    from anonymeter.evaluators import LinkabilityEvaluator

    synthetic = _released(adult)
    metric = AnonymeterLinkability(n_attacks=80, n_neighbors=3)
    out = metric.compute(adult.train, synthetic, adult.spec, control=adult.control, seed=11)

    aux = split_aux_columns(adult.spec, "halves")
    with seeded_anonymeter(11):
        evaluator = LinkabilityEvaluator(
            ori=canonical_row_order(adult.train),
            syn=canonical_row_order(cast_like(synthetic, adult.train)),
            control=canonical_row_order(cast_like(adult.control, adult.train)),
            aux_cols=aux,
            n_attacks=80,
            n_neighbors=3,
        ).evaluate(n_jobs=1)
    risk = evaluator.risk(confidence_level=0.95)
    results = evaluator.results(confidence_level=0.95)
    assert out.value == risk.value
    assert (out.ci_low, out.ci_high) == risk.ci
    assert out.baseline == results.baseline_rate.value
    assert out.details["rate_main"] == results.attack_rate.value
    assert out.details["rate_control"] == results.control_rate.value
    assert out.details["rate_main_error"] == results.attack_rate.error
    assert out.details["n_attacks"] == 80
    assert out.details["aux_cols"] == [list(aux[0]), list(aux[1])]
    assert out.details["baseline_warning"] == (results.baseline_rate.value >= results.attack_rate.value)
    assert 0.0 <= out.ci_low <= out.value <= out.ci_high <= 1.0


def test_same_seed_same_result_and_seeds_matter(adult: ContractData) -> None:
    synthetic = _released(adult)
    metric = AnonymeterLinkability(n_attacks=60, n_neighbors=2)

    def run(seed: int) -> tuple:
        r = metric.compute(adult.train, synthetic, adult.spec, control=adult.control, seed=seed)
        return (r.value, r.ci_low, r.ci_high, r.baseline, r.details["n_success_main"])

    assert run(5) == run(5)
    assert len({run(seed) for seed in range(4)}) > 1


def test_row_order_of_the_release_does_not_matter(adult: ContractData) -> None:
    synthetic = _released(adult)
    shuffled = synthetic.sample(frac=1.0, random_state=3).reset_index(drop=True)
    metric = AnonymeterLinkability(n_attacks=60)
    a = metric.compute(adult.train, synthetic, adult.spec, control=adult.control, seed=0)
    b = metric.compute(adult.train, shuffled, adult.spec, control=adult.control, seed=0)
    assert (a.value, a.ci_low, a.ci_high, a.baseline) == (b.value, b.ci_low, b.ci_high, b.baseline)


def test_seeding_is_restored_afterwards() -> None:
    import anonymeter.evaluators.linkability_evaluator as module

    np.random.seed(123)  # noqa: NPY002
    before = np.random.get_state()[1].copy()  # noqa: NPY002
    with seeded_anonymeter(7):
        assert module.np is not np
        first = module.np.random.default_rng().random()
        second = module.np.random.default_rng().random()
        assert first != second  # successive generators are independent streams
    assert module.np is np
    np.testing.assert_array_equal(np.random.get_state()[1], before)  # noqa: NPY002
    with seeded_anonymeter(7):
        assert module.np.random.default_rng().random() == first


def test_aux_splits(adult: ContractData) -> None:
    # default QI set, in schema order: age, education, marital-status, occupation, race, sex, native-country
    a, b = split_aux_columns(adult.spec, "halves")
    assert a == ["age", "education", "marital-status", "occupation"]
    assert b == ["race", "sex", "native-country"]
    assert split_aux_columns(adult.spec, "reference") == (["age"], ["sex"])


def test_one_column_qi_set_is_incomputable(adult: ContractData) -> None:
    spec = dataclasses.replace(adult.spec, qi_sets={"one": ("age",)}, active_qi="one")
    with pytest.raises(IncomputableMetricError, match="at least 2 columns"):
        AnonymeterLinkability().compute(adult.train, adult.test, spec, control=adult.control, seed=0)


def test_n_attacks_default_and_cap(adult: ContractData) -> None:
    out = AnonymeterLinkability(n_attacks=10**6).compute(
        adult.train, adult.test, adult.spec, control=adult.control, seed=0
    )
    assert out.details["n_attacks"] == 100 and out.details["n_attacks_requested"] == 10**6
    assert build_metric("anonymeter_linkability").get_params() == {
        "aux_split": "halves",
        "n_attacks": None,
        "n_neighbors": 1,
        "confidence_level": 0.95,
        "n_jobs": 1,
    }


def test_numba_kernels_are_cached_on_disk() -> None:
    enable_numba_cache()
    module = sys.modules["anonymeter.neighbors.mixed_types_kneighbors"]
    for kernel in (module.gower_distance, module._nearest_neighbors):
        assert type(kernel._cache).__name__ == "FunctionCache"


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"aux_split": "thirds"}, "`aux_split` must be one of"),
        ({"n_attacks": 0}, "`n_attacks` must be null or an integer >= 1"),
        ({"n_neighbors": 0}, "`n_neighbors` must be an integer >= 1"),
        ({"confidence_level": 1.0}, "`confidence_level` must be a number in"),
        ({"n_jobs": 0}, "`n_jobs` must be a non-zero integer"),
    ],
)
def test_bad_params(params: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        AnonymeterLinkability(**params).validate_params()
