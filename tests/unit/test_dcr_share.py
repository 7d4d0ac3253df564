"""dcr_share (spec/metrics.md P7): hand-computed shares, the reference one-hot procedure,
holdout releases, the size correction under unequal splits (hand-computed, exhaustive and on
real data), params, and the R-HOLDOUT reference values (reproductions.md §11)."""

from __future__ import annotations

import functools
import math
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import yaml

from harness.datasets import DATA_ROOT, load_dataset, load_spec
from harness.errors import ConfigError, IncomputableMetricError
from harness.instantiate import build_metric
from harness.metric import BaseMetric, MetricResult, as_outputs
from harness.seeding import derive_seed
from harness.spec import DatasetSpec
from harness.splits import SplitConfig, make_split
from metrics.privacy.dcr_kernel import nearest_mismatch_ties
from metrics.privacy.dcr_share import DcrShare, calibrated_scores, kth_nearest_mismatch, null_share

CAT_SPEC = DatasetSpec.from_dict(
    {"name": "abc", "columns": {"a": "categorical", "b": "categorical", "c": "categorical"}}
)
MIXED_SPEC = DatasetSpec.from_dict(
    {"name": "mixed", "columns": {"v": "continuous", "n": "integer", "c": "categorical", "d": "categorical"}}
)
REPO = Path(__file__).resolve().parents[2]
HOLDOUT_DIR = DATA_ROOT / "adult_mostly_synthetic"


def _frame(rows: list[str]) -> pd.DataFrame:
    return pd.DataFrame([list(r) for r in rows], columns=["a", "b", "c"])


def _run(metric: BaseMetric, *args: Any, **kwargs: Any) -> dict[str, MetricResult]:
    return as_outputs(metric.compute(*args, **kwargs))


def _values(out: dict[str, MetricResult]) -> dict[str, float]:
    return {k: r.value for k, r in out.items()}


def test_hand_computed_share_ratios_and_counts() -> None:
    train, holdout = _frame(["xxx", "yyy"]), _frame(["xxy", "zzz"])
    release = _frame(["xxx", "zzy", "yxy", "yyy"])
    # d_T = 0, 2, 1, 0 ; d_H = 1, 1, 1, 2 -> closer, further, equal, closer
    out = _run(DcrShare(), train, release, CAT_SPEC, control=holdout, seed=0)
    share = 2 / 4 + 0.5 * 1 / 4
    assert _values(out) == pytest.approx(
        {"share": share, "share_raw": share, "dcr_ratio": 0.75 / 1.25, "share_ratio": 0.625 / 0.375}
    )
    assert out["share_raw"].baseline == 0.5 and out["share_raw"].goal == "none"
    details = out["share"].details
    assert (details["n_closer"], details["n_further"], details["n_equal"]) == (2, 1, 1)
    assert details["dists_train_mean"] == 0.75 and details["dists_holdout_mean"] == 1.25
    assert details["holdout_release"] is False and "subsample_seed" not in details
    assert DcrShare.goal == "target" and DcrShare.target_value == 0.5
    assert out["dcr_ratio"].goal == "maximise" and out["share_ratio"].goal == "minimise"
    assert out["share"].goal is None


def test_share_one_and_zero_distance_ratios() -> None:
    train, holdout = _frame(["xxx", "yyy"]), _frame(["zzz", "zzz"])
    out = _run(DcrShare(), train, train.copy(), CAT_SPEC, control=holdout, seed=0)
    assert out["share"].value == 1.0
    assert out["share_ratio"].value == float("inf")
    assert out["dcr_ratio"].value == 0.0
    both = _frame(["xxx", "yyy"])  # every release row is in T and in H: 0/0 counts as 1
    out = _run(DcrShare(holdout_release=False), both, both.copy(), CAT_SPEC, control=both.copy(), seed=0)
    assert out["dcr_ratio"].value == 1.0 and out["share"].value == 0.5


