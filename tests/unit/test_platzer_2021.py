"""R-HOLDOUT pieces (reproductions.md §11): the bundled reference values, dcr_share's
``max_query_rows`` and kmarginal_tvd's shared-prefix counting."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
import pytest

import metrics.fidelity.kmarginal_tvd as kmarginal
from experiments.reproductions.platzer_2021 import DCR_RATIO, REFERENCE
from harness.datasets import DATA_ROOT, load_dataset, load_spec
from harness.metric import MetricResult, as_outputs
from harness.spec import DatasetSpec
from metrics.privacy.dcr_share import DcrShare

FOLDER = DATA_ROOT / "adult_mostly_synthetic"
NAMES = {  # checks-module key -> (tradeoff.csv synthesizer, privacy_c100.csv synthesizer)
    "mostly": ("MOSTLY", "mostly"),
    "synthpop": ("synthpop", "synthpop"),
    "ctgan": ("CTGAN", "ctgan"),
    "tvae": ("TVAE", "tvae"),
    "gaussian_copula": ("Gaussian Copula", "gaussian_copula"),
    "flip10": ("Flip 10%", "flip10"),
    "flip50": ("Flip 50%", "flip50"),
    "holdout": ("Holdout", "val"),
}


def test_reference_values_are_the_bundled_adult_rows() -> None:
    tradeoff = pd.read_csv(FOLDER / "tradeoff.csv").query("dataset == 'adult'").set_index("synthesizer")
    privacy = pd.read_csv(FOLDER / "privacy_c100.csv").query("dataset == 'adult'").set_index("synthesizer")
    assert set(REFERENCE) == set(NAMES)
    for key, (trade_name, privacy_name) in NAMES.items():
        ref = REFERENCE[key]
        assert ref["tvd"] == pytest.approx(tradeoff.loc[trade_name, "tvd"], abs=1e-15)
        assert ref["share"] == pytest.approx(tradeoff.loc[trade_name, "share"], abs=1e-12)
        assert DCR_RATIO[key] == pytest.approx(tradeoff.loc[trade_name, "dcr_ratio"], abs=1e-15)
        row = privacy.loc[privacy_name]
        assert ref["counts"] == (row["n_closer"], row["n_further"], row["n_equal"])


def test_adult_platzer_is_the_published_split() -> None:
    data = load_dataset(load_spec("adult_platzer"))
    assert data.test_mask is not None
    assert data.frame.shape == (48_842, 15) and int(data.test_mask.sum()) == 24_421
    assert data.frame["education-num"].dtype == np.int64  # binned as a number, as the reference
    first = data.frame.iloc[0]
    assert (first["age"], first["occupation"], first["income"]) == (23, "Other-service", "<=50K")


# ---------------------------------------------------------------------- dcr_share max_query_rows
V_SPEC = DatasetSpec.from_dict({"name": "v", "columns": {"v": "continuous", "c": "categorical"}})
TRAIN = pd.DataFrame({"v": [1.0, 2.0], "c": ["k", "k"]})
HOLDOUT = pd.DataFrame({"v": [3.0, 9.0], "c": ["k", "k"]})
RELEASE = pd.DataFrame({"v": [2.9, 5.0, 6.0, 7.0, 8.0], "c": ["k"] * 5})
# 2 bins of all nine values (median 5): T codes 0 0, H codes 0 1, S codes 0 0 1 1 1
# -> 2.9 and 5.0 tie (d_T = d_H = 0), 6, 7, 8 are further (d_T = 1, d_H = 0): no row is closer.
# Binning only T, H and the row 2.9 (median 2.9) would code H as 1 1 and make 2.9 closer.


def _share(metric: DcrShare, release: pd.DataFrame, seed: int = 0, **frames: pd.DataFrame) -> MetricResult:
    train, holdout = frames.get("train", TRAIN), frames.get("holdout", HOLDOUT)
    return as_outputs(metric.compute(train, release, V_SPEC, control=holdout, seed=seed))["share"]


def test_max_query_rows_scores_rows_binned_with_the_whole_release() -> None:
    full = _share(DcrShare(n_bins=2), RELEASE).details
    assert (full["n_closer"], full["n_further"], full["n_equal"]) == (0, 3, 2)
    equal_seen = 0
    for seed in range(20):
        out = _share(DcrShare(n_bins=2, max_query_rows=1), RELEASE, seed)
        details = out.details
        assert details["n_query"] == 1 and details["n_release"] == 5 and details["subsample_seed"] == seed
        assert details["n_closer"] == 0 and out.value in (0.0, 0.5)
        equal_seen += details["n_equal"]
    assert 0 < equal_seen < 20  # both kinds of rows get drawn
    same = _share(DcrShare(n_bins=2, max_query_rows=5), RELEASE)
    assert same.details == full  # max_query_rows >= |S|: every row, as without it


def test_max_query_rows_is_order_invariant() -> None:
    rng = np.random.default_rng(1)
    train = pd.DataFrame({"v": rng.normal(size=60), "c": rng.choice(["a", "b"], 60)})
    holdout = pd.DataFrame({"v": rng.normal(size=60), "c": rng.choice(["a", "b"], 60)})
    release = pd.DataFrame({"v": rng.normal(size=80), "c": rng.choice(["a", "b"], 80)})
    metric = DcrShare(n_bins=5, max_query_rows=30)
    a = _share(metric, release, 4, train=train, holdout=holdout)
    b = _share(metric, release.sample(frac=1.0, random_state=2), 4, train=train, holdout=holdout)
    assert a.value == b.value and a.details["n_query"] == 30


# ---------------------------------------------------------------------- kmarginal_tvd counting
@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("dense", [True, False])
def test_marginal_tvds_equal_marginal_tvd(k: int, dense: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if not dense:
        monkeypatch.setattr(kmarginal, "MAX_DENSE_CELLS", 1)
    rng = np.random.default_rng(k)
    levels = [3, 4, 2, 5, 3]
    ref = np.column_stack([rng.integers(0, n, 200) for n in levels])
    others = [np.column_stack([rng.integers(0, n, size) for n in levels]) for size in (150, 90)]
    marginals = list(combinations(range(len(levels)), k))
    got = kmarginal.marginal_tvds(ref, others, levels, marginals)
    for values, other in zip(got, others):
        expected = [
            kmarginal.marginal_tvd(ref[:, list(m)], other[:, list(m)], tuple(levels[j] for j in m))
            for m in marginals
        ]
        assert values == pytest.approx(expected, abs=1e-15)


def test_max_query_rows_keeps_holdout_releases_second_nearest() -> None:
    rng = np.random.default_rng(5)
    train = pd.DataFrame({"v": rng.normal(size=50).round(1), "c": rng.choice(["a", "b"], 50)})
    holdout = pd.DataFrame({"v": rng.normal(size=50).round(1), "c": rng.choice(["a", "b"], 50)})
    full = _share(DcrShare(n_bins=4), holdout.copy(), 0, train=train, holdout=holdout).details
    sub = _share(
        DcrShare(n_bins=4, max_query_rows=20), holdout.copy(), 0, train=train, holdout=holdout
    ).details
    assert full["holdout_release"] and full["n_second_nearest"] == 50
    assert sub["holdout_release"] and sub["n_second_nearest"] == 20 and sub["n_query"] == 20
    release = pd.concat([holdout.iloc[:30], train.iloc[:20]], ignore_index=True)  # not a holdout release
    mixed = _share(DcrShare(n_bins=4, max_query_rows=10), release, 0, train=train, holdout=holdout).details
    assert not mixed["holdout_release"] and mixed["n_second_nearest"] == 0
