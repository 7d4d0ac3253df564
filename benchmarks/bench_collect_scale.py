"""Collecting and reporting a large sweep (tracker issue 18: 10,000 trials in at most 30 s).

Generates a results tree shaped like a real sweep: the rows of the committed demo run
(``results/examples/demo/results.parquet``: 8 generators x 3 split seeds on Adult, 16 rows per
trial, the default suite) replicated over more split seeds, one ``rows.parquet`` per job
directory ``<tree>/<sweep>/<job>/`` with its ``sweep.json`` plan, as ``privbench run -m`` writes
them. Then it times, in one process, side by side for each size:

* ``collect``: :func:`harness.collect.collect_runs` (read every job's rows as Arrow tables with
  a few threads, keep the newest copy of each trial, convert once, check the plan) on result
  files in the layout trials write (:func:`harness.storage.rows_parquet_bytes`);
* ``collect_general``: the same collection of the same trials written in the general Parquet
  layout that trials used before 2026-11-27 (Zstandard, dictionaries, statistics, pandas
  metadata); the ratio ``layout_ratio = collect_general / collect``;
* ``collect_threads``: the same collection read by threads in the collecting process
  (``PRIVBENCH_COLLECT_PROCESSES=0``, as before 2026-11-27) instead of forked processes (the
  default from 2,000 files); ``processes_ratio = collect_threads / collect``. Collect CPU
  seconds include the reading processes;
* ``collect_before``: the previous reading, each file converted to pandas on its own and the
  frames concatenated by pandas (the rest of the collection is the same); the ratio
  ``collect_before / collect``;
* ``report``: :func:`harness.report.build_report` on the collected table (every table, test and
  figure of ``privbench report``), figures rendered by forked children while the tables are
  built (the default); ``report_inline``: the same with every figure rendered in the calling
  process (``PRIVBENCH_FIGURE_WORKERS=0``, as before 2026-11-27); ``report_ratio`` =
  ``report_inline / report``. Report CPU seconds include the figure children.

Wall seconds and the process's CPU seconds (all its threads) are both printed: on a machine
shared with other work the CPU seconds move less. To time an earlier version of the harness,
run this same script with ``PYTHONPATH`` pointing at an export of it (``git archive <commit>
harness | tar -x -C /tmp/old``; ``cd /tmp/old && PYTHONPATH=/tmp/old python
/path/to/bench_collect_scale.py``).

Run::

    python -m benchmarks.bench_collect_scale                      # 1,000 and 10,000 trials
    python -m benchmarks.bench_collect_scale --trials 200 2000
    python -m benchmarks.bench_collect_scale --no-before        # skip the slow previous reading
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pandas as pd

from harness.collect import COLLECT_PROCESSES_ENV, SWEEP_FILE, collect_runs, result_files
from harness.report import build_report
from harness.report.style import FIGURE_WORKERS_ENV
from harness.schema import conform_results
from harness.storage import parquet_bytes, read_parquet, rows_parquet_bytes

DEMO = Path(__file__).resolve().parents[1] / "results" / "examples" / "demo" / "results.parquet"
JOBS_PER_SWEEP = 1000


def make_tree(root: Path, n_trials: int, layout: str = "rows") -> int:
    """Write ``n_trials`` job directories (demo trials over fresh split seeds); return the rows.

    ``layout`` ``"rows"`` writes the result files as trials write them now
    (:func:`harness.storage.rows_parquet_bytes`); ``"general"`` as they were written before
    2026-11-27 (:func:`harness.storage.parquet_bytes`: Zstandard, dictionaries, statistics and
    pandas metadata), which collect still reads.
    """
    serialise = rows_parquet_bytes if layout == "rows" else parquet_bytes
    demo = read_parquet(DEMO)
    trials = [group for _, group in demo.groupby(["generator", "split_seed"], sort=True)]
    n_rows = 0
    seeds_per_copy = demo["split_seed"].nunique()
    for job in range(n_trials):
        template = trials[job % len(trials)]
        # A fresh split seed per copy of the demo, so that every job is its own trial (its own
        # ``TRIAL_COLUMNS``) and the 8 generators share their split seeds (the report's blocks).
        seed = (job // len(trials)) * seeds_per_copy + int(template["split_seed"].iloc[0])
        rows = template.assign(split_seed=seed, trial_key=f"{template['trial_key'].iloc[0]}-{seed}")
        sweep, index = divmod(job, JOBS_PER_SWEEP)
        job_dir = root / f"sweep{sweep}" / str(index)
        job_dir.mkdir(parents=True, exist_ok=True)
        # The bytes privbench writes (no fsync: the tree is scratch; 10,000 fsyncs took minutes).
        (job_dir / "rows.parquet").write_bytes(serialise(rows))
        n_rows += len(rows)
    for sweep_dir in sorted(p for p in root.iterdir() if p.is_dir()):
        jobs = [[f"job={p.name}"] for p in sorted(sweep_dir.iterdir(), key=lambda p: int(p.name))]
        (sweep_dir / SWEEP_FILE).write_text(json.dumps({"jobs": jobs}))
    return n_rows


def measure(n_trials: int, report: bool = True, before: bool = True) -> dict[str, float | int]:
    """Time collecting (and reporting) a generated tree of ``n_trials`` trials: wall and CPU seconds."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "tree"
        n_rows = make_tree(root, n_trials)
        sweeps = sorted(p for p in root.iterdir() if p.is_dir())
        general = Path(tmp) / "general"
        make_tree(general, n_trials, layout="general")
        start, cpu = time.perf_counter(), _cpu_with_children()
        old_layout = collect_runs(sorted(p for p in general.iterdir() if p.is_dir()))
        general_s, general_cpu = time.perf_counter() - start, _cpu_with_children() - cpu
        start, cpu = time.perf_counter(), _cpu_with_children()
        collection = collect_runs(sweeps)
        collect_s, collect_cpu = time.perf_counter() - start, _cpu_with_children() - cpu
        assert collection.results["trial_key"].nunique() == n_trials, collection.notes()
        pd.testing.assert_frame_equal(collection.results, old_layout.results)
        with _environ(COLLECT_PROCESSES_ENV, "0"):
            start, cpu = time.perf_counter(), _cpu_with_children()
            threads = collect_runs(sweeps)
            threads_s, threads_cpu = time.perf_counter() - start, _cpu_with_children() - cpu
        pd.testing.assert_frame_equal(collection.results, threads.results)
        before_s = float("nan")
        if before:
            start = time.perf_counter()
            previous = conform_results(
                pd.concat([read_parquet(f) for s in sweeps for f in result_files(s)], ignore_index=True)
            )
            before_s = time.perf_counter() - start
            assert len(previous) == len(collection.results)
        report_s = report_cpu = inline_s = inline_cpu = float("nan")
        if report:
            inline_s, inline_cpu = _time_report(collection.results, Path(tmp) / "inline", n_trials, workers=0)
            report_s, report_cpu = _time_report(
                collection.results, Path(tmp) / "report", n_trials, workers=None
            )
    return {"trials": n_trials, "rows": n_rows,
            "collect_general_s": round(general_s, 2), "collect_general_cpu_s": round(general_cpu, 2),
            "collect_threads_s": round(threads_s, 2), "collect_threads_cpu_s": round(threads_cpu, 2),
            "collect_s": round(collect_s, 2),
            "collect_cpu_s": round(collect_cpu, 2), "collect_before_s": round(before_s, 2),
            "collect_ratio": round(before_s / collect_s, 2), "report_inline_s": round(inline_s, 2),
            "report_inline_cpu_s": round(inline_cpu, 2),
            "layout_ratio": round(general_s / collect_s, 2),
            "processes_ratio": round(threads_s / collect_s, 2), "report_s": round(report_s, 2),
            "report_cpu_s": round(report_cpu, 2), "report_ratio": round(inline_s / report_s, 2),
            "total_s": round(collect_s + report_s, 2)}  # fmt: skip


