"""Plumbing shared by the Anonymeter metrics (``spec/metrics.md`` P1–P3).

* :func:`seeded_anonymeter` makes every Anonymeter evaluator deterministic for a seed
  (numpy's legacy global RNG, unseeded ``np.random.default_rng()`` calls in the evaluator
  modules, and polars' global RNG used by the singling-out size correction).
* :func:`enable_numba_cache` caches Anonymeter's numba-compiled distance code on disk, saving
  its compilation in every fresh process.
* :func:`cast_like` aligns a table's dtypes with the training table (Anonymeter needs
  identical columns and dtypes).
* :func:`risk_result` turns Anonymeter's ``EvaluationResults`` into a :class:`MetricResult`
  with the rates, counts and the baseline warning in its details.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from types import ModuleType
from typing import Any

import numpy as np
import pandas as pd

from harness.errors import ConfigError, IncomputableMetricError
from harness.metric import MetricResult

EVALUATOR_MODULES: tuple[str, ...] = (
    "anonymeter.evaluators.linkability_evaluator",
    "anonymeter.evaluators.inference_evaluator",
    "anonymeter.evaluators.singling_out_evaluator",
)


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
def seeded_anonymeter(seed: int, modules: Sequence[str] = EVALUATOR_MODULES) -> Iterator[None]:
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
    Polars' global RNG (``DataFrame.sample`` without a seed, used by the singling-out
    evaluator's size correction) is seeded too; polars cannot save its state, so it is left
    seeded on exit.

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
        _seed_polars(seed)
        yield
    finally:
        for module, original in patched:
            module.np = original  # type: ignore[attr-defined]
        np.random.set_state(state)  # noqa: NPY002


def _seed_polars(seed: int) -> None:
    try:
        import polars
    except ImportError:  # pragma: no cover - polars is an Anonymeter dependency
        return
    polars.set_random_seed(seed % 2**32)


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


def import_anonymeter() -> None:
    """Import Anonymeter's evaluators (numba, polars): a metric's ``warm_up``, before its clock starts."""
    import anonymeter.evaluators  # noqa: F401


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


def check_confidence_level(value: Any) -> None:
    """Raise :class:`ConfigError` unless ``value`` is a number in (0, 1)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
        raise ConfigError(f"`confidence_level` must be a number in (0, 1); got {value!r}")


def check_n_attacks(value: Any) -> None:
    """Raise :class:`ConfigError` unless ``value`` is None or an integer >= 1."""
    if value is not None and (
        isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1
    ):
        raise ConfigError(f"`n_attacks` must be null or an integer >= 1; got {value!r}")


def check_n_jobs(value: Any) -> None:
    """Raise :class:`ConfigError` unless ``value`` is a non-zero integer (joblib convention)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value == 0:
        raise ConfigError(f"`n_jobs` must be a non-zero integer; got {value!r}")


def risk_result(results: Any, what: str, **details: Any) -> MetricResult:
    """The :class:`MetricResult` of an Anonymeter ``EvaluationResults``.

    The value is ``results.risk()`` (residual risk against the control attack, bound to
    [0, 1]) with its confidence interval; ``baseline`` is the random-guess success rate.
    ``details`` get the three Wilson rates with their errors, the success counts, the
    numbers of attacks and ``baseline_warning`` (``rate_baseline >= rate_main``:
    Anonymeter's "results cannot be trusted"), plus the keyword arguments.

    Parameters
    ----------
    results : anonymeter.stats.confidence.EvaluationResults
    what : str
        Names the attack in the error message.

    Raises
    ------
    IncomputableMetricError
        When Anonymeter cannot form the risk (e.g. a math-domain error in the error
        propagation when the control attack always succeeds).
    """
    try:
        risk = results.risk()
    except (ValueError, ZeroDivisionError) as exc:
        raise IncomputableMetricError(f"{what}: Anonymeter could not compute the risk ({exc})") from None
    rates = {"main": results.attack_rate, "baseline": results.baseline_rate}
    if results.control_rate is not None:
        rates["control"] = results.control_rate
    out: dict[str, Any] = {
        **{f"rate_{k}": float(r.value) for k, r in rates.items()},
        **{f"rate_{k}_error": float(r.error) for k, r in rates.items()},
        "n_success_main": _number(results.n_success),
        "n_success_baseline": _number(results.n_baseline),
        "n_success_control": None if results.n_control is None else _number(results.n_control),
        "n_attacks_main": int(results.n_attacks_ori),
        "n_attacks_baseline": int(results.n_attacks_baseline),
        "n_attacks_control": int(results.n_attacks_control),
        "baseline_warning": bool(results.baseline_rate.value >= results.attack_rate.value),
        **details,
    }
    return MetricResult(
        value=float(risk.value),
        ci_low=float(risk.ci[0]),
        ci_high=float(risk.ci[1]),
        baseline=float(results.baseline_rate.value),
        details=out,
    )


def _number(value: Any) -> int | float:
    """An int when integral (success counts), else a float (the corrected singling-out count)."""
    value = float(value)
    return int(value) if value.is_integer() else value


@contextmanager
def stable_polars_order() -> Iterator[None]:
    """Make polars' ``DataFrame.group_by`` and ``Series.unique`` keep first-seen order.

    Anonymeter's singling-out evaluator lists candidate values with ``Series.unique()`` and
    rare values with ``group_by(col).len()`` and then draws from those lists by position.
    Polars returns both in hash/thread order, which changes from run to run, so even a
    seeded attack picks different predicates. Inside the block both default to
    ``maintain_order=True`` (an explicit argument still wins). The patch is process-wide
    for the duration of the block.
    """
    import polars

    frame_group_by = polars.DataFrame.group_by
    series_unique = polars.Series.unique

    def group_by(self: Any, *by: Any, maintain_order: bool = True, **named_by: Any) -> Any:
        return frame_group_by(self, *by, maintain_order=maintain_order, **named_by)

    def unique(self: Any, *, maintain_order: bool = True) -> Any:
        return series_unique(self, maintain_order=maintain_order)

    polars.DataFrame.group_by = group_by  # type: ignore[method-assign]
    polars.Series.unique = unique  # type: ignore[method-assign]
    try:
        yield
    finally:
        polars.DataFrame.group_by = frame_group_by  # type: ignore[method-assign]
        polars.Series.unique = series_unique  # type: ignore[method-assign]
