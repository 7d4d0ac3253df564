"""Sweeps through a real (private, one-node) SLURM cluster with ``hydra/launcher=slurm``.

The cluster comes from :mod:`tests.integration.slurm_cluster`: root on Debian, installed with
apt-get when missing; elsewhere these tests fail with the reason, or skip with
``PRIVBENCH_SLURM_TEST=skip``.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

from harness.collect import result_files
from harness.slurm_launcher import LOST_PREFIX
from tests.conftest import PRIVBENCH, REPO, Runner
from tests.integration.slurm_cluster import SlurmCluster, slurm_cluster

__all__ = ["slurm_cluster"]  # the fixture, imported for this module's tests

pytestmark = pytest.mark.slow

#: Small, fast trials; one CPU each on the private node (which has no SLURM accounting).
COMMON = [
    "dataset=adult", "data.max_rows=400", "suite=fast", "runtime.calibrate=false",
    "hydra/launcher=slurm", "hydra.launcher.timeout_min=10",
]  # fmt: skip


def _launcher(cluster: SlurmCluster, *extra: str) -> list[str]:
    return [*COMMON, f"hydra.launcher.partition={cluster.partition}", *extra]


def _requested_memory(run_dir: Path) -> set[str]:
    """The ``--mem`` of every sbatch script submitit wrote for the sweep."""
    scripts = run_dir.glob(".submitit/**/*_submission.sh")
    return {
        line.split("--mem=")[1].strip()
        for f in scripts
        for line in f.read_text().splitlines()
        if "--mem=" in line
    }


def _accounting_noise(output: str) -> list[str]:
    """Lines about SLURM accounting / sacct in a command's output."""
    return [line for line in output.splitlines() if "sacct" in line or "accounting" in line]


def _sweep_dirs(tmp_path: Path) -> list[Path]:
    root = tmp_path / "results" / "default"
    return sorted(p for p in root.iterdir() if p.is_dir()) if root.exists() else []


def _collected(privbench: Runner, run_dir: Path, tmp_path: Path) -> pd.DataFrame:
    """The rows ``privbench collect RUN_DIR`` writes (to a CSV under ``tmp_path``)."""
    out = tmp_path / f"{run_dir.name}.csv"
    privbench("collect", str(run_dir), "-o", str(out))
    return pd.read_csv(out)


def _trials(rows: pd.DataFrame) -> list[tuple[str, int]]:
    """The (generator, gen_seed) of each collected trial, sorted, one entry per trial."""
    trials = rows.drop_duplicates("trial_key")
    return sorted(zip(trials["generator"].astype(str), trials["gen_seed"].astype(int)))


def _task_dirs(run_dir: Path) -> set[str]:
    """submitit's per-task folders (``<array id>_<task>``) of a sweep, over every submission."""
    return {p.name for p in (run_dir / ".submitit").iterdir() if p.is_dir() and "_" in p.name}


def _wait_for(condition: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.5)
    return False


