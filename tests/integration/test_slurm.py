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
from tests.conftest import PRIVBENCH, REPO, Runner
from tests.integration.slurm_cluster import SlurmCluster, sacct_from_scontrol, slurm_cluster

__all__ = ["sacct_from_scontrol", "slurm_cluster"]  # the fixtures, imported for this module's tests

pytestmark = pytest.mark.slow

#: Small, fast trials; one CPU and 1 GB each on the private node.
COMMON = [
    "dataset=adult", "data.max_rows=400", "suite=fast", "runtime.calibrate=false",
    "hydra/launcher=slurm", "hydra.launcher.mem_gb=1", "hydra.launcher.timeout_min=10",
]  # fmt: skip


def _launcher(cluster: SlurmCluster) -> list[str]:
    return [*COMMON, f"hydra.launcher.partition={cluster.partition}"]


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
    """Four trials as a SLURM job array: exit 0, and collect finds each trial exactly once."""
    started = time.monotonic()
    proc = privbench(
        "run", "-m", "generator=identity,independent_marginals", "gen_seed=0,1", *_launcher(slurm_cluster),
        timeout=300,
    )  # fmt: skip
    print(
        f"\n[slurm] 4-trial sweep: {time.monotonic() - started:.1f} s; last line: {proc.stderr.splitlines()[-1]}"
    )
    noise = [line for line in proc.stderr.splitlines() if "sacct" in line or "accounting" in line]
    print(f"[slurm] sacct lines in its stderr ({len(noise)}): {noise[:2]}")
    assert proc.stderr.splitlines()[-1].startswith("privbench: 4 trial(s): 4 ok")
    (run_dir,) = _sweep_dirs(tmp_path)
    assert (run_dir / ".submitit").is_dir(), "submitit's job logs live in the sweep directory"
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


def test_cancelled_sweep_resumes_in_place(
    sacct_from_scontrol: SlurmCluster, privbench: Runner, tmp_path: Path
) -> None:
    """``scancel`` mid-sweep, then the same command again: it resumes in the same directory
    and every planned trial ends up exactly once.

    With ``sacct`` answered from ``scontrol`` (no slurmdbd here), submitit sees the cancelled
    jobs as CANCELLED, as on a cluster with accounting."""
    env = {
        **os.environ,
        "PRIVBENCH_RESULTS_DIR": str(tmp_path / "results"),
        "PRIVBENCH_CACHE_DIR": str(tmp_path / "cache"),
        "PRIVBENCH_PROGRESS": "0",
        "PYTHONPATH": str(REPO),
    }
    args = [
        *PRIVBENCH, "run", "-m", "generator=identity,independent_marginals,uniform", "gen_seed=0,1",
        *_launcher(sacct_from_scontrol),
    ]  # fmt: skip
    planned = sorted((g, s) for g in ("identity", "independent_marginals", "uniform") for s in (0, 1))
    started = time.monotonic()
    first = subprocess.Popen(
        args, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )

    def done() -> list[Path]:
        return [f for d in _sweep_dirs(tmp_path) for f in result_files(d)]

    try:
        assert _wait_for(lambda: len(done()) >= 1 or first.poll() is not None, 180), "no trial finished"
        assert first.poll() is None, "the sweep finished before it could be cancelled"
        queued = sacct_from_scontrol.run("squeue", "--noheader", "-o", "%i %T").stdout.split("\n")
        cancel = sacct_from_scontrol.run("scancel", "--user=root")
        assert cancel.returncode == 0, cancel.stderr
        _, stderr = first.communicate(timeout=120)
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
    (run_dir,) = _sweep_dirs(tmp_path)
    kept = {f: f.stat().st_mtime_ns for f in done()}
    assert 1 <= len(kept) < 6, "the cancelled sweep should stop part way"
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
