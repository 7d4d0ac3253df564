"""Collect the per-job result files of one or several runs into one long table.

A results directory may hold several runs of the same sweep (a command re-run after a kill
starts a new timestamped directory; ``collect results/<experiment>`` then sees both). Each
trial is kept once: the rows of its newest result file (by modification time, then path), and
the collection says how many older copies it left out. A sweep launched by ``privbench run -m``
records the jobs it planned in ``sweep.json`` (:func:`write_sweep_plan`); collecting a sweep
whose jobs are not all there names the missing ones.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from harness.errors import DataError
from harness.schema import conform_results
from harness.storage import atomic_write_bytes, atomic_write_json, atomic_write_parquet

log = logging.getLogger("privbench")
ROWS_FILE = "rows.parquet"
SWEEP_FILE = "sweep.json"
#: Written beside the status row of a trial whose SLURM job was lost (cancelled, time limit, out
#: of memory): the row says what happened, the trial is not done and runs again when resumed.
LOST_MARKER = "slurm_lost.json"
SWEEP_PLAN_ENV = "PRIVBENCH_SWEEP_PLAN"
"""Path of the JSON file holding the job override lists of the sweep being launched."""
SHOWN_MISSING = 5
READ_THREADS = 4


@dataclass
class Collection:
    """The collected rows of some runs, and what the collection had to say about them.

    Attributes
    ----------
    results : DataFrame
        One set of rows per trial (schema of :mod:`harness.schema`).
    n_files : int
        Result files read.
    duplicates : int
        Result files left out because a newer file holds the same trial.
    missing : list of str
        Planned jobs with no result file (their overrides), over every sweep found.
    planned : int
        Jobs planned by the sweeps that recorded a plan.
    """

    results: pd.DataFrame
    n_files: int = 0
    duplicates: int = 0
    missing: list[str] = field(default_factory=list)
    planned: int = 0

    def notes(self) -> list[str]:
        """One line per thing a reader of the collected table must know."""
        out = []
        if self.duplicates:
            out.append(
                f"{self.duplicates} older result file(s) of trials run again were left out "
                "(kept the newest run of each trial)"
            )
        if self.missing:
            shown = "; ".join(self.missing[:SHOWN_MISSING])
            more = (
                f" and {len(self.missing) - SHOWN_MISSING} more" if len(self.missing) > SHOWN_MISSING else ""
            )
            out.append(
                f"partial sweep: {len(self.missing)} of {self.planned} planned trial(s) have no results "
                f"(missing: {shown}{more})"
            )
        return out


def result_files(run_dir: Path) -> list[Path]:
    """Every job result file under ``run_dir`` (cache folders excluded), sorted."""
    run_dir = Path(run_dir)
    return sorted(p for p in run_dir.rglob(ROWS_FILE) if ".cache" not in p.parts and "report" not in p.parts)


def collect(run_dirs: Sequence[Path]) -> pd.DataFrame:
    """Concatenate the result rows of ``run_dirs``, one set of rows per trial.

    Rows are ordered by (run_id, trial_key, metric, variant) so the table does not depend on
    the order in which jobs finished. :func:`collect_runs` also says what was left out.

    Raises
    ------
    DataError
        If a directory does not exist, holds no result file or a result file cannot be read.
    """
    return collect_runs(run_dirs).results


def collect_runs(run_dirs: Sequence[Path]) -> Collection:
    """:func:`collect` with the duplicates it dropped and the planned jobs it did not find."""
    files: list[Path] = []
    for run_dir in run_dirs:
        if not Path(run_dir).is_dir():
            raise DataError(f"{run_dir}: no such run directory; expected results/<experiment>/<timestamp>")
        found = result_files(Path(run_dir))
        if not found:
            raise DataError(
                f"{run_dir}: no {ROWS_FILE} found; expected the output directory of `privbench run`"
            )
        files.extend(found)
    files = sorted(set(files))
    tables = _read_all(files)
    newest: dict[str, tuple[tuple[float, str], pa.Table]] = {}
    keyless: list[pa.Table] = []
    for path, frame in zip(files, tables):
        keys = pc.unique(pc.drop_null(frame["trial_key"])) if "trial_key" in frame.column_names else []
        if len(keys) != 1:
            keyless.append(frame)
            continue
        stamp = (path.stat().st_mtime, str(path))
        key = str(keys[0])
        if key not in newest or stamp > newest[key][0]:
            newest[key] = (stamp, frame)
    kept = [frame for _, frame in newest.values()] + keyless
    table = conform_results(_to_pandas(kept))
    table = table.sort_values(["run_id", "trial_key", "metric", "variant"], kind="stable").reset_index(
        drop=True
    )
    missing, planned = _missing_jobs(run_dirs)
    return Collection(
        results=table,
        n_files=len(files),
        duplicates=len(files) - len(kept),
        missing=missing,
        planned=planned,
    )


def _read_all(files: Sequence[Path]) -> list[pa.Table]:
    """Every result file as an Arrow table, read by a few threads (decompression frees the GIL)."""
    if len(files) < 2 * READ_THREADS:
        return [_read_rows(path) for path in files]
    with ThreadPoolExecutor(max_workers=READ_THREADS) as pool:
        return list(pool.map(_read_rows, files))


def _read_rows(path: Path) -> pa.Table:
    """One result file as an Arrow table.

    The file is read whole in one call and decoded on the calling thread: result files are
    small (16 rows: tens of kB), and Arrow's own thread pool per file only competed with the
    reading threads (``bench_collect_scale``, 10,000 files on a busy machine: 30 CPU-seconds
    instead of 40).
    """
    try:
        return pq.ParquetFile(pa.BufferReader(path.read_bytes())).read(use_threads=False)
    except Exception as exc:  # pyarrow raises several types for a truncated or foreign file
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise DataError(
            f"{path}: cannot be read as a privbench result file ({first}); "
            "delete it and run the same command again to redo that trial"
        ) from None


def _to_pandas(tables: list[pa.Table]) -> pd.DataFrame:
    """One DataFrame from result tables whose schemas may differ (older runs, all-null columns).

    Arrow concatenates tables of one schema without copying; files of another schema (a column
    added since, a column that was all null) are converted on their own and concatenated by
    pandas, as before.
    """
    groups: dict[pa.Schema, list[pa.Table]] = {}
    for table in tables:
        schema = table.schema.remove_metadata()
        groups.setdefault(schema, []).append(table.replace_schema_metadata(None))
    frames = [pa.concat_tables(group).to_pandas() for group in groups.values()]
    return frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)


def write_sweep_plan(sweep_dir: Path) -> None:
    """Record the sweep's planned jobs in ``<sweep_dir>/sweep.json`` (once per sweep).

    The plan comes from the file named by ``$PRIVBENCH_SWEEP_PLAN`` (written by ``privbench
    run -m`` after preflight); without it nothing is written.
    """
    source = os.environ.get(SWEEP_PLAN_ENV)
    target = Path(sweep_dir) / SWEEP_FILE
    if not source or target.exists():
        return
    try:
        jobs = json.loads(Path(source).read_text())
    except (OSError, ValueError):
        log.warning("sweep plan %s could not be read; collect will not list missing trials", source)
        return
    atomic_write_json(target, {"jobs": jobs})


def job_done(job_dir: Path) -> bool:
    """True when a job directory holds its trial's rows (not the status row of a lost SLURM job)."""
    return (job_dir / ROWS_FILE).is_file() and not (job_dir / LOST_MARKER).exists()


