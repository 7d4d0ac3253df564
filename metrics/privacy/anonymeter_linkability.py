"""``anonymeter_linkability``: Anonymeter's linkability attack, seeded and cached.

Specification: ``spec/metrics.md`` P1–P3 (Giomi et al. 2023, "A Unified Framework for
Quantifying Privacy Risk in Synthetic Data", Anonymeter 1.1.0).

Besides the metric, this module provides :func:`seeded_anonymeter` (makes every Anonymeter
evaluator deterministic for a seed) and :func:`enable_numba_cache` (caches Anonymeter's
numba-compiled distance code on disk, saving its compilation in every fresh process).
"""

from __future__ import annotations

import math
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from types import ModuleType
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from harness.encoding import canonical_row_order
from harness.errors import ConfigError, IncomputableMetricError
from harness.metric import BaseMetric, Family, Goal, MetricResult
from harness.spec import DatasetSpec

AUX_SPLITS: tuple[str, ...] = ("halves", "reference")
_EVALUATOR_MODULES: tuple[str, ...] = (
    "anonymeter.evaluators.linkability_evaluator",
    "anonymeter.evaluators.inference_evaluator",
    "anonymeter.evaluators.singling_out_evaluator",
)


class AnonymeterLinkability(BaseMetric):
    """Linkability risk of Anonymeter's ``LinkabilityEvaluator`` (``spec/metrics.md`` P1–P3).

    The attacker holds two vertical slices A and B of a real record (both drawn from the
    active QI set) and links them when their ``n_neighbors`` nearest rows of the release S,
    searched with A's and with B's columns (Anonymeter's Gower-like mixed-type distance),
    share a row. The main attack targets ``n_attacks`` rows of T, the control attack as many
    rows of the control split H, and a random-guess baseline draws neighbours at random.

    The headline value is the risk (r_main − r_control)/(1 − r_control) bound to [0, 1]
    (Wilson rates), with its confidence interval from ``risk().ci``; ``baseline`` is the
    random-guess success rate. ``details`` hold ``rate_main``, ``rate_control``,
    ``rate_baseline`` (each with ``*_error``), the success counts, ``baseline_warning``
    (``rate_baseline >= rate_main``: Anonymeter's "results cannot be trusted"), ``n_attacks``
    and ``aux_cols``. Lower is better.

    Parameters
    ----------
    aux_split : {"halves", "reference"}
        How the QI set Q becomes the attacker's two column sets. ``"halves"`` (default): A = the
        first ⌈|Q|/2⌉ QIs in schema (table) order, B = the rest. ``"reference"``: A = [Q₁],
        B = [Q₂] in the QI set's declared order — what the ε-PrivateSMOTE code effectively did
        by passing the flat QI list (its other QIs are ignored).
    n_attacks : int or None
        Target rows per attack; None means min(|T|, |H|). A larger value is capped at that
        bound (Anonymeter samples targets without replacement) and the cap is recorded.
    n_neighbors : int
        Neighbours per slice (``000_…`` uses 10).
    confidence_level : float
        Confidence level of the Wilson intervals, in (0, 1).
    n_jobs : int
        Anonymeter's neighbour-search threads (joblib convention, -1 = all cores). Default 1:
        the harness sets thread counts per trial.

    Notes
    -----
    * Determinism: Anonymeter draws targets with ``DataFrame.sample`` (numpy's legacy global
      RNG) and baseline links with an unseeded ``np.random.default_rng()``; the attack runs
      inside :func:`seeded_anonymeter` so the result is a function of ``seed``.
    * Row order: T, S and H are put in :func:`~harness.encoding.canonical_row_order` first, so
      the result depends on the tables' rows and the seed only (Anonymeter samples targets by
      position and breaks distance ties by position).
    * S and H are cast to T's dtypes; all columns are passed (only ``aux_cols`` enter the
      distance). Anonymeter scales numeric columns by their range over the two tables
      compared and label-encodes categoricals with NA as a category; a numeric NA scores a
      distance of 1 against NA and NaN (ranked last) against a number (library behaviour).
    * A QI set with fewer than 2 columns raises :class:`IncomputableMetricError`.
    """

    name: ClassVar[str] = "anonymeter_linkability"
    family: ClassVar[Family] = "privacy"
    goal: ClassVar[Goal] = "minimise"
    min_value: ClassVar[float] = 0.0
    max_value: ClassVar[float] = 1.0
    needs_qi: ClassVar[bool] = True
    needs_control: ClassVar[bool] = True

    def __init__(
        self,
        aux_split: str = "halves",
        n_attacks: int | None = None,
        n_neighbors: int = 1,
        confidence_level: float = 0.95,
        n_jobs: int = 1,
    ) -> None:
        self.aux_split = aux_split
        self.n_attacks = n_attacks
        self.n_neighbors = n_neighbors
        self.confidence_level = confidence_level
        self.n_jobs = n_jobs

    def _validate_params(self) -> None:
        if self.aux_split not in AUX_SPLITS:
            raise ConfigError(f"`aux_split` must be one of {', '.join(AUX_SPLITS)}; got {self.aux_split!r}")
        if self.n_attacks is not None and (not _is_int(self.n_attacks) or self.n_attacks < 1):
            raise ConfigError(f"`n_attacks` must be null or an integer >= 1; got {self.n_attacks!r}")
        if not _is_int(self.n_neighbors) or self.n_neighbors < 1:
            raise ConfigError(f"`n_neighbors` must be an integer >= 1; got {self.n_neighbors!r}")
        level = self.confidence_level
        if isinstance(level, bool) or not isinstance(level, (int, float)) or not 0 < level < 1:
            raise ConfigError(f"`confidence_level` must be a number in (0, 1); got {level!r}")
        if not _is_int(self.n_jobs) or self.n_jobs == 0:
            raise ConfigError(f"`n_jobs` must be a non-zero integer; got {self.n_jobs!r}")

    def _compute(
        self,
        real: pd.DataFrame,
        synthetic: pd.DataFrame,
        spec: DatasetSpec,
        *,
        control: pd.DataFrame | None,
        test: pd.DataFrame | None,
        seed: int,
    ) -> MetricResult:
        from anonymeter.evaluators import LinkabilityEvaluator

        assert control is not None  # needs_control: checked by BaseMetric.compute
        aux_cols = split_aux_columns(spec, self.aux_split)
        if self.n_neighbors > len(synthetic):
            raise IncomputableMetricError(
                f"metric anonymeter_linkability: n_neighbors={self.n_neighbors} exceeds the "
                f"{len(synthetic)} released rows"
            )
        bound = min(len(real), len(control))
        n_attacks = bound if self.n_attacks is None else min(self.n_attacks, bound)
        ori = canonical_row_order(real)
        syn = canonical_row_order(cast_like(synthetic, real))
        ctl = canonical_row_order(cast_like(control, real))

        enable_numba_cache()
        with seeded_anonymeter(seed), warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Attack is as good or worse as baseline")
            evaluator = LinkabilityEvaluator(
                ori=ori,
                syn=syn,
                aux_cols=aux_cols,
                n_attacks=n_attacks,
                n_neighbors=self.n_neighbors,
                control=ctl,
            ).evaluate(n_jobs=self.n_jobs)
            results = evaluator.results(confidence_level=self.confidence_level)
            risk = results.risk()
        assert results.control_rate is not None
        rates = {
            "main": results.attack_rate,
            "control": results.control_rate,
            "baseline": results.baseline_rate,
        }
        details: dict[str, Any] = {
            **{f"rate_{k}": float(r.value) for k, r in rates.items()},
            **{f"rate_{k}_error": float(r.error) for k, r in rates.items()},
            "n_success_main": int(results.n_success),
            "n_success_control": int(results.n_control or 0),
            "n_success_baseline": int(results.n_baseline),
            "baseline_warning": bool(results.baseline_rate.value >= results.attack_rate.value),
            "n_attacks": int(n_attacks),
            "n_attacks_requested": self.n_attacks,
            "aux_cols": [list(aux_cols[0]), list(aux_cols[1])],
            "aux_split": self.aux_split,
            "n_neighbors": self.n_neighbors,
            "confidence_level": self.confidence_level,
        }
        return MetricResult(
            value=risk.value,
            ci_low=risk.ci[0],
            ci_high=risk.ci[1],
            baseline=results.baseline_rate.value,
            details=details,
        )


