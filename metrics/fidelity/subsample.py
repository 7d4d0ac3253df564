"""Seeded, row-order-invariant subsampling of rows and of column pairs (``spec/metrics.md`` §0.3).

Subsampling is always seeded and recorded, never silent: callers put the sizes and the seed
in ``details``.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from harness.encoding import canonical_row_order
from harness.errors import ConfigError
from harness.params import check_int

T = TypeVar("T")


def check_optional_size(name: str, value: Any, minimum: int = 1) -> None:
    """Raise :class:`ConfigError` unless ``value`` is None or an integer >= ``minimum``."""
    if value is not None:
        try:
            check_int(name, value, minimum)
        except ConfigError:
            raise ConfigError(f"`{name}` must be null or an integer >= {minimum}; got {value!r}") from None


def subsample_rows(frame: pd.DataFrame, max_rows: int | None, rng: np.random.Generator) -> pd.DataFrame:
    """At most ``max_rows`` rows of ``frame``, drawn from its canonical row order.

    The rows are first put in :func:`~harness.encoding.canonical_row_order`, so the draw
    depends on the rows and the generator state only, not on the order of the input. With
    ``max_rows`` None or at least ``len(frame)`` the whole table comes back (in canonical
    order); ``rng`` is then not drawn from.
    """
    ordered = canonical_row_order(frame)
    if max_rows is None or len(frame) <= max_rows:
        return ordered
    rows = np.sort(rng.choice(len(frame), size=int(max_rows), replace=False))
    return ordered.iloc[rows].reset_index(drop=True)


def subsample_items(items: Sequence[T], max_items: int | None, rng: np.random.Generator) -> list[T]:
    """At most ``max_items`` of ``items`` (seeded, without replacement, input order kept)."""
    if max_items is None or len(items) <= max_items:
        return list(items)
    keep = np.sort(rng.choice(len(items), size=int(max_items), replace=False))
    return [items[i] for i in keep]


def column_pairs(columns: Sequence[str]) -> list[tuple[str, str]]:
    """All unordered pairs of ``columns`` in table order."""
    return list(combinations(columns, 2))
