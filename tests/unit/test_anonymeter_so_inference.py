"""Anonymeter singling-out and inference metrics (``spec/metrics.md`` P1, P3): equal to a
direct Anonymeter call with the same data and seed, deterministic across processes, and
their parameters validated with one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pandas as pd
import pytest

from harness.checks import ContractData, contract_data
from harness.encoding import canonical_row_order
from harness.errors import ConfigError, IncomputableMetricError
from harness.instantiate import build_metric
from harness.metric import MetricResult
from harness.seeding import derive_seed
from metrics.privacy.anonymeter_inference import AnonymeterInference
from metrics.privacy.anonymeter_singling_out import AnonymeterSinglingOut
from metrics.privacy.anonymeter_support import cast_like, seeded_anonymeter, stable_polars_order

pytestmark = pytest.mark.filterwarnings("ignore:Attack is as good or worse:UserWarning")


@pytest.fixture(scope="module")
def adult() -> ContractData:
    return contract_data("adult", n_train=300, n_control=100, n_test=100, seed=0)


def _many(out: MetricResult | dict[str, MetricResult]) -> dict[str, MetricResult]:
    """The named outputs of a multi-output metric (narrowed for the type checker)."""
    assert isinstance(out, dict)
    return out


def _released(adult: ContractData) -> pd.DataFrame:
    """A release sharing half its rows with T."""
    return pd.concat([adult.train.iloc[:150], adult.test], ignore_index=True)


def test_singling_out_equals_a_direct_anonymeter_call(adult: ContractData) -> None:
    from anonymeter.evaluators import SinglingOutEvaluator

    synthetic = _released(adult)
    metric = AnonymeterSinglingOut(n_attacks=40, max_attempts=4000)
    out = _many(metric.compute(adult.train, synthetic, adult.spec, control=adult.control, seed=3))
    assert set(out) == {"univariate", "multivariate"}
    for mode in ("univariate", "multivariate"):
        mode_seed = derive_seed(3, "anonymeter_singling_out", mode)
        with seeded_anonymeter(mode_seed), stable_polars_order():
            evaluator = SinglingOutEvaluator(
                ori=canonical_row_order(adult.train),
                syn=canonical_row_order(cast_like(synthetic, adult.train)),
                control=canonical_row_order(cast_like(adult.control, adult.train)),
                n_attacks=40,
                n_cols=3,
                max_attempts=4000,
                seed=mode_seed,
            ).evaluate(mode=mode)
        risk = evaluator.risk(confidence_level=0.95)
        results = evaluator.results(confidence_level=0.95)
        assert out[mode].value == risk.value
        assert (out[mode].ci_low, out[mode].ci_high) == risk.ci
        assert out[mode].baseline == results.baseline_rate.value
        assert out[mode].details["n_success_main"] == results.n_success
        assert out[mode].details["n_queries"] == len(evaluator.queries())
    # half of the release is training rows: some predicates isolate a training record
    assert out["univariate"].details["n_success_main"] > 0


@pytest.mark.parametrize("aux", ["all", "qi"])
def test_inference_equals_a_direct_anonymeter_call(adult: ContractData, aux: str) -> None:
    from anonymeter.evaluators import InferenceEvaluator

    synthetic = _released(adult)
    metric = AnonymeterInference(n_attacks=80, aux=aux)
    out = _many(metric.compute(adult.train, synthetic, adult.spec, control=adult.control, seed=5))
    assert set(out) == {"income", "capital-gain", "capital-loss", "max"}  # Adult's sensitive columns
    known = set(adult.spec.qi) if aux == "qi" else set(adult.spec.table_columns)
    for secret in ("income", "capital-gain"):
        aux_cols = [c for c in adult.spec.table_columns if c in known and c != secret]
        with seeded_anonymeter(derive_seed(5, "anonymeter_inference", secret)):
            evaluator = InferenceEvaluator(
                ori=canonical_row_order(adult.train),
                syn=canonical_row_order(cast_like(synthetic, adult.train)),
                control=canonical_row_order(cast_like(adult.control, adult.train)),
                aux_cols=aux_cols,
                secret=secret,
                regression=secret == "capital-gain",
                n_attacks=80,
            ).evaluate(n_jobs=1)
        risk = evaluator.risk(confidence_level=0.95)
        assert out[secret].value == risk.value
        assert (out[secret].ci_low, out[secret].ci_high) == risk.ci
        assert out[secret].details["aux_cols"] == aux_cols
        assert out[secret].details["regression"] == (secret == "capital-gain")
    top = max(("income", "capital-gain", "capital-loss"), key=lambda s: out[s].value)
    assert out["max"].value == out[top].value
    assert out["max"].details["secret"] == top


def test_secrets_default_to_the_target_and_are_validated(adult: ContractData) -> None:
    import dataclasses

    spec = dataclasses.replace(adult.spec, sensitive=())
    out = _many(
        AnonymeterInference(n_attacks=30).compute(
            adult.train, adult.test, spec, control=adult.control, seed=0
        )
    )
    assert set(out) == {"income", "max"}
    with pytest.raises(ConfigError, match="`secrets` names unknown column"):
        AnonymeterInference(secrets=["salary"]).compute(
            adult.train, adult.test, spec, control=adult.control, seed=0
        )
    only = dataclasses.replace(adult.spec, qi_sets={"one": ("income",)}, active_qi="one")
    with pytest.raises(IncomputableMetricError, match="no auxiliary column left"):
        AnonymeterInference(secrets=["income"], aux="qi").compute(
            adult.train, adult.test, only, control=adult.control, seed=0
        )
    everything_else = [c for c in adult.spec.table_columns if c != "income"]
    assert AnonymeterInference(secrets=["income"]).aux_columns(only, "income") == everything_else


def test_inference_default_attacker_and_presets() -> None:
    assert AnonymeterInference().aux == "all"
    assert build_metric("anonymeter_inference").get_params()["aux"] == "all"
    qi = build_metric("anonymeter_inference_qi")
    assert type(qi) is AnonymeterInference
    assert qi.get_params() == {**build_metric("anonymeter_inference").get_params(), "aux": "qi"}
    assert build_metric("anonymeter_singling_out").get_params()["columns"] == "all"


def test_raw_data_is_inferable_with_the_default_attacker(adult: ContractData) -> None:
    """Tracker issue 14: the raw training table is a risk, new real records are not."""
    metric = AnonymeterInference(n_attacks=100, secrets=["income", "hours-per-week"])
    raw = _many(metric.compute(adult.train, adult.train, adult.spec, control=adult.control, seed=0))
    fresh = _many(metric.compute(adult.train, adult.test, adult.spec, control=adult.control, seed=0))
    assert raw["max"].value >= 0.8 and raw["max"].ci_low is not None and raw["max"].ci_low > 0.5
    assert fresh["max"].value <= 0.3


@pytest.mark.parametrize(
    ("metric", "message"),
    [
        (lambda: AnonymeterSinglingOut(modes=["bivariate"]), "`modes` must be one of"),
        (lambda: AnonymeterSinglingOut(modes="univariate"), "`modes` must be a non-empty list"),  # type: ignore[arg-type]
        (lambda: AnonymeterSinglingOut(n_attacks=0), "`n_attacks` must be an integer >= 1"),
        (lambda: AnonymeterSinglingOut(n_cols=0), "`n_cols` must be an integer >= 1"),
        (lambda: AnonymeterSinglingOut(columns="some"), "`columns` must be one of"),
        (lambda: AnonymeterSinglingOut(max_attempts=-1), "`max_attempts` must be an integer >= 1"),
        (lambda: AnonymeterSinglingOut(confidence_level=1.0), "`confidence_level` must be a number"),
        (lambda: AnonymeterInference(secrets="income"), "`secrets`"),  # type: ignore[arg-type]
        (lambda: AnonymeterInference(secrets=[]), "`secrets` must be null or a non-empty list"),
        (lambda: AnonymeterInference(aux="none"), "`aux` must be one of"),
        (lambda: AnonymeterInference(n_attacks=0), "`n_attacks` must be null or an integer >= 1"),
        (lambda: AnonymeterInference(n_jobs=0), "`n_jobs` must be a non-zero integer"),
    ],
)
def test_bad_parameters_are_one_line_config_errors(metric, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ConfigError, match=message) as info:
        metric().validate_params()
    assert "\n" not in str(info.value)


_CHILD = textwrap.dedent(
    """
    import json, warnings
    warnings.simplefilter("ignore")
    import pandas as pd
    from harness.checks import contract_data
    from metrics.privacy.anonymeter_singling_out import AnonymeterSinglingOut
    d = contract_data("adult", n_train=300, n_control=100, n_test=100, seed=0)
    syn = pd.concat([d.train.iloc[:150], d.test], ignore_index=True)
    out = AnonymeterSinglingOut(n_attacks=40, max_attempts=4000).compute(
        d.train, syn, d.spec, control=d.control, seed=9)
    print(json.dumps({k: [v.value, v.ci_low, v.ci_high, v.baseline] for k, v in out.items()}))
    """
)


def test_singling_out_is_identical_in_fresh_processes() -> None:
    """Polars lists values in hash order that changes between processes; the metric must not."""
    runs = [
        json.loads(
            subprocess.run([sys.executable, "-c", _CHILD], check=True, capture_output=True, text=True)
            .stdout.strip()
            .splitlines()[-1]
        )
        for _ in range(2)
    ]
    assert runs[0] == runs[1]
