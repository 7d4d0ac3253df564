"""SDNist v2.2 column handling: the tables its k-marginal score and unique exact matches see.

Shared by :mod:`metrics.fidelity.sdnist_kmarginal` and
:mod:`metrics.privacy.sdnist_unique_exact_match`. Every rule below is read from SDNist's own
source, ``usnistgov/SDNist`` tag ``v2.2.0`` (commit ``6f04c34ea728ba291324c0e9ff51b97a6d411fcf``,
the version whose ``report.json`` layout the NIST CRC data and metric bundle 1.0 reports of
2023-05-19 have); file names below are relative to ``sdnist/``:

* **Columns.** The columns both tables have (``report/dataset/__init__.py``
  ``Dataset.__post_init__``: ``common_columns``).
* **Empty cells** (with a data dictionary): a row with an empty cell is left out of its table,
  the denominators included (``validate.py``: ``sd.dropna()``).
* **Integer codes.** Codes written as floats (``2.0``) are the code ``2``: ``validate.py``
  casts every coded column with ``pd.to_numeric(...).astype(int)``, ``transform.py`` again.
  It also casts every numeric dictionary column but PINCP to int (truncation): AGEP, NOC,
  NPF, DENSITY, POVPIP, PWGTP, WGTP are compared and binned truncated.
* **Out-of-domain columns** (only with a data dictionary): a column whose release holds a
  value outside the dictionary's codes (``PUMA``: outside its PUMA list; a coded column: an
  integer not among its codes; any column: a non-number other than an allowed ``N``) is left
  out of both measures (``validate.py``: "Dropping feature from evaluation").
* **DENSITY** (a column of the dictionary with ``values.max``): right-closed bins with edges
  ``[0, 150]`` + ``logspace(log10 10, log10(max + 500), 21)[8:]``; values above
  ``max + 500`` are top-coded to ``max + 400``, negative ones to 0 (which then falls in no
  bin) (``binning.py`` ``bin_density``, applied before both measures).
* **Percentile bins** (the k-marginal score only; SDNist: ``AGEP, POVPIP, PINCP, PWGTP,
  WGTP``, here every numeric column but DENSITY): the target's values other than ``N``,
  cast to int, ranked (``rank(pct=True)``, ties averaged), bin ``int(20 · rank)`` (19 for
  rank 1); ``N`` is bin −1. The release is mapped by each target bin's maximum: bin 0 takes
  values ≤ its maximum, a middle bin the values above the previous bin's maximum up to its
  own, the last bin everything above; a value no bin takes keeps its own (int) value
  (``binning.py`` ``percentile_rank_target``, ``percentile_rank_synthetic``,
  ``add_bin_for_NA``). ``POVPIP``'s 501 is ranked with the rest: ``validate.py`` has already
  made it the integer 501 when ``percentile_rank_target`` looks for the text ``'501'``.
* **Every other column** is kept whole: its codes, ``N`` its own code (``transform.py``).

Departures (for tables that are not SDNist's ACS excerpts, or that the harness loads typed):

* The harness reads ``N`` of ``PINCP`` / ``POVPIP`` as missing: a missing value in a numeric
  column whose dictionary entry lists ``N`` is SDNist's ``N`` (bin −1), not an empty cell.
  Without a data dictionary (any non-ACS dataset) missing is ``N`` everywhere (bin −1 of a
  numeric column, a category of its own) and no row is dropped; there is no domain check and
  no DENSITY rule either.
* The percentile bins cast a column to int (SDNist's ``astype(int)``) only when all the
  target's values are whole numbers (true of every ACS column); a fractional column of another
  dataset is ranked as it is.
* The harness loads a release's ``integer`` columns rounded half to even
  (``harness.dtypes.conform``), where SDNist truncates: the two differ only for non-integral
  values in integer columns (x.5 to x.99…).
* Only ``2.0``-style labels (digits, a point, zeros) and float values are normalised; SDNist
  also truncates ``2.5`` to ``2`` in coded columns (the ``fixed_release`` generator refuses
  such files, naming the value).
"""

from __future__ import annotations

