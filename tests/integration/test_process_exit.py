"""The ``privbench`` process ends without module teardown (``harness.process_exit``) and nothing
observable changes: files, output and exit codes equal the ordinary exit's."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd

from tests.conftest import PRIVBENCH, REPO

TIMING = ["fit_s", "sample_s", "metric_s", "calib_s", "peak_rss_mb"]


def normalised(text: str, root: Path) -> str:
    """Without the run's directory, timestamps and durations."""
    text = text.replace(str(root), "<root>")
    text = re.sub(r"\d{4}-\d\d-\d\d[ _][\d:,.-]+", "<time>", text)
    return re.sub(r"\d+(\.\d+)? s\b", "<n> s", text)


def assert_same_results(a: Path, b: Path) -> None:
    """The one trial's rows under results folders ``a`` and ``b`` are equal but for timings and costs."""
    first, second = (
        pd.read_parquet(next(results.rglob("rows.parquet"))).query("family != 'cost'").reset_index(drop=True)
        for results in (a, b)
    )
    keep = [c for c in first.columns if c not in TIMING + ["run_id", "details", "timestamp"]]
    pd.testing.assert_frame_equal(first[keep], second[keep])


def run(tmp_path: Path, name: str, fast: bool, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PRIVBENCH_RESULTS_DIR": str(tmp_path / name / "results"),
        "PRIVBENCH_CACHE_DIR": str(tmp_path / name / "cache"),
        "PRIVBENCH_PROGRESS": "0",
        "PRIVBENCH_FAST_EXIT": "1" if fast else "0",
        "PYTHONPATH": str(REPO),
    }
    (tmp_path / name).mkdir(exist_ok=True)
    return subprocess.run(
        [*PRIVBENCH, *args], cwd=tmp_path / name, env=env, capture_output=True, text=True, timeout=600
    )


def test_a_trial_writes_the_same_files_and_output_either_way(tmp_path: Path) -> None:
    args = ("run", "generator=identity", "suite=fast", "data.max_rows=400")
    fast, ordinary = run(tmp_path, "fast", True, *args), run(tmp_path, "ordinary", False, *args)
    assert fast.returncode == ordinary.returncode == 0, fast.stderr + ordinary.stderr
    assert normalised(fast.stdout, tmp_path / "fast") == normalised(ordinary.stdout, tmp_path / "ordinary")
    [fast_rows] = (tmp_path / "fast" / "results").rglob("rows.parquet")
    [ordinary_rows] = (tmp_path / "ordinary" / "results").rglob("rows.parquet")
    assert_same_results(fast_rows.parent, ordinary_rows.parent)
    logs = [
        normalised((rows.parent / "privbench.log").read_text(), rows.parents[3])
        for rows in (fast_rows, ordinary_rows)
    ]
    assert logs[0] == logs[1] and "trial done" in logs[0]


def test_bad_input_exit_code_and_message_are_kept(tmp_path: Path) -> None:
    fast = run(tmp_path, "fast", True, "run", "generator=identity", "data.max_rows=-3")
    ordinary = run(tmp_path, "ordinary", False, "run", "generator=identity", "data.max_rows=-3")
    assert fast.returncode == ordinary.returncode == 2
    assert fast.stderr.strip() == ordinary.stderr.strip()
    assert len(fast.stderr.strip().splitlines()) == 1 and "max_rows" in fast.stderr


def test_long_piped_output_is_complete(tmp_path: Path) -> None:
    fast, ordinary = (
        run(tmp_path, name, flag, "list", "metrics") for name, flag in (("fast", True), ("ordinary", False))
    )
    assert fast.returncode == ordinary.returncode == 0
    assert fast.stdout == ordinary.stdout and len(fast.stdout.splitlines()) > 40


def test_exit_process_runs_exit_handlers_and_waits_for_threads(tmp_path: Path) -> None:
    """atexit handlers run, a non-daemon thread finishes its work, an executor never shut down
    does not hang the exit, buffered output is flushed, and the code is the one given."""
    script = textwrap.dedent(
        f"""
        import atexit, threading, time, sys
        from concurrent.futures import ThreadPoolExecutor
        from pathlib import Path
        from harness.process_exit import exit_process
        out = Path({str(tmp_path)!r})
        atexit.register(lambda: (out / "atexit").write_text("ran"))
        def late():
            time.sleep(0.3)
            (out / "thread").write_text("done")
        threading.Thread(target=late).start()
        pool = ThreadPoolExecutor(2)
        pool.submit(time.sleep, 0.1)
        sys.stdout.write("x" * 200_000)
        exit_process(3)
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", script],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 3, proc.stderr
    assert proc.stdout == "x" * 200_000
    assert (tmp_path / "atexit").read_text() == "ran" and (tmp_path / "thread").read_text() == "done"
