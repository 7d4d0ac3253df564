"""``dcr_share``: holdout-based share of release rows closer to the training than to the holdout split.

Specification: ``spec/metrics.md`` P7 (Platzer & Reutterer 2021, "Holdout-Based Empirical
Assessment of Mixed-Type Synthetic Data"; reference ``mostly-ai/paper-fidelity-accuracy``,
``privacy.ipynb``, ``c = 100``; reference values in ``shared/datasets/adult_mostly_synthetic/``).
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numba
import numpy as np
import pandas as pd

from harness.encoding import canonical_row_order
from harness.errors import ConfigError, IncomputableMetricError
from harness.metric import BaseMetric, Family, Goal, MetricResult
from harness.params import check_choice, check_int
from harness.spec import DatasetSpec

SIZE_MISMATCH_MODES: tuple[str, ...] = ("subsample", "error")
BINNED_KINDS: frozenset[str] = frozenset({"continuous", "integer", "datetime"})


class DcrShare(BaseMetric):
    """Share of release rows whose nearest training record is closer than their nearest holdout record.

    ``spec/metrics.md`` P7, as the reference notebook:

    1. T, H and S are concatenated; every numeric (and datetime) column is cut into
       ``n_bins`` quantile bins of the concatenation (``pd.qcut(q=n_bins,
       duplicates="drop")``); every column is then categorical, NA a category of its own.
    2. d(x, y) = number of columns on which x and y differ (the reference's squared L2 / 2
       between one-hot vectors).
    3. For each s in S: d_T(s) = exact min over T, d_H(s) = exact min over H.
    4. ``share`` = mean[d_T < d_H] + ½·mean[d_T = d_H].

    Outputs (result ``variant``):

    ``share`` (headline)
        goal ``target`` 0.5: an unseen real sample scores 0.5; higher means the release sits
        closer to the training records than new real records do (flip-10 % copies: 0.94).
    ``dcr_ratio``
        mean d_T / mean d_H (goal ``maximise``: below 1 the release is closer to T than to H;
        0/0, a release copying rows present in both, counts as 1; x/0 is ``inf``).
    ``share_ratio``
        share / (1 − share) (goal ``minimise``; ``inf`` when share = 1).

    ``details`` hold ``n_closer`` / ``n_further`` / ``n_equal`` (the reference's counts), the
    mean distances, the split sizes used, the subsample seed and whether the release was
    scored as a holdout release.

    Parameters
    ----------
    n_bins : int
        Quantile bins per numeric column (the reference's ``c``; >= 2).
    size_mismatch : {"subsample", "error"}
        The share needs |H| = |T| (with unequal sizes the larger split offers closer
        neighbours by chance alone). ``"subsample"`` (default): the larger of T and H is
        replaced by a seeded subsample of the smaller one's size, recorded in ``details``;
        ``"error"``: raise :class:`IncomputableMetricError` instead.
    holdout_release : {"auto", True, False}
        Whether S consists of holdout records (the reference's ``is_val``, the "holdout" row
        of its tables). Then a row's own record is not its holdout neighbour: d_H is the
        distance to the second-nearest holdout row when the row's own record is among the
        holdout rows used (duplicates of it still count). ``"auto"`` (default): true exactly
        when every row of S occurs in H at least as often as in S; ``True`` requires it
        (else :class:`IncomputableMetricError`).
    max_rows : int or None
        If set, S and the (equal-sized) T and H are each replaced by a seeded subsample of at
        most this many rows (recorded in ``details``). The search is O(|S|·(|T| + |H|)·p).
    max_query_rows : int or None
        If set, the distances are computed for a seeded subsample of at most this many rows
        of S only; the binning still uses every row of T, H and S, so each scored row gets
        exactly its full-computation score and the subsample's share estimates the full share
        without bias (standard error at most 0.5/√max_query_rows), at a cost proportional to
        ``max_query_rows`` (quick profiles; ``reproductions.md`` §11). Subsampling T instead
        would not do: a release row's training source would often be missing from it.

    Notes
    -----
    Subsamples are drawn from the tables' canonical row order (content-hash order), so the
    value does not depend on the order of the rows. The exact nearest-neighbour search runs in a
    compiled kernel that streams over the reference rows for one query row at a time and stops
    counting a candidate once it cannot beat the current best: memory is O(|T| + |H| + |S|),
    never an |S| × |T| matrix. Deviation from the reference, degenerate inputs only: a numeric
    column with fewer than two distinct values (``pd.qcut`` then returns no bins and the
    reference would merge its value with NA) keeps its value and NA apart.
    """

    name: ClassVar[str] = "dcr_share"
    family: ClassVar[Family] = "privacy"
    goal: ClassVar[Goal] = "target"
    target_value: ClassVar[float | None] = 0.5
    min_value: ClassVar[float] = 0.0
    max_value: ClassVar[float] = math.inf  # share in [0, 1]; the two ratios are unbounded
    needs_control: ClassVar[bool] = True

    def __init__(
        self,
        n_bins: int = 100,
        size_mismatch: str = "subsample",
        holdout_release: str | bool = "auto",
        max_rows: int | None = None,
        max_query_rows: int | None = None,
    ) -> None:
        self.n_bins = n_bins
        self.size_mismatch = size_mismatch
        self.holdout_release = holdout_release
        self.max_rows = max_rows
        self.max_query_rows = max_query_rows

    def _validate_params(self) -> None:
        check_int("n_bins", self.n_bins, 2)
        check_choice("size_mismatch", self.size_mismatch, SIZE_MISMATCH_MODES)
        if not (isinstance(self.holdout_release, (bool, np.bool_)) or self.holdout_release == "auto"):
            raise ConfigError(
                f"`holdout_release` must be 'auto', true or false; got {self.holdout_release!r}"
            )
        if self.max_rows is not None:
            check_int("max_rows", self.max_rows, 2)
        if self.max_query_rows is not None:
            check_int("max_query_rows", self.max_query_rows, 1)

    def _compute(
        self,
        real: pd.DataFrame,
        synthetic: pd.DataFrame,
        spec: DatasetSpec,
        *,
        control: pd.DataFrame | None,
        test: pd.DataFrame | None,
        seed: int,
    ) -> dict[str, MetricResult]:
        assert control is not None  # needs_control: BaseMetric.compute checked it
        n_ref = min(len(real), len(control))
        if len(real) != len(control) and self.size_mismatch == "error":
            raise IncomputableMetricError(
                f"metric dcr_share needs |holdout| = |train|; got {len(control)} and {len(real)} rows "
                "(size_mismatch: error)"
            )
        if self.max_rows is not None:
            n_ref = min(n_ref, int(self.max_rows))
        if n_ref < 2:
            raise IncomputableMetricError(
                f"metric dcr_share needs at least 2 train and 2 holdout rows; got {len(real)} and {len(control)}"
            )
        seeds = np.random.SeedSequence(seed).spawn(4)
        columns = list(spec.table_columns)
        train, _ = _subsample(real[columns], n_ref, seeds[0])
        holdout_all = canonical_row_order(control[columns])
        holdout, holdout_kept = _subsample(holdout_all, n_ref, seeds[1], ordered=True)
        n_query = len(synthetic) if self.max_rows is None else min(len(synthetic), int(self.max_rows))
        query, _ = _subsample(synthetic[columns], n_query, seeds[2])
        scored = None  # max_query_rows: score a subsample of the rows, binned with all of them
        if self.max_query_rows is not None and int(self.max_query_rows) < len(query):
            query = canonical_row_order(query)
            rng = np.random.default_rng(seeds[3])
            scored = np.sort(rng.choice(len(query), size=int(self.max_query_rows), replace=False))

        if scored is None:
            kth, is_holdout = self._holdout_kth(query, holdout_all, holdout_kept)
        else:  # rows of S absent from H (the usual case) show in the subsample already
            kth, is_holdout = self._holdout_kth(query.iloc[scored], holdout_all, holdout_kept)
            if is_holdout:
                kth = self._holdout_kth(query, holdout_all, holdout_kept)[0][scored]
        codes = _bin_codes([train, holdout, query], spec, int(self.n_bins))
        t_codes, h_codes, s_codes = _split_by_mismatch_rate(codes, len(train), len(holdout))
        if scored is not None:
            s_codes = s_codes[scored]
        d_train = kth_nearest_mismatch(s_codes, t_codes, np.ones(len(s_codes), dtype=np.int8))
        d_holdout = kth_nearest_mismatch(s_codes, h_codes, kth)
        details: dict[str, Any] = {
            "n_bins": int(self.n_bins),
            "n_query": len(s_codes),
            "n_train_used": n_ref,
            "n_holdout_used": n_ref,
            "n_release": len(synthetic),
            "n_train": len(real),
            "n_holdout": len(control),
            "holdout_release": is_holdout,
            "n_second_nearest": int(np.count_nonzero(kth == 2)),
        }
        if n_ref < len(real) or n_ref < len(control) or len(s_codes) < len(synthetic):
            details["subsample_seed"] = seed
        return _results(d_train, d_holdout, details)

    # ------------------------------------------------------------------ helpers
    def _holdout_kth(
        self, query: pd.DataFrame, holdout_all: pd.DataFrame, kept: np.ndarray
    ) -> tuple[np.ndarray, bool]:
        """Per S row, 1 (nearest holdout row) or 2 (second-nearest: its own record is among the
        holdout rows used); and whether S is scored as a holdout release."""
        kth = np.ones(len(query), dtype=np.int8)
        mode = self.holdout_release if self.holdout_release == "auto" else bool(self.holdout_release)
        if mode is False:
            return kth, False
        key_h, key_s = _row_keys(holdout_all, query)
        h_occ = pd.Series(key_h).groupby(key_h).cumcount().to_numpy()
        s_occ = pd.Series(key_s).groupby(key_s).cumcount().to_numpy()
        # The occ-th copy of a row in S is the occ-th copy of that row in (canonically ordered) H.
        h_slots = pd.DataFrame({"key": key_h, "occ": h_occ, "kept": kept})
        matched = pd.DataFrame({"key": key_s, "occ": s_occ}).merge(h_slots, on=["key", "occ"], how="left")
        contained = bool(matched["kept"].notna().all())
        if not contained:
            if mode is True:
                raise IncomputableMetricError(
                    "metric dcr_share: holdout_release is true but the released rows are not holdout rows"
                )
            return kth, False
        kth[matched["kept"].to_numpy(dtype=bool)] = 2
        return kth, True


def _results(d_train: np.ndarray, d_holdout: np.ndarray, details: dict[str, Any]) -> dict[str, MetricResult]:
    """The three outputs from the per-row nearest distances to T and to H."""
    n = len(d_train)
    n_closer = int(np.count_nonzero(d_train < d_holdout))
    n_further = int(np.count_nonzero(d_train > d_holdout))
    n_equal = n - n_closer - n_further
    share = n_closer / n + 0.5 * n_equal / n
    mean_t, mean_h = float(np.mean(d_train)), float(np.mean(d_holdout))
    if mean_h > 0:
        dcr_ratio = mean_t / mean_h
    else:  # every release row has an exact copy in H
        dcr_ratio = 1.0 if mean_t == 0 else math.inf
    share_ratio = share / (1.0 - share) if share < 1.0 else math.inf
    details = {
        **details,
        "n_closer": n_closer,
        "n_further": n_further,
        "n_equal": n_equal,
        "dists_train_mean": mean_t,
        "dists_holdout_mean": mean_h,
    }
    return {
        "share": MetricResult(value=share, details=details),
        "dcr_ratio": MetricResult(value=dcr_ratio, details=details, goal="maximise"),
        "share_ratio": MetricResult(value=share_ratio, details=details, goal="minimise"),
    }


# ---------------------------------------------------------------------- encoding
def _subsample(
    frame: pd.DataFrame, n: int, seed: np.random.SeedSequence, *, ordered: bool = False
) -> tuple[pd.DataFrame, np.ndarray]:
    """``n`` rows of ``frame`` drawn from its canonical row order, and the kept-row mask.

    With ``ordered`` the frame is already in canonical order; the mask refers to its rows.
    """
    kept = np.ones(len(frame), dtype=bool)
    if n >= len(frame):
        return frame.reset_index(drop=True), kept
    base = frame if ordered else canonical_row_order(frame)
    rows = np.sort(np.random.default_rng(seed).choice(len(base), size=n, replace=False))
    kept[:] = False
    kept[rows] = True
    return base.iloc[rows].reset_index(drop=True), kept


def _bin_codes(tables: list[pd.DataFrame], spec: DatasetSpec, n_bins: int) -> np.ndarray:
    """Integer category codes of the concatenated ``tables`` (one column per table column).

    Numeric and datetime columns are replaced by their quantile bin (``pd.qcut`` on the
    concatenation, duplicate edges dropped); categorical values by their label. NA gets a
    code of its own, so equal codes mean equal one-hot vectors.
    """
    whole = pd.concat(tables, ignore_index=True)
    codes = np.empty((len(whole), whole.shape[1]), dtype=np.int32)
    for j, name in enumerate(whole.columns):
        col = whole[name]
        if spec.kind(name) in BINNED_KINDS:
            values = _as_float(col)
            finite = values[~np.isnan(values)]
            if np.unique(finite).size >= 2:
                binned = pd.qcut(values, q=n_bins, labels=False, duplicates="drop")
                codes[:, j] = np.where(np.isnan(binned), -1, binned).astype(np.int32)
            else:  # qcut finds no bin edges; keep the one value apart from NA
                codes[:, j] = np.where(np.isnan(values), -1, 0)
        else:
            codes[:, j] = pd.factorize(_as_labels(col), use_na_sentinel=True)[0]
    return codes


def _split_by_mismatch_rate(codes: np.ndarray, n_train: int, n_holdout: int) -> tuple[np.ndarray, ...]:
    """The T, H and S blocks of ``codes`` with the columns most likely to differ between S and the
    reference rows first (the search stops counting a candidate early; the result is unchanged)."""
    ref, query = codes[: n_train + n_holdout], codes[n_train + n_holdout :]
    rates = []
    for j in range(codes.shape[1]):
        labels, counts_ref = np.unique(ref[:, j], return_counts=True)
        counts_query = pd.Series(query[:, j]).value_counts().reindex(labels, fill_value=0).to_numpy()
        rates.append(1.0 - float(np.dot(counts_ref / len(ref), counts_query / len(query))))
    order = np.argsort(-np.asarray(rates), kind="stable")
    ordered = np.ascontiguousarray(codes[:, order])
    return tuple(np.split(ordered, [n_train, n_train + n_holdout]))


def _row_keys(first: pd.DataFrame, second: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Integer ids of the distinct rows of two tables (equal rows, NA = NA, get equal ids)."""
    whole = pd.concat([first, second], ignore_index=True)
    parts = {name: pd.factorize(_as_labels(whole[name]), use_na_sentinel=True)[0] for name in whole.columns}
    ids = pd.DataFrame(parts).groupby(list(parts), sort=False).ngroup().to_numpy()
    return ids[: len(first)], ids[len(first) :]


def _as_float(col: pd.Series) -> np.ndarray:
    """Numeric or datetime column as float64 (datetime in seconds); unparsable values are NA."""
    if pd.api.types.is_datetime64_any_dtype(col):
        seconds = (col - pd.Timestamp(0, tz=getattr(col.dt, "tz", None))).dt.total_seconds()
        return seconds.to_numpy(dtype=np.float64, na_value=np.nan)
    return pd.to_numeric(col, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)


def _as_labels(col: pd.Series) -> pd.Series:
    """Values as ``str`` labels (object dtype), NA kept as NaN: ``1`` and ``"1"`` are one category."""
    return col.astype(object).where(col.isna(), col.astype(str))


# ---------------------------------------------------------------------- search
def kth_nearest_mismatch(query: np.ndarray, ref: np.ndarray, kth: np.ndarray) -> np.ndarray:
    """Exact k-th smallest mismatch count (Hamming distance on codes) from each query row to ``ref``.

    Parameters
    ----------
    query : numpy.ndarray
        ``(n_query, p)`` integer codes.
    ref : numpy.ndarray
        ``(n_ref, p)`` integer codes, at least ``max(kth)`` rows.
    kth : numpy.ndarray
        Per query row, 1 (nearest) or 2 (second-nearest; equal rows count separately).

    Returns
    -------
    numpy.ndarray
        ``(n_query,)`` int32 distances.

    Notes
    -----
    ``ref`` is sorted by its first two columns and grouped into a two-level prefix tree; a
    group whose prefix already mismatches in as many columns as the current bound is skipped
    whole, and a candidate's count stops once it reaches the bound (branch and bound: exact).
    Put the columns most likely to differ first for speed. Memory is O(n_ref), never
    ``n_query × n_ref``.
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
    return _search(
        np.ascontiguousarray(query),
        ref,
        ref[pair_lo[first_lo], 0].copy(),
        first_lo,
        first_hi,
        ref[pair_lo, 1].copy(),
        pair_lo,
        pair_hi,
        np.asarray(kth, dtype=np.int8),
    )


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
) -> np.ndarray:  # pragma: no cover - compiled
    """Branch-and-bound kernel of :func:`kth_nearest_mismatch`; query rows run in parallel
    (numba's thread count, which the harness sets per trial)."""
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
                        if (best2 if second else best1) == 0:
                            done = True
                            break
        out[i] = best2 if second else best1
    return out
