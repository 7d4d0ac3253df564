"""Column property inference of the Data Anonymizer (``spec/generators.md`` §6.1 step 1; ``003_…``).

Each column gets three properties, every one of them overridable by the user:

* **data type**: ``datetime`` if >= 95 % of the non-null values are dates (datetime dtype,
  or strings shaped like a date, e.g. ``2020-03-04``, ``04/03/2020 10:15``, that parse);
  ``unique_sparse`` if distinct / non-null > 0.9 or the null share is >= 0.95; ``numerical``
  if a numeric dtype with > 20 distinct values; ``categorical`` if <= 20 distinct values or a
  string dtype; else ``others``. Numbers are never read as dates (any integer parses as one).
* **information type**: ``NRIC`` (``^[STFGM]\\d{7}[A-Z]$``), ``email``, ``handphone``
  (``^(\\+65)?[689]\\d{7}$`` after removing spaces and hyphens) when >= 90 % of the non-null
  values match; else ``others``.
* **sensitivity**: ``direct_identifier`` if the information type is not ``others`` or the data
  type is ``unique_sparse``; else ``indirect_identifier`` if the column is a QI; ``sensitive``
  if it is a sensitive attribute; else ``non_sensitive``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import pandas as pd

from generators.kanon.hierarchies import value_label

DATA_TYPES: tuple[str, ...] = ("datetime", "unique_sparse", "numerical", "categorical", "others")
INFORMATION_TYPES: tuple[str, ...] = ("NRIC", "email", "handphone", "others")
SENSITIVITIES: tuple[str, ...] = ("direct_identifier", "indirect_identifier", "sensitive", "non_sensitive")
PROPERTY_KEYS: tuple[str, ...] = ("data_type", "information_type", "sensitivity")

DATE_SHARE = 0.95
UNIQUE_SHARE = 0.9
NULL_SHARE = 0.95
MAX_CATEGORIES = 20
PATTERN_SHARE = 0.9
PATTERNS: Mapping[str, str] = {
    "NRIC": r"[STFGM]\d{7}[A-Z]",
    "email": r"[A-Za-z0-9._%+'-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}",
    "handphone": r"(?:\+65)?[689]\d{7}",
}
_DATE_SHAPE = re.compile(
    r"^\s*(?:\d{4}[-/.]\d{1,2}(?:[-/.]\d{1,2})?|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4})"
    r"(?:[ T]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?\s*$"
)


@dataclass(frozen=True)
class ColumnProfile:
    """The inferred (or overridden) properties of one column."""

    column: str
    data_type: str
    information_type: str
    sensitivity: str
    overridden: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        out = asdict(self)
        out["overridden"] = list(self.overridden)
        return out


def infer_data_type(values: pd.Series) -> str:
    """Data type of a column (module docstring)."""
    counts = _value_counts(values)
    n_present = int(counts.sum())
    null_share = 1 - n_present / len(values) if len(values) else 1.0
    if n_present and date_share(values) >= DATE_SHARE:
        return "datetime"
    distinct = len(counts)
    if null_share >= NULL_SHARE or (n_present and distinct / n_present > UNIQUE_SHARE):
        return "unique_sparse"
    numeric = pd.api.types.is_numeric_dtype(values.dtype) and not pd.api.types.is_bool_dtype(values.dtype)
    if numeric and distinct > MAX_CATEGORIES:
        return "numerical"
    if distinct <= MAX_CATEGORIES or _is_text(counts.index):
        return "categorical"
    return "others"


def date_share(values: pd.Series) -> float:
    """Share of the non-null values that are dates (0 for numeric columns)."""
    counts = _value_counts(values)
    if not len(counts):
        return 0.0
    if pd.api.types.is_datetime64_any_dtype(values.dtype):
        return 1.0
    if pd.api.types.is_numeric_dtype(values.dtype) or pd.api.types.is_bool_dtype(values.dtype):
        return 0.0
    text = pd.Series(counts.index.astype(str), index=counts.index)
    shaped = text.str.match(_DATE_SHAPE).to_numpy(dtype=bool)
    if not shaped.any():
        return 0.0
    parsed = pd.to_datetime(text[shaped], errors="coerce", format="mixed").notna().to_numpy()
    return float(counts.to_numpy()[shaped][parsed].sum() / counts.sum())


def infer_information_type(values: pd.Series) -> str:
    """Information type of a column (module docstring)."""
    counts = _value_counts(values)
    if not len(counts) or pd.api.types.is_datetime64_any_dtype(values.dtype):
        return "others"
    text = pd.Series([str(value_label(v)).strip() for v in counts.index], dtype=object)
    weights = counts.to_numpy(dtype=float)
    for name, pattern in PATTERNS.items():
        candidates = text.str.replace(r"[\s-]", "", regex=True) if name == "handphone" else text
        matched = candidates.str.fullmatch(pattern).to_numpy(dtype=bool)
        if weights[matched].sum() / weights.sum() >= PATTERN_SHARE:
            return name
    return "others"


def infer_sensitivity(
    column: str, data_type: str, information_type: str, qi: Sequence[str], sensitive: Sequence[str]
) -> str:
    """Sensitivity of a column (module docstring)."""
    if information_type != "others" or data_type == "unique_sparse":
        return "direct_identifier"
    if column in qi:
        return "indirect_identifier"
    if column in sensitive:
        return "sensitive"
    return "non_sensitive"


def profile_columns(
    frame: pd.DataFrame,
    qi: Sequence[str],
    sensitive: Sequence[str],
    overrides: Mapping[str, Mapping[str, Any]] | None = None,
) -> dict[str, ColumnProfile]:
    """Profile every column of ``frame``; ``overrides[column]`` may set any of
    ``data_type``, ``information_type``, ``sensitivity`` (the others are still inferred,
    sensitivity from the possibly overridden types)."""
    overrides = overrides or {}
    out: dict[str, ColumnProfile] = {}
    for col in frame.columns:
        given = {k: v for k, v in (overrides.get(col) or {}).items() if k in PROPERTY_KEYS}
        data_type = given.get("data_type") or infer_data_type(frame[col])
        information_type = given.get("information_type") or infer_information_type(frame[col])
        sensitivity = given.get("sensitivity") or infer_sensitivity(
            col, data_type, information_type, qi, sensitive
        )
        out[col] = ColumnProfile(col, data_type, information_type, sensitivity, tuple(sorted(given)))
    return out


def _value_counts(values: pd.Series) -> pd.Series:
    """Counts of the distinct non-null values (one hash pass; later steps work on these)."""
    return values.value_counts(dropna=True, sort=False)


def _is_text(distinct: pd.Index) -> bool:
    """True when the distinct values are strings."""
    return bool(len(distinct)) and pd.api.types.infer_dtype(distinct, skipna=True) == "string"
