"""A trial's result rows: every metric of the suite on the released table, with calibration and cost rows.

A metric's failure is a row with a status (``error``, ``skipped``, ``timeout``, ``oom``), never
an exception; metrics that refit the generator run in a killable child like the fit itself.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import time
from datetime import UTC, datetime
from typing import Any

import numpy as np
import pandas as pd

from harness.calibration import (
    Block,
    Calibration,
    CalibrationCache,
    calibrate,
    reference_releases,
)
from harness.errors import IncomputableMetricError, InfeasibleConfigError, PrivbenchError
from harness.gc_policy import paused as gc_paused
from harness.instantiate import GeneratorBuilder, split_config
from harness.isolation import format_error, run_isolated
from harness.ladder import exemption
from harness.metric import BaseMetric, GeneratorFactory, MetricResult, as_outputs
from harness.progress import stage
from harness.seeding import derive_seed
from harness.spec import DatasetSpec, canonical_json
from harness.threads import limit_threads
from harness.trial_config import PreparedTrial
from harness.trial_variant import VariantOutcome, trial_label
from harness.versions import versions

COST_METRICS: tuple[str, ...] = ("fit_seconds", "sample_seconds", "peak_rss_mb")
WARM_UP_ENV = "PRIVBENCH_WARM_UP"


def metric_rows(p: PreparedTrial, variant: VariantOutcome) -> list[dict[str, Any]]:
    """One row per (metric, output variant) of the suite, then the cost rows (schema: :mod:`harness.schema`).

    Each metric's warm-up runs before its clock; privacy metrics are calibrated after it
    (``calib_raw``, ``calib_none``, ``calib_s``).
    """
    base = _base_row(p, variant)
    rows: list[dict[str, Any]] = []
    calibrations = _Calibrator(p)
    for name, metric in p.metric_objects.items():
        common = {
            **base,
            "metric": name,
            "metric_params": canonical_json(metric.get_params()),
            "family": metric.family,
            "goal": metric.goal,
            "target_value": metric.target_value,
        }
        if variant.table is None:
            rows.append(
                {**common, "variant": "", "status": variant.status, "error": variant.error, "value": math.nan}
            )
            continue
        seed = derive_seed(p.cfg.gen_seed, "metric", name)
        warm_up(metric, p.cfg.threads)  # imports the compute makes on first use: not its metric_s
        start = time.perf_counter()
        try:
            with stage(f"computing {name}", trial_label(p)):
                if metric.needs_generator:
                    outputs = _compute_isolated(p, metric, variant.table, seed)
                else:
                    outputs = _compute_metric(
                        metric, p.train, variant.table, p.spec, p.control, p.test, seed, None, p.cfg.threads
                    )
        except MetricLimitError as exc:
            rows.append({**common, "variant": "", "status": exc.status, "error": str(exc), "value": math.nan,
                         "metric_s": time.perf_counter() - start})  # fmt: skip
            continue
        except (IncomputableMetricError, InfeasibleConfigError) as exc:
            rows.append({**common, "variant": "", "status": "skipped", "error": str(exc), "value": math.nan,
                         "metric_s": time.perf_counter() - start})  # fmt: skip
            continue
        except Exception as exc:
            rows.append({**common, "variant": "", "status": "error", "error": format_error(exc), "value": math.nan,
                         "metric_s": time.perf_counter() - start})  # fmt: skip
            continue
        elapsed = time.perf_counter() - start
        calibration_start = time.perf_counter()
        calibration = calibrations.of(name, metric)
        calib_s = math.nan
        if calibration is not None:
            calib_s = 0.0 if calibration.cached else time.perf_counter() - calibration_start
        for variant_name, result in outputs.items():
            calib_raw, calib_none = (
                (math.nan, math.nan) if calibration is None else calibration.for_variant(variant_name)
            )
            rows.append(
                {
                    **common,
                    "variant": variant_name,
                    "goal": result.goal or metric.goal,
                    "value": result.value,
                    "ci_low": result.ci_low,
                    "ci_high": result.ci_high,
                    "baseline": result.baseline,
                    "details": canonical_json(
                        {
                            **result.details,
                            "seed": seed,
                            **_exempt(metric, variant_name, result.goal or metric.goal),
                        }
                    ),
                    "status": "ok",
                    "error": "",
                    "metric_s": elapsed,
                    "calib_raw": calib_raw,
                    "calib_none": calib_none,
                    "calib_s": calib_s,
                }
            )
    rows.extend(_cost_rows(base, variant))
    return rows


def _exempt(metric: BaseMetric, variant: str, goal: str) -> dict[str, str]:
    """``{"ladder_exempt": reason}`` for an output documented not to order the leakage ladder.

    Outputs without a direction (``goal: none``) are diagnostics and are never marked.
    """
    if metric.family != "privacy" or goal == "none":
        return {}
    reason = exemption(variant, metric.ladder_exempt)
    return {} if reason is None else {"ladder_exempt": reason}


class _Calibrator:
    """Reference values of a trial's privacy metrics (see :mod:`harness.calibration`).

    The reference releases are built at most once per trial, and only when a metric's
    calibration is not cached yet.
    """

    def __init__(self, p: PreparedTrial) -> None:
        self.p = p
        cfg = p.cfg
        self.block = Block(
            dataset_digest=p.loaded.digest,
            max_rows=cfg.max_rows,
            split=cfg.split.to_dict(),
            split_seed=int(cfg.split_seed),
            fold=int(cfg.fold),
            qi_set=p.spec.qi_set_name,
        )
        self.cache = CalibrationCache(cfg.cache_dir) if cfg.use_cache else None
        self.releases: dict[str, pd.DataFrame | None] | None = None

    def of(self, name: str, metric: BaseMetric) -> Calibration | None:
        """The calibration of one metric, or None where it does not apply."""
        p = self.p
        if not p.cfg.calibrate or metric.family != "privacy" or metric.needs_generator:
            return None
        target = str(split_config(p.cfg.metrics[name])[0])
        with limit_threads(p.cfg.threads):
            calibration = calibrate(
                name, metric, target, block=self.block, train=p.train, control=p.control, test=p.test,
                spec=p.spec, cache=self.cache, releases=self._releases,
            )  # fmt: skip
        return calibration

    def _releases(self) -> dict[str, pd.DataFrame | None]:
        if self.releases is None:
            p = self.p
            self.releases = reference_releases(p.train, p.control, p.spec, self.block)
        return self.releases


def warm_up(metric: BaseMetric, threads: int) -> None:
    """Run the metric's ``warm_up`` hook (if any) before its clock starts (tracker issue 18).

    A metric that imports a heavy library inside ``compute`` (Anonymeter, with numba and polars)
    declares ``warm_up()`` doing those imports; without it the first trial of a process would
    bill seconds of imports to the metric's ``metric_s``. The hook runs under the trial's thread
    budget, as ``compute`` would (numba reads its thread count when imported), and the budget's
    first set-up (threadpoolctl's library scan) is paid here too. An ImportError is left to
    ``compute`` (which records it as before). ``PRIVBENCH_WARM_UP=0`` skips this (the
    behaviour before issue 18).
    """
    if os.environ.get(WARM_UP_ENV, "1") == "0":
        return
    hook = getattr(metric, "warm_up", None)
    with limit_threads(threads), gc_paused(), contextlib.suppress(ImportError):
        if callable(hook):
            hook()


def _compute_metric(
    metric: BaseMetric,
    train: pd.DataFrame,
    table: pd.DataFrame,
    spec: DatasetSpec,
    control: pd.DataFrame | None,
    test: pd.DataFrame | None,
    seed: int,
    generator: GeneratorFactory | None,
    threads: int,
) -> dict[str, MetricResult]:
    with limit_threads(threads):
        return as_outputs(
            metric.compute(train, table, spec, control=control, test=test, seed=seed, generator=generator)
        )


class MetricLimitError(PrivbenchError):
    """An isolated metric ran out of time or memory (``status`` is ``timeout`` or ``oom``)."""

    def __init__(self, status: str, message: str) -> None:
        super().__init__(message)
        self.status = status


_EXPECTED_FAILURES = {cls.__name__: cls for cls in (IncomputableMetricError, InfeasibleConfigError)}


def _compute_isolated(
    p: PreparedTrial, metric: BaseMetric, table: pd.DataFrame, seed: int
) -> dict[str, MetricResult]:
    """Compute a metric that refits the generator in a child process under the trial's limits.

    Such metrics (membership inference) fit the generator many times: like the variant's own
    fit they run with ``runtime.timeout_s`` and ``runtime.max_memory_mb``, and a crash, timeout or
    memory blow-up becomes the metric's row instead of killing the trial.
    """
    factory = GeneratorBuilder(p.cfg.generator, dict(p.cfg.generator_cfg))
    outcome = run_isolated(
        _compute_metric,
        (metric, p.train, table, p.spec, p.control, p.test, seed, factory, p.cfg.threads),
        timeout_s=p.cfg.timeout_s,
        max_memory_mb=p.cfg.max_memory_mb,
        start_method=p.cfg.start_method,
    )
    if outcome.error_type == KeyboardInterrupt.__name__:  # Ctrl-C reached the child: not a result
        raise KeyboardInterrupt
    if outcome.status in ("timeout", "oom"):
        raise MetricLimitError(outcome.status, outcome.error)
    if outcome.status != "ok":
        expected = _EXPECTED_FAILURES.get(outcome.error_type)
        if expected is not None:
            raise expected(outcome.error.splitlines()[0].split(": ", 1)[-1])
        raise RuntimeError(outcome.error)
    return dict(outcome.value)


def _cost_rows(base: dict[str, Any], variant: VariantOutcome) -> list[dict[str, Any]]:
    values = {
        "fit_seconds": variant.fit_s,
        "sample_seconds": variant.sample_s,
        "peak_rss_mb": variant.peak_rss_mb,
    }
    status = "ok" if variant.status == "ok" else variant.status
    return [
        {
            **base,
            "metric": name,
            "variant": "",
            "metric_params": "{}",
            "family": "cost",
            "goal": "minimise",
            "value": value,
            "status": status if not (status == "ok" and _isnan(value)) else "skipped",
            "error": variant.error,
            "details": canonical_json({"cache_hit": variant.cache_hit, **variant.details}),
        }
        for name, value in values.items()
    ]


def _base_row(p: PreparedTrial, variant: VariantOutcome) -> dict[str, Any]:
    cfg = p.cfg
    return {
        "run_id": cfg.run_id,
        "experiment": cfg.experiment,
        "dataset": p.spec.name,
        "qi_set": p.spec.qi_set_name or "",
        "split_seed": cfg.split_seed,
        "fold": cfg.fold,
        "generator": cfg.generator,
        "generator_params": canonical_json(p.generator.get_params()),
        "gen_seed": cfg.gen_seed,
        "fit_s": variant.fit_s,
        "sample_s": variant.sample_s,
        "peak_rss_mb": variant.peak_rss_mb,
        "n_train": len(p.train),
        "n_synthetic": None if variant.table is None else len(variant.table),
        "cache_hit": variant.cache_hit,
        "resumed": False,
        "trial_key": p.trial_key,
        "versions": json.dumps(versions(), sort_keys=True),
        "timestamp": datetime.now(UTC).isoformat(timespec="seconds"),
        "details": "{}",
        "metric_s": math.nan,
        "ci_low": None,
        "ci_high": None,
        "baseline": None,
    }


def _isnan(value: Any) -> bool:
    try:
        return bool(np.isnan(value))
    except TypeError:
        return value is None
