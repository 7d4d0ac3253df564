"""Exact nearest-neighbour search on integer codes (mismatch counts) for :mod:`metrics.privacy.dcr_share`.

Two compiled branch-and-bound kernels over a two-level prefix tree of the reference rows:
:func:`kth_nearest_mismatch` (the nearest or second-nearest distance; stops counting a
candidate once it cannot beat the current bound) and :func:`nearest_mismatch_ties` (the
nearest distance and how many reference rows lie at it; a candidate is followed while its
partial count does not exceed the bound, so that ties at the minimum are counted). Both stream
over the reference rows for one query row at a time: memory O(n_query + n_ref), never an
``n_query × n_ref`` matrix. Query rows run in parallel (numba's thread count, which the harness
sets per trial).
"""

from __future__ import annotations

import numba
import numpy as np


def kth_nearest_mismatch(
    query: np.ndarray, ref: np.ndarray, kth: np.ndarray, floor: np.ndarray | None = None
) -> np.ndarray:
    """Exact k-th smallest mismatch count (Hamming distance on codes) from each query row to ``ref``.

    Parameters
    ----------
    query : numpy.ndarray
        ``(n_query, p)`` integer codes.
    ref : numpy.ndarray
        ``(n_ref, p)`` integer codes, at least ``max(kth)`` rows.
    kth : numpy.ndarray
        Per query row, 1 (nearest) or 2 (second-nearest; equal rows count separately).
    floor : numpy.ndarray, optional
        Per query row, a known lower bound of the result (e.g. the distance to a superset of
        ``ref``): the search of a row ends once it finds a row at it. Default 0.

    Returns
    -------
    numpy.ndarray
        ``(n_query,)`` int32 distances.

    Notes
    -----
    ``ref`` is sorted by its first two columns and grouped into a two-level prefix tree; a
    group whose prefix already mismatches in as many columns as the current bound is skipped
    whole, and a candidate's count stops once it reaches the bound (branch and bound: exact).
    Put the columns most likely to differ first for speed.
    """
    query, ref, (first_code, first_lo, first_hi, pair_code, pair_lo, pair_hi) = _prefix_tree(query, ref)
    kth = np.asarray(kth, dtype=np.int8)
    low = np.zeros(len(query), dtype=np.int32) if floor is None else np.asarray(floor, dtype=np.int32)
    return _search(query, ref, first_code, first_lo, first_hi, pair_code, pair_lo, pair_hi, kth, low)