def _time_report(
    results: pd.DataFrame, out_dir: Path, n_trials: int, workers: int | None
) -> tuple[float, float]:
    """Wall and CPU seconds (this process and its figure children) of one ``build_report``.

    ``workers=0`` renders every figure in this process (``$PRIVBENCH_FIGURE_WORKERS=0``, as
    before 2026-11-27); ``None`` uses the default background rendering
    (:func:`harness.report.style.background_saving`).
    """
    with _environ(FIGURE_WORKERS_ENV, None if workers is None else str(workers)):
        start, cpu = time.perf_counter(), _cpu_with_children()
        build_report(results, out_dir, title=f"{n_trials} trials")
        return time.perf_counter() - start, _cpu_with_children() - cpu


@contextmanager
def _environ(name: str, value: str | None) -> Iterator[None]:
    """Set (or, with None, unset) ``$name`` inside the block; restore it after."""
    previous = os.environ.get(name)
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = previous


def _cpu_with_children() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--no-report", action="store_true", help="time the collection only")
    parser.add_argument(
        "--no-before", action="store_true", help="skip the previous reading (minutes at 10,000 trials)"
    )
    args = parser.parse_args(argv)
    rows = [measure(n, not args.no_report, not args.no_before) for n in args.trials]
    print(pd.DataFrame(rows).to_string(index=False))


if __name__ == "__main__":
    main()