def test_numeric_columns_are_quantile_binned_on_the_concatenation() -> None:
    spec = DatasetSpec.from_dict({"name": "v", "columns": {"v": "continuous", "c": "categorical"}})
    train = pd.DataFrame({"v": [1.0, 2.0], "c": ["k", "k"]})
    holdout = pd.DataFrame({"v": [3.0, 4.0], "c": ["k", "k"]})
    release = pd.DataFrame({"v": [1.5, 2.4, 3.5], "c": ["k", "k", "k"]})
    # 2 bins of the 7 values: median 2.4 -> {1, 1.5, 2, 2.4} | {3, 3.5, 4}
    out = _run(DcrShare(n_bins=2), train, release, spec, control=holdout, seed=0)
    assert out["share"].details["n_closer"] == 2 and out["share"].details["n_further"] == 1
    # one bin per value would leave only exact matches: 1.5, 2.4 and 3.5 match nothing -> all ties
    out = _run(DcrShare(n_bins=100), train, release, spec, control=holdout, seed=0)
    assert out["share"].details["n_equal"] == 3


def _reference_share(
    train: pd.DataFrame,
    holdout: pd.DataFrame,
    release: pd.DataFrame,
    numeric: list[str],
    is_holdout: bool,
    c: int,
) -> tuple[int, int, int, float, float]:
    """The reference procedure written out: qcut, one-hot (NA dummy), squared L2 / 2, brute force."""
    whole = pd.concat([train, holdout, release], ignore_index=True)
    for col in numeric:
        whole[col] = pd.qcut(pd.to_numeric(whole[col], errors="coerce"), q=c, duplicates="drop")
    hot = pd.get_dummies(whole, dtype=float, dummy_na=True).to_numpy()
    t, h, s = np.split(hot, [len(train), len(train) + len(holdout)])
    d_t = (((s[:, None, :] - t[None, :, :]) ** 2).sum(axis=2) / 2).min(axis=1)
    d_h_all = np.sort(((s[:, None, :] - h[None, :, :]) ** 2).sum(axis=2) / 2, axis=1)
    d_h = d_h_all[:, 1 if is_holdout else 0]
    return (
        int(np.sum(d_t < d_h)),
        int(np.sum(d_t > d_h)),
        int(np.sum(d_t == d_h)),
        float(d_t.mean()),
        float(d_h.mean()),
    )


def _mixed_table(n: int, rng: np.random.Generator) -> pd.DataFrame:
    frame = pd.DataFrame(
        {
            "v": np.round(rng.normal(size=n), 1),
            "n": rng.integers(0, 6, n).astype(float),
            "c": rng.choice(np.array(["p", "q", "r", None], dtype=object), n),
            "d": rng.choice(np.array(["u", "w"], dtype=object), n),
        }
    )
    frame.loc[rng.random(n) < 0.1, "v"] = np.nan
    return frame


@pytest.mark.parametrize("n_bins", [3, 100])
def test_matches_the_reference_one_hot_procedure(n_bins: int) -> None:
    rng = np.random.default_rng(n_bins)
    train, holdout, release = _mixed_table(60, rng), _mixed_table(60, rng), _mixed_table(80, rng)
    out = _run(DcrShare(n_bins=n_bins), train, release, MIXED_SPEC, control=holdout, seed=0)
    closer, further, equal, mean_t, mean_h = _reference_share(
        train, holdout, release, ["v", "n"], False, n_bins
    )
    details = out["share"].details
    assert (details["n_closer"], details["n_further"], details["n_equal"]) == (closer, further, equal)
    assert out["share"].value == pytest.approx(closer / 80 + 0.5 * equal / 80)
    assert out["dcr_ratio"].value == pytest.approx(mean_t / mean_h)
    # the holdout row of the reference tables: S = H, second-nearest holdout neighbour
    out = _run(
        DcrShare(n_bins=n_bins), train, holdout.sample(frac=1.0, random_state=1), MIXED_SPEC, control=holdout
    )
    closer, further, equal, mean_t, mean_h = _reference_share(
        train, holdout, holdout, ["v", "n"], True, n_bins
    )
    details = out["share"].details
    assert details["holdout_release"] is True and details["n_second_nearest"] == 60
    assert (details["n_closer"], details["n_further"], details["n_equal"]) == (closer, further, equal)
    assert details["dists_holdout_mean"] == pytest.approx(mean_h)


