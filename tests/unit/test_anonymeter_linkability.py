"""anonymeter_linkability (spec/metrics.md P1–P3): reference equality, seeding, the attacker's
column sets (default ``qi_rest`` and its fallback, presets ``_halves`` and ``_reference``)."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from harness.app import trial_config
from harness.checks import ContractData, contract_data
from harness.datasets import load_spec
from harness.encoding import canonical_row_order
from harness.errors import ConfigError, IncomputableMetricError
from harness.instantiate import build_metric
from harness.metric import MetricResult
from harness.preflight import compose_job, hydra_context, job_dict
from harness.spec import plain_dict
from metrics.privacy.anonymeter_linkability import (
    AnonymeterLinkability,
    applied_aux_split,
    cast_like,
    enable_numba_cache,
    seeded_anonymeter,
    split_aux_columns,
)

pytestmark = pytest.mark.filterwarnings("ignore:Attack is as good or worse:UserWarning")


@pytest.fixture(scope="module")
def adult() -> ContractData:
    return contract_data("adult", n_train=300, n_control=100, n_test=100, seed=0)


def _one(out: MetricResult | dict[str, MetricResult]) -> MetricResult:
    """The single result of the metric, with its CI (narrowed for the type checker)."""
    assert isinstance(out, MetricResult) and out.ci_low is not None and out.ci_high is not None
    return out


def _ci(out: MetricResult) -> tuple[float, float]:
    assert out.ci_low is not None and out.ci_high is not None
    return out.ci_low, out.ci_high


def _released(adult: ContractData) -> pd.DataFrame:
    """A release sharing half its rows with T."""
    return pd.concat([adult.train.iloc[:150], adult.test], ignore_index=True)


@pytest.mark.parametrize("aux_split", ["qi_rest", "halves"])
def test_equals_a_direct_anonymeter_call(adult: ContractData, aux_split: str) -> None:
    from anonymeter.evaluators import LinkabilityEvaluator

    synthetic = _released(adult)
    metric = AnonymeterLinkability(aux_split=aux_split, n_attacks=80, n_neighbors=3)
    out = _one(metric.compute(adult.train, synthetic, adult.spec, control=adult.control, seed=11))

    aux = split_aux_columns(adult.spec, aux_split)
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
    assert out.details["aux_split"] == out.details["aux_split_applied"] == aux_split
    assert out.details["baseline_warning"] == (results.baseline_rate.value >= results.attack_rate.value)
    low, high = _ci(out)
    assert 0.0 <= low <= out.value <= high <= 1.0


def test_same_seed_same_result_and_seeds_matter(adult: ContractData) -> None:
    synthetic = _released(adult)
    metric = AnonymeterLinkability(n_attacks=60, n_neighbors=2)

    def run(seed: int) -> tuple:
        r = _one(metric.compute(adult.train, synthetic, adult.spec, control=adult.control, seed=seed))
        return (r.value, r.ci_low, r.ci_high, r.baseline, r.details["n_success_main"])

    assert run(5) == run(5)
    assert len({run(seed) for seed in range(4)}) > 1


def test_row_order_of_the_release_does_not_matter(adult: ContractData) -> None:
    synthetic = _released(adult)
    shuffled = synthetic.sample(frac=1.0, random_state=3).reset_index(drop=True)
    metric = AnonymeterLinkability(n_attacks=60)
    a = _one(metric.compute(adult.train, synthetic, adult.spec, control=adult.control, seed=0))
    b = _one(metric.compute(adult.train, shuffled, adult.spec, control=adult.control, seed=0))
    assert (a.value, a.ci_low, a.ci_high, a.baseline) == (b.value, b.ci_low, b.ci_high, b.baseline)


def _legacy_keys() -> np.ndarray:
    """The key array of numpy's legacy global RNG state."""
    state = np.random.get_state()  # noqa: NPY002
    assert isinstance(state, tuple)
    return np.array(state[1], copy=True)


def test_seeding_is_restored_afterwards() -> None:
    import anonymeter.evaluators.linkability_evaluator as module

    np.random.seed(123)  # noqa: NPY002
    before = _legacy_keys()
    with seeded_anonymeter(7):
        assert module.np is not np
        first = module.np.random.default_rng().random()
        second = module.np.random.default_rng().random()
        assert first != second  # successive generators are independent streams
    assert module.np is np
    np.testing.assert_array_equal(_legacy_keys(), before)
    with seeded_anonymeter(7):
        assert module.np.random.default_rng().random() == first


