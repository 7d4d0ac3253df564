"""``privbench reproduce``: run a paper reproduction and check it against the paper.

1. Validate every job of every sweep (the same preflight as ``privbench run``): bad input
   stops the command before the first trial.
2. Run each sweep as a Hydra multirun into one run directory,
   ``results/<experiment>/<timestamp>/<sweep>/<job>/rows.parquet`` (a child ``privbench run``
   per sweep, so trials keep their isolation, caching and resume).
3. Collect the rows, let the experiment's check module write the paper's tables and figures
   into ``reproduction/`` and evaluate its checks into ``reproduction/checks.json``: one
   entry per check with ``expected``, ``observed``, ``level``, ``pass`` and ``verdict``
   (``spec/reproductions.md`` §0.1), plus the run's cost and machine.

A check function that raises is recorded as a failed check with the error, so one bug
cannot hide the other checks; tests assert that no check carries an error.
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
import time
import traceback
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from harness.collect import collect, result_files, write_table
from harness.errors import ConfigError, DataError
from harness.reproduction.adequacy import Gate, apply_gates
from harness.reproduction.checks import Check
from harness.reproduction.plan import ReproductionPlan, Sweep
from harness.reproduction.referee import Lead, referee_summary
from harness.reproduction.view import ReproductionRun
from harness.schema import empty_results
from harness.storage import atomic_write_json
from harness.versions import versions

CHECKS_FILE = "checks.json"
META_FILE = "reproduction.json"


def results_root(base_dir: Path) -> Path:
    """``$PRIVBENCH_RESULTS_DIR`` or ``<base_dir>/results`` (as ``privbench run`` uses)."""
    root = Path(os.environ.get("PRIVBENCH_RESULTS_DIR", "results"))
    return root if root.is_absolute() else base_dir / root


RUNS_DIR = Path("reproductions") / "runs"
"""Under the results root: the committed runs of profiles with ``persist: true``."""


def persistent_run_dir(plan: ReproductionPlan, base_dir: Path) -> Path:
    """``results/reproductions/runs/<experiment>/<profile>``: the committed, resumable run of a profile."""
    return results_root(base_dir) / RUNS_DIR / plan.experiment / plan.profile


def completed_jobs(run_dir: Path) -> int:
    """Number of job directories of ``run_dir`` that already hold their ``rows.parquet``."""
    return len(list(Path(run_dir).glob("*/*/rows.parquet"))) if Path(run_dir).is_dir() else 0


def new_run_dir(plan: ReproductionPlan, base_dir: Path) -> Path:
    """``results/<experiment>/<timestamp>`` (a fresh directory)."""
    stamp = datetime.now().strftime("%Y-%m-%d_%H-%M-%S")
    run_dir = results_root(base_dir) / plan.experiment / stamp
    suffix = 1
    while run_dir.exists():
        suffix += 1
        run_dir = results_root(base_dir) / plan.experiment / f"{stamp}_{suffix}"
    return run_dir


def preflight_plan(plan: ReproductionPlan, extra: Sequence[str], base_dir: Path) -> dict[str, int]:
    """Validate every job of every sweep; return the number of jobs per sweep."""
    from harness.preflight import preflight

    counts = {}
    for sweep in plan.sweeps:
        try:
            counts[sweep.name] = preflight(
                plan.sweep_overrides(sweep, extra), multirun=True, base_dir=base_dir
            )
        except ConfigError as exc:
            raise ConfigError(f"{plan.experiment} sweep {sweep.name!r}: {exc}") from None
    return counts


def count_jobs(plan: ReproductionPlan, extra: Sequence[str] = ()) -> dict[str, int]:
    """Number of jobs per sweep from the override expansion alone (no data is loaded)."""
    from harness.preflight import expand_jobs, hydra_context

    with hydra_context():
        return {s.name: len(expand_jobs(plan.sweep_overrides(s, extra), multirun=True)) for s in plan.sweeps}


def run_sweep(
    plan: ReproductionPlan, sweep: Sweep, run_dir: Path, extra: Sequence[str], base_dir: Path
) -> None:
    """Run one sweep as ``privbench run -m`` in a child process (already validated)."""
    overrides = [
        *plan.sweep_overrides(sweep, extra),
        f"hydra.sweep.dir={run_dir}",
        f"hydra.sweep.subdir={sweep.name}/${{hydra.job.num}}",
    ]
    command = [sys.executable, "-m", "harness.cli", "run", "--no-preflight", "-m", *overrides]
    print(f"privbench: sweep {sweep.name}: {' '.join(overrides[:-2])}", file=sys.stderr, flush=True)
    env = {**os.environ}
    package_root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH", "")) if p)
    proc = subprocess.run(command, cwd=base_dir, env=env)
    if proc.returncode == 1:  # trials failed: their rows (status error / timeout / oom) are written
        print(
            f"privbench: sweep {sweep.name}: some trials failed; their rows are recorded and the checks read them",
            file=sys.stderr,
            flush=True,
        )
    elif proc.returncode != 0:
        raise DataError(f"{plan.experiment} sweep {sweep.name!r} failed with exit code {proc.returncode}")


def reproduce(
    plan: ReproductionPlan,
    *,
    base_dir: Path,
    extra: Sequence[str] = (),
    run_dir: Path | None = None,
) -> Path:
    """Validate, run every sweep, then evaluate the checks; return the run directory."""
    counts = preflight_plan(plan, extra, base_dir)
    print(
        f"privbench: {plan.experiment} ({plan.profile}): {sum(counts.values())} trial(s) validated "
        f"in {len(counts)} sweep(s)",
        file=sys.stderr,
    )
    if run_dir is None:
        run_dir = persistent_run_dir(plan, base_dir) if plan.persist else new_run_dir(plan, base_dir)
    run_dir = Path(run_dir)
    done = completed_jobs(run_dir)
    if done:
        print(
            f"privbench: resuming {run_dir}: {done} of {sum(counts.values())} job(s) already have their rows",
            file=sys.stderr,
        )
    run_dir.mkdir(parents=True, exist_ok=True)
    started = datetime.now(UTC)
    start = time.perf_counter()
    previous = (
        _read_json(run_dir / "reproduction" / META_FILE)
        if (run_dir / "reproduction" / META_FILE).is_file()
        else {}
    )

    def record_sitting() -> None:
        """Write reproduction.json with this sitting so far: a stopped run can be evaluated and resumed."""
        sittings = [*previous.get("sittings", []), {
            "started": started.isoformat(timespec="seconds"),
            "wall_seconds": time.perf_counter() - start,
            "jobs_before": done,
            "jobs_after": completed_jobs(run_dir),
            "machine": machine(),
        }]  # fmt: skip
        meta = {
            "experiment": plan.experiment,
            "id": plan.id,
            "profile": plan.profile,
            "overrides": list(plan.overrides) + list(extra),
            "sweeps": {s.name: list(s.overrides) for s in plan.sweeps},
            "jobs": counts,
            "started": sittings[0]["started"],
            "wall_seconds": sum(float(s["wall_seconds"]) for s in sittings),
            "sittings": sittings,
            "machine": machine(),
            "versions": versions(),
        }
        atomic_write_json(run_dir / "reproduction" / META_FILE, meta)

    record_sitting()
    for sweep in plan.sweeps:
        finished = len(list((run_dir / sweep.name).glob("*/rows.parquet")))
        if finished >= counts[sweep.name]:  # not even launched: each job would only find its rows
            print(
                f"privbench: sweep {sweep.name}: all {counts[sweep.name]} job(s) already have their rows",
                file=sys.stderr,
                flush=True,
            )
            continue
        os.environ["PRIVBENCH_N_JOBS"] = str(counts[sweep.name])
        run_sweep(plan, sweep, run_dir, extra, base_dir)
        record_sitting()
    evaluate(plan, run_dir)
    return run_dir


def load_results(run_dir: Path) -> pd.DataFrame:
    """The collected rows of ``run_dir`` (an empty table when it has none)."""
    return collect([run_dir]) if result_files(run_dir) else empty_results()


def evaluate(plan: ReproductionPlan, run_dir: Path, *, out_dir: Path | None = None) -> list[Check]:
    """Write the paper's tables and figures and ``checks.json`` for ``run_dir``; return the checks.

    Parameters
    ----------
    plan : ReproductionPlan
        The experiment's reproduction block for the run's profile.
    run_dir : Path
        The run directory (its job directories hold the rows; a stopped run is evaluated on the
        trials it completed).
    out_dir : Path, optional
        Write checks.json, tables and figures here instead of ``run_dir/reproduction`` (the
        run's ``reproduction.json`` is copied there first, so its cost and sittings are read).
    """
    module = plan.load_checks()
    results = load_results(run_dir)
    run = ReproductionRun(plan, Path(run_dir), results, output_dir=out_dir)
    run.out_dir.mkdir(parents=True, exist_ok=True)
    own_meta = Path(run_dir) / "reproduction" / META_FILE
    if (
        out_dir is not None
        and own_meta.is_file()
        and own_meta.resolve() != (run.out_dir / META_FILE).resolve()
    ):
        shutil.copyfile(own_meta, run.out_dir / META_FILE)
    if len(results) and not plan.persist:  # a persisted run's rows are committed in its job directories
        write_table(results, run.out_dir / "results.parquet")
    artifacts_error = ""
    if hasattr(module, "artifacts"):
        try:
            module.artifacts(run)
        except Exception:
            artifacts_error = traceback.format_exc(limit=-3).strip()
            print(f"privbench: {plan.experiment}: artifacts failed:\n{artifacts_error}", file=sys.stderr)
    run.gates = evaluate_gates(module, run)
    checks: list[Check] = []
    for function in module.CHECKS:
        try:
            produced = function(run)
        except Exception as exc:
            name = getattr(function, "__name__", "check").replace("check_", "")
            produced = Check(
                name.replace("_", "-"), (function.__doc__ or name).strip().splitlines()[0], "", "", "trend",
                False, "could not be evaluated", kind="claim",
                error=f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=-3).strip()}",
            )  # fmt: skip
        checks.extend([produced] if isinstance(produced, Check) else list(produced))
    checks = apply_gates(checks, run.gates)
    ids = [c.id for c in checks]
    duplicated = sorted({i for i in ids if ids.count(i) > 1})
    if duplicated:
        raise ConfigError(f"{plan.checks_module}: duplicate check id(s) {', '.join(duplicated)}")
    meta_path = run.out_dir / META_FILE
    meta = _read_json(meta_path) if meta_path.is_file() else {}
    if plan.persist:  # sweeps appended to the profile since the last sitting are planned too
        try:
            meta = {**meta, "jobs": {**(meta.get("jobs") or {}), **count_jobs(plan)}}
        except Exception as exc:  # a profile that no longer composes: keep the recorded plan
            print(
                f"privbench: {plan.experiment}: planned trials from the last sitting ({exc})", file=sys.stderr
            )
    atomic_write_json(
        run.out_dir / CHECKS_FILE,
        {
            "experiment": plan.experiment,
            "id": plan.id,
            "paper": plan.paper,
            "title": plan.title,
            "section": plan.section,
            "profile": plan.profile,
            "profile_description": plan.description,
            "run_dir": str(run_dir),
            "evaluated": datetime.now(UTC).isoformat(timespec="seconds"),
            "cost": {
                **cost_summary(results, meta),
                "completed_jobs": completed_jobs(run_dir),
                "progress": sweep_progress(run_dir, meta),
            },
            "artifacts": sorted(_relative_outputs(run.out_dir)),
            "artifacts_error": artifacts_error,
            "datasets": datasets_used(results, getattr(module, "DATASETS_NOTE", "")),
            "gates": [g.to_dict() for g in run.gates],
            "referee": referee_summary(checks, run.gates, _referee_notes(module, run, checks)),
            "checks": [c.to_dict() for c in checks],
        },
    )
    return checks


def evaluate_gates(module: Any, run: ReproductionRun) -> list[Gate]:
    """The module's adequacy gates (``GATES``) on ``run``; a gate that raises fails with the error."""
    gates: list[Gate] = []
    for function in getattr(module, "GATES", ()):
        try:
            produced = function(run)
        except Exception as exc:
            name = getattr(function, "__name__", "gate")
            produced = Gate(name, "could not be evaluated", False, f"{type(exc).__name__}: {exc}")
        gates.extend([produced] if isinstance(produced, Gate) else list(produced))
    return gates


def _referee_notes(module: Any, run: ReproductionRun, checks: list[Check]) -> list[str]:
    """The module's plain-word notes on this run (``referee_notes(run, checks)``), if it has any."""
    notes = getattr(module, "referee_notes", None)
    if notes is None:
        return []
    try:
        return [line if isinstance(line, Lead) else str(line) for line in notes(run, checks)]
    except Exception as exc:
        return [f"(the paper's notes could not be written: {type(exc).__name__}: {exc})"]


def datasets_used(results: pd.DataFrame, note: str = "") -> dict[str, Any]:
    """Which datasets the run used: training rows and trials per dataset, and the module's note."""
    used: dict[str, Any] = {}
    if len(results) and "dataset" in results:
        per_trial = results.drop_duplicates("trial_key")
        for dataset, group in per_trial.groupby("dataset"):
            train = pd.to_numeric(group["n_train"], errors="coerce").dropna()
            used[str(dataset)] = {
                "trials": int(len(group)),
                "n_train": sorted({int(v) for v in train}) if len(train) else [],
            }
    return {"used": used, "note": note}


def cost_summary(results: pd.DataFrame, meta: dict[str, Any]) -> dict[str, Any]:
    """Trials, row statuses, summed fit/sample/metric seconds and the wall clock of a run."""
    if len(results):
        # metric_s is the metric's whole time, repeated on each of its output rows
        per_metric = results.groupby(["trial_key", "metric"], dropna=False)["metric_s"].first()
        per_trial = results.groupby("trial_key", dropna=False).agg(
            fit=("fit_s", "first"), sample=("sample_s", "first")
        )
        per_trial["metric"] = per_metric.groupby(level="trial_key", dropna=False).sum(min_count=1)
        seconds = per_trial.sum(numeric_only=True, min_count=1).fillna(0.0)
        trials, fit, sample, metric = len(per_trial), seconds["fit"], seconds["sample"], seconds["metric"]
        statuses = {str(k): int(v) for k, v in results["status"].value_counts().items()}
    else:
        trials, fit, sample, metric, statuses = 0, 0.0, 0.0, 0.0, {}
    wall, estimated = sittings_wall_seconds(meta, results)
    return {
        "trials": int(trials),
        "statuses": statuses,
        "fit_seconds": float(fit),
        "sample_seconds": float(sample),
        "metric_seconds": float(metric),
        "wall_seconds": wall,
        "wall_from_rows": estimated,
        "machine": meta.get("machine") or machine(),
        "planned": int(sum((meta.get("jobs") or {}).values())),
        "sittings": len(meta.get("sittings") or []),
    }


def sittings_wall_seconds(meta: dict[str, Any], results: pd.DataFrame) -> tuple[float | None, bool]:
    """Wall clock of a run's sittings, and whether any sitting's was read from its rows.

    A sitting records its wall clock after each sweep; one stopped mid-sweep (the session ended)
    recorded only its start. Its wall clock is then taken as its start to the timestamp of the
    last row written before the next sitting started (rows carry the time they were written).

    Parameters
    ----------
    meta : dict
        The run's ``reproduction.json`` (``wall_seconds`` and ``sittings``).
    results : DataFrame
        The run's rows (their ``timestamp`` column).

    Returns
    -------
    tuple of (float or None, bool)
        The summed wall clock (``meta['wall_seconds']`` when there are no sittings) and whether
        a sitting's wall clock was estimated from the rows.
    """
    sittings = meta.get("sittings") or []
    if not sittings:
        return meta.get("wall_seconds"), False
    stamps = pd.to_datetime(
        results["timestamp"] if "timestamp" in results else pd.Series(dtype=str), utc=True, errors="coerce"
    ).dropna()
    starts = [pd.to_datetime(str(s.get("started")), utc=True, errors="coerce") for s in sittings]
    total, estimated = 0.0, False
    for i, sitting in enumerate(sittings):
        recorded = float(sitting.get("wall_seconds") or 0.0)
        start, end = starts[i], starts[i + 1] if i + 1 < len(starts) else pd.NaT
        if pd.isna(start):
            total += recorded
            continue
        inside = stamps[(stamps >= start) & ((stamps < end) if not pd.isna(end) else True)]
        from_rows = float((inside.max() - start).total_seconds()) if len(inside) else 0.0
        if from_rows > recorded:
            recorded, estimated = from_rows, True
        total += recorded
    return total, estimated


def sweep_progress(run_dir: Path, meta: dict[str, Any]) -> dict[str, list[int]]:
    """``{sweep: [completed jobs, planned jobs]}`` of a run (planned from its ``reproduction.json``)."""
    planned = {str(k): int(v) for k, v in (meta.get("jobs") or {}).items()}
    done = {name: 0 for name in planned}
    for rows in Path(run_dir).glob("*/*/rows.parquet"):
        sweep = rows.parent.parent.name
        done[sweep] = done.get(sweep, 0) + 1
    return {name: [done[name], planned.get(name, done[name])] for name in done}


def machine() -> dict[str, Any]:
    """CPU model, logical cores, memory and GPU of this machine (costs compare only within one)."""
    import psutil

    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    gpu = "none"
    smi = shutil.which("nvidia-smi")
    if smi:
        probe = subprocess.run(
            [smi, "--query-gpu=name", "--format=csv,noheader"], capture_output=True, text=True
        )
        gpu = (
            probe.stdout.strip().splitlines()[0] if probe.returncode == 0 and probe.stdout.strip() else "none"
        )
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gb": round(psutil.virtual_memory().total / 2**30, 1),
        "gpu": gpu,
        "os": platform.platform(terse=True),
    }


def _relative_outputs(out_dir: Path) -> list[str]:
    return [
        str(p.relative_to(out_dir))
        for p in out_dir.rglob("*")
        if p.is_file() and p.suffix in (".md", ".csv", ".png", ".pdf") and p.parent != out_dir
    ]


def _read_json(path: Path) -> dict[str, Any]:
    import json

    data = json.loads(path.read_text())
    return data if isinstance(data, dict) else {}


__all__ = [
    "CHECKS_FILE",
    "META_FILE",
    "RUNS_DIR",
    "completed_jobs",
    "count_jobs",
    "datasets_used",
    "evaluate",
    "evaluate_gates",
    "load_results",
    "machine",
    "preflight_plan",
    "reproduce",
    "results_root",
    "sittings_wall_seconds",
    "sweep_progress",
]
