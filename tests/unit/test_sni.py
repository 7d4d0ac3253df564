"""sni (spec/metrics.md P13): SNN-DBSCAN by hand and against a loop reference, SNI values, params."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

from harness.checks import uniform_release
from harness.errors import ConfigError, IncomputableMetricError
from harness.instantiate import build_metric
from harness.metric import BaseMetric, MetricResult, as_outputs
from harness.registry import read_config
from harness.spec import DatasetSpec
from metrics.privacy.sni import NOISE, SharedNeighbourIdentifiability, at_risk_points, knn_graph, snn_dbscan

LINE = DatasetSpec.from_dict({"name": "line", "columns": {"x": "continuous"}})
MIXED = DatasetSpec.from_dict(
    {"name": "mixed", "columns": {"x": "continuous", "y": "continuous", "c": "categorical"}}
)
# 1-D points; with k = 2 (no distance ties):
#   N(0) = {1, 2}, N(1) = {0, 2}, N(2.5) = {1, 0}, N(10) = {11.5, 2.5}, N(11.5) = {10, 2.5},
#   N(50) = {11.5, 10}
# similarity (shared neighbours, + 1 for a mutual link):
#   0-1, 0-2.5, 1-2.5, 10-11.5: 1 + 1 = 2;  2.5-10, 2.5-11.5: 0;  50-11.5, 50-10: 1 (one-way links)
LINE_POINTS = np.array([0.0, 1.0, 2.5, 10.0, 11.5, 50.0])[:, None]


def _run(metric: BaseMetric, *args: Any, **kwargs: Any) -> dict[str, MetricResult]:
    """``metric.compute`` with its outputs as a dict (typed for mypy)."""
    return as_outputs(metric.compute(*args, **kwargs))


def _partition(labels: np.ndarray) -> set[frozenset[int]]:
    """Clusters as sets of point indices (noise left out), independent of the cluster ids."""
    return {frozenset(np.flatnonzero(labels == c).tolist()) for c in np.unique(labels) if c != NOISE}


def test_knn_graph_excludes_the_point_itself() -> None:
    neighbours, distances = knn_graph(LINE_POINTS, k=2)
    assert neighbours.tolist() == [[1, 2], [0, 2], [1, 0], [4, 2], [3, 2], [4, 3]]
    assert distances[5].tolist() == [38.5, 40.0]
    # exact duplicates are other points, whichever of them the search returns first
    dup_neighbours, dup_distances = knn_graph(np.array([[0.0], [0.0], [0.0], [5.0]]), k=2)
    assert all(i not in row for i, row in enumerate(dup_neighbours.tolist()))
    assert dup_distances[:3].tolist() == [[0.0, 0.0]] * 3


def test_snn_dbscan_by_hand() -> None:
    strict = snn_dbscan(LINE_POINTS, k=2, eps=2, min_pts=2)
    assert _partition(strict.labels) == {frozenset({0, 1, 2}), frozenset({3, 4})}
    assert strict.labels[5] == NOISE
    assert strict.density.tolist() == [2, 2, 2, 1, 1, 0]
    assert strict.core.tolist() == [True, True, True, True, True, False]  # MinPts counts the point
    loose = snn_dbscan(LINE_POINTS, k=2, eps=1, min_pts=2)
    assert _partition(loose.labels) == {frozenset({0, 1, 2}), frozenset({3, 4, 5})}
    # MinPts = 3 needs two strong links: 10 and 11.5 have one each and no core neighbour -> noise
    dense = snn_dbscan(LINE_POINTS, k=2, eps=2, min_pts=3)
    assert _partition(dense.labels) == {frozenset({0, 1, 2})}
    assert (dense.labels[3:] == NOISE).all()


def test_border_points_join_their_core() -> None:
    # N(0) = {1, -1.8}, N(1) = {0, 2.5}, N(2.5) = {1, 0}, N(-1.8) = {0, 1}; with eps = 1 every link
    # is strong; densities 3, 3, 2, 2 -> with MinPts = 4 only 0 and 1 are core, 2.5 and -1.8 border
    points = np.array([0.0, 1.0, 2.5, -1.8])[:, None]
    result = snn_dbscan(points, k=2, eps=1, min_pts=4)
    assert result.density.tolist() == [3, 3, 2, 2]
    assert result.core.tolist() == [True, True, False, False]
    assert _partition(result.labels) == {frozenset({0, 1, 2, 3})}


def _reference(points: np.ndarray, k: int, eps: int, min_pts: int) -> np.ndarray:
    """Loop implementation of the documented algorithm (no distance ties assumed)."""
    n = len(points)
    dist = np.sqrt(((points[:, None, :] - points[None, :, :]) ** 2).sum(axis=2))
    np.fill_diagonal(dist, np.inf)
    nbrs = [set(np.argsort(dist[i])[:k].tolist()) for i in range(n)]
    sim: dict[tuple[int, int], int] = {}
    for i in range(n):
        for j in nbrs[i]:
            mutual = i in nbrs[j] and j in nbrs[i]
            sim[(min(i, j), max(i, j))] = len(nbrs[i] & nbrs[j]) + int(mutual)
    strong = {i: [] for i in range(n)}  # type: dict[int, list[int]]
    for (i, j), s in sim.items():
        if s >= eps:
            strong[i].append(j)
            strong[j].append(i)
    core = [len(strong[i]) + 1 >= min_pts for i in range(n)]
    labels = [NOISE] * n
    cluster = 0
    for i in range(n):
        if core[i] and labels[i] == NOISE:
            stack = [i]
            labels[i] = cluster
            while stack:
                p = stack.pop()
                for q in strong[p]:
                    if core[q] and labels[q] == NOISE:
                        labels[q] = cluster
                        stack.append(q)
            cluster += 1
    for i in range(n):
        if not core[i]:
            cores = [j for j in strong[i] if core[j]]
            if cores:
                best = min(cores, key=lambda j: (-sim[(min(i, j), max(i, j))], dist[i, j], j))
                labels[i] = labels[best]
    return np.array(labels)


@pytest.mark.parametrize(("k", "eps", "min_pts"), [(10, 3, 2), (5, 2, 3), (4, 3, 4), (8, 5, 2)])
def test_snn_dbscan_matches_loop_reference(k: int, eps: int, min_pts: int) -> None:
    rng = np.random.default_rng(k * 100 + eps)
    points = np.vstack(
        [rng.normal(0, 1, (40, 2)), rng.normal(6, 0.5, (15, 2)), rng.uniform(-10, 20, (10, 2))]
    )
    result = snn_dbscan(points, k=k, eps=eps, min_pts=min_pts, chunk_size=13)
    expected = _reference(points, k, eps, min_pts)
    assert _partition(result.labels) == _partition(expected)
    assert ((result.labels == NOISE) == (expected == NOISE)).all()


def test_at_risk_rules() -> None:
    labels = np.array([0, 0, 1, NOISE, 0, 1, 2, 2])  # 3 real rows first, then 5 synthetic
    mixed = at_risk_points(labels, n_real=3, min_cluster_size=3, rule="mixed")
    # cluster 0 has 3 points (not small); cluster 1 (real 2, synthetic 5) is small and mixed;
    # cluster 2 is small but synthetic only
    assert mixed.tolist() == [False, False, True, False, False, True, False, False]
    size = at_risk_points(labels, n_real=3, min_cluster_size=3, rule="size")
    assert size.tolist() == [False, False, True, False, False, True, True, True]


def test_sni_by_hand() -> None:
    # T = {0, 2.5, 10}, S = {1, 11.5, 50}: the LINE_POINTS clustering (scaling by T's range keeps it)
    train = pd.DataFrame({"x": [0.0, 2.5, 10.0]})
    synthetic = pd.DataFrame({"x": [1.0, 11.5, 50.0]})
    metric = SharedNeighbourIdentifiability(n_neighbors=2, eps=2, min_pts=2, min_cluster_size=3)
    out = _run(metric, train, synthetic, LINE, seed=0)
    # clusters {0, 1, 2.5} (size 3) and {10, 11.5} (size 2, real + synthetic: at risk); 50 is noise
    assert out["sni"].value == pytest.approx(1 / 3)
    assert out["sni_noise_at_risk"].value == pytest.approx(2 / 3)
    assert out["sni"].details["n_clusters"] == 2
    assert out["sni"].details["n_noise_synthetic"] == 1
    assert out["sni_noise_at_risk"].goal == "none" and out["sni"].goal is None
    bigger = SharedNeighbourIdentifiability(n_neighbors=2, eps=2, min_pts=2, min_cluster_size=4)
    assert _run(bigger, train, synthetic, LINE, seed=0)["sni"].value == pytest.approx(2 / 3)


def test_synthetic_only_clusters_need_the_size_rule() -> None:
    train = pd.DataFrame({"x": [0.0, 1.0, 2.5, 50.0]})
    synthetic = pd.DataFrame({"x": [10.0, 11.5]})
    params: dict[str, Any] = {"n_neighbors": 2, "eps": 2, "min_pts": 2, "min_cluster_size": 3}
    mixed = _run(SharedNeighbourIdentifiability(**params), train, synthetic, LINE, seed=0)
    size = _run(SharedNeighbourIdentifiability(**params, cluster_rule="size"), train, synthetic, LINE, seed=0)
    assert mixed["sni"].value == 0.0  # {10, 11.5} holds no real record
    assert size["sni"].value == 1.0


def _mixed(rng: np.random.Generator, size: int) -> pd.DataFrame:
    return pd.DataFrame(
        {"x": rng.normal(0, 1, size), "y": rng.exponential(1, size), "c": rng.choice(["a", "b", "c"], size)}
    )


def test_identical_release_is_riskier_than_degraded_or_far() -> None:
    rng = np.random.default_rng(2)
    # a blob and three isolated records with unique categories, which a copy of T reproduces
    isolated = pd.DataFrame({"x": [8.0, -8.0, 0.0], "y": [8.0, 9.0, -5.0], "c": ["u1", "u2", "u3"]})
    train = pd.concat([_mixed(rng, 150), isolated], ignore_index=True)
    metric = SharedNeighbourIdentifiability()
    identical = _run(metric, train, train.copy(), MIXED, seed=0)["sni"]
    degraded = _run(metric, train, uniform_release(train, MIXED, seed=0), MIXED, seed=0)["sni"].value
    far = _run(metric, train, train.assign(x=train["x"] + 1000.0), MIXED, seed=0)["sni"].value
    assert identical.details["n_at_risk_clusters"] == 2  # two copied records share a small cluster with T
    assert identical.value == pytest.approx(2 / len(train))
    assert identical.value > degraded == 0.0
    assert far == 0.0  # S alone in its own clusters: no real record shares them


def test_row_order_invariance_with_duplicates() -> None:
    rng = np.random.default_rng(6)
    train = _mixed(rng, 80)
    synthetic = pd.concat([train.iloc[:30], _mixed(rng, 50)], ignore_index=True)  # exact copies: ties
    metric = SharedNeighbourIdentifiability()
    base = {k: r.value for k, r in _run(metric, train, synthetic, MIXED, seed=0).items()}
    shuffled = _run(
        metric,
        train.sample(frac=1.0, random_state=0),
        synthetic.sample(frac=1.0, random_state=1),
        MIXED,
        seed=0,
    )
    assert base == {k: r.value for k, r in shuffled.items()}


def test_chunking_gives_identical_results() -> None:
    rng = np.random.default_rng(8)
    train, synthetic = _mixed(rng, 70), _mixed(rng, 70)
    a = _run(SharedNeighbourIdentifiability(chunk_size=9), train, synthetic, MIXED, seed=0)
    b = _run(SharedNeighbourIdentifiability(), train, synthetic, MIXED, seed=0)
    assert {k: r.value for k, r in a.items()} == {k: r.value for k, r in b.items()}


def test_too_few_points_is_incomputable() -> None:
    frame = pd.DataFrame({"x": [0.0, 1.0, 2.0]})
    with pytest.raises(IncomputableMetricError, match="more than n_neighbors"):
        _run(SharedNeighbourIdentifiability(), frame, frame.copy(), LINE, seed=0)


@pytest.mark.parametrize(
    ("params", "key"),
    [
        ({"n_neighbors": 1}, "n_neighbors"),
        ({"n_neighbors": 10.0}, "n_neighbors"),
        ({"eps": 0}, "eps"),
        ({"eps": 11}, "eps"),
        ({"min_pts": 0}, "min_pts"),
        ({"min_cluster_size": 0}, "min_cluster_size"),
        ({"cluster_rule": "any"}, "cluster_rule"),
        ({"chunk_size": 0}, "chunk_size"),
    ],
)
def test_bad_params_raise_one_line_config_error(params: dict, key: str) -> None:
    with pytest.raises(ConfigError) as info:
        SharedNeighbourIdentifiability(**params).validate_params()
    assert f"`{key}`" in str(info.value) and "\n" not in str(info.value)


def test_yaml_builds_with_spec_defaults() -> None:
    metric = build_metric("sni", read_config("metric", "sni"))
    assert isinstance(metric, SharedNeighbourIdentifiability)
    assert metric.get_params() == SharedNeighbourIdentifiability().get_params()
    assert (metric.n_neighbors, metric.eps, metric.min_pts, metric.min_cluster_size) == (10, 3, 2, 5)
