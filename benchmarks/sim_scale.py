"""Simulate a 100,000-trial study on a SLURM cluster from measured trial durations.

The numbers behind ``benchmarks/SCALE.md``: trial durations are drawn from the committed
protocol runs (fit + sample + metric seconds of each trial under
``results/reproductions/runs/*/protocol``), each SLURM task pays a start-up overhead (scheduling,
interpreter, imports, the harness's per-job work) once, and tasks are lost (preemption, node
failure) with a given probability, losing the work done so far in the task; lost trials are run
again by the next run of the same command (:mod:`harness.slurm_launcher`).

Run::

    python -m benchmarks.sim_scale                       # the table of SCALE.md
    python -m benchmarks.sim_scale --trials 100000 --slots 256 --overhead-s 14 --loss 0.01

The simulation is list scheduling of tasks on ``slots`` identical one-CPU slots in submission
order (SLURM's backfill on a homogeneous partition behaves alike for equal-size tasks); it
reports the makespan, the CPU-hours spent (work + overhead + work lost to failures) and the
share of that which is trials' own work.
"""

from __future__ import annotations

import argparse
import heapq
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parent.parent
PROTOCOL_ROWS = "results/reproductions/runs/*/protocol/*/*/rows.parquet"


def measured_durations(root: Path = ROOT) -> np.ndarray:
    """Seconds of trials' own work (fit + sample + each metric once) in the committed protocol runs."""
    out = []
    for path in sorted(root.glob(PROTOCOL_ROWS)):
        table = pq.read_table(path, columns=["metric", "fit_s", "sample_s", "metric_s"]).to_pandas()
        per_metric = table.groupby("metric")["metric_s"].first().fillna(0.0).sum()
        out.append(
            float(table["fit_s"].fillna(0.0).iloc[0] + table["sample_s"].fillna(0.0).iloc[0] + per_metric)
        )
    return np.asarray(out)


def simulate(
    durations: np.ndarray, per_job: int, slots: int, overhead_s: float, loss: float, rng: np.random.Generator
) -> dict[str, float]:
    """Makespan (h), CPU-hours and the trials' share of them for one packing choice."""
    tasks = [durations[i : i + per_job] for i in range(0, len(durations), per_job)]
    free = [0.0] * slots
    heapq.heapify(free)
    spent = 0.0
    pending = list(tasks)
    rounds = 0
    while pending:
        rounds += 1
        retry = []
        for task in pending:
            start = heapq.heappop(free)
            work = float(task.sum())
            if rng.random() < loss:  # lost at a uniform point of the task: its finished trials are kept
                cut = rng.uniform(0.0, work)
                done = np.cumsum(task) <= cut
                spent += overhead_s + cut
                if (~done).any():
                    retry.append(task[~done])
                heapq.heappush(free, start + overhead_s + cut)
            else:
                spent += overhead_s + work
                heapq.heappush(free, start + overhead_s + work)
        pending = retry
    makespan = max(free)
    own = float(durations.sum())
    return {"makespan_h": makespan / 3600, "cpu_h": spent / 3600, "own_share": own / spent, "rounds": rounds}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=100_000)
    parser.add_argument("--slots", type=int, default=256)
    parser.add_argument("--overhead-s", type=float, default=14.0, help="start-up paid once per SLURM task")
    parser.add_argument("--loss", type=float, default=0.01, help="probability that a task is lost")
    parser.add_argument("--per-job", type=int, nargs="+", default=[1, 4, 16, 64])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    measured = measured_durations()
    rng = np.random.default_rng(args.seed)
    durations = rng.choice(measured, size=args.trials, replace=True)
    print(
        f"{len(measured)} measured protocol trials: median {np.median(measured):.0f} s, "
        f"90th percentile {np.percentile(measured, 90):.0f} s, max {measured.max():.0f} s; "
        f"{args.trials:,} trials drawn from them, {args.slots} slots, {args.overhead_s:g} s start-up per task, "
        f"{args.loss:.1%} of tasks lost"
    )
    print("| trials per job | tasks | makespan h | CPU-hours | trials' own share | submissions |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    for per_job in args.per_job:
        result = simulate(
            durations, per_job, args.slots, args.overhead_s, args.loss, np.random.default_rng(args.seed)
        )
        tasks = -(-args.trials // per_job)
        print(
            f"| {per_job} | {tasks:,} | {result['makespan_h']:.1f} | {result['cpu_h']:,.0f} | "
            f"{result['own_share']:.1%} | {result['rounds']} |"
        )


if __name__ == "__main__":
    main()
