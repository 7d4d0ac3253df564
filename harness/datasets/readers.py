"""Read one raw input file (CSV or parquet, optionally gzip'ed) into a table of strings.

The reader repairs generic quirks so that YAML options, not code, describe a file:

* gzip is detected from the magic bytes, parquet from the extension or its magic bytes;
* text is decoded as ``utf-8-sig`` by default, so a UTF-8 byte-order mark is dropped;
* CRLF and lone CR line ends become LF;
* ``skiprows`` drops junk lines at the top (Adult's ``|1x3 Cross validator``);
* ``header: replace`` discards a header row someone added and uses the declared names;
* rows equal to the header (a header repeated inside the data, e.g. after concatenating files)
  are dropped;
* ``na_values`` (all columns, or per column) become missing.

CSV cells are kept as text (``dtype=str``) so that codes such as ``"01"`` survive; the
loader converts columns to their declared kinds afterwards. Bad files raise a one-line
:class:`DataError` naming the file.
"""

from __future__ import annotations

import gzip
import io
import warnings
import zlib
from pathlib import Path

import pandas as pd

from harness.datasets.source import SourceConfig
from harness.errors import DataError

GZIP_MAGIC = b"\x1f\x8b"
PARQUET_MAGIC = b"PAR1"
PARQUET_SUFFIXES = (".parquet", ".pq")


def decompress(data: bytes, *, where: str) -> bytes:
    """Return ``data`` gunzip'ed when it starts with the gzip magic bytes, else unchanged."""
    if not data.startswith(GZIP_MAGIC):
        return data
    try:
        return gzip.decompress(data)
    except (OSError, EOFError, zlib.error) as exc:
        raise DataError(f"{where}: not a readable gzip file ({exc})") from None


def file_format(path: Path, data: bytes, declared: str | None) -> str:
    """``csv`` or ``parquet``: the declared format, else from the extension or the magic bytes."""
    if declared is not None:
        return declared
    suffixes = [s.lower() for s in path.suffixes if s.lower() != ".gz"]
    if (suffixes and suffixes[-1] in PARQUET_SUFFIXES) or data.startswith(PARQUET_MAGIC):
        return "parquet"
    return "csv"


def read_table(
    path: Path,
    raw: bytes,
    src: SourceConfig,
    *,
    names: tuple[str, ...],
    skiprows: int = 0,
) -> pd.DataFrame:
    """Parse the bytes of one file into a DataFrame with named columns and a RangeIndex.

    Parameters
    ----------
    path : Path
        The file (used for the format guess and in error messages).
    raw : bytes
        The file's bytes as stored (possibly gzip'ed).
    src : SourceConfig
        Read options (separator, header mode, NA codes, ...).
    names : tuple of str
        Column names for ``header: false`` / ``replace`` (``source.names`` or the declared columns).
    skiprows : int
        Lines to skip before the header or first data row.

    Raises
    ------
    DataError
        If the file is empty, binary, not UTF-8, JSON, or not a consistent table.
    """
    where = str(path)
    if not raw:
        raise DataError(f"{where}: file is empty (0 bytes); expected a CSV or parquet table")
    data = decompress(raw, where=where)
    if file_format(path, data, src.format) == "parquet":
        frame = _read_parquet(data, where)
    else:
        frame = _read_csv(data, src, names=names, skiprows=skiprows, where=where)
    if len(frame) == 0:
        raise DataError(f"{where}: table has no data rows; expected at least one row")
    return frame


# ---------------------------------------------------------------------- parquet
def _read_parquet(data: bytes, where: str) -> pd.DataFrame:
    try:
        # no pre-buffering: pyarrow 21's pre-buffered reads from memory left I/O threads that
        # aborted about a fifth of the processes at exit (apache/arrow#34314, #50482)
        frame = pd.read_parquet(io.BytesIO(data), pre_buffer=False)
    except Exception as exc:  # pyarrow raises several types for corrupt files
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise DataError(f"{where}: not a readable parquet file ({first})") from None
    frame.columns = [str(c) for c in frame.columns]
    return frame.reset_index(drop=True)


