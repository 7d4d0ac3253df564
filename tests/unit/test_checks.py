"""The contract checks catch broken plugins (toy generators and metrics defined here)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pandas as pd
import pytest

from harness.checks import ContractViolation, check_generator, check_metric, uniform_release
from harness.dtypes import conform
from harness.errors import IncomputableMetricError
from harness.generator import BaseGenerator, GeneratorInfo
from harness.metric import BaseMetric, MetricOutput, MetricResult
from harness.spec import DatasetSpec

SPEC = DatasetSpec.from_dict(
    {
        "name": "toy",
        "columns": {"age": "integer", "score": "continuous", "colour": "categorical", "label": "categorical"},
        "target": "label",
        "task": "binary",
        "qi_sets": {"default": ["age", "colour"]},
    }
)


def make_table(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "age": rng.integers(18, 91, size=n),
            "score": rng.normal(size=n),
            "colour": rng.choice(np.array(["red", "green", "blue"], dtype=object), size=n),
            "label": rng.choice(np.array(["yes", "no"], dtype=object), size=n),
        }
    )
    return conform(frame, SPEC)


TRAIN, CONTROL, TEST = make_table(120, 1), make_table(40, 2), make_table(40, 3)


def cfg(cls: type, **params: Any) -> dict[str, Any]:
    return {"_target_": f"{__name__}.{cls.__name__}", **params}


# ====================================================================== generators
class Bootstrap(BaseGenerator):
    """A well-behaved generator: rows drawn with replacement from ``rng_``."""

    capabilities: ClassVar[GeneratorInfo] = GeneratorInfo(releases_original_records=True, output_kind="mixed")

    def __init__(self, k: int = 1) -> None:
        self.k = k

    def _fit(self, train: pd.DataFrame, control: pd.DataFrame | None) -> None:
        self.train_ = train

    def _sample(self, n_rows: int | None) -> pd.DataFrame:
        rows = self._rows(n_rows or self.n_train_)
        return self.train_.iloc[rows].reset_index(drop=True)

    def _rows(self, n: int) -> np.ndarray:
        return self.rng_.integers(0, self.n_train_, size=n)


class Unseeded(Bootstrap):
    def _rows(self, n: int) -> np.ndarray:
        return np.random.default_rng().integers(0, self.n_train_, size=n)


class IgnoresSeed(Bootstrap):
    def _rows(self, n: int) -> np.ndarray:
        return np.random.default_rng(42).integers(0, self.n_train_, size=n)


class FalselyNonRandom(Bootstrap):
    capabilities: ClassVar[GeneratorInfo] = GeneratorInfo(randomised=False)

    def _rows(self, n: int) -> np.ndarray:
        self.rng_.random()
        return np.arange(n) % self.n_train_


class Mutating(Bootstrap):
    def fit(self, train: pd.DataFrame, spec: DatasetSpec, **kwargs: Any) -> BaseGenerator:
        train.loc[0, "age"] = 0
        return super().fit(train, spec, **kwargs)


class CrashesOnTiny(Bootstrap):
    def _fit(self, train: pd.DataFrame, control: pd.DataFrame | None) -> None:
        if len(train) < 10:
            raise ValueError("Expected n_neighbors <= n_samples")
        super()._fit(train, control)


class IgnoresNRows(Bootstrap):
    def _sample(self, n_rows: int | None) -> pd.DataFrame:
        return super()._sample(None)


class FakeSubset(Bootstrap):
    capabilities: ClassVar[GeneratorInfo] = GeneratorInfo(output_kind="subset")

    def _sample(self, n_rows: int | None) -> pd.DataFrame:
        out = super()._sample(n_rows)
        out["score"] = out["score"] + 1.0
        return out


def test_a_good_generator_passes_every_check() -> None:
    passed = check_generator("bootstrap", TRAIN, SPEC, cfg=cfg(Bootstrap, k=1))
    assert passed == [
        "params",
        "info",
        "sample_before_fit",
        "schema",
        "n_rows",
        "no_input_mutation",
        "deterministic_per_seed",
        "seed_dependence",
        "tiny_input",
        "single_category",
    ]


@pytest.mark.parametrize(
    ("config", "check"),
    [
        (cfg(Bootstrap), "params"),  # the YAML lacks k
        (cfg(Unseeded, k=1), "deterministic_per_seed"),
        (cfg(IgnoresSeed, k=1), "seed_dependence"),
        (cfg(FalselyNonRandom, k=1), "seed_dependence"),
        (cfg(Mutating, k=1), "no_input_mutation"),
        (cfg(CrashesOnTiny, k=1), "tiny_input"),
        (cfg(IgnoresNRows, k=1), "n_rows"),
        (cfg(FakeSubset, k=1), "schema"),
    ],
)
def test_broken_generators_are_caught(config: dict[str, Any], check: str) -> None:
    with pytest.raises(ContractViolation, match=f"failed check '{check}'"):
        check_generator("toy", TRAIN.copy(), SPEC, cfg=config)


def test_check_params_overlay_round_trips() -> None:
    config = {**cfg(Bootstrap, k=5), "check_params": {"k": 2}}
    assert "params" in check_generator("bootstrap", TRAIN, SPEC, cfg=config)


# ====================================================================== metrics
def copied_share(real: pd.DataFrame, synthetic: pd.DataFrame) -> float:
    """Share of synthetic rows that are rows of ``real`` (row-order invariant)."""
    seen = set(pd.util.hash_pandas_object(real, index=False))
    return float(pd.util.hash_pandas_object(synthetic, index=False).isin(seen).mean())


class ToyMetric(BaseMetric):
    """Fidelity = share of copied rows: 1 for identical data, ~0 for a uniform release."""

    family: ClassVar[Any] = "fidelity"
    goal: ClassVar[Any] = "maximise"
    min_value: ClassVar[float] = 0.0
    max_value: ClassVar[float] = 1.0

    def __init__(self, scale: float = 1.0) -> None:
        self.scale = scale

    def _compute(
        self, real: pd.DataFrame, synthetic: pd.DataFrame, spec: DatasetSpec, **_: Any
    ) -> MetricOutput:
        share = copied_share(real, synthetic) * self.scale
        return {"share": MetricResult(share, ci_low=share * 0.9, ci_high=min(1.0, share * 1.1))}


class CopyRisk(ToyMetric):
    family: ClassVar[Any] = "privacy"
    goal: ClassVar[Any] = "minimise"


class DetectionLike(ToyMetric):
    goal: ClassVar[Any] = "target"
    target_value: ClassVar[float | None] = 0.5

    def _compute(
        self, real: pd.DataFrame, synthetic: pd.DataFrame, spec: DatasetSpec, **_: Any
    ) -> MetricOutput:
        return MetricResult(0.5 + 0.5 * (1.0 - copied_share(real, synthetic)))


class Diagnostic(ToyMetric):
    goal: ClassVar[Any] = "none"

    def _compute(
        self, real: pd.DataFrame, synthetic: pd.DataFrame, spec: DatasetSpec, **_: Any
    ) -> MetricOutput:
        return MetricResult(0.5)


class NeedsTarget(ToyMetric):
    needs_target: ClassVar[bool] = True
    needs_test: ClassVar[bool] = True


class InvertedPrivacy(ToyMetric):
    family: ClassVar[Any] = "privacy"  # copies make a release *less* private, not more


class Constant(ToyMetric):
    def _compute(
        self, real: pd.DataFrame, synthetic: pd.DataFrame, spec: DatasetSpec, **_: Any
    ) -> MetricOutput:
        return MetricResult(0.5)


class OrderDependent(ToyMetric):
    max_value: ClassVar[float] = 2.0

    def _compute(
        self, real: pd.DataFrame, synthetic: pd.DataFrame, spec: DatasetSpec, **_: Any
    ) -> MetricOutput:
        return MetricResult(copied_share(real, synthetic) + 0.01 * abs(float(synthetic["score"].iloc[0])))


class UnseededMetric(ToyMetric):
    max_value: ClassVar[float] = 2.0

    def _compute(
        self, real: pd.DataFrame, synthetic: pd.DataFrame, spec: DatasetSpec, **_: Any
    ) -> MetricOutput:
        return MetricResult(copied_share(real, synthetic) + 0.01 * np.random.default_rng().random())


class BadCI(ToyMetric):
    def _compute(
        self, real: pd.DataFrame, synthetic: pd.DataFrame, spec: DatasetSpec, **_: Any
    ) -> MetricOutput:
        share = copied_share(real, synthetic)
        return MetricResult(share, ci_low=share + 0.1, ci_high=share + 0.2)


class ReturnsNaN(ToyMetric):
    def _compute(
        self, real: pd.DataFrame, synthetic: pd.DataFrame, spec: DatasetSpec, **_: Any
    ) -> MetricOutput:
        return MetricResult(float("nan"))


class UndeclaredTarget(ToyMetric):
    def _compute(
        self, real: pd.DataFrame, synthetic: pd.DataFrame, spec: DatasetSpec, **_: Any
    ) -> MetricOutput:
        synthetic[spec.target].nunique()  # KeyError when the dataset has no target
        return MetricResult(copied_share(real, synthetic))


class MutatesReal(ToyMetric):
    def _compute(
        self, real: pd.DataFrame, synthetic: pd.DataFrame, spec: DatasetSpec, **_: Any
    ) -> MetricOutput:
        share = copied_share(real, synthetic)
        real["score"] = real["score"].round(1)
        return MetricResult(share)


def run_metric(config: dict[str, Any]) -> list[str]:
    return check_metric("toy", TRAIN.copy(), SPEC, control=CONTROL, test=TEST, cfg=config)


@pytest.mark.parametrize("cls", [ToyMetric, CopyRisk, DetectionLike, Diagnostic, NeedsTarget])
def test_good_metrics_pass_every_check(cls: type) -> None:
    assert run_metric(cfg(cls, scale=1.0)) == [
        "params",
        "declaration",
        "returns",
        "goal",
        "bounds",
        "ci_contains_value",
        "direction",
        "deterministic_per_seed",
        "row_order_invariance",
        "incomputable",
        "no_input_mutation",
    ]


@pytest.mark.parametrize(
    ("config", "check"),
    [
        (cfg(ToyMetric), "params"),
        (cfg(ToyMetric, scale=1.5), "bounds"),
        (cfg(InvertedPrivacy, scale=1.0), "direction"),
        (cfg(Constant, scale=1.0), "direction"),
        (cfg(OrderDependent, scale=1.0), "row_order_invariance"),
        (cfg(UnseededMetric, scale=1.0), "deterministic_per_seed"),
        (cfg(BadCI, scale=1.0), "ci_contains_value"),
        (cfg(ReturnsNaN, scale=1.0), "bounds"),
        (cfg(UndeclaredTarget, scale=1.0), "incomputable"),
        (cfg(MutatesReal, scale=1.0), "no_input_mutation"),
    ],
)
def test_broken_metrics_are_caught(config: dict[str, Any], check: str) -> None:
    with pytest.raises(ContractViolation, match=f"failed check '{check}'"):
        run_metric(config)


def test_needs_target_metric_raises_incomputable_without_target() -> None:
    bare = DatasetSpec.from_dict({"name": "bare", "columns": {c: SPEC.kind(c) for c in SPEC.table_columns}})
    with pytest.raises(IncomputableMetricError):
        NeedsTarget().compute(TRAIN, TRAIN, bare, control=CONTROL, test=TEST)


def test_uniform_release_only_uses_observed_values() -> None:
    out = uniform_release(TRAIN, SPEC, seed=0)
    assert len(out) == len(TRAIN)
    for col in SPEC.table_columns:
        assert set(out[col]) <= set(TRAIN[col])
    pd.testing.assert_frame_equal(out, uniform_release(TRAIN, SPEC, seed=0))


def test_off_support_release_leaves_the_training_support() -> None:
    from harness.checks import contract_data, off_support_release

    data = contract_data("adult", n_train=200, n_control=50, n_test=50, seed=0)
    off = off_support_release(data.train, data.spec, seed=0)
    assert list(off.columns) == list(data.train.columns) and len(off) == len(data.train)
    for col in data.spec.numeric_columns:
        assert (off[col] > data.train[col].max()).all()
    for col in data.spec.categorical_columns:
        assert off[col].nunique() == 1