def unfinished_sweep(results_root: Path, jobs: list[list[str]]) -> tuple[Path, int] | None:
    """The newest sweep directory that planned exactly ``jobs`` and is not finished, with its done count.

    Looks at ``<results_root>/<experiment>/<run>/sweep.json``; a sweep whose every planned job
    has its rows is finished (running it again starts a new directory, served from the cache).
    """
    root = Path(results_root)
    if not root.is_dir():
        return None
    candidates = sorted(
        root.glob(f"*/*/{SWEEP_FILE}"), key=lambda p: (p.stat().st_mtime, str(p)), reverse=True
    )
    for plan_path in candidates:
        if ".cache" in plan_path.parts:
            continue
        try:
            planned = json.loads(plan_path.read_text())["jobs"]
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if planned != jobs:
            continue
        done = sum(job_done(plan_path.parent / str(i)) for i in range(len(jobs)))
        return (plan_path.parent, done) if done < len(jobs) else None
    return None


def _missing_jobs(run_dirs: Sequence[Path]) -> tuple[list[str], int]:
    """Planned jobs (from every ``sweep.json`` under ``run_dirs``) without a result file."""
    missing: list[str] = []
    planned = 0
    plans = sorted({p for d in run_dirs for p in Path(d).rglob(SWEEP_FILE) if ".cache" not in p.parts})
    for plan_path in plans:
        try:
            jobs: list[Any] = json.loads(plan_path.read_text())["jobs"]
        except (OSError, ValueError, KeyError, TypeError):
            continue
        planned += len(jobs)
        for number, overrides in enumerate(jobs):
            if not (plan_path.parent / str(number) / ROWS_FILE).is_file():
                missing.append(" ".join(map(str, overrides)) or f"job {number}")
    return missing, planned


def write_table(results: pd.DataFrame, path: Path) -> None:
    """Write ``results`` as Parquet (``.parquet``) or CSV (``.csv``), atomically."""
    path = Path(path)
    if path.suffix == ".parquet":
        atomic_write_parquet(path, results)
    elif path.suffix == ".csv":
        atomic_write_bytes(path, results.to_csv(index=False).encode())
    else:
        raise DataError(f"{path}: output must end in .parquet or .csv")


def run_config_text(run_dir: Path) -> str | None:
    """The composed config of a run (``multirun.yaml`` or the job's ``.hydra/config.yaml``)."""
    run_dir = Path(run_dir)
    for candidate in (run_dir / "multirun.yaml", run_dir / ".hydra" / "config.yaml"):
        if candidate.is_file():
            return candidate.read_text()
    found = sorted(run_dir.rglob(".hydra/config.yaml"))
    return found[0].read_text() if found else None