import functools
import gzip
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from harness.datasets.paths import resolve_path
from harness.errors import ConfigError, DataError
from harness.spec import CATEGORICAL_KINDS, NUMERIC_KINDS, DatasetSpec

SDNIST_VERSION = "2.2.0"
SDNIST_COMMIT = "6f04c34ea728ba291324c0e9ff51b97a6d411fcf"
ACS_FOLDER = "nist_acs_excerpts/"
ACS_DICTIONARY = "nist_acs_excerpts/data_dictionary.json.gz"
PERCENTILE_BINS = 20
NA_BIN = -1.0
"""SDNist's code of ``N``: bin −1 of a percentile-binned column, code −1 of a coded one."""
NA_LABEL = "N"
MISSING_LABEL = "<NA>"
DENSITY = "DENSITY"
INDP = "INDP"
FLOAT_COLUMNS = ("PINCP",)
"""Dictionary columns ``validate.py`` keeps as floats; it casts the other numeric ones to int."""
_FLOAT_WRITTEN_INT = re.compile(r"^([+-]?\d+)\.0*$")


# ---------------------------------------------------------------- data dictionary
def dictionary_for(setting: str | None, spec: DatasetSpec) -> tuple[dict[str, Any] | None, str | None]:
    """The data dictionary a metric uses and its path as configured (None, None without one).

    ``"auto"``: the bundled ACS dictionary when the dataset reads a bundled file under
    ``nist_acs_excerpts/``, none otherwise; ``None``: none; any other string: a JSON file
    (``.json`` or ``.json.gz``) in SDNist's ``data_dictionary.json`` layout, relative to the
    bundled data root, or absolute / ``~`` for a user file.
    """
    if setting is None:
        return None, None
    if setting == "auto":
        source = spec.source
        if source.get("kind") != "bundled" or not str(source.get("path", "")).startswith(ACS_FOLDER):
            return None, None
        setting = ACS_DICTIONARY
    return _read_dictionary(setting), setting


@functools.lru_cache(maxsize=8)
def _read_dictionary(setting: str) -> dict[str, Any]:
    user = setting.startswith("~") or Path(setting).is_absolute()
    path = resolve_path(setting, "path" if user else "bundled", base_dir=None, where="`data_dictionary`")
    if not path.is_file():
        raise ConfigError(f"`data_dictionary`: file {path} not found")
    raw = path.read_bytes()
    try:
        data = json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)
    except (OSError, ValueError) as exc:
        raise DataError(f"{path}: not a JSON data dictionary ({exc})") from None
    if not isinstance(data, dict):
        raise DataError(f"{path}: a data dictionary maps column names to entries; got {type(data).__name__}")
    return data


def check_dictionary_param(value: Any) -> None:
    """Raise :class:`ConfigError` unless ``value`` is None or a non-empty string."""
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise ConfigError(f"`data_dictionary` must be null, 'auto' or a file path; got {value!r}")


def density_edges(entry: dict[str, Any]) -> tuple[np.ndarray, float]:
    """SDNist's DENSITY bin edges and top-coding bound ``max + 500`` (``binning.py``
    ``bin_density``) from the column's dictionary entry."""
    n_max = float(entry["values"]["max"]) + 500.0
    logs = np.logspace(math.log(10, 10), math.log(n_max, 10), num=PERCENTILE_BINS + 1)
    return np.asarray([0.0, 150.0, *logs[8:]], dtype=np.float64), n_max


def bin_density(values: np.ndarray, edges: np.ndarray, n_max: float) -> np.ndarray:
    """DENSITY bin labels 0, 1, … (float; NaN = no bin): values below 0 become 0 (no bin,
    the bins are right-closed), values above ``n_max`` become ``n_max − 100``."""
    v = np.where(values < 0, 0.0, values)
    v = np.where(v > n_max, n_max - 100.0, v)
    label = np.searchsorted(edges, v, side="left").astype(np.float64) - 1.0  # (e_i, e_i+1] -> i
    inside = (v > edges[0]) & (v <= edges[-1])
    return np.where(inside, label, np.nan)


