"""Groups of rows that form independent data sets (the replicates of a simulation study).

Simulation reproductions stack M independent data sets into one table with a label column
(``spec/reproductions.md`` §9: ``replicate``), so that one trial anonymises and evaluates
all of them; the metrics that summarise over replicates (``asymptotic_moment_re``,
``grouped_exact_match``) compute per group with the helpers below.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from harness.errors import IncomputableMetricError
from harness.spec import DatasetSpec


def group_positions(frame: pd.DataFrame, by: str) -> dict[str, np.ndarray]:
    """Row positions of every group of ``frame[by]``, keyed by the label as text (sorted).

    Raises
    ------
    IncomputableMetricError
        If ``by`` is not a column or has missing values.
    """
    if by not in frame.columns:
        raise IncomputableMetricError(f"group column {by!r} is not a column of the table")
    labels = frame[by]
    if labels.isna().any():
        raise IncomputableMetricError(f"group column {by!r} has missing values")
    codes, uniques = pd.factorize(labels.astype(str), sort=True)
    order = np.argsort(codes, kind="stable")
    parts = np.split(order, np.cumsum(np.bincount(codes, minlength=len(uniques)))[:-1])
    return {str(label): rows for label, rows in zip(uniques, parts)}


def numeric_group_columns(spec: DatasetSpec, by: str | None, columns: Sequence[str] | None) -> list[str]:
    """``columns`` or every numeric column except ``by``; :class:`IncomputableMetricError` if none."""
    if columns is not None:
        bad = [c for c in columns if c not in spec.table_columns or not spec.column(c).is_numeric]
        if bad:
            raise IncomputableMetricError(f"column(s) {', '.join(map(repr, bad))} are not numeric columns")
        chosen = [c for c in dict.fromkeys(columns) if c != by]
    else:
        chosen = [c for c in spec.numeric_columns if c != by]
    if not chosen:
        raise IncomputableMetricError(f"dataset {spec.name!r} has no numeric column to summarise")
    return chosen


def float_matrix(frame: pd.DataFrame, columns: Sequence[str]) -> np.ndarray:
    """``frame[columns]`` as float64 (values that are not numbers become NaN)."""
    return np.column_stack(
        [
            pd.to_numeric(frame[c], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
            for c in columns
        ]
    )