def test_holdout_release_modes() -> None:
    rng = np.random.default_rng(7)
    train, holdout = _mixed_table(40, rng), _mixed_table(40, rng)
    release = holdout.iloc[:25]
    auto = _run(DcrShare(), train, release, MIXED_SPEC, control=holdout, seed=0)
    forced = _run(DcrShare(holdout_release=True), train, release, MIXED_SPEC, control=holdout, seed=0)
    off = _run(DcrShare(holdout_release=False), train, release, MIXED_SPEC, control=holdout, seed=0)
    assert _values(auto) == _values(forced)
    assert auto["share"].details["holdout_release"] is True
    assert off["share"].details["holdout_release"] is False
    assert off["share"].details["dists_holdout_mean"] == 0.0  # each row finds itself
    assert off["share"].value < auto["share"].value
    synthetic = _mixed_table(25, rng)
    with pytest.raises(IncomputableMetricError, match="holdout_release"):
        _run(DcrShare(holdout_release=True), train, synthetic, MIXED_SPEC, control=holdout, seed=0)


def test_size_mismatch_subsample_keeps_the_pre_change_protocol_or_raises() -> None:
    rng = np.random.default_rng(11)
    train, holdout, release = _mixed_table(50, rng), _mixed_table(30, rng), _mixed_table(40, rng)
    metric = DcrShare(size_mismatch="subsample")
    out = _run(metric, train, release, MIXED_SPEC, control=holdout, seed=4)
    details = out["share"].details
    assert details["n_train_used"] == details["n_holdout_used"] == 30
    assert details["n_train"] == 50 and details["subsample_seed"] == 4
    assert out["share"].value == out["share_raw"].value and out["share_raw"].baseline == 0.5
    again = _run(metric, train, release, MIXED_SPEC, control=holdout, seed=4)
    assert _values(again) == _values(out)
    calibrated = _run(DcrShare(), train, release, MIXED_SPEC, control=holdout, seed=4)["share"].details
    assert (calibrated["n_train_used"], calibrated["n_holdout_used"]) == (50, 30)
    with pytest.raises(IncomputableMetricError, match=r"\|holdout\| = \|train\|"):
        _run(DcrShare(size_mismatch="error"), train, release, MIXED_SPEC, control=holdout, seed=0)
    # a holdout release larger than |T|: H is cut to |T| rows, each S row whose own record stays
    # in H uses its second-nearest holdout neighbour
    big_holdout = _mixed_table(70, rng)
    out = _run(metric, train, big_holdout, MIXED_SPEC, control=big_holdout, seed=0)
    assert out["share"].details["holdout_release"] is True
    assert out["share"].details["n_second_nearest"] == 50


def test_row_order_invariance_with_subsampling() -> None:
    rng = np.random.default_rng(5)
    train, holdout, release = _mixed_table(45, rng), _mixed_table(35, rng), _mixed_table(50, rng)
    metric = DcrShare(max_rows=30)
    base = _run(metric, train, release, MIXED_SPEC, control=holdout, seed=2)
    assert base["share"].details["n_query"] == 30 and base["share"].details["n_train_used"] == 30

    def shuffle(frame: pd.DataFrame, k: int) -> pd.DataFrame:
        return frame.sample(frac=1.0, random_state=k).reset_index(drop=True)

    moved = _run(
        metric, shuffle(train, 1), shuffle(release, 2), MIXED_SPEC, control=shuffle(holdout, 3), seed=2
    )
    assert _values(moved) == _values(base)


@pytest.mark.parametrize("n_cols", [1, 2, 5])
def test_kth_nearest_mismatch_equals_brute_force(n_cols: int) -> None:
    rng = np.random.default_rng(n_cols)
    query, ref = rng.integers(0, 3, (200, n_cols)), rng.integers(0, 3, (150, n_cols))
    kth = rng.integers(1, 3, 200)
    distances = np.sort((query[:, None, :] != ref[None, :, :]).sum(axis=2), axis=1)
    expected = distances[np.arange(200), kth - 1]
    np.testing.assert_array_equal(kth_nearest_mismatch(query, ref, kth), expected)


def test_identity_release_is_flagged() -> None:
    rng = np.random.default_rng(3)
    train, holdout = _mixed_table(60, rng), _mixed_table(60, rng)
    out = _run(DcrShare(), train, train.copy(), MIXED_SPEC, control=holdout, seed=0)
    assert out["share"].value > 0.9


