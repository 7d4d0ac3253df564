"""ε-PrivateSMOTE's neighbour graph: the risky rows, their neighbour space, the search and its memo.

``spec/generators.md`` §5.1 steps 2-4 (seed paper ``000_06874021c9588b45.txt``, §3,
Definition 2 and Algorithm 1 lines 1-8): the records whose QI equivalence class has fewer
than ``k`` rows, and each one's ``knn`` nearest neighbours (Euclidean, on the standardised
numeric columns and the one-hot (``drop_first``) categoricals, target excluded, the record
itself excluded). The mode-dependent details (typing, missing level, self-exclusion) are
documented on :class:`generators.eps_private_smote.EpsPrivateSmote`.

Departure (cost only, not output): the reference code searches the neighbours anew for every
variant. Here the graph is shared by the trials of a grid through the cross-trial memo
(:mod:`harness.memo`, namespace ``eps_private_smote``): it depends on the training rows, the QI
set, ``k``, ``knn``, the mode and the neighbour space, not on ``epsilon`` or ``per``, so the
15 (ε, per) variants of one (QI set, knn, mode) search once. The memo stores the same integer
array the search returns, so served and searched fits release byte-identical tables.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import sklearn
from sklearn.neighbors import NearestNeighbors
from sklearn.preprocessing import StandardScaler

from harness.memo import frame_digest, memo

MEMO_NAMESPACE = "eps_private_smote"
"""Namespace of the neighbour graphs in the cross-trial memo (:mod:`harness.memo`)."""
NEIGHBOUR_CODE_VERSION = "neighbours-v1"
"""Part of every memo key: bump it when the space, the search or the self-exclusion changes."""


@dataclass(frozen=True)
class NeighbourQuery:
    """Everything the neighbour graph of the risky rows depends on.

    Attributes
    ----------
    train : DataFrame
        Training rows, index 0..n-1.
    numeric, categorical : tuple of str
        Predictor columns by type (target excluded; the mode decides the typing).
    x : ndarray
        The numeric columns as float64 (n, len(numeric)), NaN for missing.
    risky : ndarray
        Indices of the risky rows (the query rows), ascending.
    qi : tuple of str
        The QI columns that defined ``risky`` (part of the memo key).
    k : int
        The risk threshold that defined ``risky`` (part of the memo key).
    knn : int
        Neighbours per risky row.
    reference : bool
        The authors' code's behaviour: missing categories as all-zero dummies and the first
        result dropped whatever it is (else a missing level and the row's own index dropped).
    """

    train: pd.DataFrame
    numeric: tuple[str, ...]
    categorical: tuple[str, ...]
    x: np.ndarray
    risky: np.ndarray
    qi: tuple[str, ...]
    k: int
    knn: int
    reference: bool

    def memo_key(self) -> dict[str, object]:
        """The memo payload (:func:`harness.memo.key_of` hashes it); ``epsilon`` and ``per`` are absent."""
        return {
            "code": NEIGHBOUR_CODE_VERSION,
            "sklearn": sklearn.__version__,
            "train": frame_digest(self.train),
            "qi": list(self.qi),
            "k": int(self.k),
            "knn": int(self.knn),
            "reference_quirks": bool(self.reference),
            "numeric": list(self.numeric),
            "categorical": list(self.categorical),
            "space": "standardised numeric + one-hot(drop_first) categoricals; euclidean",
            "missing_level": not self.reference,
        }


def risky_neighbours(query: NeighbourQuery) -> tuple[np.ndarray, str]:
    """Neighbour indices (n_risky, knn) of the risky rows and where they came from.

    Returns
    -------
    (ndarray, str)
        The graph and its source: ``computed`` (searched now; stored when the memo is
        enabled), ``memo`` (served by an earlier trial's search) or ``none`` (no risky row).
    """
    if len(query.risky) == 0:
        return np.empty((0, query.knn), dtype=np.intp), "none"
    store = memo(MEMO_NAMESPACE)
    if not store.enabled:
        return search_neighbours(query), "computed"
    payload = query.memo_key()
    hit = store.get_arrays(payload)
    if hit is not None and _valid_entry(hit, query.risky, query.knn):
        return np.ascontiguousarray(hit["neighbours"], dtype=np.intp), "memo"
    found = search_neighbours(query)
    store.put_arrays(payload, {"risky": query.risky, "neighbours": found})
    return found, "computed"


def search_neighbours(query: NeighbourQuery) -> np.ndarray:
    """The search itself: one batched ``kneighbors`` query of ``knn + 1`` over the risky rows."""
    space = neighbour_space(
        query.train,
        list(query.numeric),
        list(query.categorical),
        query.x,
        missing_level=not query.reference,
    )
    nn = NearestNeighbors(n_neighbors=query.knn + 1, metric="euclidean").fit(space)
    found = nn.kneighbors(space[query.risky], return_distance=False)
    if query.reference:
        return np.ascontiguousarray(found[:, 1:])
    return drop_self(found, query.risky)


def _valid_entry(entry: dict[str, np.ndarray], risky: np.ndarray, knn: int) -> bool:
    """A memo entry holds the graph of exactly these risky rows (a guard: the key implies it)."""
    found, rows = entry.get("neighbours"), entry.get("risky")
    return (
        found is not None
        and rows is not None
        and found.shape == (len(risky), knn)
        and np.issubdtype(found.dtype, np.integer)
        and np.array_equal(rows, risky)
    )


def risky_mask(train: pd.DataFrame, qi: tuple[str, ...], k: int, *, missing_is_value: bool) -> np.ndarray:
    """Rows whose QI equivalence class has fewer than ``k`` rows (Definition 2)."""
    if len(train) == 0:
        return np.zeros(0, dtype=bool)
    group = train.groupby(list(qi), dropna=False, sort=False).ngroup().to_numpy()
    sizes = np.bincount(group)[group]
    risky = sizes < k
    if not missing_is_value:  # reference: pandas drops NaN groups, their size is NaN, never < k
        risky &= ~train[list(qi)].isna().any(axis=1).to_numpy()
    return risky


def neighbour_space(
    train: pd.DataFrame,
    numeric: list[str],
    categorical: list[str],
    x: np.ndarray,
    *,
    missing_level: bool = True,
) -> np.ndarray:
    """Standardised neighbour space: numeric columns and one-hot (``drop_first``) categoricals.

    Parameters
    ----------
    train : DataFrame
        Training rows (target already excluded from ``numeric`` / ``categorical``).
    numeric, categorical : list of str
        Predictor columns by type.
    x : ndarray
        The numeric columns as float64 (n, len(numeric)), NaN for missing.
    missing_level : bool
        Encode a missing category as its own dummy (fixed mode); the reference leaves
        missing as all-zero dummies.

    Returns
    -------
    ndarray
        (n, p) float64; every column standardised over all rows (``StandardScaler``),
        missing numeric values imputed by the column mean (0 after standardisation).
    """
    parts = [x]
    if categorical:
        dummies = pd.get_dummies(
            train[categorical].astype(object), drop_first=True, dummy_na=missing_level, dtype=np.float64
        )
        parts.append(dummies.to_numpy(dtype=np.float64))
    space = np.hstack(parts) if parts else np.empty((len(train), 0))
    if space.shape[1] == 0:
        return np.zeros((len(train), 1))
    space = StandardScaler().fit_transform(space)
    return np.nan_to_num(space, nan=0.0)


def drop_self(found: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Drop each query row's own index from its ``knn + 1`` results (else the farthest result).

    Parameters
    ----------
    found : ndarray
        (q, knn + 1) neighbour indices of the query rows, nearest first.
    rows : ndarray
        (q,) index of each query row.

    Returns
    -------
    ndarray
        (q, knn) neighbour indices, the query row itself excluded.
    """
    is_self = found == rows[:, None]
    position = np.where(is_self.any(axis=1), is_self.argmax(axis=1), found.shape[1] - 1)
    keep = np.ones(found.shape, dtype=bool)
    keep[np.arange(len(found)), position] = False
    return found[keep].reshape(len(found), found.shape[1] - 1)


__all__ = [
    "MEMO_NAMESPACE",
    "NEIGHBOUR_CODE_VERSION",
    "NeighbourQuery",
    "drop_self",
    "neighbour_space",
    "risky_mask",
    "risky_neighbours",
    "search_neighbours",
]
