"""The Hydra entry point: one job = one trial, results written atomically into the job dir.

The config root is the ``experiments`` package. A job whose ``rows.parquet`` already
exists is skipped, and a trial completed in an earlier run is served from the trial
cache, so a killed sweep restarted with the same command runs only the missing trials.
"""

from __future__ import annotations

import logging
import math
import os
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import hydra
from hydra.core.hydra_config import HydraConfig
from hydra.types import RunMode
from omegaconf import DictConfig

from harness import interrupts
from harness.collect import LOST_MARKER, write_sweep_plan
from harness.errors import ConfigError, PrivbenchError
from harness.logs import quiet_third_party
from harness.prepared_memo import prepare_or_reuse
from harness.run_status import TrialOutcome, outcome_of, record
from harness.schema import to_results_frame
from harness.spec import _plain, canonical_json, plain_dict
from harness.splits import SplitConfig
from harness.storage import atomic_write_rows, read_parquet
from harness.trial import TrialConfig, run_prepared
from harness.versions import versions

log = logging.getLogger("privbench")
ROWS_FILE = "rows.parquet"
ROOT_KEYS = frozenset(
    {
        "name", "qi_set", "split_seed", "fold", "gen_seed", "n_rows", "split", "data", "runtime",
        "dataset", "generator", "suite", "generator_overrides", "metric_overrides", "profile_name",
        "description", "reproduction",
    }
)  # fmt: skip


def trial_config(
    cfg: Mapping[str, Any],
    choices: Mapping[str, Any],
    *,
    run_id: str,
    base_dir: Path,
    overrides: Sequence[str] = (),
) -> TrialConfig:
    """Build a :class:`TrialConfig` from a composed config and Hydra's group choices.

    Parameters
    ----------
    cfg : mapping
        The composed job config (root keys of ``experiments/config.yaml``).
    choices : mapping
        ``hydra.runtime.choices`` (group -> chosen YAML name).
    run_id : str
        Name of the run directory.
    base_dir : Path
        The directory the command was started in (user data paths resolve against it).
    overrides : sequence of str
        The job's command-line overrides. A generator or metric parameter set there
        (``generator.epochs=300``, ``suite.metrics.m.x=1``) wins over a profile's
        ``generator_overrides`` / ``metric_overrides`` entry for the same parameter: an explicit
        sweep value is never silently replaced by a profile's shrinking.
    """
    plain = _plain(cfg)
    unknown = sorted(set(plain) - ROOT_KEYS - {"hydra"})
    if unknown:
        raise ConfigError(
            f"unknown config key(s) {', '.join(unknown)}; expected some of: {', '.join(sorted(ROOT_KEYS))}"
        )
    generator_name = str(choices.get("generator"))
    explicit = explicit_parameters(overrides)
    generator_cfg = dict(plain["generator"])
    profile_generator = (plain.get("generator_overrides") or {}).get(generator_name) or {}
    generator_cfg.update(
        {k: v for k, v in profile_generator.items() if k not in explicit.get("generator", ())}
    )
    metric_overrides = plain.get("metric_overrides") or {}
    metrics = {}
    for name, mcfg in ((plain.get("suite") or {}).get("metrics") or {}).items():
        mine = explicit.get(f"suite.metrics.{name}", ())
        metrics[name] = {
            **dict(mcfg),
            **{k: v for k, v in (metric_overrides.get(name) or {}).items() if k not in mine},
        }
    if not metrics:
        raise ConfigError(
            f"suite {choices.get('suite')!r} has no metrics; expected suite.metrics.<name> entries"
        )
    runtime = dict(plain.get("runtime") or {})
    known_runtime = {
        "timeout_s",
        "max_memory_mb",
        "start_method",
        "threads",
        "cache_dir",
        "use_cache",
        "calibrate",
    }
    bad = sorted(set(runtime) - known_runtime)
    if bad:
        raise ConfigError(
            f"unknown runtime key(s) {', '.join(bad)}; expected some of: {', '.join(sorted(known_runtime))}"
        )
    cache_dir = Path(runtime.get("cache_dir") or "results/.cache")
    if not cache_dir.is_absolute():
        cache_dir = base_dir / cache_dir
    return TrialConfig(
        experiment=str(plain.get("name") or "default"),
        run_id=run_id,
        dataset=str(choices.get("dataset")),
        dataset_cfg=dict(plain["dataset"]),
        generator=generator_name,
        generator_cfg=generator_cfg,
        metrics=metrics,
        qi_set=plain.get("qi_set"),
        split=SplitConfig.from_dict(plain.get("split")),
        split_seed=plain.get("split_seed", 0),
        fold=plain.get("fold", 0),
        gen_seed=plain.get("gen_seed", 0),
        n_rows=plain.get("n_rows"),
        max_rows=(plain.get("data") or {}).get("max_rows"),
        timeout_s=runtime.get("timeout_s", 3600.0),
        max_memory_mb=runtime.get("max_memory_mb"),
        start_method=str(runtime.get("start_method", "fork")),
        threads=int(runtime.get("threads", 1)),
        cache_dir=cache_dir,
        use_cache=bool(runtime.get("use_cache", True)),
        base_dir=base_dir,
        calibrate=bool(runtime.get("calibrate", True)),
    )