def nearest_mismatch_ties(
    query: np.ndarray,
    ref: np.ndarray,
    skip_own: np.ndarray | None = None,
    ceiling: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Exact smallest mismatch count from each query row to ``ref`` and the number of ``ref`` rows at it.

    Parameters
    ----------
    query : numpy.ndarray
        ``(n_query, p)`` integer codes.
    ref : numpy.ndarray
        ``(n_ref, p)`` integer codes.
    skip_own : numpy.ndarray, optional
        Per query row, 1 to leave one ``ref`` row identical to it out of the search (the
        query row's own record, when the query rows are reference rows), else 0. With 1 the
        distance is the second-nearest one of :func:`kth_nearest_mismatch` whenever ``ref``
        holds a copy of the row.
    ceiling : numpy.ndarray, optional
        Per query row, the largest distance of interest: rows further away are not searched.
        Default ``p``: every row.

    Returns
    -------
    distance : numpy.ndarray
        ``(n_query,)`` int32 nearest distances; ``ceiling + 1`` where none is within the
        ceiling (the distance is then only known to exceed it).
    count : numpy.ndarray
        ``(n_query,)`` int64 numbers of ``ref`` rows at that distance (the own record left out);
        0 where none is within the ceiling.

    Notes
    -----
    The branch and bound of :func:`kth_nearest_mismatch` with a looser bound: a prefix group is
    skipped when its prefix mismatches in more columns than the current best (or the ceiling),
    a candidate's count stops once it exceeds it (not when it reaches it), and the search
    does not end at the first exact match, so it reads more of ``ref``.
    """
    width = max(query.shape[1], 2)
    skip = np.zeros(len(query), dtype=np.int8) if skip_own is None else np.asarray(skip_own, dtype=np.int8)
    top = (
        np.full(len(query), width, dtype=np.int32) if ceiling is None else np.asarray(ceiling, dtype=np.int32)
    )
    query, ref, (first_code, first_lo, first_hi, pair_code, pair_lo, pair_hi) = _prefix_tree(query, ref)
    return _search_ties(query, ref, first_code, first_lo, first_hi, pair_code, pair_lo, pair_hi, skip, top)


def _prefix_tree(query: np.ndarray, ref: np.ndarray) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, ...]]:
    """Contiguous int32 ``query`` and sorted ``ref`` (padded to two columns) and the prefix tree of ``ref``.

    The tree: ``first_code``, ``first_lo``, ``first_hi`` (groups of equal first code, as ranges
    of second-level groups) and ``pair_code``, ``pair_lo``, ``pair_hi`` (groups of equal first
    two codes, as ranges of rows).
    """
    query = np.asarray(query, dtype=np.int32)
    ref = np.asarray(ref, dtype=np.int32)
    if query.shape[1] < 2:  # a constant column never mismatches: pad to two prefix columns
        pad = 2 - query.shape[1]
        query = np.hstack([query, np.zeros((len(query), pad), dtype=np.int32)])
        ref = np.hstack([ref, np.zeros((len(ref), pad), dtype=np.int32)])
    ref = np.ascontiguousarray(ref[np.lexsort((ref[:, 1], ref[:, 0]))])
    new_pair = np.flatnonzero(np.any(ref[1:, :2] != ref[:-1, :2], axis=1)) + 1
    pair_lo = np.concatenate([[0], new_pair]).astype(np.int64)
    pair_hi = np.concatenate([new_pair, [len(ref)]]).astype(np.int64)
    new_first = np.flatnonzero(ref[pair_lo[1:], 0] != ref[pair_lo[:-1], 0]) + 1
    first_lo = np.concatenate([[0], new_first]).astype(np.int64)
    first_hi = np.concatenate([new_first, [len(pair_lo)]]).astype(np.int64)
    tree = (
        ref[pair_lo[first_lo], 0].copy(),
        first_lo,
        first_hi,
        ref[pair_lo, 1].copy(),
        pair_lo,
        pair_hi,
    )
    return np.ascontiguousarray(query), ref, tree


@numba.njit(cache=True, nogil=True, parallel=True)
def _search(
    query: np.ndarray,
    ref: np.ndarray,
    first_code: np.ndarray,
    first_lo: np.ndarray,
    first_hi: np.ndarray,
    pair_code: np.ndarray,
    pair_lo: np.ndarray,
    pair_hi: np.ndarray,
    kth: np.ndarray,
    floor: np.ndarray,
) -> np.ndarray:  # pragma: no cover - compiled
    """Branch-and-bound kernel of :func:`kth_nearest_mismatch`."""
    n_query, n_cols = query.shape
    out = np.empty(n_query, dtype=np.int32)
    for i in numba.prange(n_query):
        second = kth[i] == 2
        best1 = n_cols + 1
        best2 = n_cols + 1
        done = False
        for phase in range(2):  # the group sharing the first code first: it tightens the bound
            for a in range(first_code.size):
                if done:
                    break
                same = first_code[a] == query[i, 0]
                if same != (phase == 0):
                    continue
                base0 = 0 if same else 1
                if base0 >= (best2 if second else best1):
                    continue
                for b in range(first_lo[a], first_hi[a]):
                    if done:
                        break
                    base1 = base0 + (0 if pair_code[b] == query[i, 1] else 1)
                    if base1 >= (best2 if second else best1):
                        continue
                    for r in range(pair_lo[b], pair_hi[b]):
                        bound = best2 if second else best1
                        d = base1
                        for j in range(2, n_cols):
                            if query[i, j] != ref[r, j]:
                                d += 1
                                if d >= bound:
                                    break
                        if d < best1:
                            best2 = best1
                            best1 = d
                        elif d < best2:
                            best2 = d
                        if (best2 if second else best1) <= floor[i]:
                            done = True
                            break
        out[i] = best2 if second else best1
    return out


@numba.njit(cache=True, nogil=True, parallel=True)
def _search_ties(
    query: np.ndarray,
    ref: np.ndarray,
    first_code: np.ndarray,
    first_lo: np.ndarray,
    first_hi: np.ndarray,
    pair_code: np.ndarray,
    pair_lo: np.ndarray,
    pair_hi: np.ndarray,
    skip: np.ndarray,
    ceiling: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """Branch-and-bound kernel of :func:`nearest_mismatch_ties`: a candidate is followed while its
    partial count is at most the bound (the ceiling, then the best so far); a row dropped lies
    further than the final best, so the count at the best is exact."""
    n_query, n_cols = query.shape
    dist = np.empty(n_query, dtype=np.int32)
    count = np.empty(n_query, dtype=np.int64)
    for i in numba.prange(n_query):
        bound = min(ceiling[i], n_cols)
        best = n_cols + 1
        k = 0
        pending = skip[i]  # identical rows still to leave out (the row's own record)
        for phase in range(2):  # the group sharing the first code first: it tightens the bound
            for a in range(first_code.size):
                same = first_code[a] == query[i, 0]
                if same != (phase == 0):
                    continue
                base0 = 0 if same else 1
                if base0 > bound:
                    continue
                for b in range(first_lo[a], first_hi[a]):
                    base1 = base0 + (0 if pair_code[b] == query[i, 1] else 1)
                    if base1 > bound:
                        continue
                    for r in range(pair_lo[b], pair_hi[b]):
                        d = base1
                        for j in range(2, n_cols):
                            if query[i, j] != ref[r, j]:
                                d += 1
                                if d > bound:
                                    break
                        if d > bound:
                            continue
                        if d == 0 and pending > 0:
                            pending -= 1
                        elif d < best:
                            best = d
                            bound = d
                            k = 1
                        else:
                            k += 1
        if k == 0:
            dist[i] = ceiling[i] + 1
            count[i] = 0
        else:
            dist[i] = best
            count[i] = k
    return dist, count
