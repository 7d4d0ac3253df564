"""``privbench run``: preflight, Hydra's run or multirun, and the outcome summary."""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
from pathlib import Path

from harness.errors import ConfigError
from harness.gc_policy import resume_after_startup


def run_command(rest: list[str]) -> int:
    """``privbench run [--no-preflight] [-m] [overrides...]``; returns the exit code.

    Validates every job first (the preflight: :func:`harness.preflight.preflight_jobs`),
    resumes an unfinished identical sweep, runs Hydra, and prints the one-line summary of the
    trials' outcomes (:mod:`harness.run_status`).
    """
    skip_preflight = "--no-preflight" in rest
    if skip_preflight:
        rest.remove("--no-preflight")
    multirun = "-m" in rest or "--multirun" in rest
    try:
        import harness.app  # noqa: F401  the trial's stack (scikit-learn, SciPy, pandas, Hydra), collector paused
        from harness.preflight import check_repeated_keys, per_name_overrides
    finally:
        resume_after_startup()

    check_repeated_keys([a for a in rest if not a.startswith("-")])
    from harness.slurm_config import require_for

    require_for([a for a in rest if not a.startswith("-")])
    _check_results_dir(Path(os.environ.get("PRIVBENCH_RESULTS_DIR", "results")))

    rest = [a for a in rest if a.startswith("-")] + per_name_overrides(
        [a for a in rest if not a.startswith("-")]
    )
    if multirun:
        from harness.preflight import sweep_safe_overrides

        plain = sweep_safe_overrides([a for a in rest if not a.startswith("-")])
        rest = [a for a in rest if a.startswith("-")] + plain
    overrides = [a for a in rest if not a.startswith("-")]
    flags = [a for a in rest if a.startswith("-")]
    hydra_only = {
        "--cfg",
        "-c",
        "--help",
        "-h",
        "--hydra-help",
        "--info",
        "-i",
        "--resolve",
        "--package",
        "-p",
    }
    plan_env: dict[str, str] = {}
    if not skip_preflight and not (set(flags) & hydra_only):
        from harness.collect import SWEEP_PLAN_ENV
        from harness.preflight import preflight_jobs

        jobs = preflight_jobs(overrides, multirun=multirun, base_dir=Path.cwd())
        plan_env["PRIVBENCH_N_JOBS"] = str(len(jobs))
        if multirun:
            plan_env[SWEEP_PLAN_ENV] = str(_write_plan(jobs))
        print(f"privbench: {len(jobs)} trial(s) validated", file=sys.stderr)
        if multirun and not any(o.split("=", 1)[0].lstrip("+") == "hydra.sweep.dir" for o in overrides):
            from harness.collect import unfinished_sweep

            resumed = unfinished_sweep(Path(os.environ.get("PRIVBENCH_RESULTS_DIR", "results")), jobs)
            if resumed is not None:
                sweep_dir, done = resumed
                print(
                    f"privbench: resuming {sweep_dir} (the same sweep, stopped with {done} of {len(jobs)} "
                    "trial(s) done); set hydra.sweep.dir to run into another directory",
                    file=sys.stderr,
                )
                rest.append(f"hydra.sweep.dir={sweep_dir}")
    from harness import slurm_config, sweep_validation
    from harness.app import hydra_main
    from harness.run_status import STATUS_DIR_ENV, new_status_dir, read_outcomes, summary

    if slurm_config.AVAILABLE:
        from harness import slurm_launcher

        slurm_launcher.install()  # hydra/launcher=slurm: completed trials not resubmitted, lost jobs in the summary
    sweep_validation.install()  # the preflight composed every job: Hydra's sweeper need not again

    reports = not (set(flags) & hydra_only)
    status_dir = new_status_dir(Path(os.environ.get("PRIVBENCH_RESULTS_DIR", "results")))
    if reports:
        plan_env[STATUS_DIR_ENV] = str(status_dir)
    saved = sys.argv, {key: os.environ.get(key) for key in plan_env}
    sys.argv = ["privbench", *rest]
    os.environ.update(plan_env)
    try:
        hydra_main()
    finally:
        sys.argv = saved[0]
        for key, value in saved[1].items():  # a later command in this process plans its own sweep
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    if not reports:
        return 0
    planned = int(plan_env["PRIVBENCH_N_JOBS"]) if "PRIVBENCH_N_JOBS" in plan_env else None
    line, code = summary(read_outcomes(status_dir), planned)
    print(line, file=sys.stderr)
    shutil.rmtree(status_dir, ignore_errors=True)
    return code


def _check_results_dir(root: Path) -> None:
    """Raise :class:`ConfigError` unless the results directory exists as a folder (or can be made) and is writable."""
    probe = root
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if probe.exists() and not probe.is_dir():
        raise ConfigError(
            f"results directory {root}: {probe} is a file; expected a folder (set PRIVBENCH_RESULTS_DIR or hydra.sweep.dir)"
        )
    if not os.access(probe, os.W_OK | os.X_OK):
        raise ConfigError(
            f"results directory {root}: {probe} is not writable; expected a folder you can write "
            "(set PRIVBENCH_RESULTS_DIR or hydra.sweep.dir)"
        )


def _write_plan(jobs: list[list[str]]) -> Path:
    """The sweep's job override lists, in a content-addressed file under the results cache.

    The first job copies it into the sweep directory (``sweep.json``), where ``collect``
    finds the planned trials; it lives under the results directory so compute nodes that
    share it can read it.
    """
    from harness.spec import canonical_json
    from harness.storage import atomic_write_bytes

    text = canonical_json(jobs)
    root = Path(os.environ.get("PRIVBENCH_RESULTS_DIR", "results"))
    path = (root / ".cache" / "sweeps" / f"{hashlib.sha256(text.encode()).hexdigest()[:16]}.json").resolve()
    if not path.is_file():
        atomic_write_bytes(path, text.encode())
    return path
