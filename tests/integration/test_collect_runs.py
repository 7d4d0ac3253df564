"""`collect` / `report` over re-runs and partial sweeps: one row set per trial, missing trials named."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pandas as pd

from tests.conftest import Runner

SWEEP = ("run", "-m", "generator=identity", "gen_seed=0,1,2", "data.max_rows=400", "suite=fast")


def _sweep(privbench: Runner, tmp_path: Path) -> Path:
    privbench(*SWEEP)
    (run_dir,) = (tmp_path / "results" / "default").iterdir()
    return run_dir


def test_partial_sweep_names_its_missing_trials_and_a_rerun_completes_it(
    privbench: Runner, tmp_path: Path
) -> None:
    run_dir = _sweep(privbench, tmp_path)
    plan = json.loads((run_dir / "sweep.json").read_text())["jobs"]
    assert [[o for o in job if o.startswith("gen_seed=")] for job in plan] == [
        ["gen_seed=0"],
        ["gen_seed=1"],
        ["gen_seed=2"],
    ]
    assert "note:" not in privbench("collect", str(run_dir)).stderr
    (run_dir / "1" / "rows.parquet").unlink()  # as if killed before job 1 wrote its rows...
    stale = run_dir / "1" / ".rows.parquet.abc123.tmp"
    stale.write_bytes(b"half a file")  # ...in the middle of the write
    partial = privbench("collect", str(run_dir))
    assert "from 2 trials" in partial.stdout
    assert "partial sweep: 1 of 3 planned trial(s) have no results (missing: " in partial.stderr
    missing = partial.stderr.split("missing:")[1]
    assert "gen_seed=1" in missing and "gen_seed=0" not in missing
    again = privbench(*SWEEP)  # the same command resumes the unfinished sweep in its own directory
    assert f"resuming {run_dir} (the same sweep, stopped with 2 of 3 trial(s) done)" in again.stderr
    assert [p.name for p in (tmp_path / "results" / "default").iterdir()] == [run_dir.name]
    assert not stale.exists()
    done = privbench("collect", str(run_dir))
    assert "from 3 trials" in done.stdout and "note:" not in done.stderr


def test_reruns_are_not_double_counted_and_a_corrupt_file_is_one_line(
    privbench: Runner, tmp_path: Path
) -> None:
    first = _sweep(privbench, tmp_path)
    second = first.with_name(first.name + "_rerun")
    shutil.copytree(first, second)
    for rows in second.rglob("rows.parquet"):  # the re-run: its own run id, written later
        frame = pd.read_parquet(rows)
        frame["run_id"] = second.name
        frame.to_parquet(rows, index=False)
        os.utime(rows, (rows.stat().st_atime, rows.stat().st_mtime + 60))
    out = privbench("collect", str(first.parent), "-o", str(tmp_path / "all.parquet"))
    table = pd.read_parquet(tmp_path / "all.parquet")
    assert table["trial_key"].nunique() == 3
    assert set(table["run_id"]) == {second.name}, "the newest run of each trial is kept"
    assert not table.duplicated(["trial_key", "metric", "variant"]).any()
    assert "3 older result file(s) of trials run again were left out" in out.stderr
    report = privbench("report", str(first.parent), "-o", str(tmp_path / "report"))
    assert "3 older result file(s)" in report.stderr
    assert pd.read_parquet(tmp_path / "report" / "results.parquet")["trial_key"].nunique() == 3

    corrupt = first / "2" / "rows.parquet"
    corrupt.write_bytes(b"PAR1 truncated")
    before = {p: p.stat().st_mtime_ns for p in first.rglob("*") if p.is_file()}
    for command in ("collect", "report"):
        proc = privbench(command, str(first), check=False)
        assert proc.returncode == 2, proc.stderr
        lines = [line for line in proc.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and str(corrupt) in lines[0] and "cannot be read" in lines[0]
    assert {p: p.stat().st_mtime_ns for p in first.rglob("*") if p.is_file()} == before
    assert not (first / "results.parquet").exists() and not (first / "report").exists()


def test_the_collect_scale_benchmark_runs_at_a_tiny_size() -> None:
    import io
    from contextlib import redirect_stdout

    from benchmarks.bench_collect_scale import main

    buffer = io.StringIO()
    with redirect_stdout(buffer):
        main(["--trials", "30", "--no-report"])
    lines = buffer.getvalue().splitlines()
    assert "collect_ratio" in lines[0] and lines[1].split()[0] == "30"