# ---------------------------------------------------------------- labels
def code_labels(values: pd.Series) -> np.ndarray:
    """Category labels as text: integer codes written as floats (``2.0``, ``"2.00"``) become
    ``"2"``; missing values become :data:`MISSING_LABEL`."""
    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    labels = np.asarray([_code_label(v) for v in uniques] + [MISSING_LABEL], dtype=object)
    return labels[codes]  # code -1 (missing) -> the last entry


def _code_label(value: object) -> str:
    if isinstance(value, (float, np.floating)):
        return str(int(value)) if float(value).is_integer() else repr(float(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    text = str(value)
    match = _FLOAT_WRITTEN_INT.match(text)
    return str(int(match.group(1))) if match else text


# ---------------------------------------------------------------- the prepared tables
@dataclass(frozen=True)
class Prepared:
    """Both tables as SDNist's measures see them.

    ``columns`` are the columns kept; ``dropped`` maps a left-out column to its out-of-domain
    release values (SDNist's ``values_out_of_bound``); ``kinds`` is ``"density"``,
    ``"numeric"`` or ``"coded"`` per column; ``target`` / ``release`` hold per column a float
    array (DENSITY bins, numbers with NaN for N) or an object array of labels, for the rows
    kept (``blank_rows``: rows left out for an empty cell, per table).
    """

    columns: list[str]
    dropped: dict[str, list[str]]
    kinds: dict[str, str]
    target: dict[str, np.ndarray]
    release: dict[str, np.ndarray]
    integer_valued: dict[str, bool]
    dictionary: str | None
    n_target: int
    n_release: int
    blank_rows: dict[str, int]


def prepare(
    real: pd.DataFrame,
    synthetic: pd.DataFrame,
    spec: DatasetSpec,
    dictionary: dict[str, Any] | None,
    path: str | None,
) -> Prepared:
    """Apply the shared rules (columns, empty cells, integer codes, domain check, DENSITY bins)."""
    kinds_ok = NUMERIC_KINDS | CATEGORICAL_KINDS
    columns = [
        c
        for c in spec.table_columns
        if c in real.columns and c in synthetic.columns and spec.kind(c) in kinds_ok
    ]
    entries = {c: e for c in columns if isinstance(e := (dictionary or {}).get(c), dict)}
    keep_t, keep_s = _not_blank(real, columns, spec, entries), _not_blank(synthetic, columns, spec, entries)
    real, synthetic = real.loc[keep_t], synthetic.loc[keep_s]
    dropped: dict[str, list[str]] = {}
    kinds: dict[str, str] = {}
    target: dict[str, np.ndarray] = {}
    release: dict[str, np.ndarray] = {}
    integer_valued: dict[str, bool] = {}
    for col in columns:
        numeric = spec.kind(col) in NUMERIC_KINDS
        entry = entries.get(col)
        if numeric:
            t = real[col].to_numpy(dtype=np.float64, na_value=np.nan)
            s = synthetic[col].to_numpy(dtype=np.float64, na_value=np.nan)
            if entry is not None and "min" in entry.get("values", {}) and col not in FLOAT_COLUMNS:
                t, s = np.trunc(t), np.trunc(s)  # validate.py: astype(int), PINCP excepted
        else:
            t, s = code_labels(real[col]), code_labels(synthetic[col])
        if entry is not None:
            bad = out_of_domain(col, s, entry, numeric)
            if bad:
                dropped[col] = bad
                continue
        if numeric and entry is not None and col == DENSITY and "max" in entry.get("values", {}):
            edges, n_max = density_edges(entry)
            target[col], release[col] = bin_density(t, edges, n_max), bin_density(s, edges, n_max)
            kinds[col] = "density"
        elif numeric:
            known = t[~np.isnan(t)]
            integer_valued[col] = bool(known.size) and bool(np.all(known == np.trunc(known)))
            target[col], release[col], kinds[col] = t, s, "numeric"
        else:
            target[col], release[col], kinds[col] = t, s, "coded"
    kept = [c for c in columns if c not in dropped]
    blank = {"target": int((~keep_t).sum()), "release": int((~keep_s).sum())}
    return Prepared(
        kept, dropped, kinds, target, release, integer_valued, path, len(real), len(synthetic), blank
    )


def _not_blank(
    frame: pd.DataFrame, columns: list[str], spec: DatasetSpec, entries: dict[str, Any]
) -> np.ndarray:
    """Rows SDNist keeps (``validate.py``: ``dropna``): with a dictionary entry, a missing value
    is an empty cell unless the column is numeric and its entry lists ``N`` (the harness reads
    ``N`` of PINCP / POVPIP as missing); without one, missing is ``N`` and no row is dropped."""
    keep = np.ones(len(frame), dtype=bool)
    for col in columns:
        entry = entries.get(col)
        if entry is None:
            continue
        values = entry.get("values", {})
        if spec.kind(col) in NUMERIC_KINDS and isinstance(values, dict) and NA_LABEL in values:
            continue
        keep &= frame[col].notna().to_numpy()
    return keep


def out_of_domain(column: str, values: np.ndarray, entry: dict[str, Any], numeric: bool) -> list[str]:
    """Release values outside a dictionary entry's domain (sorted text; empty = none).

    SDNist's ``validate.py``: ``N`` is allowed where the entry lists it (always for INDP);
    every other value must be a number; an entry with explicit codes and no ``min`` (coded
    columns) also needs the integer among its codes; PUMA must be one of its listed codes.
    """
    codes = entry.get("values")
    if numeric:
        return []  # the harness has typed the column: no text can be in it
    labels = pd.Series(values, dtype=object)
    labels = labels[labels != MISSING_LABEL].drop_duplicates()
    if column == "PUMA" and isinstance(codes, dict):
        return sorted(str(v) for v in labels if v not in codes)
    allow_n = column == INDP or (isinstance(codes, dict) and NA_LABEL in codes)
    labels = labels[~(labels == NA_LABEL)] if allow_n else labels
    numbers = pd.to_numeric(labels, errors="coerce")
    bad = [str(v) for v in labels[numbers.isna()]]
    if isinstance(codes, dict) and "min" not in codes and column != INDP:
        allowed = {int(k) for k in codes if k != NA_LABEL}
        bad += [
            str(v) for v, x in zip(labels[numbers.notna()], numbers[numbers.notna()]) if int(x) not in allowed
        ]
    return sorted(set(bad))


# ---------------------------------------------------------------- percentile bins
def percentile_bins(
    target: np.ndarray, release: np.ndarray, *, integer_valued: bool, n_bins: int = PERCENTILE_BINS
) -> tuple[np.ndarray, np.ndarray]:
    """SDNist's percentile bins of the target and the release mapped onto them (floats).

    Target: ``N`` (NaN) is :data:`NA_BIN`; the other values (truncated to int when
    ``integer_valued``) get ``int(n_bins · rank)`` of their percentile rank (ties averaged),
    ``n_bins − 1`` at rank 1. Release: ``N`` is :data:`NA_BIN`; bin 0 takes the values up to
    its target maximum, a middle bin those above the previous bin's maximum up to its own, the
    last bin all above; the previous maximum starts at 0 when the target has no bin 0, and a
    value no bin takes keeps its (truncated) value.
    """
    t = np.trunc(target) if integer_valued else target.copy()
    s = np.trunc(release) if integer_valued else release.copy()
    t_known, s_known = ~np.isnan(t), ~np.isnan(s)
    t_bins = np.full(len(t), NA_BIN)
    if t_known.any():
        pct = pd.Series(t[t_known]).rank(pct=True).to_numpy()
        t_bins[t_known] = np.where(pct < 1, np.floor(n_bins * pct), n_bins - 1)
    s_out = np.where(s_known, s, NA_BIN)
    bins = np.unique(t_bins[t_known])
    if bins.size:
        last = bins[-1]
        upper = 0.0
        for b in bins:
            top = float(np.max(t[t_known & (t_bins == b)]))
            if b == 0:
                take = s_known & (s <= top)
            elif b != last:
                take = s_known & (s > upper) & (s <= top)
            else:
                take = s_known & (s > upper)
            s_out = np.where(take, b, s_out)
            upper = top
    return t_bins, s_out
