"""Overhead around a trial's recorded work: issue 15's changes as toggles, side by side in one run.

A trial records its work as ``fit_s``, ``sample_s`` and each metric's ``metric_s``; everything
else in a ``privbench run`` (interpreter start, imports, Hydra composition and launch,
preflight, data loading, the fit child's start, calibration, writing rows) is overhead. This
benchmark runs real ``privbench run`` commands in fresh processes, each with fresh result and
cache directories, under these configurations (environment switches; results do not depend
on them):

``before``
    ``PRIVBENCH_LAZY_IMPORTS=0 PRIVBENCH_TRTR_MEMO=0``: SDMetrics imported as shipped (torch
    included) by the first SDMetrics metric's ``compute``, numba imported by every
    ``limit_threads``, the TRTR baseline of ``ml_efficacy`` memoised in-process only.
``lazy imports``
    SDMetrics imported without torch when its metrics are built, numba never imported for
    ``limit_threads`` (:mod:`metrics.fidelity.sdmetrics_lazy`, :mod:`harness.threads`).
``trtr memo``
    The TRTR baseline memoised across processes in the trial cache
    (:mod:`metrics.utility.trtr_memo`).
``after``
    Both.
``no revalidation``
    Both, and Hydra's sweeper no longer composes every job a second time after privbench's
    preflight did (:mod:`harness.sweep_validation`); the other configurations keep Hydra's pass
    (``PRIVBENCH_HYDRA_VALIDATE=1``).
``issue 18``
    ``no revalidation``, and (tracker issue 18; the configurations above turn these off with
    ``PRIVBENCH_COMPOSE_ONCE=0 PRIVBENCH_SDMETRICS_PARTIAL=0 PRIVBENCH_WARM_UP=0``): each
    distinct Hydra defaults tree composed once per command, Hydra's mode probe, its run /
    multirun composition and the launcher's per-job composition reusing it
    (:mod:`harness.composition_memo`); only the SDMetrics subpackages a metric uses imported
    (:mod:`metrics.fidelity.sdmetrics_lazy`); a metric's first-use imports (Anonymeter, numba,
    polars) and the thread budget's set-up done before its clock starts
    (:func:`harness.trial_metrics.warm_up`), so no longer part of the recorded work.
``reuse prepared``
    ``issue 18``, and a job running in the preflight's process takes the trial the preflight
    built (data loaded and split, generator and metrics constructed) instead of building it
    again (:mod:`harness.prepared_memo`; off above with ``PRIVBENCH_REUSE_PREPARED=0``).
``fast exit``
    ``reuse prepared``, and the process ends without the interpreter's module teardown once
    privbench is done (:mod:`harness.process_exit`; off above with ``PRIVBENCH_FAST_EXIT=0``).
``table cache``
    ``fast exit``, and the dataset is read from the parsed-table cache on disk instead of
    parsed again (:mod:`harness.datasets.table_cache`; off above with
    ``PRIVBENCH_DATASET_CACHE=0``; the warm-up trial fills it, as a first run on a machine
    would).
``gc paused``
    ``table cache``, and the garbage collector paused while the trial's libraries are imported,
    what survives the imports frozen out of later collections (:mod:`harness.gc_policy`; off
    above with ``PRIVBENCH_GC_PAUSE=0``).
``warm worker``
    ``gc paused``, with every command handed to a warm worker (``privbench worker start``,
    :mod:`harness.worker_server`) started before the configuration's first run; the wall
    time is the command's, interpreter start included, and the CPU time adds the worker's
    child that ran it. The worker's own start (imports, about 3 s) is paid once, outside the
    measurement, as a user pays it once per session.
``pre-imported``
    A simulation, not a feature: ``gc paused`` with scikit-learn, SciPy, Anonymeter (numba,
    polars) and the harness imported before the clock starts, and the wall time taken from the
    command's own clock (no interpreter start or exit): what a long-lived worker that has
    already imported them would take (issue 18's open question). Its CPU column still
    includes the imports.
``tree <commit>`` (``--baseline-tree PATH``)
    Another checkout, e.g. a worktree of an earlier commit, run with its own defaults as the
    first configuration: changes that have no switch measured side by side.

Workloads:

``single``
    ``privbench run generator=identity suite=fast`` (one trial; plus ``--extra`` overrides,
    default ``profile=quick``); the TRTR memo plays no part (no ``ml_efficacy``).
``sweep``
    A 10-trial sweep with the default suite and the quick profile (``--sweep identity``:
    ``generator=identity gen_seed=0..9``; ``--sweep quickstart``: ``experiment=quickstart``, five
    reference generators x two seeds), launched as one ``privbench run -m`` (Hydra's basic
    launcher: one process, the in-process TRTR memo already shared) and as one process per
    trial (``--launch processes``, ``privbench run --no-preflight`` per job: how submitit /
    SLURM jobs run, without the submission machinery), the processes sharing one cache.

Reported per configuration: the wall time of the command(s), their CPU time (user + system, the
fit children included: steadier than wall time on a shared machine), the recorded work (fit +
sample of variants not served from the cache, plus every metric's ``metric_s`` and
``calib_s``), the
recorded-work share (recorded / wall) and the wall and CPU ratios ``before`` / configuration.
Configurations run interleaved in ``--repeats`` rounds (medians reported); an unmeasured warm-up
trial first fills numba's on-disk kernel cache, the parsed-table cache and the OS file cache. ``--breakdown`` instead runs each
workload once, instrumented, and prints where its wall time goes (phases, Hydra compositions,
the slowest imports by package from ``python -X importtime``). Run::

    python -m benchmarks.bench_trial_overhead                          # single + identity sweep, both launches
    python -m benchmarks.bench_trial_overhead --workloads single --repeats 3
    python -m benchmarks.bench_trial_overhead --sweep quickstart --launch processes
    python -m benchmarks.bench_trial_overhead --breakdown --sweep quickstart
    python -m benchmarks.bench_trial_overhead --workloads sweep --launch multirun --trials 10 30 \
        --configs "table cache" --baseline-tree /tmp/wt   # per-process and per-trial overhead
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
PREIMPORT_ENV = "PRIVBENCH_BENCH_PREIMPORT"
"""Set to 1 by the ``pre-imported`` configuration: the child imports before its clock starts."""
WORKER_BENCH_ENV = "PRIVBENCH_BENCH_WORKER"
"""Set to 1 by the ``warm worker`` configuration: the command is handed to a running worker."""
WORKER_DIR = Path(tempfile.gettempdir()) / f"privbench-bench-worker-{os.getpid()}"
"""The ``warm worker`` configuration's worker folder (the other configurations never use a worker)."""
ISSUE_18_OFF = {
    "PRIVBENCH_COMPOSE_ONCE": "0",
    "PRIVBENCH_SDMETRICS_PARTIAL": "0",
    "PRIVBENCH_WARM_UP": "0",
    "PRIVBENCH_REUSE_PREPARED": "0",
    "PRIVBENCH_FAST_EXIT": "0",
    "PRIVBENCH_DATASET_CACHE": "0",
    "PRIVBENCH_GC_PAUSE": "0",
}
CONFIGS: dict[str, dict[str, str]] = {
    "before": {
        "PRIVBENCH_LAZY_IMPORTS": "0",
        "PRIVBENCH_TRTR_MEMO": "0",
        "PRIVBENCH_HYDRA_VALIDATE": "1",
        **ISSUE_18_OFF,
    },
    "lazy imports": {
        "PRIVBENCH_LAZY_IMPORTS": "1",
        "PRIVBENCH_TRTR_MEMO": "0",
        "PRIVBENCH_HYDRA_VALIDATE": "1",
        **ISSUE_18_OFF,
    },
    "trtr memo": {
        "PRIVBENCH_LAZY_IMPORTS": "0",
        "PRIVBENCH_TRTR_MEMO": "1",
        "PRIVBENCH_HYDRA_VALIDATE": "1",
        **ISSUE_18_OFF,
    },
    "after": {
        "PRIVBENCH_LAZY_IMPORTS": "1",
        "PRIVBENCH_TRTR_MEMO": "1",
        "PRIVBENCH_HYDRA_VALIDATE": "1",
        **ISSUE_18_OFF,
    },
    "no revalidation": {
        "PRIVBENCH_LAZY_IMPORTS": "1",
        "PRIVBENCH_TRTR_MEMO": "1",
        "PRIVBENCH_HYDRA_VALIDATE": "0",
        **ISSUE_18_OFF,
    },
    "issue 18": {
        "PRIVBENCH_LAZY_IMPORTS": "1",
        "PRIVBENCH_TRTR_MEMO": "1",
        "PRIVBENCH_HYDRA_VALIDATE": "0",
        "PRIVBENCH_COMPOSE_ONCE": "1",
        "PRIVBENCH_SDMETRICS_PARTIAL": "1",
        "PRIVBENCH_WARM_UP": "1",
        "PRIVBENCH_REUSE_PREPARED": "0",
        "PRIVBENCH_FAST_EXIT": "0",
        "PRIVBENCH_DATASET_CACHE": "0",
        "PRIVBENCH_GC_PAUSE": "0",
    },
}
CONFIGS["reuse prepared"] = {**CONFIGS["issue 18"], "PRIVBENCH_REUSE_PREPARED": "1"}
CONFIGS["fast exit"] = {**CONFIGS["reuse prepared"], "PRIVBENCH_FAST_EXIT": "1"}
CONFIGS["table cache"] = {**CONFIGS["fast exit"], "PRIVBENCH_DATASET_CACHE": "1"}
CONFIGS["gc paused"] = {**CONFIGS["table cache"], "PRIVBENCH_GC_PAUSE": "1"}
CONFIGS["pre-imported"] = {**CONFIGS["gc paused"], PREIMPORT_ENV: "1"}
CONFIGS["warm worker"] = {**CONFIGS["gc paused"], WORKER_BENCH_ENV: "1"}
QUICKSTART = ("identity", "independent_marginals", "uniform", "real_holdout", "subsample")


