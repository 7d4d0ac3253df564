"""Atomic, deterministic file writes (temp file + rename) for tables and JSON.

Parquet files are written with fixed settings so the same DataFrame gives the same bytes
in every process; nothing is ever stored with pickle.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from harness.spec import canonical_json

PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600


def private_dir(path: Path, root: Path) -> Path:
    """Create ``path`` (under ``root``) so that ``root`` and every folder below it is ``0700``.

    Folders above ``root`` are created as usual; folders from ``root`` down that this user owns
    are made ``0700`` (also ones an older version created ``755``). For the caches, which hold
    copies of the real data (issue 29): other users of a shared machine cannot list or read them.
    """
    path, root = Path(path), Path(root)
    root.parent.mkdir(parents=True, exist_ok=True)
    try:
        below = path.relative_to(root).parts
    except ValueError:
        raise ValueError(f"{path} is not under the private root {root}") from None
    folder = root
    for part in ("", *below):
        folder = folder / part if part else folder
        with contextlib.suppress(FileExistsError):
            folder.mkdir(mode=PRIVATE_DIR_MODE)
        info = folder.stat()
        if info.st_uid == os.getuid() and (info.st_mode & 0o777) != PRIVATE_DIR_MODE:
            os.chmod(folder, PRIVATE_DIR_MODE)
    return path


def atomic_write_bytes(path: Path, data: bytes, *, private_root: Path | None = None) -> None:
    """Write ``data`` to ``path`` atomically (readers see the old file or the new one).

    With ``private_root`` (a cache root holding real data) the file is ``0600`` and the folders
    from ``private_root`` down are ``0700`` (:func:`private_dir`); otherwise the umask decides.
    """
    path = Path(path)
    if private_root is not None:
        private_dir(path.parent, private_root)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, PRIVATE_FILE_MODE if private_root is not None else 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write_json(path: Path, value: Any, *, private_root: Path | None = None) -> None:
    """Write canonical, human-readable JSON atomically (private under ``private_root``)."""
    text = json.dumps(json.loads(canonical_json(value)), indent=2, sort_keys=True) + "\n"
    atomic_write_bytes(path, text.encode(), private_root=private_root)


def parquet_bytes(frame: pd.DataFrame) -> bytes:
    """Serialise ``frame`` (index dropped) to Parquet with deterministic settings."""
    table = pa.Table.from_pandas(frame, preserve_index=False)
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd", compression_level=3, write_statistics=True)
    return bytes(sink.getvalue().to_pybytes())


@functools.cache
def warm_parquet_writer() -> None:
    """Serialise a small table once in this process (first-use set-up of the Parquet writer).

    The fit child writes its variant with :func:`parquet_bytes`; a child forked from a process
    that never wrote one pays the writer's first-use set-up (30-50 ms in a trial process) again
    in every trial. Called before forking, it is paid once per process.
    """
    frame = pd.DataFrame(
        {
            "float": [0.5, None],
            "int": [1, 2],
            "text": pd.Series(["a", None], dtype=object),
            "category": pd.Categorical(["a", "b"]),
            "flag": [True, False],
        }
    )
    parquet_bytes(frame)


def rows_parquet_bytes(frame: pd.DataFrame) -> bytes:
    """Serialise one trial's result rows (tens of rows) to Parquet, laid out to be read fast.

    A trial's ``rows.parquet`` has about 16 rows and 35 columns, so its footer is most of the
    file and per-column-chunk costs dominate reading it: no column statistics, no dictionary
    pages, no pandas schema metadata (readers get plain dtypes and apply the schema's with
    :func:`harness.schema.conform_results`, as ``collect`` and the trial cache do) and Snappy
    instead of Zstandard (whose per-chunk context costs more than it saves on 16 values).
    ``collect`` decodes such files in about half the CPU time of :func:`parquet_bytes`' layout,
    and they are smaller (about 10 kB instead of 26 kB; ``benchmarks/bench_collect_scale.py``).
    Deterministic like :func:`parquet_bytes`.
    """
    table = pa.Table.from_pandas(frame, preserve_index=False).replace_schema_metadata(None)
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="snappy", use_dictionary=False, write_statistics=False)
    return bytes(sink.getvalue().to_pybytes())


def atomic_write_parquet(path: Path, frame: pd.DataFrame, *, private_root: Path | None = None) -> None:
    """Write ``frame`` to a Parquet file atomically (private under ``private_root``)."""
    atomic_write_bytes(path, parquet_bytes(frame), private_root=private_root)


def atomic_write_rows(path: Path, frame: pd.DataFrame, *, private_root: Path | None = None) -> None:
    """Write one trial's result rows atomically (layout of :func:`rows_parquet_bytes`)."""
    atomic_write_bytes(path, rows_parquet_bytes(frame), private_root=private_root)


def read_parquet(path: Path) -> pd.DataFrame:
    """Read a Parquet file written by :func:`atomic_write_parquet`."""
    return pq.read_table(path).to_pandas()
