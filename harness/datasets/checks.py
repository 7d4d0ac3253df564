"""Checks of a loaded table against its spec, and the recoding of declared missing-value codes."""

from __future__ import annotations

import numpy as np
import pandas as pd

from harness.errors import ConfigError, DataError
from harness.spec import DatasetSpec


def recode_missing_codes(frame: pd.DataFrame, spec: DatasetSpec) -> pd.DataFrame:
    """Replace each column's ``missing_codes`` by NA (numeric columns compare numerically).

    ``integer`` columns that gain missing values become ``float64`` (``harness.dtypes`` rule).
    Returns a new frame; ``frame`` is not modified.
    """
    out = frame.copy()
    for col in spec.columns:
        if not col.missing_codes or col.name not in out.columns:
            continue
        values = out[col.name]
        if col.is_numeric:
            codes = [float(c) for c in col.missing_codes if _is_number(c)]
            hit = values.isin(codes)
        elif col.kind == "datetime":
            hit = values.isin(pd.to_datetime(list(col.missing_codes), errors="coerce"))
        else:
            hit = values.isin([_label(c) for c in col.missing_codes])
        if hit.any():
            out[col.name] = values.astype("float64").mask(hit) if col.is_numeric else values.mask(hit)
    return out


def check_table(frame: pd.DataFrame, spec: DatasetSpec, *, where: str) -> None:
    """Raise a one-line error if the conformed table cannot be used as declared.

    Checks: no column is entirely missing; values of columns with declared ``categories``
    belong to them; a classification target has at least two classes (exactly two for
    ``binary``); a regression target is numeric.

    Raises
    ------
    DataError
        Naming the file(s) (``where``) and the column.
    ConfigError
        If a regression target is not declared numeric.
    """
    for name in frame.columns:
        if frame[name].isna().all():
            raise DataError(f"{where}: column {name!r} is empty (all {len(frame)} values missing)")
    for col in spec.columns:
        if col.categories and col.name in frame.columns:
            observed = frame[col.name].dropna().unique()
            unknown = sorted(set(map(str, observed)) - set(col.categories))
            if unknown:
                raise DataError(
                    f"{where}: column {col.name!r} has value(s) {', '.join(map(repr, unknown[:5]))} "
                    f"outside its declared categories ({', '.join(col.categories)})"
                )
    check_target(frame, spec, where)


def check_target(frame: pd.DataFrame, spec: DatasetSpec, where: str) -> None:
    """Raise :class:`DataError` when a classification target has too few (or, binary, too many) classes."""
    target = spec.target
    if target is None or spec.task == "none":
        return
    if spec.task == "regression":
        if not spec.column(target).is_numeric:
            raise ConfigError(
                f"dataset {spec.name!r}: target {target!r} of a regression task must be continuous or "
                f"integer; got kind {spec.kind(target)!r}"
            )
        return
    classes = frame[target].dropna().unique()
    if len(classes) < 2:
        raise DataError(
            f"{where}: target {target!r} has a single class {classes[0]!r}; "
            f"task {spec.task!r} needs at least two classes"
        )
    if spec.task == "binary" and len(classes) != 2:
        raise DataError(
            f"{where}: target {target!r} has {len(classes)} classes; task 'binary' needs exactly 2 "
            "(use task: multiclass)"
        )


def _is_number(value: object) -> bool:
    try:
        float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False
    return True


def _label(value: object) -> str:
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return str(int(value))
    return str(value)