def test_aux_splits(adult: ContractData) -> None:
    # default QI set, in schema order: age, education, marital-status, occupation, race, sex, native-country
    qi = ["age", "education", "marital-status", "occupation", "race", "sex", "native-country"]
    rest = ["workclass", "fnlwgt", "education-num", "relationship", "capital-gain", "capital-loss",
            "hours-per-week", "income"]  # fmt: skip
    assert split_aux_columns(adult.spec, "qi_rest") == (qi, rest)  # target and sensitive columns in B
    a, b = split_aux_columns(adult.spec, "halves")
    assert a == ["age", "education", "marital-status", "occupation"]
    assert b == ["race", "sex", "native-country"]
    assert split_aux_columns(adult.spec, "reference") == (["age"], ["sex"])
    assert AnonymeterLinkability().aux_split == "qi_rest"


def test_qi_rest_falls_back_to_halves_plus_the_leftover_column() -> None:
    # two_gaussians: Q = [x1, x2], the only other column is the class label
    gauss = load_spec("two_gaussians")
    assert split_aux_columns(gauss, "qi_rest") == (["x1"], ["x2", "label"])
    assert applied_aux_split(gauss, "qi_rest") == "halves+rest"
    # spectral_sim_p3: table order replicate, x1, x2, x3; Q = [x1, x2, x3]
    spectral = load_spec("spectral_sim_p3")
    assert split_aux_columns(spectral, "qi_rest") == (["x1"], ["x2", "x3", "replicate"])
    # a QI set covering the whole table: plain halves
    robin = load_spec("robin_hood_simulation")
    everything = dataclasses.replace(robin, qi_sets={"all": robin.table_columns}, active_qi="all")
    assert split_aux_columns(everything, "qi_rest") == (["age", "sex"], ["race", "outcome"])
    three = dataclasses.replace(robin, qi_sets={"all": ("age", "sex", "race")}, columns=robin.columns[:3])
    assert split_aux_columns(three, "qi_rest") == (["age"], ["sex", "race"])  # B takes the larger half
    assert applied_aux_split(everything, "qi_rest") == "halves+rest"
    # two non-QI columns are enough for qi_rest
    sd = load_spec("sd2011_raab")
    assert applied_aux_split(sd, "qi_rest") == "qi_rest"
    assert split_aux_columns(sd, "qi_rest")[1] == ["depress", "income", "ls", "marital", "workab"]


def test_fallback_is_recorded(adult: ContractData) -> None:
    spec = dataclasses.replace(adult.spec, qi_sets={"all": adult.spec.table_columns[:-1]}, active_qi="all")
    out = _one(
        AnonymeterLinkability(n_attacks=30).compute(
            adult.train, adult.train, spec, control=adult.control, seed=0
        )
    )
    assert out.details["aux_split"] == "qi_rest" and out.details["aux_split_applied"] == "halves+rest"
    assert out.details["aux_cols"][1][-1] == "income"


def test_one_column_qi_set(adult: ContractData) -> None:
    spec = dataclasses.replace(adult.spec, qi_sets={"one": ("age",)}, active_qi="one")
    for aux_split in ("halves", "reference"):
        with pytest.raises(IncomputableMetricError, match="at least 2 columns"):
            AnonymeterLinkability(aux_split=aux_split).compute(
                adult.train, adult.test, spec, control=adult.control, seed=0
            )
    a, b = split_aux_columns(spec, "qi_rest")  # qi_rest needs one QI and two other columns
    assert a == ["age"] and len(b) == len(adult.spec.table_columns) - 1
    out = _one(
        AnonymeterLinkability(n_attacks=30).compute(
            adult.train, adult.test, spec, control=adult.control, seed=0
        )
    )
    assert out.details["aux_cols"] == [a, b]
    one = dataclasses.replace(
        adult.spec, columns=adult.spec.columns[:1], qi_sets={"one": ("age",)}, active_qi="one"
    )
    with pytest.raises(IncomputableMetricError, match="needs at least 2 columns"):
        split_aux_columns(one, "qi_rest")


def test_no_qi_set_is_incomputable(adult: ContractData) -> None:
    spec = dataclasses.replace(adult.spec, qi_sets={}, active_qi=None)
    with pytest.raises(IncomputableMetricError, match="QI set"):
        split_aux_columns(spec, "qi_rest")


