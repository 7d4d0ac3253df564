"""Equivalence classes on the QI set and the measures computed from them.

An equivalence class (EC) is the set of rows with identical (generalised) QI values; NaN and
``*`` are values (``spec/generators.md`` §6, ``metrics.md`` P4). Everything here is one
factorisation of the QI columns and a ``bincount``: no per-row Python loop.

Information-loss measures (lower is better):

* ``entropy``: normalised non-uniform entropy (Gionis–Tassa; Robin Hood Eq. 10):
  ``(1/n) Σ_i log2(F(φ(d_i)) / F(d_i))`` with ``F(d_i)`` the size of row i's EC in the
  original data and ``F(φ(d_i))`` its size after generalisation; a suppressed row counts as
  fully generalised (``F(φ) = n``; the Robin Hood code uses ``n + 1``).
* ``discernibility``: ``(Σ_{|E| >= k} |E|² + n_suppressed · n) / n``, the discernibility
  metric divided by ``n`` (the mean size of the class a row is hidden in; 1 … n).
* ``precision``: 1 − Sweeney's Prec for full-domain nodes: mean over rows and QIs of
  ``level / height``, a suppressed row counting 1 (see :mod:`generators.kanon.lattice`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

LOSSES: tuple[str, ...] = ("entropy", "discernibility", "precision")


def class_ids(columns: Sequence[Any]) -> np.ndarray:
    """Row-aligned EC id (0 … #ECs − 1) of the rows described by ``columns`` (NaN is a value)."""
    if not columns:
        return np.zeros(0, dtype=np.int64)
    n = len(columns[0])
    key = np.zeros(n, dtype=np.int64)
    radix = 1
    for values in columns:
        codes, uniques = pd.factorize(
            pd.Series(np.asarray(values, dtype=object), dtype=object), use_na_sentinel=False
        )
        card = max(len(uniques), 1)
        if radix * card >= 2**62:
            key, _ = pd.factorize(key)
            key = key.astype(np.int64)
            radix = int(key.max()) + 1 if n else 1
        key = key + codes.astype(np.int64) * radix
        radix *= card
    ids, _ = pd.factorize(key)
    return ids.astype(np.int64)


def class_sizes(columns: Sequence[Any]) -> np.ndarray:
    """Row-aligned size of each row's EC on ``columns``."""
    ids = class_ids(columns)
    if len(ids) == 0:
        return np.zeros(0, dtype=np.int64)
    return np.bincount(ids)[ids].astype(np.int64)


def entropy_loss(before: np.ndarray, after: np.ndarray, suppressed: np.ndarray, n: int) -> float:
    """Normalised non-uniform entropy from row-aligned EC sizes before / after generalisation."""
    if n == 0:
        return 0.0
    after = np.where(suppressed, n, after).astype(float)
    return float(np.sum(np.log2(after / before.astype(float))) / n)


def discernibility_loss(after: np.ndarray, suppressed: np.ndarray, n: int) -> float:
    """Discernibility / n from row-aligned EC sizes (``Σ_rows |E(x)| = Σ_E |E|²``)."""
    if n == 0:
        return 0.0
    kept = after[~suppressed].astype(float)
    return float((kept.sum() + suppressed.sum() * float(n)) / n)


def summarise(sizes: np.ndarray, n_input: int) -> dict[str, Any]:
    """k-anonymity profile of a released table from its row-aligned EC sizes.

    Parameters
    ----------
    sizes : ndarray
        EC size of each released row.
    n_input : int
        Rows of the training table (for the suppressed count and share).

    Returns
    -------
    dict
        ``achieved_k`` (min EC size), ``n_classes``, ``n_released``, ``n_suppressed``,
        ``suppressed_share``, ``reid_mean`` (record-weighted mean of 1/|EC|),
        ``reid_mean_classes`` (mean over ECs), ``reid_max`` (1 / min EC size). None where the
        release is empty.
    """
    n = len(sizes)
    out: dict[str, Any] = {
        "n_released": int(n),
        "n_suppressed": int(n_input - n),
        "suppressed_share": float((n_input - n) / n_input) if n_input else 0.0,
    }
    if n == 0:
        out.update(achieved_k=None, n_classes=0, reid_mean=None, reid_mean_classes=None, reid_max=None)
        return out
    reid = 1.0 / sizes.astype(float)
    n_classes = int(round(reid.sum()))
    out.update(
        achieved_k=int(sizes.min()),
        n_classes=n_classes,
        reid_mean=float(reid.mean()),
        reid_mean_classes=float(np.sum(reid * reid) / n_classes),  # Σ_rows 1/|E|² = Σ_E 1/|E|
        reid_max=float(reid.max()),
    )
    return out
