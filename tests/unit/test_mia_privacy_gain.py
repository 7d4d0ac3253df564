"""Membership-inference privacy gain (``spec/metrics.md`` P8): the attack sees through a
generator that publishes its training rows, not through one that keeps only marginals;
targets, feature maps, determinism and parameter errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from harness.checks import ContractData, contract_data
from harness.dtypes import conform
from harness.errors import ConfigError, IncomputableMetricError
from harness.instantiate import GeneratorBuilder
from harness.spec import DatasetSpec
from metrics.privacy.mia_features import FeatureMap
from metrics.privacy.mia_privacy_gain import MiaPrivacyGain

SMALL = dict(
    n_outliers=2, n_random=2, size_raw_A=300, size_raw_T=100, size_syn_T=100,
    n_shadows=6, n_syn_A=3, n_iter=4, n_syn_T=3, n_estimators=50, feature_set="histogram",
)  # fmt: skip


@pytest.fixture(scope="module")
def adult() -> ContractData:
    return contract_data("adult", n_train=300, n_control=100, n_test=100, seed=0)


def _pg(adult: ContractData, generator: str, seed: int = 1, **params: object) -> dict[str, float]:
    metric = MiaPrivacyGain(**{**SMALL, **params})  # type: ignore[arg-type]
    out = metric.compute(
        adult.train,
        adult.train,
        adult.spec,
        control=adult.control,
        seed=seed,
        generator=GeneratorBuilder(generator),
    )
    return {k: v.value for k, v in out.items()}


def test_publishing_the_training_rows_loses_to_the_attack(adult: ContractData) -> None:
    identity = _pg(adult, "identity")
    marginals = _pg(adult, "independent_marginals")
    assert set(identity) == {"all", "outliers", "random"}
    assert identity["all"] < 0.6  # the attacker wins most games against a copy of R
    assert marginals["all"] > 0.8  # marginals of 100 rows hardly reveal one record
    assert identity["all"] < marginals["all"]
    assert all(0.0 <= v <= 2.0 for v in [*identity.values(), *marginals.values()])


def test_same_seed_same_gain_and_details(adult: ContractData) -> None:
    params = dict(n_shadows=2, n_iter=2, n_syn_A=2, n_syn_T=2, n_estimators=10)
    metric = MiaPrivacyGain(**{**SMALL, **params})  # type: ignore[arg-type]
    runs = [
        metric.compute(adult.train, adult.train, adult.spec, control=adult.control, seed=4,
                       generator=GeneratorBuilder("independent_marginals"))
        for _ in range(2)
    ]  # fmt: skip
    assert {k: v.value for k, v in runs[0].items()} == {k: v.value for k, v in runs[1].items()}
    details = runs[0]["all"].details
    assert details["n_fits"] == 2 * (1 + 4) + 2 * (1 + 4)  # shared OUT fits + one IN fit per target
    assert details["size_raw_A"] == 300 and details["size_raw_T"] == 100
    assert details["n_population"] == 400  # train + control
    assert len(details["targets"]) == 4
    assert {t["group"] for t in details["targets"].values()} == {"outlier", "random"}


SPEC = DatasetSpec.from_dict(
    {"name": "toy", "columns": {"x": "continuous", "y": "continuous", "c": "categorical"}}
)


def test_outlier_targets_have_the_most_extreme_attributes() -> None:
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {"x": rng.normal(size=200), "y": np.zeros(200), "c": rng.choice(["a", "b"], size=200)}
    )
    frame.loc[7, ["x", "y"]] = [50.0, -50.0]  # outside on both attributes; every other row on x at most
    frame = conform(frame, SPEC)
    metric = MiaPrivacyGain(n_outliers=1, n_random=3)
    outliers, randoms = metric.select_targets(frame, SPEC, np.random.default_rng(0))
    assert outliers == [7]
    assert len(randoms) == 3 and 7 not in randoms


def test_feature_maps_have_fixed_coordinates() -> None:
    frame = conform(pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "y": [0.0, 0.0, 1.0, 1.0],
                                  "c": ["a", "b", "b", "c"]}), SPEC)  # fmt: skip
    naive = FeatureMap.fit(frame, SPEC, "naive")
    np.testing.assert_allclose(naive.transform(frame), [2.5, 2.5, 1.25, 0.5, 0.5, 0.25, 1, 0, 3])
    hist = FeatureMap.fit(frame, SPEC, "histogram", nbins=2)
    assert len(hist.transform(frame.iloc[:1])) == len(hist.transform(frame)) == 2 + 2 + 4
    corr = FeatureMap.fit(frame, SPEC, "correlations")
    assert len(corr.transform(frame)) == 6  # x, y and 2 one-hot columns: 4·3/2 pairs
    assert len(corr.transform(frame.iloc[:1])) == 6  # degenerate table: zeros, same length


def test_without_a_generator_it_is_incomputable(adult: ContractData) -> None:
    with pytest.raises(IncomputableMetricError, match="needs the generator"):
        MiaPrivacyGain().compute(adult.train, adult.train, adult.spec, control=adult.control, seed=0)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"n_outliers": 0, "n_random": 0}, "must be >= 1"),
        ({"n_random": -1}, "`n_random` must be an integer >= 0"),
        ({"size_raw_T": 0}, "`size_raw_T` must be an integer >= 1"),
        ({"n_iter": 1.5}, "`n_iter` must be an integer >= 1"),
        ({"feature_set": "deep"}, "`feature_set` must be one of"),
        ({"population": "everyone"}, "`population` must be one of"),
    ],
)
def test_bad_parameters_are_one_line_config_errors(params: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message) as info:
        MiaPrivacyGain(**params).validate_params()  # type: ignore[arg-type]
    assert "\n" not in str(info.value)
