"""Load a dataset described by a :class:`~harness.spec.DatasetSpec` into a canonical table.

Public API
----------
``load_spec(name, overrides=None, *, extra_dirs=())``
    Read ``experiments/dataset/<name>.yaml`` (user ``extra_dirs`` first), deep-merge
    ``overrides`` and build the spec; the ``source`` block is validated here already.
``load_dataset(spec, *, base_dir=None) -> LoadedDataset``
    Read the files (or simulate the data), repair generic quirks, select and convert the
    declared columns (``harness.dtypes.conform``) and check the result.

The ``source`` block
--------------------
::

    source:
      kind: bundled            # bundled (under DATA_ROOT) | path (your file) | simulated
      files:                   # or `path: some/file.csv` for a single file (role data)
        - {path: adult/adult.data.gz, role: train}
        - {path: adult/adult.test.gz, role: test, skiprows: 1}
      format: csv              # csv | parquet; default: parquet for .parquet/.pq (or parquet
                               #   magic bytes), csv for anything else (.csv, .txt, .data, ...)
      header: false            # true (default): first row names the columns
                               # false: no header; names = `names`, else the declared columns
                               # replace: a header row someone added; discard it, use those names
      names: [id, date, ...]   # optional: the file's column names in order (header false/replace)
      sep: ","                 # field separator (default ",")
      skipinitialspace: true   # drop blanks after the separator (Adult's ", ")
      quotechar: '"'           # default '"'
      comment: null            # a character that starts a comment line
      encoding: utf-8-sig      # default; a UTF-8 byte-order mark is always removed
      na_values: ["?"]         # extra missing-value strings: a list (all columns) or
                               #   {column: [strings]}; matched as text
      keep_default_na: true    # pandas' default NA strings ("", "NA", "NaN", "null", ...)
      strip_suffix: {income: "."}   # remove a trailing suffix from a column's values
      rename: {old: new}       # file column -> declared column
      drop: [ID]               # file columns dropped before use
      test_index: {path: privatesmote_openml/test_indexes.json.gz, key: "3"}

``files[*].role`` is ``data`` (default), ``train`` or ``test``; rows of ``test`` files, or
the 0-based row positions (of the concatenated table) listed in the ``test_index`` JSON file
(a list, or a mapping from ``key`` to a list), form :attr:`LoadedDataset.test_mask`. Paths
of ``kind: bundled`` are relative to :data:`DATA_ROOT`; paths of ``kind: path`` are absolute
or relative to ``base_dir`` (default: the current working directory); ``.gz`` files are
read directly. Every file column must be declared under ``columns`` or listed in ``drop``;
``identifier`` columns are read and then dropped from the table.

``kind: simulated`` takes ``generator`` and ``params`` instead (see
:mod:`harness.datasets.simulated`), e.g. ``{kind: simulated, generator: two_gaussians,
params: {seed: 0}}``.

Quirks repaired for every file: UTF-8 BOM, CRLF line ends, junk first lines (``skiprows``),
trailing label suffixes (``strip_suffix``), missing-value markers (``na_values``), header
rows added by uploaders (``header: replace``) and header lines repeated inside the data
(dropped automatically). Declared ``missing_codes`` become NA only with
``preprocess: {recode_missing_codes: true}``; ``preprocess: {drop_na_rows: true}`` then keeps
only the rows without any NA (complete cases, e.g. Adult's 30,162 complete training rows), the
predefined test mask following; ``preprocess: {drop_duplicate_rows: true}`` (after that) keeps the
first of identical rows (e.g. the Robin Hood paper's 45,175 Adult rows).
``preprocess: {drop_na_target: true}`` drops only the rows whose target is missing (a missing
label makes the SMOTE family skip the whole dataset; other missing cells are kept). After either
drop the target must still have two classes (one line naming the dataset otherwise). Input files
are only read, never written.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from harness.datasets.checks import check_table, check_target, recode_missing_codes
from harness.datasets.hierarchies import hierarchy_path
from harness.datasets.paths import DATA_ROOT, resolve_path
from harness.datasets.readers import decompress, read_table
from harness.datasets.simulated import resolve_params, simulate
from harness.datasets.source import SourceConfig, parse_source
from harness.datasets.table_cache import cached_table
from harness.dtypes import conform
from harness.errors import ConfigError, DataError
from harness.registry import read_config
from harness.spec import DatasetSpec, canonical_json

__all__ = ["DATA_ROOT", "LoadedDataset", "clear_cache", "load_dataset", "load_spec"]

DIGEST_VERSION = b"privbench-dataset-v1"
_CACHE_SIZE = 32
_CACHE: OrderedDict[str, tuple[pd.DataFrame, np.ndarray | None]] = OrderedDict()


@dataclass(frozen=True, eq=False)
class LoadedDataset:
    """A loaded table with its spec and provenance.

    Attributes
    ----------
    spec : DatasetSpec
        The spec the table was loaded with.
    frame : DataFrame
        Exactly ``spec.table_columns`` in order, dtypes per ``harness.dtypes.conform``,
        a ``RangeIndex``. A private copy: changing it does not affect later loads.
    test_mask : ndarray of bool or None
        True for rows of the predefined test split (a file with role ``test`` or a
        ``test_index`` file); None when the dataset has no predefined split.
    digest : str
        SHA-256 (hex) over the raw bytes of every file read (data, test index, hierarchies)
        and the spec's digest with no active QI set; for simulated data, over the spec and the
        generator's resolved parameters. Stable across processes.
    files : tuple of str
        Resolved paths of the files read.
    """

    spec: DatasetSpec
    frame: pd.DataFrame
    test_mask: np.ndarray | None
    digest: str
    files: tuple[str, ...]


# ---------------------------------------------------------------------- specs
PREPROCESS_KEYS: tuple[str, ...] = (
    "recode_missing_codes",
    "drop_na_rows",
    "drop_na_target",
    "drop_duplicate_rows",
    "derived_columns",
)
"""The dataset-level preprocessing keys (switches true or false; ``derived_columns``: harness.derived)."""


def load_spec(
    name: str, overrides: Mapping[str, Any] | None = None, *, extra_dirs: tuple[Path, ...] = ()
) -> DatasetSpec:
    """Build the spec of dataset ``name`` from ``experiments/dataset/<name>.yaml``.

    Parameters
    ----------
    name : str
        Dataset name (the YAML file name without ``.yaml``).
    overrides : mapping, optional
        Deep-merged into the YAML mapping (mappings merge key by key; other values, lists
        included, replace), e.g. ``{"source": {"params": {"seed": 3}}}``.
    extra_dirs : tuple of Path
        User config roots searched before the bundled one (``<dir>/dataset/<name>.yaml``).

    Returns
    -------
    DatasetSpec

    Raises
    ------
    ConfigError
        If the name is unknown (the message lists the valid names), the YAML names another
        dataset, or a key or value of the spec or its ``source`` block is invalid.
    """
    data = _with_defaults(name, read_config("dataset", name, extra_dirs=extra_dirs), extra_dirs)
    declared = data.get("name")
    if declared is not None and str(declared) != name:
        raise ConfigError(f"dataset {name!r}: key 'name' must equal the file name {name!r}; got {declared!r}")
    if overrides:
        data = _deep_merge(data, _plain(overrides))
    spec = DatasetSpec.from_dict(data, name=name)
    parse_source(spec.source, where=f"dataset {name!r}")
    return spec


def _with_defaults(
    name: str, data: Mapping[str, Any], extra_dirs: tuple[Path, ...], chain: tuple[str, ...] = ()
) -> dict[str, Any]:
    """Resolve a dataset YAML's ``defaults: [other_dataset, _self_]`` as Hydra composes it.

    A variant of a dataset (e.g. ``adult_complete``: ``adult`` without NA rows) names its base
    and sets only what differs; entries merge in list order (mappings key by key, other values
    replace), ``_self_`` where it is listed or last.
    """
    defaults = data.get("defaults")
    own = {k: v for k, v in data.items() if k != "defaults"}
    if defaults is None:
        return own
    if not isinstance(defaults, list):
        raise ConfigError(
            f"dataset {name!r}: defaults must be a list of dataset names and _self_; got {defaults!r}"
        )
    if name in chain:
        raise ConfigError(f"dataset {name!r}: defaults form a cycle ({' -> '.join((*chain, name))})")
    merged: dict[str, Any] = {}
    placed = False
    for entry in defaults:
        if entry == "_self_":
            merged, placed = _deep_merge(merged, own), True
        elif isinstance(entry, str):
            base = read_config("dataset", entry, extra_dirs=extra_dirs)
            merged = _deep_merge(merged, _with_defaults(entry, base, extra_dirs, (*chain, name)))
        else:
            raise ConfigError(
                f"dataset {name!r}: a defaults entry must be a dataset name or _self_; got {entry!r}"
            )
    return merged if placed else _deep_merge(merged, own)


def _deep_merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = _deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def _plain(value: Any) -> Any:
    """Plain dicts and lists (also from OmegaConf containers) so merging never aliases input."""
    if isinstance(value, Mapping) or (hasattr(value, "items") and callable(value.items)):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        return [_plain(v) for v in value]
    return value


# ---------------------------------------------------------------------- datasets
def load_dataset(spec: DatasetSpec, *, base_dir: Path | None = None) -> LoadedDataset:
    """Load the table of ``spec``.

    Parsed tables are cached in-process and on disk between processes by digest
    (:mod:`harness.datasets.table_cache`), so repeated loads only re-read and re-hash the
    file bytes; every call returns fresh copies.

    Parameters
    ----------
    spec : DatasetSpec
    base_dir : Path, optional
        Where relative ``source.kind: path`` files (and their hierarchies) resolve; default:
        the current working directory.

    Returns
    -------
    LoadedDataset

    Raises
    ------
    ConfigError
        If the ``source`` block or ``preprocess`` switches are invalid.
    DataError
        If a file is missing, empty, unreadable or not a table, a declared column is missing,
        a column is all-NaN or not convertible to its kind, or the target has a single class.
        The message names the file and column.
    """
    where = f"dataset {spec.name!r}"
    src = parse_source(spec.source, where=where)
    recode = spec.preprocess.get("recode_missing_codes", False)
    if not isinstance(recode, bool):
        raise ConfigError(f"{where}: preprocess.recode_missing_codes must be true or false; got {recode!r}")
    drop_na = spec.preprocess.get("drop_na_rows", False)
    if not isinstance(drop_na, bool):
        raise ConfigError(f"{where}: preprocess.drop_na_rows must be true or false; got {drop_na!r}")
    drop_na_target = spec.preprocess.get("drop_na_target", False)
    if not isinstance(drop_na_target, bool):
        raise ConfigError(f"{where}: preprocess.drop_na_target must be true or false; got {drop_na_target!r}")
    if drop_na_target and spec.target is None:
        raise ConfigError(
            f"{where}: preprocess.drop_na_target needs a target column; the dataset declares none"
        )
    unknown = sorted(set(spec.preprocess) - set(PREPROCESS_KEYS))
    if unknown:
        raise ConfigError(
            f"{where}: unknown preprocess key(s) {', '.join(unknown)}; expected some of: {', '.join(PREPROCESS_KEYS)}"
        )
    drop_duplicates = spec.preprocess.get("drop_duplicate_rows", False)
    if not isinstance(drop_duplicates, bool):
        raise ConfigError(
            f"{where}: preprocess.drop_duplicate_rows must be true or false; got {drop_duplicates!r}"
        )
    spec_digest = spec.with_active_qi(None).digest()
    if src.kind == "simulated":
        generator = str(src.generator)  # parse_source guarantees a name
        params = resolve_params(generator, src.params, where=where)
        payload = canonical_json({"generator": generator, "params": params}).encode()
        digest = _digest(spec_digest, [payload])
        files: tuple[str, ...] = ()
        frame, mask = _cached(digest, lambda: _simulated_table(spec, generator, params, recode), spec.name)
    else:
        data_paths = [
            resolve_path(f.path, src.kind, base_dir=base_dir, where=f"{where}: source.files[{i}].path")
            for i, f in enumerate(src.files)
        ]
        raws = [_read_bytes(p, f"{where}: source.files[{i}].path") for i, p in enumerate(data_paths)]
        index_path = index_raw = None
        if src.test_index is not None:
            index_path = resolve_path(
                src.test_index.path, src.kind, base_dir=base_dir, where=f"{where}: source.test_index.path"
            )
            index_raw = _read_bytes(index_path, f"{where}: source.test_index.path")
        hier_paths = [hierarchy_path(spec, col, base_dir=base_dir) for col in spec.hierarchies]
        hier_raws = [
            _read_bytes(p, f"{where}: hierarchies.{c}") for p, c in zip(hier_paths, spec.hierarchies)
        ]
        extra = [index_raw] if index_raw is not None else []
        digest = _digest(spec_digest, [*raws, *extra, *hier_raws])
        files = tuple(str(p) for p in [*data_paths, *([index_path] if index_path else []), *hier_paths])
        frame, mask = _cached(
            digest, lambda: _file_table(spec, src, data_paths, raws, index_path, index_raw, recode), spec.name
        )
    if drop_na_target and not drop_na:
        labelled, labelled_mask = frame, mask
        frame, mask = _cached(
            f"{digest}:labelled", lambda: _labelled_rows(labelled, labelled_mask, spec, where), spec.name
        )
    if drop_na:  # cached too: the NA scan of a large object table costs more than re-reading it
        full, full_mask = frame, mask
        frame, mask = _cached(f"{digest}:complete", lambda: _complete_rows(full, full_mask, where), spec.name)
        check_target(frame, spec, f"{where} after preprocess.drop_na_rows")
    if drop_duplicates:
        kept, kept_mask = frame, mask
        frame, mask = _cached(f"{digest}:{drop_na}:unique", lambda: _unique_rows(kept, kept_mask), spec.name)
    return LoadedDataset(
        spec=spec,
        frame=frame.copy(deep=True),
        test_mask=None if mask is None else mask.copy(),
        digest=digest,
        files=files,
    )


def clear_cache() -> None:
    """Forget all parsed tables of this process (for tests and memory-bound workers)."""
    _CACHE.clear()


def _cached(digest: str, build: Any, name: str = "") -> tuple[pd.DataFrame, np.ndarray | None]:
    hit = _CACHE.get(digest)
    if hit is not None:
        _CACHE.move_to_end(digest)
        return hit
    value: tuple[pd.DataFrame, np.ndarray | None] = cached_table(digest, build, name=name)
    _CACHE[digest] = value
    while len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return value


def _digest(spec_digest: str, blobs: list[bytes]) -> str:
    h = hashlib.sha256(DIGEST_VERSION)
    h.update(spec_digest.encode())
    for blob in blobs:
        h.update(hashlib.sha256(blob).digest())
    return h.hexdigest()


def _read_bytes(path: Path, key: str) -> bytes:
    if not path.exists():
        raise DataError(f"{path}: file not found ({key}); expected an existing file")
    if not path.is_file():
        raise DataError(f"{path}: not a regular file ({key}); expected a data file")
    try:
        return path.read_bytes()
    except OSError as exc:
        raise DataError(f"{path}: cannot be read ({exc.strerror}) ({key})") from None


# ---------------------------------------------------------------------- building tables
def _simulated_table(
    spec: DatasetSpec, generator: str, params: Mapping[str, Any], recode: bool
) -> tuple[pd.DataFrame, None]:
    where = f"dataset {spec.name!r} (simulated {generator})"
    frame = conform(simulate(generator, params, where=where), spec, where=where)
    return _finish(frame, spec, recode, where), None


def _file_table(
    spec: DatasetSpec,
    src: SourceConfig,
    paths: list[Path],
    raws: list[bytes],
    index_path: Path | None,
    index_raw: bytes | None,
    recode: bool,
) -> tuple[pd.DataFrame, np.ndarray | None]:
    names = src.names or tuple(c.name for c in spec.columns)
    parts = []
    for entry, path, raw in zip(src.files, paths, raws):
        table = read_table(path, raw, src, names=names, skiprows=entry.skiprows)
        table = _select_columns(table, spec, src, where=str(path))
        parts.append(conform(table, spec, where=str(path)))
    frame = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
    for name in spec.table_columns:
        if spec.kind(name) == "integer" and frame[name].dtype != np.int64 and not frame[name].isna().any():
            frame[name] = frame[name].astype("int64")
    where = str(paths[0]) if len(paths) == 1 else " + ".join(str(p) for p in paths)
    frame = _finish(frame, spec, recode, where)
    mask = _test_mask(src, [len(p) for p in parts], index_path, index_raw, where=f"dataset {spec.name!r}")
    return frame, mask


def _complete_rows(
    frame: pd.DataFrame, mask: np.ndarray | None, where: str
) -> tuple[pd.DataFrame, np.ndarray | None]:
    """Rows of ``frame`` without any NA (``preprocess.drop_na_rows``) and their test mask."""
    keep = frame.notna().all(axis=1).to_numpy()
    if not keep.any():
        raise DataError(f"{where}: preprocess.drop_na_rows leaves no rows; every row has a missing value")
    return frame[keep].reset_index(drop=True), None if mask is None else np.asarray(mask)[keep]


def _labelled_rows(
    frame: pd.DataFrame, mask: np.ndarray | None, spec: DatasetSpec, where: str
) -> tuple[pd.DataFrame, np.ndarray | None]:
    """Rows whose target is not missing (``preprocess.drop_na_target``) and their test mask."""
    keep = frame[str(spec.target)].notna().to_numpy()
    if not keep.any():
        raise DataError(
            f"{where}: preprocess.drop_na_target leaves no rows; the target {spec.target!r} is always missing"
        )
    kept = frame[keep].reset_index(drop=True)
    check_target(kept, spec, f"{where} after preprocess.drop_na_target")
    return kept, None if mask is None else np.asarray(mask)[keep]


def _unique_rows(frame: pd.DataFrame, mask: np.ndarray | None) -> tuple[pd.DataFrame, np.ndarray | None]:
    """The first occurrence of every distinct row (``preprocess.drop_duplicate_rows``; NA = NA)."""
    keep = ~frame.duplicated(keep="first").to_numpy()
    return frame[keep].reset_index(drop=True), None if mask is None else np.asarray(mask)[keep]


def _finish(frame: pd.DataFrame, spec: DatasetSpec, recode: bool, where: str) -> pd.DataFrame:
    if recode:
        frame = recode_missing_codes(frame, spec)
    check_table(frame, spec, where=where)
    return frame


def _select_columns(table: pd.DataFrame, spec: DatasetSpec, src: SourceConfig, *, where: str) -> pd.DataFrame:
    available = ", ".join(map(str, table.columns))
    for old in src.rename:
        if old not in table.columns:
            raise DataError(
                f"{where}: source.rename names column {old!r}, which is not in the file; available: {available}"
            )
    table = table.rename(columns=dict(src.rename))
    absent = [c for c in src.drop if c not in table.columns]
    if absent:
        raise DataError(
            f"{where}: source.drop names column(s) {', '.join(map(repr, absent))}, which are not in the file; "
            f"available: {available}"
        )
    table = table.drop(columns=list(src.drop))
    declared = [c.name for c in spec.columns]
    extra = [str(c) for c in table.columns if c not in set(declared)]
    copies = [c for c in extra if re.fullmatch(r".+\.\d+", c) and c.rsplit(".", 1)[0] in table.columns]
    hint = (
        f" ({', '.join(map(repr, copies))}: a header name that appears more than once, read with a "
        "numbered suffix as pandas does)"
        if copies
        else ""
    )
    missing = [c for c in declared if c not in table.columns]
    if missing:
        raise DataError(
            f"{where}: declared column(s) {', '.join(map(repr, missing))} not found in the file; "
            f"available: {', '.join(map(str, table.columns))}{hint}"
        )
    if extra:
        raise DataError(
            f"{where}: file column(s) {', '.join(map(repr, extra))} are not declared{hint}; declare them under "
            "'columns' or list them in source.drop"
        )
    for col, suffix in src.strip_suffix.items():
        if col not in declared:
            raise ConfigError(f"{where}: source.strip_suffix names {col!r}, which is not a declared column")
        table[col] = table[col].map(_suffix_stripper(suffix))
    return table[list(spec.table_columns)]


def _suffix_stripper(suffix: str) -> Any:
    def strip(value: Any) -> Any:
        return value.removesuffix(suffix) if isinstance(value, str) else value

    return strip


def _test_mask(
    src: SourceConfig, sizes: list[int], index_path: Path | None, index_raw: bytes | None, *, where: str
) -> np.ndarray | None:
    roles = [f.role for f in src.files]
    by_role = np.repeat(np.array([r == "test" for r in roles]), sizes)
    if index_path is None or index_raw is None or src.test_index is None:
        return by_role if "test" in roles else None
    if "test" in roles:
        raise ConfigError(f"{where}: give either a file with role test or source.test_index, not both")
    positions = _index_positions(index_path, index_raw, src.test_index.key)
    n_rows = int(sum(sizes))
    bad = [p for p in positions if not isinstance(p, int) or isinstance(p, bool) or not 0 <= p < n_rows]
    if bad:
        raise DataError(
            f"{index_path}: test index {bad[0]!r} is not a row position; expected integers in 0..{n_rows - 1}"
        )
    if len(set(positions)) != len(positions):
        raise DataError(f"{index_path}: test index list has duplicate row positions")
    mask = np.zeros(n_rows, dtype=bool)
    mask[np.asarray(positions, dtype=np.int64)] = True
    return mask


def _index_positions(path: Path, raw: bytes, key: str | None) -> list[Any]:
    try:
        payload = json.loads(decompress(raw, where=str(path)).decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DataError(f"{path}: not a JSON test-index file ({exc})") from None
    if isinstance(payload, Mapping):
        if key is None:
            raise ConfigError(
                f"{path}: source.test_index.key is required (the file maps keys to row lists); "
                f"expected one of: {', '.join(sorted(payload))}"
            )
        if key not in payload:
            raise DataError(
                f"{path}: test index has no key {key!r}; expected one of: {', '.join(sorted(payload))}"
            )
        payload = payload[key]
    if not isinstance(payload, list):
        raise DataError(
            f"{path}: test index must be a JSON list of row positions; got {type(payload).__name__}"
        )
    return payload
