"""``dcr_share``: holdout-based share of release rows closer to the training than to the holdout split.

Specification: ``spec/metrics.md`` P7, after Platzer, M. & Reutterer, T. (2021), "Holdout-Based
Empirical Assessment of Mixed-Type Synthetic Data", *Frontiers in Big Data* 4:679939 (doi
10.3389/fdata.2021.679939; reference ``mostly-ai/paper-fidelity-accuracy``, ``privacy.ipynb``,
``c = 100``; reference values bundled in ``harness/datasets/files/adult_mostly_synthetic/``).

Departure from the reference (ours, tracker issue 14): the reference needs |T| = |H|. Under
unequal splits (the default holdout split has |T| = 3|H|) we search all of T and all of H and
put each row's score on the reference's scale with its exact null expectation (the *size
correction*, :class:`DcrShare` Notes); with |T| = |H| every value is the reference's. The
pre-change behaviour (subsample the larger split) stays available as ``size_mismatch:
subsample``.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from scipy.special import gammaln

from harness.encoding import canonical_row_order
from harness.errors import ConfigError, IncomputableMetricError
from harness.metric import BaseMetric, Family, Goal, MetricResult
from harness.params import check_choice, check_int
from harness.spec import DatasetSpec
from metrics.privacy.dcr_kernel import kth_nearest_mismatch, nearest_mismatch_ties

__all__ = ["DcrShare", "calibrated_scores", "kth_nearest_mismatch", "null_share"]

SIZE_MISMATCH_MODES: tuple[str, ...] = ("calibrate", "subsample", "error")
BINNED_KINDS: frozenset[str] = frozenset({"continuous", "integer", "datetime"})


class DcrShare(BaseMetric):
    """Share of release rows whose nearest training record is closer than their nearest holdout record.

    ``spec/metrics.md`` P7, as the reference notebook (Platzer & Reutterer 2021):

    1. T, H and S are concatenated; every numeric (and datetime) column is cut into
       ``n_bins`` quantile bins of the concatenation (``pd.qcut(q=n_bins,
       duplicates="drop")``); every column is then categorical, NA a category of its own.
    2. d(x, y) = number of columns on which x and y differ (the reference's squared L2 / 2
       between one-hot vectors).
    3. For each s in S: d_T(s) = exact min over T, d_H(s) = exact min over H.
    4. raw share r = mean[d_T < d_H] + ½·mean[d_T = d_H].

    With |T| = |H| the outputs are the reference's (``share`` = r). With |T| ≠ |H| (default
    ``size_mismatch: calibrate``) all of T and all of H are searched and each row's score
    x(s) ∈ {1, ½, 0} is put on the reference's scale with its exact null expectation p0(s)
    (Notes): ``share`` = mean of ½ + ½·(x(s) − p0(s))/(1 − p0(s)), clipped to [0, 1].

    Outputs (result ``variant``):

    ``share`` (headline)
        goal ``target`` 0.5: a release drawn independently of T scores 0.5 in expectation
        under any |T|/|H|, a verbatim copy of T about 1; higher means the release sits closer
        to the training records than new real records do (reference flip-10 % copies: 0.94).
    ``share_raw``
        r, with ``baseline`` = p0 = mean p0(s), its expectation for a release drawn
        independently of T with these split sizes (goal ``none``; equal to ``share``, baseline
        0.5, when |T| = |H|).
    ``dcr_ratio``
        mean d_T / mean d_H on equal-size pools (goal ``maximise``: below 1 the release is
        closer to T than to H; 0/0, a release copying rows present in both, counts as 1; x/0
        is ``inf``). Under |T| ≠ |H| the larger split is replaced, for this ratio only, by a
        seeded subsample of the smaller one's size (the reference's size-matched definition,
        about 1 for an independent release; a copy's source is then kept with probability
        min/max size only, so copies score well above 0: use ``share`` to detect them).
    ``share_ratio``
        share / (1 − share) of the headline share (goal ``minimise``; 1 for an independent
        release under any sizes, ``inf`` when share = 1).

    ``details`` hold ``n_closer`` / ``n_further`` / ``n_equal`` (the reference's counts, of r),
    ``share_raw``, ``baseline`` (p0), the mean distances of ``dcr_ratio``, the split sizes
    used, the subsample seed and whether the release was scored as a holdout release.

    Parameters
    ----------
    n_bins : int
        Quantile bins per numeric column (the reference's ``c``; >= 2).
    size_mismatch : {"calibrate", "subsample", "error"}
        What to do when |T| ≠ |H| (with unequal sizes the larger split offers closer
        neighbours by chance alone). ``"calibrate"`` (default): all of T and H, size-corrected
        share (Notes). ``"subsample"``: the pre-change behaviour, the reference's equal-size
        protocol: the larger of T and H is replaced by a seeded subsample of the smaller one's
        size, recorded in ``details``; a copied row's training source is then often missing
        (a verbatim copy of T scores about 0.67 under |T| = 3|H|). ``"error"``: raise
        :class:`IncomputableMetricError`. All three agree when |T| = |H|.
    holdout_release : {"auto", True, False}
        Whether S consists of holdout records (the reference's ``is_val``, the "holdout" row
        of its tables). Then a row's own record is not its holdout neighbour: it is left out
        of H when it is among the holdout rows used (duplicates of it still count), i.e. d_H
        is the distance to the second-nearest holdout row. ``"auto"`` (default): true exactly
        when every row of S occurs in H at least as often as in S; ``True`` requires it
        (else :class:`IncomputableMetricError`).
    max_rows : int or None
        If set, S, T and H are each replaced by a seeded subsample of at most this many rows
        (with ``subsample``: T and H both to the smaller size), recorded in ``details``; the
        size correction uses the sizes kept. The search is O(|S|·(|T| + |H|)·p). Subsampling
        T drops the training source of copied rows (a copy of T then scores like an
        independent release): prefer ``max_query_rows``.
    max_query_rows : int or None
        If set, the distances are computed for a seeded subsample of at most this many rows
        of S only; the binning still uses every row of T, H and S, so each scored row gets
        exactly its full-computation score and p0(s), and the subsample's shares and p0
        estimate the full ones without bias (standard error of r at most
        0.5/√max_query_rows; that of ``share`` about 1/(2(1 − p0)) times larger when
        |T| > |H|, 2 at |T| = 3|H|), at a cost proportional to ``max_query_rows`` (quick
        profiles; ``reproductions.md`` §11).

    Notes
    -----
    Size correction (ours; not in the reference). For a release row s let m = min(d_T, d_H)
    and K the number of reference rows (of all N = |T| + |H|) at distance m. If s is drawn
    independently of T (s, T and H i.i.d.), the T/H labels of the N reference rows are
    exchangeable given s, so the K nearest rows are a uniform K-subset of them: x(s) is 1
    (all K in T) with probability P_T = C(|T|, K)/C(N, K), 0 with P_H = C(|H|, K)/C(N, K)
    and ½ otherwise. Its exact conditional null expectation is p0(s) = ½ + ½·(P_T − P_H)
    (:func:`null_share`); |T| = |H| gives ½ for every s (symmetry). The per-row map
    y(s) = ½ + ½·(x(s) − p0(s))/(1 − p0(s)) (:func:`calibrated_scores`) is linear, so
    E[y(s)] = ½ exactly under the null for every row, whatever the sizes and ties, and
    y(s) = 1 for a row closer to T: a release of which a fraction λ of the rows sit on
    their training records and the rest are independent scores 0.5 + λ/2 in expectation,
    as with equal splits. A row closer to H scores below 0 when p0(s) > ½ (the clip to
    [0, 1] acts on the mean only, so a release copying H scores 0 when |T| >= |H|, and
    ½ − ½·p0/(1 − p0) > 0 otherwise). The price is noise: the slope 1/(2(1 − p0(s))) is 2
    for K = 1 and |T| = 3|H|, so the share of a 200-row release varies about twice as much as
    r. (A map of the mean, r → 0.5·r/p0 below p0 and 0.5 + 0.5·(r − p0)/(1 − p0) above, is
    biased upwards by the noise crossing its kink: German credit's 200-row test split, 20
    split seeds, scores 0.513 at |T| = 3|H| and 0.519 at 7|H| with it, 0.506 and 0.508 with
    the per-row map; the per-row map also reproduces the equal-split share of releases
    mixing copies and new rows, which the map of the mean does not when K varies.) For a
    holdout release the row's own record leaves |H| − 1 candidates; p0(s) still uses |H|
    (the value of a release drawn fresh from the population, which the holdout row stands
    for, and the reference's convention): the difference is O(1/|H|), and the reference's
    holdout row stays exact when |T| = |H|.

    Subsamples are drawn from the tables' canonical row order (content-hash order), so the
    value does not depend on the order of the rows. The exact nearest-neighbour searches run
    in the compiled kernels of :mod:`metrics.privacy.dcr_kernel` (memory O(|T| + |H| + |S|),
    never an |S| × |T| matrix). With |T| ≠ |H| the smaller split is searched first
    (exact), then the larger one up to that distance while counting the ties at the
    minimum, then the smaller one's ties where it holds the minimum, then the size-matched
    pool of ``dcr_ratio`` from the distance already known. On Adult's default split (one
    thread) that takes 1.0× the subsampling protocol's time for a copy of T, 1.6× for SMOTE
    and 2.7× for an independent release (3.5, 8.1 and 3.8 s); 1.2–1.6× at 4,000 rows.
    Deviation from the reference, degenerate inputs only: a numeric column with fewer than
    two distinct values (``pd.qcut`` then returns no bins and the reference would merge its
    value with NA) keeps its value and NA apart.
    """

    name: ClassVar[str] = "dcr_share"
    family: ClassVar[Family] = "privacy"
    goal: ClassVar[Goal] = "target"
    target_value: ClassVar[float | None] = 0.5
    min_value: ClassVar[float] = 0.0
    max_value: ClassVar[float] = math.inf  # shares in [0, 1]; the two ratios are unbounded
    needs_control: ClassVar[bool] = True

    def __init__(
        self,
        n_bins: int = 100,
        size_mismatch: str = "calibrate",
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
        if len(real) != len(control) and self.size_mismatch == "error":
            raise IncomputableMetricError(
                f"metric dcr_share needs |holdout| = |train|; got {len(control)} and {len(real)} rows "
                "(size_mismatch: error)"
            )
        cap = len(real) + len(control) if self.max_rows is None else int(self.max_rows)
        n_train, n_holdout = min(len(real), cap), min(len(control), cap)
        if self.size_mismatch == "subsample":
            n_train = n_holdout = min(n_train, n_holdout)
        if min(n_train, n_holdout) < 2:
            raise IncomputableMetricError(
                f"metric dcr_share needs at least 2 train and 2 holdout rows; got {len(real)} and {len(control)}"
            )
        seeds = np.random.SeedSequence(seed).spawn(5)
        columns = list(spec.table_columns)
        train, _ = _subsample(real[columns], n_train, seeds[0])
        holdout_all = canonical_row_order(control[columns])
        holdout, holdout_kept = _subsample(holdout_all, n_holdout, seeds[1], ordered=True)
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
        details: dict[str, Any] = {
            "n_bins": int(self.n_bins),
            "size_mismatch": self.size_mismatch,
            "n_query": len(s_codes),
            "n_train_used": n_train,
            "n_holdout_used": n_holdout,
            "n_release": len(synthetic),
            "n_train": len(real),
            "n_holdout": len(control),
            "holdout_release": is_holdout,
            "n_second_nearest": int(np.count_nonzero(kth == 2)),
        }
        if n_train < len(real) or n_holdout < len(control) or len(s_codes) < len(synthetic):
            details["subsample_seed"] = seed
        if n_train == n_holdout:  # the reference's protocol; p0(s) = 1/2 for every row
            d_train = kth_nearest_mismatch(s_codes, t_codes, np.ones(len(s_codes), dtype=np.int8))
            d_holdout = kth_nearest_mismatch(s_codes, h_codes, kth)
            return _results(d_train, d_holdout, None, None, details)
        # The smaller split first (exact distances), then the larger one up to those (with the
        # ties at the minimum), then the ties of the smaller one where it holds the minimum.
        ones = np.ones(len(s_codes), dtype=np.int8)
        train_small = n_train < n_holdout
        small, large = (t_codes, h_codes) if train_small else (h_codes, t_codes)
        kth_small, skip_large = (ones, kth == 2) if train_small else (kth, np.zeros_like(kth))
        d_small = kth_nearest_mismatch(s_codes, small, kth_small)
        d_large, k_large = nearest_mismatch_ties(s_codes, large, skip_large, d_small)  # at most d_small + 1
        near = np.flatnonzero(d_small <= d_large)
        k_small = np.zeros(len(s_codes), dtype=np.int64)
        k_small[near] = nearest_mismatch_ties(s_codes[near], small, kth_small[near] == 2, d_small[near])[1]
        ties = np.where(d_large < d_small, k_large, k_small) + np.where(d_large == d_small, k_large, 0)
        d_train, d_holdout = (d_small, d_large) if train_small else (d_large, d_small)
        baseline = null_share(ties, n_train, n_holdout)
        # dcr_ratio on equal-size pools: the larger split cut to the smaller one's size (a subset:
        # its distances are at least d_large, which ends each search early)
        rng = np.random.default_rng(seeds[4])
        details["subsample_seed"] = seed
        if not train_small:
            rows = _canonical_positions(train)[np.sort(rng.choice(n_train, size=n_holdout, replace=False))]
            matched = (kth_nearest_mismatch(s_codes, t_codes[rows], ones, floor=d_large), d_small)
        else:
            rows = np.sort(rng.choice(n_holdout, size=n_train, replace=False))
            kept = np.zeros(len(holdout_all), dtype=bool)
            kept[np.flatnonzero(holdout_kept)[rows]] = True
            kth_matched = ones
            if is_holdout:  # own records now kept: the occ-th copy of a row in S is its occ-th in H
                kth_matched = self._holdout_kth(query, holdout_all, kept)[0]
                kth_matched = kth_matched if scored is None else kth_matched[scored]
            matched = (d_small, kth_nearest_mismatch(s_codes, h_codes[rows], kth_matched, floor=d_large))
        return _results(d_train, d_holdout, baseline, matched, details)

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


def null_share(count: np.ndarray, n_train: int, n_holdout: int) -> np.ndarray:
    """Per-row expected score of a release row drawn independently of T (the size correction's p0(s)).

    Parameters
    ----------
    count : numpy.ndarray
        Per release row, K >= 1: the number of reference rows (T and H together) at the row's
        nearest distance min(d_T, d_H).
    n_train, n_holdout : int
        |T| and |H|.

    Returns
    -------
    numpy.ndarray
        ½ + ½·(P_T − P_H) with P_T = C(|T|, K)/C(N, K) and P_H = C(|H|, K)/C(N, K),
        N = |T| + |H|: under exchangeable T/H labels the K nearest rows are a uniform K-subset
        of the N, and the row scores 1 when all are in T, 0 when all are in H, ½ otherwise.
        Exactly ½ when |T| = |H|.
    """
    k = np.asarray(count, dtype=np.float64)
    n = n_train + n_holdout
    return 0.5 + 0.5 * (_all_within(k, n_train, n) - _all_within(k, n_holdout, n))


def _all_within(k: np.ndarray, m: int, n: int) -> np.ndarray:
    """C(m, k)/C(n, k): probability that k of n rows drawn without replacement all lie in a set of m."""
    out = np.zeros_like(k)
    ok = k <= m
    kk = k[ok]
    out[ok] = np.exp(gammaln(m + 1.0) - gammaln(m - kk + 1.0) - gammaln(n + 1.0) + gammaln(n - kk + 1.0))
    return out


def calibrated_scores(score: np.ndarray, baseline: np.ndarray) -> np.ndarray:
    """Per-row scores on the reference's scale: ½ + ½·(score − p0(s))/(1 − p0(s)).

    Linear in the score with 1 → 1 and p0(s) → ½, so a row drawn independently of T averages
    exactly ½ and a row closer to T than to H scores 1, whatever the split sizes and ties; a row
    closer to H scores ½ − ½·p0(s)/(1 − p0(s)) (0 for p0(s) = ½, −1 for K = 1 and |T| = 3|H|).
    The identity when every p0(s) is ½.

    Parameters
    ----------
    score : numpy.ndarray
        Per-row raw scores: 1 (d_T < d_H), ½ (equal) or 0.
    baseline : numpy.ndarray
        Per-row p0(s) (:func:`null_share`), in (0, 1).
    """
    return 0.5 + 0.5 * (score - baseline) / (1.0 - baseline)


def _results(
    d_train: np.ndarray,
    d_holdout: np.ndarray,
    baseline: np.ndarray | None,
    matched: tuple[np.ndarray, np.ndarray] | None,
    details: dict[str, Any],
) -> dict[str, MetricResult]:
    """The outputs from the per-row nearest distances to T and to H.

    ``d_train`` and ``d_holdout`` need only compare right (the larger split's may be capped);
    ``baseline``: per-row p0(s) (None: ½ for every row, |T| = |H|); ``matched``: the distances
    to the equal-size pools of ``dcr_ratio`` and of the mean distances in ``details`` (None:
    ``d_train`` and ``d_holdout``).
    """
    n = len(d_train)
    n_closer = int(np.count_nonzero(d_train < d_holdout))
    n_further = int(np.count_nonzero(d_train > d_holdout))
    n_equal = n - n_closer - n_further
    raw = n_closer / n + 0.5 * n_equal / n
    if baseline is None:  # |T| = |H|: the reference's share
        p0, share = 0.5, raw
    else:
        score = np.where(d_train < d_holdout, 1.0, np.where(d_train == d_holdout, 0.5, 0.0))
        p0 = float(np.mean(baseline))
        share = min(max(float(np.mean(calibrated_scores(score, baseline))), 0.0), 1.0)
    pool_train, pool_holdout = (d_train, d_holdout) if matched is None else matched
    mean_t, mean_h = float(np.mean(pool_train)), float(np.mean(pool_holdout))
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
        "share_raw": raw,
        "baseline": p0,
        "dists_train_mean": mean_t,
        "dists_holdout_mean": mean_h,
    }
    return {
        "share": MetricResult(value=share, details=details),
        "share_raw": MetricResult(value=raw, baseline=p0, details=details, goal="none"),
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


def _canonical_positions(frame: pd.DataFrame) -> np.ndarray:
    """Row positions of ``frame`` in its canonical order (:func:`canonical_row_order`)."""
    return np.argsort(pd.util.hash_pandas_object(frame, index=False).to_numpy(), kind="stable")