# ---------------------------------------------------------------------- helpers
def split_aux_columns(spec: DatasetSpec, aux_split: str) -> tuple[list[str], list[str]]:
    """The attacker's two column sets (A, B) from the active QI set.

    Parameters
    ----------
    spec : DatasetSpec
        ``spec.qi`` is the active QI set.
    aux_split : {"halves", "reference"}
        See :class:`AnonymeterLinkability`.

    Raises
    ------
    IncomputableMetricError
        If the QI set has fewer than two columns.
    """
    qi = list(spec.qi)
    if len(qi) < 2:
        raise IncomputableMetricError(
            f"metric anonymeter_linkability needs a QI set of at least 2 columns; "
            f"QI set {spec.qi_set_name!r} of dataset {spec.name!r} has {len(qi)}"
        )
    if aux_split == "reference":
        return [qi[0]], [qi[1]]
    order = {name: pos for pos, name in enumerate(spec.table_columns)}
    ordered = sorted(qi, key=lambda c: order.get(c, len(order)))
    half = math.ceil(len(ordered) / 2)
    return ordered[:half], ordered[half:]


def cast_like(frame: pd.DataFrame, like: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with ``like``'s columns, dtypes and a fresh RangeIndex.

    A numeric column that cannot take ``like``'s dtype (an integer column holding NaN) is cast
    to float64, which Anonymeter treats as the same (numeric) type.
    """
    out = frame[list(like.columns)].reset_index(drop=True)
    casts = {}
    for name, dtype in like.dtypes.items():
        if out[name].dtype == dtype:
            continue
        if pd.api.types.is_integer_dtype(dtype) and out[name].isna().any():
            casts[name] = np.dtype("float64")
        else:
            casts[name] = dtype
    return out.astype(casts) if casts else out


@contextmanager
def seeded_anonymeter(seed: int, modules: Sequence[str] = _EVALUATOR_MODULES) -> Iterator[None]:
    """Make Anonymeter's evaluators draw only from generators derived from ``seed``.

    Inside the block, numpy's legacy global RNG (used by ``DataFrame.sample`` without a
    ``random_state``) is seeded with ``seed``, and each unseeded ``np.random.default_rng()``
    call made by the Anonymeter evaluator modules returns a fresh ``Generator`` from the
    next child of ``SeedSequence(seed)`` (so successive calls give different, reproducible
    streams). On exit the modules' ``np`` and the global RNG state are restored.

    Parameters
    ----------
    seed : int
    modules : sequence of str
        Modules whose ``np.random.default_rng`` is redirected (imported if needed).

    Notes
    -----
    The patch replaces the module-level name ``np`` by a proxy of numpy, so nothing outside
    these modules is affected; the legacy global RNG is process-wide, so other threads
    drawing from it meanwhile would perturb (and be perturbed by) the attack.
    """
    import importlib

    sequence = np.random.SeedSequence(seed)

    def default_rng(seed_arg: Any = None) -> np.random.Generator:
        if seed_arg is None:
            return np.random.Generator(np.random.PCG64(sequence.spawn(1)[0]))
        return np.random.default_rng(seed_arg)

    proxy = _NumpyProxy(default_rng)
    patched: list[tuple[ModuleType, Any]] = []
    state = np.random.get_state()  # noqa: NPY002  (the legacy global RNG is what pandas draws from)
    try:
        for name in modules:
            module = importlib.import_module(name)
            if getattr(module, "np", None) is np:
                patched.append((module, module.np))
                module.np = proxy  # type: ignore[attr-defined]
        np.random.seed(seed % 2**32)  # noqa: NPY002
        yield
    finally:
        for module, original in patched:
            module.np = original  # type: ignore[attr-defined]
        np.random.set_state(state)  # noqa: NPY002


class _NumpyProxy:
    """Stand-in for the ``numpy`` module whose ``random.default_rng`` is replaced."""

    def __init__(self, default_rng: Callable[..., np.random.Generator]) -> None:
        self.random = _RandomProxy(default_rng)

    def __getattr__(self, name: str) -> Any:
        return getattr(np, name)


class _RandomProxy:
    def __init__(self, default_rng: Callable[..., np.random.Generator]) -> None:
        self.default_rng = default_rng

    def __getattr__(self, name: str) -> Any:
        return getattr(np.random, name)


def enable_numba_cache() -> None:
    """Re-jit Anonymeter's distance kernels with ``cache=True`` (once per process).

    Anonymeter 1.1.0 compiles ``gower_distance`` and ``_nearest_neighbors`` with
    ``numba.jit(nopython=True, nogil=True)`` and no on-disk cache, so every fresh process pays
    the compilation (about 5 s per process for the two signatures a mixed-type attack uses).
    With ``cache=True`` numba stores the machine code in the package's ``__pycache__`` (or,
    when that is read-only, numba's user-wide cache directory; ``NUMBA_CACHE_DIR`` overrides
    both) and later processes load it.
    """
    import anonymeter.evaluators  # noqa: F401  (the neighbors module cannot be imported first)

    module = sys.modules["anonymeter.neighbors.mixed_types_kneighbors"]
    if getattr(module, "_privbench_cached", False):
        return
    import numba

    def cached(dispatcher: Any) -> Any:
        return numba.jit(nopython=True, nogil=True, cache=True)(dispatcher.py_func)

    # _nearest_neighbors resolves gower_distance from the module globals when it compiles.
    module.gower_distance = cached(module.gower_distance)  # type: ignore[attr-defined]
    module._nearest_neighbors = cached(module._nearest_neighbors)  # type: ignore[attr-defined]
    module._privbench_cached = True  # type: ignore[attr-defined]


def _is_int(value: object) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)