def test_sweep_through_slurm(slurm_cluster: SlurmCluster, privbench: Runner, tmp_path: Path) -> None:
    """Four trials packed two per SLURM job, memory sized without a measurement; then two more
    trials of the same experiment, memory sized from the peaks the first four measured. Exit 0,
    and collect finds each trial exactly once."""
    started = time.monotonic()
    proc = privbench(
        "run", "-m", "generator=identity,independent_marginals", "gen_seed=0,1",
        *_launcher(slurm_cluster, "hydra.launcher.trials_per_job=2"), timeout=300,
    )  # fmt: skip
    print(
        f"\n[slurm] 4-trial sweep, 2 per job: {time.monotonic() - started:.1f} s; last line: {proc.stderr.splitlines()[-1]}"
    )
    logged = proc.stdout + proc.stderr  # Hydra's job logging goes to stdout
    noise = _accounting_noise(logged)
    print(f"[slurm] accounting lines in its output ({len(noise)}): {noise}")
    assert len(noise) == 1 and "job states are read from scontrol" in noise[0], logged[-3000:]
    assert proc.stderr.splitlines()[-1].startswith("privbench: 4 trial(s): 4 ok")
    assert "submitting 4 trial(s) to SLURM as 2 job(s)" in logged
    (run_dir,) = _sweep_dirs(tmp_path)
    assert (run_dir / ".submitit").is_dir(), "submitit's job logs live in the sweep directory"
    assert len(_task_dirs(run_dir)) == 2, "two SLURM tasks of two trials each"
    # nothing measured yet: the assumed 3,072 MB peak x 1.5 + 1 GB for the job's process
    assert "SLURM memory per job: 6 GB (3,072 MB assumed for 2 pair(s) never measured" in logged
    assert _requested_memory(run_dir) == {"6GB"}
    assert len(result_files(run_dir)) == 4
    rows = _collected(privbench, run_dir, tmp_path)
    assert _trials(rows) == [
        ("identity", 0),
        ("identity", 1),
        ("independent_marginals", 0),
        ("independent_marginals", 1),
    ]
    assert (rows["status"] == "ok").all()
    assert not rows.duplicated(["trial_key", "metric", "variant"]).any()
    peak = float(rows["peak_rss_mb"].max())

    second = privbench(
        "run", "-m", "generator=identity,independent_marginals", "gen_seed=2", *_launcher(slurm_cluster),
        timeout=300,
    )  # fmt: skip
    line = next(x for x in (second.stdout + second.stderr).splitlines() if "SLURM memory per job" in x)
    print(f"[slurm] second sweep ({peak:.0f} MB peak measured by the first): {line}")
    assert "measured in earlier runs (2 dataset/generator pair(s))" in line, line
    (new_dir,) = [d for d in _sweep_dirs(tmp_path) if d != run_dir]
    expected = -(-(1.5 * peak + 1024) // 1024)
    assert _requested_memory(new_dir) == {f"{int(expected)}GB"}
    assert second.stderr.splitlines()[-1].startswith("privbench: 2 trial(s): 2 ok")


def test_cancelled_sweep_resumes_in_place(
    slurm_cluster: SlurmCluster, privbench: Runner, tmp_path: Path
) -> None:
    """``scancel`` mid-sweep: each cancelled trial gets a status row and the command ends with
    its summary (no accounting needed: the states come from scontrol). The same command again
    resumes in the same directory, runs only the cancelled trials, and every planned trial ends
    up exactly once."""
    env = {
        **os.environ,
        "PRIVBENCH_RESULTS_DIR": str(tmp_path / "results"),
        "PRIVBENCH_CACHE_DIR": str(tmp_path / "cache"),
        "PRIVBENCH_PROGRESS": "0",
        "PYTHONPATH": str(REPO),
    }
    args = [
        *PRIVBENCH, "run", "-m", "generator=identity,independent_marginals,uniform", "gen_seed=0,1",
        *_launcher(slurm_cluster, "hydra.launcher.mem_gb=1"),
    ]  # fmt: skip
    planned = sorted((g, s) for g in ("identity", "independent_marginals", "uniform") for s in (0, 1))
    started = time.monotonic()
    first = subprocess.Popen(
        args, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )

    def done() -> list[Path]:
        """Result files of trials that ran (not the status rows of lost jobs)."""
        files = [f for d in _sweep_dirs(tmp_path) for f in result_files(d)]
        return [f for f in files if not str(pd.read_parquet(f)["error"].iloc[0]).startswith(LOST_PREFIX)]

    try:
        assert _wait_for(lambda: len(done()) >= 1 or first.poll() is not None, 180), "no trial finished"
        assert first.poll() is None, "the sweep finished before it could be cancelled"
        queued = slurm_cluster.run("squeue", "--noheader", "-o", "%i %T").stdout.split("\n")
        cancel = slurm_cluster.run("scancel", "--user=root")
        assert cancel.returncode == 0, cancel.stderr
        stdout, stderr = first.communicate(timeout=120)
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    cancelled_after = time.monotonic() - started
    last = (stderr.strip().splitlines() or [""])[-1]
    print(f"\n[slurm] cancelled after {cancelled_after:.1f} s with jobs {[q for q in queued if q]}")
    print(f"[slurm] cancelled sweep: exit {first.returncode}; last stderr line: {last}")
    print(f"[slurm] cancelled sweep stderr tail:\n{stderr[-3000:]}")
    # A cancelled job is a failed trial of the command's summary, not a traceback (issue 18).
    assert first.returncode == 1, stderr[-3000:]
    assert "Traceback" not in stderr
    assert last.startswith("privbench: 6 trial(s): ") and "[SLURM CANCELLED" in last, last
    assert not _accounting_noise(stdout + stderr)[1:], (
        "one line about the missing accounting, no warning per poll"
    )
    (run_dir,) = _sweep_dirs(tmp_path)
    kept = {f: f.stat().st_mtime_ns for f in done()}
    assert 1 <= len(kept) < 6, "the cancelled sweep should stop part way"
    lost = _collected(privbench, run_dir, tmp_path)
    lost = lost[lost["status"] != "ok"]
    print(f"[slurm] status rows of the cancelled trials: {lost['error'].tolist()}")
    assert len(lost) == 6 - len(kept), "one status row per cancelled trial"
    assert (lost["status"] == "error").all() and lost["error"].str.contains("ended CANCELLED").all()
    submitted_first = _task_dirs(run_dir)

    rerun = subprocess.run(args, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    print(f"[slurm] rerun: exit {rerun.returncode} after {time.monotonic() - started:.1f} s in all")
    print(f"[slurm] rerun stderr tail:\n{rerun.stderr[-3000:]}")
    assert rerun.returncode == 0, rerun.stderr[-4000:]
    assert f"privbench: resuming {run_dir} " in rerun.stderr
    assert _sweep_dirs(tmp_path) == [run_dir], "resumed in place, no second sweep directory"
    rewritten = sorted(
        str(f.relative_to(run_dir)) for f, mtime in kept.items() if f.stat().st_mtime_ns != mtime
    )
    resubmitted = _task_dirs(run_dir) - submitted_first
    print(f"[slurm] result files of finished trials rewritten by the rerun: {rewritten}")
    print(f"[slurm] submitit task dirs of the rerun: {sorted(resubmitted)}")
    assert not rewritten, "finished trials are not run again"
    assert len(resubmitted) == 6 - len(kept), "only the trials without rows are submitted again"
    summary = rerun.stderr.strip().splitlines()[-1]
    assert summary == f"privbench: 6 trial(s): {6 - len(kept)} ok, {len(kept)} already done", summary
    files = result_files(run_dir)
    assert len(files) == 6, [str(f.relative_to(run_dir)) for f in files]
    rows = _collected(privbench, run_dir, tmp_path)
    assert _trials(rows) == planned  # every planned trial, each exactly once
    assert (rows["status"] == "ok").all()
    assert not rows.duplicated(["trial_key", "metric", "variant"]).any()


def test_slurm_time_limit_is_a_timeout_row(
    slurm_cluster: SlurmCluster, privbench: Runner, tmp_path: Path
) -> None:
    """A trial that outlives its SLURM job's time limit ends as a ``timeout`` status row, with the
    command's summary line and exit 1 (no traceback)."""
    fixtures = REPO / "tests" / "fixtures" / "conf"
    started = time.monotonic()
    proc = privbench(
        "run", "-m", "--config-dir", str(fixtures), "generator=sleepy", "generator.seconds=600",
        "runtime.timeout_s=900", *_launcher(slurm_cluster, "hydra.launcher.mem_gb=1"),
        "hydra.launcher.timeout_min=1", "hydra.launcher.signal_delay_s=5", check=False, timeout=400,
    )  # fmt: skip
    last = proc.stderr.strip().splitlines()[-1]
    print(
        f"\n[slurm] time-limited trial: exit {proc.returncode} after {time.monotonic() - started:.1f} s; {last}"
    )
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert last.startswith("privbench: 1 trial(s): 1 failed") and "[SLURM TIMEOUT] [timeout]" in last, last
    (run_dir,) = _sweep_dirs(tmp_path)
    rows = _collected(privbench, run_dir, tmp_path)
    assert rows["status"].tolist() == ["timeout"]
    assert rows["error"].iloc[0].startswith(LOST_PREFIX) and "ended TIMEOUT" in rows["error"].iloc[0]
    assert rows["generator"].tolist() == ["sleepy"] and rows["dataset"].tolist() == ["adult"]
