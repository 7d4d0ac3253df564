"""collect reads many result files in forked processes with the same outcome as in one process."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from harness.collect import COLLECT_PROCESSES_ENV, collect_runs, read_processes
from harness.schema import conform_results
from harness.storage import parquet_bytes, rows_parquet_bytes


def rows(trial: str, value: float, *, error: str | None = None) -> pd.DataFrame:
    return conform_results(
        pd.DataFrame(
            {
                "run_id": ["r", "r"],
                "trial_key": [trial, trial],
                "generator": ["identity", "identity"],
                "metric": ["ks", "dcr"],
                "variant": ["", ""],
                "value": [value, value + 1],
                "status": ["ok", "ok"],
                "error": [error, None],
            }
        )
    )


def write_tree(root: Path) -> None:
    for job in range(40):
        # every third file in the layout of older versions (Zstandard, pandas metadata)
        write = parquet_bytes if job % 3 == 0 else rows_parquet_bytes
        error = "boom" if job == 7 else None  # a column that is null in every other file
        (root / "sweep" / str(job)).mkdir(parents=True)
        (root / "sweep" / str(job) / "rows.parquet").write_bytes(
            write(rows(f"t{job}", float(job), error=error))
        )
    # trial t5 run again later: the newer file wins
    again = root / "again" / "0" / "rows.parquet"
    again.parent.mkdir(parents=True)
    again.write_bytes(rows_parquet_bytes(rows("t5", 500.0)))
    old = root / "sweep" / "5" / "rows.parquet"
    os.utime(old, (1_000_000, 1_000_000))
    # rows without one trial key are kept as they are
    keyless = root / "sweep" / "keyless" / "rows.parquet"
    keyless.parent.mkdir(parents=True)
    keyless.write_bytes(rows_parquet_bytes(rows("t99", 9.0).assign(trial_key=None)))


@pytest.mark.parametrize("processes", ["2", "3"])
def test_processes_and_threads_collect_the_same_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, processes: str
) -> None:
    write_tree(tmp_path)
    monkeypatch.setenv(COLLECT_PROCESSES_ENV, "0")
    in_process = collect_runs([tmp_path])
    monkeypatch.setenv(COLLECT_PROCESSES_ENV, processes)
    forked = collect_runs([tmp_path])
    pd.testing.assert_frame_equal(forked.results, in_process.results)
    assert forked.duplicates == in_process.duplicates == 1 and forked.n_files == 42
    t5 = forked.results[forked.results["trial_key"] == "t5"]
    assert sorted(t5["value"]) == [500.0, 501.0]
    assert forked.results["trial_key"].isna().sum() == 2
    errors = forked.results["error"].fillna("")
    assert (errors == "boom").sum() == 1 and forked.results.loc[errors == "boom", "trial_key"].item() == "t7"
    assert np.isfinite(forked.results["value"]).all()


def test_how_many_processes_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(COLLECT_PROCESSES_ENV, raising=False)
    assert read_processes(10) == 1  # few files: threads in this process
    assert read_processes(50_000) == min(len(os.sched_getaffinity(0)), 8)
    monkeypatch.setenv(COLLECT_PROCESSES_ENV, "0")
    assert read_processes(50_000) == 1
