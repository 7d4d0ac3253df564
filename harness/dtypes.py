"""Table dtypes per `DatasetSpec` kind.

Loaded and generated tables use one representation everywhere:

* ``continuous`` -> ``float64``
* ``integer`` -> ``int64`` (``float64`` when the column has missing values)
* ``categorical`` / ``ordinal`` / ``identifier`` -> ``object`` holding ``str`` (missing = ``NaN``)
* ``datetime`` -> ``datetime64[ns]``
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from harness.errors import DataError
from harness.spec import DatasetSpec


def conform(frame: pd.DataFrame, spec: DatasetSpec, *, where: str = "table") -> pd.DataFrame:
    """Return a copy of ``frame`` with the spec's columns, order and dtypes.

    Integer columns are rounded half to even (``numpy.rint``) before the cast, never
    truncated (``spec/generators.md`` §1.2 rule 3).

    Parameters
    ----------
    frame : DataFrame
        Table holding at least the spec's table columns.
    spec : DatasetSpec
    where : str
        Name used in error messages (a file path or a generator name).

    Raises
    ------
    DataError
        If a column is missing or cannot be converted to its kind.
    """
    missing = [c for c in spec.table_columns if c not in frame.columns]
    if missing:
        raise DataError(
            f"{where}: column(s) {', '.join(map(repr, missing))} not found; "
            f"available: {', '.join(map(str, frame.columns))}"
        )
    out = {}
    for name in spec.table_columns:
        out[name] = convert_column(frame[name], spec.kind(name), where=f"{where}: column {name!r}")
    return pd.DataFrame(out, index=pd.RangeIndex(len(frame)))


def convert_column(values: pd.Series, kind: str, *, where: str) -> pd.Series:
    """Convert one column to the representation of ``kind`` (see module docstring)."""
    values = values.reset_index(drop=True)
    if kind in ("continuous", "integer"):
        numeric = pd.to_numeric(values, errors="coerce")
        bad = numeric.isna() & values.notna()
        if bad.any():
            # the value itself is not quoted: an error message can reach shareable result rows (issue 29)
            first = int(np.flatnonzero(bad.to_numpy())[0]) + 1
            raise DataError(
                f"{where} must be numeric ({kind}); got a non-numeric value in {int(bad.sum())} row(s), "
                f"the first in data row {first}"
            )
        numeric = numeric.astype("float64")
        if kind == "integer":
            numeric = pd.Series(np.rint(numeric.to_numpy()), name=values.name)
            if not numeric.isna().any():
                return numeric.astype("int64")
        return numeric
    if kind == "datetime":
        try:
            return pd.to_datetime(values, errors="raise")
        except (ValueError, TypeError):
            parsed = pd.to_datetime(values, errors="coerce", format="mixed")
            bad = np.flatnonzero((parsed.isna() & values.notna()).to_numpy())
            where_bad = f" in {len(bad)} row(s), the first in data row {int(bad[0]) + 1}" if len(bad) else ""
            raise DataError(f"{where} must hold dates; got a value that is not a date{where_bad}") from None
    # categorical, ordinal, identifier: strings, NaN for missing
    return _as_labels(values)


def _as_labels(values: pd.Series) -> pd.Series:
    """Strings with NaN for missing; integral floats become ``"3"``, not ``"3.0"``."""
    missing = values.isna().to_numpy()
    inferred = pd.api.types.infer_dtype(values, skipna=True)
    if inferred in ("string", "empty"):
        out = values.astype(object)
    elif pd.api.types.is_integer_dtype(values.dtype) and not missing.any():
        out = values.astype(str).astype(object)
    else:
        out = values.map(_as_category_label).astype(object)
    if missing.any():
        out = out.where(~missing, np.nan)
    return out


def _as_category_label(value: object) -> object:
    if value is None or (isinstance(value, float) and np.isnan(value)) or value is pd.NA:
        return np.nan
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return str(int(value))
    return str(value)
