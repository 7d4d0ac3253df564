"""Column helpers shared by the numeric anonymisers (MDAV, spectral anonymisation)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from harness.errors import DataError


def complete_numeric_matrix(train: pd.DataFrame, columns: list[str], generator: str) -> np.ndarray:
    """``train[columns]`` as float64; :class:`DataError` naming the columns that have missing values."""
    x = train[columns].to_numpy(dtype=float)
    if np.isnan(x).any():
        bad = [c for c in columns if train[c].isna().any()]
        raise DataError(
            f"{generator}: column(s) {', '.join(map(repr, bad))} have missing values; impute them first"
        )
    return x