def sweep_runs(sweep: str, trials: int = 10) -> tuple[list[str], list[list[str]], list[str]]:
    """(overrides of every job, per-job overrides, the same sweep as multirun overrides).

    ``identity`` has ``trials`` jobs (``gen_seed=0..trials-1``); ``quickstart`` always 10.
    """
    if sweep == "identity":
        seeds = range(trials)
        return (
            ["generator=identity", "profile=quick"],
            [[f"gen_seed={s}"] for s in seeds],
            ["gen_seed=" + ",".join(str(s) for s in seeds)],
        )
    return (
        ["experiment=quickstart"],
        [[f"generator={g}", f"gen_seed={s}"] for g in QUICKSTART for s in (0, 1)],
        [],
    )


SWEEPS = ("identity", "quickstart")
HEAVY = ("torch", "numba", "sdmetrics", "anonymeter", "xgboost", "jax", "matplotlib", "umap", "statsmodels")


# ---------------------------------------------------------------------- child side
def _instrument(totals: dict[str, list[float]]) -> None:
    """Wrap the phases of a ``privbench run`` with timers accumulating into ``totals``."""
    import importlib

    def wrap(module: str, attr: str, label: str, key: Callable[..., str] | None = None) -> None:
        owner: Any = importlib.import_module(module)
        *path, name = attr.split(".")
        for part in path:
            owner = getattr(owner, part, None)
        original = getattr(owner, name, None) if owner is not None else None
        if original is None:
            return

        @functools.wraps(original)
        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                entry = totals[label if key is None else f"{label}[{key(*args, **kwargs)}]"]
                entry[0] += time.perf_counter() - start
                entry[1] += 1

        setattr(owner, name, timed)

    wrap("harness.preflight", "preflight", "preflight (total)")
    wrap("harness.preflight", "compose_job", "  preflight: Hydra compose (JobComposer)")
    wrap("harness.trial", "prepare_trial", "  preflight: prepare_trial")  # preflight imports it late
    wrap("harness.app", "prepare_trial", "    job: prepare_trial (data load, split, build)")
    wrap("harness.trial", "load_dataset", "  prepare_trial (preflight + job): load_dataset")
    wrap("harness.trial", "make_split", "  prepare_trial (preflight + job): make_split")
    wrap(
        "harness.trial",
        "build_metric",
        "  prepare_trial (preflight + job): build_metric",
        key=lambda name, *a, **k: name,
    )
    wrap("harness.app", "run_job", "  job: task function (harness.app.run_job)")
    wrap("harness.trial", "obtain_variant", "    fit/sample child (wall)")
    wrap(
        "harness.trial_metrics",
        "warm_up",
        "    metric warm-up (before the clock)",
        key=lambda metric, *a, **k: metric.name,
    )
    wrap("harness.trial_metrics", "_compute_metric", "    metric", key=lambda metric, *a, **k: metric.name)
    wrap("harness.trial_metrics", "_Calibrator.of", "    calibration", key=lambda self, name, metric: name)
    wrap("harness.trial", "TrialCache.put", "    write trial cache")
    wrap("harness.app", "atomic_write_parquet", "    write rows.parquet")
    loader = "hydra._internal.config_loader_impl"
    wrap(loader, "ConfigLoaderImpl.load_configuration", "hydra: every composition (preflight included)")
    wrap(loader, "ConfigLoaderImpl.load_sweep_config", "  hydra: load_sweep_config (sweeper + launcher)")
    wrap(
        "hydra.plugins.sweeper", "Sweeper.validate_batch_is_legal", "  hydra: sweeper validate_batch_is_legal"
    )
    wrap("hydra._internal.hydra", "Hydra.get_mode", "  hydra: get_mode")
    wrap("hydra.core.utils", "_save_config", "  hydra: write .hydra/")
    import hydra._internal.core_plugins.basic_launcher as basic
    import hydra._internal.hydra as hydra_main
    import hydra.core.utils as hydra_utils

    wrap("hydra.core.utils", "run_job", "hydra: run_job (job set-up + task function)")
    basic_launcher: Any = basic
    hydra_module: Any = hydra_main
    basic_launcher.run_job = hydra_module.run_job = hydra_utils.run_job


