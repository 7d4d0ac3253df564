"""Exact Euclidean distances from query rows to the neighbours a kNN search listed for them.

scikit-learn's brute-force search ranks by the expanded form ‖x‖² − 2x·y + ‖y‖², whose rounding
turns an exact duplicate's distance into ~1e-8; the privacy metrics that count duplicates or
compare distances recompute the listed neighbours' distances term by term.
"""

from __future__ import annotations

import numpy as np


def exact_distances(query: np.ndarray, rows: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """``dist[i, j] = ‖query[i] − rows[idx[i, j]]‖₂``, summed coordinate by coordinate.

    Parameters
    ----------
    query : numpy.ndarray
        ``(n, p)`` query rows.
    rows : numpy.ndarray
        ``(m, p)`` indexed rows.
    idx : numpy.ndarray
        ``(n, k)`` positions in ``rows``.

    Returns
    -------
    numpy.ndarray
        ``(n, k)`` float64 distances.

    Notes
    -----
    One neighbour rank at a time, so the temporaries are ``(n, p)`` rather than ``(n, k, p)``
    (k times less memory to fault in: the first trial of a process spent more time on page
    faults than on arithmetic). Each distance is the same pairwise sum over the p contiguous
    coordinates as in ``np.sqrt(((query[:, None] - rows[idx]) ** 2).sum(axis=2))``, so the
    values are bitwise equal to that form's.
    """
    out = np.empty(idx.shape, dtype=np.float64)
    for rank in range(idx.shape[1]):
        out[:, rank] = ((query - rows[idx[:, rank]]) ** 2).sum(axis=1)
    return np.sqrt(out, out=out)