def explicit_parameters(overrides: Sequence[str]) -> dict[str, set[str]]:
    """Parameters set by command-line overrides: ``{"generator": {"epochs"}, "suite.metrics.m": {"x"}}``.

    Only the first level below the generator or a suite metric counts (``generator.g2_params.k=1``
    marks ``g2_params``).
    """
    out: dict[str, set[str]] = {}
    for override in overrides:
        key = override.split("=", 1)[0].lstrip("+~")
        parts = key.split(".")
        if parts[0] == "generator" and len(parts) >= 2:
            out.setdefault("generator", set()).add(parts[1])
        elif parts[:2] == ["suite", "metrics"] and len(parts) >= 4:
            out.setdefault(".".join(parts[:3]), set()).add(parts[3])
    return out


def run_job(cfg: DictConfig) -> str:
    """Run the trial of the current Hydra job and write ``rows.parquet`` into its output dir.

    Returns
    -------
    str
        The job's status summary (``ok``, ``skipped-existing`` or the worst row status).
    """
    interrupts.check()  # a Ctrl-C that an earlier trial's fork hook swallowed
    quiet_third_party()
    hc = HydraConfig.get()
    out_dir = Path(hc.runtime.output_dir)
    multirun = hc.mode == RunMode.MULTIRUN
    run_dir = Path(hc.sweep.dir) if multirun else out_dir
    rows_path = out_dir / ROWS_FILE
    label = " ".join(hc.overrides.task) or "(defaults)"
    start = time.perf_counter()
    choices = plain_dict(hc.runtime.choices)
    _remove_stale_temp_files(out_dir)
    if multirun:
        write_sweep_plan(out_dir.parent)
    try:
        prepared = prepare_or_reuse(
            trial_config(
                cfg,
                choices,
                run_id=run_dir.name,
                base_dir=Path(hc.runtime.cwd),
                overrides=list(hc.overrides.task),
            )
        )
        if rows_path.exists():
            if read_parquet(rows_path)["trial_key"].iloc[0] == prepared.trial_key:
                log.info(
                    "job %s: results already present, skipped (%s)", hc.job.num if multirun else 0, label
                )
                record(_job_id(hc, multirun), TrialOutcome(label, "present"))
                return "skipped-existing"
            raise ConfigError(
                f"{rows_path} holds the results of another trial; choose another hydra.run.dir / hydra.sweep.dir"
            )
        rows = run_prepared(prepared)
    except PrivbenchError as exc:
        if not multirun or os.environ.get("PRIVBENCH_FAIL_FAST"):
            raise
        rows = _config_error_rows(cfg, choices, run_dir.name, exc)
    atomic_write_rows(rows_path, rows)
    record(_job_id(hc, multirun), outcome_of(rows, label))
    worst = _worst_status(rows["status"].tolist())
    resumed = bool(rows["resumed"].fillna(False).any())
    total = os.environ.get("PRIVBENCH_N_JOBS")
    position = f"[{int(hc.job.num) + 1}/{total}] " if multirun and total else ""
    log.info(
        "%strial done in %.1f s: %s [%s%s]", position, time.perf_counter() - start, label, worst,
        ", resumed from cache" if resumed else "",
    )  # fmt: skip
    return worst


def _job_id(hc: Any, multirun: bool) -> str:
    """The job's name in the status folder: its number in a multirun, ``0`` for a single run."""
    return f"{int(hc.job.num):06d}" if multirun else "000000"


def _remove_stale_temp_files(job_dir: Path) -> None:
    """Delete the temp files of a write killed in an earlier attempt at this job (only this job writes here),
    and the status row of a lost SLURM job (:data:`~harness.collect.LOST_MARKER`): this run replaces it."""
    for stale in job_dir.glob(f".{ROWS_FILE}.*.tmp"):
        stale.unlink(missing_ok=True)
    if (job_dir / LOST_MARKER).exists():
        (job_dir / ROWS_FILE).unlink(missing_ok=True)
        (job_dir / LOST_MARKER).unlink(missing_ok=True)


def _config_error_rows(cfg: DictConfig, choices: Mapping[str, Any], run_id: str, exc: Exception) -> Any:
    plain = _plain(cfg)
    return to_results_frame(
        [
            {
                "run_id": run_id,
                "experiment": str(plain.get("name") or "default"),
                "dataset": str(choices.get("dataset")),
                "qi_set": plain.get("qi_set") or "",
                "split_seed": plain.get("split_seed"),
                "fold": plain.get("fold"),
                "generator": str(choices.get("generator")),
                "generator_params": canonical_json(
                    {k: v for k, v in plain["generator"].items() if k != "check_params"}
                ),
                "gen_seed": plain.get("gen_seed"),
                "metric": "(trial)",
                "variant": "",
                "family": "cost",
                "value": math.nan,
                "status": "error",
                "error": f"{type(exc).__name__}: {exc}",
                "versions": canonical_json(versions()),
                "cache_hit": False,
                "resumed": False,
            }
        ]
    )


def _worst_status(statuses: list[str]) -> str:
    order = ["ok", "skipped", "error", "timeout", "oom"]
    return max(statuses, key=order.index) if statuses else "ok"


@hydra.main(version_base=None, config_path="pkg://experiments", config_name="config")
def hydra_main(cfg: DictConfig) -> str:
    """Hydra task function (``privbench run`` calls it with the command-line overrides)."""
    try:
        return run_job(cfg)
    except PrivbenchError as exc:
        if os.environ.get("PRIVBENCH_DEBUG"):
            raise
        print(f"privbench: error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
