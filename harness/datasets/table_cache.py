"""Parsed dataset tables kept on disk between processes, keyed by the load's digest.

Parsing a dataset (CSV reading, numeric conversion, label stripping, :func:`harness.dtypes.conform`)
is repeated by every fresh process: each ``privbench run``, each SLURM job. Adult's 48,842 rows
took 0.5 s of a 5 s one-trial run; reading the parsed table back from Parquet takes 0.07 s.
:func:`cached_table` stores each parsed table (and its predefined-test mask) once under the
user's cache, ``~/.cache/privbench/datasets`` (``$XDG_CACHE_HOME``, next to numba's kernel
cache), or ``$PRIVBENCH_CACHE_DIR/datasets`` when that is set (parsed copies of a user's table
go where the user put privbench's caches, nowhere else); ``PRIVBENCH_DATASET_CACHE_DIR`` moves
it, ``PRIVBENCH_DATASET_CACHE=0`` turns it off), keyed by the loader's digest: SHA-256 of the raw bytes of every file read and of the
spec (:func:`harness.datasets.load_dataset`), so an edited file or spec is another entry, and
by the source of the code that parses (``harness/datasets/``, ``harness/dtypes.py``,
``harness/derived.py``, ``harness/spec.py``) and pandas' version, so a changed parser never
serves an old table.

A table is stored only if it survives the round trip exactly: before writing, the Parquet
bytes are read back and compared with :func:`harness.memo.frame_digest` (values, column names,
dtypes, order) and, in object columns, by the Python type of every cell (NaN vs None, 1 vs "1"); a table that would come back different is never cached (a
marker records it). Entries are written atomically; an unreadable entry is a miss. No pickle.
The tables are copies of the user's data: folders ``0700``, files ``0600`` (issue 29).
"""

from __future__ import annotations

import functools
import hashlib
import os
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from harness.storage import PRIVATE_FILE_MODE, atomic_write_json, private_dir

ENABLED_ENV = "PRIVBENCH_DATASET_CACHE"
DIR_ENV = "PRIVBENCH_DATASET_CACHE_DIR"
CODE_VERSION = "table-cache-v1"
"""Part of every key: bump it when the stored layout or the loader's output changes."""
MASK_COLUMN = "__privbench_test_mask__"

Table = tuple[pd.DataFrame, "np.ndarray | None"]


def cache_dir() -> Path | None:
    """The directory of the cached tables, or None when the cache is off."""
    if os.environ.get(ENABLED_ENV, "1").strip() == "0":
        return None
    configured = os.environ.get(DIR_ENV)
    if configured:
        return Path(configured)
    root = os.environ.get("PRIVBENCH_CACHE_DIR")
    if root:  # the user chose where privbench keeps copies of their data: there, never elsewhere
        return Path(root) / "datasets"
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "privbench" / "datasets"


def cached_table(digest: str, build: Callable[[], Table], *, name: str = "") -> Table:
    """The table of ``digest``: read from the cache, or built and stored (if it round-trips).

    ``name`` (the dataset's) is written beside the entry (``<key>.json``), so ``privbench cache
    clear --dataset NAME`` can find it.
    """
    root = cache_dir()
    if root is None:
        return build()
    key = hashlib.sha256(f"{CODE_VERSION}:{pd.__version__}:{parser_digest()}:{digest}".encode()).hexdigest()
    path = root / key[:2] / f"{key}.parquet"
    hit = _read(path)
    if hit is not None:
        return hit
    table = build()
    if not path.with_suffix(".uncacheable").exists():
        _store(path, table, root, name)
    return table


@functools.cache
def parser_digest() -> str:
    """SHA-256 over the source files of the code that turns dataset files into tables."""
    harness = Path(__file__).resolve().parent.parent
    files = sorted((harness / "datasets").rglob("*.py"))
    files += [harness / "dtypes.py", harness / "derived.py", harness / "spec.py"]
    digest = hashlib.sha256()
    for file in files:
        digest.update(file.relative_to(harness).as_posix().encode())
        digest.update(file.read_bytes())
    return digest.hexdigest()


def _read(path: Path) -> Table | None:
    if not path.is_file():
        return None
    try:
        return _decode(path)
    except (OSError, ValueError, KeyError, ImportError):
        return None


def _store(path: Path, table: Table, root: Path, name: str = "") -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    frame, mask = table
    if MASK_COLUMN in frame.columns:
        return
    stored = frame if mask is None else frame.assign(**{MASK_COLUMN: np.asarray(mask, dtype=bool)})
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        private_dir(path.parent, root)
        with open(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE_MODE), "wb") as handle:
            pq.write_table(pa.Table.from_pandas(stored, preserve_index=False), handle, compression="snappy")
        back_frame, back_mask = _decode(partial)
        exact = _identical(frame, back_frame) and (
            (mask is None and back_mask is None)
            or (mask is not None and back_mask is not None and np.array_equal(mask, back_mask))
        )
        if exact:
            os.replace(partial, path)
            atomic_write_json(path.with_suffix(".json"), {"dataset": name}, private_root=root)
        else:
            path.with_suffix(".uncacheable").touch(mode=PRIVATE_FILE_MODE)
    except (OSError, ValueError, TypeError, pa.ArrowException):
        pass  # a read-only or full cache directory, an unstorable column: parse every time
    finally:
        partial.unlink(missing_ok=True)


def _identical(frame: pd.DataFrame, other: pd.DataFrame) -> bool:
    """Same values, dtypes, names and order, and in object columns the same Python type in
    every cell (``frame_digest`` hashes None like NaN and 1 like "1")."""
    from harness.memo import frame_digest

    if frame_digest(frame) != frame_digest(other):
        return False
    return all(
        list(map(type, frame[column].to_numpy())) == list(map(type, other[column].to_numpy()))
        for column in frame.columns
        if frame[column].dtype == object
    )


def _decode(path: Path) -> Table:
    """Read an entry (from its path: pyarrow 21 reading from an in-memory buffer or a Python
    file object aborted the process at exit in about half the runs on this machine
    ("terminate called without an active exception"; apache/arrow#34314, #50482)), with NaN
    for the missing values of object columns, as :func:`harness.dtypes.conform` leaves them (a
    table holding None there does not pass :func:`_identical` and is not cached)."""
    import pyarrow.parquet as pq

    frame = pq.read_table(str(path)).to_pandas()
    for column in frame.columns:  # Parquet's nulls come back as None; the loader's missing values are NaN
        if frame[column].dtype == object:
            values = frame[column].to_numpy(dtype=object, copy=True)
            values[values == None] = np.nan  # noqa: E711 (elementwise)
            frame[column] = values
    if MASK_COLUMN not in frame.columns:
        return frame, None
    mask = frame.pop(MASK_COLUMN).to_numpy(dtype=bool)
    return frame, mask
