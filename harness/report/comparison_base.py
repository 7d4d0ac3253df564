"""What every comparison table shares: its result type, the skip signal and the block matrices.

:mod:`harness.report.comparisons` and :mod:`harness.report.control` build their tables from
these; ``comparisons`` re-exports them, so ``from harness.report.comparisons import
TableSkipped`` keeps working.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from harness.errors import ConfigError
from harness.report.formatting import MISSING
from harness.report.ranking import block_matrix, rows_goal, select_metric
from harness.report.render import DisplayTable
from harness.report.settings import ReportSettings, split_column


class TableSkipped(Exception):
    """The run lacks what a table needs; ``str(exc)`` says what."""


@dataclass(frozen=True)
class ComparisonTable:
    """A comparison table: file stem, caption, numbers, display and an optional note."""

    stem: str
    caption: str
    numbers: pd.DataFrame
    display: DisplayTable
    note: str | None = None


def stringify_blocks(frame: pd.DataFrame, blocks: Sequence[str]) -> pd.DataFrame:
    """A copy of ``frame`` whose block columns are strings (NA → ``""``), so no block is dropped."""
    out = frame.copy()
    for col in blocks:
        out[col] = out[col].astype("string").fillna("").astype(str)
    return out


def column_scores(
    frame: pd.DataFrame, column: str, blocks: Sequence[str]
) -> tuple[pd.DataFrame, str, float | None]:
    """Block matrix (rows = blocks, columns = variant labels) and goal of one metric column.

    Raises
    ------
    TableSkipped
        If the column has no ok value.
    """
    metric, variant = split_column(column)
    try:
        rows = select_metric(frame, metric, variant)
    except ConfigError as exc:
        raise TableSkipped(str(exc)) from None
    goal, target = rows_goal(rows)
    ok = rows[(rows["status"] == "ok") & np.isfinite(rows["value"])]
    if ok.empty:
        raise TableSkipped(f"{column} has no ok value")
    scores = block_matrix(stringify_blocks(ok, blocks), blocks=blocks)
    return scores, goal, target


def main_columns(settings: ReportSettings) -> list[str]:
    """The utility and the privacy column of the settings (once each, those that are set)."""
    return [c for c in dict.fromkeys((settings.utility, settings.privacy)) if c]


def format_p(value: object) -> str:
    """A p-value as display text: three decimals, scientific below 0.001, – for NaN."""
    p = float(value)  # type: ignore[arg-type]
    if math.isnan(p):
        return MISSING
    return f"{p:.2e}" if p < 0.001 else f"{p:.3f}"
