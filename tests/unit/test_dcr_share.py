"""dcr_share (spec/metrics.md P7): hand-computed shares, the reference one-hot procedure,
holdout releases, size mismatch, params, and the R-HOLDOUT reference values (reproductions.md §11)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from harness.errors import ConfigError, IncomputableMetricError
from harness.instantiate import build_metric
from harness.metric import BaseMetric, MetricResult, as_outputs
from harness.spec import DatasetSpec
from metrics.privacy.dcr_share import DcrShare, kth_nearest_mismatch

CAT_SPEC = DatasetSpec.from_dict(
    {"name": "abc", "columns": {"a": "categorical", "b": "categorical", "c": "categorical"}}
)
MIXED_SPEC = DatasetSpec.from_dict(
    {"name": "mixed", "columns": {"v": "continuous", "n": "integer", "c": "categorical", "d": "categorical"}}
)
DATASETS = Path(__file__).resolve().parents[2].parent / "shared" / "datasets"
HOLDOUT_DIR = DATASETS / "adult_mostly_synthetic"


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
    assert _values(out) == pytest.approx(
        {"share": 2 / 4 + 0.5 * 1 / 4, "dcr_ratio": 0.75 / 1.25, "share_ratio": 0.625 / 0.375}
    )
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


def test_size_mismatch_subsamples_the_larger_split_or_raises() -> None:
    rng = np.random.default_rng(11)
    train, holdout, release = _mixed_table(50, rng), _mixed_table(30, rng), _mixed_table(40, rng)
    out = _run(DcrShare(), train, release, MIXED_SPEC, control=holdout, seed=4)
    details = out["share"].details
    assert details["n_train_used"] == details["n_holdout_used"] == 30
    assert details["n_train"] == 50 and details["subsample_seed"] == 4
    again = _run(DcrShare(), train, release, MIXED_SPEC, control=holdout, seed=4)
    assert _values(again) == _values(out)
    with pytest.raises(IncomputableMetricError, match=r"\|holdout\| = \|train\|"):
        _run(DcrShare(size_mismatch="error"), train, release, MIXED_SPEC, control=holdout, seed=0)
    # a holdout release larger than |T|: H is cut to |T| rows, each S row whose own record stays
    # in H uses its second-nearest holdout neighbour
    big_holdout = _mixed_table(70, rng)
    out = _run(DcrShare(), train, big_holdout, MIXED_SPEC, control=big_holdout, seed=0)
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
        "size_mismatch": "subsample",
        "holdout_release": "auto",
        "max_rows": None,
        "max_query_rows": None,
    }


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
        pytest.fail(f"reference data {HOLDOUT_DIR} is absent; clone with ../shared beside the checkout")
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