def test_needs_control() -> None:
    with pytest.raises(IncomputableMetricError, match="control"):
        _run(DcrShare(), _frame(["xxx"]), _frame(["xxx"]), CAT_SPEC, control=None, seed=0)


@pytest.mark.parametrize(
    ("params", "key"),
    [
        ({"n_bins": 1}, "`n_bins`"),
        ({"n_bins": "100"}, "`n_bins`"),
        ({"size_mismatch": "drop"}, "`size_mismatch`"),
        ({"holdout_release": "yes"}, "`holdout_release`"),
        ({"holdout_release": None}, "`holdout_release`"),
        ({"max_rows": 1}, "`max_rows`"),
        ({"max_rows": 2.5}, "`max_rows`"),
        ({"max_query_rows": 0}, "`max_query_rows`"),
    ],
)
def test_bad_params_raise_one_line_config_error(params: dict, key: str) -> None:
    with pytest.raises(ConfigError) as info:
        DcrShare(**params).validate_params()
    assert key in str(info.value) and "\n" not in str(info.value)


def test_yaml_builds() -> None:
    metric = build_metric("dcr_share")
    assert isinstance(metric, DcrShare)
    assert metric.get_params() == {
        "n_bins": 100,
        "size_mismatch": "calibrate",
        "holdout_release": "auto",
        "max_rows": None,
        "max_query_rows": None,
    }


