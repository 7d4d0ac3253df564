"""MDAV microaggregation (``spec/generators.md`` §6.7): hand-checked clusters, cluster sizes
k..2k-1 and k-anonymity of the microaggregated columns."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from generators.mdav import Mdav, mdav_labels
from harness.dtypes import conform
from harness.errors import ConfigError, DataError, InfeasibleConfigError
from harness.spec import DatasetSpec

SPEC = DatasetSpec.from_dict(
    {
        "name": "toy",
        "columns": {"age": "integer", "score": "continuous", "colour": "categorical", "income": "continuous"},
        "qi_sets": {"default": ["age", "score", "colour"]},
    }
)


def make_table(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "age": rng.integers(18, 91, size=n),
            "score": rng.normal(size=n),
            "colour": rng.choice(np.array(["red", "green", "blue"], dtype=object), size=n, p=[0.5, 0.3, 0.2]),
            "income": rng.lognormal(size=n),
        }
    )
    return conform(frame, SPEC)


def groups(labels: np.ndarray) -> list[set[int]]:
    return sorted((set(np.flatnonzero(labels == g).tolist()) for g in np.unique(labels)), key=min)


def test_hand_checked_loop_step() -> None:
    # centroid 64/6: r = 22 (farthest), s = 0 (farthest from r); the rest {10, 11} is the last cluster.
    z = np.array([[0.0], [1.0], [10.0], [11.0], [20.0], [22.0]])
    labels = mdav_labels(z, 2)
    assert groups(labels) == [{0, 1}, {2, 3}, {4, 5}]
    assert labels[5] == 0 and labels[0] == 1 and labels[2] == 2  # order of formation: r, s, rest


def test_hand_checked_two_k_step() -> None:
    # n = 7, k = 3: 2k <= 7 < 3k, so r = 0 (farthest from centroid 7) with its 2 nearest; rest is one cluster.
    z = np.array([[0.0], [1.0], [2.0], [10.0], [11.0], [12.0], [13.0]])
    assert groups(mdav_labels(z, 3)) == [{0, 1, 2}, {3, 4, 5, 6}]


def test_hand_checked_generator_output() -> None:
    spec = DatasetSpec.from_dict({"name": "line", "columns": {"x": "continuous", "y": "integer"}})
    train = conform(pd.DataFrame({"x": [0.0, 1.0, 10.0, 11.0, 20.0, 22.0], "y": [1, 2, 3, 4, 5, 7]}), spec)
    gen = Mdav(k=2).fit(train, spec, seed=0)
    out = gen.sample()
    # clusters {0, 1}, {2, 3}, {4, 5} in both columns; y means 1.5, 3.5, 6 rounded half to even
    assert out["x"].tolist() == [0.5, 0.5, 10.5, 10.5, 21.0, 21.0]
    assert out["y"].tolist() == [2, 2, 4, 4, 6, 6]
    details = gen.details()
    assert details["n_clusters"] == 3 and details["min_cluster_size"] == details["max_cluster_size"] == 2
    # within-cluster squared deviations are 3 per column; z-scoring divides by SST/6 per column
    sst_x = ((train["x"] - train["x"].mean()) ** 2).sum()
    sst_y = ((train["y"] - train["y"].mean()) ** 2).sum()
    expected = (3 * 6 / sst_x + 3 * 6 / sst_y) / 12
    assert details["information_loss"]["sse_sst"] == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(("n", "k"), [(100, 2), (101, 3), (250, 5), (97, 7), (40, 13), (12, 5)])
def test_cluster_sizes_between_k_and_2k_minus_1(n: int, k: int) -> None:
    z = np.random.default_rng(n + k).normal(size=(n, 3))
    sizes = np.bincount(mdav_labels(z, k))
    assert sizes.sum() == n and sizes.min() >= k and sizes.max() <= 2 * k - 1


def test_k_anonymity_of_microaggregated_columns() -> None:
    train = make_table(500, seed=3)
    gen = Mdav(k=5).fit(train, SPEC, seed=0)
    out = gen.sample()
    assert gen.details()["columns"] == ["age", "score"]  # numeric QIs
    assert out.groupby(["age", "score"]).size().min() >= 5
    pd.testing.assert_series_equal(out["income"], train["income"])  # not a QI: unchanged
    pd.testing.assert_series_equal(out["colour"], train["colour"])  # categorical: keep
    assert out["age"].mean() == pytest.approx(train["age"].mean(), abs=0.5)
    assert out["score"].mean() == pytest.approx(train["score"].mean(), abs=1e-12)  # means preserved


def test_categorical_mode_and_explicit_columns() -> None:
    train = make_table(300, seed=4)
    gen = Mdav(k=4, columns=["income"], categorical="mode").fit(train, SPEC, seed=0)
    out = gen.sample()
    assert out.groupby(["income", "colour"]).size().min() >= 4  # colour constant within a cluster
    for _, cluster in train.groupby(gen.labels_):
        assert out.loc[cluster.index, "colour"].nunique() == 1
        counts = cluster["colour"].value_counts()
        assert counts[out.loc[cluster.index[0], "colour"]] == counts.max()


def test_seed_independent() -> None:
    train = make_table(200, seed=5)
    a = Mdav().fit(train, SPEC, seed=0).sample()
    b = Mdav().fit(train, SPEC, seed=1).sample()
    pd.testing.assert_frame_equal(a, b)


def test_errors() -> None:
    train = make_table(20, seed=6)
    with pytest.raises(ConfigError, match=r"^`k` must be an integer >= 2; got 1$"):
        Mdav(k=1).validate_params()
    with pytest.raises(ConfigError, match="`categorical` must be one of"):
        Mdav(categorical="drop").validate_params()
    with pytest.raises(ConfigError, match="must name numeric columns"):
        Mdav(columns=["colour"]).fit(train, SPEC, seed=0)
    with pytest.raises(InfeasibleConfigError, match="k=30 exceeds the 20 training rows"):
        Mdav(k=30).fit(train, SPEC, seed=0)
    missing = train.copy()
    missing.loc[0, "score"] = np.nan
    with pytest.raises(DataError, match="'score' have missing values"):
        Mdav().fit(missing, SPEC, seed=0)
