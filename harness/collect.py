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
import multiprocessing
import os
import tempfile
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.ipc
import pyarrow.parquet as pq

from harness.errors import DataError
from harness.forking import fork_children
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
PROCESS_READ_MIN_FILES = 2000
MAX_READ_PROCESSES = 8
COLLECT_PROCESSES_ENV = "PRIVBENCH_COLLECT_PROCESSES"
"""Processes that read result files (``0`` or ``1``: the collecting process, with threads)."""


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
    found = (p for p in run_dir.rglob(ROWS_FILE) if ".cache" not in p.parts and "report" not in p.parts)
    return sorted(found, key=_path_order)


def _path_order(path: Path) -> tuple[str, ...]:
    """Sort key giving Path's own (POSIX) order; comparing the parts tuples is much faster."""
    return path.parts


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
    files = sorted(set(files), key=_path_order)
    batches = _read_all(files)
    # The newest file of each trial wins; files without exactly one trial key are all kept.
    newest: dict[str, tuple[tuple[float, str], int, int]] = {}
    keep = [np.zeros(len(batch.keys), dtype=bool) for batch in batches]
    for b, batch in enumerate(batches):
        for i, (key, stamp) in enumerate(zip(batch.keys, batch.stamps)):
            if key is None:
                keep[b][i] = True
            elif key not in newest or stamp > newest[key][0]:
                newest[key] = (stamp, b, i)
    for _, b, i in newest.values():
        keep[b][i] = True
    kept = [batch.rows_of(mask) for batch, mask in zip(batches, keep) if mask.any()]
    n_kept = int(sum(mask.sum() for mask in keep))
    table = conform_results(_to_pandas(kept))
    table = table.sort_values(["run_id", "trial_key", "metric", "variant"], kind="stable").reset_index(
        drop=True
    )
    missing, planned = _missing_jobs(run_dirs)
    return Collection(
        results=table,
        n_files=len(files),
        duplicates=len(files) - n_kept,
        missing=missing,
        planned=planned,
    )


@dataclass
class _Batch:
    """Result files read together: their trial keys, (mtime, path) stamps and rows, in file order."""

    keys: list[str | None]
    stamps: list[tuple[float, str]]
    sizes: list[int]
    table: pa.Table

    def rows_of(self, mask: np.ndarray) -> pa.Table:
        """The rows of the files selected by ``mask``."""
        if mask.all():
            return self.table
        return self.table.filter(pa.array(np.repeat(mask, self.sizes)))


def _batch(paths: Sequence[Path]) -> _Batch:
    """Read ``paths`` into one batch (tables of different schemas unified, null columns typed)."""
    tables = [_read_rows(path) for path in paths]
    keys = [_trial_key(table) for table in tables]
    stamps = [(path.stat().st_mtime, str(path)) for path in paths]
    table = tables[0] if len(tables) == 1 else _concat(tables)
    return _Batch(keys, stamps, [t.num_rows for t in tables], table)


def _batch_to_file(job: tuple[list[Path], Path]) -> _Batch:
    """:func:`_batch` of ``job[0]``, its table written to ``job[1]`` (Arrow IPC) instead of returned."""
    paths, target = job
    batch = _batch(paths)
    with pa.OSFile(str(target), "wb") as sink, pa.ipc.new_file(sink, batch.table.schema) as writer:
        writer.write_table(batch.table)
    batch.table = pa.table({})
    return batch


def _trial_key(table: pa.Table) -> str | None:
    if "trial_key" not in table.column_names:
        return None
    keys = pc.unique(pc.drop_null(table["trial_key"]))
    return str(keys[0]) if len(keys) == 1 else None


def _concat(tables: list[pa.Table]) -> pa.Table:
    plain = [table.replace_schema_metadata(None) for table in tables]
    try:
        return pa.concat_tables(plain, promote_options="permissive")
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        # Columns whose types cannot be unified (results of much older versions): go through
        # pandas, as the collection of separate files does.
        return pa.Table.from_pandas(_to_pandas(plain), preserve_index=False)


def _read_all(files: Sequence[Path]) -> list[_Batch]:
    """Every result file, in file order, as batches.

    Many files (at least :data:`PROCESS_READ_MIN_FILES`) are read by forked processes, one per
    usable core (:func:`read_processes`), each returning its slice as one table: decoding a
    file is about 1.5 ms of mostly GIL-holding work, so threads add little. Fewer files are
    read by a few threads, one batch per file.
    """
    processes = read_processes(len(files))
    if processes > 1:
        size = max(1, -(-len(files) // (4 * processes)))  # four slices per process balance the load
        slices = [list(files[i : i + size]) for i in range(0, len(files), size)]
        context = multiprocessing.get_context("fork")
        shm = Path("/dev/shm")
        with tempfile.TemporaryDirectory(
            prefix="privbench-collect-", dir=shm if shm.is_dir() else None
        ) as tmp:
            jobs = [(part, Path(tmp) / f"{number}.arrow") for number, part in enumerate(slices)]
            with ProcessPoolExecutor(max_workers=processes, mp_context=context) as pool:
                batches = list(pool.map(_batch_to_file, jobs))
            for batch, (_, path) in zip(batches, jobs):
                # Pickling the rows back cost more than reading them (their JSON text columns):
                # each process writes its slice as an Arrow IPC file, read here without a copy.
                with pa.memory_map(str(path)) as source:
                    batch.table = pa.ipc.open_file(source).read_all()
        return batches
    if len(files) < 2 * READ_THREADS:
        return [_batch([path]) for path in files]
    with ThreadPoolExecutor(max_workers=READ_THREADS) as pool:
        return list(pool.map(lambda path: _batch([path]), files))


def read_processes(n_files: int) -> int:
    """Processes that read ``n_files`` result files (1: read in this process).

    ``$PRIVBENCH_COLLECT_PROCESSES`` if set (0 or 1: this process), else the usable cores (at
    most :data:`MAX_READ_PROCESSES`) for :data:`PROCESS_READ_MIN_FILES` files or more; 1 where
    ``fork`` is not available or in a daemonic process (which may not have children).
    """
    if n_files < PROCESS_READ_MIN_FILES and not os.environ.get(COLLECT_PROCESSES_ENV, "").strip():
        return 1
    return max(1, fork_children(COLLECT_PROCESSES_ENV, MAX_READ_PROCESSES))


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