PREIMPORTS = (
    "harness.app", "harness.preflight", "harness.trial", "sklearn.ensemble", "sklearn.neighbors",
    "sklearn.model_selection", "scipy.stats", "metrics.privacy.dcr_nndr", "metrics.privacy.anonymeter_linkability",
    "metrics.utility.ml_efficacy", "metrics.fidelity.sdmetrics_shapes", "anonymeter.evaluators", "numba", "polars",
)  # fmt: skip
"""What a long-lived worker would already have imported when a trial arrives."""


def child(argv: list[str], breakdown: bool) -> dict[str, Any]:
    """Run ``privbench ARGV`` in this process; return its timings and loaded heavy modules.

    With ``PRIVBENCH_BENCH_PREIMPORT=1`` the modules of :data:`PREIMPORTS` are imported before
    the clock starts: the ``elapsed_s`` of such a run is what a pre-imported worker would take.
    """
    from harness.gc_policy import pause_for_startup

    pause_for_startup()  # as the console script does (PRIVBENCH_GC_PAUSE=0: not)
    if os.environ.get(PREIMPORT_ENV) == "1":
        import importlib

        for module in PREIMPORTS:
            importlib.import_module(module)
    start = time.perf_counter()
    totals: dict[str, list[float]] = defaultdict(lambda: [0.0, 0])
    if breakdown:
        t0 = time.perf_counter()
        import harness.app
        import harness.preflight  # noqa: F401

        totals["imports (harness.app, harness.preflight)"] = [time.perf_counter() - t0, 1]
        _instrument(totals)
    if os.environ.get(WORKER_BENCH_ENV) == "1":
        from harness.worker_client import run_in_worker, worker_status

        cpu_before = _served_cpu_s(worker_status)
        served = run_in_worker(list(argv))
        if served is None:
            raise RuntimeError("the warm worker did not serve the command")
        code = served
        elapsed = time.perf_counter() - start
        served_cpu = _served_cpu_s(worker_status) - cpu_before
        return {"code": code, "elapsed_s": elapsed, "phases": {}, "loaded": [], "served_cpu_s": served_cpu}
    else:
        from harness.cli import main

        code = main(argv)
    return {
        "code": code,
        "elapsed_s": time.perf_counter() - start,
        "phases": {k: v for k, v in totals.items()},
        "loaded": [m for m in HEAVY if m in sys.modules],
    }


