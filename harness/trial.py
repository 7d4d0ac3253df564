"""`run_trial`: one (dataset, QI set, split seed, fold, generator, generator seed) trial.

The function behind the Hydra entry point. It loads and splits the data, gets the
synthetic variant from the content-addressed cache or produces it in a killable child
process, runs every metric of the suite, and returns the trial's result rows. Failures of
the generator or of a metric are rows with a status, never exceptions; only bad input
(unknown names, impossible parameters, unusable data) raises :class:`PrivbenchError`.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import harness
from harness.cache import TrialCache, VariantCache, content_key
from harness.calibration import (
    CALIBRATION_VERSION,
    Block,
    Calibration,
    CalibrationCache,
    calibrate,
    reference_releases,
)
from harness.datasets import LoadedDataset, load_dataset
from harness.derived import complete, declared_rules, generator_view
from harness.dtypes import conform
from harness.errors import ConfigError, IncomputableMetricError, InfeasibleConfigError, PrivbenchError
from harness.gc_policy import paused as gc_paused
from harness.generator import BaseGenerator
from harness.instantiate import GeneratorBuilder, build_generator, build_metric, split_config
from harness.isolation import format_error, run_isolated
from harness.ladder import exemption
from harness.memo import configure as configure_memo
from harness.metric import BaseMetric, GeneratorFactory, MetricResult, as_outputs
from harness.progress import stage
from harness.schema import to_results_frame
from harness.seeding import derive_seed
from harness.spec import DatasetSpec, canonical_json
from harness.splits import Split, SplitConfig, make_split
from harness.storage import parquet_bytes, read_parquet, warm_parquet_writer
from harness.threads import limit_threads, warm_thread_budget
from harness.versions import versions

COST_METRICS: tuple[str, ...] = ("fit_seconds", "sample_seconds", "peak_rss_mb")
WARM_UP_ENV = "PRIVBENCH_WARM_UP"


@dataclass(frozen=True)
class TrialConfig:
    """Everything that defines one trial (built from the composed Hydra config).

    Attributes
    ----------
    experiment, run_id : str
        Experiment name and the run directory's name.
    dataset : str
        Dataset registry name; ``dataset_cfg`` is its (possibly overridden) spec mapping.
    qi_set : str or None
        Active QI set (None = the dataset's first).
    split, split_seed, fold
        The partition.
    generator : str
        Generator registry name; ``generator_cfg`` holds ``_target_`` and parameters.
    gen_seed : int
        The configured generator seed (sub-seeds are derived from it).
    metrics : mapping
        Suite: metric registry name -> config.
    n_rows : int or None
        Rows to sample (None = the generator's natural size).
    max_rows : int or None
        Seeded subsample of the dataset before splitting (quick profiles).
    timeout_s, max_memory_mb : float or None
        Limits of the fit/sample child process.
    start_method : str
        multiprocessing start method of the child.
    threads : int
        BLAS/OpenMP threads per trial (no oversubscription under parallel launchers).
    cache_dir : Path
    use_cache : bool
        Reuse cached variants and completed trials.
    base_dir : Path
        Where relative user data paths resolve.
    calibrate : bool
        Record each privacy metric's value on the raw data and on new individuals
        (``calib_raw``, ``calib_none``; :mod:`harness.calibration`).
    """

    experiment: str
    run_id: str
    dataset: str
    dataset_cfg: Mapping[str, Any]
    generator: str
    generator_cfg: Mapping[str, Any]
    metrics: Mapping[str, Mapping[str, Any]]
    qi_set: str | None = None
    split: SplitConfig = field(default_factory=SplitConfig)
    split_seed: int = 0
    fold: int = 0
    gen_seed: int = 0
    n_rows: int | None = None
    max_rows: int | None = None
    timeout_s: float | None = 3600.0
    max_memory_mb: float | None = None
    start_method: str = "fork"
    threads: int = 1
    cache_dir: Path = Path("results/.cache")
    use_cache: bool = True
    base_dir: Path = Path(".")
    calibrate: bool = True

    def validate(self) -> None:
        """Check the runtime parameters; raise :class:`ConfigError` naming the key."""
        if self.timeout_s is not None and not self.timeout_s > 0:
            raise ConfigError(f"runtime.timeout_s must be > 0 or null; got {self.timeout_s!r}")
        if self.max_memory_mb is not None and not self.max_memory_mb > 0:
            raise ConfigError(f"runtime.max_memory_mb must be > 0 or null; got {self.max_memory_mb!r}")
        if self.n_rows is not None and (isinstance(self.n_rows, bool) or int(self.n_rows) < 1):
            raise ConfigError(f"n_rows must be a positive integer or null; got {self.n_rows!r}")
        if self.max_rows is not None and int(self.max_rows) < 10:
            raise ConfigError(f"data.max_rows must be >= 10 or null; got {self.max_rows!r}")
        if int(self.threads) < 1:
            raise ConfigError(f"runtime.threads must be >= 1; got {self.threads!r}")
        if self.start_method not in ("fork", "spawn", "forkserver"):
            raise ConfigError(
                f"runtime.start_method must be fork, spawn or forkserver; got {self.start_method!r}"
            )
        for key in ("split_seed", "gen_seed"):
            value = getattr(self, key)
            if isinstance(value, bool) or int(value) != value or value < 0:
                raise ConfigError(f"{key} must be a non-negative integer; got {value!r}")


@dataclass
class PreparedTrial:
    """A trial with its data loaded and split and its objects built (no generator run yet)."""

    cfg: TrialConfig
    spec: DatasetSpec
    loaded: LoadedDataset
    train: pd.DataFrame
    control: pd.DataFrame
    test: pd.DataFrame
    split: Split
    generator: BaseGenerator
    generator_seed: int
    metric_objects: dict[str, Any]
    variant_key: str
    trial_key: str


def prepare_trial(cfg: TrialConfig) -> PreparedTrial:
    """Load, split and build everything a trial needs; raise on bad input.

    Raises
    ------
    PrivbenchError
        Unknown names, impossible parameters or unusable data (one-line message).
    """
    cfg.validate()
    declared = cfg.dataset_cfg.get("name")
    if declared is not None and str(declared) != cfg.dataset:
        raise ConfigError(
            f"dataset {cfg.dataset!r}: key 'name' must equal the file name {cfg.dataset!r} "
            f"(dataset/{cfg.dataset}.yaml); got {declared!r}"
        )
    spec = _with_active_qi(DatasetSpec.from_dict(cfg.dataset_cfg, name=cfg.dataset), cfg)
    loaded = load_dataset(spec, base_dir=cfg.base_dir)
    declared_rules(spec)  # preprocess.derived_columns: malformed rules fail before any trial runs
    frame, test_mask = _subsample(loaded.frame, loaded.test_mask, cfg.max_rows, cfg.split_seed)
    y = frame[spec.target] if spec.target is not None and spec.task in ("binary", "multiclass") else None
    split = make_split(
        len(frame), cfg.split, split_seed=cfg.split_seed, fold=cfg.fold, y=y, test_mask=test_mask
    )
    train, control, test = split.take(frame)
    with gc_paused():  # a plugin's first build imports its libraries (harness.gc_policy)
        generator = build_generator(cfg.generator, cfg.generator_cfg)
    generator.validate_spec(generator_view(train, control, spec)[2])  # e.g. strict DP needs a public domain
    with gc_paused():
        metric_objects = {name: build_metric(name, mcfg) for name, mcfg in cfg.metrics.items()}
    generator_seed = derive_seed(cfg.gen_seed, "generator", cfg.generator)
    target, _, _ = split_config(cfg.generator_cfg)
    info = generator.info()
    variant_payload = {
        "privbench": harness.__version__,
        "dataset_digest": loaded.digest,
        "max_rows": cfg.max_rows,
        "split": cfg.split.to_dict(),
        "split_seed": cfg.split_seed,
        "fold": cfg.fold,
        "qi_set": spec.qi_set_name if info.needs_qi else None,
        "generator_target": target,
        "generator_params": generator.get_params(),
        "generator_seed": generator_seed,
        "n_rows": cfg.n_rows,
    }
    variant_key = content_key(variant_payload)
    trial_key = content_key(
        {
            "variant": variant_key,
            "qi_set": spec.qi_set_name,
            "metrics": {
                n: [split_config(m)[0], m_obj.get_params()]
                for (n, m), m_obj in zip(cfg.metrics.items(), metric_objects.values())
            },
            "experiment": cfg.experiment,
            "calibration": CALIBRATION_VERSION if cfg.calibrate else None,
        }
    )
    return PreparedTrial(
        cfg,
        spec,
        loaded,
        train,
        control,
        test,
        split,
        generator,
        generator_seed,
        metric_objects,
        variant_key,
        trial_key,
    )


def run_trial(cfg: TrialConfig) -> pd.DataFrame:
    """Run one trial and return its result rows (schema: :mod:`harness.schema`).

    Parameters
    ----------
    cfg : TrialConfig

    Returns
    -------
    DataFrame
        One row per (metric, variant) plus the cost rows.

    Raises
    ------
    PrivbenchError
        For bad input only; generator and metric failures are rows.
    """
    return run_prepared(prepare_trial(cfg))


def run_prepared(prepared: PreparedTrial) -> pd.DataFrame:
    """Run a trial built by :func:`prepare_trial` (see :func:`run_trial`)."""
    cfg = prepared.cfg
    configure_memo(cfg.cache_dir, enabled=cfg.use_cache)  # plugins' cross-trial memo (harness.memo)
    trial_cache = TrialCache(cfg.cache_dir)
    if cfg.use_cache:
        cached = trial_cache.get(prepared.trial_key)
        if cached is not None:
            cached = cached.copy()
            cached["run_id"] = cfg.run_id
            cached["resumed"] = True
            return to_results_frame(
                [{str(k): v for k, v in row.items()} for row in cached.to_dict("records")]
            )
    variant = _obtain_variant(prepared)
    rows = _metric_rows(prepared, variant)
    frame = to_results_frame(rows)
    if variant.status in ("ok", "error", "skipped"):
        trial_cache.put(prepared.trial_key, frame)
    return frame


# ---------------------------------------------------------------------- variant
@dataclass(frozen=True)
class VariantOutcome:
    """The released table (or why there is none) and how it was obtained."""

    status: str
    table: pd.DataFrame | None
    error: str
    fit_s: float
    sample_s: float
    peak_rss_mb: float
    cache_hit: bool
    details: dict[str, Any]


def _trial_label(p: PreparedTrial) -> str:
    """The trial in a progress line: dataset, generator, seeds."""
    return (
        f"{p.cfg.dataset} {p.cfg.generator} split_seed={p.cfg.split_seed} fold={p.cfg.fold} "
        f"gen_seed={p.cfg.gen_seed}"
    )


def _obtain_variant(p: PreparedTrial) -> VariantOutcome:
    cache = VariantCache(p.cfg.cache_dir)
    if p.cfg.use_cache:
        hit = cache.get(p.variant_key)
        if hit is not None:
            table, meta = hit
            return VariantOutcome(
                "ok", conform(table, p.spec, where="cached variant"), "", meta.get("fit_s", math.nan),
                meta.get("sample_s", math.nan), meta.get("peak_rss_mb", math.nan), True, meta.get("details", {}),
            )  # fmt: skip
    tmp_dir = Path(p.cfg.cache_dir) / "tmp"
    tmp_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=tmp_dir) as work:
        out_path = Path(work) / "variant.parquet"
        control = p.control if p.generator.info().needs_control else None
        if p.cfg.start_method == "fork":  # first-use set-up paid here once, not in every fit child
            warm_parquet_writer()
            warm_thread_budget()
        with stage(f"fitting and sampling {p.cfg.generator}", _trial_label(p)):
            outcome = run_isolated(
                _fit_and_sample,
                (
                    p.generator,
                    p.train,
                    control,
                    p.spec,
                    p.generator_seed,
                    p.cfg.n_rows,
                    out_path,
                    p.cfg.threads,
                ),
                timeout_s=p.cfg.timeout_s,
                max_memory_mb=p.cfg.max_memory_mb,
                start_method=p.cfg.start_method,
            )
        if outcome.status != "ok":
            status: str = outcome.status
            error = outcome.error
            if outcome.error_type == InfeasibleConfigError.__name__:
                reason = error.splitlines()[0].split(": ", 1)[-1]  # one line: the reason, not the traceback
                status, error = "skipped", "infeasible: " + reason
            return VariantOutcome(status, None, error, math.nan, math.nan, outcome.peak_rss_mb, False, {})
        result = dict(outcome.value)
        table = conform(read_parquet(out_path), p.spec, where="variant")
        artifacts = sorted(f.name for f in Path(work).glob("artifact-*.parquet"))
        details = {
            "generator_info": result.get("info", p.generator.info().to_dict()),
            "rows": len(table),
            "generator": result.get("details", {}),
            "artifacts": [a[len("artifact-") : -len(".parquet")] for a in artifacts],
        }
        sidecar = {
            "generator": p.cfg.generator,
            "generator_params": p.generator.get_params(),
            "generator_seed": p.generator_seed,
            "dataset": p.spec.name,
            "fit_s": result["fit_s"],
            "sample_s": result["sample_s"],
            "peak_rss_mb": outcome.peak_rss_mb,
            "details": details,
            "versions": versions(),
        }
        if p.cfg.use_cache:
            for artifact in artifacts:
                cache.put_artifact(
                    p.variant_key, artifact[len("artifact-") : -len(".parquet")], Path(work) / artifact
                )
            cache.put_file(p.variant_key, out_path, sidecar)  # the sidecar last: it marks a complete entry
    return VariantOutcome(
        "ok", table, "", result["fit_s"], result["sample_s"], outcome.peak_rss_mb, False, details
    )


def _fit_and_sample(
    generator: BaseGenerator,
    train: pd.DataFrame,
    control: pd.DataFrame | None,
    spec: DatasetSpec,
    seed: int,
    n_rows: int | None,
    out_path: Path,
    threads: int,
) -> dict[str, Any]:
    """Child-process body: fit, sample, write the variant (and artifacts) as Parquet next to ``out_path``.

    Derived columns the dataset declares (``preprocess.derived_columns``, :mod:`harness.derived`)
    are hidden from the generator and recomputed on its release (part of ``sample_s``).
    """
    with limit_threads(threads):
        start = time.perf_counter()
        fit_train, fit_control, fit_spec, rules = generator_view(train, control, spec)
        generator.fit(fit_train, fit_spec, seed=seed, control=fit_control)
        fit_s = time.perf_counter() - start
        start = time.perf_counter()
        table = generator.sample(n_rows)
        if rules:
            table = complete(table, spec, rules, reference=train)
        sample_s = time.perf_counter() - start
    Path(out_path).write_bytes(parquet_bytes(table))
    for name, artifact in generator.artifacts().items():
        Path(out_path).with_name(f"artifact-{name}.parquet").write_bytes(parquet_bytes(artifact))
    return {
        "fit_s": fit_s,
        "sample_s": sample_s,
        "details": json.loads(canonical_json(generator.details())),
        "info": json.loads(canonical_json(generator.info().to_dict())),  # flags may depend on the fit
    }


# ---------------------------------------------------------------------- metrics
def _metric_rows(p: PreparedTrial, variant: VariantOutcome) -> list[dict[str, Any]]:
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
            with stage(f"computing {name}", _trial_label(p)):
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


def _with_active_qi(spec: DatasetSpec, cfg: TrialConfig) -> DatasetSpec:
    """The trial's QI set: ``qi_set``, or the generator's own ``qi`` / ``qi_index`` (they must agree)."""
    params = dict(cfg.generator_cfg)
    own = params.get("qi") if params.get("qi") is not None else params.get("qi_index")
    chosen = spec.with_active_qi(cfg.qi_set)
    if own is None:
        return chosen
    mine = spec.with_active_qi(own)
    if cfg.qi_set is not None and mine.qi_set_name != chosen.qi_set_name:
        raise ConfigError(
            f"qi_set={cfg.qi_set!r} differs from the generator's QI set {own!r}; set one of them"
        )
    return mine


def _subsample(
    frame: pd.DataFrame, test_mask: np.ndarray | None, max_rows: int | None, split_seed: int
) -> tuple[pd.DataFrame, np.ndarray | None]:
    if max_rows is None or len(frame) <= max_rows:
        return frame, test_mask
    rng = np.random.default_rng(derive_seed(split_seed, "max_rows"))
    keep = np.sort(rng.choice(len(frame), size=int(max_rows), replace=False))
    return frame.iloc[keep].reset_index(drop=True), None if test_mask is None else np.asarray(test_mask)[keep]


def _isnan(value: Any) -> bool:
    try:
        return bool(np.isnan(value))
    except TypeError:
        return value is None


__all__ = [
    "COST_METRICS",
    "PreparedTrial",
    "PrivbenchError",
    "TrialConfig",
    "prepare_trial",
    "run_prepared",
    "run_trial",
]