# ---------------------------------------------------------------------- csv
def _decode(data: bytes, encoding: str, where: str) -> str:
    if b"\x00" in data[:65536]:
        raise DataError(f"{where}: binary content (NUL bytes); expected a CSV text table or parquet file")
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise DataError(
            f"{where}: not {encoding} text ({exc.reason} at byte {exc.start}); expected a CSV text table "
            "(set source.encoding for other encodings)"
        ) from None
    except LookupError:
        raise DataError(f"{where}: unknown source.encoding {encoding!r}") from None
    if not text.strip():
        raise DataError(f"{where}: file is empty (only whitespace); expected a CSV table")
    head = text.lstrip()[:1]
    if head in ("{", "["):
        raise DataError(f"{where}: looks like JSON, not a CSV table; expected rows of delimited values")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _read_csv(
    data: bytes, src: SourceConfig, *, names: tuple[str, ...], skiprows: int, where: str
) -> pd.DataFrame:
    text = _decode(data, src.encoding, where)
    if src.header == "replace":
        skiprows += 1  # the added header may not even have one name per field; never parse it
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", pd.errors.ParserWarning)
            cells = pd.read_csv(
                io.StringIO(text),
                sep=src.sep,
                header=None,
                dtype=str,
                skiprows=skiprows,
                quotechar=src.quotechar,
                comment=src.comment,
                skipinitialspace=src.skipinitialspace,
                keep_default_na=src.keep_default_na,
                index_col=False,
                engine="c" if len(src.sep) == 1 else "python",
            )
    except pd.errors.EmptyDataError:
        raise DataError(
            f"{where}: file is empty after skipping {skiprows} line(s); expected a CSV table"
        ) from None
    except (pd.errors.ParserError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0]
        raise DataError(
            f"{where}: not a consistent CSV table ({first}); check source.sep, skiprows, header and names"
        ) from None
    cells.columns = pd.RangeIndex(cells.shape[1])
    if src.header is True:
        columns = _header_names(cells.iloc[0])
        cells = cells.iloc[1:]
    else:
        columns = list(names)
    if len(columns) != cells.shape[1]:
        what = "its header names" if src.header is True else "source.names / the declared columns give"
        raise DataError(
            f"{where}: rows have {cells.shape[1]} field(s) but {what} {len(columns)} column(s) "
            f"({', '.join(columns)}); expected one name per field"
        )
    cells.columns = pd.Index(columns)
    cells = _drop_repeated_header(cells)
    cells = _apply_na_values(cells, src)
    return cells.reset_index(drop=True)


def _header_names(row: pd.Series) -> list[str]:
    """Header cells as names; blanks become ``Unnamed: i`` and repeats ``name.1``, ``name.2`` (as pandas)."""
    names: list[str] = []
    for i, value in enumerate(row):
        name = f"Unnamed: {i}" if pd.isna(value) else str(value).strip()
        base, k = name, 0
        while name in names:
            k += 1
            name = f"{base}.{k}"
        names.append(name)
    return names


def _drop_repeated_header(cells: pd.DataFrame) -> pd.DataFrame:
    """Drop rows whose every cell equals its column name (a header repeated inside the data)."""
    header = [str(c) for c in cells.columns]
    first = cells.iloc[:, 0]
    candidate = first.notna() & (first.astype(str).str.strip() == header[0])
    if not candidate.any():
        return cells
    rows = cells.loc[candidate].astype(str).apply(lambda col: col.str.strip())
    repeated = rows.eq(pd.Series(header, index=cells.columns)).all(axis=1)
    return cells.drop(index=repeated.index[repeated.to_numpy()])


def _apply_na_values(cells: pd.DataFrame, src: SourceConfig) -> pd.DataFrame:
    if src.na_values:
        cells = cells.mask(cells.isin(list(src.na_values)))
    for col, codes in src.column_na_values.items():
        if col in cells.columns:
            cells[col] = cells[col].mask(cells[col].isin(list(codes)))
    return cells