def _served_cpu_s(status: Callable[[], dict[str, Any] | None]) -> float:
    """CPU seconds of the commands the warm worker has finished (once none is running)."""
    deadline = time.monotonic() + 10
    while True:
        reply = status()
        if reply is None:
            raise RuntimeError("the warm worker does not answer")
        if reply["running"] == 0 or time.monotonic() > deadline:
            return float(reply["children_cpu_s"])
        time.sleep(0.05)


# ---------------------------------------------------------------------- parent side
def run_privbench(
    argv: Sequence[str],
    env: dict[str, str],
    root: Path,
    *,
    breakdown: bool = False,
    importtime: bool = False,
    repo: Path = REPO,
) -> dict[str, Any]:
    """``privbench ARGV`` in a fresh interpreter with results and cache under ``root``.

    ``repo``: the checkout whose code runs (another commit's worktree for ``--baseline-tree``).
    """
    command = [sys.executable, *(["-X", "importtime"] if importtime else [])]
    command += ["-m", "benchmarks.bench_trial_overhead", "--child", json.dumps(list(argv))]
    if breakdown:
        command.append("--breakdown")
    environ = {
        **_command_environment(env, repo),
        "PRIVBENCH_RESULTS_DIR": str(root / "results"),
        "PRIVBENCH_CACHE_DIR": str(root / "cache"),
    }
    if env.get(WORKER_BENCH_ENV) == "1":
        _start_worker(env, repo)
    root.mkdir(parents=True, exist_ok=True)
    cpu_before = _children_cpu_s()
    start = time.perf_counter()
    proc = subprocess.run(command, cwd=root, env=environ, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    cpu = _children_cpu_s() - cpu_before
    if proc.returncode != 0:
        raise RuntimeError(f"privbench {' '.join(argv)} failed:\n{proc.stderr[-4000:]}")
    out: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    out["wall_s"] = wall
    out["cpu_s"] = cpu + out.get("served_cpu_s", 0.0)  # the warm worker's child ran the command
    if importtime:
        out["imports"] = import_times(proc.stderr)
    return out


def _command_environment(env: dict[str, str], repo: Path) -> dict[str, str]:
    """The environment of a measured command (and of the warm worker that serves it)."""
    worker = env.get(WORKER_BENCH_ENV) == "1"
    return {
        **os.environ,
        **env,
        "PRIVBENCH_PROGRESS": "0",
        "PYTHONPATH": os.pathsep.join([str(repo), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep),
        **({"PRIVBENCH_WORKER_DIR": str(WORKER_DIR)} if worker else {"PRIVBENCH_WORKER": "0"}),
    }


_STARTED_WORKERS: dict[Path, dict[str, str]] = {}


def _start_worker(env: dict[str, str], repo: Path) -> None:
    """Start the ``warm worker`` configuration's worker once (not measured)."""
    if repo in _STARTED_WORKERS:
        return
    environ = _command_environment(env, repo)
    command = [sys.executable, "-m", "harness.cli", "worker", "start", "--idle-minutes", "120"]
    subprocess.run(command, cwd=repo, env=environ, check=True, capture_output=True, text=True)
    _STARTED_WORKERS[repo] = environ


def stop_workers() -> None:
    """Stop the workers :func:`_start_worker` started."""
    for repo, environ in _STARTED_WORKERS.items():
        command = [sys.executable, "-m", "harness.cli", "worker", "stop"]
        subprocess.run(command, cwd=repo, env=environ, check=False, capture_output=True)
    _STARTED_WORKERS.clear()


def _children_cpu_s() -> float:
    """User + system CPU seconds of this process's finished children (and theirs)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def import_times(stderr: str) -> dict[str, float]:
    """Seconds of ``-X importtime`` self time summed per top-level package."""
    totals: dict[str, float] = defaultdict(float)
    for line in stderr.splitlines():
        match = re.match(r"import time:\s+(\d+) \|\s+\d+ \|\s*(\S+)", line)
        if match:
            totals[match.group(2).split(".")[0]] += int(match.group(1)) / 1e6
    return dict(totals)


def recorded_work(results: Path) -> tuple[float, int]:
    """Recorded seconds of every trial under ``results`` and the number of trials.

    fit + sample of variants made in this run (a cached variant's times were recorded by the
    run that made it), plus each metric's ``metric_s`` and ``calib_s`` (once per trial and
    metric; ``calib_s``, the calibration of a privacy metric on the raw and no-leakage
    reference releases, :mod:`harness.calibration`, is recorded since issue 18; older rows have
    no such column and their calibration counted as overhead).
    """
    import pandas as pd

    frames = [pd.read_parquet(p) for p in sorted(results.rglob("rows.parquet"))]
    if not frames:
        return 0.0, 0
    rows = pd.concat(frames, ignore_index=True)
    rows = rows[~rows["resumed"].fillna(False).astype(bool)]
    trials = rows.drop_duplicates("trial_key")
    made = trials[~trials["cache_hit"].fillna(False).astype(bool)]
    fit_sample = float(made["fit_s"].fillna(0).sum() + made["sample_s"].fillna(0).sum())
    metrics = rows.dropna(subset=["metric_s"]).drop_duplicates(["trial_key", "metric"])
    calibration = float(metrics["calib_s"].fillna(0).sum()) if "calib_s" in metrics else 0.0
    return fit_sample + float(metrics["metric_s"].sum()) + calibration, int(trials["trial_key"].nunique())


def workload_runs(
    workload: str, sweep: str, launch: str, extra: Sequence[str], trials: int = 10
) -> list[list[str]]:
    """The ``privbench`` argument lists of one measured run of a workload."""
    if workload == "single":
        return [["run", "generator=identity", "suite=fast", *extra]]
    common, jobs, multirun = sweep_runs(sweep, trials)
    if launch == "multirun":
        return [["run", "-m", *common, *multirun, *extra]]
    return [["run", "--no-preflight", *common, *job, *extra] for job in jobs]


TREES: dict[str, Path] = {}
"""Configurations that run another checkout's code (``--baseline-tree``): label -> its root."""


def measure(
    workload: str, sweep: str, launch: str, extra: Sequence[str], config: str, base: Path, trials: int = 10
) -> dict[str, Any]:
    """Run one workload under one configuration in a fresh directory; wall, recorded, share."""
    root = Path(tempfile.mkdtemp(prefix="run-", dir=base))
    repo = TREES.get(config, REPO)
    outs = [
        run_privbench(argv, CONFIGS[config], root, repo=repo)
        for argv in workload_runs(workload, sweep, launch, extra, trials)
    ]
    preimported = CONFIGS[config].get(PREIMPORT_ENV) == "1"  # the worker's own time: from its clock
    wall = sum(o["elapsed_s"] if preimported else o["wall_s"] for o in outs)
    cpu = sum(o["cpu_s"] for o in outs)
    recorded, trials = recorded_work(root / "results")
    loaded = sorted({m for o in outs for m in o["loaded"]})
    return {
        "wall_s": wall, "cpu_s": cpu, "recorded_s": recorded, "share": recorded / wall, "trials": trials,
        "loaded": loaded,
    }  # fmt: skip


def compare(
    label: str,
    workload: tuple[str, str, str],
    extra: Sequence[str],
    configs: Sequence[str],
    repeats: int,
    base: Path,
    trials: int = 10,
) -> dict[str, dict[str, float]]:
    """Measure ``workload`` (kind, sweep, launch) under every configuration, interleaved in rounds.

    Returns the medians per configuration (``wall_s``, ``cpu_s``, ``recorded_s``, ``share``); the
    ratios printed are ``before``'s (the first configuration's) over each configuration's.
    """
    kind, sweep, launch = workload
    results: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for _ in range(repeats):
        for config in configs:
            results[config].append(measure(kind, sweep, launch, extra, config, base, trials))
    print(f"\n{label}  ({repeats} round(s), medians; 2 shared CPU cores, timings vary with their load)")
    print(
        f"  {'configuration':<22} {'wall s':>8} {'CPU s':>7} {'recorded s':>11} {'share':>6} "
        f"{'wall ratio':>11} {'CPU ratio':>10}  heavy modules loaded"
    )
    medians: dict[str, dict[str, float]] = {}
    for config in configs:
        rs = results[config]
        keys = ("wall_s", "cpu_s", "recorded_s", "share")
        medians[config] = {key: statistics.median(r[key] for r in rs) for key in keys}
    ref = medians[configs[0]]
    for config in configs:
        m = medians[config]
        loaded = ", ".join(results[config][-1]["loaded"]) or "-"
        print(
            f"  {config:<22} {m['wall_s']:8.1f} {m['cpu_s']:7.1f} {m['recorded_s']:11.1f} {m['share']:6.0%} "
            f"{ref['wall_s'] / m['wall_s']:10.2f}x {ref['cpu_s'] / m['cpu_s']:9.2f}x  {loaded}",
            flush=True,
        )
    return medians


PHASE_ORDER = (
    "imports", "preflight (total)", "  preflight: Hydra", "  preflight: prepare", "  prepare_trial (preflight",
    "hydra: every", "  hydra: get_mode", "  hydra: sweeper", "  hydra: load_sweep", "hydra: run_job",
    "  hydra: write", "  job: task", "    job: prepare", "    fit/sample", "    metric warm-up", "    metric[",
    "    calibration",
    "    write",
)  # fmt: skip


def _rank(label: str) -> tuple[int, str]:
    """Display position of a phase label (the order of a trial), then its name."""
    ranks = [i for i, prefix in enumerate(PHASE_ORDER) if label.startswith(prefix)]
    return (ranks[0] if ranks else len(PHASE_ORDER), label)


def breakdown(args: argparse.Namespace, base: Path) -> None:
    """One instrumented run of each workload under the last of ``--configs`` (default: the last configuration, ``table cache``)."""
    config = args.configs[-1]
    for workload in args.workloads:
        for launch in ["multirun"] if workload == "single" else args.launch:
            root = Path(tempfile.mkdtemp(prefix="breakdown-", dir=base))
            extra = args.extra if workload == "single" else []
            argvs = workload_runs(workload, args.sweep, launch, extra)
            outs = [run_privbench(a, CONFIGS[config], root, breakdown=True, importtime=True) for a in argvs]
            wall = sum(o["wall_s"] for o in outs)
            recorded, trials = recorded_work(root / "results")
            name = "one trial" if workload == "single" else f"{args.sweep} sweep, {launch}"
            print(f"\n{name} [{config}]: {trials} trial(s), wall {wall:.1f} s, recorded {recorded:.1f} s "
                  f"({recorded / wall:.0%}); 2 shared CPU cores")  # fmt: skip
            start = sum(o["wall_s"] - o["elapsed_s"] for o in outs)
            print(f"  {start:8.2f} s  x{len(outs):<3} interpreter start (wall minus the child's own time)")
            phases: dict[str, list[float]] = defaultdict(lambda: [0.0, 0])
            imports: dict[str, float] = defaultdict(float)
            for out in outs:
                for key, (seconds, count) in out["phases"].items():
                    phases[key][0] += seconds
                    phases[key][1] += count
                for package, seconds in out["imports"].items():
                    imports[package] += seconds
            for key, (seconds, count) in sorted(phases.items(), key=lambda kv: _rank(kv[0])):
                print(f"  {seconds:8.2f} s  x{int(count):<3} {key}")
            top = sorted(imports.items(), key=lambda kv: -kv[1])[:12]
            print("  imports by package (-X importtime self time, s): "
                  + ", ".join(f"{p} {s:.2f}" for p, s in top))  # fmt: skip


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workloads", nargs="+", choices=("single", "sweep"), default=["single", "sweep"])
    parser.add_argument("--sweep", choices=SWEEPS, default="identity", help="the 10-trial sweep")
    parser.add_argument(
        "--trials",
        type=int,
        nargs="+",
        default=[10],
        help="sizes of the identity sweep (several: the overhead split into per-process and per-trial parts)",
    )
    parser.add_argument(
        "--baseline-tree",
        type=Path,
        default=None,
        help="another checkout (e.g. a worktree of an earlier commit) run as the first configuration, "
        "with its own defaults",
    )
    parser.add_argument(
        "--launch", nargs="+", choices=("multirun", "processes"), default=["multirun", "processes"]
    )
    parser.add_argument("--configs", nargs="+", choices=list(CONFIGS), default=list(CONFIGS))
    parser.add_argument("--repeats", type=int, default=1, help="interleaved rounds (medians reported)")
    parser.add_argument(
        "--extra",
        nargs="*",
        default=["profile=quick"],
        help="overrides of the one-trial run (default profile=quick)",
    )
    parser.add_argument("--breakdown", action="store_true", help="one instrumented run of each workload")
    parser.add_argument("--no-warmup", action="store_true", help="skip the unmeasured warm-up trial")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.baseline_tree is not None:
        label = f"tree {_short_commit(args.baseline_tree)}"
        TREES[label] = args.baseline_tree.resolve()
        CONFIGS[label] = {}  # that checkout's own defaults
        args.configs = [label, *args.configs]
    if args.child is not None:
        print(json.dumps(child(json.loads(args.child), args.breakdown)), flush=True)
        from harness.process_exit import exit_process  # as the console script ends

        exit_process(0)
    with tempfile.TemporaryDirectory(prefix="privbench-overhead-") as tmp:
        try:
            measure_all(args, Path(tmp))
        finally:
            stop_workers()


def measure_all(args: argparse.Namespace, base: Path) -> None:
    """The runs of ``main``: the warm-up, then the breakdown or the workloads side by side."""
    if (
        not args.no_warmup
    ):  # numba's kernels, parsed tables, the OS file cache: not billed to the first config
        warm = {**CONFIGS["after"], "PRIVBENCH_DATASET_CACHE": "1"}  # fills the parsed-table cache too
        run_privbench(["run", "generator=identity", "profile=quick"], warm, base / "warmup")
    if args.breakdown:
        breakdown(args, base)
        return
    if "single" in args.workloads:
        configs = [c for c in args.configs if c != "trtr memo"]  # no ml_efficacy in the fast suite
        label = f"one trial: privbench run generator=identity suite=fast {' '.join(args.extra)}"
        compare(label, ("single", args.sweep, "multirun"), args.extra, configs, args.repeats, base)
    if "sweep" in args.workloads:
        sizes = args.trials if args.sweep == "identity" else [10]
        for launch in args.launch:
            by_size = {}
            for trials in sizes:
                label = (
                    f"{args.sweep} sweep ({trials} trials, default suite, quick profile), launch: {launch}"
                )
                by_size[trials] = compare(
                    label, ("sweep", args.sweep, launch), [], args.configs, args.repeats, base, trials
                )
            if len(by_size) > 1:
                print_overhead_split(by_size)


def print_overhead_split(by_size: dict[int, dict[str, dict[str, float]]]) -> None:
    """Overhead (wall - recorded) fitted as per-process + per-trial parts, per configuration.

    With the smallest and largest sweep: per-trial = the overhead's growth per added trial,
    per-process = what remains; the share limit is the recorded share a long sweep approaches
    (recorded per trial / (recorded + overhead) per trial).
    """
    small, large = min(by_size), max(by_size)
    print(f"\noverhead split from the {small}- and {large}-trial sweeps (medians)")
    print(
        f"  {'configuration':<22} {'per process s':>14} {'per trial s':>12} {'recorded/trial s':>17} {'share limit':>12}"
    )
    for config in by_size[small]:
        a, b = by_size[small][config], by_size[large][config]
        over_a, over_b = a["wall_s"] - a["recorded_s"], b["wall_s"] - b["recorded_s"]
        per_trial = (over_b - over_a) / (large - small)
        per_process = over_a - small * per_trial
        recorded = (b["recorded_s"] - a["recorded_s"]) / (large - small)
        limit = recorded / (recorded + per_trial) if recorded + per_trial > 0 else float("nan")
        print(f"  {config:<22} {per_process:14.2f} {per_trial:12.3f} {recorded:17.2f} {limit:12.0%}")


def _short_commit(tree: Path) -> str:
    """The abbreviated commit checked out at ``tree`` (its path where it is no git checkout)."""
    proc = subprocess.run(
        ["git", "-C", str(tree), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    )
    return proc.stdout.strip() or str(tree)


if __name__ == "__main__":
    main()
