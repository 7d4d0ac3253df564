"""Collect the per-job result files of one or several runs into one long table."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from harness.errors import DataError
from harness.schema import conform_results
from harness.storage import atomic_write_bytes, atomic_write_parquet, read_parquet

ROWS_FILE = "rows.parquet"


def result_files(run_dir: Path) -> list[Path]:
    """Every job result file under ``run_dir`` (cache folders excluded), sorted."""
    run_dir = Path(run_dir)
    return sorted(p for p in run_dir.rglob(ROWS_FILE) if ".cache" not in p.parts and "report" not in p.parts)


def collect(run_dirs: Sequence[Path]) -> pd.DataFrame:
    """Concatenate the result rows of ``run_dirs`` (schema of :mod:`harness.schema`).

    Rows are ordered by (trial_key, metric, variant) so the table does not depend on the
    order in which jobs finished.

    Raises
    ------
    DataError
        If a directory does not exist or holds no result file.
    """
    frames: list[pd.DataFrame] = []
    for run_dir in run_dirs:
        if not Path(run_dir).is_dir():
            raise DataError(f"{run_dir}: no such run directory; expected results/<experiment>/<timestamp>")
        files = result_files(Path(run_dir))
        if not files:
            raise DataError(
                f"{run_dir}: no {ROWS_FILE} found; expected the output directory of `privbench run`"
            )
        frames.extend(read_parquet(f) for f in files)
    table = conform_results(pd.concat(frames, ignore_index=True))
    return table.sort_values(["run_id", "trial_key", "metric", "variant"], kind="stable").reset_index(
        drop=True
    )


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