def test_n_attacks_default_and_cap(adult: ContractData) -> None:
    metric = AnonymeterLinkability(n_attacks=10**6)
    out = _one(metric.compute(adult.train, adult.test, adult.spec, control=adult.control, seed=0))
    assert out.details["n_attacks"] == 100 and out.details["n_attacks_requested"] == 10**6
    assert build_metric("anonymeter_linkability").get_params() == {
        "aux_split": "qi_rest",
        "n_attacks": None,
        "n_neighbors": 1,
        "confidence_level": 0.95,
        "n_jobs": 1,
    }


def test_presets_keep_the_published_settings() -> None:
    common = {"n_attacks": None, "confidence_level": 0.95, "n_jobs": 1}
    assert build_metric("anonymeter_linkability_halves").get_params() == {
        "aux_split": "halves", "n_neighbors": 1, **common,
    }  # fmt: skip
    assert type(build_metric("anonymeter_linkability_halves")) is AnonymeterLinkability


def _effective_metric_params(overrides: list[str]) -> dict[str, dict]:
    """Parameters of every suite metric of one composed job, profile and experiment overrides applied."""
    with hydra_context():
        cfg = compose_job(overrides)
    trial = trial_config(
        job_dict(cfg),
        plain_dict(cfg.hydra.runtime.choices),
        run_id="x",
        base_dir=Path("."),
        overrides=overrides,
    )
    return {name: build_metric(name, mcfg).get_params() for name, mcfg in trial.metrics.items()}


def test_reproductions_keep_their_published_linkability_settings() -> None:
    """The ε-PrivateSMOTE reproduction relied on the old default; it pins halves and reference."""
    paper = _effective_metric_params(["experiment=privatesmote_2024", "profile=paper"])
    assert paper["linkability"] == {
        "aux_split": "halves", "n_neighbors": 10, "n_attacks": None, "confidence_level": 0.95, "n_jobs": 1,
    }  # fmt: skip
    assert paper["linkability_reference"] == {**paper["linkability"], "aux_split": "reference"}
    quick = _effective_metric_params(
        ["experiment=privatesmote_2024", "profile=quick", "suite=privatesmote_2024_quick",
         "data.max_rows=2000", "metric_overrides.linkability.n_attacks=300"]
    )  # fmt: skip
    assert quick["linkability"] == {**paper["linkability"], "n_attacks": 300}
    quickstart = _effective_metric_params(["experiment=quickstart"])
    assert quickstart["anonymeter_linkability"]["aux_split"] == "qi_rest"
    assert quickstart["anonymeter_linkability"]["n_attacks"] == 300  # the quick profile


def test_raw_data_is_linkable_with_the_default_split(adult: ContractData) -> None:
    """Tracker issue 14: the halves split cannot tell the raw training table from a safe release."""
    metric = AnonymeterLinkability(n_attacks=100)
    raw = _one(metric.compute(adult.train, adult.train, adult.spec, control=adult.control, seed=0))
    fresh = _one(metric.compute(adult.train, adult.test, adult.spec, control=adult.control, seed=0))
    halves = _one(
        AnonymeterLinkability(aux_split="halves", n_attacks=100).compute(
            adult.train, adult.train, adult.spec, control=adult.control, seed=0
        )
    )
    assert raw.value >= 0.5 and _ci(raw)[0] > 0.3
    assert fresh.value <= 0.05
    assert halves.value < _ci(raw)[0]


def test_numba_kernels_are_cached_on_disk() -> None:
    enable_numba_cache()
    module = sys.modules["anonymeter.neighbors.mixed_types_kneighbors"]
    for kernel in (module.gower_distance, module._nearest_neighbors):
        assert type(kernel._cache).__name__ == "FunctionCache"


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"aux_split": "thirds"}, "`aux_split` must be one of"),
        ({"aux_split": "halves+rest"}, "`aux_split` must be one of"),
        ({"n_attacks": 0}, "`n_attacks` must be null or an integer >= 1"),
        ({"n_neighbors": 0}, "`n_neighbors` must be an integer >= 1"),
        ({"confidence_level": 1.0}, "`confidence_level` must be a number in"),
        ({"n_jobs": 0}, "`n_jobs` must be a non-zero integer"),
    ],
)
def test_bad_params(params: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        AnonymeterLinkability(**params).validate_params()
