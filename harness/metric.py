"""`BaseMetric` and `MetricResult`: the template every metric subclasses.

Metrics are stateless: parameters are stored in ``__init__`` and validated in
``_validate_params``; :meth:`BaseMetric.compute` checks the inputs and calls ``_compute``,
which returns one :class:`MetricResult` or a mapping ``{output name: MetricResult}`` (the
output name is recorded as the result row's ``variant``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import pandas as pd

from harness.errors import DataError
from harness.params import ParamsMixin
from harness.spec import DatasetSpec

if TYPE_CHECKING:
    from harness.generator import BaseGenerator

Family = Literal["privacy", "utility", "fidelity", "cost"]
Goal = Literal["maximise", "minimise", "target", "none"]
FAMILIES: tuple[str, ...] = ("privacy", "utility", "fidelity", "cost")
GOALS: tuple[str, ...] = ("maximise", "minimise", "target", "none")


@dataclass(frozen=True)
class MetricResult:
    """One metric value with its uncertainty and comparator.

    Attributes
    ----------
    value : float
    ci_low, ci_high : float or None
        Confidence interval, where the method gives one.
    baseline : float or None
        The comparator value (e.g. the holdout's DCR, the TRTR score).
    details : dict
        JSON-serialisable extras (``n_used``, sub-seeds, per-column values...).
    goal : str or None
        Overrides the metric's class ``goal`` for this output (e.g. a count among ratios).
    """

    value: float
    ci_low: float | None = None
    ci_high: float | None = None
    baseline: float | None = None
    details: dict[str, Any] = field(default_factory=dict)
    goal: Goal | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "value", _as_float(self.value))
        object.__setattr__(self, "ci_low", _as_optional_float(self.ci_low))
        object.__setattr__(self, "ci_high", _as_optional_float(self.ci_high))
        object.__setattr__(self, "baseline", _as_optional_float(self.baseline))


MetricOutput = MetricResult | dict[str, MetricResult]
GeneratorFactory = Callable[[], "BaseGenerator"]
"""Builds a fresh, unfitted generator of the trial's configuration (for attacks that refit it)."""


class BaseMetric(ParamsMixin):
    """Base class of all metrics.

    Class attributes
    ----------------
    name : str
        Default registry name (the YAML file name is authoritative in results).
    family : {"privacy", "utility", "fidelity", "cost"}
    goal : {"maximise", "minimise", "target", "none"}
    target_value : float or None
        The best value for ``goal == "target"`` metrics (e.g. 0.5 for detection AUC).
    min_value, max_value : float
        Range of the headline value.
    needs_target, needs_qi, needs_control, needs_test : bool
        Inputs the metric requires; when absent it raises ``IncomputableMetricError``.
    needs_generator : bool
        The metric attacks the generator itself (e.g. membership inference refits it on
        chosen training sets): ``compute`` must get a ``generator`` factory, which is then
        passed on to ``_compute`` as the keyword ``generator``.
    ladder_exempt : mapping of str to str
        Privacy metrics only: outputs (``fnmatch`` patterns of the output name; ``""`` is a
        single-output metric's value, ``"*"`` every output) that cannot order the
        known-leakage ladder (:mod:`harness.ladder`), each with the measured reason. The
        report marks them; the ladder test checks every other output orders the ladder.
    """

    name: ClassVar[str] = ""
    family: ClassVar[Family] = "privacy"
    goal: ClassVar[Goal] = "none"
    target_value: ClassVar[float | None] = None
    min_value: ClassVar[float] = -math.inf
    max_value: ClassVar[float] = math.inf
    needs_target: ClassVar[bool] = False
    needs_qi: ClassVar[bool] = False
    needs_control: ClassVar[bool] = False
    needs_test: ClassVar[bool] = False
    needs_generator: ClassVar[bool] = False
    ladder_exempt: ClassVar[Mapping[str, str]] = {}

    def _validate_params(self) -> None:
        """Raise :class:`ConfigError` for impossible parameters (override in plugins)."""

    def validate_params(self) -> None:
        """Validate the parameters without data (called by ``privbench validate``)."""
        self._validate_params()

    def compute(
        self,
        real: pd.DataFrame,
        synthetic: pd.DataFrame,
        spec: DatasetSpec,
        *,
        control: pd.DataFrame | None = None,
        test: pd.DataFrame | None = None,
        seed: int = 0,
        generator: GeneratorFactory | None = None,
    ) -> MetricOutput:
        """Compute the metric of a released table against the training split.

        Parameters
        ----------
        real : DataFrame
            The training split T.
        synthetic : DataFrame
            The released table S (same columns as ``real``).
        spec : DatasetSpec
            Schema; ``spec.qi`` is the active QI set.
        control : DataFrame, optional
            Holdout rows for privacy baselines (never seen by the generator).
        test : DataFrame, optional
            Real test rows for ML evaluation.
        seed : int
            Seed for every random choice the metric makes.
        generator : callable, optional
            Factory of fresh generators of the trial's configuration; used only by metrics
            that declare ``needs_generator``.

        Returns
        -------
        MetricResult or dict of str to MetricResult
        """
        from harness.errors import IncomputableMetricError

        self._validate_params()
        if list(synthetic.columns) != list(real.columns):
            raise DataError(
                f"metric {self.name}: released table columns {list(synthetic.columns)} differ from "
                f"the training columns {list(real.columns)}"
            )
        if len(synthetic) == 0:
            raise IncomputableMetricError(f"metric {self.name}: the released table is empty")
        if self.needs_target and spec.target is None:
            raise IncomputableMetricError(
                f"metric {self.name} needs a target; dataset {spec.name!r} has none"
            )
        if self.needs_qi and not spec.qi:
            raise IncomputableMetricError(
                f"metric {self.name} needs a QI set; dataset {spec.name!r} has none"
            )
        if self.needs_control and (control is None or len(control) == 0):
            raise IncomputableMetricError(f"metric {self.name} needs a control split")
        if self.needs_test and (test is None or len(test) == 0):
            raise IncomputableMetricError(f"metric {self.name} needs a test split")
        if self.needs_generator:
            if generator is None:
                raise IncomputableMetricError(f"metric {self.name} needs the generator (it refits it)")
            return self._compute(  # type: ignore[call-arg]
                real, synthetic, spec, control=control, test=test, seed=int(seed), generator=generator
            )
        return self._compute(real, synthetic, spec, control=control, test=test, seed=int(seed))

    def _compute(
        self,
        real: pd.DataFrame,
        synthetic: pd.DataFrame,
        spec: DatasetSpec,
        *,
        control: pd.DataFrame | None,
        test: pd.DataFrame | None,
        seed: int,
    ) -> MetricOutput:
        raise NotImplementedError


def as_outputs(output: MetricOutput) -> dict[str, MetricResult]:
    """Normalise a metric's return value to ``{variant: MetricResult}`` (``""`` = single value)."""
    if isinstance(output, MetricResult):
        return {"": output}
    if isinstance(output, dict) and all(isinstance(v, MetricResult) for v in output.values()):
        return dict(output)
    raise TypeError(
        f"a metric must return MetricResult or dict[str, MetricResult]; got {type(output).__name__}"
    )


def _as_float(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise TypeError(f"MetricResult.value must be a number; got {value!r}") from None


def _as_optional_float(value: Any) -> float | None:
    return None if value is None else _as_float(value)