# ---------------------------------------------------------------------- size correction (|T| != |H|)
def _brute_force(
    train: pd.DataFrame,
    holdout: pd.DataFrame,
    release: pd.DataFrame,
    numeric: list[str],
    own: np.ndarray,
    c: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per release row: raw score, K (rows at min(d_T, d_H)) and p0 with math.comb; ``own[i]``:
    the holdout row that is release row i's own record (-1: none), left out of its H distances."""
    whole = pd.concat([train, holdout, release], ignore_index=True)
    for col in numeric:
        whole[col] = pd.qcut(pd.to_numeric(whole[col], errors="coerce"), q=c, duplicates="drop")
    hot = pd.get_dummies(whole, dtype=float, dummy_na=True).to_numpy()
    t, h, s = np.split(hot, [len(train), len(train) + len(holdout)])
    d_t = ((s[:, None, :] - t[None, :, :]) ** 2).sum(axis=2) / 2
    d_h = ((s[:, None, :] - h[None, :, :]) ** 2).sum(axis=2) / 2
    rows = np.flatnonzero(own >= 0)
    d_h[rows, own[rows]] = np.inf
    m_t, m_h = d_t.min(axis=1), d_h.min(axis=1)
    score = np.where(m_t < m_h, 1.0, np.where(m_t == m_h, 0.5, 0.0))
    m = np.minimum(m_t, m_h)
    k = (d_t == m[:, None]).sum(axis=1) + (d_h == m[:, None]).sum(axis=1)
    n_t, n_h = len(train), len(holdout)
    p0 = np.array([0.5 + 0.5 * (math.comb(n_t, j) - math.comb(n_h, j)) / math.comb(n_t + n_h, j) for j in k])
    return score, k, p0


def test_null_share_and_calibrated_scores_by_hand() -> None:
    # |T| = 3, |H| = 1, N = 4: K = 1 -> 3/4 in T: p0 = 1/2 + 1/2 (3/4 - 1/4) = 3/4; K = 2 -> P_T = 3/6;
    # K = 3 -> P_T = 1/4; K = 4 -> no side holds all: p0 = 1/2
    np.testing.assert_allclose(null_share(np.array([1, 2, 3, 4]), 3, 1), [0.75, 0.75, 0.625, 0.5], rtol=1e-12)
    # |T| = 6, |H| = 2: K = 2 -> P_T = 15/28, P_H = 1/28; K = 3 -> P_T = 20/56; K = 8 -> 1/2
    expected = [0.75, 0.75, 0.5 + 0.5 * 20 / 56, 0.5 + 0.5 * 15 / 70, 0.5]
    np.testing.assert_allclose(null_share(np.array([1, 2, 3, 4, 8]), 6, 2), expected, rtol=1e-12)
    np.testing.assert_array_equal(null_share(np.arange(1, 50), 40, 40), np.full(49, 0.5))
    # a row closer to T scores 1, a tie at p0 = 3/4 scores 0, a row closer to H scores -1
    np.testing.assert_allclose(
        calibrated_scores(np.array([1.0, 0.5, 0.0, 0.5]), np.array([0.75, 0.75, 0.75, 0.5])), [1, 0, -1, 0.5]
    )


def test_size_corrected_share_with_ties_by_hand() -> None:
    train = _frame_4(["aaaa", "aaab", "bbbc", "wwwx", "wwwy", "wwwz"])
    holdout = _frame_4(["bbbe", "vvvv"])
    release = _frame_4(["bbbc", "aaac", "bbbd", "bbbe", "bbaa", "dddd"])
    # |T| = 6, |H| = 2, N = 8; p0(K) = 1/2 + 1/2 (C(6, K) - C(2, K)) / C(8, K)
    # row   d_T (T rows)        d_H (H rows)   score  K  p0                      calibrated score
    # bbbc  0 (bbbc)            1 (bbbe)       1      1  1/2 + 1/2 (6 - 2)/8 = 3/4   1
    # aaac  1 (aaaa, aaab)      4              1      2  1/2 + 1/2 (15 - 1)/28 = 3/4 1
    # bbbd  1 (bbbc)            1 (bbbe)       1/2    2  3/4                     1/2 + 1/2 (1/2 - 3/4)/(1/4) = 0
    # bbbe  1 (bbbc)            0 (bbbe)       0      1  3/4                     1/2 - 1/2 (3/4)/(1/4) = -1
    # bbaa  2 (aaaa, bbbc)      2 (bbbe)       1/2    3  1/2 + 1/2 20/56 = 19/28 1/2 - 1/2 (5/28)/(9/28) = 2/9
    # dddd  4 (all six)         4 (both)       1/2    8  1/2                     1/2
    out = _run(DcrShare(), train, release, CAT_4_SPEC, control=holdout, seed=0)
    details = out["share"].details
    assert (details["n_closer"], details["n_further"], details["n_equal"]) == (2, 1, 3)
    assert details["holdout_release"] is False
    assert out["share_raw"].value == pytest.approx(3.5 / 6)
    assert out["share_raw"].baseline == pytest.approx((4 * 0.75 + 19 / 28 + 0.5) / 6) == details["baseline"]
    assert out["share"].value == pytest.approx((1 + 1 + 0 - 1 + 2 / 9 + 0.5) / 6)  # 31/108
    assert out["share_ratio"].value == pytest.approx(31 / 77)
    # dcr_ratio: T cut to |H| = 2 seeded rows; its mean distances are those of the details
    assert out["dcr_ratio"].value == pytest.approx(
        details["dists_train_mean"] / details["dists_holdout_mean"]
    )
    assert details["n_train_used"] == 6 and details["n_holdout_used"] == 2 and details["subsample_seed"] == 0


CAT_4_SPEC = DatasetSpec.from_dict({"name": "abcd", "columns": {k: "categorical" for k in "abcd"}})


def _frame_4(rows: list[str]) -> pd.DataFrame:
    return pd.DataFrame([list(r) for r in rows], columns=list("abcd"))


def test_baseline_is_the_exact_mean_over_every_t_h_labelling() -> None:
    # the null: labels of the reference rows exchangeable given S; enumerate every labelling of
    # six reference rows (with ties) as 4 T + 2 H: the mean raw share is the baseline exactly
    pool = _frame_4(["aaaa", "aaab", "abbb", "bbbb", "aaab", "bbba"])
    release = _frame_4(["aaaa", "aabb", "bbbb", "abab", "cccc", "aaba"])
    raws: list[float] = []
    baselines: list[float] = []
    for h_rows in combinations(range(6), 2):
        t_rows = [i for i in range(6) if i not in h_rows]
        out = _run(
            DcrShare(), pool.iloc[t_rows], release, CAT_4_SPEC, control=pool.iloc[list(h_rows)], seed=0
        )
        raws.append(out["share_raw"].value)
        baselines.append(float(out["share_raw"].baseline or math.nan))
    assert np.ptp(baselines) == pytest.approx(0.0, abs=1e-12)  # K depends on the pool only
    assert np.mean(raws) == pytest.approx(baselines[0], abs=1e-12)


@pytest.mark.parametrize(("n_train", "n_holdout"), [(90, 30), (25, 60)])
def test_size_corrected_share_matches_brute_force(n_train: int, n_holdout: int) -> None:
    rng = np.random.default_rng(n_train)
    train, holdout = _mixed_table(n_train, rng), _mixed_table(n_holdout, rng)
    release = pd.concat([train.iloc[:10], _mixed_table(40, rng)], ignore_index=True)
    for frame, own in [
        (release, np.full(len(release), -1)),
        (holdout.iloc[::-1], np.arange(n_holdout)[::-1]),  # a holdout release: own record out
    ]:
        out = _run(DcrShare(n_bins=5), train, frame, MIXED_SPEC, control=holdout, seed=1)
        score, _, p0 = _brute_force(train, holdout, frame, ["v", "n"], own, 5)
        details = out["share"].details
        assert details["holdout_release"] is bool((own >= 0).all())
        assert details["n_closer"] == int(np.sum(score == 1)) and details["n_equal"] == int(
            np.sum(score == 0.5)
        )
        assert out["share_raw"].value == pytest.approx(score.mean(), abs=1e-12)
        assert out["share_raw"].baseline == pytest.approx(p0.mean(), abs=1e-12)
        expected = np.clip(np.mean(0.5 + 0.5 * (score - p0) / (1 - p0)), 0, 1)
        assert out["share"].value == pytest.approx(expected, abs=1e-12)
        assert out["dcr_ratio"].value == pytest.approx(
            details["dists_train_mean"] / details["dists_holdout_mean"]
        )


def test_calibrate_equals_the_reference_protocol_when_sizes_are_equal() -> None:
    rng = np.random.default_rng(2)
    train, holdout, release = _mixed_table(50, rng), _mixed_table(50, rng), _mixed_table(70, rng)
    for frame in (release, holdout.iloc[:30]):
        new = _run(DcrShare(), train, frame, MIXED_SPEC, control=holdout, seed=3)
        old = _run(DcrShare(size_mismatch="subsample"), train, frame, MIXED_SPEC, control=holdout, seed=3)
        assert _values(new) == _values(old)
        assert new["share"].value == new["share_raw"].value and new["share_raw"].baseline == 0.5
    # max_rows cuts each split to at most its value: equal sizes again
    train_big = _mixed_table(80, rng)
    capped = _run(DcrShare(max_rows=50), train_big, release, MIXED_SPEC, control=holdout, seed=3)
    assert capped["share_raw"].baseline == 0.5 and capped["share"].details["n_train_used"] == 50


def test_size_corrected_share_is_order_invariant() -> None:
    rng = np.random.default_rng(9)
    train, holdout, release = _mixed_table(70, rng), _mixed_table(30, rng), _mixed_table(50, rng)

    def shuffle(frame: pd.DataFrame, k: int) -> pd.DataFrame:
        return frame.sample(frac=1.0, random_state=k).reset_index(drop=True)

    for metric in (DcrShare(), DcrShare(max_query_rows=20)):
        base = _run(metric, train, release, MIXED_SPEC, control=holdout, seed=2)
        moved = _run(
            metric, shuffle(train, 1), shuffle(release, 2), MIXED_SPEC, control=shuffle(holdout, 3), seed=2
        )
        assert _values(moved) == _values(base)
    big_holdout = _mixed_table(60, rng)  # |H| > |T|, a holdout release: the size-matched H' keeps own records
    base = _run(DcrShare(), train.iloc[:40], big_holdout, MIXED_SPEC, control=big_holdout, seed=5)
    moved = _run(
        DcrShare(), train.iloc[:40], shuffle(big_holdout, 4), MIXED_SPEC, control=big_holdout, seed=5
    )
    assert _values(moved) == _values(base) and base["share"].details["holdout_release"] is True


@pytest.mark.parametrize("n_cols", [1, 2, 5])
def test_nearest_mismatch_ties_equals_brute_force(n_cols: int) -> None:
    rng = np.random.default_rng(n_cols)
    ref = rng.integers(0, 3, (150, n_cols))
    query = np.vstack([ref[:40], rng.integers(0, 3, (160, n_cols))])  # 40 rows with their own record
    skip = np.r_[np.ones(40), np.zeros(160)].astype(np.int8)
    distances = (query[:, None, :] != ref[None, :, :]).sum(axis=2)
    own = distances.astype(float)
    own[np.arange(40), np.arange(40)] = np.inf
    nearest = own.min(axis=1)
    count = (own == nearest[:, None]).sum(axis=1)
    got_d, got_k = nearest_mismatch_ties(query, ref, skip)
    np.testing.assert_array_equal(got_d, nearest)
    np.testing.assert_array_equal(got_k, count)
    ceiling = rng.integers(0, n_cols + 1, 200)
    got_d, got_k = nearest_mismatch_ties(query, ref, skip, ceiling)
    np.testing.assert_array_equal(got_d, np.minimum(nearest, ceiling + 1))
    np.testing.assert_array_equal(got_k, np.where(nearest <= ceiling, count, 0))
    # kth_nearest_mismatch with a known lower bound (the distance to a superset) ends early, same result
    floor = distances.min(axis=1)
    np.testing.assert_array_equal(
        kth_nearest_mismatch(query, ref[:60], np.ones(200), floor=floor), distances[:, :60].min(axis=1)
    )


# ---------------------------------------------------------------------- size correction on real data
def _default_split() -> SplitConfig:
    """The harness's default split (experiments/config.yaml: holdout, test 0.2, control 0.2)."""
    config = yaml.safe_load((REPO / "experiments" / "config.yaml").read_text(encoding="utf-8"))
    return SplitConfig.from_dict(config["split"])


@functools.cache
def _bundled(name: str) -> tuple[pd.DataFrame, DatasetSpec]:
    spec = load_spec(name)
    return load_dataset(spec).frame, spec


def _real_split(
    name: str, cfg: SplitConfig, seed: int, max_rows: int | None = None
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, DatasetSpec]:
    """Train, control, test of a bundled dataset as a trial splits them (data.max_rows as the trial)."""
    frame, spec = _bundled(name)
    if max_rows is not None and len(frame) > max_rows:
        rng = np.random.default_rng(derive_seed(seed, "max_rows"))
        frame = frame.iloc[np.sort(rng.choice(len(frame), size=max_rows, replace=False))].reset_index(
            drop=True
        )
    split = make_split(len(frame), cfg, split_seed=seed, y=frame[spec.target])
    train, control, test = split.take(frame)
    columns = list(spec.table_columns)
    return train[columns], control[columns], test[columns], spec


def _copy_and_independent(
    name: str, cfg: SplitConfig, seeds: range, max_rows: int | None = None
) -> tuple[list[float], list[float], float, float]:
    """Shares of T itself and of the test split per seed, the pre-change share of T (first seed), |T|/|H|."""
    copies, independent = [], []
    old_copy = ratio = math.nan
    for seed in seeds:
        train, control, test, spec = _real_split(name, cfg, seed, max_rows)
        copies.append(_run(DcrShare(), train, train, spec, control=control, seed=seed)["share"].value)
        # the test split: real rows never in T or H, a release drawn independently of T
        independent.append(_run(DcrShare(), train, test, spec, control=control, seed=seed)["share"].value)
        if seed == seeds[0]:
            ratio = len(train) / len(control)
            old = DcrShare(size_mismatch="subsample")
            old_copy = _run(old, train, train, spec, control=control, seed=seed)["share"].value
    return copies, independent, old_copy, ratio


UNEQUAL = {  # split -> |T| / |H|
    "default": 3.0,  # experiments/config.yaml: test 0.2, control 0.2, train 0.6
    "control_0.1": 7.0,  # test 0.2, control 0.1, train 0.7
    "control_0.5": 0.6,  # test 0.2, control 0.5, train 0.3: H the larger split
}


def _cfg(split: str) -> SplitConfig:
    if split == "default":
        return _default_split()
    return SplitConfig(test_size=0.2, control_size=float(split.removeprefix("control_")))


# The independent release's share is a mean of per-row scores with slope 1/(2(1 - p0(s))) (2 at
# |T| = 3|H|, 4 at 7|H|): one 200-row (German credit) or 800-row (Adult at 4,000 rows) test split
# scores 0.5 with a standard deviation of 0.03 to 0.06, so the checks average over seeds (the
# mean is unbiased: E[score] = 1/2 for every row); the copy needs no averaging.
@pytest.mark.parametrize("split", list(UNEQUAL))
@pytest.mark.parametrize(("name", "max_rows", "n_seeds"), [("german_credit", None, 20), ("adult", 4000, 10)])
def test_copy_scores_one_and_independent_release_one_half(
    split: str, name: str, max_rows: int | None, n_seeds: int
) -> None:
    copies, independent, old_copy, ratio = _copy_and_independent(name, _cfg(split), range(n_seeds), max_rows)
    assert ratio == pytest.approx(UNEQUAL[split], rel=0.02)
    assert min(copies) >= 0.95
    if ratio > 1:  # the pre-change protocol: T subsampled to |H|, most sources lost
        assert old_copy < 0.8
    assert np.mean(independent) == pytest.approx(0.5, abs=0.03)


@pytest.mark.slow
def test_full_adult_default_split_copy_and_independent_release() -> None:
    copies, independent, old_copy, ratio = _copy_and_independent("adult", _default_split(), range(1))
    assert ratio == pytest.approx(3.0, rel=0.01)
    assert copies[0] >= 0.95 and old_copy < 0.7
    assert independent[0] == pytest.approx(0.5, abs=0.03)


# ---------------------------------------------------------------------- R-HOLDOUT (reproductions.md §11)
# privacy_c100.csv, adult rows: n_closer, n_further, n_equal, share. Two releases here (one
# synthetic, the holdout itself); every release is checked exactly by `privbench reproduce
# platzer_2021 --profile paper` (its quick profile subsamples the queries).
REFERENCE = {
    "mostly": (9239, 8608, 32153, 0.50631),
    "synthpop": (14550, 6515, 28935, 0.58035),
    "ctgan": (8594, 8180, 33226, 0.50414),
    "tvae": (6305, 6372, 37323, 0.49933),
    "gaussian_copula": (7356, 7390, 35254, 0.49966),
    "flip10": (44636, 350, 5014, 0.94286),
    "flip50": (14932, 5751, 29317, 0.59181),
    "val": (4522, 4525, 15374, 0.499938577453831),
}


@pytest.fixture(scope="module")
def adult_split() -> tuple[pd.DataFrame, pd.DataFrame, DatasetSpec]:
    if not HOLDOUT_DIR.is_dir():
        pytest.fail(f"reference data {HOLDOUT_DIR} is absent (bundled with the harness)")
    train = pd.read_csv(HOLDOUT_DIR / "adult_trn.csv.gz")
    holdout = pd.read_csv(HOLDOUT_DIR / "adult_val.csv.gz")
    # the reference bins the columns pandas reads as numbers (education-num included)
    kinds = {c: "integer" if train[c].dtype != object else "categorical" for c in train.columns}
    return train, holdout, DatasetSpec.from_dict({"name": "adult_mostly", "columns": kinds})


@pytest.mark.slow
@pytest.mark.parametrize("release", ["flip10", "val"])
def test_reproduces_r_holdout_reference_values(
    release: str, adult_split: tuple[pd.DataFrame, pd.DataFrame, DatasetSpec]
) -> None:
    train, holdout, spec = adult_split
    synthetic = holdout if release == "val" else pd.read_csv(HOLDOUT_DIR / f"adult_{release}.csv.gz")
    out = _run(DcrShare(), train, synthetic, spec, control=holdout, seed=0)
    details = out["share"].details
    closer, further, equal, share = REFERENCE[release]
    # binning as the reference (qcut on the concatenation, duplicates dropped): counts `exact`
    assert (details["n_closer"], details["n_further"], details["n_equal"]) == (closer, further, equal)
    assert out["share"].value == pytest.approx(share, abs=1e-9)
    assert details["holdout_release"] is (release == "val")
