"""Generalisation hierarchies named by ``DatasetSpec.hierarchies`` (ARX format).

A hierarchy file has no header, ``;``-separated cells and one row per original value:
column 0 is the original value (level 0), each further column a coarser level, the last
one usually ``*``. Paths resolve like the dataset's ``source`` files: relative to
:data:`~harness.datasets.paths.DATA_ROOT` for bundled datasets, to ``base_dir`` (default:
the working directory) for ``source.kind: path``. Files may be gzip'ed.
"""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd

from harness.datasets.paths import resolve_path
from harness.datasets.readers import decompress
from harness.errors import ConfigError, DataError
from harness.spec import DatasetSpec


def hierarchy_path(spec: DatasetSpec, column: str, *, base_dir: Path | None = None) -> Path:
    """Resolved path of the hierarchy file of ``column``.

    Raises
    ------
    ConfigError
        If the spec declares no hierarchy for ``column`` (the message lists those it has).
    """
    if column not in spec.hierarchies:
        raise ConfigError(
            f"dataset {spec.name!r}: no hierarchy for column {column!r}; expected one of: "
            + (", ".join(spec.hierarchies) or "(the dataset defines none)")
        )
    kind = "path" if spec.source.get("kind") == "path" else "bundled"
    return resolve_path(
        spec.hierarchies[column],
        kind,
        base_dir=base_dir,
        where=f"dataset {spec.name!r}: hierarchies.{column}",
    )


def load_hierarchy(spec: DatasetSpec, column: str, *, base_dir: Path | None = None) -> pd.DataFrame:
    """Read the hierarchy of ``column`` as strings, columns ``level0`` ... ``levelN``.

    Raises
    ------
    ConfigError
        If the spec declares no hierarchy for ``column``.
    DataError
        If the file is missing, empty or ragged.
    """
    path = hierarchy_path(spec, column, base_dir=base_dir)
    if not path.is_file():
        raise DataError(f"{path}: hierarchy file for column {column!r} not found")
    text = decompress(path.read_bytes(), where=str(path)).decode("utf-8-sig")
    if not text.strip():
        raise DataError(f"{path}: hierarchy file is empty; expected one ';'-separated row per value")
    try:
        table = pd.read_csv(io.StringIO(text), sep=";", header=None, dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, ValueError) as exc:
        raise DataError(f"{path}: not a ';'-separated hierarchy ({str(exc).splitlines()[0]})") from None
    table.columns = [f"level{i}" for i in range(table.shape[1])]
    return table
